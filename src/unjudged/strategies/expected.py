"""Expected measures: the exact expectation and variance of a measure when every unjudged
document's grade is an independent draw from the prior (Carterette, Allan & Sitaraman, SIGIR
2006, "Minimal test collections": measures that are sums over ranks have moments in closed
form).

Each ranked document has a grade distribution: one-hot at its grade when judged, the prior's
(the same per-document probabilities the bootstrap draws from, without the prior's own
uncertainty) when not. Then, with q_i the probability that rank i is relevant and v_i =
q_i (1 - q_i):

* P@k = sum q_i / k, variance sum v_i / k^2;
* DCG@k and RBP: sums of independent gains times weights, so E = sum w_i E[g_i] and
  var = sum w_i^2 var(g_i); nDCG@k divides both by the ideal DCG;
* AP = S / R with S = sum_i x_i / i (1 + sum_{j<i} x_j): E[S] = sum_i q_i / i (1 + Q_{i-1})
  (Q the cumulative sum of q), and with x = q + e the variance of this quadratic form is
  sum_k L_k^2 v_k + sum_{j<i} v_i v_j / i^2, L_k = 1/k + Q_{k-1}/k + sum_{i>k} q_i / i (its
  linear and its pair terms; independence makes them uncorrelated): O(depth) per ranking.

With the pool's normalisers (R, the ideal DCG) every moment above is exact (`moments(...,
grown=None)`), but AP and nDCG could then exceed 1 (a run's unjudged documents may be relevant
beyond the pool's R). So the strategy grows them: by the expected number of unjudged documents
of each grade among those some run retrieves (unjudged.strategies.growth.Expected) when the
estimate's normalisers grow (the default of the pool, position and estimates priors), else
(--no-grow, the run priors) by the run's own unjudged documents. The ideal places fractional
documents (measures.statistical.smooth_ideal_dcg). The value is then E[numerator] /
E[normaliser] and the variance a delta method on numerator - value x normaliser, in which a
run's unjudged document moves both (their covariance) and the other unjudged documents move
the normaliser alone. P@k and RBP have no normaliser: their moments are always exact.

The prior's own uncertainty (the bootstrap's `spread` and `shared_spread`: every log-odds
shifted by a normal variate per topic and one shared by all topics) adds, by the law of total
variance, (spread^2 + shared^2) D^2 to a topic's variance, D the expectation's derivative in
the shift (a central difference over +- SHIFT). The shared part moves all topics together, so
a run's mean over n topics has variance sum_t (var_t - shared^2 D_t^2) / n^2 + shared^2 (mean
D)^2: the strategy reports shared x D beside each variance for that.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from unjudged.data.judged import PAD_UP_TO, Judged, cut_width
from unjudged.measures._common import discount, divide, level, ranks
from unjudged.measures.dcg import gain_values, ideal_gains
from unjudged.measures.statistical import smooth_ideal_dcg, smooth_ideal_slope
from unjudged.strategies.base import Drawing
from unjudged.strategies.bootstrap import cell_probabilities
from unjudged.strategies.fill import max_grade, pool_counts, unknown

#: the measure families with closed-form moments (and not judged_only, condensed lists)
FAMILIES = ("P", "RBP", "nDCG", "AP")
#: the log-odds step of the central difference that measures how the expectation moves with
#: the prior's uncertainty (growth.Expected holds the counts at -SHIFT, 0 and SHIFT)
SHIFT = 0.05
SHIFTS = (0.0, -SHIFT, SHIFT)


def supports(m: Any) -> bool:
    """Whether `m` has closed-form moments here."""
    return m.spec.name in FAMILIES and not m.kwargs().get("judged_only")


def grade_distributions(judged: Judged, how: Drawing, model: Any, keys: np.ndarray | None,
                        levels: int) -> np.ndarray:
    """(n, depth, levels) each ranked document's grade distribution: one-hot at a judged
    grade, the prior's for an unjudged document, all 0 past the ranking's end."""
    g = judged.grades
    out = np.zeros(g.shape + (levels,))
    seen = g >= 0
    rows, cols = np.nonzero(seen)
    out[rows, cols, np.minimum(g[seen], levels - 1)] = 1.0
    rows, cols = np.nonzero(unknown(g))
    if rows.size:
        cell_keys = keys[rows, cols] if keys is not None else np.zeros(rows.size, np.uint64)
        out[rows, cols] = cell_probabilities(judged, how, model, rows, cell_keys, levels)
    return out


def moments(m: Any, judged: Judged, dist: np.ndarray,
            grown: tuple[np.ndarray, np.ndarray] | None) -> tuple[np.ndarray, np.ndarray]:
    """((n,) expectation, (n,) variance) of measure `m` on `judged` (cut to its cutoff) whose
    documents have the grade distributions `dist` (n, depth, levels). `grown`: the
    normalisers grow by the unjudged documents some run retrieves, given by their expected
    counts per grade and the sums of their probabilities' products (growth.Expected.of);
    None: the pool's normalisers."""
    kw = m.kwargs()
    name, k = m.spec.name, m.cutoff
    levels = dist.shape[-1]
    if name == "P":
        q = dist[..., level(judged, kw.get("rel")):].sum(axis=-1)
        den = np.full(q.shape[:-1], float(k)) if k is not None else \
            judged.length.astype(np.float64)
        return divide(q.sum(axis=-1), den), divide((q * (1 - q)).sum(axis=-1), den ** 2)
    if name == "RBP":
        p, rel = float(kw["p"]), kw.get("rel")
        if rel is not None:
            gain = (np.arange(levels) >= int(rel)).astype(np.float64)
        else:  # graded as trec_eval's rbp: grade over the topic's highest judged grade
            gain = np.arange(levels, dtype=np.float64)
        weights = (1.0 - p) * p ** np.arange(dist.shape[-2], dtype=np.float64)
        mean, var = _linear(dist, gain, weights)
        if rel is None:
            top = np.maximum(judged.pool.top_grade, 1).astype(np.float64)
            mean, var = mean / top, var / top ** 2
        return mean, var
    if name == "nDCG":
        return _ndcg(judged, dist, grown, k, kw["dcg"], kw["gains"])
    return _ap(judged, dist, grown, level(judged, kw.get("rel")))


