"""Growing normalisers (`--grow`): drawn relevant documents add to the ideal ranking and to R,
the same in every run and consistent with the run's own draws; and the position prior."""

from __future__ import annotations

import numpy as np
import pytest

from unjudged.engine.estimate import EstimateSettings, estimate_all
from unjudged.errors import InvalidOptionError
from unjudged.io import read_qrels, read_run
from unjudged.measures import parse_measures
from unjudged.strategies.position import MIN_RUNS, PositionModel, run_keys

NO_SPREAD = {"spread": 0.0, "shared_spread": 0.0}


def test_ap_with_a_growing_number_of_relevant_documents():
    # x (unjudged) above a (relevant); the pool prior draws x relevant with probability 1/2.
    # Without growth x could only take a relevant grade the run left in the pool: none, so AP
    # is 1/2 in every draw. With growth, x relevant makes R = 2 and AP = (1/1 + 2/2) / 2 = 1.
    q = read_qrels({"t": {"a": 1, "b": 0}})
    run = read_run({"t": {"x": 2.0, "a": 1.0}}, name="r")
    ms = parse_measures("AP,nDCG")
    fixed = estimate_all([run], q, ms, EstimateSettings(methods=("bootstrap",), b=2000,
                                                        prior="pool", keep_samples=True,
                                                        grow=False, **NO_SPREAD))
    assert set(np.unique(fixed.runs[0].samples[:, 0, 0])) == {0.5}
    grown = estimate_all([run], q, ms, EstimateSettings(methods=("bootstrap",), b=2000,
                                                        prior="pool", grow=True,
                                                        keep_samples=True, **NO_SPREAD))
    ap = grown.runs[0].samples[:, 0, 0]
    ndcg = grown.runs[0].samples[:, 0, 1]
    assert set(np.unique(ap)) == {0.5, 1.0}
    assert ap.mean() == pytest.approx(0.75, abs=0.03)
    # the same draw decides both: x relevant gives AP 1 and nDCG 1 (both documents relevant,
    # in the ideal order); x not relevant gives AP 1/2 and nDCG 1/log2(3)
    np.testing.assert_allclose(ndcg[ap == 1.0], 1.0)
    np.testing.assert_allclose(ndcg[ap == 0.5], 1 / np.log2(3))


def test_growth_is_shared_by_every_run():
    # r2 does not retrieve x, but x (retrieved by r1) grows R for r2 too, in the same draws
    q = read_qrels({"t": {"a": 1, "b": 0}})
    r1 = read_run({"t": {"x": 2.0, "a": 1.0}}, name="r1")
    r2 = read_run({"t": {"a": 2.0, "b": 1.0}}, name="r2")
    est = estimate_all([r1, r2], q, parse_measures("AP"),
                       EstimateSettings(methods=("bootstrap",), b=1000, prior="pool",
                                        grow=True, keep_samples=True, **NO_SPREAD),
                       pool_runs=[r1, r2])  # both runs define the pool context
    a1, a2 = (r.samples[:, 0, 0] for r in est.runs)
    # r2's AP is 1 (R = 1) or 1/2 (R = 2) exactly when r1's x was drawn non-relevant / relevant
    np.testing.assert_array_equal(a2 == 0.5, a1 == 1.0)


def test_uncut_ndcg_reads_the_whole_grown_ideal_ranking():
    """A fully judged ranking: a (relevant) alone, while the pool also holds b (relevant). Its
    uncut nDCG is 1 / (1 + 1/log2(3)) in every draw, grown or not: the ideal ranking counts b
    beyond the run's depth (it was once cut at the run's depth, which gave 1)."""
    q = read_qrels({"t": {"a": 1, "b": 1, "c": 0}})
    run = read_run({"t": {"a": 1.0}}, name="r")
    est = estimate_all([run], q, parse_measures("nDCG,nDCGRel"),
                       EstimateSettings(methods=("bootstrap",), b=200, prior="pool",
                                        keep_samples=True))
    assert est.grow
    np.testing.assert_allclose(est.runs[0].samples[:, 0, 0], 1 / (1 + 1 / np.log2(3)))


