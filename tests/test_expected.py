"""The expected strategy (issue 21): exact moments under independent grade probabilities
(checked by enumerating every outcome), the grown normalisers, the prior's uncertainty, the
run-level variance, the command line and real data against the bootstrap."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from click.testing import CliRunner

from shared_data import COVID1, need
from unjudged.cli import main
from unjudged.data.judged import judge
from unjudged.engine.estimate import estimate_runs, run_variance
from unjudged.experiments.calibration import parse_method
from unjudged.io import read_qrels, read_run, read_runs
from unjudged.measures import parse_measures
from unjudged.parallel import ProcessExecutor
from unjudged.strategies.expected import _ap_numerator, moments, own_growth
from unjudged.strategies.growth import shift_grades

QRELS = {"t": {"a": 2, "b": 0, "c": 1, "d": 2}}
RUN = {"t": {"a": 5.0, "x": 4.0, "b": 3.0, "y": 2.0, "z": 1.0}}
# the grade distributions of x, y, z (rank 2, 4, 5)
PRIOR = {1: [0.5, 0.3, 0.2], 3: [0.2, 0.2, 0.6], 4: [0.9, 0.1, 0.0]}


def distributions(j):
    dist = np.zeros(j.grades.shape + (3,))
    for r, g in enumerate(j.grades[0]):
        if r in PRIOR:
            dist[0, r] = PRIOR[r]
        elif g >= 0:
            dist[0, r, g] = 1.0
    return dist


@pytest.mark.parametrize("name", ["P@2", "P@5", "RBP(p=0.8)", "RBP(p=0.5,rel=2)", "nDCG@3",
                                  "nDCG", "nDCG(dcg='exp-log2')@4", "AP", "AP@4",
                                  "AP(rel=2)"])
def test_moments_with_the_pools_normalisers_are_exact(name):
    """Every one of the 27 outcomes of x, y, z scored by the measure's own kernel (the
    pool's normalisers), weighted by its probability: the expectation and the variance."""
    m = parse_measures(name)[0]
    j = judge(read_run(RUN), read_qrels(QRELS))
    top = j if m.cutoff is None else j.with_grades(j.cut(m.cutoff), np.minimum(j.length,
                                                                                 m.cutoff))
    values, weights = [], []
    for grades in itertools.product(range(3), repeat=3):
        g = j.grades.copy()
        p = 1.0
        for r, grade in zip(PRIOR, grades, strict=True):
            g[0, r] = grade
            p *= PRIOR[r][grade]
        values.append(float(m.compute(j.with_grades(g))[0]))
        weights.append(p)
    w, v = np.array(weights), np.array(values)
    mean = float((w * v).sum())
    var = float((w * (v - mean) ** 2).sum())
    got = moments(m, top, distributions(top), None)
    assert float(got[0][0]) == pytest.approx(mean, abs=1e-12)
    assert float(got[1][0]) == pytest.approx(var, abs=1e-12)


def test_ap_numerator_by_hand():
    mean, linear, pairs = _ap_numerator(np.array([[1.0, 0.5]]))  # S = 1 + x
    assert mean.tolist() == [1.5]
    assert float((linear ** 2 * np.array([0.0, 0.25])).sum() + pairs[0]) == 0.25


def test_grown_ap_is_one_whatever_the_unjudged_document_is():
    """One judged relevant document at rank 1, an unjudged one at rank 2 with p = 1/2 that
    also grows R: AP = (1 + x) / (1 + x) = 1 in every outcome."""
    j = judge(read_run({"t": {"a": 2.0, "x": 1.0}}), read_qrels({"t": {"a": 1, "b": 0}}))
    dist = np.array([[[0.0, 1.0], [0.5, 0.5]]])
    value, var = moments(parse_measures("AP")[0], j, dist, own_growth(j, dist))
    assert float(value[0]) == pytest.approx(1.0)
    assert float(var[0]) == pytest.approx(0.0, abs=1e-12)


