"""Strategies for unjudged documents (seed 000, sections 3.1-3.3): hand-worked values,
properties over random collections, and determinism of the bootstrap."""

from __future__ import annotations

import math
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from unjudged.data.judged import judge
from unjudged.engine.estimate import estimate_run, estimate_runs
from unjudged.errors import UnjudgedWarning
from unjudged.io import read_qrels, read_run
from unjudged.measures import Measure, families, parse_measures
from unjudged.strategies import bootstrap as bs
from unjudged.strategies import fill
from unjudged.strategies.position import PositionModel, run_keys
from unjudged.strategies.priors import GROW_PRIORS
from unjudged.strategies.summaries import (
    cross_validated_quantile,
    fit_quantile,
    mode,
    point_estimate,
    summarise,
)

sys.path.insert(0, str(Path(__file__).parent))
from collection import DOCS, collections  # noqa: E402

L2 = math.log2


def _one(qrels, run, measure, **kw):
    r = estimate_run(read_run(run), read_qrels(qrels), parse_measures([measure]),
                     keep_samples=True, **kw)
    return r


# ----------------------------------------------------------------------------- hand-worked

QRELS = {"q": {"a": 2, "b": 0, "c": 1}}
RUN = {"q": {"a": 3.0, "x": 2.0, "b": 1.0}}  # x is unjudged, at rank 2


def test_nonrel_condensed_upper_by_hand():
    r = _one(QRELS, RUN, "P@2", b=10)
    assert r.points["nonrel"][0, 0] == 0.5  # a relevant, x counted non-relevant
    assert r.points["condensed"][0, 0] == 0.5  # condensed list a, b
    assert r.points["upper"][0, 0] == 1.0  # x takes c (grade 1), the best grade left


def test_upper_takes_only_what_the_pool_still_has():
    # a (grade 2) is retrieved, so x can only take c (grade 1): DCG = 2 + 1/log2(3)
    r = _one(QRELS, RUN, "nDCG@3", b=10)
    ideal = 2 + 1 / L2(3)
    assert r.points["upper"][0, 0] == pytest.approx((2 + 1 / L2(3)) / ideal)
    assert r.points["nonrel"][0, 0] == pytest.approx(2 / ideal)
    # two unjudged documents, one grade-1 document left: the second gets 0
    run = {"q": {"a": 3.0, "x": 2.0, "y": 1.5, "b": 1.0}}
    r = _one(QRELS, run, "nDCG@3", b=10)
    assert r.points["upper"][0, 0] == pytest.approx(1.0)
    r = _one(QRELS, run, "P@3", b=10)
    assert r.points["upper"][0, 0] == pytest.approx(2 / 3)


def test_guaranteed_bounds_by_hand():
    r = _one(QRELS, RUN, "nDCG@3", b=10, methods=["guaranteed"])
    # lower: x gains 0, and the ideal counts x at the top grade: 2, 2, 1
    assert r.points["guaranteed_lower"][0, 0] == pytest.approx(2 / (2 + 2 / L2(3) + 1 / 2))
    # upper: x at the top grade (2), pool's ideal 2, 1, 0: (2 + 2/log2 3) / (2 + 1/log2 3) > 1
    assert r.points["guaranteed_upper"][0, 0] == 1.0


def test_naive_lower_bound_can_be_too_high():
    """Seed 000 Table 1, first row style: the unjudged document's true grade 2 raises the ideal
    DCG more than the run's DCG, so the truth is below the 'lower bound' nonrel."""
    qrels = {"q": {"a": 1}}
    run = {"q": {"a": 2.0, "x": 1.0}}
    r = _one(qrels, run, "nDCG@2", b=10, methods=["nonrel", "guaranteed"])
    truth = _one({"q": {"a": 1, "x": 2}}, run, "nDCG@2", b=10, methods=["nonrel"])
    nonrel, true = r.points["nonrel"][0, 0], truth.points["nonrel"][0, 0]
    assert nonrel == 1.0
    assert true == pytest.approx((1 + 2 / L2(3)) / (2 + 1 / L2(3)))
    assert true < nonrel  # the naive lower bound fails ...
    lo, hi = r.points["guaranteed_lower"][0, 0], r.points["guaranteed_upper"][0, 0]
    assert lo <= true <= hi  # ... the guaranteed bounds hold


