"""Issue 32 item 11: topics in natural order (1, 2, 10) in eval, estimate, infer and pool
outputs, trec_eval's order kept where its bytes are the point; eval --sort-runs."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from unjudged.cli import main

QRELS = "1 0 a 1\n1 0 b 0\n2 0 a 1\n10 0 c 1\n10 0 a 0\n"
RUNS = {"r10": "1 Q0 a 1 2.0 r10\n1 Q0 b 2 1.0 r10\n2 Q0 x 1 1.0 r10\n10 Q0 c 1 3.0 r10\n",
        "r2": "1 Q0 b 1 2.0 r2\n1 Q0 a 2 1.0 r2\n2 Q0 a 1 1.0 r2\n10 Q0 c 1 3.0 r2\n"}


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "q.txt").write_text(QRELS)
    for name, text in RUNS.items():
        (tmp_path / f"{name}.txt").write_text(text)
    return tmp_path


def run(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def test_eval_per_topic_table_in_natural_order(files):
    assert run("eval", "q.txt", "r10.txt", "r2.txt", "-m", "P@1", "-q").splitlines() == [
        "run  topic     P@1",
        "r10  1      1.0000",
        "r10  2      0.0000",
        "r10  10     1.0000",
        "r10  all    0.6667",
        "r2   1      0.0000",
        "r2   2      1.0000",
        "r2   10     1.0000",
        "r2   all    0.6667"]


def test_eval_jsonl_and_csv_in_natural_order(files):
    out = run("eval", "q.txt", "r10.txt", "-m", "P@1", "-q", "-f", "jsonl")
    assert [json.loads(line)["topic"] for line in out.splitlines()] == ["1", "2", "10", "all"]
    assert run("eval", "q.txt", "r10.txt", "-m", "P@1", "-q", "-f", "csv").splitlines() == [
        "run,topic,measure,value", "r10,1,P@1,1.0", "r10,2,P@1,0.0", "r10,10,P@1,1.0",
        "r10,all,P@1,0.6666666666666666"]


def test_eval_trec_format_keeps_trec_evals_order(files):
    """-f trec is trec_eval's layout: its byte order of topics (1, 10, 2), as the drop-in."""
    out = run("eval", "q.txt", "r10.txt", "-m", "P@1", "-q", "-f", "trec")
    assert [line.split("\t")[1] for line in out.splitlines()] == ["1", "10", "2", "all"]
    drop_in = run("trec_eval", "-q", "-m", "P.1", "q.txt", "r10.txt")
    assert [line.split("\t")[1] for line in drop_in.splitlines()] == ["1", "10", "2", "all"]


def test_estimate_and_infer_per_topic_in_natural_order(files):
    out = run("estimate", "q.txt", "r10.txt", "-m", "P@1", "-q", "--methods", "nonrel")
    assert out.splitlines()[:5] == ["run  topic  measure  nonrel",
                                    "r10  1      P@1      1.0000",
                                    "r10  2      P@1      0.0000",
                                    "r10  10     P@1      1.0000",
                                    "r10  all    P@1      0.6667"]
    out = run("infer", "q.txt", "r10.txt", "-m", "infAP", "-q", "-f", "jsonl")
    assert [json.loads(line)["topic"] for line in out.splitlines()] == ["1", "2", "10", "all"]


def test_pool_lines_and_summary_in_natural_order(files):
    assert run("pool", "-k", "1", "r10.txt", "r2.txt", "--format", "pairs").splitlines() == [
        "1 a", "1 b", "2 a", "2 x", "10 c"]
    out = run("pool", "-k", "1", "r10.txt", "r2.txt", "-o", str(files / "pool.txt"))
    assert out.splitlines()[1:6] == ["topic  pooled", "1           2",
                                            "2           2", "10          1", "all         5"]
    assert (files / "pool.txt").read_text().splitlines()[-1] == "10 0 c -1"


def test_eval_sort_runs(files):
    args = ["eval", "q.txt", "r10.txt", "r2.txt", "-m", "RR", "-m", "P@1"]
    assert run(*args).splitlines() == ["run      RR     P@1", "r10  0.6667  0.6667",
                                       "r2   0.8333  0.6667"]
    assert run(*args, "--sort-runs", "score").splitlines() == [
        "run      RR     P@1", "r2   0.8333  0.6667", "r10  0.6667  0.6667"]
    assert run(*args, "--sort-runs", "name").splitlines()[1:] == [
        "r2   0.8333  0.6667", "r10  0.6667  0.6667"]
    # ties on the first measure: natural name order
    assert run("eval", "q.txt", "r10.txt", "r2.txt", "-m", "P@1", "--sort-runs",
               "score").splitlines()[1:] == ["r2   0.6667", "r10  0.6667"]


def test_sort_runs_lower_is_better_and_bad_order():
    from unjudged.engine.score import score
    from unjudged.errors import InvalidOptionError
    from unjudged.io import read_qrels, read_run
    from unjudged.measures import parse_measures

    q = read_qrels({"t": {"a": 1, "b": 1}})
    rs = [read_run({"t": {"a": 2, "b": 1}}, name="full"),
          read_run({"t": {"a": 1}}, name="half")]
    res = score(rs, q, parse_measures(["NumRet"]))
    assert [r.run for r in res.sorted_runs("score").runs] == ["full", "half"]
    with pytest.raises(InvalidOptionError, match="sort runs by"):
        res.sorted_runs("size")


def test_cli_run_orders_match_the_engine():
    from unjudged.cli.evaluate import RUN_ORDERS as CLI
    from unjudged.engine.results import RUN_ORDERS

    assert CLI == RUN_ORDERS
