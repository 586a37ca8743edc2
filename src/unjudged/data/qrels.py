"""Relevance judgments as columns, with an ad hoc view keyed by (topic, document)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pyarrow as pa

from unjudged.data._strings import arrow_of, index_codes, string_array


@dataclass(eq=False)
class Qrels:
    """Judgments `qid group docno grade`.

    The second column is trec_eval's "iteration" in ad hoc qrels and the subtopic in diversity
    qrels; it is kept as a string. The ad hoc view (`keys`, `grades`) has one entry per
    (topic, document): a document judged under several subtopics gets its highest grade.

    Attributes:
        topics: topic ids in byte order.
        docs: the qrels' document vocabulary, in byte order (Arrow strings, code = position).
        tcode, dcode, group, grade: one entry per input line (after removing exact repeats).
        keys: sorted int64 keys ``topic_code * len(docs) + doc_code`` of the ad hoc view.
        key_grades: int32 grade per key.
        topic_offsets: CSR offsets of `keys` per topic.
    """

    topics: list[str]
    docs: pa.Array
    tcode: np.ndarray
    dcode: np.ndarray
    group: pa.Array
    grade: np.ndarray
    keys: np.ndarray
    key_grades: np.ndarray
    topic_offsets: np.ndarray
    source: str = "<memory>"
    _topic_index: dict[str, int] | None = field(default=None, repr=False)
    _doc_index: object = field(default=None, repr=False)
    _pair_index: object = field(default=None, repr=False)

    @property
    def topic_index(self) -> dict[str, int]:
        if self._topic_index is None:
            self._topic_index = {t: i for i, t in enumerate(self.topics)}
        return self._topic_index

    def __len__(self) -> int:
        return int(self.keys.size)

    @cached_property
    def key_topic(self) -> np.ndarray:
        """Topic code of each key of the ad hoc view."""
        return np.repeat(np.arange(len(self.topics)), np.diff(self.topic_offsets))

    def topic_codes(self, topics) -> np.ndarray:
        """Each topic's index in `topics` of these qrels, -1 where they lack it."""
        return index_codes(self.topic_index, topics)

    def doc_codes(self, docno: pa.Array | pa.ChunkedArray,
                  prints: np.ndarray | None = None) -> np.ndarray:
        """Each string's code in the qrels vocabulary, -1 when the qrels never mention it.

        `prints` may pass the strings' fingerprints (unjudged.data._strings.fingerprints)."""
        return self.doc_index().codes(docno, prints)

    def doc_index(self):
        """The lookup structure of `doc_codes`, built on first use (a reader builds it before
        it reads a run, so that its temporaries never coexist with the run's)."""
        if self._doc_index is None or self._doc_index.vocabulary is not self.docs:
            from unjudged.data._lookup import VocabularyIndex

            self._doc_index = VocabularyIndex(self.docs)
        return self._doc_index

    def pair_index(self):
        """The judged (topic, document) pairs searchable by a row's topic and fingerprint
        (unjudged.data._pairs), built on first use; None when two documents of one topic
        share its key (a fingerprint collision): then rows go through `doc_codes`."""
        index = self._pair_index
        if index is None or index.keys is not self.keys:
            from unjudged.data._pairs import PairIndex

            index = PairIndex(self.keys, self.topic_offsets, self.docs)
            self._pair_index = index
        return index if index.exact else None

    def prepare_lookup(self) -> None:
        """Build what a reader looks a run's rows up with before it reads the run, so that
        its temporaries never coexist with the run's."""
        if self.pair_index() is None:
            self.doc_index()

    def lookup(self, topic_codes: np.ndarray, doc_codes: np.ndarray) -> np.ndarray:
        """Grades of (topic, doc) pairs given as qrels codes; -(2**31) where not judged."""
        out = np.full(topic_codes.shape, MISSING, dtype=np.int32)
        ok = (doc_codes >= 0) & (topic_codes >= 0)
        if not ok.any() or self.keys.size == 0:
            return out
        t = topic_codes[ok]
        # only the keys of the topics asked about: a run's rows come grouped by topic, so a
        # slice of them (judge looks 32k rows up at a time) names a few dozen topics whose keys
        # are a short stretch, in cache, where a search of all the keys walks ~22 levels of an
        # array out of cache on big qrels (4.2M keys: 2.7 s of 100M lines, 0.3 s in the slice)
        lo, hi = self.topic_offsets[int(t.min())], self.topic_offsets[int(t.max()) + 1]
        if hi > lo:
            keys = self.keys[lo:hi]
            k = t.astype(np.int64) * len(self.docs) + doc_codes[ok]
            pos = np.searchsorted(keys, k)
            np.minimum(pos, keys.size - 1, out=pos)
            hit = keys[pos] == k
            vals = np.full(t.shape, MISSING, dtype=np.int32)
            vals[hit] = self.key_grades[lo:hi][pos[hit]]
            out[ok] = vals
        return out

    def judged_counts(self, rel_level: int = 1) -> tuple[np.ndarray, np.ndarray]:
        """((topics,) judged documents, (topics,) judged non-relevant ones: grade >= 0 and
        below `rel_level`) of each topic."""
        n = len(self.topics)
        g = self.key_grades
        judged = g >= 0
        return (np.bincount(self.key_topic[judged], minlength=n),
                np.bincount(self.key_topic[judged & (g < rel_level)], minlength=n))

    def topic_grades(self, i: int) -> np.ndarray:
        """Grades of every judged document of topic i (ad hoc view)."""
        return self.key_grades[self.topic_offsets[i] : self.topic_offsets[i + 1]]

    def without(self, keys: np.ndarray) -> Qrels:
        """These qrels less the (topic, document) pairs whose ad hoc `keys` are given (keys
        not present are ignored). Topics and the document vocabulary stay the same, so codes
        computed against these qrels remain valid for the result.

        Example:
            >>> from unjudged.io import read_qrels
            >>> q = read_qrels({"t": {"a": 1, "b": 0}})
            >>> q.without(q.keys[:1]).to_dict()
            {'t': {'b': 0}}
        """
        drop = np.isin(self.keys, keys)
        if not drop.any():
            return self
        keep = ~drop
        line_keys = self.tcode.astype(np.int64) * len(self.docs) + self.dcode
        lines = ~np.isin(line_keys, self.keys[drop])
        # (a topic may already have no keys: reduceat would then read past the end)
        counts = np.bincount(self.key_topic[keep], minlength=len(self.topics))
        offsets = np.zeros(len(self.topics) + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        mask = arrow_of(lines).cast(pa.bool_())
        return Qrels(topics=self.topics, docs=self.docs, tcode=self.tcode[lines],
                     # (pyarrow-stubs: a cast to bool_ is not typed as a BooleanArray)
                     dcode=self.dcode[lines], group=self.group.filter(mask),  # type: ignore[arg-type]
                     grade=self.grade[lines], keys=self.keys[keep],
                     key_grades=self.key_grades[keep], topic_offsets=offsets,
                     source=self.source, _topic_index=self._topic_index,
                     _doc_index=self._doc_index)

    def to_dict(self) -> dict[str, dict[str, int]]:
        """{qid: {docno: grade}} of the ad hoc view."""
        docs = self.docs.to_pylist()
        v = len(docs)
        out: dict[str, dict[str, int]] = {t: {} for t in self.topics}
        for key, g in zip(self.keys.tolist(), self.key_grades.tolist(), strict=True):
            out[self.topics[key // v]][docs[key % v]] = g
        return out

    def to_frame(self):
        """A pandas DataFrame with ir_measures' columns query_id, doc_id, relevance and
        iteration, one row per judgment line (unjudged.read_qrels reads it back).

        Example:
            >>> from unjudged.io import read_qrels
            >>> read_qrels({"q1": {"d1": 2, "d2": 0}}).to_frame().values.tolist()
            [['q1', 'd1', 2, '0'], ['q1', 'd2', 0, '0']]
        """
        import pandas as pd

        qid, group, docno, grade = qrels_columns(self)
        return pd.DataFrame({"query_id": qid.to_numpy(zero_copy_only=False),
                             "doc_id": docno.to_numpy(zero_copy_only=False),
                             "relevance": np.asarray(grade, dtype=np.int64),
                             "iteration": group.to_numpy(zero_copy_only=False)})


#: Grade returned by Qrels.lookup for a (topic, document) the qrels do not contain.
MISSING = np.iinfo(np.int32).min


def qrels_columns(qrels: Qrels) -> tuple[pa.Array, pa.Array, pa.Array, np.ndarray]:
    """One entry per line of `qrels`: (qid, iteration, docno) as Arrow strings and the grades.

    Example:
        >>> from unjudged.io import read_qrels
        >>> qid, it, doc, grade = qrels_columns(read_qrels({"q1": {"d1": 1}}))
        >>> qid.to_pylist(), it.to_pylist(), doc.to_pylist(), grade.tolist()
        (['q1'], ['0'], ['d1'], [1])
    """
    qid = string_array(qrels.topics).take(arrow_of(qrels.tcode.astype(np.int32)))
    docno = qrels.docs.take(arrow_of(qrels.dcode.astype(np.int64)))
    return qid, qrels.group, docno, qrels.grade
