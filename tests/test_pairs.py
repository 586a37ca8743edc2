"""P(A > B) and rank intervals over coupled bootstrap draws (unjudged.engine.pairs)."""

from __future__ import annotations

import numpy as np
import pytest

from unjudged.engine import pairs
from unjudged.engine.pairs import (
    pair_probabilities,
    pair_rows,
    rank_intervals,
    uncertain_pairs,
)
from unjudged.errors import InvalidOptionError

# 3 runs (A, B, C) x 4 coupled iterations, worked by hand below
S = np.array([[0.5, 0.3, 0.3],
              [0.4, 0.6, 0.2],
              [0.7, 0.1, 0.2],
              [0.2, 0.2, 0.2]])


def test_pair_probabilities_hand_worked():
    p = pair_probabilities(S)
    # A > B in iterations 1 and 3; A > C in 1, 2, 3; B > A in 2; B > C in 2 (1 and 4 tie);
    # C > B in 3; C never beats A
    assert p.tolist() == [[0.0, 0.5, 0.75], [0.25, 0.0, 0.25], [0.0, 0.25, 0.0]]
    ties = 1.0 - p - p.T
    assert ties[1, 2] == pytest.approx(0.5) and ties[0, 1] == pytest.approx(0.25)


def test_equal_to_12_decimals_is_a_tie_and_nan_is_last():
    s = np.array([[0.1 + 0.2, 0.3, np.nan, np.nan]])  # 0.30000000000000004 vs 0.3
    p = pair_probabilities(s)
    assert p[0, 1] == 0.0 and p[1, 0] == 0.0
    assert p[0, 2] == 1.0 and p[2, 0] == 0.0 and p[2, 3] == 0.0 and p[3, 2] == 0.0
    assert rank_intervals(s).tolist() == [[1, 1], [1, 1], [3, 3], [3, 3]]


def test_pair_probabilities_match_a_loop_in_any_chunking(monkeypatch):
    rng = np.random.default_rng(7)
    s = rng.integers(0, 5, size=(200, 9)) / 4.0  # many ties
    want = np.array([[np.mean(s[:, a] > s[:, b]) for b in range(9)] for a in range(9)])
    assert np.array_equal(pair_probabilities(s), want)
    monkeypatch.setattr(pairs, "_CHUNK_CELLS", 1)  # one run per chunk
    assert np.array_equal(pair_probabilities(s), want)
    monkeypatch.setattr(pairs, "_CHUNK_CELLS", 200 * 9 * 4)  # 4 runs, the last chunk short
    assert np.array_equal(pair_probabilities(s), want)


def test_no_iteration_and_bad_shape():
    assert np.isnan(pair_probabilities(np.zeros((0, 2)))).all()
    assert rank_intervals(np.zeros((0, 2))).tolist() == [[0, 0], [0, 0]]
    with pytest.raises(InvalidOptionError):
        pair_probabilities(np.zeros(3))
    with pytest.raises(InvalidOptionError):
        rank_intervals(S, 0.0)


def test_rank_intervals_hand_worked():
    # ranks per iteration ("min": ties share the best): A 1,2,1,1; B 2,1,3,1; C 2,3,2,1
    assert rank_intervals(S, 1.0).tolist() == [[1, 2], [1, 3], [1, 3]]
    # level 0.5: at most one iteration (a quarter) may fall outside on each side. C is ranked
    # 1 once, so its best rank is 2; B is ranked 3 once, so its worst is 2.
    assert rank_intervals(S, 0.5).tolist() == [[1, 1], [1, 2], [2, 2]]


def test_rank_intervals_match_sorted_ranks():
    rng = np.random.default_rng(3)
    b, n = 1000, 6
    s = rng.normal(np.arange(n) * 0.3, 1.0, size=(b, n))
    ranks = 1 + (s[:, None, :] > s[:, :, None]).sum(axis=2)  # (b, runs): runs ahead + 1
    got = rank_intervals(s, 0.9)
    for r in range(n):
        x = np.sort(ranks[:, r])
        # at most 50 of 1000 iterations below lo and above hi, and one more would be > 50
        assert (x < got[r, 0]).sum() <= 50 < (x <= got[r, 0]).sum()
        assert (x > got[r, 1]).sum() <= 50 < (x >= got[r, 1]).sum()
    assert got[-1, 0] == 1 and got[0, 1] == n  # the best run is often first, the worst last


def test_pair_rows_every_ordered_pair():
    rows = pair_rows(["A", "B", "C"], "P@10", S)
    assert [(r["run_a"], r["run_b"]) for r in rows] == [
        ("A", "B"), ("A", "C"), ("B", "A"), ("B", "C"), ("C", "A"), ("C", "B")]
    assert [r["p_a_better"] for r in rows] == [0.5, 0.75, 0.25, 0.25, 0.0, 0.25]
    assert {r["measure"] for r in rows} == {"P@10"}
    with pytest.raises(InvalidOptionError):
        pair_rows(["A"], "P@10", S)


def test_uncertain_pairs():
    p = pair_probabilities(S)
    assert uncertain_pairs(p).tolist() == [[0, 1], [0, 2], [1, 2]]
    assert uncertain_pairs(p, 0.75).tolist() == [[0, 1], [1, 2]]
    # 19 of 20 iterations is 0.95 exactly: settled
    s = np.r_[np.tile([[1.0, 0.0]], (19, 1)), [[0.0, 1.0]]]
    assert uncertain_pairs(pair_probabilities(s)).shape == (0, 2)
    assert uncertain_pairs(np.full((2, 2), np.nan)).tolist() == [[0, 1]]
