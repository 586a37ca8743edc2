"""Coupled draws (issue 17, item 4): within one bootstrap iteration a document retrieved by
several runs gets the same grade in each; every reported interval contains its point estimate;
the keys behind the draws are functions of the names only."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from unjudged.cli import main
from unjudged.data.judged import judge
from unjudged.engine.estimate import EstimateSettings, estimate_all
from unjudged.io import read_qrels, read_run
from unjudged.measures import parse_measures
from unjudged.strategies import bootstrap as bs
from unjudged.strategies.fill import unknown
from unjudged.strategies.keys import string_keys, uniforms
from unjudged.strategies.position import PositionModel, run_keys
from unjudged.strategies.summaries import interval, parse_point, point_estimate

PROPS = settings(max_examples=40, deadline=None,
                 suppress_health_check=[HealthCheck.too_slow])
DOCS = [f"u{i}" for i in range(12)]


def _plenty(topics):
    """Qrels whose pool holds 40 documents of each grade that no run retrieves: the pool never
    runs out of a grade, so every requested grade is served as drawn."""
    return {t: {f"j{g}_{i}": g for g in range(3) for i in range(40)} for t in topics}


@st.composite
def two_runs(draw):
    topics = draw(st.lists(st.sampled_from(["1", "2", "3"]), min_size=1, max_size=3,
                           unique=True))
    runs = []
    for _ in range(2):
        run = {}
        for t in topics:
            docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=8, unique=True))
            run[t] = {d: float(len(docs) - i) for i, d in enumerate(docs)}
        runs.append(run)
    return topics, runs


def _grades_by_doc(run, q, how_for):
    """{(iteration, topic, docno): grade} of one run's drawn unjudged documents."""
    r = read_run(run, name=str(id(run)))
    j = judge(r, q)
    how = how_for(r, j)
    batch = bs.sample(j, how, 0, len(j.topics), 0, 25)
    docs = r.to_dict()
    out = {}
    for t, topic in enumerate(j.topics):
        ranked = sorted(docs[topic], key=lambda d: -docs[topic][d])
        for pos in np.flatnonzero(unknown(j.grades[t])):
            for i in range(batch.grades.shape[0]):
                out[i, topic, ranked[pos]] = int(batch.grades[i, t, pos])
    return out


@PROPS
@given(two_runs(), st.sampled_from(["pool", "position"]), st.integers(0, 2**31),
       st.sampled_from([0.0, 1.0]))
def test_shared_documents_get_the_same_grade_in_every_run(data, prior, seed, spread):
    topics, runs = data
    q = read_qrels(_plenty(topics))
    model = PositionModel.build([read_run(r, name=f"r{i}") for i, r in enumerate(runs)], q)

    def how_for(r, j):
        return bs.Draw(prior, seed, run_keys(r, j.topics, j.depth), model, spread, spread / 2)

    a, b = (_grades_by_doc(r, q, how_for) for r in runs)
    shared = set(a) & set(b)
    assert all(a[k] == b[k] for k in shared)
    assert shared or not any(set(r1[t]) & set(r2[t]) for t in topics
                             for r1, r2 in [runs])


def test_coupling_makes_differences_surer_than_independent_draws():
    # two runs share their unjudged documents at the same ranks, and differ by one judged
    # document: under coupled draws their difference is exactly that document's
    q = read_qrels({"t": {"a": 1, "b": 0, **{f"j{i}": i % 2 for i in range(20)}}})
    shared = {f"u{i}": float(10 - i) for i in range(5)}
    r1 = read_run({"t": {**shared, "a": 0.5}}, name="A")
    r2 = read_run({"t": {**shared, "b": 0.5}}, name="B")
    est = estimate_all([r1, r2], q, parse_measures("P@6"),
                       EstimateSettings(methods=("bootstrap",), b=400, prior="pool"))
    diff = est.runs[0].run_samples[:, 0] - est.runs[1].run_samples[:, 0]
    np.testing.assert_allclose(diff, 1 / 6)
    rows = est.pair_rows()
    assert {(r["run_a"], r["run_b"]): r["p_a_better"] for r in rows} == {
        ("A", "B"): 1.0, ("B", "A"): 0.0}


def test_keys_depend_on_the_strings_only():
    whole = pa.array(["doc-1", "x", "doc-1", "", "a much longer document id 1234567890"])
    keys = string_keys(whole)
    assert keys[0] == keys[2] and len(set(keys.tolist())) == 4
    sliced = string_keys(whole.slice(2, 3))
    np.testing.assert_array_equal(sliced, keys[2:])
    chunked = string_keys(pa.chunked_array([whole.slice(0, 2), whole.slice(2)]))
    np.testing.assert_array_equal(chunked, keys)
    np.testing.assert_array_equal(uniforms(keys, 3, 5, 9), uniforms(keys, 3, 0, 9)[5:])


def test_uniforms_look_uniform_and_independent():
    keys = string_keys(pa.array([f"d{i}" for i in range(2000)]))
    u = uniforms(keys, 0, 0, 50)
    counts = np.histogram(u, bins=10, range=(0, 1))[0]
    # chi-square with 9 degrees of freedom: far below its 0.999 quantile (27.9)
    expected = u.size / 10
    assert ((counts - expected) ** 2 / expected).sum() < 27.9
    assert abs(np.corrcoef(u[:-1].ravel(), u[1:].ravel())[0, 1]) < 0.01


@PROPS
@given(st.lists(st.floats(0, 1), min_size=1, max_size=60),
       st.sampled_from(["mean", "mode", "median", "q0.1", "q0.97"]),
       st.floats(0.01, 0.99))
