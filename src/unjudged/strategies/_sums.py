"""The growth's deep documents drawn as sums, vectorised over topics (unjudged.strategies.growth).

Per topic, iteration and grade g >= 1, how many of the topic's deep unjudged documents take
grade g is a sum of Bernoulli variates whose probabilities the iteration's log-odds shift moves
together. It is drawn as a normal of that sum's mean and variance, which are computed at GRID
shifts spanning the topic's shifts and interpolated linearly between them (numpy.interp's
formula, so the interpolated values are those a per-topic np.interp gives).

A loop per topic cost 12 ms a topic at b = 10,000 (30 topics of one TREC-COVID run: 0.35 s,
the most of estimating a run alone); blocks of whole topics, each a few array operations, cost
a tenth of that, and memory stays bounded by _CELLS per block whatever the number of topics.

Example:
    >>> logit = np.zeros((4, 1))  # four documents, one relevant grade, P = 1/2 each
    >>> drawn = drawn_sums(logit, np.array([0, 0, 0, 1]), np.zeros((3, 2)), np.ones((3, 2, 1)))
    >>> drawn[:, :, 0].tolist()  # mean 1.5 + sd 0.87 -> 2 (of 3); 0.5 + 0.5 -> 1 (of 1)
    [[2.0, 1.0], [2.0, 1.0], [2.0, 1.0]]
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from threading import Lock

import numpy as np

#: topics of at most this many distinct rows draw from their sums' moments at each shift itself
FEW = 4
GRID = 65  # shifts at which the sums' means and variances are computed (interpolated between)
_CELLS = 1 << 22  # float64 cells of a block's temporaries


def drawn_sums(logit: np.ndarray, owner: np.ndarray, shifts: np.ndarray,
               variates: np.ndarray | Callable[[int, int], np.ndarray]) -> np.ndarray:
    """(b, topics, grades) drawn counts of each grade g >= 1 (see blocks_of_sums)."""
    b, n = shifts.shape
    out = np.zeros((b, n, logit.shape[-1]))
    for a, z, drawn in blocks_of_sums(logit, owner, shifts, variates):
        out[:, a:z] = drawn
    return out


def blocks_of_sums(logit: np.ndarray, owner: np.ndarray, shifts: np.ndarray,
                   variates: np.ndarray | Callable[[int, int], np.ndarray]
                   ) -> Iterator[tuple[int, int, np.ndarray]]:
    """(a, z, drawn counts (b, z - a, grades) of topics a..z-1) in blocks of topics:
    `logit` (rows, grades) the log-odds of P(grade >= g), g >= 1, of each deep document,
    `owner` (rows,) its topic, `shifts` (b, topics) the iterations' log-odds shifts,
    `variates` (b, topics, grades) standard normals (or a function of a, z that gives
    those of topics a..z-1). A count is rounded, at least 0, and never makes more documents
    of a grade or better than the topic has."""
    b, n = shifts.shape
    grades = logit.shape[-1]
    docs = np.bincount(owner, minlength=n)
    owner, logit, weight = _distinct(owner, logit)
    lo, hi = shifts.min(axis=0), shifts.max(axis=0)
    points = GRID if bool((hi > lo).any()) else 1
    grid = np.linspace(lo, hi, points, axis=-1)  # (topics, points)
    grid[hi <= lo] = lo[hi <= lo, None]  # one shift: every point is it
    distinct = np.bincount(owner, minlength=n)
    few = (distinct > 0) & (distinct <= FEW)
    interpolated = ~few[owner]
    moments = _moments(logit[interpolated], weight[interpolated], owner[interpolated], grid, n)
    rows, weights = _padded(owner[~interpolated], logit[~interpolated], weight[~interpolated], n)
    step = max(1, _CELLS // max(b * grades * 4 * max(rows.shape[1], 1), 1))
    for a in range(0, n, step):
        z = min(n, a + step)
        exact = few[a:z]
        if exact.all():
            both = _exact(shifts[:, a:z], rows[a:z], weights[a:z])
        elif not exact.any():
            both = _interp(shifts[:, a:z], grid[a:z], moments[a:z])
        else:
            both = np.empty((b, z - a, 2 * grades))
            both[:, exact] = _exact(shifts[:, a:z][:, exact], rows[a:z][exact],
                                    weights[a:z][exact])
            both[:, ~exact] = _interp(shifts[:, a:z][:, ~exact], grid[a:z][~exact],
                                      moments[a:z][~exact])
        m, v = both[..., :grades], both[..., grades:]
        above = np.sqrt(v)
        above *= variates(a, z) if callable(variates) else variates[:, a:z]
        above += m
        np.rint(above, out=above)
        np.maximum(above, 0, out=above)
        # never more documents of a grade or better than there are (the normal's tail
        # would, for a topic with few of them); one add per grade (a cumsum along a short
        # last axis pays a loop per row)
        for g in range(grades - 2, -1, -1):
            above[..., g] += above[..., g + 1]
        np.minimum(above, docs[a:z, None], out=above)
        above[..., :-1] -= above[..., 1:]
        yield a, z, above


def _padded(owner: np.ndarray, logit: np.ndarray, weight: np.ndarray, n: int
            ) -> tuple[np.ndarray, np.ndarray]:
    """(topics, k, grades) each topic's distinct rows (`owner` sorted), padded to the most
    any has, and (topics, k) their weights (0 for padding)."""
    count = np.bincount(owner, minlength=n)
    k = int(count.max(initial=0))
    rows = np.zeros((n, k, logit.shape[-1]))
    weights = np.zeros((n, k))
    at = np.arange(owner.size) - np.repeat(np.cumsum(count) - count, count)
    rows[owner, at] = logit
    weights[owner, at] = weight
    return rows, weights


def _exact(x: np.ndarray, rows: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """(b, topics, 2 grades) the sums' means, then variances, at the shifts x (b, topics)
    themselves: for topics of a few distinct rows (topics, k, grades) this is cheaper than a
    grid and exact."""
    p, pq = _probabilities(x, rows)
    w = weights[None, :, :, None]
    out = np.empty(p.shape[:2] + (2 * p.shape[-1],))
    g = p.shape[-1]
    if p.shape[2] == 1:  # one row a topic (a run alone): no sum
        np.multiply(p[:, :, 0], w[:, :, 0], out=out[..., :g])
        np.multiply(pq[:, :, 0], w[:, :, 0], out=out[..., g:])
        return out
    out[..., :g] = (p * w).sum(axis=2)
    out[..., g:] = (pq * w).sum(axis=2)
    return out


def _probabilities(x: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(P(grade = g), P(g)(1 - P(g))), each (b, topics, k, grades), of the rows (topics, k,
    grades) at the shifts x (b, topics). The last ones are kept: runs estimated alone share
    the topics' shifts and (under the pool rate) their rows, and differ in the weights only."""
    with _kept_lock:
        kept = _kept[0] if _kept else None
    if kept is not None and kept[0].shape == x.shape and kept[1].shape == rows.shape \
            and np.array_equal(kept[1], rows) and np.array_equal(kept[0], x):
        return kept[2], kept[3]
    with np.errstate(over="ignore"):
        tail = 1.0 / (1.0 + np.exp(-(rows[None] + x[..., None, None])))  # (b, topics, k, g)
    p = tail.copy()
    p[..., :-1] -= tail[..., 1:]
    pq = p * (1.0 - p)
    if 2 * p.size <= _KEPT_CELLS:
        for a in (p, pq):
            a.setflags(write=False)
        with _kept_lock:
            _kept[:] = [(x.copy(), rows.copy(), p, pq)]
    return p, pq


