"""A run: ranked documents per topic, held as columns in ranking order (CSR by topic)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, cast

import numpy as np
import pyarrow as pa

from unjudged.data._strings import (
    WINDOW,
    arrow_of,
    byte_order_keys,
    byte_rows,
    index_codes,
    numpy_of,
)
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
        file_docno: Arrow string array of the document ids in the order they were read.
        file_score: their scores (numpy or Arrow float64), same order.
        order: the permutation from that order to ranking order (None: already in order).
        source: the file name (or "<DataFrame>", "<dict>").

    Document ids and scores are kept in file order: evaluating needs only each row's place
    among the qrels' judged (topic, document) pairs (`judged_pairs`, found by the reader) or
    its document's code in the qrels vocabulary (`doc_codes`), small integers, so the columns
    of a 7-million-line run are gathered into ranking order only when somebody asks for
    `docno` or `score`.
    """

    name: str
    topics: list[str]
    offsets: np.ndarray
    file_docno: pa.Array | pa.ChunkedArray
    file_score: np.ndarray | pa.ChunkedArray | pa.Array
    order: np.ndarray | None = None
    source: str = "<memory>"
    _topic_index: dict[str, int] | None = field(default=None, repr=False)
    _docno: pa.Array | None = field(default=None, repr=False)
    _score: np.ndarray | None = field(default=None, repr=False)
    _codes: tuple | None = field(default=None, repr=False)
    _pairs: tuple | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return int(self.offsets[-1])

    def topic_codes(self, topics) -> np.ndarray:
        """Each topic's index in this run's `topics`, -1 where the run lacks it."""
        return index_codes(self.topic_index, topics)

    @property
    def topic_index(self) -> dict[str, int]:
        if self._topic_index is None:
            self._topic_index = {t: i for i, t in enumerate(self.topics)}
        return self._topic_index

    @property
    def docno(self) -> pa.Array:
        """Document ids in ranking order (an Arrow string array)."""
        docno = self._docno
        if docno is None:
            d = self.file_docno
            if self.order is not None:
                d = d.take(arrow_of(self.order))
            if isinstance(d, pa.ChunkedArray):
                # (pyarrow-stubs type a chunk as a ChunkedArray; it is an Array)
                d = d.combine_chunks() if d.num_chunks != 1 else cast(pa.Array, d.chunk(0))
            self._docno = docno = d
        return docno

    @property
    def score(self) -> np.ndarray:
        """Scores in ranking order (float64)."""
        if self._score is None:
            s = self.file_score
            s = s if isinstance(s, np.ndarray) else numpy_of(s).astype(np.float64, copy=False)
            self._score = s if self.order is None else s[self.order]
        return self._score

    def doc_codes(self, qrels, file_codes: np.ndarray | None = None) -> np.ndarray:
        """Each row's document code in `qrels`' vocabulary (ranking order), -1 if not there.

        `file_codes` hands over codes already computed in file order (by the reader)."""
        # keyed by the vocabulary, which qrels derived by Qrels.without share
        if self._codes is None or self._codes[0] is not qrels.docs:
            codes = qrels.doc_codes(self.file_docno) if file_codes is None else file_codes
            self._codes = (qrels.docs, codes if self.order is None else codes[self.order])
        return self._codes[1]

    def judged_pairs(self, qrels) -> np.ndarray | None:
        """Each row's position in `qrels.keys` (ranking order), -1 where the qrels do not
        judge the document for the row's topic; None unless the reader found them (then
        `doc_codes` and `Qrels.lookup` give the same grades)."""
        held = self._pairs
        return held[1] if held is not None and held[0] is qrels.keys else None

    def keep_pairs(self, qrels, file_pairs: np.ndarray) -> None:
        """Hand over `judged_pairs` computed in file order (by the reader)."""
        pairs = file_pairs if self.order is None else file_pairs[self.order]
        self._pairs = (qrels.keys, pairs)

    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    def to_dict(self) -> dict[str, dict[str, float]]:
        """{qid: {docno: score}}, as pytrec_eval takes it."""
        docs = cast("list[str]", self.docno.to_pylist())
        out: dict[str, dict[str, float]] = {}
        for i, t in enumerate(self.topics):
            a, b = self.offsets[i], self.offsets[i + 1]
            out[t] = dict(zip(docs[a:b], self.score[a:b].tolist(), strict=True))
        return out

    def to_frame(self):
        """A pandas DataFrame with ir_measures' columns query_id, doc_id and score, in ranking
        order (unjudged.read_run reads it back).

        Example:
            >>> from unjudged.io import read_run
            >>> read_run({"q1": {"d1": 1.0, "d2": 2.0}}).to_frame().values.tolist()
            [['q1', 'd2', 2.0], ['q1', 'd1', 1.0]]
        """
        import pandas as pd

        topic = np.repeat(np.arange(len(self.topics)), np.diff(self.offsets))
        return pd.DataFrame({"query_id": np.array(self.topics, dtype=object)[topic],
                             "doc_id": self.docno.to_numpy(zero_copy_only=False),
                             "score": self.score})


