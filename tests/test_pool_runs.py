"""A run's estimate depends only on the qrels, the run, the --pool-runs, the options and the
seed: never on the other runs estimated beside it (the shipped TREC-COVID round-1 example)."""

from __future__ import annotations

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
from unjudged.strategies.position import PositionModel, _arrow_solve

B = 120
MS = ["nDCG@10", "AP", "P@10"]


@pytest.fixture(scope="module")
def example():
    qp, rp = example_paths()
    q = read_qrels(qp)
    return qp, rp, q, read_runs(rp, qrels=q)


def _point(est, name):
    r = next(r for r in est.runs if r.run == name)
    return np.concatenate([r.run_point, r.point.ravel(), r.run_lohi.ravel()])


def _estimate(runs, q, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnjudgedWarning)
        return estimate_runs(runs, q, parse_measures(MS), methods=["bootstrap"], b=B, seed=3,
                             **kw)


def test_without_pool_runs_each_run_is_alone(example):
    _, _, q, runs = example
    alone = _estimate(runs[:1], q)
    together = _estimate(runs, q)
    np.testing.assert_array_equal(_point(alone, runs[0].name),
                                  _point(together, runs[0].name))
    assert together.reference.startswith("each run alone")


def test_with_pool_runs_alone_or_together_the_same(example):
    _, _, q, runs = example
    together = _estimate(runs, q, pool_runs=runs)
    alone = _estimate(runs[2:3], q, pool_runs=runs)
    # a run outside the pool runs draws from the context of the pool runs and itself: the
    # same as when it is one of them
    outside = _estimate(runs[2:3], q, pool_runs=runs[:2] + runs[3:])
    want = _point(together, runs[2].name)
    np.testing.assert_array_equal(_point(alone, runs[2].name), want)
    np.testing.assert_array_equal(_point(outside, runs[2].name), want)
    assert together.reference == ("5 pool runs (--pool-runs); their misfit in the judged top "
                                  "30: centre +0.27, tau 0.55 (log-odds)")
    # the pool context matters: five runs tell the documents they agree on from the rest
    assert not np.array_equal(_point(_estimate(runs[2:3], q), runs[2].name), want)


def test_a_measure_does_not_depend_on_the_measures_beside_it(example):
    """nDCG@10 alone or with AP@100 and P@5: the same rows, per topic and per run, to the
    last bit (the normalisers grow per cutoff; every statistic sums its own draws)."""
    _, _, q, runs = example

    def rows(names):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UnjudgedWarning)
            est = estimate_runs(runs, q, parse_measures(names), b=B, seed=3, pool_runs=runs)
        df = est.to_pandas(per_topic=True)
        return df[df.measure == "nDCG@10"].reset_index(drop=True)

    alone, beside = rows(["nDCG@10"]), rows(["nDCG@10", "AP@100", "P@5"])
    assert len(alone) > 100 and alone.equals(beside)


def test_fallback_is_said(example):
    _, _, q, runs = example
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        estimate_runs(runs[:1], q, parse_measures(["P@10"]), methods=["bootstrap"], b=10)
    said = [str(w.message) for w in seen if issubclass(w.category, UnjudgedWarning)]
    assert any("fewer than 5 runs" in s and "--pool-runs" in s for s in said), said


def test_cli_rows_do_not_depend_on_bystanders(example):
    qp, rp, _, runs = example
    pool = [a for p in rp for a in ("--pool-runs", p)]
    base = ["estimate", qp, "-m", "nDCG@10", "-b", str(B), "-f", "tsv", "-q",
            "--methods", "bootstrap", "-j", "1"] + pool
    one = CliRunner().invoke(main, base[:2] + [rp[1]] + base[2:])
    every = CliRunner().invoke(main, base[:2] + list(rp) + base[2:])
    assert one.exit_code == 0 and every.exit_code == 0, one.output + every.output
    name = runs[1].name
    rows_one = [x for x in one.stdout.splitlines() if x.startswith(name + "\t")]
    rows_every = [x for x in every.stdout.splitlines() if x.startswith(name + "\t")]
    assert len(rows_one) == 31 and rows_one == rows_every  # 30 topics and the mean


def test_cli_names_the_pool_context(example):
    qp, rp, _, _ = example
    r = CliRunner().invoke(main, ["estimate", qp, rp[0], "-m", "P@10", "-b", "20",
                                  "--methods", "bootstrap"])
    assert r.exit_code == 0, r.output
    assert "pool context: each run alone" in r.stdout
    assert "fewer than 5 runs" in r.stderr


