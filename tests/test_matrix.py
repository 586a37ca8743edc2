"""The System Evaluation Decision Matrix (seed 001, section 3.2): hand-built runs where each of
the four cases occurs, checked against scipy; runs against a baseline; the commands; and the
TREC-COVID round-1 figures of docs/decision-matrix.md."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from click.testing import CliRunner
from scipy import stats

from collection import write_collection
from shared_data import COVID1, need
from unjudged.analysis.baseline import assessment_measures, baseline_comparison
from unjudged.analysis.matrix import (
    classify,
    compare_pairs,
    comparison_intervals,
    decision_matrix,
)
from unjudged.cli import main
from unjudged.engine.score import score
from unjudged.io import read_qrels, read_runs
from unjudged.measures import parse_measures
from unjudged.policies import Policies

# --- a hand-built collection: 8 topics, 4 relevant (r*) and 4 non-relevant (n*) per topic ------
# A run is given per topic as (relevant, judged non-relevant) documents in its top 4; the rest of
# the top 4 is unjudged. So P@4 = r / 4 and A_p@4 = Judged@4 = (r + n) / 4, by construction.
TOPICS = range(1, 9)
QRELS = "".join(f"{t} 0 t{t}-{k}{i} {int(k == 'r')}\n" for t in TOPICS for k in "rn"
                for i in range(4))
S_REL = [2, 1, 2, 1, 2, 1, 2, 1]
SPEC = {  # name: (relevant per topic, judged non-relevant per topic)
    "S": (S_REL, [4 - r for r in S_REL]),                           # all judged
    "C1": ([1, 2, 2, 1, 1, 2, 2, 1], [3, 2, 2, 3, 3, 2, 2, 3]),     # vs S: P ==, A ==
    "C2": (S_REL, [0] * 8),                                         # vs S: P ==, A <<
    "C3": ([3, 3, 3, 3, 3, 3, 3, 2], [0] * 8),                      # vs S: P >>, A <<
    "C3b": ([3, 3, 3, 3, 3, 3, 3, 2], [1, 1, 1, 1, 1, 1, 1, 2]),    # vs S: P >>, A ==
    "W": ([0, 1, 0, 0, 1, 0, 0, 1], [1, 0, 1, 1, 0, 1, 0, 0]),      # vs S: P <<, A <<
}
EXPECTED_VS_S = {"C1": 1, "C2": 2, "C3": 3, "C3b": 3, "W": 4}


def _run_text(name: str, rel: list[int], non: list[int]) -> str:
    lines = []
    for t, r, n in zip(TOPICS, rel, non, strict=True):
        docs = ([f"t{t}-r{i}" for i in range(r)] + [f"t{t}-n{i}" for i in range(n)]
                + [f"t{t}-u{name}{i}" for i in range(4 - r - n)])
        lines += [f"{t} Q0 {d} {k + 1} {10 - k} {name}\n" for k, d in enumerate(docs)]
    return "".join(lines)


def _values(name: str) -> tuple[np.ndarray, np.ndarray]:
    rel, non = SPEC[name]
    return np.array(rel) / 4, (np.array(rel) + np.array(non)) / 4


def _p_t(x: np.ndarray, y: np.ndarray) -> float:
    """scipy's paired t-test, with identical vectors giving p = 1 (no evidence; scipy: nan)."""
    return 1.0 if np.all(x == y) else float(stats.ttest_rel(x, y).pvalue)


def _case(dp: float, pp: float, da: float, pa: float, alpha: float = 0.05) -> int:
    """Seed 001, Figure 3, written out case by case as the reference."""
    perf = 0 if pp >= alpha else (1 if dp > 0 else -1)
    assess = 0 if pa >= alpha else (1 if da > 0 else -1)
    if perf == 0:
        return 1 if assess == 0 else 2
    return 4 if assess == perf else 3


@pytest.fixture
def hand(tmp_path):
    runs = {f"{n}.run": _run_text(n, *SPEC[n]) for n in SPEC}
    qrels, run_dir = write_collection(tmp_path, QRELS, runs)
    return qrels, run_dir


