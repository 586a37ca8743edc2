"""Pools and coverage: hand-worked examples, the command line, and TREC-COVID round 1."""

from __future__ import annotations

import csv

import numpy as np
import pytest
from click.testing import CliRunner

from shared_data import COVID1, DATA, need
from unjudged.cli import main
from unjudged.errors import InputError
from unjudged.io import read_qrels, read_run
from unjudged.io.groups import read_groups
from unjudged.judgments.coverage import coverage
from unjudged.judgments.pools import build_pool, pool_lines

A = read_run({"1": {"d1": 5, "d2": 4, "d3": 3, "d4": 2}, "2": {"e1": 2, "e2": 1}}, name="a")
B = read_run({"1": {"d2": 5, "d5": 4, "d1": 3}, "2": {"e3": 1}}, name="b")
C = read_run({"1": {"d6": 9, "d1": 8}}, name="c")


def _pairs(pool):
    return [(pool.topics[t], d) for t, d in zip(pool.topic, pool.docno.to_pylist(), strict=True)]


def test_depth_pool_contributors_and_unique():
    p = build_pool([A, B, C], depth=2)
    assert _pairs(p) == [("1", "d1"), ("1", "d2"), ("1", "d5"), ("1", "d6"),
                         ("2", "e1"), ("2", "e2"), ("2", "e3")]
    assert p.n_runs.tolist() == [2, 2, 1, 1, 1, 1, 1]
    assert p.best_rank.tolist() == [1, 1, 2, 1, 1, 2, 1]
    assert p.sizes().tolist() == [4, 3]
    assert p.contributed.tolist() == [4, 3, 2]
    assert p.unique_by_run().tolist() == [2, 2, 1]


def test_groups_merge_contributions_and_runs_per_group():
    groups = {"b": "X", "a": "X", "c": "Y"}  # priority order: b first
    p = build_pool([A, B, C], depth=2, groups=groups)
    assert p.groups == ["X", "Y"]
    assert p.n_groups.tolist() == [2, 1, 1, 1, 1, 1, 1]
    assert p.unique_by_group().tolist() == [5, 1]
    first = build_pool([A, B, C], depth=2, groups=groups, runs_per_group=1)
    assert first.runs == ["b", "c"]
    assert _pairs(first) == [("1", "d1"), ("1", "d2"), ("1", "d5"), ("1", "d6"), ("2", "e3")]


def test_ranks_j_to_k_excluding_judged():
    q = read_qrels({"1": {"d3": 1, "d4": -1}})
    p = build_pool([A, B], depth=3, from_rank=3, exclude=q)
    # a's rank 3 is d3 (judged: left out); b's rank 3 is d1; d4 (rank 4) is outside 3..3
    assert _pairs(p) == [("1", "d1")] and p.excluded == 1
    p = build_pool([A], depth=4, from_rank=3, exclude=q)
    assert _pairs(p) == [("1", "d4")]  # a negative grade is pooled but unjudged: stays
    assert pool_lines(p) == "1 0 d4 -1\n"
    assert pool_lines(p, "pairs") == "1 d4\n"
    assert pool_lines(p, "tsv").splitlines()[1] == "1\td4\t4\t1\t1"


def test_bad_pool_arguments():
    with pytest.raises(ValueError):
        build_pool([A], depth=2, from_rank=3)
    with pytest.raises(InputError, match="have no group: c"):
        build_pool([A, C], depth=2, groups={"a": "X"})


def test_read_groups_layouts(tmp_path):
    (tmp_path / "g.txt").write_text("# run group\nr1 teamA\nr2 teamA\nr3 teamB\n")
    assert read_groups(str(tmp_path / "g.txt")) == {"r1": "teamA", "r2": "teamA",
                                                     "r3": "teamB"}
    (tmp_path / "g.csv").write_text("run,team,score\nr1,A,0.5\nr2,B,0.4\n")
    assert read_groups(str(tmp_path / "g.csv")) == {"r1": "A", "r2": "B"}
    (tmp_path / "bad.txt").write_text("r1 A\nr2\n")
    with pytest.raises(InputError, match=r"bad.txt:2: 1 fields, expected `run group`"):
        read_groups(str(tmp_path / "bad.txt"))
    (tmp_path / "clash.txt").write_text("r1 A\nr1 B\n")
    with pytest.raises(InputError, match="clash.txt:2: run 'r1' is already in group 'A'"):
        read_groups(str(tmp_path / "clash.txt"))


def test_coverage_hand_example():
    q = read_qrels({"1": {"d1": 1, "d2": 0, "d5": 1}, "2": {"e1": 0, "e3": -1}})
    c = coverage([A, B], q, bands=[(1, 2), (3, 4)])
    a, b = c.runs
    # a: topic 1 ranks d1 d2 | d3 d4 -> 2/2 and 0/2; topic 2 e1 e2 -> 1/2
    assert a.band_judged.tolist() == [0.75, 0.0]
    assert a.judged_to.tolist() == [2, 1] and a.unjudged == 3
    # b: topic 1 d2 d5 | d1 -> all judged; topic 2: e3 is pooled but unjudged
    assert b.band_judged.tolist() == [2 / 3, 1.0]
    assert b.judged_to.tolist() == [3, 0] and b.unjudged == 1
    assert a.looks_pooled(1) and not b.looks_pooled(1)
    assert c.to_add == 4 and [r.unique for r in c.runs] == [3, 1]
    np.testing.assert_allclose(a.by_rank, [1.0, 0.5, 0.0, 0.0])
    # what the coverage table and figure show, computed here rather than in report/
    assert a.judged_to_range() == (1, 1.5) and b.judged_to_range() == (0, 1.5)
    n, lo, mid, hi = c.rank_band(True, 1)  # a alone looks pooled at depth 1
    assert n == 1
    for band in (lo, mid, hi):
        np.testing.assert_allclose(band[:4], [1.0, 0.5, 0.0, 0.0])
    n, lo, mid, hi = c.rank_band(False, 1)
    assert n == 1 and mid[:3].tolist() == pytest.approx([0.5, 1.0, 1.0])
    assert c.rank_band(True, 3) is None  # no run is judged to depth 3 everywhere


