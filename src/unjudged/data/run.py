"""A run: ranked documents per topic, held as columns in ranking order (CSR by topic)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from unjudged.data._strings import arrow_of, numpy_of
from unjudged.policies import TieBreak


@dataclass(eq=False)
class Run:
    """One system's rankings.

    Rows are grouped by topic (topics in byte order of their ids) and, within a topic, sorted by
    the tie-breaking policy given when the run was read. Topic i's documents are rows
    ``offsets[i]:offsets[i+1]``.

    Attributes:
        name: the run tag (last column of the file's first line) unless overridden.
        topics: topic ids in byte order.
        offsets: int64 array of len(topics)+1.
        docno: Arrow string array, ranking order.
        score: float64 array, ranking order.
        source: the file name (or "<DataFrame>", "<dict>").
    """

    name: str
    topics: list[str]
    offsets: np.ndarray
    docno: pa.Array | pa.ChunkedArray
    score: np.ndarray
    source: str = "<memory>"
    _topic_index: dict[str, int] | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return int(self.offsets[-1])

    @property
    def topic_index(self) -> dict[str, int]:
        if self._topic_index is None:
            self._topic_index = {t: i for i, t in enumerate(self.topics)}
        return self._topic_index

    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    def to_dict(self) -> dict[str, dict[str, float]]:
        """{qid: {docno: score}}, as pytrec_eval takes it."""
        docs = self.docno.to_pylist()
        out: dict[str, dict[str, float]] = {}
        for i, t in enumerate(self.topics):
            a, b = self.offsets[i], self.offsets[i + 1]
            out[t] = dict(zip(docs[a:b], self.score[a:b].tolist()))
        return out


def ranking_order(tcode: np.ndarray, score: np.ndarray, docno: pa.ChunkedArray | pa.Array,
                  rank: np.ndarray | None, ties: TieBreak) -> np.ndarray | None:
    """Permutation putting rows in (topic, ranking) order, or None when already in order."""
    n = tcode.size
    if ties == "file":
        return None if _nondecreasing(tcode) else np.argsort(tcode, kind="stable")
    if ties == "rank":
        assert rank is not None
        if _nondecreasing(tcode) and _within(tcode, rank[1:] >= rank[:-1]):
            return None
        return np.lexsort((np.arange(n), rank, tcode))
    if _already_ranked(tcode, score, docno, descending_docno=ties == "trec_eval"):
        return None
    direction = "descending" if ties == "trec_eval" else "ascending"
    if _nondecreasing(tcode) and _within(tcode, score[1:] <= score[:-1]):
        return _order_ties(tcode, score, docno, direction)
    table = pa.table({"t": arrow_of(tcode), "s": arrow_of(score), "d": docno})
    idx = pc.sort_indices(table, sort_keys=[("t", "ascending"), ("s", "descending"),
                                            ("d", direction)])
    return numpy_of(idx)


def _order_ties(tcode, score, docno, direction: str) -> np.ndarray:
    """Rows already grouped by topic and by descending score: sort only the runs of tied
    scores by docno (usually a few percent of the rows) instead of the whole run."""
    n = tcode.size
    eq = (tcode[1:] == tcode[:-1]) & (score[1:] == score[:-1])
    in_tie = np.zeros(n, dtype=bool)
    in_tie[1:] |= eq
    in_tie[:-1] |= eq
    rows = np.flatnonzero(in_tie)
    starts = np.ones(n, dtype=bool)
    starts[1:] = ~eq
    group = np.cumsum(starts)[rows]
    sub = pa.table({"g": arrow_of(group), "d": docno.take(arrow_of(rows))})
    idx = numpy_of(pc.sort_indices(sub, sort_keys=[("g", "ascending"), ("d", direction)]))
    order = np.arange(n)
    order[rows] = rows[idx]
    return order


def _nondecreasing(a: np.ndarray) -> bool:
    return bool(np.all(a[1:] >= a[:-1]))


def _within(tcode: np.ndarray, ok_pairs: np.ndarray) -> bool:
    """True when every adjacent pair inside one topic satisfies ok_pairs."""
    same = tcode[1:] == tcode[:-1]
    return bool(np.all(ok_pairs | ~same))


def _already_ranked(tcode: np.ndarray, score: np.ndarray, docno, descending_docno: bool) -> bool:
    if tcode.size < 2:
        return True
    if not _nondecreasing(tcode):
        return False
    same = tcode[1:] == tcode[:-1]
    if not np.all((score[1:] <= score[:-1]) | ~same):
        return False
    tied = np.flatnonzero(same & (score[1:] == score[:-1]))
    if tied.size == 0:
        return True
    first = docno.take(arrow_of(tied))
    second = docno.take(arrow_of(tied + 1))
    cmp = pc.greater if descending_docno else pc.less
    return bool(pc.all(cmp(first, second)).as_py())
