"""The run-building helpers cost one pass however Arrow chunks a column (its chunks grow with
the file): the rows of several chunks are split by one sort, and give what one chunk gives."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from unjudged.data._strings import _by_chunk, byte_rows, row_lengths


def _column(rng, n: int, sizes: list[int]) -> tuple[list[str], pa.ChunkedArray]:
    words = [("d" * int(rng.integers(0, 3))) + str(rng.integers(0, 10**rng.integers(1, 18)))
             for _ in range(n)]
    cuts = np.cumsum([0, *sizes])
    assert cuts[-1] == n
    return words, pa.chunked_array([pa.array(words[a:b], pa.string())
                                    for a, b in zip(cuts[:-1], cuts[1:], strict=True)])


def test_by_chunk_splits_rows_in_order():
    bounds = np.array([0, 3, 3, 7, 10])  # an empty chunk too
    rows = np.array([8, 0, 4, 2, 9, 6, 0])
    parts = _by_chunk(bounds, rows)
    assert [p.tolist() for p in parts] == [[1, 3, 6], [], [2, 5], [0, 4]]
    assert [p.tolist() for p in _by_chunk(bounds, np.sort(rows))] == [[0, 1, 2], [], [3, 4],
                                                                     [5, 6]]
    assert [p.tolist() for p in _by_chunk(bounds, rows[:0])] == [[], [], [], []]


def test_rows_of_many_chunks_read_as_from_one():
    rng = np.random.default_rng(3)
    words, chunked = _column(rng, 3000, [1000, 0, 1, 999, 1000])
    whole = pa.chunked_array([pa.array(words, pa.string())])
    for rows in (np.sort(rng.choice(3000, 700, replace=False)), rng.integers(0, 3000, 900)):
        mat, lengths = byte_rows(chunked, rows)
        one, one_lengths = byte_rows(whole, rows)
        np.testing.assert_array_equal(mat, one)
        np.testing.assert_array_equal(lengths, one_lengths)
        assert lengths.tolist() == [len(words[r]) for r in rows]
        assert row_lengths(chunked, rows).tolist() == lengths.tolist()
        got = [bytes(m[:k]).decode() for m, k in zip(mat, lengths, strict=True)]
        assert got == [words[r] for r in rows]
        # a window from byte 8 on
        tail, _ = byte_rows(chunked, rows, 16, 8)
        assert [bytes(t).rstrip(b"\0").decode() for t in tail] == [words[r][8:24] for r in rows]


def test_long_runs_look_documents_up_in_the_fingerprint_index():
    """Arrow's index_in above 4M lines was slower and larger; only a fingerprint collision in
    the vocabulary sends a lookup there now."""
    from unjudged.data._lookup import VocabularyIndex
    from unjudged.data._strings import string_array

    vocab = string_array(["a", "doc-with-a-long-id-1", "doc-with-a-long-id-2", "b"])
    index = VocabularyIndex(vocab)
    assert not index.by_hash(10**8)
    column = pa.chunked_array([string_array(["b", "x", "doc-with-a-long-id-2"]),
                               string_array(["a", "doc-with-a-long-id-3"])])
    assert index.codes(column).tolist() == [3, -1, 2, 0, -1]


def test_runs_are_read_two_ahead():
    """Each run read ahead holds its columns until its turn: two at once, not four (10 runs of
    250k lines peaked 17 MB lower at the same speed)."""
    import threading
    import time

    from unjudged.io.runs import _read_ahead

    gate = threading.Event()
    calls: list[int] = []

    def read(i: int) -> int:
        calls.append(i)
        gate.wait(30)
        return i

    got: list[int] = []
    consumer = threading.Thread(target=lambda: got.extend(_read_ahead(read, 10)))
    consumer.start()
    for _ in range(300):  # until the readers have started (a busy machine may be slow)
        if len(calls) >= 2:
            break
        time.sleep(0.05)
    time.sleep(0.3)  # room for any further reader to start
    started = len(calls)
    gate.set()
    consumer.join(30)
    assert started == 2
    assert got == list(range(10))