def test_every_interval_contains_its_point_estimate(values, point, level):
    samples = np.array(values)[:, None]
    p = point_estimate(samples, parse_point(point))
    lo, hi = interval(samples, level, p)[0]
    assert lo <= p[0] <= hi


def test_rows_carry_lo_and_hi_around_the_value():
    q = read_qrels({"1": {"a": 2, "b": 0, "c": 1}, "2": {"d": 1, "e": 0}})
    runs = [read_run({"1": {"a": 3.0, "x": 2.0, "b": 1.0}, "2": {"d": 1.0, "y": 0.5}},
                     name="A")]
    est = estimate_all(runs, q, parse_measures("P@2,nDCG@3"),
                       EstimateSettings(methods=("bootstrap",), b=300, interval=0.8,
                                        point="mode"))
    rows = list(est.rows())
    assert rows and all(r["lo"] <= r["value"] <= r["hi"] for r in rows)
    one = {(r["topic"], r["measure"]): r for r in rows}
    assert (one["1", "P@2"]["lo"], one["1", "P@2"]["hi"]) == (0.5, 1.0)


def test_pairs_on_the_command_line(tmp_path):
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n1 0 c 1\n")
    (tmp_path / "a.run").write_text("1 Q0 a 1 3 A\n1 Q0 x 2 2 A\n")
    (tmp_path / "b.run").write_text("1 Q0 b 1 3 B\n1 Q0 x 2 2 B\n")
    r = CliRunner().invoke(main, ["estimate", str(tmp_path / "q"), str(tmp_path / "a.run"),
                                  str(tmp_path / "b.run"), "-m", "P@2", "--pairs", "-b", "200",
                                  "-f", "jsonl", "--no-misfit"])
    assert r.exit_code == 0, r.output
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    assert rows == [{"run_a": "A", "run_b": "B", "measure": "P@2", "p_a_better": 1.0},
                    {"run_a": "B", "run_b": "A", "measure": "P@2", "p_a_better": 0.0}]
    # each run's misfit shifts its own threshold for x (the same variate in both runs): x
    # differs between them only where the variate falls between the two thresholds
    shifted = CliRunner().invoke(main, ["estimate", str(tmp_path / "q"),
                                        str(tmp_path / "a.run"), str(tmp_path / "b.run"),
                                        "-m", "P@2", "--pairs", "-b", "200", "-f", "jsonl"])
    p = [json.loads(line)["p_a_better"] for line in shifted.stdout.splitlines()]
    assert 0.9 < p[0] < 1.0 and p[1] == 0.0
    bad = CliRunner().invoke(main, ["estimate", str(tmp_path / "q"), str(tmp_path / "a.run"),
                                    "-m", "P@2", "--pairs", "--methods", "nonrel"])
    assert bad.exit_code == 2 and "--pairs" in bad.output


@pytest.mark.parametrize("option,value", [("--interval", "1"), ("--spread", "-1"),
                                          ("--spread", "inf"), ("--shared-spread", "10.5")])
def test_bad_draw_options_are_one_line(tmp_path, option, value):
    (tmp_path / "q").write_text("1 0 a 1\n")
    (tmp_path / "a.run").write_text("1 Q0 a 1 3 A\n")
    r = CliRunner().invoke(main, ["estimate", str(tmp_path / "q"), str(tmp_path / "a.run"),
                                  "-m", "P@2", option, value])
    assert r.exit_code == 2 and option in r.output


@pytest.mark.parametrize("methods", [("bootstrap",), ("expected",)])
@pytest.mark.parametrize("name", ["spread", "shared_spread"])
def test_spreads_beyond_the_largest_are_refused(methods, name):
    """An infinite --spread gave NaN intervals with --methods expected and overflow warnings
    in the bootstrap's odds: spreads lie in [0, MAX_SPREAD] for every method."""
    from unjudged.errors import InvalidOptionError
    from unjudged.strategies.priors import MAX_SPREAD

    q = read_qrels({"t": {"a": 1, "b": 0}})
    run = read_run({"t": {"a": 2.0, "x": 1.0}})
    for bad in (float("inf"), float("nan"), MAX_SPREAD + 0.1):
        with pytest.raises(InvalidOptionError, match=name):
            estimate_all([run], q, parse_measures("nDCG@10"),
                         EstimateSettings(methods=methods, b=20, **{name: bad}))


def test_the_largest_spreads_draw_without_warnings():
    """At MAX_SPREAD (and the depth shift, 3x the shared spread) every shift's factor and
    their products stay finite and nonzero: no numpy warning, values in [0, 1]."""
    import warnings

    from unjudged.strategies.priors import MAX_SPREAD

    q = read_qrels({str(t): {"a": 1, "b": 0, "c": 2} for t in range(6)})
    runs = [read_run({str(t): {d: float(20 - i) for i, d in enumerate(
        ["a"] + [f"u{(t * 7 + k * (r + 1)) % 40}" for k in range(12)])} for t in range(6)},
        name=f"r{r}") for r in range(6)]
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        est = estimate_all(runs, q, parse_measures("nDCG@10"),
                           EstimateSettings(methods=("bootstrap",), b=3000, seed=4,
                                            spread=MAX_SPREAD, shared_spread=MAX_SPREAD),
                           pool_runs=runs)
    values = np.array([r.run_point[0] for r in est.runs])
    assert np.isfinite(values).all() and ((values >= 0) & (values <= 1)).all()
