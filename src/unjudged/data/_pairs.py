"""Find a run's (topic, document) rows among a qrels' judgments, topic by topic.

Judging a run needs, for each row, only whether the qrels judge that document *for that
topic*. Looking the document up in the qrels' whole vocabulary first (VocabularyIndex) costs
a probe of a table that outgrows the cache with the qrels (3.4M documents on 100M lines: 12.5 s
of 78 s), and most rows it finds are judged for other topics only (40% of the rows found, 4%
judged for their own topic). Here the judged pairs are sorted by topic and then by their
document's spread fingerprint, into one 64-bit key each (the topic code in the top bits); a
run's rows, which come grouped by topic, are searched among the keys of the few topics of a
slice of rows, a short stretch in cache. A key match is confirmed on the whole fingerprint and
the length, and for documents longer than 8 bytes on the bytes, as in VocabularyIndex.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from unjudged.data._strings import (
    equal_strings,
    fingerprints,
    spread_prints,
    string_lengths,
    string_offsets,
)

_STEP = 1 << 15  # rows per search slice: small temporaries


class PairIndex:
    """The judged (topic, document) pairs of a qrels' ad hoc view, searchable by the row's
    topic code and the document's fingerprint. `exact` is False when two documents of one
    topic share a key (a fingerprint collision in its kept bits): callers then use the
    vocabulary instead."""

    def __init__(self, keys: np.ndarray, topic_offsets: np.ndarray, docs: pa.Array):
        self.keys = keys  # the qrels' own keys: the index belongs to them (Qrels.without)
        self.docs = docs
        self.topic_offsets = topic_offsets
        topics = topic_offsets.size - 1
        self._bits = np.uint64(max(1, int(max(topics, 1) - 1).bit_length()))
        self._high = np.uint64(64) - self._bits
        self._low_bits = (np.uint64(1) << self._bits) - np.uint64(1)  # what the key drops
        n = keys.size
        spread = spread_prints(fingerprints(docs)[keys % max(len(docs), 1)] if n else
                               np.zeros(0, np.uint64))
        key = self._key(np.repeat(np.arange(topics, dtype=np.uint64),
                                  np.diff(topic_offsets)), spread)
        # keys come sorted by topic: sorting by this key orders each topic's block alone
        order = np.argsort(key, kind="stable")
        self._key_sorted = key[order]
        del key
        # the spread fingerprint's low bits, which the key drops: with them a key match is a
        # whole fingerprint match (the multiplier is a bijection)
        self._low = (spread[order] & self._low_bits).astype(
            np.uint16 if self._bits <= 16 else np.uint32)
        del spread
        # each entry's key in the qrels (its document is keys % len(docs): not kept twice)
        self._at = order.astype(np.int32 if n < np.iinfo(np.int32).max else np.int64)
        self.exact = not bool(np.any(self._key_sorted[1:] == self._key_sorted[:-1]))

    def _key(self, topic: np.ndarray, spread: np.ndarray) -> np.ndarray:
        key = spread >> self._bits
        key |= topic << self._high
        return key

    def find(self, row_topic: np.ndarray, topic_map: np.ndarray,
             column: pa.ChunkedArray | pa.Array, prints: np.ndarray) -> np.ndarray:
        """Per row, the position in `keys` of its (topic, document) pair, -1 where the qrels
        do not judge it: the row's topic code in the qrels is topic_map[row_topic] (-1:
        none), `prints` the fingerprints of `column`, the rows' documents."""
        kind = self._at.dtype
        out = np.full(row_topic.size, -1, dtype=kind)
        if not self.keys.size or not row_topic.size:
            return out
        lengths = string_lengths(column)
        offsets = string_offsets(self.docs)
        for lo in range(0, row_topic.size, _STEP):
            t = topic_map[row_topic[lo:lo + _STEP]]
            rows = np.flatnonzero(t >= 0)
            if not rows.size:
                continue
            t = t[rows]
            a = int(self.topic_offsets[int(t.min())])
            b = int(self.topic_offsets[int(t.max()) + 1])
            if b <= a:
                continue
            # only the keys of the slice's topics: a short stretch, searched in cache
            keys = self._key_sorted[a:b]
            spread = spread_prints(prints[lo + rows])
            want = self._key(t.astype(np.uint64), spread)
            pos = np.searchsorted(keys, want)
            np.minimum(pos, keys.size - 1, out=pos)
            match = keys[pos] == want
            pos += a
            spread &= self._low_bits
            match &= self._low[pos] == spread
            hit = np.flatnonzero(match)
            rows, pos = rows[hit], pos[hit]
            # the same fingerprint: the same string if as long, for strings of up to 8 bytes
            own = lengths[lo + rows]
            at = self._at[pos]
            doc = self.keys[at] % len(self.docs)
            same = own == offsets[doc + 1] - offsets[doc]
            rows, at, own, doc = rows[same], at[same], own[same], doc[same]
            long = np.flatnonzero(own > 8)
            if long.size:  # beyond 8 bytes the fingerprint is a hash: compare the bytes
                ok = equal_strings(column, lo + rows[long], self.docs, doc[long])
                keep = np.ones(rows.size, dtype=bool)
                keep[long[~ok]] = False
                rows, at = rows[keep], at[keep]
            out[lo + rows] = at
        return out
