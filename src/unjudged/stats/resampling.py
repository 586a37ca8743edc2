"""Randomisation and bootstrap tests vectorised over the rows of a (pairs, topics) array.

One random design serves every pair: the sign-flip matrix (resamples, topics) of the
randomisation test and the topic-count matrix (resamples, topics) of the bootstrap are drawn
once from ``numpy.random.default_rng(seed)``. Each pair's resampled statistics are then one
matrix product of its differences with that design, so a chunk of pairs costs one BLAS call and
the result depends only on the seed and the scores, never on chunking or the number of pairs.

Cost: pairs x resamples x topics multiply-adds (10,153 pairs x 10,000 resamples x 50 topics is
5e9, a few seconds), and memory of `CHUNK_CELLS` float64 per temporary: pairs are processed
in chunks of CHUNK_CELLS // resamples rows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # annotations only: paired imports this module (signed_rank_flips)
    from unjudged.stats.paired import Alternative, ZeroMethod

CHUNK_CELLS = 1 << 20  # float64 cells per (pairs, resamples) temporary: 8 MiB
_TOL = 1e-12  # resampled statistics this close to the observed one count as "as extreme"


def flip_design(n: int, n_resamples: int, seed: int) -> tuple[np.ndarray, bool]:
    """The (resamples, n) matrix of +-1 sign flips and whether it is the exact enumeration.

    When 2^n <= n_resamples every one of the 2^n assignments is listed once (exact test);
    otherwise n_resamples rows are drawn from default_rng(seed).

    Example:
        >>> s, exact = flip_design(2, 10, 0)
        >>> s.tolist(), exact
        ([[1.0, 1.0], [-1.0, 1.0], [1.0, -1.0], [-1.0, -1.0]], True)
    """
    if n < 63 and 2 ** n <= n_resamples:
        bits = (np.arange(2 ** n)[:, None] >> np.arange(n)) & 1
        return 1.0 - 2.0 * bits, True
    rng = np.random.default_rng(seed)
    return 1.0 - 2.0 * rng.integers(0, 2, size=(n_resamples, n)), False


def _chunks(m: int, n_resamples: int):
    step = max(1, CHUNK_CELLS // max(1, n_resamples))
    for a in range(0, m, step):
        yield slice(a, min(a + step, m))


def _count_extreme(resampled: np.ndarray, observed: np.ndarray, alternative: Alternative
                   ) -> np.ndarray:
    """How many resampled statistics per row are at least as extreme as the observed one."""
    obs = observed[:, None]
    scale = np.abs(obs)  # inf for constant non-zero differences: nothing is as extreme
    tol = _TOL * np.where(np.isfinite(scale), np.maximum(1.0, scale), 1.0)
    if alternative == "greater":
        hit = resampled >= obs - tol
    elif alternative == "less":
        hit = resampled <= obs + tol
    else:
        hit = np.abs(resampled) >= np.abs(obs) - tol
    return hit.sum(axis=1)


def randomisation_rows(d: np.ndarray, alternative: Alternative = "two-sided",
                       n_resamples: int = 10_000, seed: int = 0
                       ) -> tuple[np.ndarray, np.ndarray, bool]:
    """Fisher's randomisation test of the mean difference per row: (mean, p, exact).

    Under the null hypothesis each topic's difference is as likely negative as positive, so
    the p-value is the share of sign flips whose mean is at least as extreme as the observed
    one: counted over all 2^n flips when exact, else (count + 1) / (n_resamples + 1) with the
    observed assignment counted among the random ones (Phipson & Smyth 2010), so p > 0.

    Example:
        >>> mean, p, exact = randomisation_rows(np.array([[1.0, 2.0, 3.0, 4.0]]))
        >>> float(mean[0]), float(p[0]), exact  # only all-plus and all-minus reach |2.5|
        (2.5, 0.125, True)
    """
    n = d.shape[-1]
    flips, exact = flip_design(n, n_resamples, seed)
    observed = d.mean(axis=-1)
    count = np.zeros(d.shape[0], dtype=np.int64)
    for rows in _chunks(d.shape[0], len(flips)):
        resampled = d[rows] @ flips.T / n
        count[rows] = _count_extreme(resampled, observed[rows], alternative)
    if exact:
        return observed, count / len(flips), True
    return observed, (count + 1) / (len(flips) + 1), False


def signed_rank_flips(d: np.ndarray, alternative: Alternative = "two-sided",
                      zero_method: ZeroMethod = "wilcox") -> np.ndarray:
    """Exact sign-flip p-values of Wilcoxon's signed-rank sum W+ per row (small n with ties
    or zeros, where scipy.stats.wilcoxon permutes; this is the same enumeration of all 2^n
    flips as one matrix product instead of a Python-level permutation test per pair).

    Example:
        >>> float(signed_rank_flips(np.array([[0.1, 0.1, 0.2, 0.0]]))[0])  # 1 of 8, both tails
        0.25
    """
    from scipy.stats import rankdata

    n = d.shape[-1]
    ranks = rankdata(np.abs(d), axis=-1)
    zeros = (d == 0).sum(axis=-1, keepdims=True)
    if zero_method == "wilcox":  # zeros rank lowest, so dropping them shifts every rank down
        ranks = ranks - zeros
    # "zsplit" adds the zeros' half-ranks to W+ under every flip alike: the p-value ignores it
    up, _ = flip_design(n, 2 ** n, 0)
    up = (up > 0).astype(np.float64)  # topic keeps (1) or reverses (0) its sign
    pos, neg = ranks * (d > 0), ranks * (d < 0)
    observed = pos.sum(axis=-1)
    greater = np.empty(d.shape[0])
    less = np.empty(d.shape[0])
    for rows in _chunks(d.shape[0], len(up)):
        w = pos[rows] @ up.T + neg[rows] @ (1.0 - up).T
        greater[rows] = (w >= observed[rows, None] - 1e-9).mean(axis=1)
        less[rows] = (w <= observed[rows, None] + 1e-9).mean(axis=1)
    if alternative == "greater":
        return greater
    if alternative == "less":
        return less
    return np.minimum(1.0, 2.0 * np.minimum(greater, less))


def bootstrap_design(n: int, n_resamples: int, seed: int) -> np.ndarray:
    """(resamples, n) float matrix: how often each topic is drawn in each bootstrap sample.

    Example:
        >>> bootstrap_design(3, 2, 0).sum(axis=1).tolist()
        [3.0, 3.0]
    """
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, n, size=(n_resamples, n))
    flat = (np.arange(n_resamples)[:, None] * n + draws).ravel()  # one bincount, not add.at
    return np.bincount(flat, minlength=n_resamples * n).reshape(n_resamples, n).astype(np.float64)


def bootstrap_rows(d: np.ndarray, alternative: Alternative = "two-sided",
                   n_resamples: int = 10_000, seed: int = 0, confidence: float = 0.95
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Paired bootstrap test per row: (t, p, ci_low, ci_high).

    The studentised shift method (Efron & Tibshirani 1993, algorithm 16.2; Sakai, SIGIR 2006):
    topics are resampled with replacement, each sample's differences are shifted by the observed
    mean so that the null hypothesis holds, and the p-value is the share of samples whose
    t statistic mean* / (sd* / sqrt(n)) is at least as extreme as the observed t, counting the
    observed sample among them, (count + 1) / (n_resamples + 1) (Davison & Hinkley 1997, 4.2),
    so that p > 0. The interval is the percentile interval of the (unshifted) mean difference.

    Example:
        >>> t, p, lo, hi = bootstrap_rows(np.array([[0.1, 0.2, 0.3, 0.4, 0.5]]), n_resamples=200)
        >>> float(p[0]) < 0.05, 0.1 <= float(lo[0]) < float(hi[0]) <= 0.5
        (True, True)
    """
    n = d.shape[-1]
    counts = bootstrap_design(n, n_resamples, seed)
    mean = d.mean(axis=-1)
    observed = _studentise(mean, d.var(axis=-1, ddof=1), n, 0.0)
    count = np.zeros(d.shape[0], dtype=np.int64)
    lo = np.empty(d.shape[0])
    hi = np.empty(d.shape[0])
    q = _quantiles(confidence, alternative)
    for rows in _chunks(d.shape[0], n_resamples):
        x = d[rows]
        m = x @ counts.T / n
        second = (x * x) @ counts.T / n
        var = np.maximum(second - m * m, 0.0) * (n / (n - 1))
        var[var <= 1e-12 * np.abs(second)] = 0.0  # rounding noise of one repeated value
        resampled = _studentise(m - mean[rows, None], var, n, 1e-12)
        count[rows] = _count_extreme(resampled, observed[rows], alternative)
        lo[rows], hi[rows] = np.quantile(m, q, axis=1)
    if alternative == "greater":
        hi[:] = np.inf
    elif alternative == "less":
        lo[:] = -np.inf
    return observed, (count + 1) / (n_resamples + 1), lo, hi


def _studentise(shift: np.ndarray, var: np.ndarray, n: int, tol: float) -> np.ndarray:
    """shift / sqrt(var / n); 0 where both vanish, +-inf where only the variance does."""
    se = np.sqrt(var / n)
    zero = np.abs(shift) <= tol
    with np.errstate(divide="ignore", invalid="ignore"):
        t = shift / se
    return np.where(zero & (se == 0), 0.0, t)


def _quantiles(confidence: float, alternative: Alternative) -> list[float]:
    if alternative == "greater":
        return [1.0 - confidence, 1.0]
    if alternative == "less":
        return [0.0, confidence]
    return [0.5 - confidence / 2, 0.5 + confidence / 2]
