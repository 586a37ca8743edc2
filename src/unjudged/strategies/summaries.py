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
    s = np.sort(np.round(cols, _DECIMALS), axis=-1)
    new = np.ones(s.shape, dtype=bool)
    new[:, 1:] = s[:, 1:] != s[:, :-1]
    starts = np.flatnonzero(new.ravel())
    lengths = np.diff(np.append(starts, s.size))
    col = starts // b
    order = np.lexsort((-lengths, col))  # per column: longest run, then smallest value
    first = order[np.r_[True, col[order][1:] != col[order][:-1]]]
    return s.ravel()[starts[first]].reshape(samples.shape[1:])


def summarise(samples: np.ndarray) -> np.ndarray:
    """(..., 9) statistics over axis 0 in the order of STATS."""
    std = samples.std(axis=0, ddof=1) if samples.shape[0] > 1 else np.zeros(samples.shape[1:])
    pct = np.percentile(samples, _PERCENTILES, axis=0)
    return np.stack([samples.mean(axis=0), mode(samples), std, *pct], axis=-1)


def parse_point(point: str) -> str | float:
    """'mean', 'mode', 'median' or a quantile written 'q0.75'."""
    if point in ("mean", "mode", "median"):
        return point
    if point.startswith("q"):
        try:
            q = float(point[1:])
        except ValueError:
            q = -1.0
        if 0.0 <= q <= 1.0:
            return q
    raise InvalidOptionError(f"point must be mean, mode, median or q<level> such as q0.75, "
                     f"not {point!r}")


def point_estimate(samples: np.ndarray, point: str | float) -> np.ndarray:
    """One value per column of `samples` (axis 0 = iterations)."""
    if point == "mean":
        return samples.mean(axis=0)
    if point == "mode":
        return mode(samples)
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
