"""Set and cutoff measures built on counts of relevant documents: P, R, success, set_*."""

from __future__ import annotations

import numpy as np

from unjudged.measures._common import divide, level, relevant
from unjudged.measures._spec import MeasureSpec, Param, register

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


def success(j, cutoff=None, rel=None):
    return relevant(j, cutoff, rel).any(axis=-1).astype(np.float64)


def set_f(j, beta=1.0, rel=None):
    p = precision(j, None, rel)
    r = recall(j, None, rel)
    b2 = beta * beta
    return divide((b2 + 1) * p * r, b2 * p + r)


def set_ap(j, rel=None):
    return precision(j, None, rel) * recall(j, None, rel)


register(MeasureSpec(
    "P", precision, "Precision: the fraction of the top k documents that are relevant "
    "(k counts even when fewer documents were retrieved). Without a cutoff: the fraction of all "
    "retrieved documents (trec_eval set_P).",
    params=(REL,), cutoff="optional", aliases=("precision", "set_P"), citation=TREC))
register(MeasureSpec(
    "R", recall, "Recall: the fraction of the topic's relevant documents found in the top k "
    "(all retrieved without a cutoff: trec_eval set_recall).",
    params=(REL,), cutoff="optional", aliases=("recall", "set_recall"), citation=TREC))
register(MeasureSpec(
    "RelP", relative_precision, "Relative precision: relevant documents in the top k divided "
    "by min(k, number of relevant documents) (trec_eval relative_P / set_relative_P).",
    params=(REL,), cutoff="optional", aliases=("relative_P", "set_relative_P"), citation=TREC))
register(MeasureSpec(
    "Success", success, "1 when a relevant document appears in the top k, else 0.",
    params=(REL,), cutoff="required", aliases=("success",), citation=TREC))
register(MeasureSpec(
    "SetF", set_f, "F-measure of the whole retrieved set: (beta^2+1)PR / (beta^2 P + R).",
    params=(Param("beta", float, 1.0, "weight of recall"), REL), aliases=("set_F",),
    citation=TREC))
register(MeasureSpec(
    "SetAP", set_ap, "Set precision times set recall (trec_eval set_map).",
    params=(REL,), aliases=("set_map",), citation=TREC))
