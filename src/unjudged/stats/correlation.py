"""Rank correlations between two system rankings, each given as one score per system.

Every function takes two equally long score arrays, `x` and `y`, where position k holds system
k's score under two conditions (two qrels, two measures, a sample and the truth). A higher score
is a better rank. Pairwise comparisons are O(n^2) numpy arrays, which is nothing for the few
hundred systems a track has.

Ties are common in these rankings (identical runs submitted twice, P@5 taking only multiples of
1/(5 x topics)), so each statistic states what a tie means:

- `kendall_tau` (tau-b, scipy's default): pairs tied in either ranking leave the numerator and
  shrink the normaliser; a ranking compared with itself gives 1 even with ties (agreement).
- `kendall_tau(..., variant="a")`: (concordant - discordant) / all pairs; a tie costs as much as
  half a swap, so ties pull it towards 0 (accuracy of y against x).
- `tau_ap`: the expected value of Yilmaz et al.'s tau_AP when ties in each ranking are broken
  uniformly at random (independently), i.e. Urbano & Marrero's tau_AP_a (ICTIR 2017) when x has
  no ties. Like tau-a, ties cost: tau_ap(x, x) is 1 only when x has no ties.
- `spearman_rho`: Pearson correlation of mid-ranks (scipy.stats.spearmanr).

Scores equal to `decimals` (10) places are ties. A mean over topics carries float noise
(0.1 + 0.2 != 0.3), which would otherwise break ties between equal P@5 means at random and,
on TREC-COVID round 1, lower tau-b for P@5 from 0.9608 to 0.9573. `decimals=None` compares
the floats as they are; 4 sees the ties of trec_eval's printed output.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from unjudged.errors import InvalidOptionError

DECIMALS = 10


def _snap(v, decimals: int | None) -> np.ndarray:
    v = np.asarray(v, dtype=np.float64)
    return v if decimals is None else np.round(v, decimals)


def _pair(x, y, decimals: int | None) -> tuple[np.ndarray, np.ndarray]:
    x, y = _snap(x, decimals), _snap(y, decimals)
    if x.ndim != 1 or x.shape != y.shape:
        raise InvalidOptionError("expected two equally long 1-D score arrays, got shapes "
                                 f"{x.shape} and {y.shape}")
    return x, y


def _signs(v: np.ndarray) -> np.ndarray:
    """signs[i, j] = sign(v[j] - v[i]): +1 where system j is ahead of system i."""
    return np.sign(v[None, :] - v[:, None])


def kendall_tau(x, y, variant: str = "b", decimals: int | None = DECIMALS) -> float:
    """Kendall's tau between the rankings by `x` and by `y` (symmetric); nan below two
    distinct values.

    `variant` "b" (default, scipy.stats.kendalltau) discounts ties in the normaliser; "a"
    divides by all n(n-1)/2 pairs, so tied pairs count as neither agreeing nor disagreeing.
    Scores equal to `decimals` places tie (None: compare the floats exactly).

    Example:
        >>> round(kendall_tau([0.3, 0.2, 0.1], [0.9, 0.5, 0.7]), 4)
        0.3333
        >>> x, y = [3, 2, 2, 1], [4, 3, 2, 1]
        >>> round(kendall_tau(x, y), 4), round(kendall_tau(x, y, "a"), 4)
        (0.9129, 0.8333)
    """
    x, y = _pair(x, y, decimals)
    n = len(x)
    if variant == "a":
        if n < 2:
            return float("nan")
        net = np.triu(_signs(x) * _signs(y), 1).sum()
        return float(net / (n * (n - 1) / 2))
    if variant != "b":
        raise InvalidOptionError(f"variant: expected 'a' or 'b', got {variant!r}")
    from scipy.stats import kendalltau

    with warnings.catch_warnings():  # constant input: scipy warns and returns nan; nan it is
        warnings.simplefilter("ignore")
        return float(kendalltau(x, y, variant="b").statistic)


def spearman_rho(x, y, decimals: int | None = DECIMALS) -> float:
    """Spearman's rho: Pearson's correlation of the mid-ranks (symmetric; nan for constant input).

    Example:
        >>> spearman_rho([0.3, 0.2, 0.1], [0.9, 0.5, 0.7])
        0.5
    """
    x, y = _pair(x, y, decimals)
    from scipy.stats import spearmanr

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(spearmanr(x, y).statistic)


def tau_ap(x, y, decimals: int | None = DECIMALS) -> float:
    """AP rank correlation (Yilmaz, Aslam, Robertson, SIGIR 2008); `x` is the reference.

    The ranking by `y` is walked from the top: for the system at position i (i >= 2), C(i) counts
    the i - 1 systems above it that `x` also ranks above it, and
    tau_AP = 2 / (n - 1) * sum_i C(i) / (i - 1) - 1, so swaps near the top of `y` cost more.
    Asymmetric: tau_ap(orig, new) judges the new ranking against the original one.

    Ties: the expected tau_AP when the ties of `x` and of `y` are broken uniformly at random
    (independently). A pair tied in `x` then agrees half the time; a group of t systems tied in
    `y` spreads evenly over its t positions. With no ties in `x` this is Urbano & Marrero's
    tau_AP_a (ICTIR 2017). Ties in `y` cost, as in tau-a: tau_ap(x, x) < 1 when x has ties.
    nan for fewer than two systems.

    Example:
        >>> round(tau_ap([4, 3, 2, 1], [4, 3, 1, 2]), 4)  # a swap at the bottom costs little,
        0.7778
        >>> round(tau_ap([4, 3, 2, 1], [3, 4, 2, 1]), 4)  # one at the top a lot
        0.3333
    """
    x, y = _pair(x, y, decimals)
    n = len(x)
    if n < 2:
        return float("nan")
    agree = _signs(x)                       # expected agreement of j above i: +1, -1, or 0 if tied
    diff = _signs(y)
    above = diff > 0                        # [i, j]: y ranks j strictly above i
    tied = diff == 0
    np.fill_diagonal(tied, False)
    a = above.sum(axis=1)                   # systems strictly above i in y
    t = tied.sum(axis=1) + 1                # size of i's tie group in y
    s = (agree * above).sum(axis=1)         # net agreement with those strictly above
    r = (agree * tied).sum(axis=1) / np.maximum(t - 1, 1)  # mean agreement with a tied partner
    # i lands at position p = a+1 .. a+t with equal chance, with (p-1-a) of its tied partners
    # above it; its term [s + (p-1-a) r] / (p-1) is averaged over p (position 1 has no term).
    harmonic = np.concatenate([[0.0], np.cumsum(1.0 / np.arange(1, n + 1))])
    lo = np.maximum(a, 1)
    hi = a + t - 1
    valid = hi >= lo
    h = np.where(valid, harmonic[hi] - harmonic[np.maximum(lo - 1, 0)], 0.0)
    k = np.where(valid, hi - lo + 1, 0)
    expected = ((s - a * r) * h + r * k) / t
    return float(expected.sum() / (n - 1))


STATISTICS: dict[str, Callable[..., float]] = {"kendall_tau": kendall_tau, "tau_ap": tau_ap,
                                               "spearman_rho": spearman_rho}


def correlations(x, y, decimals: int | None = DECIMALS) -> dict[str, np.ndarray]:
    """Every statistic for each column of two (systems x measures) score arrays.

    Column m of `x` and of `y` holds the systems' scores on measure m; `x` is the reference
    (it matters for tau_ap only). Adds "kendall_tau_a" for comparison with tau-b.

    Example:
        >>> c = correlations([[0.3, 1], [0.2, 2], [0.1, 3]], [[0.9, 1], [0.5, 2], [0.7, 3]])
        >>> [round(float(v), 4) for v in c["kendall_tau"]], [float(v) for v in c["tau_ap"]]
        ([0.3333, 1.0], [0.5, 1.0])
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.ndim == 1:
        x, y = x[:, None], y[:, None]
    if x.shape != y.shape or x.ndim != 2:
        raise InvalidOptionError("expected two (systems x measures) arrays of one shape, got "
                                 f"{x.shape} and {y.shape}")
    cols = range(x.shape[1])
    out = {name: np.array([fn(x[:, m], y[:, m], decimals=decimals) for m in cols])
           for name, fn in STATISTICS.items()}
    out["kendall_tau_a"] = np.array([kendall_tau(x[:, m], y[:, m], "a", decimals) for m in cols])
    return out


