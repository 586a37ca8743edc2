"""Comparisons of runs under the bootstrap's coupled draws: P(A > B) and rank intervals.

    pair_probabilities(samples) -> P        P[a, b] = share of iterations where a beats b
    rank_intervals(samples, level) -> (runs, 2) interval of each run's rank, 1 = best
    pair_rows(names, measure, samples)      P(A > B) as rows run_a, run_b, measure, p_a_better
    uncertain_pairs(P, threshold)           pairs whose order is settled in neither direction

`samples` is (b, runs): the run-level score of each run (one measure) in each bootstrap
iteration, drawn jointly, so that iteration i of every run comes from the same coupled draw
(a document retrieved by several runs has the same grade in all of them). Comparing runs
iteration by iteration is what makes P(A > B) a statement about the pair, not about two
separate intervals.

Scores equal to 12 decimals are one score (float noise): neither beats the other, and both get
the better rank ("min" ranking). A missing score (NaN, a measure the strategy does not apply
to) counts as below every score: it is beaten by every run that has one and ties with other
missing ones. The share of ties is 1 - P[a, b] - P[b, a].
"""

from __future__ import annotations

from typing import Any

import numpy as np

from unjudged.errors import InvalidOptionError

_DECIMALS = 12  # scores equal to 12 decimals are the same score
#: runs compared at once: a chunk of (b, chunk, runs) booleans stays small
_CHUNK_CELLS = 1 << 24


def _scores(samples: np.ndarray) -> np.ndarray:
    """(b, runs) floats rounded to 12 decimals, NaN as -inf (below every score)."""
    s = np.asarray(samples, dtype=float)
    if s.ndim != 2:
        raise InvalidOptionError(f"samples must be (iterations, runs), not of shape {s.shape}")
    return np.where(np.isnan(s), -np.inf, np.round(s, _DECIMALS))


