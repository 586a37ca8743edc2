"""Vectorised helpers on Arrow string arrays: topic interning and duplicate detection."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

_MIX = np.uint64(0x9E3779B97F4A7C15)


def intern_topics(column: pa.ChunkedArray | pa.Array) -> tuple[list[str], np.ndarray]:
    """Topic ids sorted by byte order (trec_eval's strcmp) and each row's index into them."""
    encoded = pc.dictionary_encode(column)
    if isinstance(encoded, pa.ChunkedArray):
        encoded = encoded.combine_chunks()
    names = encoded.dictionary.to_pylist()
    order = sorted(range(len(names)), key=lambda i: names[i].encode())
    rank = np.empty(len(names), dtype=np.int32)
    rank[order] = np.arange(len(names), dtype=np.int32)
    codes = rank[encoded.indices.to_numpy(zero_copy_only=False)]
    return [names[i] for i in order], codes


def fingerprints(column: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """A 64-bit fingerprint per string: exact for strings up to 8 bytes, a hash beyond."""
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    parts = [_fingerprint_chunk(c) for c in chunks if len(c)]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.uint64)


def _fingerprint_chunk(arr: pa.Array) -> np.ndarray:
    if arr.type == pa.large_string():
        arr = arr.cast(pa.string())
    offsets = np.frombuffer(arr.buffers()[1], dtype=np.int32)[arr.offset : arr.offset + len(arr) + 1]
    data = arr.buffers()[2]
    buf = np.frombuffer(data, dtype=np.uint8) if data is not None else np.zeros(1, np.uint8)
    lengths = np.diff(offsets)
    width = max(8, int(-(-int(lengths.max(initial=1)) // 8) * 8))
    cols = np.arange(width, dtype=np.int64)
    pos = offsets[:-1, None].astype(np.int64) + cols
    np.minimum(pos, max(buf.size - 1, 0), out=pos)
    mat = buf[pos]
    mat[cols[None, :] >= lengths[:, None]] = 0
    words = np.ascontiguousarray(mat).view(np.uint64)
    h = words[:, 0].copy()
    if words.shape[1] > 1:
        h ^= lengths.astype(np.uint64) << np.uint64(56)
        for w in range(1, words.shape[1]):
            h = h * _MIX ^ words[:, w]
    return h


def first_duplicate(groups: np.ndarray, column: pa.ChunkedArray | pa.Array) -> int | None:
    """Row index of the first string repeated within its group, or None.

    `groups` gives each row's group (e.g. topic) code. Fingerprints find candidates fast;
    candidates are confirmed on the strings themselves, so a hash collision never reports a
    false duplicate.
    """
    n = len(groups)
    if n < 2:
        return None
    fp = fingerprints(column)
    key = fp ^ (groups.astype(np.uint64) * _MIX)
    order = np.argsort(key, kind="stable")
    sk = key[order]
    same = np.flatnonzero(sk[1:] == sk[:-1])
    if same.size == 0:
        return None
    values = column.take(pa.array(np.concatenate([order[same], order[same + 1]])))
    values = values.to_pylist()
    m = same.size
    hits = [
        max(order[same[i]], order[same[i] + 1])
        for i in range(m)
        if values[i] == values[m + i] and groups[order[same[i]]] == groups[order[same[i] + 1]]
    ]
    return int(min(hits)) if hits else None
