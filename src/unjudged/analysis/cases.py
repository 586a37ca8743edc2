"""The decision matrix for a set of runs at one (measure, depth): the case of every pair of
runs from two batches of pairwise tests (see `unjudged.analysis.matrix` for the cases).

    classify(perf_diff, perf_sig, assess_diff, assess_sig) -> cases (vectorised)
    compare_pairs(perf, assess, ...) -> Cell            every pair at one (measure, depth)
    comparison_intervals(values, alpha) -> (mean, half) seed 001's error bars
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: The default test: a one-way ANOVA over all runs, then paired t-tests Bonferroni-adjusted over
#: all pairs, which keeps the family-wise error of thousands of pairs at alpha. Seed 001 says
#: only "ANOVA, then a Bonferroni follow-up"; "anova-pooled-bonferroni" is the other reading
#: (t on the ANOVA's pooled error). See docs/decision-matrix.md for how far they differ.
DEFAULT_TEST = "anova-bonferroni"
WEAK_CASES = (2, 4)
ASSESSMENT = "Judged"  #: A_p@d in the registry


def classify(perf_diff, perf_significant, assess_diff, assess_significant) -> np.ndarray:
    """The decision-matrix case (1-4) of each pair, from the mean differences s1 - s2 (in the
    measure's "better" direction) and whether each test rejected equality.

    Example:
        >>> classify([0.1, 0.1, 0.1, 0.1, -0.1], [False, False, True, True, True],
        ...          [0.2, 0.2, -0.2, 0.2, 0.2], [False, True, True, True, False]).tolist()
        [1, 2, 3, 4, 3]
    """
    sp = np.where(np.asarray(perf_significant, bool), np.sign(perf_diff), 0)
    sa = np.where(np.asarray(assess_significant, bool), np.sign(assess_diff), 0)
    # A "significant" zero difference has no direction: it cannot name a winner.
    return np.where(sp == 0, np.where(sa == 0, 1, 2), np.where(sa == sp, 4, 3)).astype(np.int8)


@dataclass(eq=False)
class Cell:
    """Every pair (run_a, run_b) of runs tested at one (measure, depth) and classified.

    Arrays run over the pairs, a < b in input order; diff = mean over topics of a - b, turned
    round for a measure where lower is better (so diff > 0 always means a is better);
    assess_diff likewise for A_p (> 0: a is more judged); p-values are adjusted where the test
    adjusts for multiple comparisons.
    """

    family: str
    depth: int
    run_a: np.ndarray
    run_b: np.ndarray
    diff: np.ndarray
    p: np.ndarray
    significant: np.ndarray
    assess_diff: np.ndarray
    assess_p: np.ndarray
    assess_significant: np.ndarray
    case: np.ndarray

    @property
    def measure(self) -> str:
        return f"{self.family}@{self.depth}"

    def proportions(self) -> np.ndarray:
        """Share of the pairs in cases 1, 2, 3 and 4 (zeros when there is no pair)."""
        counts = np.bincount(self.case, minlength=5)[1:5].astype(np.float64)
        return counts / max(len(self.case), 1)

    def fewer_judged_wins(self) -> np.ndarray:
        """Case-3 pairs in 3.2's special situation: the winner is significantly *less*
        judged than the loser (so more judgments could hardly reverse the result)."""
        return (self.case == 3) & self.assess_significant & \
            (np.sign(self.assess_diff) == -np.sign(self.diff))


def pair_tests(scores: np.ndarray, test: str, alpha: float, seed: int,
               sign: float) -> tuple[np.ndarray, ...]:
    """Run `test` over every pair of rows of (runs, topics) scores: (a, b, diff, p,
    significant), pairs (a < b) in numpy.triu_indices order, diff turned by `sign`."""
    from unjudged.stats.pairs import pair_arrays

    k = scores.shape[0]
    if k < 2:
        a, b = np.triu_indices(k, 1)
        return a, b, np.zeros(0), np.ones(0), np.zeros(0, dtype=bool)
    r = pair_arrays(scores, test, alpha, seed)
    return r["i"], r["j"], r["mean_diff"] * sign, r["p_value"], r["significant"]


def compare_pairs(perf, assess, *, family: str = "P", depth: int = 0,
                  test: str = DEFAULT_TEST, alpha: float = 0.05, seed: int = 0,
                  higher_is_better: bool = True, assessed: tuple | None = None) -> Cell:
    """Test and classify every pair of runs from (runs, topics) performance and assessment
    scores. `assessed` reuses the assessment tests of another measure at the same depth.

    Example:
        >>> perf = [[.9, .8, .9, .8, .9], [.1, .2, .1, .2, .1]]
        >>> assess = [[1, 1, 1, 1, 1], [.5, .6, .5, .6, .5]]
        >>> c = compare_pairs(perf, assess, test="t")
        >>> int(c.case[0]), round(float(c.diff[0]), 2), round(float(c.assess_diff[0]), 2)
        (4, 0.72, 0.46)
    """
    perf = np.asarray(perf, dtype=np.float64)
    a, b, diff, p, sig = pair_tests(perf, test, alpha, seed, 1.0 if higher_is_better else -1.0)
    if assessed is None:
        assessed = pair_tests(np.asarray(assess, dtype=np.float64), test, alpha, seed, 1.0)[2:]
    adiff, ap, asig = assessed
    return Cell(family, depth, a, b, diff, p, sig, adiff, ap, asig,
                classify(diff, sig, adiff, asig))


def comparison_intervals(values, alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """Mean over topics of each run's (runs, topics) values and the half-width of an interval
    adjusted for all k(k-1)/2 comparisons, such that two runs whose intervals do not overlap
    differ at level alpha, as in seed 001's Figures 5-10 (Bonferroni; Hochberg & Tamhane's
    comparison intervals for equal group sizes): half = t(1 - alpha / (k(k-1)), n - 1) * se
    / sqrt(2), se the run's standard error over the topics.

    Example:
        >>> m, h = comparison_intervals([[1, 2, 3], [2, 3, 4]])
        >>> m.tolist(), round(float(h[0]), 4)
        ([2.0, 3.0], 1.7566)
    """
    from scipy.stats import t as student

    v = np.asarray(values, dtype=np.float64)
    k, n = v.shape
    mean = v.mean(axis=1)
    if n < 2:
        return mean, np.zeros(k)
    se = v.std(axis=1, ddof=1) / np.sqrt(n)
    comparisons = max(k * (k - 1) // 2, 1)
    crit = student.ppf(1 - alpha / (2 * comparisons), n - 1)
    return mean, crit * se / np.sqrt(2)


