"""Judged rankings: per (run, topic) the grades in rank order, with explicit codes for documents
the qrels do not contain and for pooled-but-unjudged ones, plus the per-topic facts of the pool.

Everything is batched over topics as padded 2-D arrays ``(topics, depth)``; kernels may also get
a leading sample axis ``(samples, topics, depth)``, which is how bootstrap estimates reuse them.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from typing import Any, TypeVar

import numpy as np

from unjudged._records import plain
from unjudged.data._memory import check_fits
from unjudged.data.qrels import MISSING, Qrels
from unjudged.data.run import Run
from unjudged.policies import Policies

T = TypeVar("T")

#: Grade codes in a judged ranking. Non-negative values are judged grades.
UNJUDGED = -1  #: in the qrels with a negative grade: pooled but not judged
NONPOOL = -2  #: not in the qrels at all
PAD = -3  #: past the end of the ranking


@plain
class Pool:
    """Per-topic facts of the qrels for the evaluated topics.

    `sorted_grades` holds each topic's judged grades (>= 0) in descending order, padded with -1;
    ideal rankings and relevant counts derive from it. It may carry leading axes (a pool per
    bootstrap iteration, when drawn relevant documents add to the normaliser): every method
    works on the last axis.
    """

    topics: list[str]
    sorted_grades: np.ndarray  # (n, max_judged) int32, descending, -1 padded
    num_unjudged: np.ndarray  # (n,) pooled-but-unjudged documents (negative grades)

    @cached_property
    def num_judged(self) -> np.ndarray:
        return (self.sorted_grades >= 0).sum(axis=-1)

    def num_rel(self, level: int) -> np.ndarray:
        return (self.sorted_grades >= level).sum(axis=-1)

    @cached_property
    def _memo(self) -> dict[tuple, Any]:
        return {}

    def memo(self, key: tuple, make: Callable[[], T]) -> T:
        """make(), computed once per pool and `key`: a bootstrap's grown pool (per iteration,
        see unjudged.strategies.growth) is shared by every run, and its ideal gains cost as
        much as the runs' own (and so are its topic slices)."""
        if key not in self._memo:
            self._memo[key] = make()
        return self._memo[key]

    def ideal_memo(self, depth: int, key: tuple, make: Callable[[], T],
                   of_rows: Callable[[np.ndarray], np.ndarray] | None = None) -> T:
        """memo() of something computed from `ideal_grades(depth)` alone (a grown pool shares
        it with the pools whose best grades are the same, see unjudged.strategies.growth).
        `of_rows`, when given, computes the same from any (rows, depth) ideal grades, row by
        row (a grown pool may apply it to its few distinct rows)."""
        return self.memo(("ideal", depth, *key), make)

    def num_nonrel(self, level: int) -> np.ndarray:
        return self.num_judged - self.num_rel(level)

    def ideal_grades(self, depth: int | None = None) -> np.ndarray:
        """The ideal ranking's grades (n, depth), -1 where no judged document is left."""
        g = self.sorted_grades
        if depth is None or depth <= g.shape[-1]:
            return g if depth is None else g[..., :depth]
        pad = np.full(g.shape[:-1] + (depth - g.shape[-1],), -1, dtype=g.dtype)
        return np.concatenate([g, pad], axis=-1)

    @property
    def ideal_width(self) -> int:
        """How deep an ideal ranking can hold a judged document: past it, every cutoff's
        ideal gains nothing more."""
        return self.sorted_grades.shape[-1]

    @property
    def top_grade(self) -> np.ndarray:
        """Each topic's highest judged grade, -1 when it has none: the scale graded gains
        divide by."""
        return self.ideal_grades(1)[..., 0]

    def topic_slice(self, a: int, b: int) -> Pool:
        return Pool(self.topics[a:b], self.sorted_grades[..., a:b, :], self.num_unjudged[a:b])

    @classmethod
    def build(cls, qrels: Qrels, topics: list[str], negative: str) -> Pool:
        """Gather the evaluated topics' grades from the qrels into one padded array.

        Built from counts per (topic, grade), not by sorting every judgment: grades take a
        handful of values, so each topic's descending list is a few constant runs.
        """
        n = len(topics)
        q = qrels.topic_codes(topics)
        have = q >= 0
        lo = np.zeros(n, dtype=np.int64)
        hi = np.zeros(n, dtype=np.int64)
        lo[have] = qrels.topic_offsets[q[have]]
        hi[have] = qrels.topic_offsets[q[have] + 1]
        sizes = hi - lo
        if np.array_equal(q, np.arange(len(qrels.topics))):  # every qrels topic, in order
            grades = qrels.key_grades
        else:
            grades = qrels.key_grades[np.repeat(lo, sizes) + _ramp(sizes)]
        # sorted distinct grades; np.unique's plain form imports numpy.ma (30 ms a call)
        values = np.unique(grades, return_counts=True)[0]
        row = np.repeat(np.arange(n, dtype=np.int32), sizes)
        counts = np.zeros((n, values.size), dtype=np.int64)
        for j, v in enumerate(values):
            counts[:, j] = np.bincount(row[grades == v], minlength=n)
        del row
        unjudged = np.zeros(n, dtype=np.int64)
        if negative == "nonrel":  # negative grades are judged non-relevant: count them as 0
            values = np.maximum(values, 0)
        else:
            unjudged = counts[:, values < 0].sum(axis=1).astype(np.int64)
            counts[:, values < 0] = 0
        judged = counts.sum(axis=1)
        sg = np.full((n, max(int(judged.max(initial=0)), 1)), -1, dtype=np.int32)
        position = np.arange(sg.shape[1])
        done = np.zeros(n, dtype=np.int64)
        for j in np.argsort(-values, kind="stable"):  # best grade first
            upto = done + counts[:, j]
            sg[(position >= done[:, None]) & (position < upto[:, None])] = values[j]
            done = upto
        return cls(topics=topics, sorted_grades=sg, num_unjudged=unjudged)