def test_normalisers_grow_by_default_where_the_prior_allows():
    assert EstimateSettings().grow and EstimateSettings(prior="pool").grow
    assert not EstimateSettings(prior="run").grow
    assert not EstimateSettings(prior="pool+run").grow
    assert not EstimateSettings(grow=False).grow


def test_grow_needs_a_prior_of_the_document():
    with pytest.raises(InvalidOptionError, match="growing normalisers"):
        EstimateSettings(prior="pool+run", grow=True)


def test_position_prior_falls_back_to_the_pool_rate_with_few_runs():
    q = read_qrels({"t": {"a": 1, "b": 1, "c": 0, "d": 0}})
    ranking = {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0, "x": 0.5}
    runs = [read_run({"t": ranking}, name=f"r{i}") for i in range(MIN_RUNS)]
    keys = run_keys(runs[0], ["t"])[0]
    few = PositionModel.build(runs[:MIN_RUNS - 1], q)
    # 2 relevant of 4 judged, Laplace: (2 + 1/2) / (2 + 1/2 + 2 + 1/2) = 1/2, for every document
    np.testing.assert_allclose(few.grade_probabilities(["t"] * 5, keys, 2)[:, 1], 0.5)
    many = PositionModel.build(runs, q)
    p = many.grade_probabilities(["t"] * 5, keys, 2)[:, 1]
    assert p[0] > p[4]  # with enough runs, depth matters


def test_deep_documents_drawn_as_a_sum_match_drawing_each():
    """Documents below the measures' depth add to the normaliser as a sum (a normal of its mean
    and variance): its counts match drawing each document, in mean and spread, with and
    without the prior's uncertainty."""
    from unjudged.strategies.growth import Growth

    docs = [f"d{i}" for i in range(600)]
    q = read_qrels({"t": {d: int(i % 3 == 0) for i, d in enumerate(docs[:60])}})
    runs = [read_run({"t": {d: float(-((i * (k + 3)) % 600)) for i, d in enumerate(docs)}},
                     name=f"r{k}") for k in range(MIN_RUNS + 1)]
    model = PositionModel.build(runs, q)
    for spreads in (NO_SPREAD, {"spread": 1.0, "shared_spread": 0.5}):
        how = EstimateSettings(b=4000, grow=True, **spreads)
        each = Growth.build(model, q, how, 2, 4000).counts[:, 0, 1]
        summed = Growth.build(model, q, how, 2, 4000, exact_depth=5).counts[:, 0, 1]
        assert summed.mean() == pytest.approx(each.mean(), rel=0.02)
        assert summed.std() == pytest.approx(each.std(), rel=0.08)


def test_exact_draws_in_blocks_equal_a_loop_per_topic():
    """The grown counts drawn in blocks of many topics equal each topic's documents drawn on
    their own (the coupled draw of every document), on the shipped round-1 example."""
    import unjudged.strategies.growth as growth_module
    from unjudged.data.examples import example_paths
    from unjudged.io import read_runs
    from unjudged.strategies.bootstrap import requests
    from unjudged.strategies.growth import Growth
    from unjudged.strategies.position import PositionModel

    qp, rp = example_paths()
    q = read_qrels(qp)
    runs = read_runs(rp, qrels=q)
    model = PositionModel.build(runs, q)
    settings = EstimateSettings(methods=("bootstrap",), b=40)
    old = growth_module._CELLS
    growth_module._CELLS = 4000  # many blocks, some of one topic with iterations split
    try:
        g = Growth.build(model, q, settings, levels=3, b=40, exact_depth=None)
    finally:
        growth_module._CELLS = old
    todo, p_of = growth_module.unjudged_universe(model, q, settings, 3)
    want = np.zeros_like(g.counts)
    for t, topic in enumerate(model.topics):
        rows = np.flatnonzero(todo & (model.topic == t))
        got = requests(model.keys[rows], p_of(rows), [topic], np.zeros(rows.size, np.int64),
                       settings, 0, 40, deep=model.deep(model.keys[rows]))
        for level in (1, 2):
            want[:, t, level] = (got == level).sum(axis=-1)
    np.testing.assert_array_equal(g.counts, want)
    assert want[..., 1:].sum() > 1000