def pair_probabilities(samples: np.ndarray) -> np.ndarray:
    """(runs, runs) P[a, b]: the share of the iterations (rows of `samples`) in which run a's
    score is strictly greater than run b's. The diagonal is 0; with no iteration, NaN.

    Example (3 runs, 4 coupled iterations; C ties B in iterations 1 and 4):
        >>> s = np.array([[0.5, 0.3, 0.3],
        ...               [0.4, 0.6, 0.2],
        ...               [0.7, 0.1, 0.2],
        ...               [0.2, 0.2, 0.2]])
        >>> pair_probabilities(s).tolist()
        [[0.0, 0.5, 0.75], [0.25, 0.0, 0.25], [0.0, 0.25, 0.0]]
    """
    s = _scores(samples)
    b, n = s.shape
    if b == 0:
        return np.full((n, n), np.nan)
    runs = np.ascontiguousarray(s.T)  # (runs, b): each comparison sums a contiguous row
    wins = np.zeros((n, n), dtype=np.int64)
    step = max(1, _CHUNK_CELLS // max(1, b * n))
    for start in range(0, n, step):  # a few runs at a time: memory step x n x b
        a = runs[start:start + step]
        wins[start:start + step] = (a[:, None, :] > runs[None, :, :]).sum(axis=-1)
    return wins / b


def _ranks(s: np.ndarray) -> np.ndarray:
    """(b, runs) rank of each run in each iteration: 1 + the number of runs with a greater
    score (ties share the best rank)."""
    b, n = s.shape
    order = np.argsort(-s, axis=1, kind="stable")
    v = np.take_along_axis(s, order, axis=1)  # descending per iteration
    pos = np.broadcast_to(np.arange(n), (b, n))
    new = np.ones((b, n), dtype=bool)
    new[:, 1:] = v[:, 1:] != v[:, :-1]
    first = np.maximum.accumulate(np.where(new, pos, 0), axis=1)  # first of each tied block
    ranks = np.empty((b, n), dtype=np.int64)
    np.put_along_axis(ranks, order, first + 1, axis=1)
    return ranks


def rank_intervals(samples: np.ndarray, level: float = 0.9) -> np.ndarray:
    """(runs, 2) int: the equal-tailed `level` interval [lo, hi] of each run's rank over the
    iterations (1 = best; tied scores share the best rank). lo is the best rank such that at
    most (1 - level) / 2 of the iterations rank the run better than lo; hi the worst rank
    such that at most that share ranks it worse than hi (so each end is a rank the run took).

    Example (the 3 runs x 4 iterations of pair_probabilities; ranks per iteration:
    A 1,2,1,1; B 2,1,3,1; C 2,3,2,1):
        >>> s = np.array([[0.5, 0.3, 0.3], [0.4, 0.6, 0.2], [0.7, 0.1, 0.2], [0.2, 0.2, 0.2]])
        >>> rank_intervals(s, 0.5).tolist()
        [[1, 1], [1, 2], [2, 2]]
        >>> rank_intervals(s, 1.0).tolist()
        [[1, 2], [1, 3], [1, 3]]
    """
    if not 0.0 < level <= 1.0:
        raise InvalidOptionError(f"the rank interval's level must be in (0, 1], not {level}")
    s = _scores(samples)
    b, n = s.shape
    if b == 0 or n == 0:
        return np.zeros((n, 2), dtype=np.int64)
    ranks = _ranks(s)
    # counts[r, k]: iterations in which run r had rank k + 1; cum[r, k]: rank <= k + 1
    counts = np.bincount((np.arange(n) * n + (ranks - 1)).ravel(), minlength=n * n)
    cum = np.cumsum(counts.reshape(n, n), axis=1)
    tail = (1.0 - level) / 2.0 * b + 1e-9 * b  # float noise in level * b is not a draw
    lo = 1 + (cum <= tail).sum(axis=1)
    hi = 1 + (b - cum > tail).sum(axis=1)
    return np.stack([lo, hi], axis=1).astype(np.int64)


def pair_rows(names: list[str], measure_name: str, samples: np.ndarray) -> list[dict[str, Any]]:
    """P(A > B) for every ordered pair of different runs, A in the order of `names` and B in
    the same order within each A: dicts run_a, run_b, measure, p_a_better. Both directions
    are listed, so P(B > A) is the row of (B, A), and ties are 1 - the two.

    Example:
        >>> s = np.array([[0.5, 0.3], [0.4, 0.6], [0.7, 0.1], [0.2, 0.2]])
        >>> for r in pair_rows(["A", "B"], "P@10", s):
        ...     print(r)
        {'run_a': 'A', 'run_b': 'B', 'measure': 'P@10', 'p_a_better': 0.5}
        {'run_a': 'B', 'run_b': 'A', 'measure': 'P@10', 'p_a_better': 0.25}
    """
    if len(names) != np.shape(samples)[1]:
        raise InvalidOptionError(f"{len(names)} run names for {np.shape(samples)[1]} runs")
    p = pair_probabilities(samples)
    return [{"run_a": a, "run_b": b, "measure": measure_name, "p_a_better": float(p[i, j])}
            for i, a in enumerate(names) for j, b in enumerate(names) if i != j]


def uncertain_pairs(p: np.ndarray, threshold: float = 0.95) -> np.ndarray:
    """(k, 2) int: the pairs (a, b), a < b, whose order is uncertain: neither P[a, b] nor
    P[b, a] reaches `threshold`. NaN probabilities (no iteration) count as uncertain.

    Example (the P of pair_probabilities' example: A beats C in 3 of 4 iterations):
        >>> p = np.array([[0.0, 0.5, 0.75], [0.25, 0.0, 0.25], [0.0, 0.25, 0.0]])
        >>> uncertain_pairs(p).tolist(), uncertain_pairs(p, 0.75).tolist()
        ([[0, 1], [0, 2], [1, 2]], [[0, 1], [1, 2]])
    """
    p = np.asarray(p, dtype=float)
    settled = np.nan_to_num(np.fmax(p, p.T), nan=0.0) >= threshold - 1e-12
    a, b = np.nonzero(np.triu(~settled, k=1))
    return np.stack([a, b], axis=1).astype(np.int64)
