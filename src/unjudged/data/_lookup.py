"""Find strings in a fixed vocabulary (the qrels' documents) by their 64-bit fingerprints.

Arrow's `index_in` builds a hash table of the whole vocabulary on every call, which for the
qrels of a Robust-sized collection is 13 MB more memory for every run read. Here the
vocabulary's fingerprints are sorted once, with a directory of where each range of them
starts, and looking a string up costs two gathers. A fingerprint match with equal lengths is
proof for strings of up to 8 bytes (the fingerprint is their bytes); longer matches are
confirmed on the strings, so a hash collision can never give a document the wrong code.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from unjudged.data._strings import (
    equal_strings,
    fingerprints,
    numpy_of,
    string_lengths,
    string_offsets,
)

# an odd multiplier is a bijection on 64-bit words, and spreads a short docno's bytes (which
# are its fingerprint) over the high bits the directory is indexed by
_SPREAD = np.uint64(0x9E3779B97F4A7C15)
_STEP = 1 << 15  # strings per lookup slice: small temporaries, in cache


class VocabularyIndex:
    """Codes (positions in `vocabulary`) of strings, -1 for strings not in it."""

    def __init__(self, vocabulary: pa.Array):
        self.vocabulary = vocabulary
        spread = fingerprints(vocabulary)
        spread *= _SPREAD
        self._code = np.argsort(spread).astype(np.int32)
        self._sorted = spread[self._code]
        del spread
        # two distinct strings with one fingerprint (possible only beyond 8 bytes): Arrow's
        # hash lookup then, rather than a table that could find only one of them
        self._exact = not np.any(self._sorted[1:] == self._sorted[:-1])
        bits = max(1, int(np.ceil(np.log2(max(self._sorted.size, 2)))) - 1)  # ~2 per slot
        self._shift = np.uint64(64 - bits)
        slots = np.arange((1 << bits) + 1, dtype=np.uint64)
        self._start = np.searchsorted(self._sorted >> self._shift, slots).astype(np.int32)
        vocab = vocabulary.combine_chunks() if isinstance(vocabulary, pa.ChunkedArray) \
            else vocabulary
        self._ends = string_offsets(vocab)  # lengths of matched codes come from these

    def by_hash(self, rows: int) -> bool:
        """Whether `codes` looks `rows` strings up through Arrow's hash table: only when the
        vocabulary has a fingerprint collision, whatever `rows`. (Long columns used to go there
        too; on 10M lines the index here took 4% less CPU, 12% less time, the same output.)"""
        return not self._exact

    def codes(self, column: pa.Array | pa.ChunkedArray,
              prints: np.ndarray | None = None) -> np.ndarray:
        """Each string's code (int32), -1 when the vocabulary lacks it. `prints` may pass the
        column's fingerprints when they are known already (not needed when `by_hash`)."""
        if self.by_hash(len(column)):
            import pyarrow.compute as pc  # only here: see unjudged.data._strings

            return numpy_of(pc.index_in(column, value_set=self.vocabulary),
                            null=np.int32(-1)).astype(np.int32, copy=False)
        prints = fingerprints(column) if prints is None else prints
        lengths = string_lengths(column)
        out = np.full(prints.size, -1, dtype=np.int32)
        for lo in range(0, prints.size, _STEP):
            part = out[lo : lo + _STEP]
            self._find(prints[lo : lo + _STEP] * _SPREAD, part)
            self._confirm(column, lo, lengths[lo : lo + _STEP], part)
        return out

    def _find(self, spread: np.ndarray, out: np.ndarray) -> None:
        slot = (spread >> self._shift).astype(np.intp)
        pos, end = self._start[slot], self._start[slot + 1]
        todo = np.flatnonzero(pos < end)
        while todo.size:  # a slot holds about two entries: a few passes over shrinking sets
            at = pos[todo]
            hit = self._sorted[at] == spread[todo]
            out[todo[hit]] = self._code[at[hit]]
            todo = todo[~hit]
            pos[todo] += 1
            todo = todo[pos[todo] < end[todo]]

    def _confirm(self, column, lo: int, lengths: np.ndarray, out: np.ndarray) -> None:
        """Undo matches (rows lo.. of `column`) whose strings differ: other lengths, or other
        bytes beyond the first 8."""
        rows = np.flatnonzero(out >= 0)
        if not rows.size:
            return
        own = lengths[rows]
        code = out[rows]
        wrong = own != self._ends[code + 1] - self._ends[code]
        out[rows[wrong]] = -1
        long = rows[~wrong & (own > 8)]
        if long.size:
            same = equal_strings(column, long + lo, self.vocabulary, out[long].astype(np.int64))
            out[long[~same]] = -1
