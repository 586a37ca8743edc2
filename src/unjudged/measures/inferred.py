"""Inferred measures from stratified samples of judgments (seed 002; TREC's sample_eval).

Every kernel reads the judged batch's sampled view (`as_sampled`): per ranked document its
stratum and its weight as a sampled unit, per topic the stratum sizes N_s and the sampled counts
per grade. Plain qrels are one stratum whose judged documents are the sample. Weights are 1 for
sampled documents; a bootstrap replicate passes its resampling weights instead (with a leading
replicate axis), which is why counts are weighted sums rather than counts of booleans. Kernels
loop over strata (a handful) and are vectorised over topics, ranks and replicates.

Conventions follow sample_eval: ranks by score descending then docno descending (the default tie
policy), relevant = grade >= 1 (the -l policy), precision above a rank smoothed per stratum as
(r + 1e-5) / (n + 3e-5) (the paper and trec_eval's infAP use n + 2e-5: smoothing='paper').
"""

from __future__ import annotations

import numpy as np

from unjudged.data.sampled import SampledJudged, as_sampled, stratified_totals
from unjudged.errors import InvalidOptionError
from unjudged.measures._common import discount, divide, level, ranks
from unjudged.measures._spec import MeasureSpec, Param, register
from unjudged.measures.dcg import DCG, GAINS, gain_values
from unjudged.measures.precision import REL

EPSILON = 1e-5
SMOOTHING = Param("smoothing", str, "sample_eval", "'sample_eval': precision above a rank "
                  "estimated per stratum as (r + 1e-5)/(n + 3e-5); 'paper': (r + 1e-5)/(n + 2e-5) "
                  "as in seed 002 and trec_eval's infAP", choices=("sample_eval", "paper"))
SEED_002 = "Yilmaz, Kanoulas & Aslam, SIGIR 2008; TREC sample_eval.pl"
RECALLS = tuple(i / 10 for i in range(11))

#: families whose kernels honour the sampling weights (so a stratified bootstrap applies)
WEIGHTED = ("xinfAP", "infNDCG", "iP", "iNumRel", "iNumRelRet", "iIPrec")


def _smoothing(smoothing: str) -> float:
    if smoothing not in ("sample_eval", "paper"):
        raise InvalidOptionError(f"smoothing must be 'sample_eval' or 'paper', not {smoothing!r}")
    return (3.0 if smoothing == "sample_eval" else 2.0) * EPSILON


def stratum_totals(s: SampledJudged, lv: int) -> tuple[np.ndarray, np.ndarray]:
    """(estimated relevant documents R, (..., n, strata) estimated relevant per stratum)."""
    rel = s.counts[..., s.grade_values >= lv].sum(axis=-1)
    n = s.counts.sum(axis=-1)
    per = np.divide(s.size * rel, n, out=np.zeros(rel.shape), where=n > 0)
    return per.sum(axis=-1), per


def _cumulative(s: SampledJudged, lv: int, stratum: int, inclusive: bool):
    """Per rank, within one stratum: documents, sampled (weighted) and sampled relevant
    (weighted) at or above (inclusive) or strictly above the rank."""
    inside = s.stratum == stratum
    w = s.weight * inside
    parts = (inside, w, w * (s.grades >= lv))
    out = [np.cumsum(a, axis=-1, dtype=np.float64) for a in parts]
    return out if inclusive else [c - a for c, a in zip(out, parts, strict=True)]


def xinf_precisions(s: SampledJudged, lv: int, smoothing: str = "sample_eval") -> np.ndarray:
    """(..., n, depth) estimated precision at each rank k, were the document there relevant:
    1/k + sum over strata of N_s^{k-1}/k * (r_s^{k-1} + eps) / (n_s^{k-1} + den)."""
    den = _smoothing(smoothing)
    parts = []
    for h in range(s.size.shape[-1]):
        docs, sampled, hits = _cumulative(s, lv, h, inclusive=False)
        parts.append(docs * (hits + EPSILON) / (sampled + den))
    return (1.0 + sum(parts)) / ranks(s.grades.shape[-1])


def xinf_ap(j, rel=None, smoothing="sample_eval", cap=None):
    """Extended inferred AP (seed 002, section 3)."""
    s, lv = as_sampled(j), level(j, rel)
    is_rel = s.grades >= lv
    prec = xinf_precisions(s, lv, smoothing)
    total, _ = stratum_totals(s, lv)
    n = s.counts.sum(axis=-1)
    scale = np.divide(s.size, n, out=np.zeros(n.shape), where=n > 0)
    ap = 0.0
    for h in range(s.size.shape[-1]):
        sap = np.where(is_rel & (s.stratum == h), s.weight * prec, 0.0).sum(axis=-1)
        ap = ap + scale[..., h] * sap
    ap = divide(ap, total)
    if cap:  # sample_eval (2012): with more than `cap` relevant, rescale so 1 stays reachable
        ap = np.where(total > cap, ap * total / cap, ap)
    return ap


