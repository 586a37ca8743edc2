"""Variances of statAP and statNDCG (unjudged.measures.statistical).

Both are ratios of Horvitz-Thompson sums over a sample drawn document by document, each
document d in it with probability pi_d, independently (Poisson sampling; TREC's statAP samples
were drawn with replacement from a fixed distribution, for which this is the usual
approximation). A ratio N^/D^ is linearised (Taylor, as for any ratio estimator):

    var(N^/D^) ~ sum over the sampled d of (1 - pi_d)/pi_d^2 * e_d^2,  e_d = (n_d - V t_d) / D^

where n_d and t_d are what document d adds to the numerator's and the denominator's totals
(before weighting by 1/pi_d) and V the estimate. A document sampled with certainty (pi = 1)
adds nothing: under complete judgments both variances are 0.

- statAP: N = sum_d x_d / r_d (1 + sum_{j above} x_j) holds pairs of documents, so d adds
  n_d = x_d (1 + sum_{j above d} x_j/pi_j) / r_d + x_d sum_{j below d} x_j/(pi_j r_j) (its own
  term and its share of every pair it is in, the pairs' other documents at their estimates);
  t_d = x_d (R). Documents the run does not retrieve still add through R.
- statNDCG: n_d = gain_d / log2(r_d + 1) within the cutoff; the ideal DCG is a function of the
  estimated documents per grade, so t_d is its slope along d's grade (infNDCG's central
  difference, unjudged.inference.counts; where IDCG@k is flat, over +- the count's standard
  error).
"""

from __future__ import annotations

import numpy as np

from unjudged.measures._common import discount, divide, level, ranks
from unjudged.measures.dcg import gain_values
from unjudged.measures.statistical import (
    relevant_weights,
    sample_view,
    smooth_ideal_dcg,
    smooth_ideal_slope,
    stat_ap,
    stat_ndcg,
)


def _spread(pi: np.ndarray) -> np.ndarray:
    """(1 - pi)/pi^2 of each ranked document in the sample, else 0."""
    return np.divide(1.0 - pi, pi ** 2, out=np.zeros(pi.shape), where=pi > 0)


def statap_variance(j, rel=None, pc: str = "conditional") -> np.ndarray:
    """Linearised variance of statAP per topic (see the module's docstring).

    Example:
        >>> from unjudged.io import read_run
        >>> from unjudged.io.sampled import read_prels
        >>> from unjudged.data.sampled import judge_sampled
        >>> q = read_prels(b"t a 1 1 0.5\\nt b 0 1 1\\nt c 1 1 0.25\\nt d 1 1 1\\n")
        >>> j = judge_sampled(read_run({"t": {"a": 3.0, "b": 2.0, "c": 1.0}}), q)
        >>> round(float(statap_variance(j)[0]), 6)
        0.093942
    """
    s, g, pi, counts, spread = sample_view(j)
    lv = level(s, rel)
    value = stat_ap(j, rel, pc)
    w = relevant_weights(g, pi, lv)
    x = (w > 0).astype(np.float64)
    r = ranks(w.shape[-1])
    above = np.cumsum(w, axis=-1) - w
    shares = w / r
    below = shares.sum(axis=-1, keepdims=True) - np.cumsum(shares, axis=-1)
    n_d = x * (1.0 + above) / r + x * below
    c = _spread(pi) * x
    rel_spread = spread[..., s.grade_values >= lv].sum(axis=-1)
    r_hat = counts[..., s.grade_values >= lv].sum(axis=-1)
    # sum over the sample of c_d (n_d - V x_d)^2: the run's documents, and for every other
    # sampled relevant document (n_d = 0) V^2 c_d, through the topic's total of c over them
    inside = (c * (n_d ** 2 - 2.0 * value[..., None] * n_d)).sum(axis=-1)
    # (>= 0 but for rounding: the sum of squares is taken apart above)
    return np.maximum(divide(inside + value ** 2 * rel_spread, r_hat ** 2), 0.0)


def statndcg_variance(j, cutoff=None, dcg: str = "log2", gains=None) -> np.ndarray:
    """Linearised variance of statNDCG@k per topic (see the module's docstring).

    Example:
        >>> from unjudged.io import read_run
        >>> from unjudged.io.sampled import read_prels
        >>> from unjudged.data.sampled import judge_sampled
        >>> q = read_prels(b"t a 2 1 1\\nt b 0 1 1\\n")
        >>> j = judge_sampled(read_run({"t": {"a": 3.0, "b": 2.0}}), q)
        >>> float(statndcg_variance(j, 2)[0])  # every document sampled with certainty
        0.0
    """
    s, g, pi, counts, spread = sample_view(j, cutoff)
    value = stat_ndcg(j, cutoff, dcg, gains)
    gain_of = gain_values(s.grade_values, dcg, gains)
    ideal = smooth_ideal_dcg(counts, gain_of, cutoff)
    # (where IDCG@k is flat, over +- the count's standard error, as infNDCG does)
    slope = smooth_ideal_slope(counts, gain_of, cutoff, np.sqrt(spread))  # (n, grades)
    # gain / discount of the sampled documents
    n_d = np.where(pi > 0, gain_values(g, dcg, gains) / discount(g.shape[-1]), 0.0)
    code = np.clip(np.searchsorted(s.grade_values, g), 0, s.grade_values.size - 1)
    t_d = np.where(pi > 0, np.take_along_axis(slope, code, axis=-1), 0.0)
    c = _spread(pi)
    v = value[..., None]
    # the run's sampled documents: (n_d - V t_d)^2 - (V t_d)^2, the rest of the sample through
    # the per-grade totals of c: V^2 sum_g slope_g^2 spread_g
    inside = (c * ((n_d - v * t_d) ** 2 - (v * t_d) ** 2)).sum(axis=-1)
    rest = value ** 2 * (slope ** 2 * spread).sum(axis=-1)
    return np.maximum(divide(inside + rest, ideal ** 2), 0.0)
