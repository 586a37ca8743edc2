"""The few distinct rankings of a sampled batch.

In a batch of b iterations only the unjudged cells of a topic change from one iteration to the
next, and they take few grades: a topic with u unjudged documents in the top k has at most
levels^u different rankings, however many iterations are drawn. A kernel that is a function
of each ranking alone (nDCG's DCG) can compute it once per distinct ranking and gather: the
values are the kernel's own, computed on the same rows (a row's sum does not depend on the
rows beside it), so they are identical to the last bit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from unjudged.data.judged import Judged


@dataclass(eq=False)
class Rows:
    """Every (iteration, topic) ranking of a batch as a row of `table`: table[index[i, t]]."""

    table: np.ndarray  # (rows, depth) grades
    index: np.ndarray  # (iterations, topics) each ranking's row
    memo: dict = field(default_factory=dict)  # shared by every topic slice of the batch

    def topic_slice(self, a: int, b: int) -> Rows:
        return Rows(self.table, self.index[:, a:b], self.memo)

    def per_row(self, key: tuple, of_rows: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        """(iterations, topics) of_rows(table) (a value per row, from each row alone),
        computed once per batch and gathered."""
        if key not in self.memo:
            self.memo[key] = of_rows(self.table)
        return np.take(self.memo[key], self.index)  # twice as fast as [self.index]


@dataclass(eq=False)
class SampledBatch(Judged):
    """A sampled batch (b, topics, depth) that knows its distinct rankings (`rows`). Any
    other batch made from it (with_grades) is a plain Judged: only its topic slices keep
    `rows`, which describe their grades exactly."""

    rows: Rows | None = None

    def topic_slice(self, a: int, b: int) -> Judged:
        part = super().topic_slice(a, b)
        if self.rows is None:
            return part
        return SampledBatch(part.run_name, part.topics, part.grades, part.length, part.pool,
                       part.retrieved, part.policies, self.rows.topic_slice(a, b))


def distinct_rows(base: np.ndarray, grades: np.ndarray, rows: np.ndarray, cols: np.ndarray,
                  served: np.ndarray | None, levels: int) -> Rows:
    """The Rows of `grades` (m, n, depth): `base` (n, depth) with the cells (rows, cols)
    (topic by topic, in rank order) set to `served` (m, cells), grades below `levels`.

    A topic whose possible rankings (levels^unjudged cells) are fewer than the iterations is
    tabulated by every combination of its cells' grades; any other topic keeps one row per
    iteration.

    Example:
        >>> base = np.array([[2, -1, -2], [1, 0, 0]], dtype=np.int16)
        >>> served = np.array([[1, 0], [0, 0], [1, 0], [0, 1]], dtype=np.int16)
        >>> grades = np.repeat(base[None], 4, axis=0)
        >>> grades[:, [0, 0], [1, 2]] = served
        >>> r = distinct_rows(base, grades, np.array([0, 0]), np.array([1, 2]), served, 2)
        >>> r.table.shape, bool((r.table[r.index] == grades).all())
        ((5, 3), True)
    """
    m, n = grades.shape[0], base.shape[0]
    per_topic = np.bincount(rows, minlength=n)
    # levels^u when below m (else m): in floats, the exponent capped at 63 (2^63 exceeds any
    # iteration count) so that a topic of a thousand unjudged cells does not overflow
    size = np.float64(levels) ** np.minimum(per_topic, 63)
    listed = size < m
    count = np.where(listed, size, 0).astype(np.int64)
    offset = np.cumsum(count) - count
    index = np.empty((m, n), dtype=np.int64)
    index[:] = offset
    kept = np.flatnonzero(~listed)
    # the listed topics' tables, then the kept topics' rows, one per iteration and topic, in
    # the order of `grades` (iteration by iteration: a gather of whole rows, not a transpose)
    listed_rows = int(count.sum())
    table = np.empty((listed_rows + m * kept.size,) + base.shape[1:], dtype=base.dtype)
    table[:listed_rows] = np.repeat(base, count, axis=0)
    if kept.size:
        index[:, kept] = listed_rows + np.arange(m * kept.size).reshape(m, kept.size)
        block = table[listed_rows:].reshape((m, kept.size) + base.shape[1:])
        np.take(grades, kept, axis=1, out=block, mode="clip")  # (out: unbuffered)
    cells = np.flatnonzero(listed[rows])
    if cells.size and served is not None:
        # the k-th unjudged cell of its topic is digit k (base `levels`) of the row's code
        first = np.searchsorted(rows, np.arange(n))
        place = np.arange(rows.size) - first[rows]
        weight = np.int64(levels) ** place[cells]
        # (cells, m): a cell's digits in every iteration side by side
        codes = np.take(served.T, cells, axis=0).astype(np.int64)
        codes *= weight[:, None]
        topic = rows[cells]
        starts = np.flatnonzero(np.r_[True, topic[1:] != topic[:-1]])
        # each topic's digits summed place by place (a topic has few cells: a reduceat along
        # the iterations took most of this function)
        lengths = np.diff(np.r_[starts, cells.size])
        code_of = codes[starts]
        for k in range(1, int(lengths.max())):
            more = np.flatnonzero(lengths > k)
            code_of[more] += codes[starts[more] + k]
        index[:, topic[starts]] += code_of.T
        # each listed cell's digit in every row of its topic's table
        reps = count[topic]
        code = _ramp(reps)
        at = np.repeat(offset[topic], reps) + code
        table[at, np.repeat(cols[cells], reps)] = (code // np.repeat(weight, reps)) % levels
    return Rows(table, index)


def _ramp(sizes: np.ndarray) -> np.ndarray:
    """0..s-1 for each s in sizes, concatenated."""
    starts = np.cumsum(sizes) - sizes
    return np.arange(int(sizes.sum()), dtype=np.int64) - np.repeat(starts, sizes)
