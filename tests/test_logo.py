"""Leave-one-group-out: accuracy tables worked by hand, the sweep end to end, identical
results on every executor, and seed 000's tables for TREC-COVID round 1."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest
from click.testing import CliRunner

from shared_data import COVID1, need
from unjudged.cli import main
from unjudged.errors import FormatError, IncompatibleInputsError, UnjudgedWarning
from unjudged.experiments.accuracy import prediction_table, preference_table
from unjudged.experiments.logo import Sweep, leave_one_group_out, non_contributors
from unjudged.io import read_qrels, read_run
from unjudged.io.groups import read_contributors
from unjudged.measures import parse_measures
from unjudged.parallel import ProcessExecutor


def _sweep(groups=("A", "B", "C")) -> Sweep:
    """3 runs x 2 topics; see the comments in the tests for the hand computation."""
    arr = lambda rows: np.array(rows, dtype=float)[..., None]  # noqa: E731
    return Sweep(
        runs=["r0", "r1", "r2"], groups=list(groups), topics=["1", "2"],
        measures=parse_measures("nDCG@10"), strategies=("nonrel", "condensed", "upper"),
        truth=arr([[0.5, 0.2], [0.4, 0.6], [0.3, 0.1]]),
        values={"nonrel": arr([[0.3, 0.2], [0.4, 0.5], [0.3, 0.0]]),
                "condensed": arr([[0.6, 0.2], [0.4, 0.7], [0.3, 0.1]]),
                "upper": arr([[0.9, 0.2], [0.4, 0.9], [0.6, 0.4]])},
        ranges={}, unjudged=np.zeros((3, 2), int), unjudged_full=np.zeros((3, 2), int),
        removed={}, pooled_runs=3, depth=10)


def test_prediction_table_by_hand():
    rows = {r["strategy"]: r for r in prediction_table(_sweep())}
    # nonrel errors -0.2, 0, 0, -0.1, 0, -0.1: all underestimates
    assert rows["nonrel"]["rmse"] == pytest.approx(0.1)
    assert rows["nonrel"]["rmse_lower"] == 0 and rows["nonrel"]["rmse_upper"] == \
        pytest.approx(0.1)
    # condensed errors 0.1, 0, 0, 0.1, 0, 0: all overestimates
    assert rows["condensed"]["rmse"] == pytest.approx(np.sqrt(0.02 / 6))
    assert rows["condensed"]["rmse_upper"] == 0
    assert rows["upper"]["rmse"] == pytest.approx(np.sqrt(0.43 / 6))
    # run means keep the true order r1 > r0 > r2 under every strategy
    assert all(r["kendall_tau"] == pytest.approx(1.0) for r in rows.values())
    assert rows["upper"]["pairs"] == 6


def test_preference_table_by_hand():
    rows = {(r["kind"], r["estimate"]): r for r in preference_table(_sweep())}
    point = rows[("point", "nonrel")]
    # topic 1: r0's 0.3 wrongly falls below r1's 0.4 and ties r2's 0.3 (no preference);
    # the other 10 of 12 ordered pairs come out right
    assert (point["emitted"], point["true_preferences"]) == (11, 12)
    assert point["precision"] == pytest.approx(10 / 11)
    assert point["recall"] == pytest.approx(10 / 12)
    rng = rows[("range", "upper")]
    # [nonrel, upper] prefers only when the range clears the other run's exact score: 7 pairs
    assert (rng["emitted"], rng["precision"], rng["recall"]) == (7, 1.0, pytest.approx(7 / 12))
    assert rng["f1"] == pytest.approx(2 * 7 / 12 / (1 + 7 / 12))
    same = {(r["kind"], r["estimate"]): r for r in preference_table(_sweep(("A", "A", "B")))}
    # runs of one group are not compared with each other: r0-r1 pairs drop out
    assert same[("point", "nonrel")]["true_preferences"] == 8


def _tiny():
    q = read_qrels({"1": {"a": 2, "b": 1, "c": 0, "d": 1, "e": 0},
                    "2": {"a": 0, "f": 1, "g": 1, "h": 0}})
    runs = [read_run({"1": {"a": 3, "b": 2, "x": 1}, "2": {"f": 2, "h": 1}}, name="s1"),
            read_run({"1": {"b": 3, "d": 2, "c": 1}, "2": {"g": 2, "a": 1}}, name="s2"),
            read_run({"1": {"e": 3, "a": 2, "d": 1}, "2": {"h": 3, "g": 2}}, name="s3")]
    return q, runs, {"s1": "G1", "s2": "G1", "s3": "G2"}


def test_sweep_removes_only_the_groups_own_judgments():
    q, runs, groups = _tiny()
    s = leave_one_group_out(runs, q, groups, 2, ["P@2"], strategies=["nonrel", "upper"],
                            top_fraction=1.0)
    # depth-2 pool: topic 1 a (G1, G2), b and d (G1 only), e (G2 only); topic 2 f and a (G1
    # only), g and h (both groups)
    assert s.removed == {"G1": 4, "G2": 1}
    assert s.truth[:, :, 0].tolist() == [[1.0, 0.5], [1.0, 0.5], [0.5, 0.5]]
    # without G1's own judgments s1 loses b and f, s2 loses b, d and a
    assert s.values["nonrel"][:, :, 0].tolist() == [[0.5, 0.0], [0.0, 0.5], [0.5, 0.5]]
    assert s.unjudged.tolist() == [[1, 1], [2, 1], [1, 0]]
    assert s.unjudged_full.tolist() == [[0, 0], [0, 0], [0, 0]]


def test_sweep_is_identical_on_every_executor():
    q, runs, groups = _tiny()
    kw = dict(strategies=["nonrel", "condensed", "bootstrap:pool+run"], top_fraction=1.0,
              b=200, seed=7)
    serial = leave_one_group_out(runs, q, groups, 2, ["nDCG@2", "P@2"], **kw)
    with ProcessExecutor(2) as ex:
        parallel = leave_one_group_out(runs, q, groups, 2, ["nDCG@2", "P@2"], executor=ex,
                                       **kw)
    for s in serial.values:
        np.testing.assert_array_equal(serial.values[s], parallel.values[s])
    for key in serial.ranges:
        np.testing.assert_array_equal(serial.ranges[key], parallel.ranges[key])


def test_cli_on_tiny_collection_same_with_dask(tmp_path):
    q = tmp_path / "qrels"
    q.write_text("1 0 a 2\n1 0 b 1\n1 0 c 0\n1 0 d 1\n1 0 e 0\n2 0 a 0\n2 0 f 1\n2 0 g 1\n"
                 "2 0 h 0\n")
    runs = {"s1": "1 Q0 a 1 3 s1\n1 Q0 b 2 2 s1\n1 Q0 x 3 1 s1\n2 Q0 f 1 2 s1\n2 Q0 h 2 1 s1\n",
            "s2": "1 Q0 b 1 3 s2\n1 Q0 d 2 2 s2\n1 Q0 c 3 1 s2\n2 Q0 g 1 2 s2\n2 Q0 a 2 1 s2\n",
            "s3": "1 Q0 e 1 3 s3\n1 Q0 a 2 2 s3\n1 Q0 d 3 1 s3\n2 Q0 h 1 3 s3\n2 Q0 g 2 2 s3\n"}
    paths = []
    for name, text in runs.items():
        (tmp_path / name).write_text(text)
        paths.append(str(tmp_path / name))
    (tmp_path / "groups").write_text("s1 G1\ns2 G1\ns3 G2\n")
    args = ["experiment", "leave-one-group-out", str(q), *paths, "--groups",
            str(tmp_path / "groups"), "-k", "2", "-m", "P@2", "--top-fraction", "1", "-b", "100",
            "-f", "jsonl"]
    plot = tmp_path / "logo.png"
    serial = CliRunner().invoke(main, args + ["--jobs", "1", "--plot", str(plot),
                                              "--details", str(tmp_path / "d.csv")])
    assert serial.exit_code == 0, serial.output
    assert plot.read_bytes()[:4] == b"\x89PNG"
    details = (tmp_path / "d.csv").read_text().splitlines()
    assert details[0] == "group,run,topic,measure,strategy,value,truth,unjudged,unjudged_full"
    assert details[1] == "G1,s1,1,P@2,nonrel,0.5,1.0,1,0"
    assert len(details) == 1 + 3 * 2 * 7  # runs x topics x strategies
    lines = [json.loads(x) for x in serial.stdout.splitlines()]
    nonrel = next(x for x in lines if x["table"] == "prediction" and x["strategy"] == "nonrel")
    # errors (nonrel - truth) over the 6 (run, topic) pairs: -0.5, -0.5, -1, 0, 0, 0
    assert nonrel["rmse"] == pytest.approx(np.sqrt(1.5 / 6))
    dask = CliRunner().invoke(main, args + ["--dask", "local", "--jobs", "2"])
    assert dask.exit_code == 0, dask.output
    assert dask.stdout == serial.stdout
    bad = CliRunner().invoke(main, args[:-2] + ["--strategies", "nonrel,magic"])
    assert bad.exit_code == 2 and "unknown strategy 'magic'" in bad.output


@pytest.fixture(scope="module")
def covid_sweep():
    with open(need(COVID1 / "leaderboard.csv")) as fh:
        rows = list(csv.DictReader(fh))
    names = [r["run"] for r in rows if r["contributed judgments"] == "yes"]
    groups = {r["run"]: r["team"] for r in rows}
    q = read_qrels(COVID1 / "qrels" / "qrels-rnd1.txt")
    runs = [read_run(COVID1 / "runs" / f"{n}.xz", qrels=q) for n in names]
    # seed 000's bootstrap (no uncertainty of the prior), whose figures docs/ quotes
    return leave_one_group_out(runs, q, groups, 7, ["nDCG@10"], b=1000, seed=0,
                               draw={"spread": 0.0, "shared_spread": 0.0, "empty_run": "pool"})


def test_covid_round1_leave_one_group_out(covid_sweep):
    s = covid_sweep
    assert len(s.runs) == 42 and len(set(s.groups)) == 42  # best 75% of 56 priority runs
    assert sum(s.removed.values()) == 5451
    pred = {r["strategy"]: r for r in prediction_table(s)}
    got = {k: (round(r["rmse"], 4), round(r["kendall_tau"], 4)) for k, r in pred.items()}
    assert got["nonrel"] == (0.1045, 0.8583)
    assert got["condensed"] == (0.1460, 0.7631)
    assert got["upper"] == (0.3727, -0.0221)
    assert got["bootstrap:pool"] == (0.0757, 0.9071)
    assert got["bootstrap:pool+run"] == (0.1096, 0.8537)
    assert pred["nonrel"]["rmse_lower"] == 0 and pred["upper"]["rmse_upper"] == 0
    pref = {(r["kind"], r["estimate"]): r for r in preference_table(s)}
    assert round(pref[("point", "nonrel")]["f1"], 4) == 0.9290
    assert pref[("range", "upper")]["precision"] == 1.0
    assert round(pref[("range", "upper")]["recall"], 4) == 0.6069


# s1 ranks x (in no qrels) third: at depth 3 it cannot have contributed
TINY_NOTE = ("1 of 3 runs did not contribute to the depth-3 pool (some of their top 3 "
             "documents are not in the qrels): s1; leave-one-group-out pools them as if they "
             "had (pass only the contributing runs)")


def test_non_contributing_runs_are_noted_or_refused():
    q, runs, groups = _tiny()
    kw = dict(strategies=["nonrel"], top_fraction=1.0)
    assert non_contributors(runs, q, 2) == []  # every top-2 document is judged
    with pytest.warns(UnjudgedWarning) as caught:
        leave_one_group_out(runs, q, groups, 3, ["P@2"], **kw)
    assert [str(w.message) for w in caught] == [TINY_NOTE]
    with pytest.raises(IncompatibleInputsError) as err:
        leave_one_group_out(runs, q, groups, 3, ["P@2"], strict=True, **kw)
    assert str(err.value) == TINY_NOTE
    # a contributing column overrides the qrels: s3 said no, s1 is taken at its word
    with pytest.warns(UnjudgedWarning) as caught:
        leave_one_group_out(runs, q, groups, 3, ["P@2"], groups_source="teams.csv",
                            contributors={"s1": True, "s2": True, "s3": False}, **kw)
    assert [str(w.message) for w in caught] == [
        "1 of 3 runs did not contribute to the depth-3 pool (the contributing column of "
        "teams.csv says no): s3; leave-one-group-out pools them as if they had (pass only the "
        "contributing runs)"]


def test_file_order_counts_as_pooled():
    """Tied scores: trec_eval's order (docno descending) puts the unjudged z first, the file
    order a judged one; a pool cut in file order judged the run."""
    q = read_qrels({"1": {"a": 1, "b": 0}})
    run = read_run({"1": {"a": 1.0, "z": 1.0, "b": 0.5}}, name="r")
    assert run.docno.to_pylist()[0] == "z"
    assert non_contributors([run], q, 1) == []
    assert non_contributors([run], q, 2) == ["r"]


def test_read_contributors(tmp_path):
    path = tmp_path / "teams.csv"
    path.write_text("run,team,contributed judgments\ns1,G1,yes\ns2,G1,No\ns3,G2,1\n")
    assert read_contributors(path) == {"s1": True, "s2": False, "s3": True}
    path.write_text("run,team\ns1,G1\n")
    assert read_contributors(path) is None
    path.write_text("s1 G1\n")
    assert read_contributors(path) is None
    path.write_text("run,team,pooled\ns1,G1,maybe\n")
    with pytest.raises(FormatError) as err:
        read_contributors(path)
    assert str(err.value).endswith(":2: expected a run and yes or no in column 3 (pooled)")


def _cli_files(tmp_path, qrels_text, runs, groups_text):
    q = tmp_path / "qrels"
    q.write_text(qrels_text)
    paths = []
    for name, text in runs.items():
        (tmp_path / name).write_text(text)
        paths.append(str(tmp_path / name))
    (tmp_path / "groups.csv").write_text(groups_text)
    return ["experiment", "leave-one-group-out", str(q), *paths, "--groups",
            str(tmp_path / "groups.csv"), "--top-fraction", "1", "--jobs", "1"]


def test_cli_notes_non_contributors_and_strict_refuses(tmp_path):
    args = _cli_files(
        tmp_path, "1 0 a 1\n1 0 b 0\n1 0 c 1\n",
        {"s1": "1 Q0 a 1 2 s1\n1 Q0 b 2 1 s1\n", "s2": "1 Q0 c 1 2 s2\n1 Q0 b 2 1 s2\n",
         "s3": "1 Q0 c 1 2 s3\n1 Q0 a 2 1 s3\n"},
        "run,team,contributed judgments\ns1,G1,yes\ns2,G2,yes\ns3,G3,no\n")
    args += ["-k", "2", "-m", "P@2", "--strategies", "nonrel", "-f", "csv"]
    groups = str(tmp_path / "groups.csv")
    msg = (f"1 of 3 runs did not contribute to the depth-2 pool (the contributing column of "
           f"{groups} says no): s3; leave-one-group-out pools them as if they had (pass only "
           "the contributing runs)")
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    assert f"unjudged: note: {msg}" in res.stderr.splitlines()
    res = CliRunner().invoke(main, args + ["--strict"])
    assert res.exit_code == 2
    assert res.stderr.splitlines() == [f"unjudged: error: {msg}"]


def test_cli_negative(tmp_path):
    """b is graded -1. Leaving G1 out removes a (only s1 pooled it), leaving G2 out removes c.
    When -1 means pooled but unjudged (the default), b is unjudged in both runs' top 2 before
    and after the removal; with --negative nonrel it is judged non-relevant."""
    args = _cli_files(
        tmp_path, "1 0 a 1\n1 0 b -1\n1 0 c 0\n",
        {"s1": "1 Q0 a 1 2 s1\n1 Q0 b 2 1 s1\n", "s2": "1 Q0 c 1 2 s2\n1 Q0 b 2 1 s2\n"},
        "s1 G1\ns2 G2\n")
    args += ["-k", "2", "-m", "P@2", "--strategies", "nonrel"]
    counts = {}
    for negative in ("unjudged", "nonrel"):
        details = tmp_path / f"{negative}.csv"
        res = CliRunner().invoke(main, args + ["--negative", negative, "--details",
                                               str(details)])
        assert res.exit_code == 0, res.output
        assert "note:" not in res.stderr  # b is in the qrels: pooled
        counts[negative] = [(r["run"], r["value"], r["truth"], r["unjudged"],
                             r["unjudged_full"]) for r in csv.DictReader(details.open())]
    assert counts["unjudged"] == [("s1", "0.0", "0.5", "2", "1"),
                                  ("s2", "0.0", "0.0", "2", "1")]
    assert counts["nonrel"] == [("s1", "0.0", "0.5", "1", "0"),
                                ("s2", "0.0", "0.0", "1", "0")]
    bad = CliRunner().invoke(main, args + ["--negative", "zero"])
    assert bad.exit_code == 2 and "'zero' is not one of 'unjudged', 'nonrel'" in bad.output


def test_covid_round1_all_runs_are_flagged():
    """All 143 round-1 runs, depth 7: the leaderboard's column says 87 did not contribute; the
    qrels find 82 of them (the other 5 rank only judged documents in their top 7, e.g.
    BBGhelani1 beside the pooled BBGhelani2) and flag none of the 56 contributors."""
    board = need(COVID1 / "leaderboard.csv")
    names = [r["run"] for r in csv.DictReader(board.open())]
    q = read_qrels(COVID1 / "qrels" / "qrels-rnd1.txt")
    runs = [read_run(COVID1 / "runs" / f"{n}.xz", qrels=q) for n in names]
    by_column = non_contributors(runs, q, 7, read_contributors(board))
    by_qrels = non_contributors(runs, q, 7)
    assert (len(names), len(by_column), len(by_qrels)) == (143, 87, 82)
    assert set(by_qrels) < set(by_column)
    assert by_column[:5] == ["BBGhelani1", "run3", "run2", "cu_dbmi_bm25_1", "CSIROmedNIR"]