def estimated_relevant_at(s: SampledJudged, lv: int, den: float) -> np.ndarray:
    """(..., n, depth) estimated relevant documents at or above each rank:
    sum over strata of N_s^k * (r_s^k + eps) / (n_s^k + den)."""
    total = np.zeros(np.broadcast_shapes(s.weight.shape, s.grades.shape))
    for h in range(s.size.shape[-1]):
        docs, sampled, hits = _cumulative(s, lv, h, inclusive=True)
        total += docs * (hits + EPSILON) / (sampled + den)
    return total


def inferred_precision(j, cutoff=None, rel=None, smoothing="sample_eval"):
    s = as_sampled(j).head(cutoff)
    est = estimated_relevant_at(s, level(j, rel), _smoothing(smoothing))
    return est[..., min(cutoff, est.shape[-1]) - 1] / cutoff


def inferred_rel_ret(j, rel=None, smoothing="sample_eval"):
    s = as_sampled(j)
    return estimated_relevant_at(s, level(j, rel), _smoothing(smoothing))[..., -1]


def inferred_num_rel(j, rel=None):
    s = as_sampled(j)
    total, _ = stratum_totals(s, level(j, rel))
    return np.broadcast_to(total, s.weight.shape[:-1]).copy()


def inferred_iprec(j, recall=0.0, rel=None, smoothing="sample_eval"):
    """sample_eval's interpolated precision at a recall level. Walking the ranking upwards,
    the next recall level down (levels at multiples of 0.1 of the estimated R, plus `recall`)
    is reached at the first rank whose estimated relevant count falls below it, at most one
    level per rank; the level gets the highest precision at or below that rank. Levels above
    what the run reaches get 0; levels never reached, the highest precision of the ranking."""
    s, lv = as_sampled(j), level(j, rel)
    est = estimated_relevant_at(s, lv, _smoothing(smoothing))
    total, _ = stratum_totals(s, lv)
    total = np.broadcast_to(total, est.shape[:-1])
    k = ranks(est.shape[-1])
    inside = k <= j.length[:, None]
    prec = np.where(inside, est / k, 0.0)
    best_below = np.maximum.accumulate(prec[..., ::-1], axis=-1)[..., ::-1]
    levels = sorted(set(RECALLS) | {float(recall)})
    final = np.where(j.length > 0, est[..., -1], 0.0)
    prev = np.full(total.shape, est.shape[-1] + 1.0)  # rank of the level above (1-based)
    value = np.zeros(total.shape)
    for x in reversed(levels):
        cut = x * total
        reached = cut <= final
        below = (est < cut[..., None]) & inside & (k < prev[..., None])
        at = np.where(below.any(axis=-1), est.shape[-1] - np.argmax(below[..., ::-1], -1), 0)
        at = np.where(reached, at, prev)  # unreached levels do not move the walk
        if x == recall:
            first = np.clip(at, 1, est.shape[-1]).astype(np.int64) - 1
            hit = np.take_along_axis(best_below, first[..., None], axis=-1)[..., 0]
            value = np.where(reached, hit, 0.0)
        prev = at.astype(np.float64)
    return value


def inferred_ndcg(j, cutoff=None, dcg="log2", gains=None, ideal="fractional", spill=0):
    """infNDCG (seed 002, section 4): per stratum, the retrieved documents times the mean
    discounted gain of its sampled retrieved documents; over the DCG of an ideal ranking of
    the estimated number of documents per grade (`ideal` and `spill`: see ideal_dcg)."""
    s = as_sampled(j).head(cutoff)
    g = s.cut(cutoff)
    stratum, weight = s.cut_strata(cutoff)
    disc = gain_values(g, dcg, gains) / discount(g.shape[-1])
    got = 0.0
    for h in range(s.size.shape[-1]):
        inside = stratum == h
        sampled = (weight * inside).sum(axis=-1)
        found = (weight * inside * disc).sum(axis=-1)
        got = got + divide(inside.sum(axis=-1) * found, sampled)
    per_grade = stratified_totals(s.size, s.counts)
    return divide(got, ideal_dcg(per_grade, gain_values(s.grade_values, dcg, gains), cutoff,
                                 rounded=ideal == "rounded", spill=bool(spill)))