def _ndcg(judged: Judged, dist: np.ndarray, grown: tuple[np.ndarray, np.ndarray] | None,
          k: int | None, dcg: str, gains: str | None) -> tuple[np.ndarray, np.ndarray]:
    levels = dist.shape[-1]
    gain = gain_values(np.arange(levels), dcg, gains)
    w = 1.0 / discount(dist.shape[-2])
    mean, var = _linear(dist, gain, w)
    if grown is None:
        # a cutoff past the deepest ideal ranking reads no more (its gains are 0)
        ideal = ideal_gains(judged, k if k is None or k <= PAD_UP_TO else
                            cut_width(k, judged.pool.ideal_width), dcg, gains)
        norm = (ideal / discount(ideal.shape[-1])).sum(axis=-1)
        return divide(mean, norm), divide(var, norm ** 2)
    counts, outer = grown
    full = pool_counts(judged.pool, levels).astype(np.float64) + counts
    norm = smooth_ideal_dcg(full, gain, k)
    value = divide(mean, norm)
    # delta method on DCG - V IDCG, IDCG linearised in the counts per grade (its slope s_g;
    # where it is flat, over +- the count's standard deviation)
    sd = np.sqrt(np.maximum(counts - np.diagonal(outer, axis1=-2, axis2=-1), 0.0))
    slope = smooth_ideal_slope(full, gain, k, sd)[:, None, :]  # (n, 1, levels)
    v = value[:, None, None]
    own = _cell_variance(dist, w[:, None] * gain - v * slope)  # the run's documents
    s_own = _cell_variance(dist, np.broadcast_to(slope, dist.shape))
    s = slope[:, 0, :]
    rest = (s ** 2 * counts).sum(axis=-1) - np.einsum("ng,ngh,nh->n", s, outer, s)
    total = own.sum(axis=-1) + value ** 2 * np.maximum(rest - s_own.sum(axis=-1), 0.0)
    return value, divide(total, norm ** 2)


