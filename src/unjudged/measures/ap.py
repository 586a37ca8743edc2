"""Measures over precision at relevant ranks: AP, RR, R-precision, interpolated precision."""

from __future__ import annotations

import numpy as np

from unjudged.measures._common import divide, level, ranks, relevant, take_at
from unjudged.measures._spec import JUDGED_ONLY, MeasureSpec, Param, register
from unjudged.measures.precision import REL, TREC


def _precision_at_relevant(j, cutoff, rel):
    r = relevant(j, cutoff, rel)
    hits = np.cumsum(r, axis=-1, dtype=np.float64)
    return r, hits, hits / ranks(r.shape[-1])


def average_precision(j, cutoff=None, rel=None):
    r, _, prec = _precision_at_relevant(j, cutoff, rel)
    return divide((prec * r).sum(axis=-1), j.pool.num_rel(level(j, rel)))


def reciprocal_rank(j, cutoff=None, rel=None):
    r = relevant(j, cutoff, rel)
    first = np.argmax(r, axis=-1)
    found = r.any(axis=-1)
    return np.where(found, 1.0 / (first + 1.0), 0.0)


def r_precision(j, rel=None):
    nrel = j.pool.num_rel(level(j, rel))
    _, hits, _ = _precision_at_relevant(j, None, rel)
    return divide(take_at(hits, nrel - 1), nrel)


def r_precision_mult(j, mult=1.0, rel=None):
    """Precision at rank int(mult * R + 0.9), trec_eval's rounding of the cutoff."""
    nrel = j.pool.num_rel(level(j, rel))
    cut = np.floor(mult * nrel + 0.9).astype(np.int64)
    _, hits, _ = _precision_at_relevant(j, None, rel)
    return divide(take_at(hits, cut - 1), cut)


def interpolated_precision(j, recall=0.0, rel=None):
    """Highest precision at or after the rank where round(recall * R) relevant documents have
    been seen (0 when the run never gets there); precision peaks at relevant ranks, so only those
    are looked at. trec_eval 10 rounds (lround); trec_eval 9, hence pytrec_eval and ir_measures'
    default IPrec, truncates recall * R + 0.9, which differs when the fraction of recall * R is
    in [0.1, 0.5)."""
    nrel = j.pool.num_rel(level(j, rel))
    r, hits, prec = _precision_at_relevant(j, None, rel)
    need = np.maximum(np.floor(recall * nrel + 0.5), 1.0)[..., None]
    best = np.where(r & (hits >= need), prec, 0.0).max(axis=-1, initial=0.0)
    return np.where(nrel > 0, best, 0.0)


class Levels(str):
    """Recall levels '.25,.5,.75': one or more numbers in [0, 1] (ValueError otherwise).

    Example:
        >>> Levels(".25, .5")
        '.25,.5'
    """

    def __new__(cls, value: object) -> Levels:
        parts = [x.strip() for x in str(value).split(",")]
        if not all(0 <= float(x) <= 1 for x in parts):  # nan too: float("x") raises
            raise ValueError(value)
        return super().__new__(cls, ",".join(parts))


def eleven_point(j, levels=None, rel=None):
    """Mean interpolated precision over recall levels (default 0, 0.1, ..., 1)."""
    xs = [float(x) for x in levels.split(",")] if levels else [i / 10 for i in range(11)]
    total = interpolated_precision(j, xs[0], rel)
    for x in xs[1:]:  # level by level, as trec_eval adds them (same bits however batched)
        total = total + interpolated_precision(j, x, rel)
    return total / len(xs)


register(MeasureSpec(
    "AP", average_precision, "Average precision: the mean of the precision at the rank of "
    "each relevant document, relevant documents not retrieved (or below the cutoff) counting 0. "
    "With a cutoff: trec_eval's map_cut.",
    params=(REL, JUDGED_ONLY), cutoff="optional", aliases=("map", "map_cut", "MAP"),
    citation=TREC))
register(MeasureSpec(
    "RR", reciprocal_rank, "Reciprocal rank of the first relevant document (0 if none).",
    params=(REL, JUDGED_ONLY), cutoff="optional", aliases=("recip_rank", "MRR"), citation=TREC,
    normalised=False))
register(MeasureSpec(
    "Rprec", r_precision, "R-precision: precision at rank R, the topic's number of relevant "
    "documents.", params=(REL, JUDGED_ONLY), aliases=("R-prec", "RPrec"), citation=TREC,
    guaranteed=False))
register(MeasureSpec(
    "RprecMult", r_precision_mult, "Precision at rank mult x R (trec_eval Rprec_mult).",
    params=(Param("mult", float, 1.0, "multiple of R", low=0, open_low=True), REL),
    aliases=("Rprec_mult",),
    citation=TREC, suffix="mult", guaranteed=False))
register(MeasureSpec(
    "IPrec", interpolated_precision, "Interpolated precision at a recall level: the highest "
    "precision at any rank with at least that recall (trec_eval iprec_at_recall).",
    params=(Param("recall", float, 0.0, "recall level in [0, 1]", low=0, high=1), REL, JUDGED_ONLY),
    aliases=("iprec_at_recall",), citation=TREC, suffix="recall"))
register(MeasureSpec(
    "11ptAP", eleven_point, "Mean interpolated precision at the 11 recall levels 0, 0.1, ..., 1 "
    "(or at the levels given, e.g. levels='.25,.5,.75').",
    params=(Param("levels", Levels, None, "comma-separated recall levels",
                  what="comma-separated recall levels in [0, 1] such as '.25,.5,.75'"), REL),
    aliases=("11pt_avg",), citation=TREC))