def test_pool_and_coverage_commands(tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "a").write_text("1 Q0 d1 1 5 a\n1 Q0 d2 2 4 a\n1 Q0 d3 3 3 a\n")
    (runs / "b").write_text("1 Q0 d3 1 5 b\n1 Q0 d4 2 4 b\n")
    (tmp_path / "qrels").write_text("1 0 d1 1\n1 0 d3 0\n")
    out = tmp_path / "pool.txt"
    res = CliRunner().invoke(main, ["pool", str(runs), "-k", "2", "-o", str(out),
                                    "--summary", "tsv"])
    assert res.exit_code == 0, res.output
    assert out.read_text() == "1 0 d1 -1\n1 0 d2 -1\n1 0 d3 -1\n1 0 d4 -1\n"
    assert "a\ta\t2\t2\t2" in res.output and "all\t4" in res.output
    res = CliRunner().invoke(main, ["pool", str(runs), "-k", "2", "--exclude",
                                    str(tmp_path / "qrels"), "--format", "pairs"])
    assert res.stdout == "1 d2\n1 d4\n"
    res = CliRunner().invoke(main, ["coverage", str(tmp_path / "qrels"), str(runs),
                                    "--bands", "1,2-3", "-f", "csv"])
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert lines[0] == ("run,judged@1,judged@2-3,judged_to_min,judged_to_median,looks_pooled,"
                        "unjudged,unique_unjudged")
    assert lines[1] == "a,1.0,0.5,1,1.0,yes,1,1"
    assert lines[2] == "b,1.0,0.0,1,1.0,yes,1,1"
    bad = CliRunner().invoke(main, ["coverage", str(tmp_path / "qrels"), str(runs),
                                    "--bands", "3-1"])
    assert bad.exit_code == 2 and "expected rank bands" in bad.output
    bad = CliRunner().invoke(main, ["pool", str(runs), "-k", "2", "--runs-per-group", "1"])
    assert bad.exit_code == 2 and "needs --groups" in bad.output


def _contributing():
    with open(need(COVID1 / "leaderboard.csv")) as fh:
        rows = list(csv.DictReader(fh))
    return [r["run"] for r in rows if r["contributed judgments"] == "yes"]


def test_covid_round1_pool_matches_the_judgments():
    """Seed 003: the round-1 qrels judge the depth-7 pool of the 56 priority runs; Judgment
    Set 1.5 judged ranks 8-14 of the same runs, minus what was judged already."""
    names = _contributing()
    assert len(names) == 56
    runs = [read_run(COVID1 / "runs" / f"{n}.xz", ties="file") for n in names]
    q = read_qrels(COVID1 / "qrels" / "qrels-rnd1.txt")
    depth7 = build_pool(runs, 7)
    keys = depth7.qrels_keys(q)
    assert len(depth7) == 6959 and np.isin(keys, q.keys).all()
    extra = build_pool(runs, 14, from_rank=8, exclude=q)
    assert len(extra) == 5766 and extra.excluded == 5416
    sizes = dict(zip(extra.topics, extra.sizes().tolist(), strict=True))
    # seed 003 Table 1 (Judgment set 1.5, Num Judged) differs by one on topics 7, 18, 19, 21
    assert [sizes[t] for t in ("1", "7", "18", "19", "21", "30")] == [225, 199, 153, 206, 217,
                                                                      113]
    r2 = read_qrels(need(DATA / "anserini-tools" / "qrels" / "qrels.covid-round2.txt"))
    k2 = extra.qrels_keys(r2)
    assert np.isin(k2, r2.keys).all()  # every pooled document was judged in round 2
    js15 = np.asarray(r2.group.to_pylist()) == "1.5"
    line_keys = r2.tcode.astype(np.int64)[js15] * len(r2.docs) + r2.dcode[js15]
    assert js15.sum() == 5734 and np.isin(line_keys, k2).all()  # JS1.5 lies in the pool


def test_covid_round1_coverage_finds_the_pooled_runs():
    names = _contributing()
    q = read_qrels(COVID1 / "qrels" / "qrels-rnd1.txt")
    from unjudged.io import read_runs

    runs = read_runs([COVID1 / "runs"], ties="file", qrels=q)
    c = coverage(runs, q, bands=[(1, 7)])
    pooled = {r.run for r in c.runs if r.looks_pooled(7)}
    # every priority run but one is judged to depth 7 on every topic; so are five runs that
    # rank the same documents (e.g. BBGhelani1 beside the pooled BBGhelani2)
    assert len(pooled & set(names)) == 55 and sorted(set(names) - pooled) == ["Tetralogie1Fr"]
    assert sorted(pooled - set(names)) == ["BBGhelani1", "CincyMedIR-run3", "uogTrDPH_QE_QQ",
                                           "wistud_indri", "wistud_noSearch"]