def test_shifting_the_prior_moves_every_tail_in_log_odds():
    p = shift_grades(np.array([[0.2, 0.5, 0.3]]), 1.0)
    tails = [0.8, 0.3]
    want = [1 / (1 + np.exp(-(np.log(t / (1 - t)) + 1.0))) for t in tails]
    assert p.sum() == pytest.approx(1.0)
    assert [p[0, 1:].sum(), p[0, 2]] == pytest.approx(want)


def test_the_priors_uncertainty_adds_its_share_of_variance():
    """P@5 is linear in q, so d E / d shift = sum q (1 - q) / 5 exactly; the spreads add
    (spread^2 + shared^2) times its square, and the run's mean keeps the shared part whole."""
    q, r = read_qrels(QRELS), read_run(RUN, name="r")

    def one(**kw):
        est = estimate_runs([r], q, parse_measures("P@5"), methods=["expected"], prior="pool",
                            grow=False, **kw)
        return est.runs[0]

    plain, moved = one(spread=0.0, shared_spread=0.0), one(spread=0.6, shared_spread=0.3)
    pool_q = 3 / 4  # the pool prior: 3 of the 4 judged documents are relevant
    slope = 3 * pool_q * (1 - pool_q) / 5  # x, y and z are unjudged
    assert plain.points["expected"][0, 0] == pytest.approx(moved.points["expected"][0, 0])
    extra = moved.variances["expected"][0, 0] - plain.variances["expected"][0, 0]
    # (a central difference over +- 0.05 in log-odds: O(0.05^2) from the exact derivative)
    assert extra == pytest.approx((0.6 ** 2 + 0.3 ** 2) * slope ** 2, rel=1e-3)
    assert moved.shared["expected"][0, 0] == pytest.approx(0.3 * slope, rel=1e-3)


def test_run_variance_keeps_the_shared_part_whole():
    m = parse_measures(["P@5"])
    got = run_variance(np.array([[0.02], [0.02]]), np.array([[0.1], [0.1]]), m)
    assert got.tolist() == pytest.approx([(0.01 + 0.01) / 4 + 0.1 ** 2])


def test_estimate_and_eval_report_it_only_when_asked(tmp_path):
    (tmp_path / "q").write_text("t 0 a 2\nt 0 b 0\nt 0 c 1\nt 0 d 2\n")
    (tmp_path / "r").write_text("t Q0 a 1 5 r\nt Q0 x 2 4 r\nt Q0 b 3 3 r\nt Q0 y 4 2 r\n")
    q, r = str(tmp_path / "q"), str(tmp_path / "r")
    run = CliRunner().invoke
    out = run(main, ["estimate", q, r, "-m", "P@2", "-b", "20"])
    assert "expected" not in out.stdout
    out = run(main, ["estimate", q, r, "-m", "P@2", "-m", "bpref", "--methods",
                     "nonrel,expected"])
    assert out.exit_code == 0, out.output
    head, p2, bpref = out.stdout.splitlines()[:3]
    assert head.split() == ["run", "topic", "measure", "nonrel", "expected", "lo-hi(90%)"]
    assert bpref.split()[-2:] == ["-", "-"]  # not a sum over ranks
    value = float(p2.split()[4])
    out = run(main, ["estimate", q, r, "-m", "P@2", "--methods", "expected", "-f", "jsonl"])
    row = json.loads(out.stdout.splitlines()[-1])
    assert set(row) == {"run", "topic", "measure", "method", "value", "lo", "hi", "mean",
                        "std"}
    assert row["lo"] < row["value"] <= row["hi"]
    assert row["value"] == pytest.approx(value, abs=1e-4)
    out = run(main, ["eval", q, r, "-m", "P@2", "--unjudged", "expected"])
    assert float(out.stdout.splitlines()[1].split()[1]) == pytest.approx(value, abs=1e-4)


def test_the_calibration_bench_takes_it_as_a_method():
    assert parse_method("expected") == ("expected", {"methods": "expected"})


