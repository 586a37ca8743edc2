"""The reader's (topic, document) pairs (unjudged.data._pairs) against a dict of the qrels,
and judging through them against judging through the qrels vocabulary."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from unjudged.data import _pairs
from unjudged.data._strings import fingerprints
from unjudged.data.judged import judge
from unjudged.io import read_qrels, read_run


def _qrels_dict(rng: np.random.Generator, topics: list[str], docs: list[str]
                ) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for t in topics:
        picked = rng.choice(len(docs), size=int(rng.integers(1, 40)), replace=False)
        out[t] = {docs[i]: int(rng.integers(-1, 4)) for i in picked}
    return out


def _docs(rng: np.random.Generator) -> list[str]:
    # short ids (the fingerprint is the id), long ids sharing their first 8 bytes, and ""
    short = [str(i) for i in rng.choice(10**6, size=300, replace=False)]
    long = [f"clueweb12-{i:07d}" for i in rng.choice(10**6, size=200, replace=False)]
    return short + long


def test_find_equals_a_dict_lookup_per_topic():
    rng = np.random.default_rng(3)
    docs = _docs(rng)
    topics = [str(t) for t in range(1, 40)]
    qd = _qrels_dict(rng, topics[:30], docs)
    q = read_qrels(qd)
    index = q.pair_index()
    assert index is not None
    where = {(q.topics[int(k) // len(q.docs)], q.docs[int(k) % len(q.docs)].as_py()): i
             for i, k in enumerate(q.keys)}
    # rows of topics in any order (interleaved, numeric), topics the qrels lack, documents of
    # other topics, near misses of long ids and unknown ids
    n = 5000
    row_topic = rng.choice(topics, size=n)
    pool = docs + [d + "x" for d in docs[::9]] + [d[:-1] for d in docs[300::7]] + ["", "0"]
    row_doc = [pool[i] for i in rng.integers(0, len(pool), size=n)]
    names = sorted(set(row_topic))
    code = {t: i for i, t in enumerate(names)}
    tcode = np.array([code[t] for t in row_topic], dtype=np.int32)
    column = pa.array(row_doc)
    got = index.find(tcode, q.topic_codes(names), column, fingerprints(column))
    want = [where.get((t, d), -1) for t, d in zip(row_topic, row_doc, strict=True)]
    assert got.tolist() == want
    assert (got >= 0).sum() > 100  # the test finds pairs, not only misses


def test_find_with_an_empty_qrels_and_one_topic():
    q = read_qrels({"t": {"d1": 1, "a-long-document-id": 0}})
    column = pa.array(["d1", "a-long-document-id", "a-long-document-ie", "d"])
    index = q.pair_index()
    got = index.find(np.zeros(4, np.int32), np.array([0]), column, fingerprints(column))
    assert got.tolist() == [1, 0, -1, -1]  # keys sort by document: a-long... before d1
    other = np.array([-1])  # the rows' topic is not in the qrels
    assert index.find(np.zeros(4, np.int32), other, column, fingerprints(column)).tolist() \
        == [-1] * 4


def _run_text(rng: np.random.Generator, topics: list[str], docs: list[str],
              grouped: bool) -> str:
    lines = []
    for t in topics:
        picked = rng.choice(len(docs), size=int(rng.integers(5, 60)), replace=False)
        for r, i in enumerate(picked):
            lines.append(f"{t} Q0 {docs[i]} {r + 1} {float(rng.integers(0, 20))} tag")
    if not grouped:
        rng.shuffle(lines)
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("grouped", [True, False])
def test_judging_through_pairs_equals_judging_through_the_vocabulary(tmp_path, grouped):
    rng = np.random.default_rng(11 if grouped else 12)
    docs = _docs(rng)
    topics = [str(t) for t in range(1, 60)]  # numeric order: not the byte order
    q = read_qrels(_qrels_dict(rng, topics[5:], docs))
    path = tmp_path / "run.txt"
    path.write_text(_run_text(rng, topics, docs, grouped))
    with_pairs = read_run(path, qrels=q)
    assert with_pairs.judged_pairs(q) is not None
    plain = read_run(path)
    assert plain.judged_pairs(q) is None
    a, b = judge(with_pairs, q), judge(plain, q)
    assert a.topics == b.topics
    assert np.array_equal(a.grades, b.grades) and np.array_equal(a.length, b.length)
    # other qrels (the pairs belong to the qrels they were found in): the vocabulary's way
    fewer = q.without(q.keys[::2])
    assert with_pairs.judged_pairs(fewer) is None
    assert np.array_equal(judge(with_pairs, fewer).grades, judge(plain, fewer).grades)


def test_a_key_shared_by_two_documents_falls_back_to_the_vocabulary(tmp_path, monkeypatch):
    rng = np.random.default_rng(5)
    docs = _docs(rng)
    topics = [str(t) for t in range(1, 20)]
    qd = _qrels_dict(rng, topics, docs)
    path = tmp_path / "run.txt"
    path.write_text(_run_text(rng, topics, docs, True))
    expected = judge(read_run(path), read_qrels(qd)).grades

    # every document of a topic given one key, as a fingerprint collision would
    def topic_only(self, topic, fp):
        return topic << self._high

    monkeypatch.setattr(_pairs.PairIndex, "_key", topic_only)
    q = read_qrels(qd)
    assert q.pair_index() is None
    run = read_run(path, qrels=q)
    assert run.judged_pairs(q) is None
    assert np.array_equal(judge(run, q).grades, expected)


def test_more_topics_than_16_bits_hold(tmp_path):
    # 70,000 topics: the topic code takes 17 bits of the key, the dropped fingerprint bits are
    # kept in 32 bits instead of 16
    n = 70_000
    lines = [f"{t} 0 d{t % 97} {t % 3}\n" for t in range(n)] + ["5 0 long-document-id-5 2\n"]
    qp = tmp_path / "q.txt"
    qp.write_text("".join(lines))
    q = read_qrels(qp)
    index = q.pair_index()
    assert index is not None and index._low.dtype == np.uint32
    run = "".join(f"{t} Q0 d{(t + k) % 97} {k + 1} {9 - k} r\n" for t in range(0, n, 7)
                  for k in range(3)) + "5 Q0 long-document-id-5 9 0.5 r\n"
    rp = tmp_path / "r.txt"
    rp.write_text(run)
    a, b = judge(read_run(rp, qrels=q), q), judge(read_run(rp), q)
    assert np.array_equal(a.grades, b.grades)
    assert (a.grades >= 0).sum() == n // 7 + 1  # rank 1 of every topic, and the long id
