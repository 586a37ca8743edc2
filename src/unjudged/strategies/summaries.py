"""Summaries of bootstrap samples: moments, the mode, percentiles, point estimates, and fitting
the quantile that best predicts known truths."""

from __future__ import annotations

import numpy as np

from unjudged.errors import InvalidOptionError

STATS = ("mean", "mode", "std", "p5", "p25", "p50", "p75", "p90", "p95")
_PERCENTILES = (5, 25, 50, 75, 90, 95)
_DECIMALS = 12  # values equal to 12 decimals are one value for the mode (float noise)


def mode(samples: np.ndarray) -> np.ndarray:
    """The most frequent value along axis 0 (the smallest of equally frequent ones); NaN where
    there are no samples.

    Example:
        >>> mode(np.array([[1.0, 0.5], [2.0, 0.5], [2.0, 0.25]])).tolist()
        [2.0, 0.5]
        >>> mode(np.zeros((3, 0, 2))).shape, mode(np.zeros((0, 2))).tolist()
        ((0, 2), [nan, nan])
    """
    b = samples.shape[0]
    if samples.size == 0:  # no topic, or no iteration: nothing is most frequent
        return np.full(samples.shape[1:], np.nan)
    cols = samples.reshape(b, -1).T
    return _mode_of_sorted(np.sort(cols, axis=-1)).reshape(samples.shape[1:])


def _mode_of_sorted(ordered: np.ndarray) -> np.ndarray:
    """mode() of each row of `ordered` (rows, b), each row sorted ascending (rounding keeps
    the order: sorted and then rounded is rounded and then sorted)."""
    s = np.round(ordered, _DECIMALS)
    b = s.shape[-1]
    if s.size == 0:  # no column, or no iteration: nothing is most frequent
        return np.full(s.shape[0], np.nan)
    new = np.ones(s.shape, dtype=bool)
    new[:, 1:] = s[:, 1:] != s[:, :-1]
    starts = np.flatnonzero(new.ravel())
    lengths = np.diff(np.append(starts, s.size))
    col = starts // b
    order = np.lexsort((-lengths, col))  # per column: longest run, then smallest value
    first = order[np.r_[True, col[order][1:] != col[order][:-1]]]
    return s.ravel()[starts[first]]


#: seed 000's "most likely score" (the authors' code, webis-de/ECIR-23,
#: parametrized_bootstrapping_model.py, BootstrappingBySelectingMostLikelyDataPoint): 20 bins of
#: width 0.05 over the samples rescaled to [0, 1], right-closed ((0.05, 0.1] ...; the first
#: takes 0), exactly these floats
_ML_BORDERS = np.arange(5, 101, 5) / 100
_ML_FLAT = 0.0001  # samples spanning at most this are one bin