def _matrix(hand, **kw):
    qrels, run_dir = hand
    q = read_qrels(qrels)
    runs = read_runs([run_dir / f"{n}.run" for n in SPEC], qrels=q)
    return decision_matrix(runs, q, ["P"], [4], **kw)


def test_classify_every_combination():
    sig = [0, 1, -1]  # no difference, s1 >>, s1 <<
    got = {(p, a): int(classify(p, p != 0, a, a != 0)) for p in sig for a in sig}
    assert got == {(0, 0): 1, (0, 1): 2, (0, -1): 2,
                   (1, 0): 3, (1, -1): 3, (-1, 0): 3, (-1, 1): 3,
                   (1, 1): 4, (-1, -1): 4}


def test_each_case_by_hand_and_scipy(hand):
    dm = _matrix(hand, test="t")
    c = dm.cell("P", 4)
    names = list(SPEC)
    assert dm.runs == names
    assert np.allclose(dm.perf[0, 0], [_values(n)[0] for n in names])
    assert np.allclose(dm.assess[0], [_values(n)[1] for n in names])
    pairs = list(itertools.combinations(range(len(names)), 2))
    assert list(zip(c.run_a.tolist(), c.run_b.tolist(), strict=True)) == pairs
    for k, (i, j) in enumerate(pairs):
        (pi, ai), (pj, aj) = _values(names[i]), _values(names[j])
        assert c.diff[k] == pytest.approx(np.mean(pi - pj))
        assert c.p[k] == pytest.approx(_p_t(pi, pj))
        assert c.assess_diff[k] == pytest.approx(np.mean(ai - aj))
        assert c.assess_p[k] == pytest.approx(_p_t(ai, aj))
        assert c.case[k] == _case(c.diff[k], _p_t(pi, pj), c.assess_diff[k], _p_t(ai, aj))
    vs_s = {names[j]: int(c.case[k]) for k, (i, j) in enumerate(pairs) if i == 0}
    assert vs_s == EXPECTED_VS_S
    # C3 beats S while significantly less judged: 3.2's special situation of case 3
    special = {names[c.run_b[k]] for k in np.flatnonzero(c.fewer_judged_wins())
               if c.run_a[k] == 0}
    assert special == {"C3"}
    row = dm.summary()[0]
    share = np.bincount(c.case, minlength=5)[1:] / 15
    assert [row[f"case_{i}"] for i in range(1, 5)] == pytest.approx(share.tolist())
    assert row["weak"] == pytest.approx(share[1] + share[3])
    assert (row["runs"], row["pairs"]) == (6, 15)


def test_anova_bonferroni_default(hand):
    dm = _matrix(hand)  # the default: ANOVA over all runs, then Bonferroni over 15 pairs
    assert dm.test == "anova-bonferroni"
    c = dm.cell("P", 4)
    perf = dm.perf[0, 0]
    assert stats.f_oneway(*perf).pvalue < 0.05
    for k in range(15):
        x, y = perf[c.run_a[k]], perf[c.run_b[k]]
        assert c.p[k] == pytest.approx(min(1.0, 15 * _p_t(x, y)))
        assert c.significant[k] == (c.p[k] < 0.05)


def test_depth_denominator_counts_short_runs_as_unjudged(tmp_path):
    qrels, run_dir = write_collection(tmp_path, "1 0 a 1\n1 0 b 0\n2 0 c 1\n",
                                      {"x": "1 Q0 a 1 2 x\n1 Q0 b 2 1 x\n2 Q0 c 1 1 x\n",
                                       "y": "1 Q0 z 1 2 y\n2 Q0 c 1 1 y\n"})
    q = read_qrels(qrels)
    runs = read_runs([run_dir], qrels=q)
    retrieved = decision_matrix(runs, q, ["P"], [4], test="t")
    depth = decision_matrix(runs, q, ["P"], [4], test="t", denominator="depth")
    assert retrieved.assess[0].tolist() == [[1.0, 1.0], [0.0, 1.0]]
    assert depth.assess[0].tolist() == [[0.5, 0.25], [0.0, 0.25]]
    assert depth.ranking_tau()["assessment"] == "A_p@4 (judged/4)"