def _ramp(sizes: np.ndarray) -> np.ndarray:
    """0..s-1 for each s in sizes, concatenated (the position of each row within its group)."""
    total = int(sizes.sum())
    starts = np.cumsum(sizes) - sizes
    return np.arange(total, dtype=np.int64) - np.repeat(starts, sizes)


@plain
class Judged:
    """A batch of judged rankings of one run over the evaluated topics.

    Attributes:
        run_name: the run's name.
        topics: evaluated topic ids (n).
        grades: (..., n, depth) int16; >= 0 judged grade, UNJUDGED, NONPOOL or PAD.
        length: (n,) documents retrieved per topic after the depth cut (0 for missing topics).
        pool: per-topic facts of the qrels.
        retrieved: (n,) bool, whether the run has the topic at all (False only under -c).
        policies: the policies used to build it.
    """

    run_name: str
    topics: list[str]
    grades: np.ndarray
    length: np.ndarray
    pool: Pool
    retrieved: np.ndarray
    policies: Policies

    @property
    def depth(self) -> int:
        return self.grades.shape[-1]

    def cut(self, k: int | None) -> np.ndarray:
        """Grades of the top k, padded with PAD up to k, or to `cut_width` columns at most:
        past every ranking's end the positions are all PAD, which no measure counts (one that
        divides by k reads its cutoff, not this width), so -m P@1000000 allocates no million
        columns. `padded` pads to any k."""
        return self.padded(None if k is None else cut_width(k, self.grades.shape[-1]))

    def padded(self, k: int | None) -> np.ndarray:
        """Grades of the top k, padded with PAD up to k (for a measure whose user model reads
        positions past the ranking's end, such as the C/W/L measures)."""
        g = self.grades
        if k is None:
            return g
        if k <= g.shape[-1]:
            return g[..., :k]
        check_cutoff(int(np.prod(g.shape[:-1])), g.shape[-1], k)
        pad = np.full(g.shape[:-1] + (k - g.shape[-1],), PAD, dtype=g.dtype)
        return np.concatenate([g, pad], axis=-1)

    def topic_slice(self, a: int, b: int) -> Judged:
        """Topics a..b-1 only (measures work on slices to keep temporaries in cache)."""
        return Judged(self.run_name, self.topics[a:b], self.grades[..., a:b, :],
                      self.length[a:b], self.pool.topic_slice(a, b), self.retrieved[a:b],
                      self.policies)

    def with_grades(self, grades: np.ndarray, length: np.ndarray | None = None) -> Judged:
        """The same batch with other grades (a strategy's output)."""
        return Judged(self.run_name, self.topics, grades,
                      self.length if length is None else length, self.pool, self.retrieved,
                      self.policies)


#: Cutoffs up to this pad the rankings to the cutoff; beyond it, to this or the deepest
#: ranking (trec_eval's depth). The bound keeps every value at the cutoffs in use to the last
#: bit (a sum over more zero cells may differ there) while no cutoff costs more than the
#: rankings and this many columns.
PAD_UP_TO = 1000


def cut_width(k: int, depth: int) -> int:
    """How many columns a cut at k reads of rankings `depth` deep (see PAD_UP_TO).

    Example:
        >>> cut_width(10, 3), cut_width(1_000_000, 3), cut_width(1_000_000, 5000)
        (10, 1000, 5000)
    """
    return k if k <= max(PAD_UP_TO, depth) else max(PAD_UP_TO, depth)


#: Bytes a kernel needs per position of a ranking padded to its cutoff: the grades and a few
#: float64 temporaries of the same shape.
CELL_BYTES = 40


