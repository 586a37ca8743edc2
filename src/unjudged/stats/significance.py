"""Significance tests for comparing runs over topics: one pair, or every pair of many runs.

Inputs are per-topic scores: two arrays `a`, `b` (same topics, same order) for `paired_test`,
a (runs, topics) array for `pairwise_tests`. Every result carries the mean difference, a
confidence interval of it and an effect size (Cohen's d_z = mean difference / standard
deviation of the differences), not only a p-value.

| test | p-value | interval of the mean difference |
|---|---|---|
| ``t`` | paired Student t (scipy.stats.ttest_rel) | Student t |
| ``wilcoxon`` | signed-rank (scipy.stats.wilcoxon; zeros dropped, "wilcox") | Student t |
| ``sign`` | exact binomial on the signs (scipy.stats.binomtest; zeros dropped) | Student t |
| ``randomisation`` | Fisher's sign-flip permutation, exact when 2^n <= n_resamples | Student t |
| ``bootstrap`` | studentised paired bootstrap, shifted (Efron & Tibshirani; Sakai) | percentile |

`pairwise_tests` adds the multiple-comparison procedures ``t-bonferroni``, ``t-holm``
(statsmodels multipletests over all pairs), ``anova-bonferroni``/``anova-holm`` (the same
after a significant one-way ANOVA, else no pair is significant), ``anova-pooled-bonferroni``
(after the same ANOVA, unpaired t-tests on its pooled error, MSE with k(n-1) degrees of freedom;
`unjudged.stats.pooled`) and ``tukey`` (Tukey's HSD with its simultaneous intervals, as
scipy.stats.tukey_hsd). Random tests depend only on `seed`.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from unjudged.errors import InvalidOptionError, shown
from unjudged.stats import paired as st
from unjudged.stats import resampling as rs
from unjudged.stats.paired import Alternative, ZeroMethod
from unjudged.stats.pairs import METHODS, PairResult, pair_arrays

TESTS = ("t", "wilcoxon", "sign", "randomisation", "bootstrap")

__all__ = ["METHODS", "TESTS", "PairResult", "PairedTest", "anova", "anova_rm", "paired_test",
           "pairwise_tests", "significance_matrix"]


@dataclass(frozen=True)
class PairedTest:
    """The outcome of one paired test of runs a and b over n topics.

    `statistic` is the test's own (t, Wilcoxon's W, the number of positive differences,
    the mean difference, the studentised bootstrap t); `mean_diff` is mean(a - b); the interval
    [ci_low, ci_high] is for the mean difference (`ci_method` says how it was made);
    `effect_size` is `effect_measure` ("d_z": Cohen's d for paired samples).
    """

    test: str
    statistic: float
    p_value: float
    mean_diff: float
    ci_low: float
    ci_high: float
    effect_size: float
    n: int
    alternative: Alternative = "two-sided"
    confidence: float = 0.95
    ci_method: str = "t"
    effect_measure: str = "d_z"


def _paired(a, b) -> np.ndarray:
    try:
        a = np.asarray(a, dtype=np.float64)
        b = np.asarray(b, dtype=np.float64)
    except (TypeError, ValueError):  # text, None, ragged lists
        raise InvalidOptionError(f"expected two arrays of numbers (per-topic scores), got "
                                 f"{shown(a)} and {shown(b)}") from None
    if a.ndim != 1 or a.shape != b.shape:
        raise InvalidOptionError("expected two equally long 1-D score arrays, got shapes "
                                 f"{a.shape} and {b.shape}")
    if len(a) < 2:
        raise InvalidOptionError("a paired test needs at least two topics")
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise InvalidOptionError("scores must be finite")
    return a - b


def paired_test(a, b, test: str = "t", *, alternative: Alternative = "two-sided",
                n_resamples: int = 10_000, seed: int = 0, confidence: float = 0.95,
                zero_method: ZeroMethod = "wilcox") -> PairedTest:
    """Test whether runs a and b differ, given their scores on the same topics.

    `alternative` "greater" tests mean(a - b) > 0. `n_resamples` and `seed` drive the
    randomisation and bootstrap tests; `zero_method` the Wilcoxon test.

    Example:
        >>> r = paired_test([0.5, 0.6, 0.7, 0.8], [0.4, 0.4, 0.5, 0.5], "t")
        >>> round(r.mean_diff, 4), round(r.p_value, 4), round(r.effect_size, 4)
        (0.2, 0.0163, 2.4495)
        >>> round(r.ci_low, 4), round(r.ci_high, 4)
        (0.0701, 0.3299)
        >>> paired_test([0.5, 0.6, 0.7, 0.8], [0.4, 0.4, 0.5, 0.5], "randomisation").p_value
        0.125
    """
    from scipy import stats

    st.check_alternative(alternative)
    d = _paired(a, b)
    rows = d[None, :]
    lo, hi = st.t_interval(rows, confidence, alternative)
    ci = "t"
    zero = not np.any(d != 0)
    if test == "t" and zero:  # scipy: nan; here no evidence of a difference
        stat, p = 0.0, float(st.t_rows(rows, alternative)[1][0])
    elif test == "t":
        with warnings.catch_warnings():  # constant differences: scipy warns, t = +-inf stands
            warnings.simplefilter("ignore", RuntimeWarning)
            res = stats.ttest_rel(a, b, alternative=alternative)
        stat, p = float(res.statistic), float(res.pvalue)
    elif test == "wilcoxon":
        stat, p = (float(x[0]) for x in st.wilcoxon_rows(rows, alternative, zero_method))
    elif test == "sign":
        k, n = int((d > 0).sum()), int((d != 0).sum())
        stat, p = float(k), (stats.binomtest(k, n, 0.5, alternative).pvalue if n else 1.0)
    elif test == "randomisation":
        stat, p = (float(x[0]) for x in rs.randomisation_rows(rows, alternative, n_resamples,
                                                              seed)[:2])
    elif test == "bootstrap":
        t, pb, lo, hi = rs.bootstrap_rows(rows, alternative, n_resamples, seed, confidence)
        stat, p, ci = float(t[0]), float(pb[0]), "percentile bootstrap"
    else:
        raise InvalidOptionError(f"test: expected one of {', '.join(TESTS)}, got {test!r}")
    return PairedTest(test, stat, float(p), float(d.mean()), float(lo[0]), float(hi[0]),
                      float(st.effect_size(rows)[0]), len(d), alternative, confidence, ci)


def anova(scores) -> tuple[float, float]:
    """One-way ANOVA over runs (scipy.stats.f_oneway, runs as groups): (F, p).

    Constant scores give (nan, nan): nothing to test. See `anova_rm` for the two-way form
    with topics as a blocking factor.

    Example:
        >>> f, p = anova([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]])
        >>> round(f, 2), round(p, 4)
        (13.5, 0.0213)
    """
    return st.oneway_anova(np.asarray(scores, dtype=np.float64))


def anova_rm(scores) -> tuple[float, float]:
    """Two-way ANOVA without replication, runs x topics (statsmodels AnovaRM with topics as
    subjects): (F, p) of the run factor. Topic difficulty is taken out of the error term, so
    this is far more sensitive than the one-way form on IR scores.

    Example:
        >>> f, p = anova_rm([[0.1, 0.2, 0.3], [0.2, 0.4, 0.5]])
        >>> round(f, 2), round(p, 4)
        (25.0, 0.0377)
    """
    import pandas as pd
    from statsmodels.stats.anova import AnovaRM

    s = np.asarray(scores, dtype=np.float64)
    k, n = s.shape
    frame = pd.DataFrame({"score": s.ravel(), "run": np.repeat(np.arange(k), n),
                          "topic": np.tile(np.arange(n), k)})
    table = AnovaRM(frame, "score", "topic", within=["run"]).fit().anova_table
    return float(table["F Value"].iloc[0]), float(table["Pr > F"].iloc[0])


def pairwise_tests(scores, names, method: str = "t", alpha: float = 0.05, seed: int = 0, *,
                   n_resamples: int = 10_000, zero_method: ZeroMethod = "wilcox"
                   ) -> list[PairResult]:
    """Test every unordered pair of runs (i < j, in row order) on their per-topic scores.

    `scores` is (runs, topics); `method` one of METHODS. p-values are adjusted where the
    method adjusts, `significant` is p < alpha, and the intervals have confidence 1 - alpha
    (simultaneous ones for the Bonferroni, Holm and Tukey methods). mean_diff = run_a - run_b.

    Example:
        >>> res = pairwise_tests([[0.5, 0.6, 0.7, 0.8], [0.4, 0.4, 0.5, 0.5],
        ...                       [0.5, 0.6, 0.7, 0.8]], ["a", "b", "c"], "t-holm")
        >>> [(r.run_a, r.run_b, round(r.mean_diff, 2), r.significant) for r in res]
        [('a', 'b', 0.2, True), ('a', 'c', 0.0, False), ('b', 'c', -0.2, True)]
    """
    names = [str(x) for x in names]
    arr = pair_arrays(scores, method, alpha, seed, n_resamples=n_resamples,
                      zero_method=zero_method)
    if len(names) != arr["runs"]:
        raise InvalidOptionError(f"expected {arr['runs']} run names, got {len(names)}")
    return [PairResult(names[i], names[j], md, p, bool(s), lo, hi, es)
            for i, j, md, p, s, lo, hi, es in zip(
                arr["i"].tolist(), arr["j"].tolist(), arr["mean_diff"].tolist(),
                arr["p_value"].tolist(), arr["significant"].tolist(), arr["ci_low"].tolist(),
                arr["ci_high"].tolist(), arr["effect_size"].tolist(), strict=True)]


def significance_matrix(scores, method: str = "t", alpha: float = 0.05, seed: int = 0,
                        **kw) -> tuple[np.ndarray, np.ndarray]:
    """(runs, runs) matrices of p-values (1 on the diagonal) and of mean differences
    (row run minus column run) from `pairwise_tests`' procedures.

    Example:
        >>> p, diff = significance_matrix([[0.5, 0.6, 0.7], [0.1, 0.2, 0.4]])
        >>> round(float(p[0, 1]), 4) == round(float(p[1, 0]), 4), round(float(diff[1, 0]), 4)
        (True, -0.3667)
    """
    arr = pair_arrays(scores, method, alpha, seed, **kw)
    k = arr["runs"]
    p = np.ones((k, k))
    diff = np.zeros((k, k))
    i, j = arr["i"], arr["j"]
    p[i, j] = p[j, i] = arr["p_value"]
    diff[i, j] = arr["mean_diff"]
    diff[j, i] = -arr["mean_diff"]
    return p, diff
