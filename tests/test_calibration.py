"""The calibration bench (unjudged.experiments.calibration, `unjudged experiment calibration`):
coverage code on synthetic cases with known answers, the bench on hand-made qrels, the CLI."""

from __future__ import annotations

import csv
import io
import math

import numpy as np
import pytest
from click.testing import CliRunner

from shared_data import COVID1, DATA, need
from unjudged.cli import main
from unjudged.errors import InvalidOptionError
from unjudged.experiments.calibration import (
    BOUND,
    calibrate,
    columns,
    coverage,
    coverage_curves,
    depth_of,
    mean_width,
    parse_method,
    quantile_intervals,
    summary_rows,
)
from unjudged.io import read_qrels, read_run
from unjudged.measures import parse_measures


def _tolerance(p: float, n: int) -> float:
    """Four binomial standard deviations of a coverage p over n truths."""
    return 4 * math.sqrt(p * (1 - p) / n)


def test_coverage_of_a_calibrated_normal_is_nominal():
    rng = np.random.default_rng(7)
    n, b = 4000, 2000
    samples = rng.standard_normal((b, n))
    truth = rng.standard_normal(n)
    lohi = quantile_intervals(samples, [0.8, 0.9, 0.95])
    cover = coverage(lohi, truth)
    for got, want in zip(cover, (0.8, 0.9, 0.95), strict=True):
        assert abs(got - want) < _tolerance(want, n)
    # the width of a 90% normal interval is 2 * 1.6449 (up to the sampling of the quantiles)
    assert mean_width(lohi)[1] == pytest.approx(2 * 1.6449, abs=0.03)


def test_coverage_of_a_shifted_truth_is_zero():
    rng = np.random.default_rng(8)
    samples = rng.standard_normal((2000, 1000))
    lohi = quantile_intervals(samples, [0.9])
    # truth ~ N(3, 1) inside [-1.645, 1.645]: Phi(1.645 - 3) - Phi(-1.645 - 3) = 0.0877
    want = 0.5 * (math.erf((1.645 - 3) / math.sqrt(2)) - math.erf((-1.645 - 3) / math.sqrt(2)))
    got = coverage(lohi, rng.standard_normal(1000) + 3.0)[0]
    assert abs(got - want) < _tolerance(want, 1000)
    assert coverage(lohi, np.full(1000, 10.0))[0] == 0.0  # far outside: never covered


def test_widths_and_coverage_exact_on_a_hand_made_case():
    samples = np.arange(101, dtype=float)[:, None] * np.array([1.0, 2.0])  # two pairs
    lohi = quantile_intervals(samples, [0.8, 0.9])
    assert lohi.tolist() == [[[10.0, 90.0], [5.0, 95.0]], [[20.0, 180.0], [10.0, 190.0]]]
    assert mean_width(lohi).tolist() == [120.0, 135.0]
    # 95 is inside pair 1's 90% interval only; 185 inside pair 2's 90% only
    assert coverage(lohi, np.array([95.0, 185.0])).tolist() == [0.0, 1.0]
    assert coverage(lohi[:0], np.array([])).size == 2  # NaN for no pairs


def test_parse_method_and_depths():
    assert parse_method("position") == ("position", {"prior": "position"})
    assert parse_method("prior=pool,spread=1") == ("prior=pool,spread=1",
                                                    {"prior": "pool", "spread": 1})
    with pytest.raises(InvalidOptionError):
        parse_method("nonsense")
    assert [depth_of(m) for m in parse_measures("P@5,RBP(p=0.5),RBP(p=0.8)@25,AP")] == \
        [5, 7, 25, None]  # 0.5^7 < 0.01 <= 0.5^6


def _fixture():
    pool = read_qrels({"t1": {"a": 1, "b": 0, "c": 1}, "t2": {"a": 0, "d": 1}})
    truth = read_qrels({"t1": {"a": 1, "b": 0, "c": 1, "x": 1},
                        "t2": {"a": 0, "d": 1, "y": 0}})
    runs = [read_run({"t1": {"a": 3, "x": 2, "b": 1}, "t2": {"d": 3, "y": 2, "z": 1}},
                     name="r1"),
            read_run({"t1": {"b": 3, "a": 2, "c": 1}, "t2": {"y": 3, "a": 2, "d": 1}},
                     name="r2")]
    return pool, truth, runs


def test_calibrate_on_hand_made_qrels():
    pool, truth, runs = _fixture()
    cal = calibrate(runs, pool, truth, "P@3", [("pool", {"prior": "pool"})], b=300)
    # r1/t1: x unjudged (relevant in truth); r1/t2: y (non-relevant) and z (unjudged in truth
    # too); r2/t1: all judged; r2/t2: y unjudged
    assert cal.unjudged[..., 0].tolist() == [[True, True], [False, True]]
    assert cal.complete[..., 0].tolist() == [[True, False], [True, True]]
    assert cal.truth[..., 0].ravel().tolist() == pytest.approx([2 / 3, 1 / 3, 2 / 3, 1 / 3])
    complete = summary_rows(cal, "complete")
    every = summary_rows(cal, "all")
    assert [r["method"] for r in complete] == ["pool", BOUND]
    assert [r["pairs"] for r in complete] == [2, 2]  # r1/t1 and r2/t2
    assert [r["pairs"] for r in every] == [3, 3]
    bound = complete[1]
    # [nonrel, upper] of P@3: r1/t1 [1/3, 2/3]; r2/t2 [1/3, 1/3] (the pool has no relevant
    # document left for t2) -> mean width 1/6; nonrel's errors 1/3 and 0
    assert bound["width90"] == pytest.approx(1 / 6)
    assert bound["cover90"] == 1.0
    assert bound["rmse"] == pytest.approx(math.sqrt((1 / 9) / 2))
    assert set(columns()) <= set(complete[0])