def test_bootstrap_mean_by_hand():
    """pool prior 1/3 per grade, run prior grade 2 (a): pool+run = (1/6, 1/6, 2/3). x asks for
    2 (none left, falls to 1), 1, or 0: relevant with probability 5/6."""
    r = _one(QRELS, RUN, "P@2", b=20_000, seed=3, prior="pool+run", spread=0.0,
             shared_spread=0.0)
    mean, m, std = r.stats[0, 0, :3]
    assert mean == pytest.approx(0.5 + 0.5 * 5 / 6, abs=0.01)
    assert m == 1.0
    r = _one(QRELS, RUN, "P@2", b=20_000, seed=3, prior="pool", spread=0.0, shared_spread=0.0)
    assert r.stats[0, 0, 0] == pytest.approx(0.5 + 0.5 * 2 / 3, abs=0.01)


def test_priors_are_probability_vectors():
    j = fill.top(judge(read_run(RUN), read_qrels(QRELS)), 2)
    for prior, expected in (("pool", [1 / 3] * 3), ("run", [0, 0, 1]),
                            ("pool+run", [1 / 6, 1 / 6, 2 / 3])):
        p = bs.priors(j, prior, 3)
        np.testing.assert_allclose(p, [expected])
        np.testing.assert_allclose(p.sum(axis=-1), 1.0)


def test_fallback_by_hand():
    # one topic, four unjudged positions, pool has one grade-2 and one grade-1 document left
    miss = np.array([[True, True, True, True]])
    avail = np.array([[5, 1, 1]])
    requested = np.array([[[2, 2, 2, 0]], [[1, 2, 1, 2]], [[0, 0, 1, 1]]])
    got = bs.fill(requested, miss, avail)
    assert got[:, 0].tolist() == [[2, 1, 0, 0], [1, 2, 0, 0], [0, 0, 1, 0]]


def test_mode_and_quantiles():
    s = np.array([[0.1, 1.0], [0.3, 1.0], [0.3, 0.5], [0.2, 0.5]])
    assert mode(s).tolist() == [0.3, 0.5]  # ties: the smaller value
    stats = summarise(s)
    assert stats[0, 0] == pytest.approx(0.225)
    assert point_estimate(s, "median").tolist() == [0.25, 0.75]
    assert point_estimate(s, 0.0).tolist() == [0.1, 0.5]
    rng = np.random.default_rng(0)
    samples = rng.normal(size=(500, 300))
    truth = np.quantile(samples, 0.8, axis=0)
    level, rmse = fit_quantile(samples, truth)
    assert level == 0.8 and rmse < 1e-9
    level, cv = cross_validated_quantile(samples, truth, np.arange(300) % 7)
    assert level == 0.8 and cv < 1e-9


# ----------------------------------------------------------------------------- properties



ESTIMABLE = [Measure(s, c) for s in families() if s.estimable
             for c in ([5] if s.cutoff == "required" else [None, 5] if s.cutoff == "optional"
                       else [None])]
PROPS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPS
@given(collections(), st.sampled_from(bs.PRIORS), st.sampled_from(["normalised", "all"]))
def test_samples_lie_between_nonrel_and_upper(data, prior, cap):
    """With the pool's normalisers (--no-grow): within [nonrel, upper] where grades come from
    the pool (every measure with cap "all", the normalised ones by default); at least nonrel
    and within range elsewhere."""
    qrels, run = data
    r = estimate_run(read_run(run), read_qrels(qrels), ESTIMABLE, b=60, prior=prior,
                     keep_samples=True, cap=cap, grow=False)
    for i, m in enumerate(ESTIMABLE):
        if not m.spec.monotone:
            continue
        lo, hi, s = r.points["nonrel"][:, i], r.points["upper"][:, i], r.samples[:, :, i]
        assert np.all(lo <= hi + 1e-12), m.name
        assert np.all(s >= lo - 1e-12), m.name
        if cap == "all" or m.spec.normalised:
            assert np.all(s <= hi + 1e-12), m.name
        if m.spec.bounded is not None:
            assert np.all(s <= m.spec.bounded[1] + 1e-12), m.name
        if m.spec.guaranteed:
            glo, ghi = r.points["guaranteed_lower"][:, i], r.points["guaranteed_upper"][:, i]
            assert np.all(glo <= lo + 1e-12) and np.all(ghi >= hi - 1e-12), m.name


def _estimates_file() -> str:
    """An estimates file over every (topic, document) of tests/collection.py: grades 0, 1, 2
    and 3 with probabilities varying by document (for the estimates prior)."""
    import tempfile

    from collection import DOCS, TOPICS

    lines = [f"{t} {d} 0:{0.4 + 0.05 * (i % 5):.2f},1:0.2,2:0.2,3:{0.2 - 0.05 * (i % 5):.2f}\n"
             for t in TOPICS for i, d in enumerate(DOCS)]
    with tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False) as f:
        f.write("".join(lines))
    import atexit
    import os

    atexit.register(os.unlink, f.name)  # the session's temporary file, removed at its end
    return f.name