def _fullest_bins(samples: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """(b, cols) bool: of the `keep` samples of each column, rescaled to [0, 1] by their own
    minimum and maximum and put in the 20 bins, those in a bin holding the most (every such bin
    when several tie)."""
    b, n = samples.shape
    lo = np.where(keep, samples, np.inf).min(axis=0)
    hi = np.where(keep, samples, -np.inf).max(axis=0)
    span = hi - lo
    flat = ~(span > _ML_FLAT)  # one bin, as in the authors' code (also: nothing kept)
    with np.errstate(invalid="ignore", divide="ignore"):
        scaled = (samples - lo) / np.where(flat, 1.0, span)
    # the first border at or above the scaled value: bins are (b_{k-1}, b_k]
    bins = np.searchsorted(_ML_BORDERS, np.where(keep & ~flat, scaled, 0.0), side="left")
    bins = np.minimum(bins, len(_ML_BORDERS) - 1)  # kept samples never exceed 1; others: any
    cells = np.arange(n) * len(_ML_BORDERS) + bins
    counts = np.bincount(cells[keep], minlength=n * len(_ML_BORDERS)).reshape(n, -1)
    fullest = counts.max(axis=1)
    return keep & (counts[np.arange(n), bins] == fullest)


def most_likely(samples: np.ndarray) -> np.ndarray:
    """Seed 000's "most likely score" along axis 0: put the samples in 20 equal bins between
    their minimum and maximum, keep the fullest bin(s), bin those kept again between their own
    minimum and maximum, keep the fullest bin(s), and take the largest value kept (the authors'
    procedure; samples spanning at most 0.0001 are one bin). NaN where there are no samples or
    a sample is NaN. Unlike `mode` (the exact most frequent value) it is a value near the
    histogram's peak, and from its top end.

    Example: between 0 and 1 the bin (0.1, 0.15] holds five samples; binned again between
    0.11 and 0.145, (0.11, 0.111) share the first bin, and the larger is the answer (the mode,
    every value being drawn once, is the smallest, 0.0):
        >>> s = np.array([0.0, 0.11, 0.111, 0.112, 0.14, 0.145, 1.0])[:, None]
        >>> most_likely(s).tolist(), mode(s).tolist()
        ([0.111], [0.0])
        >>> most_likely(np.array([[0.2, 0.5], [0.2, 0.7], [0.9, 0.7]])).tolist()
        [0.2, 0.7]
        >>> most_likely(np.zeros((0, 2))).tolist()
        [nan, nan]
    """
    if samples.shape[0] == 0 or samples.size == 0:
        return np.full(samples.shape[1:], np.nan)
    cols = samples.reshape(samples.shape[0], -1)
    missing = np.isnan(cols).any(axis=0)
    keep = ~np.isnan(cols) & ~missing
    for _ in range(2):  # the authors bin twice
        keep = _fullest_bins(cols, keep)
    best = np.where(keep, cols, -np.inf).max(axis=0)
    return np.where(missing, np.nan, best).reshape(samples.shape[1:])


def summarise(samples: np.ndarray) -> np.ndarray:
    """(..., 9) statistics over axis 0 in the order of STATS."""
    std = samples.std(axis=0, ddof=1) if samples.shape[0] > 1 else np.zeros(samples.shape[1:])
    pct = np.percentile(samples, _PERCENTILES, axis=0)
    return np.stack([samples.mean(axis=0), mode(samples), std, *pct], axis=-1)


def parse_point(point: str) -> str | float:
    """'mean', 'mode', 'most-likely', 'median' or a quantile written 'q0.75'."""
    if point in ("mean", "mode", "most-likely", "median"):
        return point
    if point.startswith("q"):
        try:
            q = float(point[1:])
        except ValueError:
            q = -1.0
        if 0.0 <= q <= 1.0:
            return q
    raise InvalidOptionError(f"point must be mean, mode, median or q<level> such as q0.75 "
                             f"(or most-likely), not {point!r}")


def point_estimate(samples: np.ndarray, point: str | float) -> np.ndarray:
    """One value per column of `samples` (axis 0 = iterations)."""
    if point == "mean":
        return samples.mean(axis=0)
    if point == "mode":
        return mode(samples)
    if point == "most-likely":
        return most_likely(samples)
    if point == "median":
        return np.median(samples, axis=0)
    return np.quantile(samples, float(point), axis=0)


def fit_quantile(samples: np.ndarray, truth: np.ndarray,
                 grid: np.ndarray | None = None) -> tuple[float, float]:
    """The quantile level of the bootstrap distributions (b, pairs) that predicts the known
    `truth` (pairs,) with the least squared error: (level, RMSE)."""
    grid = np.round(np.linspace(0.0, 1.0, 101), 2) if grid is None else np.asarray(grid)
    q = np.quantile(samples, grid, axis=0)  # (levels, pairs)
    rmse = np.sqrt(((q - truth[None, :]) ** 2).mean(axis=1))
    best = int(np.argmin(rmse))
    return float(grid[best]), float(rmse[best])


def cross_validated_quantile(samples: np.ndarray, truth: np.ndarray, groups: np.ndarray,
                             folds: int = 5) -> tuple[float, float]:
    """Fit the quantile on all pairs, and its out-of-sample RMSE when each fold of `groups`
    (e.g. topics) is predicted with the level fitted on the other folds: (level, CV RMSE)."""
    names, code = np.unique(groups, return_inverse=True)
    fold = code % max(1, min(folds, len(names)))
    err = np.zeros(truth.shape)
    for f in np.unique(fold):
        train, test = fold != f, fold == f
        if not train.any():
            level = 0.5
        else:
            level, _ = fit_quantile(samples[:, train], truth[train])
        err[test] = np.quantile(samples[:, test], level, axis=0) - truth[test]
    level, _ = fit_quantile(samples, truth)
    return level, float(np.sqrt((err ** 2).mean())) if err.size else float("nan")


def interval(samples: np.ndarray, level: float, point: np.ndarray) -> np.ndarray:
    """(..., 2) equal-tailed interval of `level` over axis 0, widened where needed to contain
    the point estimate (a mode or a fitted quantile may lie outside it); NaN where there are
    no samples.

    Example:
        >>> s = np.arange(101, dtype=float)[:, None]
        >>> interval(s, 0.9, np.array([50.0])).round(6).tolist()
        [[5.0, 95.0]]
        >>> interval(s, 0.9, np.array([99.0])).round(6).tolist()
        [[5.0, 99.0]]
    """
    if samples.shape[0] == 0:
        return np.full(samples.shape[1:] + (2,), np.nan)
    tail = (1.0 - level) / 2.0
    lo, hi = np.quantile(samples, [tail, 1.0 - tail], axis=0)
    with np.errstate(invalid="ignore"):
        return np.stack([np.fmin(lo, point), np.fmax(hi, point)], axis=-1)


def describe(samples: np.ndarray, point: str | float, level: float
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(summarise, point_estimate, interval) of `samples` in one pass: the percentiles and
    the interval's tails come from one quantile call, and a mean or mode point estimate is
    the statistic already computed (every run of every estimate goes through here).

    Example:
        >>> s = np.arange(101, dtype=float)[:, None]
        >>> stats, value, lohi = describe(s, "mean", 0.9)
        >>> value.tolist(), lohi.round(6).tolist(), stats[0, 3:].tolist()
        ([50.0], [[5.0, 95.0]], [5.0, 25.0, 50.0, 75.0, 90.0, 95.0])
    """
    if samples.shape[0] == 0:
        value = point_estimate(samples, point)
        return summarise(samples), value, interval(samples, level, value)
    b, shape = samples.shape[0], samples.shape[1:]
    cols = samples.reshape(b, -1)
    blocks = column_blocks(b, cols.shape[1])
    if len(blocks) == 1:
        return _describe(samples, point, level)
    # a slice of columns at a time: every statistic is a function of its column alone, and
    # the quantiles, the mode's sort and the contiguous copies would each take the size of
    # all the samples (100,000 topics x b = 1,000: 0.8 GB apiece)
    parts = [_describe(cols[:, s], point, level) for s in blocks]
    return tuple(np.concatenate([p[i] for p in parts]).reshape(shape + parts[0][i].shape[1:])
                 for i in range(3))  # type: ignore[return-value]


_COLUMN_CELLS = 1 << 21  # samples summarised at once (16 MB of float64)


def column_blocks(b: int, columns: int) -> list[slice]:
    """Slices of `columns` columns of `b` draws each, about _COLUMN_CELLS draws a slice: what
    a statistic of each column alone works through to keep its temporaries small.

    Example:
        >>> column_blocks(1 << 20, 5)
        [slice(0, 2, None), slice(2, 4, None), slice(4, 5, None)]
    """
    step = max(1, _COLUMN_CELLS // max(b, 1))
    return [slice(a, min(a + step, columns)) for a in range(0, max(columns, 1), step)]


def _describe(samples: np.ndarray, point: str | float, level: float
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    tail = (1.0 - level) / 2.0
    levels = [p / 100 for p in _PERCENTILES] + [tail, 1.0 - tail]
    # each statistic's draws contiguous: summed along a strided axis, a mean would depend in
    # its last bit on the other cells (measures) drawn beside it
    along = np.ascontiguousarray(np.moveaxis(samples, 0, -1))
    # sorted once: the quantiles (order statistics: the same values as from the samples in
    # any order) and the mode read the same sorted draws (a partition along the strided axis
    # and a second sort took most of describing a run)
    ordered = np.sort(along, axis=-1)
    q = sorted_quantiles(ordered.reshape(-1, samples.shape[0]), levels)
    q = q.reshape((len(levels),) + samples.shape[1:])
    mean = along.mean(axis=-1)
    most = _mode_of_sorted(ordered.reshape(-1, samples.shape[0])).reshape(samples.shape[1:])
    std = along.std(axis=-1, ddof=1) if samples.shape[0] > 1 else np.zeros(samples.shape[1:])
    stats = np.stack([mean, most, std, *q[:len(_PERCENTILES)]], axis=-1)
    value = mean if point == "mean" else most if point == "mode" else \
        point_estimate(samples, point)
    with np.errstate(invalid="ignore"):
        lohi = np.stack([np.fmin(q[-2], value), np.fmax(q[-1], value)], axis=-1)
    return stats, value, lohi


def sorted_quantiles(ordered: np.ndarray, levels: list[float]) -> np.ndarray:
    """(levels, rows) np.quantile(ordered, levels, axis=-1) of rows sorted ascending (NaNs
    last, as np.sort puts them), without the partition np.quantile makes of them again: the
    same linear interpolation between the same order statistics, step by step, so the same
    floats (a row holding a NaN gives NaN).

    Example:
        >>> x = np.sort(np.random.default_rng(0).random((3, 11)), axis=-1)
        >>> bool((sorted_quantiles(x, [0.05, 0.5, 1.0]) == np.quantile(x, [0.05, 0.5, 1.0],
        ...                                                           axis=-1)).all())
        True
    """
    n = ordered.shape[-1]
    q = np.asarray(levels, dtype=np.float64)
    if n == 0 or ordered.shape[0] == 0:
        return np.quantile(ordered, q, axis=-1)
    virtual = (n - 1) * q  # numpy's "linear" method (Hyndman and Fan's 7th)
    below = np.floor(virtual)
    after = below + 1
    top = virtual >= n - 1
    below[top], after[top] = -1, -1  # past the last: the maximum
    low = virtual < 0
    below[low], after[low] = 0, 0
    prev, nxt = below.astype(np.intp), after.astype(np.intp)
    gamma = (virtual - prev)[:, None]  # (levels, 1), as numpy reshapes it
    a, b = ordered[:, prev].T, ordered[:, nxt].T  # (levels, rows)
    diff = b - a
    out = np.add(a, diff * gamma)
    np.subtract(b, diff * (1 - gamma), out=out, where=gamma >= 0.5)
    nans = np.isnan(ordered[:, -1])
    if nans.any():
        out[:, nans] = ordered[nans, -1]
    return out
