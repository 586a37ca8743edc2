"""`--point most-likely`: seed 000's "most likely score", the top of the fullest bin of a
20-bin histogram taken twice (unjudged.strategies.summaries.most_likely), beside the exact mode."""

from __future__ import annotations

import numpy as np
import pytest

from unjudged.errors import InvalidOptionError
from unjudged.strategies.summaries import mode, most_likely, parse_point, point_estimate


def _fullest(values: list[float]) -> list[float]:
    """One pass, written as the procedure reads: 20 right-closed bins of width 0.05 over the
    values rescaled to [0, 1] (all in one bin when they span at most 0.0001); the values of
    the bin(s) holding the most."""
    lo, hi = min(values), max(values)
    if hi - lo <= 0.0001:
        return values
    borders = [k / 100 for k in range(5, 101, 5)]
    bins: dict[int, list[float]] = {}
    for v in values:
        x = (v - lo) / (hi - lo)
        k = next(i for i, edge in enumerate(borders) if x <= edge)
        bins.setdefault(k, []).append(v)
    most = max(len(b) for b in bins.values())
    return [v for b in bins.values() if len(b) == most for v in b]


def _reference(values: list[float]) -> float:
    return max(_fullest(_fullest(values)))


@pytest.mark.parametrize(("values", "want", "exact_mode"), [
    # two fullest bins (0 and 19) tie: both kept, twice, and the largest value wins
    ([0.0, 0.0, 1.0, 1.0], 1.0, 0.0),
    # bins are right-closed: 0.05 is in the first bin with 0.0 (three values against 0.06 and
    # 0.07); between 0.0 and 0.05 the two 0.05 fill the last bin. Left-closed bins would give 0.07
    ([0.0, 0.05, 0.05, 0.06, 0.07, 1.0], 0.05, 0.05),
    # a span of at most 0.0001 is one bin: the largest value
    ([0.5, 0.50005, 0.5], 0.50005, 0.5),
    # the second pass decides: (0.1, 0.15] holds five values; between 0.11 and 0.145 the first
    # bin holds 0.11 and 0.111
    ([0.0, 0.11, 0.111, 0.112, 0.14, 0.145, 1.0], 0.111, 0.0),
    # one value
    ([0.3], 0.3, 0.3),
])
def test_hand_worked_histograms(values, want, exact_mode):
    s = np.array(values)[:, None]
    assert most_likely(s).tolist() == [want] == [_reference(values)]
    assert mode(s).tolist() == [exact_mode]


def test_matches_the_procedure_column_by_column():
    rng = np.random.default_rng(11)
    # bootstrap-like columns: few distinct values, skewed, one nearly flat, one constant
    cols = [rng.binomial(10, p, 500) / 10 for p in (0.1, 0.3, 0.5, 0.8)]
    cols += [rng.beta(2, 5, 500), 0.4 + rng.random(500) * 5e-5, np.full(500, 0.25),
             np.round(rng.normal(0.4, 0.1, 500), 3)]
    s = np.stack(cols, axis=1)
    want = [_reference(list(c)) for c in cols]
    assert most_likely(s).tolist() == want
    # any leading shape: (b, topics, measures) as the bootstrap's samples
    cube = np.stack([s, s[:, ::-1]], axis=2)
    assert most_likely(cube).tolist() == np.stack([want, want[::-1]], axis=1).tolist()


def test_missing_values():
    s = np.array([[0.1, np.nan], [0.2, 0.3]])
    got = most_likely(s)
    assert got[0] == 0.2 and np.isnan(got[1])
    assert most_likely(np.zeros((0, 3))).shape == (3,)
    assert most_likely(np.zeros((4, 0, 2))).shape == (0, 2)


def test_point_option():
    assert parse_point("most-likely") == "most-likely"
    s = np.array([0.0, 0.05, 0.05, 0.06, 0.07, 1.0])[:, None]
    assert point_estimate(s, "most-likely").tolist() == [0.05]
    with pytest.raises(InvalidOptionError, match="most-likely"):
        parse_point("likely")
