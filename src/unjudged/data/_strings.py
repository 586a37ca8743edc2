"""Vectorised helpers on Arrow string arrays: topic interning and duplicate detection.

What `unjudged eval` needs on plain files is done here with numpy on the arrays' buffers, not
with Arrow's compute functions: importing pyarrow.compute registers every Arrow kernel, 9 MB of
a process that otherwise needs little more than its inputs (10 Robust-sized runs: 118 MB peak
with it, pytrec_eval's 103 MB is the yardstick). Only other inputs (DataFrames, dicts, huge
vocabularies) and rarer paths import it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import repeat
from typing import Any, cast, overload

import numpy as np
import pyarrow as pa

_MIX = np.uint64(0x9E3779B97F4A7C15)


def numpy_of(values: pa.ChunkedArray | pa.Array, null: float | int = np.nan) -> np.ndarray:
    """An Arrow (chunked) numeric or boolean array as one numpy array; nulls become `null`.

    pyarrow's own to_numpy (and pa.scalar, pa.array) import pandas, which costs time and
    memory on every command; reading the buffers directly does not.
    """
    chunks = values.chunks if isinstance(values, pa.ChunkedArray) else [values]
    parts = [_chunk_numpy(c, null) for c in chunks]
    if not parts:
        return np.zeros(0, dtype=_NUMPY_TYPES.get(str(values.type), "float64"))
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def arrow_of(values: np.ndarray) -> pa.Array:
    """A numeric numpy array as an Arrow array without a copy (pa.array imports pandas)."""
    values = np.ascontiguousarray(values)
    if values.dtype == bool:
        values = values.astype(np.uint8)
    kind = pa.from_numpy_dtype(values.dtype)
    return pa.Array.from_buffers(kind, len(values), [None, pa.py_buffer(values)])  # type: ignore[arg-type]  # numpy declares __buffer__ for Python 3.12+ only


def _bits(buf, offset: int, n: int) -> np.ndarray:
    bits = np.unpackbits(np.frombuffer(buf, dtype=np.uint8), bitorder="little")
    return bits[offset : offset + n].astype(bool)


def _chunk_numpy(c: pa.Array, null: float | int) -> np.ndarray:
    if pa.types.is_boolean(c.type):
        out = _bits(c.buffers()[1], c.offset, len(c))
    else:
        dtype = np.dtype(_NUMPY_TYPES[str(c.type)])
        out = np.frombuffer(c.buffers()[1], dtype=dtype, count=len(c),  # type: ignore[call-overload]  # numpy's stubs take no pa.Buffer before 3.12
                            offset=c.offset * dtype.itemsize)
    if c.null_count:
        valid = _bits(c.buffers()[0], c.offset, len(c))
        out = out.astype(np.result_type(out.dtype, np.asarray(null).dtype))
        out[~valid] = null
    return out


_NUMPY_TYPES = {"double": "float64", "float": "float32", "int64": "int64", "int32": "int32",
                "int16": "int16", "int8": "int8", "uint64": "uint64", "uint32": "uint32",
                "uint16": "uint16", "uint8": "uint8"}


def intern_topics(column: pa.ChunkedArray | pa.Array) -> tuple[list[str], np.ndarray]:
    """Topic ids sorted by byte order (trec_eval's strcmp) and each row's int32 index into them.

    A dictionary column (as the readers ask Arrow's CSV parser for) is interned through its
    dictionaries, which are small; a string column through sorted_vocabulary."""
    if not pa.types.is_dictionary(column.type):
        vocab, codes = sorted_vocabulary(column)
        return cast("list[str]", vocab.to_pylist()), codes
    chunks = cast("list[pa.DictionaryArray]",
                  column.chunks if isinstance(column, pa.ChunkedArray) else [column])
    local = [cast("list[str]", c.dictionary.to_pylist()) for c in chunks]
    names = sorted({n for names in local for n in names}, key=str.encode)
    index = {n: i for i, n in enumerate(names)}
    # each chunk's codes are gathered straight into their place: gathering them apart and
    # concatenating held two copies (100M lines: 400 MB more, in ~1,800 chunks)
    codes = np.empty(sum(len(c) for c in chunks), dtype=np.int32)
    at = 0
    for c, names_c in zip(chunks, local, strict=True):
        if len(c):
            table = np.array([index[n] for n in names_c], dtype=np.int32)
            np.take(table, numpy_of(c.indices), out=codes[at:at + len(c)])
            at += len(c)
    return names, codes


# sorted_vocabulary sorts a matrix of the strings' bytes up to this size, beyond it Arrow sorts
_MATRIX_BYTES = 1 << 26


def sorted_vocabulary(column: pa.ChunkedArray | pa.Array) -> tuple[pa.Array, np.ndarray]:
    """(the distinct strings in byte order, each row's int32 index into them).

    By sorting rather than hashing: a hash table over a few hundred thousand distinct docnos
    needs several times the memory of the strings, a sort needs one index array. The strings
    are sorted as rows of big-endian 64-bit words (zero-padded) and then by length, which is
    byte order exactly.
    """
    lengths = string_lengths(column)
    n = lengths.size
    if n and _all_equal(column, lengths):  # e.g. the iteration column of ad hoc qrels
        first = column[0:1]
        first = first.combine_chunks() if isinstance(first, pa.ChunkedArray) else first
        return first, np.zeros(n, dtype=np.int32)
    width = _word_width(lengths)
    if n * width > _MATRIX_BYTES:
        return _sorted_vocabulary_arrow(column)
    mat, lengths = byte_rows(column, width=width)
    nul = _has_nul(mat, lengths)  # before the matrix becomes words
    keys = byte_order_keys(mat, lengths)
    # one word each (and no NUL): equal words are then equal strings
    order = np.argsort(keys[1]) if len(keys) == 2 and not nul else np.lexsort(keys)
    ordered = mat[order]
    new = np.ones(n, dtype=bool)
    if n > 1:
        new[1:] = (ordered[1:] != ordered[:-1]).any(axis=1)
        new[1:] |= np.diff(lengths[order]) != 0
    del ordered, keys
    codes = np.empty(n, dtype=np.int32)
    codes[order] = np.cumsum(new, dtype=np.int32) - 1
    keep = order[new]
    del order, new
    kept = mat[keep]
    kept.view(np.uint64).byteswap(inplace=True)  # back from big-endian words to bytes
    return strings_of_rows(kept, lengths[keep]), codes


def byte_order_keys(mat: np.ndarray, lengths: np.ndarray, descending: bool = False) -> tuple:
    """np.lexsort keys (least significant first) that order the rows of a byte_rows matrix
    as their strings in byte order (strcmp's, for strings without NUL bytes): the length,
    then the 64-bit words, the first word most significant.

    Turns `mat` in place into big-endian words (the keys are views of it)."""
    words = mat.view(np.uint64)
    words.byteswap(inplace=True)  # big-endian words compare as the bytes do
    if descending:
        words, lengths = ~words, -lengths
    return (lengths, *(words[:, j] for j in reversed(range(words.shape[1]))))


def _all_equal(column: pa.ChunkedArray | pa.Array, lengths: np.ndarray) -> bool:
    """Whether every string of the column is the same (checked on the bytes)."""
    if np.any(lengths != lengths[0]):
        return False
    size = int(lengths[0])
    if size == 0:
        return True
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    first = None
    for c in chunks:
        if not len(c):
            continue
        ends = string_offsets(c)
        text = np.frombuffer(c.buffers()[2], dtype=np.uint8)[ends[0] : ends[-1]]  # type: ignore[call-overload]  # numpy's stubs take no pa.Buffer before 3.12
        rows = text.reshape(len(c), size)
        first = rows[0].copy() if first is None else first
        sample = rows[:: max(1, len(c) // 64)]  # distinct values usually show in a sample
        if not (np.array_equal(sample, np.broadcast_to(first, sample.shape)) and
                np.array_equal(rows, np.broadcast_to(first, rows.shape))):
            return False
    return True


def _has_nul(mat: np.ndarray, lengths: np.ndarray) -> bool:
    """Whether some string holds a NUL byte (then zero padding alone cannot order it)."""
    zero = mat == 0
    return bool(np.any(zero & (np.arange(mat.shape[1]) < lengths[:, None])))


def strings_of_rows(mat: np.ndarray, lengths: np.ndarray) -> pa.Array:
    """An Arrow string array of each row's first `lengths` bytes (rows from byte_rows)."""
    data = mat[np.arange(mat.shape[1]) < lengths[:, None]]  # row-major: strings end to end
    offsets = np.zeros(lengths.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    kind: pa.DataType = pa.string()
    if offsets[-1] < 2**31:
        offsets = offsets.astype(np.int32)
    else:
        kind = pa.large_string()
    return pa.Array.from_buffers(kind, lengths.size,
                                 [None, pa.py_buffer(offsets), pa.py_buffer(data)])  # type: ignore[arg-type]  # numpy declares __buffer__ for Python 3.12+ only


def _sorted_vocabulary_arrow(column: pa.ChunkedArray | pa.Array) -> tuple[pa.Array, np.ndarray]:
    import pyarrow.compute as pc  # see the module's docstring

    order = pc.sort_indices(column)
    ordered = column.take(order)
    if isinstance(ordered, pa.ChunkedArray):
        ordered = ordered.combine_chunks()
    n = len(ordered)
    new = np.ones(n, dtype=bool)
    if n > 1:
        new[1:] = numpy_of(pc.not_equal(ordered.slice(1), ordered.slice(0, n - 1)))
    codes = np.empty(n, dtype=np.int32)
    codes[numpy_of(order)] = np.cumsum(new, dtype=np.int32) - 1
    del order
    return ordered.take(arrow_of(np.flatnonzero(new))), codes


# an odd multiplier is a bijection on 64-bit words: it spreads a short docno's bytes (its
# fingerprint) over the high bits that the lookups' tables are indexed by (data/_lookup.py,
# data/_pairs.py)
_SPREAD = np.uint64(0x9E3779B97F4A7C15)


def spread_prints(prints: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Fingerprints times _SPREAD (mod 2^64): as distinct as the fingerprints, with every
    byte of a short id in the high bits."""
    return np.multiply(prints, _SPREAD, out=out)


def fingerprints(column: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """A 64-bit fingerprint per string, a function of the string alone: its bytes as one word
    (zero-padded) for strings of up to 8 bytes, a hash of its words and length beyond."""
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    out = np.empty(len(column), dtype=np.uint64)
    base = 0
    for c in chunks:
        if len(c):
            _fingerprint_chunk(c, out[base : base + len(c)])
        base += len(c)
    return out


def string_offsets(arr: pa.Array) -> np.ndarray:
    """The offsets of a string array's values (a view, no copy): string i is bytes
    offsets[i]:offsets[i+1] of its data buffer. int32, or int64 for large strings."""
    kind = np.int64 if pa.types.is_large_string(arr.type) else np.int32
    if len(arr) == 0:
        return np.zeros(1, dtype=kind)
    return np.frombuffer(arr.buffers()[1], dtype=kind, count=len(arr) + 1,  # type: ignore[call-overload]  # numpy's stubs take no pa.Buffer before 3.12
                         offset=arr.offset * np.dtype(kind).itemsize)


def string_lengths(column: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """Each string's length in bytes (int32), from the offsets alone."""
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    parts = [np.diff(string_offsets(c)).astype(np.int32, copy=False) for c in chunks]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int32)


def _word_width(lengths: np.ndarray) -> int:
    """The longest length rounded up to whole 8-byte words (at least one word)."""
    return max(8, -(-int(lengths.max(initial=1)) // 8) * 8)


def _word_matrix(arr: pa.Array, width: int, rows: np.ndarray | None = None,
                 start: int = 0) -> np.ndarray:
    """(rows x width/8) little-endian words of each string's bytes from byte `start` on,
    zero-padded (viewed as bytes: the strings' bytes), of all the strings of `arr` or of those
    at `rows`; `width` is whole 8-byte words. Each column is one unaligned gather from the data
    buffer (see _word_at): no index matrix of a byte each."""
    offsets = string_offsets(arr)
    if rows is None:
        at, left = offsets[:-1].astype(np.intp), np.diff(offsets).astype(np.intp)
    else:
        at = offsets[rows].astype(np.intp)
        left = offsets[rows + 1] - at
    at += start
    left -= start
    words, last = _words_of(arr)
    mat = np.empty((at.size, width // 8), dtype=np.uint64)
    for j in range(width // 8):
        mat[:, j] = _word_at(words, last, at + 8 * j, left - 8 * j, ordered=rows is None)
    return mat


@overload
def byte_rows(column: pa.ChunkedArray | pa.Array, rows: np.ndarray | None = None,
              width: int | None = None, start: int = 0, widest: None = None
              ) -> tuple[np.ndarray, np.ndarray]: ...
@overload
def byte_rows(column: pa.ChunkedArray | pa.Array, rows: np.ndarray | None = None,
              width: int | None = None, start: int = 0, *, widest: int
              ) -> tuple[np.ndarray | None, np.ndarray]: ...
def byte_rows(column: pa.ChunkedArray | pa.Array, rows: np.ndarray | None = None,
              width: int | None = None, start: int = 0, widest: int | None = None
              ) -> tuple[np.ndarray | None, np.ndarray]:
    """(matrix, int64 lengths) of the strings at `rows` of `column` (all when None): row i
    holds string i's bytes, zero-padded to `width` bytes, a multiple of 8 (default: the
    longest string, rounded up to whole 8-byte words, so that the matrix can be viewed as
    64-bit words).

    Works through chunks and slices of at most 32k strings (fewer for wide rows), so the
    temporaries stay small. With `start`, the matrix holds bytes from `start` on.
    With `widest` (and no `width`), the matrix is None when a string is longer than that.
    """
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    bounds = np.cumsum([0] + [len(c) for c in chunks])
    picks: list[tuple[pa.Array, np.ndarray | None, Any]]
    if rows is None:
        picks = [(c, None, bounds[i]) for i, c in enumerate(chunks)]
        total = int(bounds[-1])
    else:
        rows = np.asarray(rows, dtype=np.int64)
        picks = [(c, sel, bounds[i])
                 for i, (c, sel) in enumerate(zip(chunks, _by_chunk(bounds, rows), strict=True))]
        total = rows.size
    lengths = np.zeros(total, dtype=np.int64)
    # (chunk, the matrix rows it fills, its own rows or None for all of them)
    spans: list[tuple[pa.Array, slice | np.ndarray, np.ndarray | None]] = []
    where: slice | np.ndarray
    for c, sel, base in picks:
        ends = string_offsets(c)
        if sel is None:
            where = slice(int(base), int(base) + len(c))
            lengths[where] = np.diff(ends)
            spans.append((c, where, None))
        elif sel.size and rows is not None:  # (rows are given whenever sel is)
            local = rows[sel] - base
            # (sel increases: a run of consecutive positions is written as a slice)
            where = slice(int(sel[0]), int(sel[-1]) + 1) if sel[-1] - sel[0] + 1 == sel.size \
                else sel
            lengths[where] = ends[local + 1] - ends[local]
            spans.append((c, where, local))
    if width is None:
        width = _word_width(lengths)
        if widest is not None and width > widest:
            return None, lengths
    words = np.empty((total, width // 8), dtype=np.uint64)
    step = max(1, min(1 << 15, _STEP_BYTES // max(width, 1)))
    for c, where, local in spans:
        size = len(c) if local is None else local.size
        for a in range(0, size, step):
            part = c.slice(a, step) if local is None else c
            dest = (slice(where.start + a, min(where.start + a + step, where.stop))
                    if isinstance(where, slice) else where[a : a + step])
            words[dest] = _word_matrix(part, width, None if local is None else local[a : a + step],
                                       start)
    return words.view(np.uint8), lengths


def equal_strings(left: pa.ChunkedArray | pa.Array, left_rows: np.ndarray,
                  right: pa.ChunkedArray | pa.Array, right_rows: np.ndarray) -> np.ndarray:
    """Whether string left[left_rows[i]] equals right[right_rows[i]], for strings known to be
    equally long: compared a window of bytes at a time, so memory never grows with the length
    of the longest string."""
    same = np.ones(left_rows.size, dtype=bool)
    lengths = row_lengths(left, left_rows)
    start = 0
    while True:
        todo = np.flatnonzero(same & (lengths > start))
        if not todo.size:
            return same
        width = _window(todo.size, int(lengths[todo].max()) - start)
        mine, _ = byte_rows(left, left_rows[todo], width, start)
        theirs, _ = byte_rows(right, right_rows[todo], width, start)
        same[todo] = (mine == theirs).all(axis=1)
        start += width


def row_lengths(column: pa.ChunkedArray | pa.Array, rows: np.ndarray) -> np.ndarray:
    """The byte lengths of the strings at `rows` (int64)."""
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    bounds = np.cumsum([0] + [len(c) for c in chunks])
    rows = np.asarray(rows, dtype=np.int64)
    out = np.zeros(rows.size, dtype=np.int64)
    for i, (c, sel) in enumerate(zip(chunks, _by_chunk(bounds, rows), strict=True)):
        if sel.size:
            ends = string_offsets(c)
            local = rows[sel] - bounds[i]
            out[sel] = ends[local + 1] - ends[local]
    return out


def _by_chunk(bounds: np.ndarray, rows: np.ndarray) -> list[np.ndarray]:
    """For each chunk (rows bounds[i]:bounds[i+1] of the column), the positions in `rows` of
    the rows it holds, in increasing order. One sort and a split: a scan of all the rows per
    chunk grew with rows x chunks, and Arrow's chunks grow with the file (0.85 s at 30M lines)."""
    which = np.searchsorted(bounds, rows, side="right") - 1
    order = (np.arange(rows.size) if np.all(which[1:] >= which[:-1])
             else np.argsort(which, kind="stable"))
    cuts = np.searchsorted(which[order], np.arange(bounds.size))
    return [order[cuts[i] : cuts[i + 1]] for i in range(bounds.size - 1)]


# Byte matrices are built a window of at most WINDOW bytes per string at a time (wider only for
# few rows), so that no temporary grows with the longest string: one 10,000-byte docno among
# 30,000 rows must not cost 30,000 x 10,000 bytes.
WINDOW = 128
_STEP_BYTES = 1 << 22


def _window(rows: int, need: int) -> int:
    """Bytes per string for a matrix of `rows` strings needing `need` more bytes: whole
    words, at least WINDOW, at most what keeps the matrix near _STEP_BYTES."""
    wide = max(WINDOW, (_STEP_BYTES // max(rows, 1)) // 8 * 8)
    return min(wide, -(-need // 8) * 8)


# the low k bytes of a word (little-endian: a string's first k bytes), k = 0..8
_LOW = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [(1 << 64) - 1], dtype=np.uint64)


def _fingerprint_chunk(arr: pa.Array, out: np.ndarray) -> None:
    """Fingerprints of one Arrow string array into `out`. Each word of a string is one
    unaligned 8-byte read at its position in the data buffer, masked to the string's own
    bytes: no byte matrix (7M docnos: 0.6 s with a rows x 8 gather of bytes, 0.17 s so)."""
    offsets = string_offsets(arr)
    words, last = _words_of(arr)
    step = 1 << 15  # slices small enough for the temporaries to stay in cache
    for i in range(0, len(arr), step):
        ends = offsets[i : i + step + 1]
        starts = ends[:-1].astype(np.intp)
        lengths = np.diff(ends).astype(np.intp)
        h = _word_at(words, last, starts, lengths)
        long = np.flatnonzero(lengths > 8)
        if long.size:
            # only strings longer than one word are hashed, and only over their own words, so
            # a string's fingerprint does not depend on how long its neighbours are
            size, at = lengths[long], starts[long]
            m = h[long] ^ (size.astype(np.uint64) << np.uint64(56))
            active = np.arange(long.size)
            w = 1
            while True:
                active = active[size[active] > 8 * w]
                if not active.size:
                    break
                word = _word_at(words, last, at[active] + 8 * w, size[active] - 8 * w)
                m[active] = m[active] * _MIX ^ word
                w += 1
            h[long] = m
        out[i : i + h.size] = h


def _words_of(arr: pa.Array) -> tuple[np.ndarray, int]:
    """(the 8-byte words starting at every byte of `arr`'s data buffer, as one strided view
    with no copy; the last start such a word has). A buffer under 8 bytes is copied, padded."""
    data = arr.buffers()[2]
    buf = (np.frombuffer(data, dtype=np.uint8)  # type: ignore[call-overload]  # see _chunk_numpy
           if data is not None else np.zeros(0, np.uint8))
    if buf.size < 8:
        buf = np.concatenate((buf, np.zeros(8 - buf.size, np.uint8)))
    words = np.ndarray((buf.size - 7,), dtype=np.uint64, buffer=buf, strides=(1,))
    return words, buf.size - 8


def _word_at(words: np.ndarray, last: int, starts: np.ndarray, lengths: np.ndarray,
             ordered: bool = True) -> np.ndarray:
    """The first min(length, 8) bytes (none for a length <= 0) from each start, zero-padded,
    as little-endian words. A start in the buffer's last 7 bytes reads the last word and
    shifts its bytes down; `ordered` says the starts increase, so those are a suffix."""
    if ordered:
        tail = np.arange(int(np.searchsorted(starts, last, side="right")), starts.size)
    else:
        tail = np.flatnonzero(starts > last)
    h = words[np.minimum(starts, last) if tail.size else starts]
    if tail.size:  # (numpy's shift by 64 bits or more gives 0)
        h[tail] >>= ((starts[tail] - last) * 8).astype(np.uint64)
    h &= _LOW[np.clip(lengths, 0, 8)]
    return h


def topic_blocks(column: pa.ChunkedArray | pa.Array
                 ) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """Intern topic ids through their runs of equal values: (topics, codes per row, block
    starts, block codes).

    A run file lists each topic's lines together, so a 7-million-line run has a few thousand
    blocks. A dictionary column (what the run reader asks Arrow for) is interned through its
    small dictionaries; a string column is run-length encoded first, so that only the blocks'
    values are hashed, not every row.
    """
    n = len(column)
    if n == 0 or pa.types.is_dictionary(column.type):
        topics, codes = intern_topics(column)
    else:
        import pyarrow.compute as pc  # see the module's docstring

        encoded = pc.run_end_encode(column)  # type: ignore[attr-defined]  # missing in the stubs
        chunks = cast("list[pa.RunEndEncodedArray]",
                      encoded.chunks if isinstance(encoded, pa.ChunkedArray) else [encoded])
        ends: list[np.ndarray] = []
        values: list[pa.Array] = []
        base = 0
        for c in chunks:
            ends.append(numpy_of(c.run_ends).astype(np.int64) + base)
            values.append(c.values)
            base += len(c)
        topics, block_codes = intern_topics(pa.chunked_array(values, type=column.type))
        sizes = np.diff(np.concatenate(([0], *ends)))
        codes = np.repeat(block_codes, sizes)
    if n == 0:
        return topics, codes, np.zeros(0, dtype=np.int64), codes
    first = np.ones(n, dtype=bool)
    first[1:] = codes[1:] != codes[:-1]
    starts = np.flatnonzero(first)
    return topics, codes, starts, codes[starts]


def duplicated_in_groups(offsets: np.ndarray,
                         column: pa.ChunkedArray | pa.Array | Callable[[], pa.Array],
                         fp: np.ndarray | None = None, own: bool = False
                         ) -> tuple[int, str] | None:
    """(group, string) of a string repeated within one group of a CSR layout, or None.

    Rows of group i are ``offsets[i]:offsets[i+1]``. Fingerprints are sorted within each group
    (a padded 2-D sort, which stays in cache, instead of one global sort); any candidate is then
    confirmed on the strings themselves, so a hash collision never reports a false duplicate.
    `fp` may pass the column's fingerprints when they were computed already; `column` may then
    be a function returning the column, called only to confirm a candidate. With `own`, the
    caller no longer needs `fp`, which may then be sorted in place.
    """
    lengths = np.diff(offsets)
    n, depth = lengths.size, int(lengths.max(initial=0))
    if depth < 2:
        return None
    if fp is None:
        fp = fingerprints(column() if callable(column) else column)
    if n * depth > 4 * fp.size + 1_000_000:  # very ragged: one global sort is cheaper
        group = np.repeat(np.arange(n, dtype=np.uint64), lengths)
        key = np.sort(fp ^ (group * _MIX))
        if not np.any(key[1:] == key[:-1]):
            return None
        return _confirm(offsets, column, range(n))
    if np.all(lengths == depth):  # every topic equally long: the grid is a reshape
        grid = fp.reshape(n, depth) if own else fp.reshape(n, depth).copy()
    else:
        grid = np.broadcast_to(np.iinfo(np.uint64).max - np.arange(depth, dtype=np.uint64),
                               (n, depth)).copy()
        group = np.repeat(np.arange(n), lengths)
        within = np.arange(fp.size) - np.repeat(offsets[:-1], lengths)
        grid[group, within] = fp
    grid.sort(axis=1)
    suspects = np.flatnonzero((grid[:, 1:] == grid[:, :-1]).any(axis=1))
    return _confirm(offsets, column, suspects.tolist()) if suspects.size else None


def _confirm(offsets, column, groups) -> tuple[int, str] | None:
    """Check candidate groups on the real strings (error path only)."""
    column = column() if callable(column) else column
    for g in groups:
        seen: set[str] = set()
        for value in column[int(offsets[g]) : int(offsets[g + 1])].to_pylist():
            if value in seen:
                return int(g), value
            seen.add(value)
    return None


def index_codes(index: dict[str, int], names) -> np.ndarray:
    """Each name's position in `index` (a topic_index), -1 for names it lacks.

    Example:
        >>> index_codes({"a": 0, "b": 1}, ["b", "x", "a"]).tolist()
        [1, -1, 0]
        >>> index_codes({"a": 0, "b": 1}, ["a", "b"]).tolist()
        [0, 1]
    """
    n = len(names)
    # the usual case: the names are the index's own, in its order (a run's topics against
    # the qrels' or the model's): its values as they are, without a lookup per name (an
    # estimate of 100,000 topics asks some 50 times: 2 s)
    if isinstance(names, list) and n == len(index) and names == list(index):
        return np.fromiter(index.values(), dtype=np.int64, count=n)
    return np.fromiter(map(index.get, names, repeat(-1)), dtype=np.int64, count=n)


def string_array(values: Sequence[str]) -> pa.Array:
    """Arrow strings from a short Python list, without `pa.array` (which imports pandas).

    Example:
        >>> string_array(["1", "10"]).to_pylist()
        ['1', '10']
    """
    encoded = [v.encode() for v in values]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int32)
    np.cumsum([len(e) for e in encoded], out=offsets[1:])
    return pa.Array.from_buffers(pa.string(), len(encoded),
                                 [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))])  # type: ignore[arg-type]  # numpy declares __buffer__ for Python 3.12+ only


def byte_ranks(strings: pa.Array) -> np.ndarray:
    """Each string's position when the strings are sorted by bytes (ties keep input order).

    Example:
        >>> byte_ranks(string_array(["b", "a", "B"])).tolist()
        [2, 1, 0]
    """
    import pyarrow.compute as pc  # on demand: see the module's note

    order = numpy_of(pc.array_sort_indices(strings)).astype(np.int64)
    ranks = np.empty(order.size, dtype=np.int64)
    ranks[order] = np.arange(order.size)
    return ranks
