"""--population topics: run-level intervals, P(A > B) and ranks that also cover the sampling of
topics (a Poisson bootstrap over topics, coupled across runs), beside these topics' intervals."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from click.testing import CliRunner

from unjudged.cli import main
from unjudged.data.examples import example_paths
from unjudged.engine.estimate import EstimateSettings, estimate_runs
from unjudged.engine.results import weighted_aggregate
from unjudged.errors import InvalidOptionError, UnjudgedWarning
from unjudged.io import read_qrels, read_runs
from unjudged.measures import parse_measures
from unjudged.strategies.bootstrap import topic_weights


def test_weighted_aggregate_by_hand():
    v = np.array([[0.2, 0.4, 0.9], [0.2, 0.4, 0.9]])
    w = np.array([[2.0, 1.0, 0.0], [0.0, 0.0, 0.0]])
    assert weighted_aggregate(v, w, "mean").round(6).tolist() == [0.266667, 0.5]
    assert weighted_aggregate(v, w, "sum").round(6).tolist() == [0.8, 1.5]
    g = weighted_aggregate(v, np.ones((2, 3)), "gmean")
    assert g[0] == pytest.approx((0.2 * 0.4 * 0.9) ** (1 / 3))


def test_topic_weights_are_per_topic_name():
    a = topic_weights(["1", "2", "3"], 5, 50)
    b = topic_weights(["3", "1"], 5, 50)
    np.testing.assert_array_equal(a[:, [2, 0]], b)  # the same topic, the same counts
    assert set(np.unique(a)) <= set(range(16))
    with pytest.raises(InvalidOptionError, match="population"):
        EstimateSettings(population="queries")


@pytest.fixture(scope="module")
def example():
    qp, rp = example_paths()
    q = read_qrels(qp)
    return qp, rp, q, read_runs(rp, qrels=q)


def _est(runs, q, population):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnjudgedWarning)
        return estimate_runs(runs, q, parse_measures(["nDCG@10"]), methods=["bootstrap"],
                             b=500, seed=2, pool_runs=runs, population=population)


def test_topics_widen_the_run_level_only(example):
    _, _, q, runs = example
    these, topics = _est(runs, q, "these"), _est(runs, q, "topics")
    for a, b in zip(these.runs, topics.runs, strict=True):
        np.testing.assert_array_equal(a.point, b.point)  # per topic: the same
        np.testing.assert_array_equal(a.lohi, b.lohi)
        assert a.run_point[0] == b.run_point[0]  # the estimate on these topics
        wa = a.run_lohi[0, 1] - a.run_lohi[0, 0]
        wb = b.run_lohi[0, 1] - b.run_lohi[0, 0]
        assert wb > 2 * wa  # 30 topics vary far more than their unjudged documents
    # ranks: run1 and BBGhelani1 are told apart on these topics, not over topics
    names = [r.run for r in these.runs]
    i, j = names.index("run1"), names.index("BBGhelani1")
    r_these = these.rank_intervals()["nDCG@10"]
    r_topics = topics.rank_intervals()["nDCG@10"]
    assert r_these[i].tolist() == [1, 1] and r_these[j].tolist() == [2, 2]
    assert r_topics[i].tolist() == [1, 2] and r_topics[j].tolist() == [1, 2]


def test_cli_says_what_the_interval_covers(example):
    qp, rp, _, _ = example
    r = CliRunner().invoke(main, ["estimate", qp, rp[0], "-m", "P@10", "-b", "50",
                                  "--methods", "bootstrap", "--population", "topics"])
    assert r.exit_code == 0, r.output
    assert "also the sampling of topics" in r.stdout
    bad = CliRunner().invoke(main, ["estimate", qp, rp[0], "--population", "queries"])
    assert bad.exit_code == 2


def test_rows_give_the_mass_on_each_end(example):
    qp, rp, _, _ = example
    r = CliRunner().invoke(main, ["estimate", qp, rp[0], "-m", "P@10", "-b", "200", "-q",
                                  "--methods", "bootstrap", "-f", "tsv", "--seed", "4"])
    assert r.exit_code == 0, r.output
    lines = [x.split("\t") for x in r.stdout.splitlines()]
    head = lines[0]
    assert head[-2:] == ["p_lo", "p_hi"]
    rows = [dict(zip(head, x, strict=True)) for x in lines[1:]]
    for row in rows:
        lo, hi, p_lo, p_hi = (float(row[k]) for k in ("lo", "hi", "p_lo", "p_hi"))
        assert 0 < p_lo <= 1 and 0 < p_hi <= 1
        assert (p_lo == p_hi == 1.0) if abs(lo - hi) <= 1e-12 else p_lo + p_hi <= 1.0
    # P@10 with one or two unjudged documents: a few values, much of the mass on the ends
    topic = [row for row in rows if row["topic"] not in ("all",) and row["lo"] != row["hi"]]
    assert np.mean([float(x["p_lo"]) + float(x["p_hi"]) for x in topic]) > 0.3