def test_files_skipped_in_the_pool_runs_are_said(example, tmp_path):
    """A --pool-runs folder's files that are not runs are named, as the runs' are (they were
    dropped silently), and under --strict refused."""
    import shutil

    qp, rp, _, _ = example
    for path in rp:
        shutil.copy(path, tmp_path)
    (tmp_path / "notes.txt").write_text("these runs came from the organisers\n")
    args = ["estimate", str(qp), str(rp[0]), "-m", "nDCG@10", "-b", "20",
            "--pool-runs", str(tmp_path)]
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 0
    assert f"--pool-runs: skipped {tmp_path / 'notes.txt'}: not a run file" in r.stderr
    assert f"{len(rp)} pool runs (--pool-runs)" in r.output
    strict = CliRunner().invoke(main, args + ["--strict"])
    assert strict.exit_code == 2 and "notes.txt" in strict.stderr


def test_workers_name_the_pool_context_too(example):
    """With worker processes the pool runs stay home once their context is built (every run
    estimated is one of them): the note still names them, and their estimates are the
    serial ones (the note said "each run alone; fewer than 5 runs" until 29 Nov 2026)."""
    qp, rp, q, runs = example
    serial = _estimate(runs, q, pool_runs=runs)
    parallel = _estimate(runs, q, pool_runs=runs, workers=2)
    assert parallel.reference == serial.reference
    assert parallel.reference.startswith("5 pool runs (--pool-runs)")
    for r in runs:
        np.testing.assert_array_equal(_point(parallel, r.name), _point(serial, r.name))
    pool = [a for p in rp for a in ("--pool-runs", p)]
    out = CliRunner().invoke(main, ["estimate", qp, *rp, "-m", "P@10", "-b", "20", "-j", "2",
                                    "--methods", "bootstrap", *pool])
    assert out.exit_code == 0, out.output
    assert "pool context: 5 pool runs (--pool-runs)" in out.stdout
    assert "fewer than 5 runs" not in out.stdout + out.stderr


def test_eval_refuses_pool_runs_without_an_estimate(example):
    qp, rp, _, _ = example
    r = CliRunner().invoke(main, ["eval", qp, rp[0], "-m", "P@10", "--pool-runs", rp[1]])
    assert r.exit_code == 2 and "--pool-runs" in r.output


def test_arrow_solve_is_the_dense_solve():
    rng = np.random.default_rng(0)
    n = 7
    d = rng.uniform(1, 3, n)
    b = rng.normal(size=(n, 2))
    c = np.array([[40.0, 2.0], [2.0, 30.0]])
    full = np.zeros((n + 2, n + 2))
    full[np.arange(n), np.arange(n)] = d
    full[:n, n:], full[n:, :n], full[n:, n:] = b, b.T, c
    g = rng.normal(size=n + 2)
    np.testing.assert_allclose(_arrow_solve(d, b, c, g[:n], g[n:]), np.linalg.solve(full, g))


def test_position_model_is_linear_in_topics():
    # 20,000 topics: the dense Hessian needed 3.2 GB; the arrow solve a few MB
    from unjudged.io import read_run

    n = 20_000
    q = read_qrels({str(t): {"a": t % 2, "b": 0, "c": 1} for t in range(n)})
    runs = [read_run({str(t): {"a": 3.0, "b": 2.0, "x": 1.0} for t in range(n)}, name=f"r{i}")
            for i in range(5)]
    m = PositionModel.build(runs, q)
    assert m.intercept.shape == (n,) and np.isfinite(m.intercept).all()
    assert not m.fallback


def test_qrels_without_non_relevant_judgments_are_said():
    from unjudged.io import read_run

    q = read_qrels({"t": {"a": 1, "b": 1}, "u": {"c": 1, "d": 0}})
    r = read_run({"t": {"a": 3.0, "x": 2.0}, "u": {"c": 1.0, "y": 0.5}})
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        estimate_runs([r], q, parse_measures(["P@2"]), methods=["bootstrap"], b=10)
    said = [str(w.message) for w in seen]
    assert any(s.startswith("1 of 2 topics have no non-relevant judgment") for s in said), said
    assert not [w for w in seen if not issubclass(w.category, UnjudgedWarning)]


def test_ir_measures_takes_the_pool_runs(example):
    import os

    ir_measures = pytest.importorskip("ir_measures")
    import unjudged.ir_measures as uim

    qp, rp, q, runs = example
    pool = os.pathsep.join(rp)
    m = uim.Bootstrap(ir_measures.nDCG @ 10, b=B, seed=3, pool_runs=pool)
    got = uim.UnjudgedProvider().calc_aggregate([m], qp, rp[2])[m]
    from unjudged.policies import Policies

    want = estimate_runs(runs, q, parse_measures(["nDCG@10"]), methods=["bootstrap"], b=B,
                         seed=3, pool_runs=runs, policies=Policies(complete=True))
    r = next(r for r in want.runs if r.run == runs[2].name)
    assert got == pytest.approx(float(r.run_point[0]), abs=1e-12)
    alone = uim.Bootstrap(ir_measures.nDCG @ 10, b=B, seed=3)
    assert uim.UnjudgedProvider().calc_aggregate([alone], qp, rp[2])[alone] != got