def test_coverage_curves_average_measures():
    rows = [{"collection": "c", "truth": "all", "measure": m, "method": "pool",
             "cover80": v, "cover90": v, "cover95": v} for m, v in (("a", 0.5), ("b", 1.0))]
    rows.append({**rows[0], "method": BOUND})
    assert coverage_curves(rows) == {"c (all)": {"pool": [0.75, 0.75, 0.75]}}
    assert coverage_curves(rows, measure="b") == {"c (all)": {"pool": [1.0, 1.0, 1.0]}}


def _write_fixture(tmp_path):
    pool, truth, runs = _fixture()
    (tmp_path / "pool.txt").write_text(
        "".join(f"{t} 0 {d} {g}\n" for t, docs in pool.to_dict().items()
                for d, g in docs.items()))
    (tmp_path / "truth.txt").write_text(
        "".join(f"{t} 0 {d} {g}\n" for t, docs in truth.to_dict().items()
                for d, g in docs.items()))
    paths = []
    for r in runs:
        lines = [f"{t} Q0 {d} {i + 1} {s} {r.name}\n" for t, docs in r.to_dict().items()
                 for i, (d, s) in enumerate(sorted(docs.items(), key=lambda x: -x[1]))]
        (tmp_path / f"{r.name}.run").write_text("".join(lines))
        paths.append(str(tmp_path / f"{r.name}.run"))
    return [str(tmp_path / "pool.txt"), str(tmp_path / "truth.txt"), *paths]


def test_cli_calibration_csv(tmp_path):
    args = _write_fixture(tmp_path)
    result = CliRunner().invoke(main, ["experiment", "calibration", *args, "-m", "P@3",
                                       "--priors", "pool", "-b", "300", "-j", "1", "-f", "csv",
                                       "--plot", str(tmp_path / "c.png")])
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert [r["method"] for r in rows] == ["pool", BOUND]
    assert [int(r["pairs"]) for r in rows] == [2, 2]
    assert float(rows[1]["width90"]) == pytest.approx(1 / 6)
    assert float(rows[1]["cover90"]) == 1.0
    assert (tmp_path / "c.png").stat().st_size > 0
    every = CliRunner().invoke(main, ["experiment", "calibration", *args, "-m", "P@3",
                                      "--priors", "pool", "-b", "300", "-j", "1", "-f",
                                      "jsonl", "--all-pairs"])
    assert every.exit_code == 0, every.output
    assert '"pairs": 3' in every.stdout


@pytest.mark.parametrize("bad", [["--levels", "0.9,1.5"], ["--methods", "nonsense"],
                                 ["--methods", "x:unknown_setting=1"], ["--levels", "a"]])
def test_cli_calibration_bad_input_is_one_line(tmp_path, bad):
    args = _write_fixture(tmp_path)
    result = CliRunner().invoke(main, ["experiment", "calibration", *args, "-m", "P@3",
                                       "-b", "10", "-j", "1", *bad])
    assert result.exit_code == 2, result.output
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert result.stderr.startswith("unjudged: error:")


def test_round1_few_runs():
    runs_dir = need(COVID1 / "runs")
    complete_path = need(DATA / "anserini-tools" / "qrels" / "qrels.covid-complete.txt")
    from unjudged.io import read_runs

    q1 = read_qrels(COVID1 / "qrels" / "qrels-rnd1.txt")
    full = read_qrels(complete_path).to_dict()
    truth = read_qrels({t: full[t] for t in q1.topics})
    files = sorted(runs_dir.iterdir())[:3]
    runs = read_runs(files, qrels=q1)
    cal = calibrate(runs, q1, truth, "nDCG@10,P@10", [("pool", {"prior": "pool"})], b=200)
    rows = summary_rows(cal, "complete")
    assert len(rows) == 4 and all(r["pairs"] > 0 for r in rows)
    # the range [nonrel, upper] covers the complete truth for most fully judged pairs
    assert all(0.8 <= r["cover90"] <= 1.0 for r in rows if r["method"] == BOUND)
    # a bootstrap interval always lies inside [nonrel, upper], hence is narrower
    assert all(r["width90"] <= r["bound_width"] + 1e-12 for r in rows)


def test_randomised_coverage_of_a_discrete_distribution():
    # three values: the closed 90% interval is [min, max] and always holds a truth drawn from
    # the same distribution; the randomised PIT covers it 90% of the time
    from unjudged.experiments.calibration import (
        coverage,
        pit_bounds,
        quantile_intervals,
        randomised_coverage,
    )

    rng = np.random.default_rng(1)
    values = np.array([0.0, 0.5, 1.0])
    samples = rng.choice(values, size=(4000, 1), p=[0.2, 0.5, 0.3])
    truths = rng.choice(values, size=3000, p=[0.2, 0.5, 0.3])
    lohi = np.repeat(quantile_intervals(samples, [0.9]), truths.size, axis=0)
    assert coverage(lohi, truths)[0] == 1.0
    pit = pit_bounds(np.repeat(samples, truths.size, axis=1), truths)
    assert abs(randomised_coverage(pit, [0.9])[0] - 0.9) < 0.01
    # a truth outside every draw is never covered, one at the median always
    assert randomised_coverage(np.array([[1.0, 1.0], [0.5, 0.5]]), [0.9]).tolist() == [0.5]
