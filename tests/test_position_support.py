"""The position prior's fit: the topics' intercepts drawn from one normal (empirical Bayes
shrinkage) and the votes slope extrapolated only down to the judged documents' votes."""

import numpy as np
import pytest

from unjudged.io import read_qrels, read_run
from unjudged.strategies.position import PositionModel, _newton, run_keys


def _no_slopes(counts: list[tuple[int, int]]):
    """(t, x, y, w) of topics with (documents, relevant) each, features all 0, plus the fit's
    two pseudo-documents (weight 1/2) per topic."""
    t, y = [], []
    for i, (n, k) in enumerate(counts):
        t += [i] * n
        y += [1.0] * k + [0.0] * (n - k)
    n_t = len(counts)
    t = np.array(t + list(range(n_t)) * 2)
    y = np.array(y + [1.0] * n_t + [0.0] * n_t)
    w = np.r_[np.ones(len(t) - 2 * n_t), np.full(2 * n_t, 0.5)]
    return t, np.zeros((t.size, 2)), y, w


def test_newton_without_a_prior_is_each_topics_laplace_rate():
    counts = [(20, 1), (20, 10), (16, 4)]
    t, x, y, w = _no_slopes(counts)
    beta, _ = _newton(t, x, y, w, 3, np.zeros(5))
    rates = np.array([(k + 0.5) / (n + 1) for n, k in counts])
    np.testing.assert_allclose(beta[:3], np.log(rates / (1 - rates)), atol=1e-8)
    np.testing.assert_allclose(beta[3:], 0.0, atol=1e-12)


def test_newton_with_a_prior_solves_the_penalised_score():
    # a topic's score: (k + 1/2) - (n + 1) p - precision (a - mu) = 0
    counts = [(20, 1), (20, 10), (16, 4)]
    t, x, y, w = _no_slopes(counts)
    mu, precision = -0.5, 2.0
    beta, d = _newton(t, x, y, w, 3, np.zeros(5), mu, precision)
    a = beta[:3]
    p = 1 / (1 + np.exp(-a))
    score = np.array([k + 0.5 for _, k in counts]) - np.array([n + 1 for n, _ in counts]) * p
    np.testing.assert_allclose(score - precision * (a - mu), 0.0, atol=1e-8)
    # the 1-in-20 topic moves up towards mu, from logit(1.5 / 21) = -2.565
    assert a[0] == pytest.approx(-1.565307, abs=1e-6)  # the root of 1.5 - 21 p - 2 (a + 1/2)
    np.testing.assert_allclose(d, np.array([n + 1 for n, _ in counts]) * p * (1 - p) + 2.0,
                               rtol=1e-6)


def _runs_and_qrels(rel_per_topic: list[int]):
    """Five runs ranking d0..d19 of each topic alike, every document judged, the relevant
    ones of a topic with k spread evenly over the ranks (d10 alone for k = 1, the odd ones
    for k = 10: the ranks say little)."""
    topics = {f"t{i}": {f"d{j}": float(20 - j) for j in range(20)}
              for i in range(len(rel_per_topic))}
    q = read_qrels({f"t{i}": {f"d{j}": int(j % (20 // k) == (10 // k) % (20 // k))
                              for j in range(20)} for i, k in enumerate(rel_per_topic)})
    runs = [read_run(topics, name=f"r{i}") for i in range(5)]
    return runs, q


def test_a_topic_with_few_relevant_judged_is_pulled_towards_the_others():
    runs, q = _runs_and_qrels([1, 10, 10, 10, 10, 10])
    assert sum(q.to_dict()["t0"].values()) == 1 and sum(q.to_dict()["t1"].values()) == 10
    m = PositionModel.build(runs, q)
    assert abs(m.slope[0]) < 0.2  # the ranks tell little
    # fitted alone, the intercepts differ by the Laplace rates' log-odds, logit(10.5 / 21) -
    # logit(1.5 / 21) = 2.565; drawn from one normal (tau^2 by moments ~ 0.6), by less
    gap = m.intercept[1] - m.intercept[0]
    assert gap == pytest.approx(1.5584, abs=1e-3)


def test_votes_below_the_judged_support_count_as_its_floor():
    # the relevant judged documents are in all 5 runs, the others in 3: judged votes 3 or 5;
    # "x" is in one run only
    q = read_qrels({"t": {f"d{j}": int(j % 3 == 0) for j in range(12)}})
    ranking = {f"d{j}": float(20 - j) for j in range(12)}
    some = {d: v for d, v in ranking.items() if int(d[1:]) % 3 == 0}
    runs = [read_run({"t": ranking}, name=f"r{i}") for i in range(3)]
    runs += [read_run({"t": some}, name="r3"), read_run({"t": {**some, "x": 0.5}}, name="r4")]
    m = PositionModel.build(runs, q)
    assert m.vote_floor == 3.0 and m.slope[1] > 0.5
    key = run_keys(runs[4], ["t"], 5)[0, [4]]
    np.testing.assert_allclose(m.features(key), [[np.log2(5), 1.0]])  # best 5, 1 vote
    # its probability reads 3 votes: the slope is not extrapolated below the judged ones'
    eta = m.intercept[0] + m.slope @ [np.log2(5), np.log2(4)]
    p = m.grade_probabilities(["t"], key, 2)[0, 1]
    assert p == pytest.approx(1 / (1 + np.exp(-eta)), rel=1e-12)
    assert p > 1 / (1 + np.exp(-(m.intercept[0] + m.slope @ [np.log2(5), 1.0]))) + 0.05