def test_comparison_intervals_match_scipy():
    v = np.array([[0.1, 0.4, 0.3, 0.5], [0.2, 0.2, 0.6, 0.1], [0.0, 0.1, 0.2, 0.2]])
    mean, half = comparison_intervals(v, alpha=0.05)
    crit = stats.t.ppf(1 - 0.05 / (2 * 3), 3)
    assert mean == pytest.approx(v.mean(axis=1))
    assert half == pytest.approx(crit * stats.sem(v, axis=1) / np.sqrt(2))


def test_baseline_comparison_against_scipy(hand):
    qrels, run_dir = hand
    q = read_qrels(qrels)
    runs = read_runs([run_dir / f"{n}.run" for n in SPEC], qrels=q)
    ms = parse_measures(["P@4", "AP"])
    judged = assessment_measures(ms)
    assert [m.name for m in judged] == ["Judged@4", "Judged"]
    rows = baseline_comparison(score(runs, q, ms), score(runs, q, judged), "S", test="t")
    assert [(r["run"], r["measure"]) for r in rows] == \
        [(n, m) for n in list(SPEC)[1:] for m in ("P@4", "AP")]
    s_perf, s_assess = _values("S")
    for r in rows[::2]:  # P@4, with the run as s1 and the baseline as s2
        perf, assess = _values(r["run"])
        assert r["diff"] == pytest.approx(np.mean(perf - s_perf))
        assert r["p"] == pytest.approx(_p_t(perf, s_perf))
        assert r["assessment"] == "Judged@4"
        assert r["assessment_diff"] == pytest.approx(np.mean(assess - s_assess))
        assert r["p_assessment"] == pytest.approx(_p_t(assess, s_assess))
        assert r["case"] == EXPECTED_VS_S[r["run"]]
        assert r["weak"] == (r["case"] in (2, 4))


# --- the commands ----------------------------------------------------------------------------


def test_matrix_cli_jsonl_and_table(hand, tmp_path):
    qrels, run_dir = hand
    base = ["matrix", qrels, str(run_dir), "-m", "P", "--depths", "4", "--test", "t"]
    out = CliRunner().invoke(main, base + ["-f", "jsonl"])
    assert out.exit_code == 0, out.output
    lines = [json.loads(x) for x in out.stdout.splitlines()]
    assert len(lines) == 15
    assert list(lines[0])[:7] == ["measure", "depth", "run_a", "run_b", "case",
                                  "p_performance", "p_assessment"]
    # files are read in name order (S comes fifth); the case does not depend on the order
    vs_s = {(x["run_a"] + x["run_b"]).replace("S", "", 1): x["case"] for x in lines
            if "S" in (x["run_a"], x["run_b"])}
    assert vs_s == EXPECTED_VS_S and {x["measure"] for x in lines} == {"P"}
    table = CliRunner().invoke(main, base + ["--weak-only"]).stdout
    assert "share of pairs per case" in table and "weak pairs" in table
    weak_rows = [x for x in table.splitlines() if x.endswith("WEAK")]
    assert len(weak_rows) == sum(x["case"] in (2, 4) for x in lines)
    summary = CliRunner().invoke(main, base + ["-f", "tsv", "--summary"]).stdout.splitlines()
    assert summary[0].split("\t")[:9] == ["measure", "depth", "runs", "pairs", "case_1",
                                          "case_2", "case_3", "case_4", "weak"]
    assert summary[1].split("\t")[:4] == ["P", "4", "6", "15"]
    plot = CliRunner().invoke(main, base + ["--plot", str(tmp_path / "m.png"), "-o",
                                            str(tmp_path / "out.txt")])
    assert plot.exit_code == 0, plot.output
    for name in ("m-P.png", "m-tau.png"):
        assert 0 < (tmp_path / name).stat().st_size < 200_000
    # --plot FILE.png names the figures (documented in --help) and each one is listed
    assert not (tmp_path / "m.png").exists()
    assert plot.stderr.splitlines()[:2] == [f"unjudged: wrote {tmp_path / 'm-P.png'}",
                                            f"unjudged: wrote {tmp_path / 'm-tau.png'}"]
    helped = " ".join(CliRunner().invoke(main, ["matrix", "--help"]).stdout.split())
    assert ("FILE.png names them, it is not written itself: FILE-<measure>.png per family and "
            "FILE-tau.png; a folder gets matrix-<measure>.png and matrix-tau.png. Each written "
            "path is printed on stderr.") in helped


