"""Every pair of runs at once: the engine behind `unjudged.stats.significance.pairwise_tests`.

Pairs are (i, j) with i < j in row order (numpy.triu_indices). Differences are formed for a
chunk of pairs at a time, (chunk, topics), and each test runs on the whole chunk, so 143 runs
(10,153 pairs) cost a handful of numpy calls rather than 10,153 scipy calls; memory stays
bounded by CHUNK_CELLS whatever the number of runs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from unjudged.errors import InvalidOptionError
from unjudged.stats import paired as st
from unjudged.stats import resampling as rs
from unjudged.stats.paired import ZeroMethod
from unjudged.stats.pooled import pooled_t_pairs
from unjudged.stats.tukey import tukey_pairs

METHODS = ("t", "wilcoxon", "sign", "randomisation", "bootstrap", "t-bonferroni", "t-holm",
           "anova-bonferroni", "anova-pooled-bonferroni", "anova-holm", "tukey")
CHUNK_CELLS = 1 << 21  # float64 differences per chunk of pairs


@dataclass(frozen=True)
class PairResult:
    """One pair of runs: mean_diff = mean(run_a - run_b) over topics; p_value adjusted where
    the method adjusts; significant = p_value < alpha; [ci_low, ci_high] an interval of the
    mean difference; effect_size Cohen's d_z."""

    run_a: str
    run_b: str
    mean_diff: float
    p_value: float
    significant: bool
    ci_low: float
    ci_high: float
    effect_size: float


def _scores(scores) -> np.ndarray:
    s = np.asarray(scores, dtype=np.float64)
    if s.ndim != 2:
        raise InvalidOptionError(f"expected a (runs, topics) score array, got shape {s.shape}")
    if s.shape[1] < 2:
        raise InvalidOptionError("pairwise tests need at least two topics")
    if not np.isfinite(s).all():
        raise InvalidOptionError("scores must be finite")
    return s


def pair_arrays(scores, method: str = "t", alpha: float = 0.05, seed: int = 0, *,
                n_resamples: int = 10_000, zero_method: ZeroMethod = "wilcox") -> dict:
    """Column arrays over all pairs: i, j, mean_diff, p_value, significant, ci_low, ci_high,
    effect_size (plus "runs", the number of runs).

    Example:
        >>> a = pair_arrays([[0.5, 0.6, 0.7], [0.1, 0.2, 0.4], [0.5, 0.6, 0.7]])
        >>> a["i"].tolist(), a["j"].tolist(), a["significant"].tolist()
        ([0, 0, 1], [1, 2, 2], [True, False, True])
    """
    if method not in METHODS:
        raise InvalidOptionError(f"method: expected one of {', '.join(METHODS)}, got {method!r}")
    if not 0 < alpha < 1:
        raise InvalidOptionError(f"alpha: expected a value in (0, 1), got {alpha}")
    s = _scores(scores)
    k, n = s.shape
    i, j = np.triu_indices(k, 1)
    base = method.split("-")[-1] if method.startswith(("t-", "anova-")) else method
    test = "t" if base in ("bonferroni", "holm") else base
    if method.startswith("anova-pooled-"):  # t on the one-way ANOVA's error, not paired
        test = "pooled"
    m = len(i)
    out = {name: np.empty(m) for name in ("mean_diff", "p_value", "ci_low", "ci_high",
                                          "effect_size")}
    # Bonferroni/Holm families are all pairs: simultaneous Bonferroni intervals for both
    # (Holm has no compatible simple intervals; these are conservative for it).
    confidence = 1 - alpha / m if base in ("bonferroni", "holm") and m else 1 - alpha
    step = max(1, CHUNK_CELLS // n)
    for a in range(0, m, step):
        rows = slice(a, min(a + step, m))
        d = s[i[rows]] - s[j[rows]]
        out["mean_diff"][rows] = d.mean(axis=1)
        out["effect_size"][rows] = st.effect_size(d)
        lo, hi = st.t_interval(d, confidence)
        if test == "t":
            p = st.t_rows(d)[1]
        elif test == "wilcoxon":
            p = st.wilcoxon_rows(d, zero_method=zero_method)[1]
        elif test == "sign":
            p = st.sign_rows(d)[1]
        elif test == "randomisation":
            p = rs.randomisation_rows(d, n_resamples=n_resamples, seed=seed)[1]
        elif test == "bootstrap":
            _, p, lo, hi = rs.bootstrap_rows(d, n_resamples=n_resamples, seed=seed,
                                             confidence=confidence)
        else:  # tukey, pooled: filled in below from the pooled variance
            p = np.ones(len(d))
        out["p_value"][rows], out["ci_low"][rows], out["ci_high"][rows] = p, lo, hi
    if method == "tukey":
        out["p_value"], out["ci_low"], out["ci_high"] = tukey_pairs(s, i, j, 1 - alpha)
    elif test == "pooled":
        out["p_value"], out["ci_low"], out["ci_high"] = pooled_t_pairs(s, i, j, confidence)
    significant = out["p_value"] < alpha
    if base in ("bonferroni", "holm"):
        out["p_value"], significant = st.adjust(out["p_value"], base, alpha)
    if method.startswith("anova-") and not _omnibus(s, alpha):
        significant = np.zeros(m, dtype=bool)
    return {"runs": k, "i": i, "j": j, "significant": significant, **out}


def _omnibus(s: np.ndarray, alpha: float) -> bool:
    return bool(st.oneway_anova(s)[1] < alpha)  # nan (constant scores): not significant
