"""The text prior (issue 21, second part): probabilities of relevance from the documents' text
and the topic's judged documents, drawn through the estimates prior."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

from unjudged.cli import main
from unjudged.errors import FormatError
from unjudged.io import read_qrels, read_run
from unjudged.io.topics import read_query_texts
from unjudged.text.index import build_index
from unjudged.text.prior import text_estimates

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
    assert p["x"] > 0.5 > p["y"]  # x reads like a and c, y like b and d
    assert p["x"] > p["z"] and p["y"] < p["z"] + 0.5
    # the judged documents are predicted without their own fold: each lies on the right side
    assert p["a"] > p["b"] and p["c"] > p["d"]
    np.testing.assert_allclose(est.dist.sum(axis=1), 1.0)


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
    (tmp_path / "r").write_text("1 Q0 a 1 5 r\n1 Q0 x 2 4 r\n1 Q0 b 3 3 r\n")
    (tmp_path / "s").write_text("1 Q0 y 1 5 s\n1 Q0 c 2 4 s\n1 Q0 z 3 3 s\n1 Q0 gone 4 2 s\n")
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
