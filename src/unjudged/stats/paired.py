"""Paired tests vectorised over the rows of a (pairs, topics) array of score differences.

`unjudged.stats.significance` is the public face; this module holds the kernels that let it test ten
thousand pairs of runs at once instead of calling scipy ten thousand times. Each kernel takes
`d` of shape (m, n) (m pairs, n topics, d = a - b) and returns arrays of length m. Agreement
with scipy's single-pair functions is checked in tests/test_significance.py.

Conventions shared by every test (scipy returns nan for some of them):

- identical score vectors (every difference 0): statistic 0, two-sided p-value 1, CI [0, 0],
  effect 0 -- there is no evidence of a difference, and a nan would poison multiple-test
  corrections;
- differences all equal and non-zero (sd 0): t and d_z are +-inf and the t-test's p-value 0,
  as scipy.stats.ttest_rel gives.
"""

from __future__ import annotations

import warnings
from typing import Literal, get_args

import numpy as np

from unjudged.errors import InvalidOptionError

#: which differences count as evidence: both signs, mean(a - b) > 0, or < 0
Alternative = Literal["two-sided", "greater", "less"]
#: the Wilcoxon test's zero differences: dropped (wilcox), ranked then dropped (pratt), or split
ZeroMethod = Literal["wilcox", "pratt", "zsplit"]
ALTERNATIVES: tuple[Alternative, ...] = get_args(Alternative)


def check_alternative(alternative: str) -> None:
    if alternative not in ALTERNATIVES:
        raise InvalidOptionError(f"alternative: expected one of {', '.join(ALTERNATIVES)}, "
                                 f"got {alternative!r}")


