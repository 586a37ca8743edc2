"""The growth's deep documents drawn as sums in blocks of topics (unjudged.strategies._sums):
the same counts as drawing each topic on its own grid with numpy.interp, exact moments for
topics of a few distinct documents, never more documents than a topic has."""

from __future__ import annotations

import numpy as np
import pytest

from unjudged.strategies._sums import FEW, GRID, _interp, drawn_sums


def per_topic(logit, owner, shifts, variates):
    """The reference: one topic at a time, its grid of GRID shifts, np.interp."""
    b, n = shifts.shape
    out = np.zeros((b, n, logit.shape[-1]))
    for t in np.unique(owner).tolist():
        s = shifts[:, t]
        grid = np.linspace(s.min(), s.max(), GRID) if s.max() > s.min() else s[:1]
        tail = 1.0 / (1.0 + np.exp(-(logit[owner == t][None] + grid[:, None, None])))
        p = tail - np.concatenate([tail[..., 1:], np.zeros(tail.shape[:-1] + (1,))], axis=-1)
        mean = np.stack([np.interp(s, grid, p[..., g].sum(axis=1))
                         for g in range(p.shape[-1])], axis=-1)
        var = np.stack([np.interp(s, grid, (p[..., g] * (1 - p[..., g])).sum(axis=1))
                        for g in range(p.shape[-1])], axis=-1)
        drawn = np.maximum(np.rint(mean + np.sqrt(var) * variates[:, t]), 0)
        above = np.minimum(np.cumsum(drawn[:, ::-1], axis=-1)[:, ::-1], p.shape[1])
        out[:, t] = above - np.concatenate([above[:, 1:], np.zeros((b, 1))], axis=-1)
    return out


def _case(seed, n, b, rows, grades=2):
    rng = np.random.default_rng(seed)
    owner = rng.integers(0, n, rows)
    base = rng.normal(-2, 1.5, (rows, 1))
    steps = np.abs(rng.normal(1, 1, (rows, grades - 1)))
    logit = np.concatenate([base, base - np.cumsum(steps, axis=1)], axis=1)
    return logit, owner, rng.normal(0, 1, (b, n)), rng.normal(size=(b, n, grades))


@pytest.mark.parametrize(("seed", "n", "b", "rows", "grades"),
                         [(0, 30, 500, 3000, 2), (1, 7, 200, 900, 3), (2, 1, 50, 400, 2)])
def test_blocks_draw_what_each_topic_on_its_own_draws(seed, n, b, rows, grades):
    logit, owner, shifts, variates = _case(seed, n, b, rows, grades)
    assert np.array_equal(drawn_sums(logit, owner, shifts, variates),
                          per_topic(logit, owner, shifts, variates))


def test_one_shift_per_topic_and_topics_without_documents():
    logit, owner, shifts, variates = _case(3, 6, 100, 600)
    owner[owner == 2] = 4  # topic 2 has no deep document: nothing drawn
    shifts[:, 1] = 0.25  # one shift in every iteration: a grid of one point
    got = drawn_sums(logit, owner, shifts, variates)
    assert np.array_equal(got, per_topic(logit, owner, shifts, variates))
    assert not got[:, 2].any()


def test_interp_is_numpys():
    rng = np.random.default_rng(4)
    grid = np.sort(rng.normal(size=(3, 9)), axis=1)
    f = rng.normal(size=(3, 9, 2))
    x = np.concatenate([rng.uniform(grid[:, 0], grid[:, -1], (40, 3)), grid.T[:, :]])
    got = _interp(x, grid, f)
    for t in range(3):
        for g in range(2):
            assert np.array_equal(got[:, t, g], np.interp(x[:, t], grid[t], f[t, :, g]))


def test_a_few_distinct_documents_use_their_exact_moments():
    """A topic whose deep documents share FEW or fewer probabilities (a run alone: one) has
    its sums' mean and variance at each shift itself: 3 documents at log-odds 0 and shift s
    have mean 3 sigmoid(s) and variance 3 sigmoid(s)(1 - sigmoid(s))."""
    assert FEW >= 1
    shifts = np.array([[0.0], [1.0], [-2.0]])
    z = np.array([[[0.0]], [[1.0]], [[-1.0]]])
    got = drawn_sums(np.zeros((3, 1)), np.zeros(3, np.int64), shifts, z)[:, 0, 0]
    p = 1 / (1 + np.exp(-shifts[:, 0]))
    want = np.maximum(np.rint(3 * p + np.sqrt(3 * p * (1 - p)) * z[:, 0, 0]), 0)
    assert got.tolist() == want.tolist() == [2.0, 3.0, 0.0]


def test_never_more_documents_than_the_topic_has():
    logit = np.full((2, 2), 5.0)  # two nearly surely relevant documents, grade 2 likely
    got = drawn_sums(logit, np.zeros(2, np.int64), np.zeros((4, 1)), np.full((4, 1, 2), 9.0))
    assert (got.sum(axis=-1) <= 2).all() and got[:, 0].sum(axis=-1).tolist() == [2.0] * 4


def test_two_distinct_probabilities_sum_their_moments():
    """Documents at log-odds 0 (twice) and -1 under shifts s: mean 2 sigmoid(s) +
    sigmoid(s - 1), variance the sum of p(1 - p)."""
    shifts = np.array([[0.0], [0.5], [-1.0], [2.0]])
    z = np.array([0.3, -0.4, 1.2, -2.0]).reshape(4, 1, 1)
    logit = np.array([[0.0], [-1.0], [0.0]])
    got = drawn_sums(logit, np.zeros(3, np.int64), shifts, z)[:, 0, 0]
    p0, p1 = (1 / (1 + np.exp(-(shifts[:, 0] + c))) for c in (0.0, -1.0))
    mean, var = 2 * p0 + p1, 2 * p0 * (1 - p0) + p1 * (1 - p1)
    assert got.tolist() == np.maximum(np.rint(mean + np.sqrt(var) * z[:, 0, 0]), 0).tolist()
