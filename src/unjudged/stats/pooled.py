"""t-tests of pairs of runs on the pooled error of a one-way ANOVA (the classic "Bonferroni
multiple comparisons" after an ANOVA, as in textbook and statistics-package follow-ups).

Runs are independent groups of n topics each (topics are not a blocking factor, as in the
one-way ANOVA itself): with k runs, MSE = the within-run sum of squares / (k (n - 1)), and a
pair's t = (mean_i - mean_j) / sqrt(2 MSE / n) on k (n - 1) degrees of freedom. Every pair
shares one error estimate, so a pair's p-value depends on the other runs tested with it (unlike
the paired t-test of `unjudged.stats.paired`).
"""

from __future__ import annotations

import numpy as np


def pooled_error(s: np.ndarray) -> tuple[float, int]:
    """(MSE, degrees of freedom) of the one-way ANOVA with the rows of (runs, topics) scores as
    groups: the within-run sum of squares over k (n - 1).

    Example:
        >>> mse, df = pooled_error(np.array([[0.2, 0.4, 0.6, 0.8], [0.1, 0.3, 0.3, 0.5]]))
        >>> round(mse, 6), df
        (0.046667, 6)
    """
    k, n = s.shape
    df = k * (n - 1)
    return float(((s - s.mean(axis=1, keepdims=True)) ** 2).sum() / df), df


def pooled_t_pairs(s: np.ndarray, i: np.ndarray, j: np.ndarray, confidence: float
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Unadjusted two-sided p-values of mean_i - mean_j for the pairs (i, j) of the rows of
    (runs, topics) scores, on the one-way ANOVA's pooled error, and intervals of the difference
    with the given confidence: (p, ci_low, ci_high).

    Example:
        >>> s = np.array([[0.2, 0.4, 0.6, 0.8], [0.1, 0.3, 0.3, 0.5], [0.0, 0.2, 0.2, 0.0]])
        >>> p, lo, hi = pooled_t_pairs(s, np.array([0, 0]), np.array([1, 2]), 0.95)
        >>> [round(float(x), 4) for x in p]  # t = 0.2 / (2/15) = 1.5 and 3.0, 9 df
        [0.1679, 0.015]
    """
    from scipy.stats import t as student

    n = s.shape[1]
    mse, df = pooled_error(s)
    se = np.sqrt(2 * mse / n)
    means = s.mean(axis=1)
    diff = means[i] - means[j]
    if se == 0:  # every run constant over the topics: any difference is certain
        return np.where(diff == 0, 1.0, 0.0), diff, diff
    p = np.minimum(2 * student.sf(np.abs(diff) / se, df), 1.0)
    radius = student.ppf(1 - (1 - confidence) / 2, df) * se
    return p, diff - radius, diff + radius