def covid(n: int = 8):
    q = read_qrels(need(COVID1 / "qrels" / "qrels-rnd1.txt"))
    runs = read_runs([COVID1 / "runs"], qrels=q)
    return q, runs[:: max(1, len(runs) // n)][:n]


def test_round_one_expectations_agree_with_the_bootstrap():
    """TREC-COVID round 1, 8 runs, position prior without its uncertainty: P@5 and RBP have
    no normaliser, so the bootstrap's mean and sd (b = 4000) estimate exactly the expected
    strategy's moments; nDCG@10 and AP@100 (grown normalisers: a ratio of expectations and a
    delta-method variance) stay close."""
    q, runs = covid()
    ms = parse_measures(["P@5", "RBP(p=0.5)@20", "nDCG@10", "AP@100"])
    # the expected strategy has no per-run misfit: the bootstrap without it
    est = estimate_runs(runs, q, ms, methods=["bootstrap", "expected"], b=4000, seed=3,
                        spread=0.0, shared_spread=0.0, misfit=False, workers=2,
                        pool_runs=runs)
    for i, m in enumerate(ms):
        mean = np.concatenate([r.points["expected"][:, i] for r in est.runs])
        sd = np.sqrt(np.concatenate([r.variances["expected"][:, i] for r in est.runs]))
        boot = np.concatenate([r.stats[:, i, 0] for r in est.runs])
        boot_sd = np.concatenate([r.stats[:, i, 2] for r in est.runs])
        open_ = boot_sd > 0
        if i < 2:
            assert np.abs(mean - boot).max() < 0.01, m.name
            assert np.abs(sd - boot_sd).max() < 0.01, m.name
        else:
            assert np.abs(mean - boot).mean() < 0.01, m.name
            assert np.median(sd[open_] / boot_sd[open_]) == pytest.approx(1.0, abs=0.1), m.name


def test_the_same_on_every_executor():
    q, runs = covid(4)
    ms = parse_measures(["nDCG@10", "AP"])
    serial = estimate_runs(runs, q, ms, methods=["expected"])
    with ProcessExecutor(2) as ex:
        spread = estimate_runs(runs, q, ms, methods=["expected"], executor=ex)
    for a, b in zip(serial.runs, spread.runs, strict=True):
        np.testing.assert_array_equal(a.points["expected"], b.points["expected"])
        np.testing.assert_array_equal(a.variances["expected"], b.variances["expected"])


def test_ir_measures_offers_it():
    import ir_measures

    import unjudged.ir_measures as uim

    qrels = {"q1": {"d1": 1, "d2": 0, "d3": 1}, "q2": {"a": 1, "b": 0}}
    run = {"q1": {"d1": 3.0, "x": 2.0, "d2": 1.0}, "q2": {"a": 2.0, "y": 1.0}}
    p3 = ir_measures.P @ 3
    mean, std = uim.Expected(p3, prior="pool"), uim.Expected(p3, stat="std", prior="pool")
    got = uim.provider.calc_aggregate([mean, std], qrels, run)
    # the pool prior: x relevant with 2/3 (q1), y with 1/2 (q2)
    assert got[mean] == pytest.approx(((1 + 2 / 3) / 3 + (1 + 1 / 2) / 3) / 2)
    # the spreads included: more than the draws' own sd of the mean, sqrt(sum v / 9) / 2
    assert got[std] > np.sqrt((2 / 9 + 1 / 4) / 9) / 2
    assert ir_measures.calc_aggregate([mean], qrels, run)[mean] == pytest.approx(got[mean])
    with pytest.raises(ValueError):
        uim.provider.calc_aggregate([uim.Expected(p3, prior="nope")], qrels, run)


def test_a_context_serves_an_estimate_with_other_spreads():
    """Estimates.context handed to another estimate of the same runs: the expected counts at
    +- the shift are there even when the first estimate had no spreads."""
    q, runs = covid(3)
    ms = parse_measures(["nDCG@10"])
    first = estimate_runs(runs, q, ms, methods=["expected"], spread=0.0, shared_spread=0.0)
    again = estimate_runs(runs, q, ms, methods=["expected"], context=first.context)
    fresh = estimate_runs(runs, q, ms, methods=["expected"])
    for a, b in zip(again.runs, fresh.runs, strict=True):
        np.testing.assert_array_equal(a.variances["expected"], b.variances["expected"])
