"""Variances of the inferred counts (iP@k, iNumRelRet, iNumRel) and of infNDCG.

Each count is a sum over strata of N_s times a sampled proportion, so its variance is
sum_s N_s^2 var(q_s), with the Laplace-smoothed, finite-population-corrected proportion
variance of infap.py (where one or two sampled documents would otherwise claim an
exact proportion).

infNDCG = DCG / IDCG, both estimated; like the paper (section 4, footnote 3) we take them as
independent, so by the delta method var = var(DCG) / IDCG^2 + DCG^2 var(IDCG) / IDCG^4.

- DCG: per stratum, Z_s retrieved documents (within the cutoff) times the mean discounted gain
  of the n_s sampled among them, an estimate from a simple random sample of the Z_s:
  Z_s^2 (1 - n_s / Z_s) S_s^2 / n_s. S_s^2 is the variance of gain x discount over those Z_s
  ranks with the grades distributed as among the sampled ones, Laplace-smoothed (one pseudo
  document per grade), for the same reason as above.
- IDCG: a function of the estimated documents per grade R(g) = sum_s N_s c_s(g) / n_s, whose
  covariance is multinomial within each stratum (smoothed shares, finite-population
  corrected); IDCG's change for one document more or fewer of a grade stands for its gradient.
  IDCG@k is flat once a grade's estimated count passes k, where that difference would claim
  an exact IDCG: there the secant reaching down to the count actually sampled is used (0 only
  when the sampled documents alone fill the top k, and IDCG is known).
- A topic whose sample holds nothing relevant has an estimated IDCG of 0 (and used to get a
  variance of 0); the denominator is then the IDCG of the Laplace-smoothed counts.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from unjudged.data.judged import Judged
from unjudged.data.sampled import SampledJudged, as_sampled, stratified_totals
from unjudged.inference.infap import proportion_variance
from unjudged.measures._common import discount, divide, level
from unjudged.measures.dcg import gain_values
from unjudged.measures.inferred import ideal_dcg, inferred_ndcg
from unjudged.measures.statistical import ideal_slope


def count_variance(judged: Judged, cutoff: int | None = None, rel: int | None = None,
                   whole: bool = False) -> np.ndarray:
    """Variance of the estimated relevant documents in the top `cutoff` (all retrieved when
    None), or with `whole` in the whole universe (iNumRel).

    Example:
        >>> from unjudged.io import read_qrels, read_run
        >>> from unjudged.data.judged import judge
        >>> q = read_qrels({"t": {"a": 1, "b": 0, "c": -1, "d": -1}})
        >>> j = judge(read_run({"t": {"a": 3.0, "b": 2.0, "c": 1.0}}), q)
        >>> count_variance(j).tolist(), count_variance(j, whole=True).tolist()
        ([0.5625], [1.3333333333333333])
    """
    s, lv = as_sampled(judged), level(judged, rel)
    if whole:
        n = s.counts.sum(axis=-1)
        hits = s.counts[..., s.grade_values >= lv].sum(axis=-1)
        return (s.size ** 2 * proportion_variance(s.size, n, hits)).sum(axis=-1)
    s = s.head(cutoff)
    total: Any = 0.0  # a scalar until the first stratum's array is added to it
    for h in range(s.size.shape[-1]):
        inside = s.stratum == h
        docs = inside.sum(axis=-1).astype(np.float64)
        n = (s.weight * inside).sum(axis=-1)
        hits = (s.weight * inside * (s.grades >= lv)).sum(axis=-1)
        total = total + docs ** 2 * proportion_variance(docs, n, hits)
    return total


def infndcg_variance(judged: Judged, cutoff: int | None = None, dcg: str = "log2",
                     gains: str | None = None) -> np.ndarray:
    """Delta-method variance of infNDCG (see the module's docstring).

    Example:
        >>> from unjudged.io import read_qrels, read_run
        >>> from unjudged.data.judged import judge
        >>> full = read_qrels({"t": {"a": 2, "b": 0, "c": 1}})
        >>> float(infndcg_variance(judge(read_run({"t": {"a": 2.0, "b": 1.0}}), full))[0])
        0.0
    """
    s: SampledJudged = as_sampled(judged).head(cutoff)
    g = s.cut(cutoff)
    stratum, weight = s.cut_strata(cutoff)
    gain_of = gain_values(s.grade_values, dcg, gains)  # (G,)
    disc = 1.0 / discount(g.shape[-1])
    value = inferred_ndcg(s, cutoff, dcg, gains)
    var_dcg: Any = 0.0  # a scalar until the first stratum's array is added to it
    for h in range(s.size.shape[-1]):
        inside = stratum == h
        z = inside.sum(axis=-1).astype(np.float64)
        n = (weight * inside).sum(axis=-1)
        share = _shares(np.stack([(weight * inside * (g == v)).sum(axis=-1)
                                  for v in s.grade_values], axis=-1))
        mean_gain = (share * gain_of).sum(axis=-1)
        var_gain = (share * gain_of ** 2).sum(axis=-1) - mean_gain ** 2
        d1 = divide((inside * disc).sum(axis=-1), z)
        d2 = divide((inside * disc ** 2).sum(axis=-1), z)
        spread = (var_gain + mean_gain ** 2) * d2 - (mean_gain * d1) ** 2
        var_dcg = var_dcg + z * z * (1.0 - divide(n, z)) * divide(spread, np.maximum(n, 1.0))
    per_grade = stratified_totals(s.size, s.counts)
    ideal = ideal_dcg(per_grade, gain_of, cutoff)
    n = s.counts.sum(axis=-1)  # (..., n, S)
    share = _shares(s.counts)
    fpc = np.where(s.size > 1, divide(s.size - n, s.size - 1.0), 0.0)
    slope = ideal_slope(per_grade, gain_of, cutoff, 1.0)
    # IDCG@k is flat once a grade's estimated count passes k, and a +-1 difference would call
    # it exact: there the secant reaching down to the count actually sampled is taken
    # instead, which is 0 only when the sampled documents alone fill the top k
    seen = s.counts.sum(axis=-2)  # (..., n, G)
    slope = np.where(slope == 0.0, ideal_slope(per_grade, gain_of, cutoff,
                                          np.maximum(per_grade - seen, 1.0)), slope)
    var_ideal: Any = 0.0  # a scalar until the first stratum's array is added to it
    for h in range(s.size.shape[-1]):
        q = share[..., h, :]
        scale = divide(s.size[..., h] ** 2 * fpc[..., h], n[..., h])
        lin = (slope * q).sum(axis=-1)
        var_ideal = var_ideal + scale * ((slope ** 2 * q).sum(axis=-1) - lin ** 2)
    # no relevant document sampled: IDCG from the Laplace-smoothed shares, so that a topic
    # whose sample holds nothing relevant does not claim infNDCG = 0 exactly
    smooth = ideal_dcg((s.size[..., None] * share).sum(axis=-2), gain_of, cutoff)
    ideal = np.where(ideal > 0, ideal, smooth)
    return divide(var_dcg, ideal ** 2) + divide(value ** 2 * var_ideal, ideal ** 2)


def _shares(counts: np.ndarray) -> np.ndarray:
    """Laplace-smoothed shares of each grade: (c_g + 1) / (n + G)."""
    return (counts + 1.0) / (counts.sum(axis=-1, keepdims=True) + counts.shape[-1])