_KEPT_CELLS = 1 << 22  # probabilities kept at most (32 MB)
_kept: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
_kept_lock = Lock()


def _distinct(owner: np.ndarray, logit: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(owner, logit, weight): the documents of a topic with the same probabilities once,
    weighted by how many they are, sorted by topic (a run alone, or the pool prior: one row
    per topic; the position prior: one per best rank and vote count)."""
    order = np.lexsort((*logit.T[::-1], owner))
    owner, logit = owner[order], logit[order]
    new = np.r_[True, (owner[1:] != owner[:-1]) | (logit[1:] != logit[:-1]).any(axis=-1)] \
        if owner.size else np.zeros(0, bool)
    first = np.flatnonzero(new)
    weight = np.diff(np.r_[first, owner.size]).astype(np.float64)
    return owner[first], logit[first], weight


def _moments(logit: np.ndarray, weight: np.ndarray, owner: np.ndarray, grid: np.ndarray,
             n: int) -> np.ndarray:
    """(topics, points, 2 grades) sums over each topic's documents (`weight` times each row)
    of P(grade = g), then of P(g)(1 - P(g)), at each of its grid's shifts; `owner` sorted."""
    points, grades = grid.shape[-1], logit.shape[-1]
    out = np.zeros((n, points, 2 * grades))
    rows = max(1, _CELLS // (points * grades * 3))
    for a in range(0, owner.size, rows):
        z = min(owner.size, a + rows)
        mine = owner[a:z]
        first = np.flatnonzero(np.r_[True, mine[1:] != mine[:-1]])
        ts = mine[first]  # each topic once (owners sorted)
        with np.errstate(over="ignore"):
            tail = 1.0 / (1.0 + np.exp(-(logit[a:z, None, :] + grid[mine][..., None])))
        p = tail.copy()
        p[..., :-1] -= tail[..., 1:]  # P(g) = P(>= g) - P(>= g + 1)
        w = weight[a:z, None, None]
        out[ts, :, :grades] += np.add.reduceat(p * w, first, axis=0)
        out[ts, :, grades:] += np.add.reduceat(p * (1.0 - p) * w, first, axis=0)
    return out


def _interp(x: np.ndarray, grid: np.ndarray, f: np.ndarray) -> np.ndarray:
    """(b, topics, grades) f interpolated at x (b, topics), within each topic's increasing
    `grid` (topics, points), f (topics, points, grades): numpy.interp's formula (slope times
    the distance from the point at or below, plus its value; the value itself at a point)."""
    points = grid.shape[-1]
    cols = np.arange(grid.shape[0])
    if points == 1:
        return np.broadcast_to(f[:, 0], x.shape + f.shape[-1:]).copy()
    width = grid[:, -1] - grid[:, 0]
    with np.errstate(divide="ignore", invalid="ignore"):
        # (a topic of one shift has every point at it: the last, as numpy's search finds)
        guess = np.where(width > 0, (x - grid[:, 0]) / width * (points - 1), points - 1)
    j = np.clip(np.floor(guess).astype(np.int64), 0, points - 1)
    # the point at or below x exactly as a binary search finds it: on an evenly spaced grid
    # (ours) the guess is at most one off; any increasing grid converges here
    while True:
        down = (j > 0) & (grid[cols, j] > x)
        up = (j < points - 1) & (grid[cols, np.minimum(j + 1, points - 1)] <= x)
        if not (down.any() or up.any()):
            break
        j += up.astype(np.int64) - down
    at = grid[cols, j]
    nxt = np.minimum(j + 1, points - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        slope = (f[cols, nxt] - f[cols, j]) / (grid[cols, nxt] - at)[..., None]
        value = slope * (x - at)[..., None] + f[cols, j]
    exact = (j == points - 1) | (x == at)
    return np.where(exact[..., None], f[cols, j], value)
