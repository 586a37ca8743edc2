"""Inferred measures never claim an exactness they do not have (issue 17, item 6).

Where the sample's own spread collapses (no sampled relevant document retrieved, a single
sampled relevant document, a stratum whose sampled documents all agree, a topic whose sample
holds nothing relevant) the variance used to be 0 and the interval "v +- 0" missed the truth
whenever an unsampled document mattered. Each case is worked by hand below with the rule of
unjudged.inference.infap / counts (two pseudo-precisions 0 and 1, the counterpart of the
Laplace-smoothed proportion); complete judgments keep zero-width intervals; and the sampling
experiment counts the zero-width intervals it meets.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from unjudged.data.judged import judge
from unjudged.data.sampled import judge_sampled
from unjudged.experiments.sampling import sampling_experiment
from unjudged.experiments.sampling_stats import sampling_table
from unjudged.inference.counts import infndcg_variance
from unjudged.inference.infap import infap_variance, xinfap_variance
from unjudged.inference.infer import infer_runs
from unjudged.io import read_qrels, read_run
from unjudged.io.sampled import read_sampled_qrels
from unjudged.measures import parse_measure, parse_measures


def test_infap_with_no_sampled_relevant_document_retrieved():
    # pool a..e; sampled a (1), b (0), c (1): p = 3/5, r = 2. The run retrieves d and e only
    # (pooled, unsampled): infAP = 0 and both precisions are 0, so s^2 = 0 and the old variance
    # was 0. With the pseudo-precisions 0 and 1: s^2 = (0 + 0^2 + 1^2) / (2 + 1) = 1/3,
    # component 1 = (1 - 3/5) * (1/3) / 2 = 1/15; component 2 = 0 (nothing relevant retrieved).
    q = read_qrels({"t": {"a": 1, "b": 0, "c": 1, "d": -1, "e": -1}})
    j = judge(read_run({"t": {"d": 2.0, "e": 1.0}}), q)
    assert parse_measure("infAP").compute(j)[0] == 0.0
    assert infap_variance(j)[0] == pytest.approx(1 / 15, abs=1e-12)
    # retrieving only b, sampled and non-relevant, AP is 0 whatever d and e hold: exact
    assert infap_variance(judge(read_run({"t": {"b": 1.0}}), q))[0] == 0.0


def test_infap_with_one_sampled_relevant_document():
    # pool a (1), b (unsampled): p = 1/2, r = 1; run a b: PC(a, rank 1) = 1, infAP = 1. s^2 is
    # undefined for r = 1 (the old variance: 0). Now s^2 = (0 + 1^2 + 0^2) / 2 = 1/2 and
    # component 1 = (1 - 1/2) * (1/2) / 1 = 1/4; nothing lies above rank 1: component 2 = 0.
    q = read_qrels({"t": {"a": 1, "b": -1}})
    j = judge(read_run({"t": {"a": 2.0, "b": 1.0}}), q)
    assert parse_measure("infAP").compute(j)[0] == pytest.approx(1.0, abs=1e-4)
    assert infap_variance(j)[0] == pytest.approx(0.25, abs=1e-4)


def test_xinfap_stratum_with_one_sampled_document():
    # stratum 1 = {a: 1, b: 0} complete; stratum 2 = {c: 0, d, e unsampled}: n_2 = 1. Run a b:
    # R = 1 + 3 * 0 = 1, PC(a) = 1, xinfAP = 1. Old: stratum 2's s^2 needs n >= 2, so 0.
    # Now s^2 = q_2 sigma^2: q_2 = (0 + 1) / (1 + 2) = 1/3; sigma^2 = the mean squared e of the
    # relevant documents with the pseudo-precisions 0 and 1: (0^2 + (0 - 1)^2 + (1 - 1)^2) / 3
    # = 1/3; component 1 = 3^2 (1 - 1/3) (1/9) / 1 / 1^2 = 2/3; component 2 = 0 (nothing
    # above rank 1).
    q = read_sampled_qrels({"t": {"a": ("1", 1), "b": ("1", 0), "c": ("2", 0),
                                  "d": ("2", -1), "e": ("2", -1)}})
    j = judge_sampled(read_run({"t": {"a": 2.0, "b": 1.0}}), q)
    assert parse_measure("xinfAP").compute(j)[0] == pytest.approx(1.0, abs=1e-4)
    assert xinfap_variance(j)[0] == pytest.approx(2 / 3, abs=1e-9)


def test_xinfap_with_nothing_relevant_sampled_uses_the_smoothed_total():
    # one stratum {a: 0, b: 0, c, d unsampled}: R = 0, xinfAP = 0 (old variance 0); the run
    # retrieves c, unsampled, so 0 is not known to be exact. sigma^2 = (0^2 + 1^2) / 2 = 1/2
    # (pseudo-precisions only), q = 1 / (2 + 2), s^2 = 1/8. R is 0, so the denominator is the
    # Laplace total 4 * (0 + 1) / (2 + 2) = 1: variance = 4^2 (1 - 2/4) (1/8) / 2 / 1^2 = 1/2.
    q = read_sampled_qrels({"t": {"a": ("1", 0), "b": ("1", 0), "c": ("1", -1),
                                  "d": ("1", -1)}, "u": {"x": ("1", 1)}})
    j = judge_sampled(read_run({"t": {"c": 3.0, "a": 2.0, "d": 1.0}}), q)
    assert parse_measure("xinfAP").compute(j)[0] == 0.0
    assert xinfap_variance(j)[0] == pytest.approx(0.5, abs=1e-12)
    # a run that retrieves only sampled non-relevant documents has AP = 0 exactly
    j = judge_sampled(read_run({"t": {"a": 2.0, "b": 1.0}}), q)
    assert xinfap_variance(j)[0] == 0.0


def test_infndcg_with_nothing_relevant_sampled():
    # topic t: {a: 0 sampled, b, c unsampled}; topic u makes grade 1 known. Run b a, @2:
    # infNDCG = 0 and the estimated IDCG is 0, so the old variance divided by 0 gave 0.
    # DCG: z = 2 ranks, n = 1 sampled, Laplace grade shares (2/3, 1/3): mean gain 1/3, gain
    # variance 2/9, S^2 = (2/9 + 1/9) mean(d^2) - (1/3 mean(d))^2 with d = (1, 1/log2 3);
    # var(DCG) = 2^2 (1 - 1/2) S^2 / 1. IDCG from the smoothed shares: 3 * (2/3, 1/3) = (2, 1)
    # documents of grades (0, 1), so IDCG@2 = 1 and the variance is var(DCG) / 1.
    q = read_sampled_qrels({"t": {"a": ("1", 0), "b": ("1", -1), "c": ("1", -1)},
                            "u": {"x": ("1", 1)}})
    j = judge_sampled(read_run({"t": {"b": 2.0, "a": 1.0}}), q)
    d = np.array([1.0, 1 / math.log2(3)])
    spread = (2 / 9 + 1 / 9) * (d ** 2).mean() - (d.mean() / 3) ** 2
    assert parse_measure("infNDCG@2").compute(j)[0] == 0.0
    assert infndcg_variance(j, 2)[0] == pytest.approx(4 * 0.5 * spread, abs=1e-12)


def test_exact_estimates_keep_zero_width():
    # every document judged: the estimates are the measures themselves and the variances 0
    full = read_qrels({"t": {"a": 1, "b": 0, "c": 1, "d": 0, "e": 2}})
    run = read_run({"t": {"d": 5.0, "a": 4.0, "e": 3.0, "b": 2.0}})
    [inf] = infer_runs([run], read_sampled_qrels(full),
                       parse_measures(["infAP", "xinfAP", "infNDCG@10"]))
    np.testing.assert_allclose(inf.variance, 0.0, atol=1e-20)


QRELS = {t: {f"{t}{i}": int(i % 3 == 0) for i in range(12)} for t in ("p", "q", "r")}
RUNS = [read_run({t: {f"{t}{i}": float(20 - (i * k) % 13) for i in range(12)} for t in QRELS},
                 name=f"run{k}") for k in (1, 5, 7)]


def test_experiment_counts_zero_width_intervals():
    # complete samples: every interval has zero width and covers; half samples: none has
    # zero width (9 topics-runs per trial, 2 trials)
    sweep = sampling_experiment(RUNS, read_qrels(QRELS), ["uniform:1", "uniform:0.5"],
                                estimators=["infAP", "xinfAP", "infNDCG@10"], trials=2)
    rows = {(r["design"], r["estimator"]): r for r in sampling_table(sweep)}
    for m in ("infAP", "xinfAP", "infNDCG@10"):
        assert rows[("uniform:1", m)]["zero_width"] == 18
        assert rows[("uniform:1", m)]["zero_missed"] == 0
        assert rows[("uniform:1", m)]["cover_topic"] == 1.0
        assert rows[("uniform:0.5", m)]["zero_width"] == 0
        assert rows[("uniform:0.5", m)]["zero_missed"] == 0


def test_infndcg_ideal_saturated_by_estimate_but_not_by_sample():
    # one stratum of 9: sampled a (1), b (1), c (0), six unsampled. R(1) = 9 * 2/3 = 6, so
    # IDCG@3 = 1 + 1/log2(3) + 1/2 at R(1) = 5 and 7 alike: the old +-1 difference gave slope 0
    # and, the top 3 being sampled, variance 0, although only 2 relevant documents are known
    # (the true IDCG@3 may be smaller). The secant reaches down to the 2 sampled: slope =
    # (IDCG(10) - IDCG(2)) / (2 * 4) = (1/2) / 8. Multinomial term with the Laplace share
    # q = 3/5 and scale 9^2 (9 - 3)/(9 - 1) / 3: var(IDCG) = scale (slope^2 q - (slope q)^2).
    docs = {"a": 1, "b": 1, "c": 0} | {f"u{i}": -1 for i in range(6)}
    j = judge(read_run({"t": {"a": 3.0, "b": 2.0, "c": 1.0}}), read_qrels({"t": docs}))
    dcg = 1 + 1 / math.log2(3)
    ideal = dcg + 1 / 2
    slope, q = 1 / 16, 3 / 5
    var_ideal = 81 * 6 / 8 / 3 * (slope ** 2 * q - (slope * q) ** 2)
    value = dcg / ideal
    assert parse_measure("infNDCG@3").compute(j)[0] == pytest.approx(value, abs=1e-12)
    assert infndcg_variance(j, 3)[0] == pytest.approx(value ** 2 * var_ideal / ideal ** 2,
                                                      abs=1e-12)
