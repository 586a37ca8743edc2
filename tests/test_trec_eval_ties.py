"""trec_eval 10.0 ranks on scores compared as C doubles (usnistgov/trec_eval dc0c991 on), trec_eval
9 on C floats: the default "trec_eval" tie policy is 10.0's rule, "trec_eval9" keeps 9's. Both are
told apart on a near-tie and on the TREC-COVID round-1 runs whose scores tie only as floats."""

from __future__ import annotations

import io
import lzma

import numpy as np
import pytest
from click.testing import CliRunner

import unjudged
from shared_data import COVID1, need
from unjudged.cli import main
from unjudged.io import read_qrels, read_run
from unjudged.policies import Policies, TieBreak
from unjudged.trec_eval._prefs import ranked_judged
from unjudged.trec_eval._run import run_trec_eval

# 1.00000001 and 1.0 are one float32 (1.0) but two doubles: as doubles "a" ranks first, as
# floats they tie and go by docno descending, "b" first. Only "a" is relevant.
NEAR_QRELS = "1 0 a 1\n1 0 b 0\n"
NEAR_RUN = "1 Q0 a 1 1.00000001 r\n1 Q0 b 2 1.0 r\n"


def test_near_tie_tells_the_rules_apart(tmp_path):
    assert np.float32(1.00000001) == np.float32(1.0) and 1.00000001 != 1.0
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text(NEAR_QRELS)
    run.write_text(NEAR_RUN)
    measures = ["-m", "map", "-m", "recip_rank", "-m", "P.1"]
    ten = CliRunner().invoke(main, ["trec_eval", *measures, str(qrels), str(run)])
    nine = CliRunner().invoke(main, ["trec_eval", *measures, "--ties", "trec_eval9",
                                     str(qrels), str(run)])
    assert ten.exit_code == nine.exit_code == 0
    assert [line.split("\t")[2] for line in ten.output.splitlines()] == \
        ["1.0000", "1.0000", "1.0000"]
    assert [line.split("\t")[2] for line in nine.output.splitlines()] == \
        ["0.5000", "0.5000", "0.0000"]
    # the library and the other commands follow the same policy
    for ties, want in (("trec_eval", 1.0), ("trec_eval9", 0.5), ("sample_eval", 1.0)):
        df = unjudged.evaluate(run, qrels, ["AP"], per_topic=False, ties=ties)
        assert df.value[0] == want
    got = CliRunner().invoke(main, ["eval", str(qrels), str(run), "-m", "AP", "--ties",
                                    "trec_eval9", "-f", "tsv"])
    assert got.exit_code == 0 and "0.5" in got.output


def test_preferences_rank_on_the_same_rule():
    # prefs break ties by docno ascending: as floats "a" first, as doubles "b" (higher)
    docno, score = np.array(["b", "a"]), np.array([1.00000001, 1.0])
    assert ranked_judged(docno, score, docno, None).tolist() == ["b", "a"]
    assert ranked_judged(docno, score, docno, None, single=True).tolist() == ["a", "b"]


def test_set_map_is_one_division(tmp_path):
    """trec_eval's set_map is num_rel_ret**2 / (num_ret * num_rel): 55 of 100 relevant in 1000
    retrieved is 0.030249999... (prints 0.0302), where P * R gives 0.030250000000000003
    (0.0303): BioinfoUA-noadapt's topic 29 in round 1."""
    qrels = "".join(f"1 0 r{i} 1\n" for i in range(100))
    run = "".join(f"1 Q0 {'r' if i < 55 else 'n'}{i} {i + 1} {1000 - i} t\n"
                  for i in range(1000))
    q = read_qrels(io.StringIO(qrels))
    out = run_trec_eval(read_run(io.StringIO(run), qrels=q), q, ["set_map"], Policies())
    assert out == "set_map               \tall\t0.0302\n"


def _round1(name: str, ties: TieBreak, measures: list[str]) -> dict[tuple[str, str], str]:
    folder = need(COVID1)
    q = read_qrels(folder / "qrels" / "qrels-rnd1.txt")
    data = lzma.decompress((folder / "runs" / f"{name}.xz").read_bytes())
    r = read_run(io.BytesIO(data), name=name, ties=ties, qrels=q)
    text = run_trec_eval(r, q, measures, Policies(ties=ties), per_query=True)
    return {(m.strip(), t): v for m, t, v in (line.split("\t") for line in text.splitlines())}


def test_round1_runs_tied_only_as_floats():
    """The values trec_eval 10.0 (f425365, -m all_trec) printed for BERT and tm_lda400 in the
    parity report of issue 32, where trec_eval 9's rule gives the 2020 leaderboard's."""
    ten = _round1("BERT", "trec_eval", ["map", "P.20", "bpref"])
    nine = _round1("BERT", "trec_eval9", ["map", "P.20", "bpref"])
    assert [ten[(m, "all")] for m in ("map", "P_20", "bpref")] == ["0.0652", "0.2100", "0.1505"]
    assert [nine[(m, "all")] for m in ("map", "P_20", "bpref")] == ["0.0653", "0.2117", "0.1506"]
    assert _round1("tm_lda400", "trec_eval", ["recip_rank"])[("recip_rank", "all")] == "0.0094"
    assert _round1("tm_lda400", "trec_eval9", ["recip_rank"])[("recip_rank", "all")] == "0.0091"


@pytest.mark.parametrize("name", ["BERT", "tm_lda400"])
def test_trec_eval9_is_pytrec_evals_rule(name):
    """pytrec_eval bundles trec_eval 9.0.8: "trec_eval9" equals it on every topic of the runs
    whose scores tie as floats; the default (trec_eval 10.0) differs on some."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    folder = need(COVID1)
    qrels: dict[str, dict[str, int]] = {}
    for line in (folder / "qrels" / "qrels-rnd1.txt").read_text().splitlines():
        t, _, d, g = line.split()
        qrels.setdefault(t, {})[d] = int(g)
    run: dict[str, dict[str, float]] = {}
    for line in lzma.decompress((folder / "runs" / f"{name}.xz").read_bytes()).splitlines():
        t, _, d, _, s, _ = line.decode().split()
        run.setdefault(t, {})[d] = float(s)
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P", "recip_rank", "ndcg_cut"})
    want = {(m, t): f"{v:.4f}" for t, values in ref.evaluate(run).items()
            for m, v in values.items() if m in ("map", "P_20", "recip_rank", "ndcg_cut_10")}
    measures = ["map", "P.20", "recip_rank", "ndcg_cut.10"]
    nine = _round1(name, "trec_eval9", measures)
    ten = _round1(name, "trec_eval", measures)
    assert [k for k in want if nine[k] != want[k]] == []
    assert [k for k in want if ten[k] != want[k]] != []