ESTIMATES_FILE = _estimates_file()


@PROPS
@given(collections(), st.sampled_from(
    [p if p != "estimates" else f"estimates:{ESTIMATES_FILE}" for p in GROW_PRIORS]))
def test_grown_samples_lie_within_the_guaranteed_bounds(data, prior):
    """With growing normalisers (the default for these priors), a run estimated alone grows
    them with its own unjudged documents only: every sample is a score some assignment of
    grades to them gives, so it lies within the guaranteed bounds (and the measure's range)."""
    qrels, run = data
    with warnings.catch_warnings():  # the estimates prior's note on its fitted trust
        warnings.simplefilter("ignore", UnjudgedWarning)
        r = estimate_run(read_run(run), read_qrels(qrels), ESTIMABLE, b=60, prior=prior,
                         keep_samples=True)
    for i, m in enumerate(ESTIMABLE):
        s = r.samples[:, :, i]
        if m.spec.bounded is not None:
            assert np.all(s >= m.spec.bounded[0] - 1e-12), m.name
            assert np.all(s <= m.spec.bounded[1] + 1e-12), m.name
        if m.spec.guaranteed and m.spec.monotone:
            glo, ghi = r.points["guaranteed_lower"][:, i], r.points["guaranteed_upper"][:, i]
            assert np.all(s >= glo - 1e-12) and np.all(s <= ghi + 1e-12), m.name


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from(DOCS[:8]), st.integers(0, 2), min_size=1, max_size=5),
       st.lists(st.sampled_from(DOCS[:8]), min_size=1, max_size=5, unique=True))
def test_guaranteed_bounds_hold_for_every_assignment(judgments, ranking):
    """Brute force: whatever grades the unjudged documents really have (they then join the
    qrels), the truth lies within the guaranteed bounds."""
    import itertools

    qrels = {"q": dict(judgments, top=2)}  # the collection's grade scale goes up to 2
    run = {"q": {d: float(len(ranking) - i) for i, d in enumerate(ranking)}}
    unjudged = [d for d in ranking if d not in qrels["q"]]
    ms = [m for m in ESTIMABLE if m.spec.guaranteed and (m.cutoff in (None, 5))]
    r = estimate_run(read_run(run), read_qrels(qrels), ms, methods=["guaranteed"])
    lo, hi = r.points["guaranteed_lower"][0], r.points["guaranteed_upper"][0]
    for grades in itertools.product(range(3), repeat=len(unjudged)):
        truth = estimate_run(read_run(run), read_qrels({"q": {**qrels["q"], **dict(
            zip(unjudged, grades, strict=True))}}), ms, methods=["nonrel"]).points["nonrel"][0]
        bad = [m.name for m, a, t, z in zip(ms, lo, truth, hi, strict=True)
               if not a - 1e-12 <= t <= z + 1e-12]
        assert not bad, (grades, bad)


def test_guaranteed_upper_without_a_judged_relevant_document():
    """Nothing relevant judged: the pool's R is 0 and recall with it, but the unjudged x could
    be relevant, and then recall is 1: the guaranteed upper bound of a normalised measure is
    the top of its range (it was 0); P@2, which has no normaliser, stays 1/2."""
    r = _one({"t": {"b": 0}}, {"t": {"x": 2.0, "b": 1.0}}, "R@2,P@2,nDCG@2",
             methods=["guaranteed"])
    assert r.points["guaranteed_upper"][0].tolist() == [1.0, 0.5, 1.0]
    assert r.points["guaranteed_lower"][0].tolist() == [0.0, 0.0, 0.0]


# every strategy on fully judged rankings, and the bounds over all of them: see
# tests/test_strategy_registry.py (it loops over the registry)


@PROPS
@given(collections(), st.sampled_from(bs.PRIORS), st.integers(0, 2**32 - 1))
def test_fallback_never_hands_out_what_the_pool_lacks(data, prior, seed):
    qrels, run = data
    r, q = read_run(run), read_qrels(qrels)
    j = judge(r, q)
    model = PositionModel.build([r], q) if prior == "position" else None
    how = bs.Draw(prior, seed, run_keys(r, j.topics, j.depth), model, spread=0.5)
    batch = bs.sample(j, how, 0, len(j.topics), 0, 50)
    levels = fill.max_grade(j.pool) + 1
    avail = fill.available(j, levels)
    miss = fill.unknown(j.grades)
    handed = np.where(miss, batch.grades, -1)
    for g in range(1, levels):
        assert np.all((handed == g).sum(axis=-1) <= avail[:, g])
    assert np.all(batch.grades[:, ~miss] == j.grades[~miss])  # judged positions untouched
    assert batch.pool is j.pool or np.array_equal(batch.pool.sorted_grades,
                                                  j.pool.sorted_grades)


