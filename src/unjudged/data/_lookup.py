"""Find strings in a fixed vocabulary (the qrels' documents) by their 64-bit fingerprints.

Arrow's `index_in` builds a hash table of the whole vocabulary on every call, which for the
qrels of a Robust-sized collection is 13 MB more memory for every run read. Here the
vocabulary's fingerprints are sorted once, with a directory of where each range of them
starts, and looking a string up reads the directory and then (usually) one 32-byte stretch of
records, each holding a fingerprint with its code and length. A fingerprint match with equal
lengths is proof for strings of up to 8 bytes (the fingerprint is their bytes); longer matches are
confirmed on the strings, so a hash collision can never give a document the wrong code.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from unjudged.data._strings import (
    equal_strings,
    fingerprints,
    numpy_of,
    spread_prints,
    string_lengths,
    string_offsets,
)

_STEP = 1 << 15  # strings per lookup slice: small temporaries, in cache


class VocabularyIndex:
    """Codes (positions in `vocabulary`) of strings, -1 for strings not in it."""

    def __init__(self, vocabulary: pa.Array):
        self.vocabulary = vocabulary
        spread = fingerprints(vocabulary)
        spread_prints(spread, out=spread)  # the directory is indexed by the high bits
        code = np.argsort(spread)
        n = spread.size
        vocab = vocabulary.combine_chunks() if isinstance(vocabulary, pa.ChunkedArray) \
            else vocabulary
        lengths = np.diff(string_offsets(vocab))
        # one record per string in fingerprint order: the fingerprint, and the code with the
        # length above it, so that a probe reads what it needs from one place in memory (a
        # big vocabulary is out of cache: 3.4M strings, on 100M lines, doubled the cost of a
        # lookup when code and length were read from arrays of their own). Two spare records
        # let a slot's first two entries be read without bounds checks (see _find).
        self._rec = np.zeros((n + 2, 2), dtype=np.uint64)
        self._rec[:n, 0] = spread[code]
        del spread
        self._rec[:n, 1] = lengths[code]
        self._rec[:n, 1] <<= np.uint64(32)
        self._rec[:n, 1] |= code.astype(np.uint64)
        del code, lengths
        # the records as 16-byte items, which numpy gathers in one copy each (a view)
        self._items = self._rec.view(np.complex128).ravel()
        keys = self._rec[:n, 0]
        # two distinct strings with one fingerprint (possible only beyond 8 bytes): Arrow's
        # hash lookup then, rather than a table that could find only one of them
        self._exact = not np.any(keys[1:] == keys[:-1])
        # 0.5-1 entries a slot: all but a few percent of the slots hold at most two, which
        # _find reads in one pass (4-8 bytes of directory per entry)
        bits = max(1, int(np.ceil(np.log2(max(n, 2)))))
        self._shift = np.uint64(64 - bits)
        slots = np.arange((1 << bits) + 1, dtype=np.uint64)
        self._start = np.searchsorted(keys >> self._shift, slots).astype(np.int32)
        # a filter of 8 bits a slot (the next 3 bits of the fingerprint pick one): most of a
        # run's documents are not in the qrels, and one read of this byte table (a byte a slot:
        # in cache where the directory and the records are not) turns all but 5-10% of them
        # away before the directory is read (7M lines: the lookup took 1.0 s, now 0.35 s)
        self._filter = np.zeros(1 << bits, dtype=np.uint8)
        sub = ((keys >> (self._shift - np.uint64(3))) & np.uint64(7)).astype(np.uint8)
        np.bitwise_or.at(self._filter, (keys >> self._shift).astype(np.intp),
                         np.left_shift(np.uint8(1), sub))

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
            found, record = self._find(spread_prints(prints[lo : lo + _STEP]))
            self._confirm(column, lo, lengths[lo : lo + _STEP], found, record, part)
        return out

    def _find(self, spread: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(positions in `spread` found in the vocabulary, their records' second words)."""
        slot = (spread >> self._shift).astype(np.intp)
        sub = ((spread >> (self._shift - np.uint64(3))) & np.uint64(7)).astype(np.uint8)
        maybe = np.flatnonzero(np.right_shift(self._filter[slot], sub) & np.uint8(1))
        del sub
        filtered = maybe.size < spread.size
        if filtered:
            spread, slot = spread[maybe], slot[maybe]
        # (intp positions: numpy gathers with int32 indexes several times slower)
        pos = self._start[slot].astype(np.intp)
        size = self._start[slot + 1] - pos
        del slot
        # a slot's first two records at once (adjacent, usually one cache line); fingerprints
        # are distinct, so at most one of them matches
        one, two = (self._items[p].view(np.uint64).reshape(-1, 2) for p in (pos, pos + 1))
        second = (two[:, 0] == spread) & (size > 1)
        hit = second | ((one[:, 0] == spread) & (size > 0))
        found = [np.flatnonzero(hit)]
        record = [np.where(second, two[:, 1], one[:, 1])[found[0]]]
        del one, two
        todo = np.flatnonzero((size > 2) & ~hit)
        pos = pos[todo] + 2
        end = pos + size[todo] - 2
        while todo.size:  # the rare slots of three or more: a pass per further entry
            rec = self._items[pos].view(np.uint64).reshape(-1, 2)
            hit = rec[:, 0] == spread[todo]
            found.append(todo[hit])
            record.append(rec[hit, 1])
            keep = ~hit & (pos + 1 < end)
            todo, pos, end = todo[keep], pos[keep] + 1, end[keep]
        rows = found[0] if len(found) == 1 else np.concatenate(found)
        records = record[0] if len(record) == 1 else np.concatenate(record)
        return (maybe[rows] if filtered else rows), records

    def _confirm(self, column, lo: int, lengths: np.ndarray, found: np.ndarray,
                 record: np.ndarray, out: np.ndarray) -> None:
        """Codes of the rows `found` (rows lo.. of `column`) whose strings are the same: same
        lengths, and same bytes beyond the first 8."""
        if not found.size:
            return
        own = lengths[found]
        same = own == (record >> np.uint64(32)).astype(np.int64)
        found, own = found[same], own[same]
        code = (record[same] & np.uint64(0xFFFFFFFF)).astype(np.int32)
        long = own > 8
        if long.any():
            rows = found[long]
            ok = equal_strings(column, rows + lo, self.vocabulary, code[long].astype(np.int64))
            keep = np.ones(found.size, dtype=bool)
            keep[np.flatnonzero(long)[~ok]] = False
            found, code = found[keep], code[keep]
        out[found] = code
