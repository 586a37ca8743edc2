"""The memory-lean structures give exactly what the plain ways give.

Fingerprints depend on the string alone, the vocabulary index finds exactly what Arrow's
index_in finds, the sorted vocabulary is what dictionary encoding gives (in byte order), and
the pool's sorted grades are what sorting each topic's grades gives.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from unjudged.data._lookup import VocabularyIndex
from unjudged.data._strings import fingerprints, numpy_of, sorted_vocabulary
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