def check_cutoff(rows: int, depth: int, k: int, cell: int = CELL_BYTES) -> None:
    """Refuse a cutoff k beyond the deepest ranking (`depth`) whose padded rankings would not
    fit in memory (InvalidOptionError, one line).

    Example:
        >>> from unjudged.errors import InvalidOptionError
        >>> try:
        ...     check_cutoff(5, 30, 10 ** 12)
        ... except InvalidOptionError as exc:
        ...     print(str(exc).split(" of memory")[0].split(" needs "))
        ['a cutoff of 1000000000000 (the deepest ranking has 30 documents) over 5 rankings', \
'181.9 TiB']
    """
    check_fits(float(rows) * k * cell, f"a cutoff of {k} (the deepest ranking has {depth} "
               f"documents) over {rows} rankings")


def evaluated_topics(run: Run, qrels: Qrels, complete: bool) -> list[str]:
    """trec_eval's choice: run ∩ qrels topics, or every qrels topic with -c."""
    if complete:
        return list(qrels.topics)
    have = run.topic_index
    return [t for t in qrels.topics if t in have]


_CHUNK = 1 << 15  # rows per lookup slice


def judge(run: Run, qrels: Qrels, policies: Policies = Policies(),
          pool: Pool | None = None) -> Judged:
    """Look up every retrieved document's grade and pack the rankings into (topics, depth).

    Example:
        >>> from unjudged.io import read_qrels, read_run
        >>> q = read_qrels({"t": {"a": 1, "b": 0}})
        >>> j = judge(read_run({"t": {"a": 3.0, "x": 2.0, "b": 1.0}}), q)
        >>> j.grades.tolist()
        [[1, -2, 0]]
    """
    topics = evaluated_topics(run, qrels, policies.complete)
    if pool is None:
        pool = Pool.build(qrels, topics, policies.negative)
    n = len(topics)
    run_idx = run.topic_codes(topics)
    q_idx = qrels.topic_codes(topics)
    retrieved = run_idx >= 0
    lengths = np.zeros(n, dtype=np.int64)
    lengths[retrieved] = run.lengths()[run_idx[retrieved]]
    if policies.depth is not None:
        lengths = np.minimum(lengths, policies.depth)
    depth = int(lengths.max(initial=0))
    # Every position inside a ranking starts as NONPOOL, past its end as PAD; then only the
    # rows whose document the qrels know (a few percent) are looked up and written.
    packed = np.full((n, max(depth, 1)), NONPOOL, dtype=np.int16)
    if depth == 0 or not np.all(lengths == depth):
        packed[np.arange(packed.shape[1]) >= lengths[:, None]] = PAD
    # the reader's (topic, document) pairs when it found them for these qrels, else each
    # row's document in the qrels vocabulary, looked up with its topic below
    pairs = run.judged_pairs(qrels)
    codes = run.doc_codes(qrels) if pairs is None else pairs  # >= 0: a row to look up
    evaluated = np.full(len(run.topics) + 1, -1, dtype=np.int64)
    evaluated[run_idx[retrieved]] = np.flatnonzero(retrieved)
    # a slice of rows at a time keeps the lookup's temporaries small on a mostly judged run
    for lo in range(0, codes.size, _CHUNK):
        known = np.flatnonzero(codes[lo:lo + _CHUNK] >= 0) + lo
        if not known.size:
            continue
        # each row's topic, searched among the slice's own topics only (in cache)
        first, last = np.searchsorted(run.offsets, known[[0, -1]], side="right") - 1
        run_topic = np.searchsorted(run.offsets[first:last + 1], known, side="right")
        run_topic += first - 1
        topic = evaluated[run_topic]
        within = known - run.offsets[run_topic]
        keep = topic >= 0
        keep[keep] = within[keep] < lengths[topic[keep]]
        topic, within = topic[keep], within[keep]
        grades = qrels.lookup(q_idx[topic], codes[known[keep]]) if pairs is None else \
            qrels.key_grades[pairs[known[keep]]]
        negative = (grades < 0) & (grades != MISSING)
        found = np.where(grades == MISSING, NONPOOL, grades)
        found[negative] = 0 if policies.negative == "nonrel" else UNJUDGED
        packed[topic, within] = found
    if policies.judged_only:
        # trec_eval -J keeps the documents with a grade >= 0: form_res_rels drops those
        # outside the qrels and the pooled-but-unjudged ones (negative grades) alike
        packed, lengths = condense(packed)
    return Judged(run.name, topics, packed, lengths, pool, retrieved, policies)


def condense(packed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Condense each ranking (the last axis) to its judged documents (grade >= 0), keeping
    their order (trec_eval -J; Sakai's condensed lists)."""
    keep = packed >= 0
    lengths = keep.sum(axis=-1).astype(np.int64)
    order = np.argsort(~keep, axis=-1, kind="stable")
    out = np.take_along_axis(packed, order, axis=-1)
    depth = max(int(lengths.max(initial=0)), 1)
    out = np.ascontiguousarray(out[..., :depth])
    out[np.arange(depth) >= lengths[..., None]] = PAD
    return out, lengths
