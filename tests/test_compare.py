"""Rank correlations: hand-worked values, published values and property tests."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from unjudged.analysis.compare import (
    correlations,
    kendall_tau,
    rank_changes,
    ranks,
    spearman_rho,
    tau_ap,
)

# --- hand-worked correlations -------------------------------------------------------------------


def test_identical_and_reversed_rankings():
    x = [0.9, 0.7, 0.4, 0.35, 0.1]
    for fn in (kendall_tau, tau_ap, spearman_rho):
        assert fn(x, x) == pytest.approx(1.0)
        assert fn(x, x[::-1]) == pytest.approx(-1.0)
    assert kendall_tau(x, x[::-1], "a") == pytest.approx(-1.0)


def test_kendall_ties_against_a_hand_count():
    # pairs of [3,2,2,1] vs [4,3,2,1]: 5 concordant, 0 discordant, 1 tied in x only
    assert kendall_tau([3, 2, 2, 1], [4, 3, 2, 1]) == pytest.approx(5 / math.sqrt(5 * 6))
    assert kendall_tau([3, 2, 2, 1], [4, 3, 2, 1], "a") == pytest.approx(5 / 6)
    # [1,2,2,3] vs [1,3,3,2]: 3 concordant, 2 discordant, one pair tied in both
    assert kendall_tau([1, 2, 2, 3], [1, 3, 3, 2]) == pytest.approx(1 / 5)
    assert kendall_tau([1, 2, 2, 3], [1, 3, 3, 2], "a") == pytest.approx(1 / 6)
    with pytest.raises(ValueError, match="variant"):
        kendall_tau([1, 2], [1, 2], "c")


def test_float_noise_is_a_tie():
    x = [0.1 + 0.2, 0.3, 0.1]  # 0.30000000000000004 and 0.3: equal means summed differently
    assert kendall_tau(x, [2, 1, 0]) == pytest.approx(2 / math.sqrt(2 * 3))
    assert kendall_tau(x, [2, 1, 0], decimals=None) == pytest.approx(1.0)
    assert ranks(x).tolist() == [1, 1, 3]
    assert math.isnan(kendall_tau([0.51, 0.5], [0.5, 0.51], decimals=1))  # all tied at 0.5


def test_spearman_by_hand():
    # ranks 3,2,1 vs 3,1,2: sum d^2 = 2, rho = 1 - 6 * 2 / (3 * 8)
    assert spearman_rho([0.3, 0.2, 0.1], [0.9, 0.5, 0.7]) == pytest.approx(0.5)
    assert math.isnan(spearman_rho([1, 1, 1], [1, 2, 3]))


def test_tau_ap_by_hand():
    # walking y: the terms (C - D) / (i - 1) at positions 2, 3, 4 are 1, 1, 1/3 ...
    assert tau_ap([4, 3, 2, 1], [4, 3, 1, 2]) == pytest.approx(7 / 9)
    # ... and -1, 1, 1 when the top two swap: top errors cost more than bottom ones
    assert tau_ap([4, 3, 2, 1], [3, 4, 2, 1]) == pytest.approx(1 / 3)
    assert kendall_tau([4, 3, 2, 1], [3, 4, 2, 1]) == kendall_tau([4, 3, 2, 1], [4, 3, 1, 2])
    # asymmetric: x is the reference, y is walked. Walking [2,4,3,1]: 1, -1, 1 -> 1/3;
    # walking [4,3,2,1] against [2,4,3,1]: -1, 0 (one pair right, one wrong), 1 -> 0
    assert tau_ap([4, 3, 2, 1], [2, 4, 3, 1]) == pytest.approx(1 / 3)
    assert tau_ap([2, 4, 3, 1], [4, 3, 2, 1]) == pytest.approx(0.0)
    # a tie at the top of y: the two orders give 1 and 0, so 1/2
    assert tau_ap([3, 2, 1], [2, 2, 1]) == pytest.approx(0.5)
    # a tie in x: that pair agrees half the time (0), the last system's pairs agree (1)
    assert tau_ap([2, 2, 1], [3, 2, 1]) == pytest.approx(0.5)
    assert math.isnan(tau_ap([1.0], [1.0]))


def test_tau_ap_matches_published_values():
    # ircor's documented example (Urbano & Marrero): tauAP 0.7491182, tauAP_a with ties in y
    # 0.6074515 (x is the true ranking, y the estimate)
    x = np.array([0.06, 0.2, 0.27, 0.37, 0.57, 0.63, 0.66, 0.9, 0.91, 0.94])
    y = np.array([0.37, 0.06, 0.2, 0.27, 0.57, 0.66, 0.63, 0.91, 0.9, 0.94])
    assert tau_ap(x, y) == pytest.approx(0.7491182, abs=1e-7)
    assert tau_ap(x, np.round(y * 5) / 5) == pytest.approx(0.6074515, abs=1e-7)
    assert kendall_tau(x, y) == pytest.approx(0.7777778, abs=1e-7)


def test_correlations_over_measures_and_rank_changes():
    c = correlations([[0.3, 1], [0.2, 2], [0.1, 3]], [[0.9, 1], [0.5, 2], [0.7, 3]])
    assert c["kendall_tau"] == pytest.approx([1 / 3, 1.0])
    assert c["kendall_tau_a"] == pytest.approx([1 / 3, 1.0])
    assert c["spearman_rho"] == pytest.approx([0.5, 1.0])
    assert c["tau_ap"] == pytest.approx([0.5, 1.0])  # terms -1 and 1 at positions 2 and 3 ... /2
    assert ranks([0.5, 0.9, 0.5, 0.1]).tolist() == [2, 1, 2, 4]
    rc = rank_changes([0.4, 0.3, 0.2, 0.1], [0.4, 0.1, 0.2, 0.3])
    assert rc.change.tolist() == [0, 2, 0, -2]
    assert rc.largest(2).tolist() == [1, 3]
    with pytest.raises(ValueError, match="equally long"):
        tau_ap([1, 2], [1, 2, 3])


# --- properties ---------------------------------------------------------------------------------

scores = st.lists(st.integers(0, 4), min_size=2, max_size=9).map(np.array)
pairs = st.integers(2, 9).flatmap(lambda n: st.tuples(
    st.lists(st.integers(0, 4), min_size=n, max_size=n).map(np.array),
    st.lists(st.integers(0, 4), min_size=n, max_size=n).map(np.array)))
distinct = st.lists(st.integers(-50, 50), min_size=2, max_size=12, unique=True).map(np.array)


@given(pairs)
def test_range_and_symmetry(xy):
    x, y = xy
    for value in (kendall_tau(x, y), kendall_tau(x, y, "a"), tau_ap(x, y), spearman_rho(x, y)):
        assert math.isnan(value) or -1 - 1e-12 <= value <= 1 + 1e-12
    for fn in (kendall_tau, spearman_rho):
        a, b = fn(x, y), fn(y, x)
        assert (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b)


@given(distinct)
def test_tau_ap_of_a_ranking_with_itself_and_its_reverse(x):
    assert tau_ap(x, x) == pytest.approx(1.0)
    assert tau_ap(x, -x) == pytest.approx(-1.0)
    assert tau_ap(x, 2 * x + 1) == pytest.approx(1.0)  # only the order matters


def _tau_ap_untied(x, y) -> float:
    """Yilmaz et al.'s formula, literally, for rankings without ties."""
    order = np.argsort(-y)
    total = 0.0
    for i in range(1, len(order)):
        correct = sum(x[order[j]] > x[order[i]] for j in range(i))
        total += correct / i
    return 2 * total / (len(order) - 1) - 1


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 5).flatmap(lambda n: st.tuples(
    st.lists(st.integers(0, 2), min_size=n, max_size=n).map(np.array),
    st.lists(st.integers(0, 2), min_size=n, max_size=n).map(np.array))))
def test_tau_ap_is_the_mean_over_every_breaking_of_ties(xy):
    x, y = xy
    n = len(x)
    perms = [np.array(p) / n for p in itertools.permutations(range(n))]  # tie-break keys < 1
    values = [_tau_ap_untied(x + px, y + py) for px in perms for py in perms]
    assert tau_ap(x, y) == pytest.approx(np.mean(values))
    assert tau_ap(x + perms[3 % len(perms)], y + perms[-1]) == \
        pytest.approx(_tau_ap_untied(x + perms[3 % len(perms)], y + perms[-1]))
