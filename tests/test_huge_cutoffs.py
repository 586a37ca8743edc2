"""Issue 34 item 9: a cutoff beyond the deepest ranking costs what the deepest ranking (or 1,000
columns, PAD_UP_TO) costs. P@k still divides by k; nDCG, AP and the others read no more than
the rankings and the ideal hold, so at a huge cutoff they equal their values at 1,000 (and,
up to the order of a sum over zeros, their uncut values); nothing of k columns is
allocated."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from unjudged.engine.estimate import estimate_runs
from unjudged.engine.score import score
from unjudged.io import read_qrels, read_run
from unjudged.measures import parse_measures

QRELS = {"t1": {"a": 1, "b": 0, "c": 2, "d": 1}, "t2": {"x": 1, "y": 2, "u": 0}}
RUN = {"t1": {"a": 3.0, "b": 2.0, "z": 1.0}, "t2": {"y": 2.0, "w": 1.0, "x": 0.5}}


def _values(names: list[str]) -> np.ndarray:
    res = score([read_run(RUN, name="r")], read_qrels(QRELS), parse_measures(names))
    return res.runs[0].values  # (topics, measures)


def test_precision_at_a_million_divides_by_a_million():
    v = _values(["P@1000000", "P@1000000000000", "Judged@1000000", "R@1000000"])
    # t1 retrieves one relevant document (a), t2 two (y, x)
    assert v[:, 0].tolist() == [1 / 1e6, 2 / 1e6]
    assert v[:, 1].tolist() == [1 / 1e12, 2 / 1e12]
    assert v[:, 2].tolist() == [2 / 3, 2 / 3]  # judged among the min(k, retrieved)
    assert v[:, 3].tolist() == [1 / 3, 1.0]


def test_huge_cutoffs_equal_the_uncut_values():
    cut = _values(["nDCG@1000000", "AP@1000000", "RBP@1000000", "ERR@1000000", "R@1000000"])
    assert np.array_equal(cut, _values(["nDCG@1000", "AP@1000", "RBP@1000", "ERR@1000",
                                        "R@1000"]))
    uncut = _values(["nDCG", "AP", "RBP", "ERR", "R"])
    assert np.allclose(cut, uncut, rtol=1e-15, atol=0)
    assert cut[:, 1].round(6).tolist() == [round(1 / 3, 6), round((1 / 1 + 2 / 3) / 2, 6)]


def test_a_huge_cutoff_allocates_no_columns():
    rng = np.random.default_rng(0)
    qrels = read_qrels({str(t): {f"d{j}": int(rng.integers(0, 3)) for j in range(20)}
                        for t in range(200)})
    run = read_run({str(t): {f"d{j}": float(50 - j) for j in range(30)} for t in range(200)},
                   name="r")
    names = ["P@1000000000", "nDCG@1000000000", "AP@1000000000", "RBP@1000000000"]
    tracemalloc.start()
    try:
        v = score([run], qrels, parse_measures(names)).runs[0].values
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 20e6  # 200 topics x 1e9 columns would be 1.6 PB of float64
    assert np.allclose(v[:, 1:], score([run], qrels, parse_measures(
        ["nDCG", "AP", "RBP"])).runs[0].values, rtol=1e-15, atol=0)


@pytest.mark.parametrize("prior", ["pool", "pool+run"])
def test_the_bootstrap_at_a_huge_cutoff_is_the_uncut_bootstrap(prior):
    q = read_qrels(QRELS)
    runs = [read_run(RUN, name="r"), read_run({"t1": {"c": 2.0, "q": 1.0}, "t2": {"v": 1.0}},
                                              name="s")]
    kw = dict(methods=["bootstrap", "upper"], b=200, prior=prior, pool_runs=runs,
              keep_samples=True)
    tracemalloc.start()
    try:
        huge = estimate_runs(runs, q, parse_measures(["nDCG@1000000000", "AP@1000000000",
                                                      "P@1000000000"]), **kw)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 50e6
    uncut = estimate_runs(runs, q, parse_measures(["nDCG", "AP", "P@3"]), **kw)
    at_1000 = estimate_runs(runs, q, parse_measures(["nDCG@1000", "AP@1000"]), **kw)
    for h, u, t in zip(huge.runs, uncut.runs, at_1000.runs, strict=True):
        assert np.array_equal(h.samples[..., :2], t.samples)
        assert np.allclose(h.samples[..., :2], u.samples[..., :2], rtol=1e-15, atol=0)
        # P@k of the drawn grades: the hits over 1e9 instead of over 3
        assert np.allclose(h.samples[..., 2] * 1e9, u.samples[..., 2] * 3, rtol=1e-12)
