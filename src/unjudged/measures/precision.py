"""Set and cutoff measures built on counts of relevant documents: P, R, success, set_*."""

from __future__ import annotations

import numpy as np

from unjudged.measures._common import divide, level, relevant
from unjudged.measures._spec import JUDGED_ONLY, MeasureSpec, Param, register

REL = Param("rel", int, None, "smallest relevant grade (default: the -l policy, 1)")
TREC = "trec_eval 10 (NIST)"


def precision(j, cutoff=None, rel=None):
    r = relevant(j, cutoff, rel).sum(axis=-1)
    if cutoff is None:
        return divide(r, j.length)
    return r / float(cutoff)


def recall(j, cutoff=None, rel=None):
    return divide(relevant(j, cutoff, rel).sum(axis=-1), j.pool.num_rel(level(j, rel)))


def relative_precision(j, cutoff=None, rel=None):
    nrel = j.pool.num_rel(level(j, rel))
    den = nrel if cutoff is None else np.minimum(nrel, cutoff)
    if cutoff is None:
        den = np.minimum(nrel, j.length)
    return divide(relevant(j, cutoff, rel).sum(axis=-1), den)


def set_precision(j, rel=None, relative=False):
    """Relevant retrieved over retrieved (relative=True: over min(retrieved, R))."""
    return relative_precision(j, None, rel) if relative else precision(j, None, rel)


def set_recall(j, rel=None):
    return recall(j, None, rel)


def success(j, cutoff=None, rel=None):
    return relevant(j, cutoff, rel).any(axis=-1).astype(np.float64)


def set_f(j, beta=1.0, rel=None):
    """trec_eval's set_F: (x+1) P R / (x P + R) with x = beta, the relative importance of R to
    P (trec_eval weighs by x itself, not by x^2 as van Rijsbergen's F_beta does)."""
    p = precision(j, None, rel)
    r = recall(j, None, rel)
    return divide((beta + 1.0) * p * r, beta * p + r)


def set_ap(j, rel=None):
    # trec_eval's one division, num_rel_ret**2 / (num_ret * num_rel): P * R rounds otherwise
    # (55/1000 * 55/100 prints 0.0303, trec_eval 0.0302)
    r = relevant(j, None, rel).sum(axis=-1)
    return divide(r * r, j.length * j.pool.num_rel(level(j, rel)))


register(MeasureSpec(
    "P", precision, "Precision: the fraction of the top k documents that are relevant "
    "(k counts even when fewer documents were retrieved). Without a cutoff: the fraction of all "
    "retrieved documents (trec_eval set_P).",
    params=(REL, JUDGED_ONLY), cutoff="optional", aliases=("precision", "set_P", "Precision"),
    citation=TREC, normalised=False))
register(MeasureSpec(
    "R", recall, "Recall: the fraction of the topic's relevant documents found in the top k "
    "(all retrieved without a cutoff: trec_eval set_recall).",
    params=(REL, JUDGED_ONLY), cutoff="optional", aliases=("recall", "set_recall", "Recall"),
    citation=TREC))
register(MeasureSpec(
    "RelP", relative_precision, "Relative precision: relevant documents in the top k divided "
    "by min(k, number of relevant documents) (trec_eval relative_P / set_relative_P).",
    params=(REL, JUDGED_ONLY), cutoff="optional",
    aliases=("relative_P", "set_relative_P", "SetRelP"), citation=TREC))
register(MeasureSpec(
    "Success", success, "1 when a relevant document appears in the top k, else 0 (without a "
    "cutoff: anywhere in the ranking).",
    params=(REL, JUDGED_ONLY), cutoff="optional", aliases=("success",), citation=TREC,
    normalised=False))
register(MeasureSpec(
    "SetF", set_f, "F-measure of the whole retrieved set as trec_eval's set_F computes it: "
    "(beta+1)PR / (beta P + R), beta the relative importance of recall (not squared).",
    params=(Param("beta", float, 1.0, "weight of recall", low=0), REL, JUDGED_ONLY),
    aliases=("set_F",),
    citation=TREC))
register(MeasureSpec(
    "SetAP", set_ap, "Set precision times set recall (trec_eval set_map).",
    params=(REL, JUDGED_ONLY), aliases=("set_map",), citation=TREC))
register(MeasureSpec(
    "SetP", set_precision, "Set precision: relevant retrieved documents over retrieved ones "
    "(trec_eval set_P); relative=True divides by min(retrieved, R) instead "
    "(set_relative_P). ir_measures' SetP and SetRelP.",
    params=(REL, Param("relative", bool, False, "divide by min(retrieved, R)"), JUDGED_ONLY),
    citation=TREC + "; ir_measures 0.4.3 SetP"))
register(MeasureSpec(
    "SetR", set_recall, "Set recall: relevant retrieved documents over the topic's relevant "
    "ones (trec_eval set_recall; ir_measures SetR).", params=(REL,),
    citation=TREC + "; ir_measures 0.4.3 SetR"))