def mean_sd(d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row means and sample standard deviations (ddof=1)."""
    return d.mean(axis=-1), d.std(axis=-1, ddof=1)


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den, with 0/0 = 0 (identical vectors) and x/0 = +-inf (constant differences)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        out = num / den
    return np.where((num == 0) & (den == 0), 0.0, out)


def effect_size(d: np.ndarray) -> np.ndarray:
    """Cohen's d_z: the mean difference over the standard deviation of the differences.

    Example:
        >>> effect_size(np.array([[1.0, 2.0, 3.0]])).tolist()
        [2.0]
    """
    m, s = mean_sd(d)
    return _ratio(m, s)


def p_from_t(t: np.ndarray, df: float, alternative: Alternative) -> np.ndarray:
    """p-values of Student's t statistics with `df` degrees of freedom."""
    from scipy.stats import t as student

    if alternative == "greater":
        return student.sf(t, df)
    if alternative == "less":
        return student.cdf(t, df)
    return np.minimum(1.0, 2.0 * student.sf(np.abs(t), df))


def t_interval(d: np.ndarray, confidence: float, alternative: Alternative = "two-sided"
               ) -> tuple[np.ndarray, np.ndarray]:
    """Student-t confidence interval of each row's mean difference (one-sided for one-sided
    alternatives, as scipy's TtestResult.confidence_interval)."""
    from scipy.stats import t as student

    n = d.shape[-1]
    m, s = mean_sd(d)
    se = s / np.sqrt(n)
    if alternative == "two-sided":
        r = student.ppf(0.5 + confidence / 2, n - 1) * se
        return m - r, m + r
    r = student.ppf(confidence, n - 1) * se
    if alternative == "greater":
        return m - r, np.full_like(m, np.inf)
    return np.full_like(m, -np.inf), m + r


def t_rows(d: np.ndarray, alternative: Alternative = "two-sided") -> tuple[np.ndarray, np.ndarray]:
    """Paired t-test per row: (t, p), equal to scipy.stats.ttest_rel on each pair.

    Example:
        >>> t, p = t_rows(np.array([[1.0, 2.0, 3.0]]))
        >>> round(float(t[0]), 4), round(float(p[0]), 4)
        (3.4641, 0.0742)
    """
    n = d.shape[-1]
    m, s = mean_sd(d)
    t = _ratio(m, s / np.sqrt(n))
    return t, p_from_t(t, n - 1, alternative)


def sign_rows(d: np.ndarray, alternative: Alternative = "two-sided"
              ) -> tuple[np.ndarray, np.ndarray]:
    """Sign test per row: (number of positive differences, exact binomial p-value).

    Zero differences are dropped (the classical sign test); the two-sided p-value is twice the
    smaller tail, which is scipy.stats.binomtest's for a fair coin. No non-zero difference: p 1.

    Example:
        >>> k, p = sign_rows(np.array([[0.1, 0.2, 0.3, -0.1, 0.0]]))
        >>> int(k[0]), float(p[0])  # 3 of 4 non-zero positive: 2 * (1 + 4) / 16
        (3, 0.625)
    """
    from scipy.stats import binom

    k = (d > 0).sum(axis=-1)
    n = k + (d < 0).sum(axis=-1)
    if alternative == "greater":
        p = binom.sf(k - 1, n, 0.5)
    elif alternative == "less":
        p = binom.cdf(k, n, 0.5)
    else:
        p = np.minimum(1.0, 2.0 * binom.cdf(np.minimum(k, n - k), n, 0.5))
    return k, np.where(n == 0, 1.0, p)


def wilcoxon_rows(d: np.ndarray, alternative: Alternative = "two-sided",
                  zero_method: ZeroMethod = "wilcox"
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Wilcoxon signed-rank test per row, equal to scipy.stats.wilcoxon on each pair.

    `zero_method` "wilcox" (scipy's default) drops zero differences before ranking; "pratt"
    ranks them and then drops them; "zsplit" shares their ranks between both signs.

    scipy's method="auto" picks the exact null distribution (n <= 50, no ties, no zeros), an
    exact sign-flip enumeration (n <= 13 with ties or zeros) or the normal approximation, but
    decides once for a whole array; the choice is made here row by row so that a pair's p-value
    never depends on the other pairs tested with it.

    Example:
        >>> w, p = wilcoxon_rows(np.array([[0.1, 0.2, 0.3, 0.4, 0.5, -0.05]]))
        >>> float(w[0]), float(p[0])  # exact: 2 of the 64 sign patterns have W <= 1
        (1.0, 0.0625)
    """
    from scipy.stats import wilcoxon

    from unjudged.stats.resampling import signed_rank_flips

    n = d.shape[-1]
    a = np.sort(np.abs(d), axis=-1)
    nonzero = a != 0
    irregular = (~nonzero).any(axis=-1) | ((a[:, 1:] == a[:, :-1]) & nonzero[:, 1:]).any(axis=-1)
    zero = ~nonzero.any(axis=-1)
    method = np.where(irregular, 2 if n <= 13 else 1, 0 if n <= 50 else 1)
    stat = np.zeros(d.shape[0])
    p = np.ones(d.shape[0])
    hows: tuple[Literal["exact", "asymptotic"], ...] = ("exact", "asymptotic", "asymptotic")
    for code, how in enumerate(hows):
        rows = (method == code) & ~zero
        if rows.any():
            with warnings.catch_warnings():  # few non-zero differences: scipy warns; p stands
                warnings.simplefilter("ignore")
                # scipy-stubs 1.17.1.5 list 'approx', which scipy 1.17 refuses: it takes
                # 'asymptotic'
                res = wilcoxon(d[rows], axis=-1, zero_method=zero_method,
                               alternative=alternative, method=how)  # type: ignore[arg-type]
            stat[rows], p[rows] = res.statistic, res.pvalue
            if code == 2:  # scipy's PermutationMethod, computed as one matrix product
                p[rows] = signed_rank_flips(d[rows], alternative, zero_method)
    return stat, p


def adjust(p: np.ndarray, method: str, alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """Family-wise adjusted p-values and rejections (statsmodels multipletests).

    Example:
        >>> p_adj, reject = adjust(np.array([0.01, 0.04, 0.03]), "holm")
        >>> [round(float(x), 4) for x in p_adj], reject.tolist()
        ([0.03, 0.06, 0.06], [True, False, False])
    """
    from statsmodels.stats.multitest import multipletests

    p = np.asarray(p, dtype=np.float64)
    if p.size == 0:
        return p, np.zeros(0, dtype=bool)
    reject, p_adj, _, _ = multipletests(p, alpha=alpha, method=method)
    return p_adj, reject


def oneway_anova(s: np.ndarray) -> tuple[float, float]:
    """One-way ANOVA with the rows as groups (scipy.stats.f_oneway): (F, p); nan when every
    row is constant."""
    from scipy.stats import f_oneway

    with warnings.catch_warnings():  # constant groups: scipy warns and returns nan
        warnings.simplefilter("ignore")
        res = f_oneway(*s)
    return float(res.statistic), float(res.pvalue)
