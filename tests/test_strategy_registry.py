"""Properties common to every registered strategy for unjudged documents.

Each strategy of ``unjudged.strategies.registry.STRATEGIES`` is run on every registered measure
family it applies to (bound as in tests/test_properties.py), on small random qrels and runs, so
a newly registered strategy is covered without editing this file. The tests guarantee:

1. a strategy offers a value exactly for the measures it applies to, within the measure's range;
2. strategies whose unjudged documents only take grades the pool still has (``from_pool``) lie
   within [nonrel, upper] on measures that never fall when a grade rises (``spec.monotone``),
   and within [guaranteed_lower, guaranteed_upper] where those apply too (seed 000, sections
   3.1-3.3; condensed lists remove documents and promise neither): on every such measure
   under ``cap="all"`` (seed 000), on the normalised ones by default, and at least nonrel on
   the others (their drawn grades are not capped);
3. the same seed gives the same values and samples;
4. on fully judged rankings every strategy equals nonrel and every distribution is a point;
5. a strategy registered in one place (here: a toy, then removed) is offered by the command
   line and reported by ``estimate``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import unjudged
from unjudged.cli import main
from unjudged.engine.estimate import METHODS, estimate_run, expand_methods
from unjudged.io import read_qrels, read_run
from unjudged.measures import Measure, families
from unjudged.strategies.base import AtCutoff, Fill, Moments, Sampled
from unjudged.strategies.registry import BASELINE, STRATEGIES

sys.path.insert(0, str(Path(__file__).parent))
from collection import TOPICS, collections, write_collection  # noqa: E402

PROPS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MEASURES = [Measure(s, 5 if s.cutoff != "none" else None) for s in families()] + \
    [Measure(s, None) for s in families() if s.cutoff == "optional"]
EPS = 1e-12
#: the bounds of property 2, as the papers define them
UPPER = "upper"
GUARANTEED = ("guaranteed_lower", "guaranteed_upper")


def _estimate(qrels, run, seed=0, b=40, **draw):
    return estimate_run(read_run(run), read_qrels(qrels), MEASURES, b=b, seed=seed,
                        keep_samples=True, methods=STRATEGIES.every(), **draw)


def _values(r, s) -> dict[str, np.ndarray]:
    """Each column of strategy `s` as (..., topics, measures): the samples of a random one."""
    if s.random:
        return {s.name: r.samples}
    return {c: r.points[c] for c in s.columns}


def test_the_table_is_in_report_order():
    assert STRATEGIES.names() == METHODS
    assert STRATEGIES.names()[0] == BASELINE
    columns = STRATEGIES.columns()
    assert len(set(columns)) == len(columns)
    for s in STRATEGIES:
        assert s.description and "\n" not in s.description
        assert isinstance(s, Sampled if s.random else (Fill, Moments))
        assert all(STRATEGIES.owner(c) is s for c in s.columns)


@PROPS
@given(collections())
def test_values_exactly_where_a_strategy_applies_and_within_range(data):
    r = _estimate(*data)
    for s in STRATEGIES:
        for column, v in _values(r, s).items():
            for i, m in enumerate(MEASURES):
                got = v[..., i]
                if not s.applies(m):
                    assert np.all(np.isnan(got)), (column, m.name)
                    continue
                assert not np.any(np.isnan(got)), (column, m.name)
                if m.spec.bounded is not None:
                    lo, hi = m.spec.bounded
                    assert np.all((got >= lo - EPS) & (got <= hi + EPS)), (column, m.name)


@PROPS
@given(collections(), st.sampled_from(["normalised", "all"]))
def test_pool_fills_lie_within_the_bounds(data, cap):
    r = _estimate(*data, cap=cap, grow=False)  # the pool's normalisers: upper bounds them
    lower, upper = r.points[BASELINE], r.points[UPPER]
    for s in STRATEGIES:
        if not s.from_pool:
            continue
        for column, v in _values(r, s).items():
            for i, m in enumerate(MEASURES):
                if not (s.applies(m) and STRATEGIES[UPPER].applies(m)):  # monotone ones
                    continue
                got = v[..., i]
                assert np.all(got >= lower[:, i] - EPS), (column, m.name)
                if s.random and cap != "all" and not m.spec.normalised:
                    continue  # drawn as requested: may pass what the pool has left
                assert np.all(got <= upper[:, i] + EPS), (column, m.name)
                if STRATEGIES.owner(GUARANTEED[0]).applies(m):
                    glo, ghi = (r.points[c][:, i] for c in GUARANTEED)
                    assert np.all((got >= glo - EPS) & (got <= ghi + EPS)), (column, m.name)


@PROPS
@given(collections(), st.integers(0, 2**32 - 1))
def test_same_seed_same_values(data, seed):
    one, two = _estimate(*data, seed=seed), _estimate(*data, seed=seed)
    for s in STRATEGIES:
        for column, v in _values(one, s).items():
            np.testing.assert_array_equal(v, _values(two, s)[column], err_msg=column)


@PROPS
@given(collections())
def test_fully_judged_rankings_are_degenerate(data):
    qrels, run = data
    for t in TOPICS:  # judge every retrieved document
        for d in run[t]:
            qrels[t][d] = max(qrels[t].get(d, 0), 0)
    r = _estimate(qrels, run)
    plain = r.nonrel
    for s in STRATEGIES:
        for column, v in _values(r, s).items():
            for i, m in enumerate(MEASURES):
                if s.applies(m):
                    got = v[..., i]
                    np.testing.assert_allclose(got, np.broadcast_to(plain[:, i], got.shape),
                                               atol=EPS, err_msg=f"{column} {m.name}")
    if any(s.random for s in STRATEGIES):
        estimable = [i for i, m in enumerate(MEASURES) if m.spec.estimable]
        np.testing.assert_allclose(r.stats[:, estimable, 2], 0.0, atol=EPS)  # std


# ----------------------------------------------------------------------------- one file

class Toy(Fill):
    """Every unjudged document within the cutoff counts at grade 1."""

    name = "toy"
    columns = ("toy",)
    description = "unjudged documents count at grade 1 (a test's toy)"

    def rankings(self, at: AtCutoff):
        from unjudged.strategies.fill import unknown

        g = at.top.grades
        return (at.top.with_grades(np.where(unknown(g), 1, g).astype(g.dtype)),)


@pytest.fixture
def toy():
    STRATEGIES.add(Toy())
    try:
        yield
    finally:
        STRATEGIES.remove("toy")


QRELS = "1 0 a 2\n1 0 b 0\n1 0 c 1\n2 0 d 1\n2 0 e 0\n"
RUN_A = "1 Q0 a 1 3.0 A\n1 Q0 x 2 2.0 A\n1 Q0 b 3 1.0 A\n2 Q0 d 1 1.0 A\n"


def test_a_registered_strategy_reaches_the_cli_and_estimate(tmp_path, toy):
    qrels, runs = write_collection(tmp_path, QRELS, {"a.run": RUN_A})
    invoke = CliRunner().invoke
    # eval --unjudged offers it: x (unjudged, rank 2) counts as relevant, so P@2 is 1 on
    # topic 1 (nonrel: 1/2) and 1/2 on topic 2 (d, then nothing)
    r = invoke(main, ["eval", str(qrels), str(runs / "a.run"), "-m", "P@2", "--unjudged", "toy"])
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines()[1].split() == ["A", "0.7500"]
    assert "toy" in invoke(main, ["eval", "--help"]).stdout
    # estimate reports it by default, after the built-in strategies
    r = invoke(main, ["estimate", str(qrels), str(runs / "a.run"), "-m", "P@2", "-b", "10"])
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines()[0].split()[-1] == "toy"
    assert r.stdout.splitlines()[1].split()[-1] == "0.7500"  # topic 1: 1, topic 2: 1/2
    r = invoke(main, ["estimate", str(qrels), str(runs / "a.run"), "-m", "P@2",
                      "--methods", "toy", "-q", "-f", "jsonl"])
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    assert [(x["topic"], x["method"], x["value"]) for x in rows] == [
        ("1", "toy", 1.0), ("2", "toy", 0.5), ("all", "toy", 0.75)]
    df = unjudged.estimate(str(runs / "a.run"), str(qrels), "P@2", b=10)
    assert list(df[df.topic == "all"].method) == expand_methods(STRATEGIES.names())
    assert df[(df.topic == "all") & (df.method == "toy")].value.tolist() == [0.75]


def test_a_removed_strategy_is_refused(tmp_path):
    qrels, runs = write_collection(tmp_path, QRELS, {"a.run": RUN_A})
    r = CliRunner().invoke(main, ["eval", str(qrels), str(runs / "a.run"), "-m", "P@2",
                                  "--unjudged", "toy"])
    assert r.exit_code == 2 and "'toy' is not one of 'nonrel'" in r.output
    assert "toy" not in STRATEGIES.columns()