def _ap(judged: Judged, dist: np.ndarray, grown: tuple[np.ndarray, np.ndarray] | None,
        lv: int) -> tuple[np.ndarray, np.ndarray]:
    q = dist[..., lv:].sum(axis=-1)
    mean, linear, pairs = _ap_numerator(q)
    v = q * (1.0 - q)
    r = judged.pool.num_rel(lv).astype(np.float64)
    if grown is None:
        return divide(mean, r), divide((linear ** 2 * v).sum(axis=-1) + pairs, r ** 2)
    counts, outer = grown
    r = r + counts[..., lv:].sum(axis=-1)
    value = divide(mean, r)
    # delta method on S - A R: a run's unjudged document adds to both; the other unjudged
    # documents some run retrieves to R only (the variance of their count of relevant ones)
    rest = counts[..., lv:].sum(axis=-1) - outer[..., lv:, lv:].sum(axis=(-2, -1))
    own = ((linear - value[:, None]) ** 2 * v).sum(axis=-1)
    total = own + pairs + value ** 2 * np.maximum(rest - v.sum(axis=-1), 0.0)
    return value, divide(total, r ** 2)


def _cell_variance(dist: np.ndarray, y: np.ndarray) -> np.ndarray:
    """(n, depth) variance of y[..., grade] over each document's grade distribution."""
    e = (dist * y).sum(axis=-1)
    return np.maximum((dist * y ** 2).sum(axis=-1) - e ** 2, 0.0)


def _linear(dist: np.ndarray, gain: np.ndarray, weights: Any) -> tuple[np.ndarray, np.ndarray]:
    """Moments of sum_i w_i gain(grade_i) with independent grades."""
    e = dist @ gain
    v = dist @ gain ** 2 - e ** 2
    return (e * weights).sum(axis=-1), (np.maximum(v, 0.0) * np.square(weights)).sum(axis=-1)


def _ap_numerator(q: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """E[S], each document's linear coefficient L_k and the pairs' variance for
    S = sum_i x_i / i (1 + sum_{j<i} x_j) with independent x_i ~ Bernoulli(q_i) (see the
    module's docstring): var(S) = sum L_k^2 q_k (1 - q_k) + pairs.

    Example:
        >>> q = np.array([[1.0, 0.5]])  # S = 1 + x (1 + 1) / 2 = 1 + x
        >>> mean, linear, pairs = _ap_numerator(q)
        >>> mean.tolist(), float((linear ** 2 * q * (1 - q)).sum() + pairs[0])
        ([1.5], 0.25)
    """
    r = ranks(q.shape[-1])
    v = q * (1.0 - q)
    before = np.cumsum(q, axis=-1) - q  # Q_{i-1}
    mean = (q / r * (1.0 + before)).sum(axis=-1)
    shares = q / r
    after = shares.sum(axis=-1, keepdims=True) - np.cumsum(shares, axis=-1)  # sum_{i>k} q_i/i
    linear = 1.0 / r + before / r + after
    v_before = np.cumsum(v, axis=-1) - v
    return mean, linear, (v / r ** 2 * v_before).sum(axis=-1)


def own_growth(judged: Judged, dist: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """What the normalisers grow by when they grow by the ranking's own unjudged documents
    (with --no-grow, or a run prior, which has no documents but the run's): their expected
    counts per grade and the sums of their probabilities' products, as growth.Expected.of."""
    d = np.where(unknown(judged.grades)[..., None], dist, 0.0)
    return d.sum(axis=-2), np.einsum("ndg,ndh->ngh", d, d)


def levels_of(judged: Judged) -> int:
    """Grade levels the distributions hold: the pool's highest grade + 1 (at least 2)."""
    return max(max_grade(judged.pool) + 1, 2)


__all__ = ["FAMILIES", "grade_distributions", "levels_of", "moments", "supports"]