def test_comparable_strategies_keep_the_ideal():
    j = judge(read_run(RUN), read_qrels(QRELS))
    for strategy in (fill.nonrel, fill.condensed, fill.upper):
        assert strategy(j).pool is j.pool
    assert fill.guaranteed_lower(j).pool is not j.pool


# ----------------------------------------------------------------------------- determinism

def _runs():
    qrels = read_qrels({"1": {"a": 1, "b": 0, "c": 2, "d": 1}, "2": {"a": 0, "e": 1, "f": 1}})
    runs = [read_run({"1": {"a": 3, "x": 2, "y": 1}, "2": {"z": 2, "e": 1}}, name=f"r{i}")
            for i in range(3)]
    return qrels, runs


@pytest.mark.parametrize("workers,threads", [(2, 0), (1, 2), (1, 3)])
def test_same_seed_same_samples_whatever_the_workers(workers, threads):
    from unjudged.parallel import ThreadExecutor

    qrels, runs = _runs()
    ms = parse_measures(["nDCG@3", "P@2"])
    one = estimate_runs(runs, qrels, ms, b=200, seed=11, keep_samples=True)
    with ThreadExecutor(threads or 1) as ex:
        many = estimate_runs(runs, qrels, ms, b=200, seed=11, keep_samples=True,
                             workers=workers, executor=ex if threads else None)
    for a, b in zip(one.runs, many.runs, strict=True):
        np.testing.assert_array_equal(a.samples, b.samples)


def test_draws_depend_on_seed_and_documents_only(monkeypatch):
    qrels, runs = _runs()
    ms = parse_measures(["P@3"])
    base = estimate_runs(runs, qrels, ms, b=300, seed=5, keep_samples=True, prior="pool")
    # coupled draws: identical rankings under different run names draw the same grades
    np.testing.assert_array_equal(base.runs[0].samples, base.runs[1].samples)
    again = estimate_runs(runs, qrels, ms, b=300, seed=5, keep_samples=True, prior="pool")
    np.testing.assert_array_equal(base.runs[0].samples, again.runs[0].samples)
    other = estimate_runs(runs, qrels, ms, b=300, seed=6, keep_samples=True, prior="pool")
    assert not np.array_equal(base.runs[0].samples, other.runs[0].samples)
    # splitting the work into smaller batches draws the same numbers
    monkeypatch.setattr(bs, "_CELLS", 7)
    small = estimate_runs(runs, qrels, ms, b=300, seed=5, keep_samples=True, prior="pool")
    np.testing.assert_array_equal(base.runs[0].samples, small.runs[0].samples)


def test_measures_without_a_normaliser_take_the_grades_as_drawn():
    """One relevant document left in the pool, three unjudged ones ranked, pool prior 1/2: with
    the cap every measure draws at most that one relevant document (seed 000); by default P@3
    (no normaliser) takes the grades as drawn, mean 3 x 1/2 / 3, while nDCG@3 stays capped."""
    q = read_qrels({"t": {"a": 1, "b": 0}})
    run = read_run({"t": {"x": 3.0, "y": 2.0, "z": 1.0}}, name="r")
    ms = parse_measures(["P@3", "nDCG@3"])
    draw = {"prior": "pool", "spread": 0.0, "shared_spread": 0.0, "b": 4000,
            "methods": ["bootstrap", "upper"], "keep_samples": True, "grow": False}
    seed = estimate_run(run, q, ms, cap="all", **draw)
    free = estimate_run(run, q, ms, **draw)
    assert seed.samples[:, 0, 0].max() == pytest.approx(1 / 3)
    assert seed.samples[:, 0, 0].mean() == pytest.approx((1 - 0.5 ** 3) / 3, abs=0.01)
    assert free.samples[:, 0, 0].max() == pytest.approx(1.0)
    assert free.samples[:, 0, 0].mean() == pytest.approx(0.5, abs=0.01)
    # nDCG@3 is capped either way: identical draws, never above the upper bound
    np.testing.assert_array_equal(free.samples[:, :, 1], seed.samples[:, :, 1])
    assert free.samples[:, 0, 1].max() <= free.points["upper"][0, 1] + 1e-12