@pytest.mark.parametrize("args, message", [
    (["-m", "P@10"], "expected a measure family without a cutoff"),
    (["--depths", "10,x"], "expected distinct positive integers"),
    (["--significance", "1.5"], "expected a level between 0 and 1"),
])
def test_matrix_cli_bad_options(hand, args, message):
    qrels, run_dir = hand
    out = CliRunner().invoke(main, ["matrix", qrels, str(run_dir)] + args)
    assert out.exit_code == 2 and message in out.output


@pytest.mark.parametrize("command", [["matrix"], ["eval", "-m", "P@4", "--baseline", "S"]])
def test_alpha_is_refused_with_both_meanings(hand, command):
    qrels, run_dir = hand
    args = command[:1] + [qrels, str(run_dir)] + command[1:]
    out = CliRunner().invoke(main, args + ["--alpha", "0.3"])
    assert out.exit_code == 2 and out.stdout == ""
    assert out.stderr == (
        "unjudged: error: --alpha is not an option: give the significance level of the tests "
        "as --significance 0.05, and the novelty parameter of a diversity measure in the "
        "measure, as in -m 'alpha-nDCG(alpha=0.3)@20'\n")
    # --significance is the level the tests use
    fmt = ["-f", "jsonl"] if command[0] == "eval" else ["-f", "tsv"]
    strict = CliRunner().invoke(main, args + fmt + ["--significance", "0.001"])
    loose = CliRunner().invoke(main, args + fmt)
    assert strict.exit_code == loose.exit_code == 0
    assert strict.stdout != loose.stdout
    assert "--significance LEVEL" in CliRunner().invoke(main, [command[0], "--help"]).stdout
    assert "--alpha" not in CliRunner().invoke(main, [command[0], "--help"]).stdout


def test_matrix_cli_bad_inputs(tmp_path):
    qrels, run_dir = write_collection(tmp_path, QRELS, {"a.run": _run_text("S", *SPEC["S"]),
                                                        "b.run": _run_text("S", *SPEC["W"])})
    out = CliRunner().invoke(main, ["matrix", qrels, str(run_dir), "--strict"])
    assert out.exit_code == 2  # two runs tagged S: renamed by file, an error under --strict
    assert out.stderr.startswith("unjudged: error: 2 runs share the tag 'S': ")
    one = CliRunner().invoke(main, ["matrix", qrels, str(run_dir / "a.run")])
    assert one.exit_code == 2 and "give at least two" in one.output


def test_eval_baseline_cli(hand):
    qrels, run_dir = hand
    base = ["eval", qrels, str(run_dir), "-m", "P@4", "--baseline", "S"]
    table = CliRunner().invoke(main, base)
    assert table.exit_code == 0, table.output
    assert "against baseline S (paired t test" in table.stdout
    rows = {x.split()[0]: x for x in table.stdout.splitlines() if x.startswith(("C", "W "))
            and "Judged@4" in x}
    assert rows["C2"].endswith("2  WEAK") and rows["W"].endswith("4  WEAK")
    assert rows["C3"].rstrip().endswith("3")
    lines = CliRunner().invoke(main, base + ["-f", "jsonl"]).stdout.splitlines()
    extra = [json.loads(x) for x in lines if '"baseline"' in x]
    assert {x["run"]: x["case"] for x in extra} == EXPECTED_VS_S
    by_path = CliRunner().invoke(main, ["eval", qrels, str(run_dir), "-m", "P@4",
                                        "--baseline", str(run_dir / "S.run"), "-f", "jsonl"])
    assert by_path.stdout == "\n".join(lines) + "\n"
    missing = CliRunner().invoke(main, base[:-1] + ["nope"])
    assert missing.exit_code == 2 and "nope: not among the runs" in missing.output


