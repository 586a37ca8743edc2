"""The variates, requests and keys worked a block at a time (for the cache) are the numbers the
whole-array formulas give, to the last bit."""

import numpy as np
import pyarrow as pa
import pytest

from unjudged.strategies import keys as K
from unjudged.strategies.bootstrap import Draw, requests


def _whole_uniforms(keys, seed, start, stop):
    """keys.uniforms as it was computed over the whole (iterations, keys) array at once."""
    base = K.combine(keys, K.name_key("unjudged-draw", seed))
    steps = np.arange(start, stop, dtype=np.uint64)[:, None]
    with np.errstate(over="ignore"):
        bits = K._mixed(base[None, :] + (steps + np.uint64(1)) * K._GOLDEN)
    bits >>= np.uint64(11)
    out = bits.astype(np.float64)
    out += 0.5
    out *= 1.0 / (1 << 53)
    return out


@pytest.mark.parametrize("n, start, stop", [(0, 0, 5), (1, 0, 1), (3, 5, 9), (100, 0, 2000),
                                             (40000, 3, 6), (7, 100, 100), (513, 17, 300)])
def test_blocked_variates_are_the_whole_arrays(n, start, stop):
    keys = np.random.default_rng(n).integers(0, 2 ** 64 - 1, n, dtype=np.uint64)
    u = _whole_uniforms(keys, 3, start, stop)
    assert np.array_equal(K.uniforms(keys, 3, start, stop), u)
    assert np.array_equal(K.odds(keys, 3, start, stop), u / (1.0 - u))


def test_string_keys_of_strings_of_every_length():
    """Bytes every string has go in place; the rest only for the strings that have them."""
    words = ["", "a", "ab", "abcdefgh", "x" * 40, "é", "cord-19", "abcdefgi"]
    got = K.string_keys(pa.array(words))
    want = []
    for w in words:
        h = int(K._FNV_BASIS)
        for byte in w.encode("utf-8"):
            h = ((h ^ byte) * int(K._FNV_PRIME)) % (1 << 64)
        want.append(h ^ len(w.encode("utf-8")))
    assert np.array_equal(got, K.mix(np.array(want, dtype=np.uint64)))
    same = K.string_keys(pa.array(["abcdefgh", "abcdefgi"]))  # all of one length
    assert np.array_equal(same, got[[3, 7]])


def test_requests_in_blocks_are_the_whole_comparison():
    """Shifted, deep and run-shifted requests: the grades the whole-array steps give, and the
    comparison in odds is the comparison of logistic variates with log-odds (the model's
    definition) at every one of the 105,000 cells."""
    rng = np.random.default_rng(5)
    cells, m = 70, 1500
    keys = rng.integers(0, 2 ** 64 - 1, cells, dtype=np.uint64)
    p = rng.dirichlet([2.0, 1.0, 1.0], size=cells)
    rows = np.sort(rng.integers(0, 4, cells))
    topics = ["a", "b", "c", "d"]
    deep = rng.random(cells) < 0.3

    class Shift:
        def draws(self, seed, i0, i1):
            return np.linspace(-1.0, 1.0, i1 - i0)

    how = Draw("position", 2, np.zeros((1, 1), np.uint64), spread=0.5, shared_spread=0.2,
               run_shift=Shift())
    got, before = requests(keys, p, topics, rows, how, 10, 10 + m, unshifted=True, deep=deep)
    from unjudged.strategies.bootstrap import _log_odds, _shifts, depth_shifts

    tails = np.cumsum(p[:, ::-1], axis=-1)[:, ::-1][:, 1:]
    threshold = _log_odds(tails)
    v = np.log(K.odds(keys, 2, 10, 10 + m))  # logistic variates
    v -= np.take(_shifts(topics, how, 10, 10 + m), rows, axis=1)
    v[:, deep] -= depth_shifts(2, 0.2, 10, 10 + m)[:, None]
    want_before = sum((v < threshold[None, :, r]).astype(np.int8) for r in range(2))
    v -= Shift().draws(2, 10, 10 + m)[:, None]
    want = sum((v < threshold[None, :, r]).astype(np.int8) for r in range(2))
    assert np.array_equal(before, want_before) and np.array_equal(got, want)
    assert (got != before).any()  # the run's shift moved some


@pytest.mark.parametrize("b", [1, 2, 3, 11, 1000, 10001])
def test_sorted_quantiles_are_numpys(b):
    """describe's quantiles read the sorted draws without partitioning them again: the same
    floats as np.quantile, NaN and infinite draws included."""
    from unjudged.strategies.summaries import sorted_quantiles

    rng = np.random.default_rng(b)
    levels = [0.05, 0.25, 0.5, 0.75, 0.9, 0.95, 0.0, 1.0, 0.025, 0.975]
    for x in (rng.random((30, b)), rng.integers(0, 5, (30, b)) / 7.0,
              np.where(rng.random((30, b)) < 0.02, np.nan, rng.random((30, b))),
              rng.choice([0.0, 1 / 3, 2 / 3, np.inf, -np.inf], (30, b))):
        ordered = np.sort(x, axis=-1)
        with np.errstate(invalid="ignore"):
            want = np.quantile(ordered, levels, axis=-1)
            got = sorted_quantiles(ordered, levels)
        assert np.array_equal(got, want, equal_nan=True)
