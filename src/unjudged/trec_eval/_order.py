"""trec_eval's order of floating-point additions.

trec_eval adds a topic's terms one rank after the other and the topics' values one topic after
the other; numpy's sum adds in pairs (eight running sums), which can differ in the last bit and,
at a tie of the fourth decimal, in the printed digit. These kernels and the mean add in trec_eval's
order (np.cumsum adds left to right). Measures whose terms are exact (counts, precision at k) or
whose kernel already accumulates in order need none of this.
"""

from __future__ import annotations

import numpy as np

from unjudged.data.judged import Judged
from unjudged.engine.results import MIN_GEO_MEAN


def in_order(terms: np.ndarray) -> np.ndarray:
    """The sum over the last axis, added left to right."""
    if terms.shape[-1] == 0:
        return np.zeros(terms.shape[:-1])
    return np.cumsum(terms, axis=-1)[..., -1]


def _per_rel(total: np.ndarray, nrel: np.ndarray) -> np.ndarray:
    return np.divide(total, nrel, out=np.zeros(total.shape), where=nrel > 0)


def average_precision(j: Judged, cutoff: int | None = None) -> np.ndarray:
    """m_map.c / m_map_cut.c: rel_so_far / (i + 1) summed over the relevant ranks."""
    lv = j.policies.rel_level
    r = j.cut(cutoff) >= lv
    hits = np.cumsum(r, axis=-1, dtype=np.float64)
    prec = hits / np.arange(1, r.shape[-1] + 1, dtype=np.float64)
    return _per_rel(in_order(np.where(r, prec, 0.0)), j.pool.num_rel(lv))


def bpref(j: Judged) -> np.ndarray:
    """m_bpref.c: 1 - min(nonrel above, R) / min(N, R) summed over the relevant ranks (numpy's
    pairwise sum printed 0.2188 where trec_eval prints 0.2187: TREC-COVID round 1, PL2c1.0,
    topic 1, -l 2)."""
    lv = j.policies.rel_level
    g = j.grades
    nrel = j.pool.num_rel(lv)
    is_rel = g >= lv
    is_non = (g >= 0) & ~is_rel
    non_above: np.ndarray = np.cumsum(is_non, axis=-1) - is_non
    bound = np.minimum(nrel, j.pool.num_nonrel(lv)).astype(np.float64)[..., None]
    capped = np.minimum(non_above, nrel[..., None]).astype(np.float64)
    penalty = np.divide(capped, bound, out=np.zeros(capped.shape), where=bound > 0)
    return _per_rel(in_order(np.where(is_rel, 1.0 - penalty, 0.0)), nrel)


def rbp_resid(j: Judged, p: float) -> np.ndarray:
    """m_rbp_resid.c: cur_p multiplied by p rank after rank, the unjudged ranks' cur_p added
    in order, then cur_p + (1 - p) * sum (numpy's powers and pairwise sum printed 0.9635 where
    trec_eval prints 0.9636: the differential fuzz, benchmarks/trec_eval10_fuzz.py)."""
    from unjudged.data.judged import NONPOOL, UNJUDGED

    g = j.grades
    unj = (g == NONPOOL) | (g == UNJUDGED)
    depth = g.shape[-1]
    powers = np.cumprod(np.concatenate([[1.0], np.full(depth, p)]))  # p^0 .. p^depth, in turn
    total = in_order(np.where(unj, powers[:depth], 0.0))
    return np.where(unj.any(axis=-1), powers[j.length] + (1 - p) * total, 0.0)


def eleven_point(j: Judged, levels: str | None) -> np.ndarray:
    """m_11pt_avg.c: the interpolated precision of each recall level, added from the last level
    to the first (its loop walks the cutoffs downwards), over the number of levels (numpy's
    order printed 0.1537 where trec_eval prints 0.1538: Cranfield, QL, -M 100, topic 211)."""
    from unjudged.measures import parse_measure

    xs = [float(x) for x in levels.split(",")] if levels else [i / 10 for i in range(11)]
    total = np.zeros(len(j.topics))
    for x in reversed(xs):
        total = total + parse_measure(f"IPrec(recall={x!r})").compute(j)
    return total / len(xs)


def aggregate(values: np.ndarray, how: str) -> float:
    """trec_eval's 'all' value: the topics' values added in printing order, then divided by
    their number (te_calc_avg_meas_s); the geometric mean adds the logs the same way."""
    n = values.shape[-1]
    if n == 0:
        return 0.0
    if how == "sum":
        return float(values.sum())
    if how == "gmean":
        return float(np.exp(in_order(np.log(np.maximum(values, MIN_GEO_MEAN))) / n))
    return float(in_order(values) / n)