# --- TREC-COVID round 1: 143 runs, depth-7 pool (docs/decision-matrix.md) --------------------


def _two_way_pooled(s: np.ndarray, alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """(mean differences, significant) of every pair after a two-way ANOVA without replication
    (runs x topics), with t on its residual mean square, (k-1)(n-1) df, Bonferroni."""
    k, n = s.shape
    resid = s - s.mean(axis=1, keepdims=True) - s.mean(axis=0) + s.mean()
    df = (k - 1) * (n - 1)
    mse = (resid ** 2).sum() / df
    f = n * ((s.mean(axis=1) - s.mean()) ** 2).sum() / (k - 1) / mse
    i, j = np.triu_indices(k, 1)
    diff = s.mean(axis=1)[i] - s.mean(axis=1)[j]
    p = np.minimum(1, len(i) * 2 * stats.t.sf(np.abs(diff) / np.sqrt(2 * mse / n), df))
    return diff, (p < alpha) & (stats.f.sf(f, k - 1, df) < alpha)


def test_covid_round1_decision_matrix():
    need(COVID1)
    q = read_qrels(COVID1 / "qrels" / "qrels-rnd1.txt")
    runs = read_runs([COVID1 / "runs"], qrels=q)
    dm = decision_matrix(runs, q, ["P", "AP"], [10, 100, 1000], policies=Policies())
    assert (len(dm.runs), dm.pairs_count, len(dm.topics)) == (143, 10153, 30)
    rows = {(r["measure"], r["depth"]): r for r in dm.summary()}
    shares = {k: [round(r[f"case_{i}"], 4) for i in range(1, 5)] for k, r in rows.items()}
    assert shares[("P", 10)] == [0.5570, 0.1204, 0.0857, 0.2370]
    assert shares[("AP", 1000)] == [0.4508, 0.2411, 0.1456, 0.1625]
    for f in ("P", "AP"):  # weak comparisons grow as the depth passes the pool depth
        assert rows[(f, 100)]["weak"] > rows[(f, 10)]["weak"] > 0.35
    assert round(dm.ranking_tau()["kendall_tau"], 4) == 0.3890
    # the two Bonferroni follow-ups of the ANOVA (docs/decision-matrix.md): paired t-tests
    # (the default) and t-tests on the one-way ANOVA's pooled error
    assert np.bincount(dm.cell("AP", 1000).case, minlength=5)[1:].tolist() == [
        4577, 2448, 1478, 1650]  # case 4: 1650 / 10153 = 0.163
    pooled = compare_pairs(dm.perf[1, 2], dm.assess[2], test="anova-pooled-bonferroni")
    assert np.bincount(pooled.case, minlength=5)[1:].tolist() == [
        5850, 1992, 2008, 303]  # case 4: 303 / 10153 = 0.030
    # the same with the two-way (runs x topics) ANOVA's residual as the error: not the 0.030
    two_way = classify(*_two_way_pooled(dm.perf[1, 2]), *_two_way_pooled(dm.assess[2]))
    assert int((two_way == 4).sum()) == 551  # 0.054
    # one pair by hand: Bonferroni over 10,153 paired t-tests (the ANOVA rejects)
    c = dm.cell("AP", 100)
    k = 5000
    x, y = dm.perf[1, 1, c.run_a[k]], dm.perf[1, 1, c.run_b[k]]
    assert c.p[k] == pytest.approx(min(1.0, 10153 * stats.ttest_rel(x, y).pvalue))