def ideal_dcg(per_grade: np.ndarray, gain: np.ndarray, cutoff: int | None,
              rounded: bool = False, spill: bool = False) -> np.ndarray:
    """DCG of a ranking holding, best gain first, floor(R_g) documents of each grade g whose
    ranks continue from the previous grades' (fractional) total, as sample_eval's 2012
    (TRECVID) copy places them; only ranks p < cutoff + 1 count. Whole counts give the
    ordinary ideal DCG.

    `rounded`: int(R_g + 0.5) documents from integer starts, as NIST's TREC copy (10 Oct 2011).
    `spill`: both copies test the cutoff only after adding a document, so every grade whose
    documents would all start below the cutoff still adds its first one (at rank start + 1);
    off by default, because it would make infNDCG@10 differ from nDCG@10 under complete
    judgments.

    >>> per_grade, gain = np.array([[2.6, 1.0]]), np.array([1.0, 2.0])
    >>> round(float(ideal_dcg(per_grade, gain, None)[0]), 4)   # 2/log2(2) + 1/log2(3.. 4)
    3.1309
    >>> round(float(ideal_dcg(per_grade, gain, None, rounded=True)[0]), 4)   # + rank 4
    3.5616
    >>> round(float(ideal_dcg(per_grade, gain, 1, spill=True)[0]), 4)    # 2 + 1/log2(3)
    2.6309
    """
    total = np.zeros(per_grade.shape[:-1])
    start = np.zeros(per_grade.shape[:-1])
    for gi in np.argsort(-gain, kind="stable"):
        if gain[gi] <= 0:
            continue
        counts = np.floor(per_grade[..., gi] + 0.5) if rounded else per_grade[..., gi]
        m = np.floor(counts)
        if spill and cutoff is not None:
            # the loop's first step for this grade, taken even beyond the cutoff
            late = (start >= cutoff) & (m >= 1)
            total = total + np.where(late, gain[gi] / np.log2(start + 2.0), 0.0)
        width = int(m.max(initial=0))
        if cutoff is not None:
            width = min(width, cutoff + 1)
        j = np.arange(1, width + 1, dtype=np.float64)
        pos = start[..., None] + j
        keep = j <= m[..., None]
        if cutoff is not None:
            keep &= pos < cutoff + 1
        terms = np.where(keep, 1.0 / np.log2(pos + 1.0), 0.0)
        # summed in order (cumsum), not pairwise: the array is as wide as the topic with the
        # most such documents, and a pairwise sum's rounding would depend on that neighbour
        if width:
            total = total + gain[gi] * np.cumsum(terms, axis=-1)[..., -1]
        start = start + counts
    return total


register(MeasureSpec(
    "xinfAP", xinf_ap, "Extended inferred AP from stratified samples: per stratum, the "
    "estimated relevant documents times the mean estimated precision at its sampled relevant "
    "documents, over the estimated R; precision above a rank estimated stratum by stratum "
    "(sample_eval's 'infAP'). Plain qrels: one stratum, trec_eval's infAP up to smoothing. "
    "cap=1000 applies sample_eval's rescaling when R exceeds it.",
    params=(REL, SMOOTHING, Param("cap", int, None, "rescale by R/cap when the estimated R "
                                  "exceeds cap (sample_eval: 1000)", low=1)),
    aliases=("xinfap", "XinfAP"), estimable=False, monotone=False, guaranteed=False,
    citation=SEED_002))
register(MeasureSpec(
    "infNDCG", inferred_ndcg, "Inferred nDCG from stratified samples: estimated DCG of the "
    "top k over the DCG of an ideal ranking of the estimated number of documents per grade "
    "(sample_eval's infNDCG is infNDCG@1000). Gains as nDCG's. May exceed 1.",
    params=(DCG, GAINS,
            Param("ideal", str, "fractional", "'fractional': floor(R_g) documents per grade "
                  "from fractional starts (sample_eval 2012, TRECVID); 'rounded': "
                  "int(R_g + 0.5) from integer starts (NIST's TREC copy, 2011)",
                  choices=("fractional", "rounded")),
            Param("spill", int, 0, "1: each lower grade still adds its first document past "
                  "the cutoff, as both sample_eval copies do", choices=(0, 1))),
    cutoff="optional", aliases=("infndcg", "InfNDCG"), bounded=None,
    estimable=False, monotone=False, guaranteed=False, citation=SEED_002))
register(MeasureSpec(
    "iP", inferred_precision, "Inferred precision at k: estimated relevant documents in the "
    "top k (per stratum, documents times smoothed sampled precision) over k (sample_eval iP).",
    params=(REL, SMOOTHING), cutoff="required", aliases=("iprec", "infP"), estimable=False,
    monotone=False, guaranteed=False, citation=SEED_002))
register(MeasureSpec(
    "iNumRelRet", inferred_rel_ret, "Estimated relevant documents retrieved "
    "(sample_eval inum_rel_ret); summed over topics.",
    params=(REL, SMOOTHING), aliases=("inum_rel_ret",), aggregate="sum", bounded=None,
    estimable=False, monotone=False, guaranteed=False, citation=SEED_002))
register(MeasureSpec(
    "iNumRel", inferred_num_rel, "Estimated relevant documents: sum over strata of "
    "N_s r_s / n_s (sample_eval inum_rel); summed over topics.",
    params=(REL,), aliases=("inum_rel",), aggregate="sum", bounded=None, estimable=False,
    monotone=False, guaranteed=False, citation=SEED_002))
register(MeasureSpec(
    "iIPrec", inferred_iprec, "Inferred interpolated precision at a recall level, with "
    "sample_eval's conventions (iprec@rec): recall levels as fractions of the estimated R.",
    params=(Param("recall", float, 0.0, "recall level in [0, 1]", low=0, high=1), REL,
            SMOOTHING),
    aliases=("iprec_at_rec",), suffix="recall", estimable=False, monotone=False,
    guaranteed=False, citation=SEED_002))