def ranks(x, decimals: int | None = DECIMALS) -> np.ndarray:
    """Competition ranks, best = 1; tied systems share the best of their places.

    Example:
        >>> ranks([0.5, 0.9, 0.5, 0.1]).tolist()
        [2, 1, 2, 4]
    """
    x = _snap(x, decimals)
    return (x[None, :] > x[:, None]).sum(axis=1) + 1


@dataclass(frozen=True)
class RankChanges:
    """Each system's rank under `x` and under `y`; `change` = rank_y - rank_x (> 0: it fell)."""

    rank_x: np.ndarray
    rank_y: np.ndarray

    @property
    def change(self) -> np.ndarray:
        return self.rank_y - self.rank_x

    def largest(self, k: int | None = None) -> np.ndarray:
        """Indices of the k largest moves (either way), ties by the better rank under x."""
        order = np.lexsort((self.rank_x, -np.abs(self.change)))
        return order if k is None else order[:k]


def rank_changes(x, y, decimals: int | None = DECIMALS) -> RankChanges:
    """How each system's rank moves from the ranking by `x` to the ranking by `y`.

    Example:
        >>> rc = rank_changes([0.4, 0.3, 0.2, 0.1], [0.4, 0.1, 0.2, 0.3])
        >>> rc.change.tolist(), rc.largest(2).tolist()
        ([0, 2, 0, -2], [1, 3])
    """
    x, y = _pair(x, y, decimals)
    return RankChanges(ranks(x, None), ranks(y, None))
