"""The depth shift: documents ranked past the judged documents' ranks (where the position prior
extrapolates) take one extra log-odds shift per iteration, shared by every topic and run, of sd
DEPTH_SPREAD x --shared-spread (unjudged.strategies.bootstrap.depth_shifts)."""

from __future__ import annotations

import numpy as np
import pytest

from unjudged.engine.estimate import EstimateSettings, estimate_all
from unjudged.io import read_qrels, read_run
from unjudged.measures import parse_measures
from unjudged.strategies import bootstrap
from unjudged.strategies.bootstrap import DEPTH_SPREAD, depth_shifts
from unjudged.strategies.growth import Growth
from unjudged.strategies.position import BEST_SUPPORT, MIN_RUNS, PositionModel, run_keys

DOCS = [f"d{i:03d}" for i in range(300)]


def _setting(runs: int = MIN_RUNS + 1):
    """Judged: each run's top 10 (d000-d019 between them, every third relevant); the runs
    rank all 300 documents, each in its own order below its top 10."""
    q = read_qrels({"t": {d: int(i % 3 == 0) for i, d in enumerate(DOCS[:20])}})
    out = []
    for k in range(runs):
        top = DOCS[k % 2 * 10:k % 2 * 10 + 10]
        rest = [d for d in DOCS if d not in top]
        order = top + rest[k:] + rest[:k]
        out.append(read_run({"t": {d: float(300 - i) for i, d in enumerate(order)}},
                            name=f"r{k}"))
    return q, out


def test_the_support_is_the_judged_documents_best_rank_quantile():
    q, runs = _setting()
    model = PositionModel.build(runs, q)
    # every judged document is in some run's top 10: best ranks 1-10, the 99% quantile 10
    assert BEST_SUPPORT == 0.99
    assert model.support == 10.0
    keys = run_keys(runs[0], ["t"])[0]
    deep = model.deep(keys)
    assert not deep[:10].any()  # the run's own top 10 (judged)
    # past them, a document is deep unless some run ranks it within 10: d000-d019 are not
    assert deep.sum() == 280
    order = list(runs[0].to_dict()["t"])
    assert not deep[[order.index(d) for d in DOCS[:20]]].any()


def test_depth_shifts_are_normal_shared_and_scaled_by_the_shared_spread():
    z = depth_shifts(0, 0.5, 0, 20000)
    assert z.mean() == pytest.approx(0.0, abs=0.03)
    assert z.std() == pytest.approx(DEPTH_SPREAD * 0.5, rel=0.03)
    np.testing.assert_array_equal(depth_shifts(0, 0.5, 100, 200), z[100:200])
    np.testing.assert_allclose(depth_shifts(0, 1.0, 0, 50), 2 * z[:50])


def test_deep_counts_widen_with_the_depth_shift_and_only_them(monkeypatch):
    q, runs = _setting()
    model = PositionModel.build(runs, q)
    how = EstimateSettings(b=4000, grow=True, spread=0.0, shared_spread=0.5)
    with_shift = Growth.build(model, q, how, 2, 4000).counts[:, 0, 1].astype(float)
    monkeypatch.setattr(bootstrap, "DEPTH_SPREAD", 0.0)
    without = Growth.build(model, q, how, 2, 4000).counts[:, 0, 1].astype(float)
    # the deep documents' count spreads by the shared shift of sd 1.5 (log-odds): far more
    # than the 0.5 shared shift alone gives
    assert with_shift.std() > 2.0 * without.std()
    # a log-odds shift of mean 0 raises the mean count of rarely relevant documents
    assert with_shift.mean() > without.mean()


def test_the_same_deep_document_draws_the_same_grade_in_every_run():
    """Coupled draws: the depth shift is a property of the document (its best rank among
    the pool runs), so two runs that retrieve it draw it alike in every iteration."""
    q, runs = _setting()
    # without the runs' own misfit shifts (each run's is its own: tested in test_misfit.py)
    settings = EstimateSettings(methods=("bootstrap",), b=300, keep_samples=True, grow=True,
                                spread=1.0, shared_spread=0.5, misfit=False)
    ms = parse_measures(["P@300"])
    est = estimate_all(runs, q, ms, settings, pool_runs=runs)
    # P@300 counts every document of the topic: all runs retrieve the same 300 documents,
    # so their drawn relevant counts agree in every iteration
    first = est.runs[0].samples[:, 0, 0]
    for other in est.runs[1:]:
        np.testing.assert_array_equal(other.samples[:, 0, 0], first)


def test_no_shared_spread_no_depth_shift(monkeypatch):
    q, runs = _setting()
    settings = EstimateSettings(methods=("bootstrap",), b=200, keep_samples=True, grow=True,
                                spread=1.0, shared_spread=0.0)
    ms = parse_measures(["nDCG@10"])
    a = estimate_all(runs, q, ms, settings, pool_runs=runs).runs[0].samples
    monkeypatch.setattr(bootstrap, "DEPTH_SPREAD", 0.0)
    b = estimate_all(runs, q, ms, settings, pool_runs=runs).runs[0].samples
    np.testing.assert_array_equal(a, b)
