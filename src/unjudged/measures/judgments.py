"""Measures that read which documents are judged: bpref, infAP, Judged@k."""

from __future__ import annotations

import numpy as np

from unjudged.data.judged import NONPOOL, PAD
from unjudged.measures._common import divide, level
from unjudged.measures._spec import MeasureSpec, register
from unjudged.measures.precision import REL

INFAP_EPSILON = 1e-5


def bpref(j, rel=None):
    """Buckley & Voorhees' bpref as corrected by Soboroff (trec_eval's form)."""
    lv = level(j, rel)
    g = j.grades
    nrel = j.pool.num_rel(lv)
    nnon = j.pool.num_nonrel(lv)
    is_rel = g >= lv
    is_non = (g >= 0) & ~is_rel
    non_above = np.cumsum(is_non, axis=-1) - is_non
    bound = np.minimum(nrel, nnon).astype(np.float64)[..., None]
    capped = np.minimum(non_above, nrel[..., None])
    penalty = divide(capped, np.broadcast_to(bound, capped.shape))
    score = np.where(is_rel, 1.0 - penalty, 0.0).sum(axis=-1)
    return divide(score, nrel)


def inferred_ap(j, rel=None):
    """infAP (Yilmaz & Aslam 2006) as trec_eval computes it from qrels where negative grades
    mark pooled-but-unjudged documents and absent documents lie outside the pool."""
    lv = level(j, rel)
    g = j.grades
    is_rel = g >= lv
    judged = g >= 0
    pooled = (g != NONPOOL) & (g != PAD)
    rel_above = np.cumsum(is_rel, axis=-1) - is_rel
    judged_above = np.cumsum(judged, axis=-1) - judged
    pooled_above = np.cumsum(pooled, axis=-1) - pooled
    i = np.arange(g.shape[-1], dtype=np.float64)
    k = i + 1.0
    frac_pooled = divide(pooled_above, np.broadcast_to(i, pooled_above.shape))
    frac_rel = (rel_above + INFAP_EPSILON) / (judged_above + 2 * INFAP_EPSILON)
    expected = 1.0 / k + (i / k) * frac_pooled * frac_rel
    expected[..., 0] = 1.0
    return divide(np.where(is_rel, expected, 0.0).sum(axis=-1), j.pool.num_rel(lv))


def judged_at(j, cutoff=None):
    """Fraction of the top min(k, |run|) documents that carry a judgment (A_p@k of seed 001)."""
    g = j.cut(cutoff)
    seen = np.minimum(j.length, g.shape[-1]) if cutoff is None else np.minimum(j.length, cutoff)
    return divide((g >= 0).sum(axis=-1), seen)


register(MeasureSpec(
    "Bpref", bpref, "bpref: for each retrieved relevant document, 1 minus the number of judged "
    "non-relevant documents ranked above it (at most R) over min(R, N); summed and divided by R. "
    "Unjudged documents are ignored.",
    params=(REL,), aliases=("bpref", "BPref"), estimable=False,
    citation="Buckley & Voorhees, SIGIR 2004; Soboroff's correction as in trec_eval"))
register(MeasureSpec(
    "infAP", inferred_ap, "Inferred average precision from qrels in which negative grades mark "
    "pooled documents that were not sampled for judging (trec_eval's infAP).",
    params=(REL,), aliases=("infap", "InfAP"), estimable=False,
    citation="Yilmaz & Aslam, CIKM 2006; trec_eval 10"))
register(MeasureSpec(
    "Judged", judged_at, "Fraction of the top min(k, |run|) documents that have a judgment "
    "(Assessment Precision A_p@k). Pooled-but-unjudged documents (negative grades) count as "
    "unjudged.",
    cutoff="optional", aliases=("judged", "Ap", "A_p"), estimable=False,
    citation="Sakai 2007; Baillie, Azzopardi & Ruthven 2007 (A_p@d)"))
