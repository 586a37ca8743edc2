"""The sampling experiment (seed 002): its statistics worked by hand, the experiment end to end
and on every executor, the command, and a small version of the TREC-COVID round-1 study."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest
from click.testing import CliRunner
from scipy.stats import kstest

from shared_data import COVID1, need
from test_sampling import RUN_A, RUN_B, tiny_collection, tiny_files
from unjudged import evaluate
from unjudged.cli import main
from unjudged.experiments.sampling import (
    SamplingSweep,
    read_contributing,
    sampling_experiment,
    target_of,
)
from unjudged.experiments.sampling_stats import (
    accuracy,
    sampling_details,
    sampling_table,
    scatter_panels,
)
from unjudged.inference.infer import infer
from unjudged.io import read_qrels, read_run
from unjudged.io.runs import read_runs
from unjudged.judgments.sampling import (
    best_ranks,
    judged_universe,
    parse_design,
    sample_qrels,
    uniform_twin,
)
from unjudged.measures import parse_measures
from unjudged.parallel import ProcessExecutor, SerialExecutor


@pytest.fixture()
def tiny():
    return tiny_collection()


@pytest.fixture()
def files(tmp_path):
    return tiny_files(tmp_path)


# ----------------------------------------------------------------------------- statistics by hand


def _sweep(contributing=(True, True, True)) -> SamplingSweep:
    ms = parse_measures(["xinfAP"])
    est = np.array([[0.35, 0.2, 0.05], [0.25, 0.25, 0.1]])[..., None]
    sd = np.array([[0.05, 0.01, 0.02]] * 2)[..., None]
    return SamplingSweep(
        designs=[parse_design("uniform:0.5")], trials=2, runs=["r0", "r1", "r2"],
        contributing=np.array(contributing), estimators=ms, targets=[target_of(ms[0])],
        truth=np.array([[0.3], [0.2], [0.1]]), judged=np.array([0.5]),
        estimate={(0, "random"): est}, sd={(0, "random"): sd},
        covered={(0, "random"): np.array([[8, 9, 10], [10, 10, 10]])[..., None]},
        topics={(0, "random"): np.array([[10, 10, 10], [10, 10, 10]])},
        options={"seed": 0, "pool_runs": 3, "topics": 10, "judgments": 100})


def test_statistics_by_hand():
    row = sampling_table(_sweep())[0]
    # errors (0.05, 0, -0.05) and (-0.05, 0.05, 0): RMSE sqrt(0.005 / 3) in both trials
    assert (row["rmse"], row["rmse_sd"]) == pytest.approx((np.sqrt(0.005 / 3), 0), abs=1e-12)
    # trial 0 keeps the order; trial 1 ties r0 and r1: tau-b = 2 / sqrt(3 * 2)
    taus = [1.0, 2 / np.sqrt(6)]
    assert row["tau"] == pytest.approx(np.mean(taus))
    assert row["tau_sd"] == pytest.approx(np.std(taus, ddof=1))
    # trial 0 is linear in the truth; trial 1: cov 0.015 / sqrt(0.02 * 0.015)
    assert row["rho"] == pytest.approx((1 + 0.015 / np.sqrt(0.02 * 0.015)) / 2)
    assert row["cover_topic"] == pytest.approx(57 / 60)
    # |error| <= 1.96 se: 0.05 <= 0.098 yes, 0 yes, 0.05 <= 0.0392 no; yes, 0.05 <= 0.0196 no, yes
    assert row["cover_mean"] == pytest.approx(4 / 6)
    z = np.array([[1.0, 0.0, -2.5], [-1.0, 5.0, 0.0]])
    ref = kstest(z.ravel(), "norm")
    assert (row["ks_d"], row["ks_p"]) == pytest.approx((ref.statistic, ref.pvalue))
    per_run = [kstest(z[:, r], "norm").pvalue >= 0.05 for r in range(3)]
    assert row["ks_runs"] == pytest.approx(np.mean(per_run))
    assert (row["design"], row["judgments"], row["target"], row["n_runs"]) == \
        ("uniform:0.5", "random", "AP", 3)


def test_statistics_per_group_of_runs():
    rows = sampling_table(_sweep((True, True, False)))
    assert [(r["runs"], r["n_runs"]) for r in rows] == [("all", 3), ("contributing", 2),
                                                        ("other", 1)]
    assert rows[2]["rmse"] == pytest.approx((0.05 + 0) / 2)  # r2 alone: |error| per trial
    assert np.isnan(rows[2]["tau"])  # one run: no ranking
    assert accuracy(np.array([[0.1, 0.3, 0.2]]), np.array([0.1, 0.2, 0.3]))[0, 0] == \
        pytest.approx(np.sqrt(0.02 / 3))
    assert len(sampling_details(_sweep())) == 2 * 3


def test_scatter_panels_give_the_figure_its_values(tmp_path):
    """The scatter figure's numbers come from experiments, the report only draws them."""
    from unjudged.report.sampling_plots import plot_scatter

    sweep = _sweep((True, False, True))
    (panel,) = scatter_panels(sweep, trial=1)
    assert (panel["design"], panel["judged"], panel["target"], panel["trial"]) == \
        ("uniform:0.5", 0.5, "AP", 1)
    assert panel["estimate"].tolist() == [0.25, 0.25, 0.1]
    assert panel["half"] == pytest.approx([1.959964 * 0.05, 1.959964 * 0.01, 1.959964 * 0.02],
                                          rel=1e-6)
    assert panel["contributing"].tolist() == [True, False, True]
    # trial 1: errors (-0.05, 0.05, 0), ties r0 and r1 (tau-b 2 / sqrt(6))
    assert panel["rmse"] == pytest.approx(np.sqrt(0.005 / 3))
    assert panel["tau"] == pytest.approx(2 / np.sqrt(6))
    assert panel["rho"] == pytest.approx(0.015 / np.sqrt(0.02 * 0.015))
    out = plot_scatter([panel], str(tmp_path / "scatter.png"))
    assert (tmp_path / "scatter.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert out == str(tmp_path / "scatter.png")


# ----------------------------------------------------------------------------- end to end


def test_complete_samples_recover_the_truth(tiny):
    q, runs = tiny
    s = sampling_experiment(runs, q, ["uniform:1", "depth:1+uniform:1"], trials=2)
    rows = sampling_table(s)
    assert [(r["design"], r["judgments"]) for r in rows[::4]] == [
        ("uniform:1", "random"), ("depth:1+uniform:1", "depth+random"),
        ("depth:1+uniform:1", "random")]
    assert s.judged.tolist() == [1.0, 1.0]
    for r in rows:  # every estimator is exact up to the 1e-5 smoothing; nDCG is nDCG
        assert r["rmse"] < 1e-4 and r["tau"] == pytest.approx(1.0), r
        assert r["cover_mean"] in (1.0, None) or np.isnan(r["cover_mean"])
    truth = evaluate([read_run(RUN_A, name="A"), read_run(RUN_B, name="B")],
                     judged_universe(q), ["AP", "nDCG"], per_topic=False)
    assert s.truth[:, 0].tolist() == pytest.approx(truth[truth.measure == "AP"].value.tolist())


def test_experiment_scores_the_samples_that_sample_draws(tiny):
    q, runs = tiny
    s = sampling_experiment(runs, q, ["depth:1+uniform"], estimators=["xinfAP", "nDCG"],
                            trials=3, seed=5, contributing=["A"])
    assert s.contributing.tolist() == [True, False]
    pool = best_ranks(judged_universe(q), runs[:1])  # the depth pool of the contributing run
    for t in range(3):
        sq = sample_qrels(q, "depth:1+uniform", seed=5, trial=t, best_rank=pool)
        for label, sample in (("depth+random", sq), ("random", uniform_twin(q, sq, seed=5,
                                                                            trial=t))):
            df = infer(runs, sample, ["xinfAP", "nDCG"], per_topic=False)
            assert s.estimate[(0, label)][t].ravel().tolist() == pytest.approx(
                df.value.tolist()), (t, label)
    # the trials draw different samples of topic 1 (topic 2 is judged completely)
    assert len({tuple(s.estimate[(0, "depth+random")][t, :, 0]) for t in range(3)}) > 1
    assert np.isnan(s.sd[(0, "random")][..., 1]).all()  # nDCG has no interval


def test_identical_on_every_executor(tiny):
    q, runs = tiny
    kw = dict(estimators=["xinfAP", "infNDCG"], trials=3, seed=3)
    serial = sampling_experiment(runs, q, ["uniform:0.5", "depth:1+strata:2,1"],
                                 executor=SerialExecutor(), **kw)
    with ProcessExecutor(2) as ex:
        parallel = sampling_experiment(runs, q, ["uniform:0.5", "depth:1+strata:2,1"],
                                       executor=ex, **kw)
    for key in serial.estimate:
        assert np.array_equal(serial.estimate[key], parallel.estimate[key])
        assert np.array_equal(serial.sd[key], parallel.sd[key], equal_nan=True)


def test_contributing_runs_from_lists_and_leaderboards(tmp_path):
    lb = tmp_path / "lb.csv"
    lb.write_text("run,team,contributed judgments\nA,x,yes\nB,y,no\nC,z,Yes\n")
    assert read_contributing(str(lb)) == ["A", "C"]
    names = tmp_path / "names.txt"
    names.write_text("# pool\nA\n\nC\n")
    assert read_contributing(str(names)) == ["A", "C"]
    lb.write_text("run,contributed judgments\nA,yes\nB,maybe\n")
    with pytest.raises(Exception, match=r"lb.csv:3: expected a run name in column 1 and yes"):
        read_contributing(str(lb))


# ----------------------------------------------------------------------------- command


def test_experiment_command_formats_details_and_errors(files):
    qrels, a, b, tmp = files
    (tmp / "pool.txt").write_text("A\n")
    base = ["experiment", "sampling", qrels, a, b, "--design", "uniform:0.5", "--design",
            "depth:1+uniform", "--trials", "2", "-j", "1", "--contributing",
            str(tmp / "pool.txt"), "-m", "xinfAP", "-m", "nDCG"]
    res = CliRunner().invoke(main, base + ["-f", "csv", "--details", str(tmp / "d.jsonl")])
    assert res.exit_code == 0, res.output
    rows = list(csv.DictReader(io.StringIO(res.stdout)))
    # 3 judgment sets x 2 estimators x 3 groups of runs
    assert len(rows) == 18 and rows[0]["design"] == "uniform:0.5" and rows[0]["judged"] == \
        "0.5454545454545454"
    assert {r["runs"] for r in rows} == {"all", "contributing", "other"}
    details = [json.loads(x) for x in (tmp / "d.jsonl").read_text().splitlines()]
    assert len(details) == 3 * 2 * 2 * 2 and {"estimate", "se", "truth"} <= details[0].keys()
    table = CliRunner().invoke(main, base).stdout
    assert table.startswith("sampling experiment: 2 runs (1 build the pools) x 2 topics, 11 "
                            "judgments") and "coverage per topic" in table
    bad = CliRunner().invoke(main, base + ["--details", str(tmp / "d.xlsx")])
    assert bad.exit_code == 2 and "expected .csv, .tsv, .jsonl" in bad.output
    (tmp / "pool.txt").write_text("Z\n")
    bad = CliRunner().invoke(main, base)
    assert bad.exit_code == 2 and bad.stderr.splitlines() == [
        "unjudged: note: 1 contributing run(s) not among the RUNs are ignored (Z)",
        "unjudged: error: none of the contributing runs is among the runs: the depth pools "
        "would be empty"]
    bad = CliRunner().invoke(main, base + ["--seed", "-1"])
    assert bad.exit_code == 2 and "expected a whole number >= 0, not -1" in bad.output
    (tmp / "pool.txt").write_text("A x\n")
    bad = CliRunner().invoke(main, base)
    assert bad.exit_code == 2 and bad.stderr.strip().endswith(
        "pool.txt:1: 2 fields, expected one run name per line (or a CSV with run and "
        "contributed columns)")


# ----------------------------------------------------------------------------- TREC-COVID


def test_small_covid_round1_study():
    # 30 of the 143 round-1 runs, 2 trials of a uniform 20% sample and of depth-1 + as many
    # again (the pool from the contributing runs among them); docs/sampling-experiment.md has
    # the full study
    qrels = read_qrels(str(need(COVID1 / "qrels" / "qrels-rnd1.txt")))
    with open(need(COVID1 / "leaderboard.csv")) as fh:
        board = list(csv.DictReader(fh))[:30]
    runs = read_runs([str(COVID1 / "runs" / f"{r['run']}.xz") for r in board], qrels=qrels)
    s = sampling_experiment(runs, qrels, ["uniform:0.2", "depth:1+uniform"],
                            estimators=["xinfAP", "infAP", "nDCG"], trials=2,
                            contributing=read_contributing(str(COVID1 / "leaderboard.csv")))
    assert int(s.contributing.sum()) == 14
    rows = {(r["design"], r["judgments"], r["estimator"]): r
            for r in sampling_table(s) if r["runs"] == "all"}
    got = {k: (round(r["judged"], 4), round(r["rmse"], 4), round(r["tau"], 4))
           for k, r in rows.items()}
    assert got == {
        ("uniform:0.2", "random", "xinfAP"): (0.2001, 0.0213, 0.7811),
        ("uniform:0.2", "random", "infAP"): (0.2001, 0.0177, 0.7742),
        ("uniform:0.2", "random", "nDCG"): (0.2001, 0.2284, 0.8088),
        ("depth:1+uniform", "depth+random", "xinfAP"): (0.0725, 0.0221, 0.6498),
        ("depth:1+uniform", "depth+random", "infAP"): (0.0725, 0.2043, 0.7028),
        ("depth:1+uniform", "depth+random", "nDCG"): (0.0725, 0.05, 0.4217),
        ("depth:1+uniform", "random", "xinfAP"): (0.0725, 0.0351, 0.5069),
        ("depth:1+uniform", "random", "infAP"): (0.0725, 0.0306, 0.5184),
        ("depth:1+uniform", "random", "nDCG"): (0.0725, 0.2994, 0.4378)}
    # with 7% judged, the stratified sample estimates MAP better than a uniform one of equal
    # size (seed 002's claim); infAP, which takes it for uniform, is far off
    assert rows[("depth:1+uniform", "depth+random", "xinfAP")]["rmse"] < \
        rows[("depth:1+uniform", "random", "infAP")]["rmse"]
