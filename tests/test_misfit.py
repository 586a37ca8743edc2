"""A run's misfit (unjudged.strategies.misfit): its judged documents' deviation from the prior,
relative to the pool runs', shifts its draws; worked by hand and on the shipped example."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from click.testing import CliRunner

from unjudged.cli import main
from unjudged.data.examples import example_paths
from unjudged.engine.estimate import estimate_runs
from unjudged.errors import UnjudgedWarning
from unjudged.io import read_qrels, read_runs
from unjudged.measures import parse_measures
from unjudged.strategies.misfit import DEFAULT_TAU, TAU_PRIOR_RUNS, Pool, RunShift, offset


def test_offset_by_hand():
    assert offset(np.array([1.0, 1, 0, 0]), np.full(4, 0.5))[0] == pytest.approx(0.0)
    d, se = offset(np.array([1.0, 1, 1, 0]), np.full(4, 0.5))
    assert d == pytest.approx(math.log(3))  # 3 of 4 relevant where 1/2 was predicted
    assert se == pytest.approx(1 / math.sqrt(4 * 0.75 * 0.25))
    assert offset(np.zeros(0), np.zeros(0)) == (0.0, float("inf"))


def test_pool_and_shift_by_hand():
    pool = Pool.of(np.array([0.0, 1, 2, 3, 4]), np.full(5, 0.5))
    # var 2.5 less 0.25 noise (2.25), with TAU_PRIOR_RUNS runs' worth of DEFAULT_TAU^2 = 0.25
    assert TAU_PRIOR_RUNS == 5
    assert (pool.centre, pool.runs) == (2.0, 5)
    assert pool.tau == pytest.approx(math.sqrt((5 * 2.25 + 5 * 0.25) / 10))
    # a dozen runs that agree (the pool's own documents): tau is not 0, a dense run may differ
    flat = Pool.of(np.full(12, -0.05), np.full(12, 0.06))
    assert flat.tau == pytest.approx(math.sqrt(5 * 0.25 / 17))  # 0.271
    # 143 runs: the data's 0.39 barely moves
    spread = np.r_[np.full(72, -0.4), np.full(71, 0.4)]
    many = Pool.of(spread, np.full(143, 0.1))
    alone = math.sqrt(spread.var(ddof=1) - 0.01)  # 0.389 from the data alone
    assert many.tau == pytest.approx(math.sqrt((143 * alone ** 2 + 1.25) / 148))  # 0.393
    assert Pool.of(np.array([0.0, 1]), np.ones(2)) == Pool()  # too few runs: the default
    # one run whose few judged documents were all relevant (a shift at +8, standard error
    # 80) weighs nothing: the unweighted moments took its 6,400 as everyone's noise (tau 0)
    odd = Pool.of(np.r_[spread, 8.0], np.r_[np.full(143, 0.1), 80.0])
    assert odd.tau == pytest.approx(many.tau, rel=1e-3)  # 144 runs in the blend, not 143
    assert odd.centre == pytest.approx(-0.0028, abs=1e-4)  # (72 x -0.4 + 71 x 0.4) / 143
    s = RunShift.of(1.2, 0.5, Pool(0.2, 0.5, 10), key=7)
    assert s.mean == pytest.approx(0.5)  # (1.2 - 0.2) shrunk by 0.25 / (0.25 + 0.25)
    assert s.sd == pytest.approx(math.sqrt(0.5 * 0.25 + 0.25))
    alone = RunShift.of(1.2, 0.5, Pool(), key=7)
    assert (alone.mean, alone.sd) == (0.0, DEFAULT_TAU)
    draws = s.draws(0, 0, 20_000)
    assert draws.mean() == pytest.approx(0.5, abs=0.02)
    assert draws.std() == pytest.approx(s.sd, rel=0.03)
    np.testing.assert_array_equal(draws[100:200], s.draws(0, 100, 200))  # by iteration


def test_pool_is_dersimonian_laird():
    """Pool.of's spread before the prior's weight is statsmodels' DerSimonian-Laird tau^2,
    and its centre the random-effects mean under the blended tau^2."""
    from statsmodels.stats.meta_analysis import combine_effects

    rng = np.random.default_rng(3)
    shifts = rng.normal(0.2, 0.5, 40)
    errors = rng.uniform(0.05, 0.6, 40)
    tau2 = combine_effects(shifts, errors ** 2, method_re="dl").tau2
    assert tau2 > 0.1
    blended = (40 * tau2 + TAU_PRIOR_RUNS * DEFAULT_TAU ** 2) / (40 + TAU_PRIOR_RUNS)
    w = 1 / (errors ** 2 + blended)
    pool = Pool.of(shifts, errors)
    assert pool.tau == pytest.approx(math.sqrt(blended), rel=1e-10)
    assert pool.centre == pytest.approx(float((w * shifts).sum() / w.sum()), rel=1e-10)


@pytest.fixture(scope="module")
def example():
    qp, rp = example_paths()
    q = read_qrels(qp)
    return qp, rp, q, read_runs(rp, qrels=q)


def _est(runs, q, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnjudgedWarning)
        return estimate_runs(runs, q, parse_measures(["nDCG@10", "AP@100"]),
                             methods=["bootstrap"], b=200, seed=1, pool_runs=runs, **kw)


def test_misfit_widens_the_run_intervals(example):
    _, _, q, runs = example
    off, on = _est(runs, q, misfit=False), _est(runs, q)
    assert off.context.misfit is None
    pool = on.context.misfit
    # the example's five runs, judged within DEPTH (30): centre 0.27, tau 0.55
    assert pool.runs == 5 and 0.45 < pool.tau < 0.65 and 0.2 < pool.centre < 0.35
    width = {e: np.array([r.run_lohi[:, 1] - r.run_lohi[:, 0] for r in e.runs])
             for e in (off, on)}
    # every run's AP interval is wider with its misfit drawn; nDCG@10's never narrower
    assert (width[on][:, 1] > width[off][:, 1]).all()
    assert (width[on][:, 0] >= width[off][:, 0] - 1e-3).all()


def test_cli_no_misfit_is_the_former_draws(example):
    qp, rp, q, runs = example
    pool = [a for p in rp for a in ("--pool-runs", p)]
    r = CliRunner().invoke(main, ["estimate", qp, rp[0], "-m", "AP@100", "-b", "200", "--seed", "1",
                                  "--methods", "bootstrap", "-f", "tsv", "--no-misfit"] + pool)
    assert r.exit_code == 0, r.output
    row = [x.split("\t") for x in r.stdout.splitlines() if "\tall\t" in x][0]
    off = _est(runs, q, misfit=False)
    want = next(e for e in off.runs if e.run == runs[0].name)
    assert float(row[4]) == pytest.approx(float(want.run_point[1]), abs=1e-12)
