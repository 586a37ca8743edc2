"""The memory-lean structures give exactly what the plain ways give.

Fingerprints depend on the string alone, the vocabulary index finds exactly what Arrow's
index_in finds, the sorted vocabulary is what dictionary encoding gives (in byte order), the
pool's sorted grades are what sorting each topic's grades gives, and the numpy string helpers
that keep `unjudged eval` off Arrow's compute kernels agree with plain Python.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from unjudged.data._lookup import VocabularyIndex
from unjudged.data._strings import (
    byte_rows,
    fingerprints,
    intern_topics,
    numpy_of,
    sorted_vocabulary,
    topic_blocks,
)
from unjudged.data.judged import Pool
from unjudged.errors import FormatError
from unjudged.io import read_qrels, read_run

# short ids, long ids sharing prefixes, ids that differ only in a trailing NUL or in length
_IDS = st.one_of(
    st.text("ab0", min_size=0, max_size=10),
    st.sampled_from(["clueweb09-en0000-00-00000", "clueweb09-en0000-00-00001", "ab",
                     "ab\x00", "abcdefgh", "abcdefghi", "abcdefgh\x00", "\u00e9t\u00e9"]),
)


@given(st.lists(_IDS, max_size=60), st.lists(_IDS, max_size=60))
@settings(max_examples=200, deadline=None)
def test_vocabulary_index_finds_what_index_in_finds(vocab, queries):
    vocabulary = pa.array(sorted(set(vocab)), pa.string())
    column = pa.chunked_array([pa.array(queries[:7], pa.string()),
                               pa.array(queries[7:], pa.string())])
    expected = numpy_of(pc.index_in(column, value_set=vocabulary), null=-1).astype(np.int64)
    assert VocabularyIndex(vocabulary).codes(column).tolist() == expected.tolist()


def test_vocabulary_index_with_colliding_fingerprints_falls_back(monkeypatch):
    index = VocabularyIndex(pa.array(["doc-long-one", "doc-long-two"]))
    monkeypatch.setattr(index, "_exact", False)
    assert index.codes(pa.array(["doc-long-two", "x"])).tolist() == [1, -1]


def test_a_fingerprint_does_not_depend_on_the_neighbours():
    short = "d0001"
    alone = fingerprints(pa.array([short]))[0]
    beside_long = fingerprints(pa.array(["a-very-long-document-id-0000", short]))[1]
    long_alone = fingerprints(pa.array(["a-very-long-document-id-0000"]))[0]
    long_beside_longer = fingerprints(pa.array(["x" * 64, "a-very-long-document-id-0000"]))[1]
    assert alone == beside_long == int.from_bytes(b"d0001", "little")
    assert long_alone == long_beside_longer


def test_duplicate_found_across_slices_of_different_widths(tmp_path):
    # rows 100 and 4200 of one topic hold the same docno; the second 4096-row slice also holds
    # a long docno, which once changed how that slice's short docnos were fingerprinted
    docs = [f"d{i:05d}" for i in range(5000)]
    docs[4200] = docs[100]
    docs[4500] = "a-document-id-longer-than-one-word"
    path = tmp_path / "run.txt"
    path.write_text("".join(f"1 Q0 {d} {i + 1} {5000 - i} r\n" for i, d in enumerate(docs)))
    with pytest.raises(FormatError,
                       match=r"run.txt:4201: docno 'd00100' appears twice in topic '1'"):
        read_run(str(path))


@given(st.lists(_IDS, min_size=1, max_size=80))
@settings(max_examples=100, deadline=None)
def test_sorted_vocabulary_is_dictionary_encoding_in_byte_order(values):
    docs, codes = sorted_vocabulary(pa.chunked_array([pa.array(values[:5], pa.string()),
                                                      pa.array(values[5:], pa.string())]))
    distinct = sorted(set(values), key=lambda s: s.encode())
    assert docs.to_pylist() == distinct
    assert [distinct[c] for c in codes] == values


def test_qrels_documents_are_in_byte_order_with_codes_per_line():
    q = read_qrels({"2": {"b": 1, "a": 0}, "10": {"c": 2, "b": 0}})
    assert q.docs.to_pylist() == ["a", "b", "c"]
    assert q.to_dict() == {"10": {"b": 0, "c": 2}, "2": {"a": 0, "b": 1}}


@pytest.mark.parametrize("negative", ["unjudged", "nonrel"])
@given(st.lists(st.dictionaries(st.sampled_from("abcdefgh"), st.integers(-2, 3), max_size=8),
                min_size=1, max_size=6), st.data())
@settings(max_examples=60, deadline=None)
def test_pool_grades_are_each_topics_grades_sorted(negative, topics, data):
    q = read_qrels({f"t{i}": docs for i, docs in enumerate(topics) if docs} or {"t0": {"a": 0}})
    names = data.draw(st.lists(st.sampled_from(q.topics + ["absent"]), min_size=1, unique=True))
    pool = Pool.build(q, names, negative)
    truth = q.to_dict()
    for i, name in enumerate(names):
        grades = list(truth.get(name, {}).values())
        if negative == "nonrel":
            grades = [max(g, 0) for g in grades]
        kept = sorted((g for g in grades if g >= 0), reverse=True)
        row = pool.sorted_grades[i]
        assert row[: len(kept)].tolist() == kept and (row[len(kept):] == -1).all()
        assert pool.num_unjudged[i] == sum(g < 0 for g in grades)


def _layouts(values: list[str]):
    """The same strings as one array, as chunks, as a slice of a longer array, as
    large_string: the helpers read buffers directly, so each layout is its own case."""
    yield pa.array(values, pa.string())
    yield pa.chunked_array([pa.array(values[:3], pa.string()), pa.array([], pa.string()),
                            pa.array(values[3:], pa.string())])
    yield pa.array(["pad"] + values + ["pad"], pa.string()).slice(1, len(values))
    yield pa.array(values, pa.large_string())


@given(st.lists(_IDS, min_size=1, max_size=40))
@settings(max_examples=60, deadline=None)
def test_sorted_vocabulary_in_every_layout(values):
    distinct = sorted(set(values), key=lambda s: s.encode())
    for column in _layouts(values):
        docs, codes = sorted_vocabulary(column)
        assert docs.to_pylist() == distinct
        assert [distinct[c] for c in codes] == values


@pytest.mark.parametrize("value", ["0", "", "Q0-long-iteration-value"])
def test_sorted_vocabulary_of_one_repeated_value(value):
    for column in _layouts([value] * 7):
        docs, codes = sorted_vocabulary(column)
        assert docs.to_pylist() == [value] and codes.tolist() == [0] * 7


def test_sorted_vocabulary_beyond_the_matrix_limit_sorts_with_arrow(monkeypatch):
    import unjudged.data._strings as strings

    monkeypatch.setattr(strings, "_MATRIX_BYTES", 8)
    docs, codes = sorted_vocabulary(pa.array(["b", "a", "b", "ab\x00"]))
    assert docs.to_pylist() == ["a", "ab\x00", "b"] and codes.tolist() == [2, 0, 2, 1]


@given(st.lists(_IDS, min_size=1, max_size=40), st.data())
@settings(max_examples=60, deadline=None)
def test_byte_rows_of_chosen_rows(values, data):
    rows = data.draw(st.lists(st.integers(0, len(values) - 1), max_size=20))
    for column in _layouts(values):
        mat, lengths = byte_rows(column, np.array(rows, dtype=np.int64))
        assert mat.shape[1] % 8 == 0
        got = [bytes(mat[i, : lengths[i]]) for i in range(len(rows))]
        assert got == [values[r].encode() for r in rows]
        assert not mat[np.arange(mat.shape[1]) >= lengths[:, None]].any()  # zero padding


def test_topics_interned_through_dictionaries_as_through_strings():
    values = ["10", "2", "2", "301", "10", "\u00e9", "2"]
    plain = intern_topics(pa.array(values))
    chunked = pa.chunked_array([pa.array(values[:4]).dictionary_encode(),
                                pa.array(values[4:]).dictionary_encode()])
    assert plain[0] == ["10", "2", "301", "\u00e9"] == intern_topics(chunked)[0]
    assert plain[1].tolist() == intern_topics(chunked)[1].tolist() == [0, 1, 1, 2, 0, 3, 1]
    topics, codes, starts, block_codes = topic_blocks(chunked)
    assert starts.tolist() == [0, 1, 3, 4, 5, 6] and block_codes.tolist() == [0, 1, 2, 0, 3, 1]
    assert topic_blocks(pa.array(values))[2].tolist() == starts.tolist()


@pytest.mark.parametrize("ties", ["trec_eval", "trec_eval9", "docno"])
@given(st.lists(st.sampled_from(["clueweb09-en0000-00-00000", "clueweb09-en0000-00-00001",
                                 "clueweb09-en0000-00-0000", "d1", "d10", "d2", "b\u00e9",
                                 "be", "clueweb09-en0000-00-00001z"]),
                min_size=1, max_size=9, unique=True), st.data())
@settings(max_examples=40, deadline=None)
def test_tied_documents_ordered_by_their_bytes(ties, docs, data):
    scores = data.draw(st.lists(st.sampled_from([1.0, 2.0]), min_size=len(docs),
                                max_size=len(docs)))
    run = read_run({"q": dict(zip(docs, scores, strict=True))}, ties=ties)
    descending = ties in ("trec_eval", "trec_eval9")
    expected = sorted(docs, key=lambda d: d.encode(), reverse=descending)
    expected = sorted(expected, key=lambda d: -scores[docs.index(d)])  # stable: ties stay
    assert run.docno.to_pylist() == expected


def test_eval_on_plain_files_needs_no_arrow_compute(tmp_path):
    # importing pyarrow.compute costs 9 MB of peak memory; `unjudged eval` on ordinary files
    # must not need it (see unjudged.data._strings)
    (tmp_path / "qrels").write_text("1 0 clueweb-long-doc-a 1\n1 0 d2 0\n2 0 d3 2\n")
    (tmp_path / "run").write_text("1 Q0 d2 1 3.0 r\n1 Q0 clueweb-long-doc-a 2 3.0 r\n"
                                  "1 Q0 dx 3 1.0 r\n2 Q0 d3 1 1.0 r\n")
    probe = ("import sys; from unjudged.cli import main\n"
             "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
             "print('compute' if 'pyarrow._compute' in sys.modules else 'lean')")
    out = subprocess.run([sys.executable, "-c", probe, "eval", str(tmp_path / "qrels"),
                          str(tmp_path / "run"), "-m", "AP", "-m", "nDCG@10", "-m", "Bpref",
                          "-m", "Judged@10", "--format", "tsv"],
                         capture_output=True, text=True, check=True).stdout
    # topic 1: d2 and the long id tie, and d2 ranks first (docno descending): AP 1/2
    lines = out.splitlines()[1:]
    assert [x.rsplit("\t", 1)[0] for x in lines[:4]] == [
        "r\tall\tAP", "r\tall\tnDCG@10", "r\tall\tBpref", "r\tall\tJudged@10"]
    assert [round(float(x.rsplit("\t", 1)[1]), 4) for x in lines[:4]] == [
        0.75, 0.8155, 0.5, 0.8333]
    assert lines[4] == "lean"