_Order = Literal["ascending", "descending"]  # of tied documents' ids


def ranking_order(tcode: np.ndarray, score: np.ndarray, docno: pa.ChunkedArray | pa.Array,
                  rank: np.ndarray | None, ties: TieBreak,
                  blocks: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray | None:
    """Permutation putting rows in (topic, ranking) order, or None when already in order.

    `blocks` may give (starts, codes) of the runs of equal topic codes, if known.
    """
    n = tcode.size
    if ties == "file":
        return None if _nondecreasing(tcode) else np.argsort(tcode, kind="stable")
    if ties == "rank":
        assert rank is not None
        if _nondecreasing(tcode) and _within(tcode, rank[1:] >= rank[:-1]):
            return None
        return np.lexsort((np.arange(n), rank, tcode))
    # trec_eval (10 and 9) and sample_eval break ties by docno descending (trec_eval 9 differs
    # in the precision of the scores compared, which the reader sets: float32, not float64)
    direction: _Order = ("descending" if ties in ("trec_eval", "trec_eval9", "sample_eval")
                         else "ascending")
    moves = _block_order(n, *(blocks or _blocks(tcode)))
    if moves is not False and _within(tcode, score[1:] <= score[:-1]):
        # the usual file: each topic's lines together, scores descending (topics in any order).
        # Whole blocks move, and only runs of tied scores need sorting.
        sorted_ties = _order_ties(tcode, score, docno, direction)
        if sorted_ties is None:
            return moves
        rows, placed = sorted_ties
        if moves is None:
            order = np.arange(n, dtype=index_type(n))
            order[rows] = placed
            return order
        # the tie order composed with the block moves, written over the moves: a full tie
        # order and its gather by the moves were two more arrays of n rows, the peak of
        # reading a 7M-line run
        tied = np.zeros(n, dtype=bool)
        tied[rows] = True
        at = np.flatnonzero(tied[moves])
        del tied
        moves[at] = placed[np.searchsorted(rows, moves[at])]
        return moves
    if n <= _NUMPY_SORT_ROWS:
        mat, lengths = byte_rows(docno, widest=WINDOW)
        if mat is not None:
            keys = byte_order_keys(mat, lengths, descending=direction != "ascending")
            return np.lexsort((*keys, -score, tcode)).astype(index_type(n))
    import pyarrow.compute as pc  # a rare file: see unjudged.data._strings

    # (pyarrow-stubs: a table's columns may be chunked arrays too)
    table = pa.table({"t": arrow_of(tcode), "s": arrow_of(score), "d": docno})  # type: ignore[dict-item]
    idx = pc.sort_indices(table, sort_keys=[("t", "ascending"), ("s", "descending"),
                                            ("d", direction)])
    return numpy_of(idx)


# Files out of ranking order (trec_eval's own test runs) up to this many rows are sorted with
# numpy: importing pyarrow.compute costs 0.1 s, more than Arrow's sort saves below it.
_NUMPY_SORT_ROWS = 1 << 20


def index_type(n: int):
    """The narrowest integer type that indexes n rows (int32 halves permutation memory)."""
    return np.int32 if n < 2**31 else np.int64


def _blocks(tcode: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    starts = np.flatnonzero(tcode[1:] != tcode[:-1]) + 1
    starts = np.concatenate(([0], starts)).astype(np.int64) if tcode.size else starts
    return starts, tcode[starts]


def _block_order(n: int, starts: np.ndarray, codes: np.ndarray
                 ) -> np.ndarray | None | Literal[False]:
    """When each topic's rows are contiguous: the permutation that puts the blocks in topic
    order (None if they are in order already). False when some topic's rows are split."""
    if codes.size == 0:
        return None
    if np.bincount(codes).max() > 1:
        return False
    if np.all(codes[1:] > codes[:-1]):
        return None
    sizes = np.diff(np.append(starts, n))
    by_topic = np.argsort(codes)
    sizes = sizes[by_topic]
    new_starts = np.cumsum(sizes) - sizes
    it = index_type(n)
    moves = np.repeat((starts[by_topic] - new_starts).astype(it), sizes)
    for lo in range(0, n, 1 << 16):  # + arange(n), a slice at a time: no second array of n
        moves[lo : lo + (1 << 16)] += np.arange(lo, min(lo + (1 << 16), n), dtype=it)
    return moves


def _order_ties(tcode, score, docno, direction: _Order
                ) -> tuple[np.ndarray, np.ndarray] | None:
    """Rows grouped by topic and by descending score: sort only the runs of tied scores by
    docno (usually a few percent of the rows) instead of the whole run. (the tied rows, in
    increasing order; the row each place among them takes), or None when they are in order
    already."""
    n = tcode.size
    eq = (tcode[1:] == tcode[:-1]) & (score[1:] == score[:-1])
    if not eq.any():
        return None
    in_tie = np.zeros(n, dtype=bool)
    in_tie[1:] |= eq
    in_tie[:-1] |= eq
    rows = np.flatnonzero(in_tie)
    del in_tie
    # a tied row opens a group unless it ties with the row before (counted on the tied rows
    # alone, not on all n)
    first = np.ones(rows.size, dtype=bool)
    later = rows[1:] if rows[0] == 0 else rows
    first[rows.size - later.size :] = ~eq[later - 1]
    group = np.cumsum(first, dtype=index_type(n))
    mat, lengths = byte_rows(docno, rows, widest=WINDOW)
    if mat is None:  # a long docno: no matrix as wide as it
        idx = _sort_long_ties(group, docno, rows, direction)
    else:
        keys = byte_order_keys(mat, lengths, descending=direction != "ascending")
        # ids of up to 8 bytes (most collections): one integer key
        idx = _sort_groups(group, keys[1]) if len(keys) == 2 else np.lexsort((*keys, group))
    if np.array_equal(idx, np.arange(idx.size)):
        return None
    return rows, rows[idx].astype(index_type(n))


def _sort_long_ties(group: np.ndarray, docno, rows: np.ndarray, direction: _Order
                    ) -> np.ndarray:
    """Order of tied rows by (group, docno) when some docno is long: Arrow compares the
    strings themselves, so memory does not grow with the longest one."""
    import pyarrow.compute as pc  # rare: see unjudged.data._strings

    table = pa.table({"g": arrow_of(group), "d": docno.take(arrow_of(rows))})
    return numpy_of(pc.sort_indices(table, sort_keys=[("g", "ascending"), ("d", direction)]))


def _sort_groups(group: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Order of rows sorting each group (runs of equal `group`) by `keys`. Most ties are two
    documents, which need one comparison each; only larger groups go through a sort."""
    m = group.size
    first = np.ones(m, dtype=bool)
    first[1:] = group[1:] != group[:-1]
    starts = np.flatnonzero(first)
    sizes = np.diff(np.append(starts, m))
    idx = np.arange(m)
    pairs = starts[sizes == 2]
    swap = pairs[keys[pairs] > keys[pairs + 1]]
    idx[swap], idx[swap + 1] = swap + 1, swap
    big = np.flatnonzero(np.repeat(sizes > 2, sizes))
    if big.size:
        idx[big] = big[np.lexsort((keys[big], group[big]))]
    return idx


def _nondecreasing(a: np.ndarray) -> bool:
    return bool(np.all(a[1:] >= a[:-1]))


def _within(tcode: np.ndarray, ok_pairs: np.ndarray) -> bool:
    """True when every adjacent pair inside one topic satisfies ok_pairs."""
    same = tcode[1:] == tcode[:-1]
    return bool(np.all(ok_pairs | ~same))
