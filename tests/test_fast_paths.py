"""The fast paths (Arrow reading a file itself, block moves, integer tie keys, sliced kernels)
must give exactly what the careful paths give."""

from __future__ import annotations

import random

import numpy as np
import pyarrow as pa
import pytest

import unjudged.measures._spec as spec
from unjudged.data._strings import topic_blocks
from unjudged.data.examples import example_paths
from unjudged.data.judged import judge
from unjudged.errors import FormatError
from unjudged.io import read_qrels, read_run, read_runs
from unjudged.measures import Measure, families


def _example():
    qrels, runs = example_paths()
    return read_qrels(qrels), read_runs(runs[:2])


def _ranking(run):
    return {t: run.docno[run.offsets[i]:run.offsets[i + 1]].to_pylist()
            for i, t in enumerate(run.topics)}


def _expected(lines, ties):
    """Rankings by plain Python sorting: score descending, then docno by the tie policy."""
    by_topic: dict[str, list] = {}
    for q, d, s in lines:
        by_topic.setdefault(q, []).append((d, s))
    out = {}
    for q, docs in by_topic.items():
        key = np.float32 if ties == "trec_eval9" else float
        if ties in ("trec_eval", "trec_eval9"):
            docs = sorted(docs, key=lambda x: x[0].encode(), reverse=True)
        else:
            docs = sorted(docs, key=lambda x: x[0].encode())
        docs = sorted(docs, key=lambda x: key(x[1]), reverse=True)  # stable
        out[q] = [d for d, _ in docs]
    return out


@pytest.mark.parametrize("ties", ["trec_eval", "trec_eval9", "docno"])
@pytest.mark.parametrize("layout", ["blocks", "shuffled"])
@pytest.mark.parametrize("long_ids", [False, True])
def test_ranking_matches_python_sort(tmp_path, ties, layout, long_ids):
    rng = random.Random(7)
    lines = []
    for t in ["3", "10", "1", "2"]:  # topics not in byte order
        n = 60
        prefix = "clueweb09-en0000-" if long_ids else ""
        docs = rng.sample(range(1000), n)
        scores = sorted((rng.choice([1.0, 0.5, 0.25, 0.1, 0.05]) for _ in range(n)), reverse=True)
        lines += [(t, f"{prefix}{d}", s) for d, s in zip(docs, scores, strict=True)]
    if layout == "shuffled":
        rng.shuffle(lines)
    path = tmp_path / "run.txt"
    path.write_text("".join(f"{q} Q0 {d} 1 {s} tag\n" for q, d, s in lines))
    run = read_run(path, ties=ties)
    assert run.topics == ["1", "10", "2", "3"]
    assert _ranking(run) == _expected(lines, ties)
    assert np.all(np.diff(run.score[run.offsets[0]:run.offsets[1]]) <= 0)


def test_topic_blocks_merge_across_chunks():
    column = pa.chunked_array([pa.array(["2", "2", "10"]), pa.array(["10", "3", "2"])])
    topics, codes, starts, block_codes = topic_blocks(column)
    assert topics == ["10", "2", "3"]
    assert codes.tolist() == [1, 1, 0, 0, 2, 1]
    assert starts.tolist() == [0, 2, 4, 5]
    assert block_codes.tolist() == [1, 0, 2, 1]


def test_plain_file_with_six_field_comment_line(tmp_path):
    path = tmp_path / "run.txt"
    path.write_text("1 Q0 a 1 2.0 r\n# a b c d e\n1 Q0 b 2 1.0 r\n")
    run = read_run(path)
    assert run.topics == ["1"] and run.docno.to_pylist() == ["a", "b"]


def test_nul_inside_a_docno_of_a_plain_file(tmp_path):
    path = tmp_path / "run.txt"
    path.write_bytes(b"1 Q0 a 1 2.0 r\n1 Q0 b\x00c 2 1.0 r\n")
    with pytest.raises(FormatError, match="run.txt:2: binary"):
        read_run(path)


def test_duplicate_in_interleaved_file_names_second_line(tmp_path):
    path = tmp_path / "run.txt"
    path.write_text("1 Q0 a 1 3 r\n2 Q0 a 1 3 r\n1 Q0 b 2 2 r\n2 Q0 b 2 2 r\n1 Q0 a 3 1 r\n")
    with pytest.raises(FormatError, match=r"run.txt:5: docno 'a' appears twice in topic '1'"):
        read_run(path)


def test_doc_codes_from_reader_equal_lookup_afterwards():
    qrels, runs = _example()
    for run in runs:
        early = read_run(run.to_dict(), qrels=qrels)
        late = read_run(run.to_dict())
        assert np.array_equal(early.doc_codes(qrels), late.doc_codes(qrels))


def test_kernels_on_topic_slices_equal_whole_batch(monkeypatch):
    qrels, runs = _example()
    run = runs[0]
    measures = [Measure(s, 10 if s.cutoff != "none" else None) for s in families()]
    judged = judge(run, qrels)
    whole = [m.compute(judged) for m in measures]
    monkeypatch.setattr(spec, "_CHUNK", 7)  # a few topics per kernel call
    sliced = [m.compute(judged) for m in measures]
    for m, a, b in zip(measures, whole, sliced, strict=True):
        np.testing.assert_array_equal(a, b, err_msg=m.name)
    grades = np.stack([judged.grades] * 3)  # with a leading sample axis too
    batch = judged.with_grades(grades)
    for m, a in zip(measures, whole, strict=True):
        np.testing.assert_array_equal(m.compute(batch), np.stack([a] * 3), err_msg=m.name)


def test_qrels_read_by_arrow_and_by_bytes_agree(tmp_path):
    text = "1 0 a 1\n1 0 b 0\n2 0 a 2\n10 0 c -1\n"
    plain = tmp_path / "q.txt"
    plain.write_text(text)
    spaced = tmp_path / "q2.txt"
    spaced.write_text(text.replace(" ", "  "))  # needs the careful path
    assert read_qrels(plain).to_dict() == read_qrels(spaced).to_dict()
