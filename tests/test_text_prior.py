"""The text prior (issue 21, second part): probabilities of relevance from the documents' text
and the topic's judged documents, drawn through the estimates prior."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from click.testing import CliRunner

from unjudged.cli import main
from unjudged.errors import FormatError
from unjudged.io import read_qrels, read_run
from unjudged.io.topics import read_query_texts
from unjudged.text.index import build_index
from unjudged.text.prior import _depth_shift, _features, _pairs, text_estimates

CORPUS = {"a": "wing lift aircraft wing", "b": "shock wave tunnel", "c": "wing lift drag",
          "d": "boundary layer shock", "x": "wing lift", "y": "shock tunnel wave",
          "z": "marine biology"}


def _case():
    index = build_index(list(CORPUS), list(CORPUS.values()))
    q = read_qrels({"1": {"a": 1, "b": 0, "c": 1, "d": 0}})
    r = read_run({"1": {"a": 5, "x": 4, "b": 3}}, name="r")
    s = read_run({"1": {"y": 5, "c": 4, "z": 3, "gone": 2}}, name="s")
    return index, q, [r, s]


def test_documents_like_the_relevant_ones_are_likelier_relevant():
    index, q, runs = _case()
    est, counts = text_estimates(index, q, runs, queries={"1": "wing lift"})
    p = dict(zip(est.docno.to_pylist(), est.dist[:, 1], strict=True))
    assert est.relevance_only and est.topic.to_pylist() == ["1"] * len(p)
    assert counts == {"estimated": 7, "missing": 1}  # "gone" is not in the corpus
    assert p["x"] > 5 * p["y"] and p["x"] > 5 * p["z"]  # x reads like a and c, y like b and d
    # the judged documents are predicted without their own fold: each lies on the right side
    assert p["a"] > p["b"] and p["c"] > p["d"]
    np.testing.assert_allclose([p[d] for d in "axbyczd"],
                               [0.7631, 0.4504, 0.3548, 0.0675, 0.6908, 0.0458, 0.2517],
                               atol=1e-3)
    np.testing.assert_allclose(est.dist.sum(axis=1), 1.0)


def test_a_topic_without_relevant_judged_documents_borrows_from_the_others():
    index, _, _ = _case()
    q = read_qrels({"1": {"a": 1, "b": 0, "c": 1, "d": 0}, "2": {"b": 0, "d": 0}})
    r = read_run({"1": {"a": 5, "x": 4, "b": 3}, "2": {"b": 5, "y": 4}}, name="r")
    s = read_run({"1": {"y": 5, "c": 4, "z": 3}, "2": {"d": 5, "x": 4}}, name="s")
    est, _ = text_estimates(index, q, [r, s], queries={"1": "wing lift", "2": "shock wave"})
    p = {(t, d): v for t, d, v in zip(est.topic.to_pylist(), est.docno.to_pylist(),
                                     est.dist[:, 1], strict=True)}
    # its intercept is pulled towards topic 1's: not 0 as its judged rate, but below topic 1
    assert 0.02 < p["2", "x"] < p["2", "y"] < 0.1 < p["1", "x"]
    np.testing.assert_allclose([p["2", "x"], p["2", "y"], p["1", "x"]], [0.0321, 0.0793, 0.8016],
                               atol=1e-3)


def test_a_judged_documents_features_never_use_its_own_label():
    index, q, runs = _case()
    pairs = _pairs(q, runs, None, 1)
    rows = index.rows(pairs["docno"])
    keep = rows >= 0
    t, rows, position = pairs["topic"][keep], rows[keep], pairs["position"][keep]
    docs = pairs["docno"].filter(pa.array(keep)).to_pylist()
    judged, label = np.isin(docs, list("abcd")), np.isin(docs, list("ac"))
    fold = rows % 3
    x = _features(index, ["1"], t, rows, judged, label, None, None, position, fold, 3)
    flipped = label.copy()
    a = docs.index("a")
    flipped[a] = False
    y = _features(index, ["1"], t, rows, judged, flipped, None, None, position, fold, 3)
    assert x.shape == (3, 7, 17)  # 2 x 7 relevance-feedback features, length, best, votes
    np.testing.assert_array_equal(x[fold[a], a], y[fold[a], a])  # its fold's references
    others = [f for f in range(3) if f != fold[a]]
    assert not np.array_equal(x[others][:, docs.index("x")], y[others][:, docs.index("x")])
    # max, mean and centroid cosine (tf-idf) against the relevant references outside its fold
    c = docs.index("c")
    assert fold[a] != fold[c] and x[fold[a], a, 0] == x[fold[a], a, 1] == x[fold[a], a, 2] > 0


def test_the_depth_shift_measures_how_the_extrapolation_errs():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, 2))
    t, judged = np.zeros(400, dtype=np.int64), np.ones(400, dtype=bool)
    best = np.repeat([1.0, 5.0], 200)  # a shallow and a deep half
    label = rng.random(400) < 1 / (1 + np.exp(1 - 2 * x[:, 0]))  # the same at both depths
    assert abs(_depth_shift(x, t, judged, label, best, 1)) < 0.3
    fewer = label & ((best == 1) | (rng.random(400) < 0.3))  # the deep half: 70% lost
    assert _depth_shift(x, t, judged, fewer, best, 1) < -1.0
    assert _depth_shift(x, t, judged, label, np.ones(400), 1) == 0.0  # no deeper half
    few = judged & (np.arange(400) < 204)  # two deep documents, both non-relevant
    assert -1.0 < _depth_shift(x, t, few, label & (best == 1), best, 1) < 0.0


def test_query_texts_file(tmp_path):
    (tmp_path / "q").write_text("# topics\n1\twing lift\n2 shock  wave\n")
    assert read_query_texts(str(tmp_path / "q")) == {"1": "wing lift", "2": "shock wave"}
    (tmp_path / "bad").write_text("1 wing\n2\n")
    with pytest.raises(FormatError, match=r"bad:2: expected `topic text...`"):
        read_query_texts(str(tmp_path / "bad"))
    (tmp_path / "twice").write_text("1 wing\n1 lift\n")
    with pytest.raises(FormatError, match="topic 1 has a second query text"):
        read_query_texts(str(tmp_path / "twice"))


def test_cli(tmp_path):
    (tmp_path / "corpus.tsv").write_text("".join(f"{d}\t{t}\n" for d, t in CORPUS.items()))
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n1 0 c 1\n1 0 d 0\n")
    (tmp_path / "r").write_text("1 Q0 a 1 5 r\n1 Q0 x 2 4 r\n1 Q0 b 3 3 r\n1 Q0 z 4 2 r\n")
    (tmp_path / "s").write_text("1 Q0 y 1 5 s\n1 Q0 c 2 4 s\n1 Q0 d 3 3 s\n1 Q0 gone 4 2 s\n")
    (tmp_path / "topics").write_text("1\twing lift\n")
    base = ["estimate", str(tmp_path / "q"), str(tmp_path / "r"), str(tmp_path / "s"), "-m",
            "P@3", "-b", "2000", "--methods", "bootstrap", "-f", "tsv"]
    res = CliRunner().invoke(main, base + ["--prior", "text", "--corpus",
                                           str(tmp_path / "corpus.tsv"), "--queries",
                                           str(tmp_path / "topics")])
    assert res.exit_code == 0, res.output
    rows = [line.split("\t") for line in res.stdout.splitlines()[1:]]
    value = {r[0]: float(r[4]) for r in rows}
    assert value["r"] > value["s"]  # r's unjudged x reads relevant, s's y does not
    assert "lacks 1 of the 8 documents retrieved or judged" in res.stderr
    assert "estimates the text of" in res.stderr and "trust" in res.stderr
    res = CliRunner().invoke(main, base + ["--prior", "text"])
    assert res.exit_code == 2 and "--prior text and --corpus go together" in res.stderr
    res = CliRunner().invoke(main, ["eval", str(tmp_path / "q"), str(tmp_path / "r"), "-m",
                                    "P@3", "--unjudged", "bootstrap", "--prior", "text"])
    assert res.exit_code == 2 and "not 'text'" in res.stderr
