"""Variances of infAP (seed 002, section 2 and appendix) and of xinfAP (its stratified form).

infAP averages estimated precisions PC_k over the r judged relevant documents (0 for those not
retrieved), the judged documents being a simple random sample of the pool. By the law of total
variance two components add up:

1. sampling the cut-off levels (which relevant documents were judged):
   (1 - p) s^2 / r, with p = n / N the sampled fraction of the pool and s^2 the sample variance
   (divisor r - 1) of the r precisions around infAP;
2. estimating each precision from the sampled documents above it:
   [sum_k var(PC_k) + 2 sum_{k<m} (k/m) var(PC_k)] / r^2, where PC_k = 1/k + (D/k) q with D
   the pooled documents above rank k and q the relevant fraction of the n_k sampled among them,
   so var(PC_k) = (D/k)^2 q (1 - q) / n_k * (D - n_k) / (D - 1), the hypergeometric
   (finite-population) variance of a sample proportion. The covariance (k/m) var(PC_k) between
   precisions that share documents is the appendix's; its main text drops it.

Three choices of ours, each checked by the calibration study in docs/sampled-judgments.md
(without the first two the spread of repeated estimates was 1.2-1.3 times the estimated
standard error; with them, 0.96-0.99):

- the covariance term is kept;
- q is estimated as (r_k + 1) / (n_k + 2) (Laplace): with one or two documents sampled above a
  rank the observed fraction is mostly 0 or 1, and q (1 - q) would claim an exact precision;
  with nothing sampled above (n_k = 0) this gives 1/4, the largest possible value;
- the appendix's var(PC_above) = p(1-p)/n (1 - (n-1)/(D-1)) lacks the factor (D/(k-1))^2 that
  turns a sample proportion into the precision above rank k; it is 1 only when every document
  above is pooled (the paper's depth-100 setting), and we keep it.

xinfAP's variance follows the same two components per stratum: component 1 is the linearised
variance of a ratio of two stratified estimates (sum of weighted precisions over the estimated
number of relevant documents); component 2 uses each stratum's documents above rank k, weights
each precision by its stratum's N_s / n_s over the estimated R, and keeps the covariances.

No zero-width interval for an estimate that is not exact: where component 1's
sample variance is undefined or collapses to 0 although documents were left unsampled (r < 2,
no sampled relevant document retrieved, all precisions equal; for xinfAP a stratum with one
sampled document or whose sampled e_i all agree, a topic with nothing relevant sampled), it is
replaced by its smoothed counterpart, as q is above and as the paper smooths the precisions
of strata with nothing sampled (section 3, Lidstone smoothing): s^2 with two
pseudo-precisions 0 and 1 added (divisor r + 1, and the mean over max(r, 1)); per xinfAP
stratum, the Laplace relevant fraction (r_s + 1) / (n_s + 2) times the topic's smoothed mean
squared deviation of a relevant document's precision, over the Laplace estimate of R when no
relevant document was sampled.
Where the sample is informative the variance is unchanged. The variance stays 0 where the
estimate is exact: every stratum complete, or AP = 0 for sure (the run retrieves no sampled
relevant document and no pooled document left unsampled).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from unjudged.data.judged import Judged
from unjudged.data.sampled import SampledJudged, as_sampled
from unjudged.measures._common import divide, level, ranks
from unjudged.measures.inferred import stratum_totals, xinf_precisions
from unjudged.measures.judgments import INFAP_EPSILON

WORST_PROPORTION_VARIANCE = 0.25  #: q (1 - q) at q = 1/2: nothing above the rank was sampled
_TINY = 1e-12  #: a spread at or below this is read as 0 (all values equal up to rounding)


def proportion_variance(docs: np.ndarray, sampled: np.ndarray, hits: np.ndarray) -> np.ndarray:
    """Variance of the relevant fraction among `docs` documents estimated from `sampled` of
    them with `hits` relevant (Laplace-smoothed, finite-population corrected).

    Example:
        >>> proportion_variance(np.array([5.0]), np.array([2.0]), np.array([1.0])).tolist()
        [0.09375]
    """
    q = (hits + 1.0) / (sampled + 2.0)
    fpc = np.where(docs > 1, divide(docs - sampled, docs - 1.0), 0.0)
    return np.where(sampled > 0, divide(q * (1.0 - q), sampled) * fpc,
                    np.where(docs > 0, WORST_PROPORTION_VARIANCE, 0.0))


def smoothed_spread(spread: np.ndarray, r: np.ndarray, value: np.ndarray) -> np.ndarray:
    """s^2 of the r precisions around `value` with two pseudo-precisions, 0 and 1, added
    (divisor r + 1): the variance used where the sample's own is undefined (r < 2) or 0 (all
    precisions equal, e.g. no sampled relevant document retrieved), the counterpart of the
    Laplace-smoothed proportion.

    Example:
        >>> smoothed_spread(np.array([0.0]), np.array([1.0]), np.array([1.0])).tolist()
        [0.5]
    """
    return (spread + value ** 2 + (1.0 - value) ** 2) / (r + 1.0)


def dependent_sum(weight: np.ndarray, var: np.ndarray) -> np.ndarray:
    """Variance of sum_k w_k PC_k with cov(PC_k, PC_m) = (k/m) var(PC_k) for k < m:
    sum_k w_k var_k (w_k + 2 k sum_{m>k} w_m / m). Arrays are (..., depth), weight 0 where a
    rank does not count."""
    k = ranks(weight.shape[-1])
    per = weight / k
    later = np.cumsum(per[..., ::-1], axis=-1)[..., ::-1] - per
    return (weight * var * (weight + 2.0 * k * later)).sum(axis=-1)


def infap_variance(judged: Judged, rel: int | None = None) -> np.ndarray:
    """Per-topic variance of trec_eval's infAP, shape judged.grades.shape[:-1].

    All strata are read as one pool, sampled uniformly (infAP's assumption).

    Example:
        >>> from unjudged.io import read_qrels, read_run
        >>> from unjudged.data.judged import judge
        >>> q = read_qrels({"t": {"a": 1, "b": 0, "c": -1, "d": 1}})
        >>> j = judge(read_run({"t": {"c": 3.0, "a": 2.0, "b": 1.0}}), q)
        >>> infap_variance(j).round(6).tolist()
        [0.050781]
    """
    s = as_sampled(judged)
    lv = level(judged, rel)
    sampled = s.weight > 0
    is_rel = (s.grades >= lv) & sampled
    docs, n_k, r_k = (np.cumsum(a, axis=-1, dtype=np.float64) - a
                      for a in (s.stratum >= 0, sampled, is_rel))
    k = ranks(s.grades.shape[-1])
    pc = (1.0 + docs * (r_k + INFAP_EPSILON) / (n_k + 2 * INFAP_EPSILON)) / k
    r = s.counts[..., s.grade_values >= lv].sum(axis=(-2, -1))
    value = divide(np.where(is_rel, pc, 0.0).sum(axis=-1), r)
    spread = np.where(is_rel, (pc - value[..., None]) ** 2, 0.0).sum(axis=-1) + \
        (r - is_rel.sum(axis=-1)) * value ** 2
    p = divide(s.counts.sum(axis=(-2, -1)), s.size.sum(axis=-1))
    s2 = np.where((r >= 2) & (spread > _TINY), divide(spread, r - 1.0),
                  smoothed_spread(spread, r, value))
    first = (1.0 - p) * s2 / np.maximum(r, 1.0)
    var_pc = (docs / k) ** 2 * proportion_variance(docs, n_k, r_k)
    second = divide(dependent_sum(is_rel.astype(np.float64), var_pc), r * r)
    return np.where(_known_zero(s, is_rel), 0.0, first + second)


def xinfap_variance(judged: Judged, rel: int | None = None,
                    smoothing: str = "sample_eval") -> np.ndarray:
    """Per-topic variance of xinfAP from stratified samples (see the module's docstring).

    Example:
        >>> from unjudged.io.sampled import read_sampled_qrels
        >>> from unjudged.io import read_run
        >>> from unjudged.data.sampled import judge_sampled
        >>> q = read_sampled_qrels({"t": {"a": ("1", 1), "b": ("1", 0), "c": ("2", 1),
        ...                               "d": ("2", -1), "e": ("2", 0)}})
        >>> j = judge_sampled(read_run({"t": {"d": 3.0, "c": 2.0, "a": 1.0}}), q)
        >>> float(xinfap_variance(j)[0].round(6))
        0.060436
    """
    s: SampledJudged = as_sampled(judged)
    lv = level(judged, rel)
    is_rel = (s.grades >= lv) & (s.weight > 0)
    pc = np.where(is_rel, xinf_precisions(s, lv, smoothing), 0.0)
    total, _ = stratum_totals(s, lv)
    n = s.counts.sum(axis=-1)
    r = s.counts[..., s.grade_values >= lv].sum(axis=-1)
    scale = divide(s.size, n)
    value = divide((scale * _by_stratum(s, pc)).sum(axis=-1), total)
    # component 1: e_i = rel_i (PC_i - value) over each stratum's sample (unretrieved relevant
    # documents have PC = 0); variance of sum_s scale_s sum e_i, over R^2
    e = np.where(is_rel, pc - value[..., None], 0.0)
    missed = r - _by_stratum(s, is_rel.astype(np.float64))
    sum_e = _by_stratum(s, e) - missed * value[..., None]
    sum_e2 = _by_stratum(s, e * e) + missed * value[..., None] ** 2
    s2 = divide(sum_e2 - divide(sum_e * sum_e, n), n - 1.0) * (n >= 2)
    # a stratum whose sampled e_i all agree (no relevant document sampled, or one document)
    # would claim to know its share exactly: there s^2 = q_s sigma^2, the stratum's
    # Laplace-smoothed relevant fraction times the topic's mean squared e of a relevant
    # document, itself smoothed by the pseudo-precisions 0 and 1
    r_all = r.sum(axis=-1)
    sigma2 = smoothed_spread(sum_e2.sum(axis=-1), r_all, value) * (r_all + 1.0) / (r_all + 2.0)
    s2 = np.where((n >= 2) & (s2 > _TINY), s2, (r + 1.0) / (n + 2.0) * sigma2[..., None])
    # no relevant document sampled at all: R from the Laplace-smoothed shares
    smooth_total = (s.size * (r + 1.0) / (n + 2.0)).sum(axis=-1)
    denominator = np.where(total > 0, total, smooth_total)
    first = divide((s.size * s.size * (1.0 - divide(n, s.size)) * s2 /
                    np.maximum(n, 1.0)).sum(-1), denominator * denominator)
    # component 2: each stratum's documents above rank k estimate its share of PC_k
    k = ranks(s.grades.shape[-1])
    var_pc: Any = 0.0  # a scalar until the first stratum's array is added to it
    weight = np.zeros(np.broadcast_shapes(s.weight.shape, s.grades.shape))
    for h in range(s.size.shape[-1]):
        inside = s.stratum == h
        docs, n_k, r_k = (np.cumsum(a, axis=-1, dtype=np.float64) - a
                          for a in (inside, s.weight * inside, s.weight * inside * is_rel))
        var_pc = var_pc + (docs / k) ** 2 * proportion_variance(docs, n_k, r_k)
        weight = weight + np.where(is_rel & inside, scale[..., h:h + 1], 0.0)
    second = divide(dependent_sum(weight, var_pc), total * total)
    return np.where(_known_zero(s, is_rel), 0.0, first + second)


def _known_zero(s: SampledJudged, is_rel: np.ndarray) -> np.ndarray:
    """Where AP is exactly 0 whatever the unsampled documents hold: the run retrieves no
    sampled relevant document and no pooled document that was not sampled."""
    unsampled = (s.stratum >= 0) & ~(s.weight > 0)
    return np.asarray(~is_rel.any(axis=-1) & ~unsampled.any(axis=-1))


def _by_stratum(s: SampledJudged, values: np.ndarray) -> np.ndarray:
    """(..., n, strata) weighted sums of a per-rank quantity over each stratum's documents."""
    return np.stack([(s.weight * (s.stratum == h) * values).sum(axis=-1)
                     for h in range(s.size.shape[-1])], axis=-1)
