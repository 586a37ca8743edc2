"""Fingerprints (unjudged.data._strings.fingerprints) read each word straight from Arrow's data
buffer: checked against their definition on ids of every length, at the buffer's end, in
slices and chunked arrays."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from unjudged.data._strings import fingerprints

_MIX = 0x9E3779B97F4A7C15
_WORD = (1 << 64) - 1


def _defined(s: str) -> int:
    """The fingerprint by its definition: a string of up to 8 bytes is its bytes as one
    little-endian word; a longer one mixes its words into its first word and its length."""
    raw = s.encode()
    words = [int.from_bytes(raw[i : i + 8], "little") for i in range(0, max(len(raw), 1), 8)]
    if len(raw) <= 8:
        return words[0]
    h = words[0] ^ (len(raw) << 56 & _WORD)
    for w in words[1:]:
        h = (h * _MIX & _WORD) ^ w
    return h


def _ids(rng: np.random.Generator, n: int) -> list[str]:
    letters = np.array(list("abcXYZ019-_é"))
    sizes = rng.choice([0, 1, 3, 7, 8, 9, 15, 16, 17, 24, 25, 40, 130], size=n)
    return ["".join(rng.choice(letters, size=k)) for k in sizes]


def test_fingerprints_match_their_definition_at_every_length_and_at_the_buffer_end():
    rng = np.random.default_rng(3)
    for n in (1, 2, 5, 40, 300):
        ids = _ids(rng, n)
        got = fingerprints(pa.array(ids, pa.string()))
        assert got.dtype == np.uint64
        assert got.tolist() == [_defined(s) for s in ids], ids


def test_fingerprints_of_slices_chunks_large_strings_and_empty_strings():
    rng = np.random.default_rng(4)
    ids = _ids(rng, 500)
    expected = [_defined(s) for s in ids]
    whole = pa.array(ids, pa.string())
    assert fingerprints(whole.slice(123, 200)).tolist() == expected[123:323]
    assert fingerprints(whole.slice(495)).tolist() == expected[495:]
    chunked = pa.chunked_array([whole.slice(0, 10), whole.slice(10, 0), whole.slice(10)])
    assert fingerprints(chunked).tolist() == expected
    assert fingerprints(pa.array(ids, pa.large_string())).tolist() == expected
    assert fingerprints(pa.array(["", "", ""], pa.string())).tolist() == [0, 0, 0]
    assert fingerprints(pa.array([], pa.string())).size == 0
    # a byte that a shorter id's zero padding could be mistaken for
    assert fingerprints(pa.array(["a", "a\0"])).tolist() == [_defined("a"), _defined("a\0")]


def test_byte_rows_of_any_rows_from_any_byte_zero_padded():
    from unjudged.data._strings import byte_rows

    rng = np.random.default_rng(5)
    ids = _ids(rng, 400)
    column = pa.chunked_array([pa.array(ids[:150]), pa.array(ids[150:])])
    raw = [s.encode() for s in ids]
    for rows, width, start in ((None, None, 0), (rng.permutation(400)[:90], 16, 0),
                               (np.sort(rng.choice(400, 50, replace=False)), 24, 8),
                               (np.array([399, 0, 399]), 8, 3 * 8)):
        mat, lengths = byte_rows(column, rows, width, start)
        picked = range(400) if rows is None else rows.tolist()
        wide = mat.shape[1]
        assert wide % 8 == 0 and (width is None or wide == width)
        assert lengths.tolist() == [len(raw[r]) for r in picked]
        assert [bytes(row) for row in mat] == [raw[r][start : start + wide].ljust(wide, b"\0")
                                               for r in picked]
