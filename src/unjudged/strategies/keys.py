"""Counter-based random numbers keyed by document: what couples the bootstrap's draws.

Within one bootstrap iteration a document retrieved by several runs must get the same grade in
every one of them. So the random number behind a document's grade is not taken from a stream
that belongs to a run: it is a hash of (seed, topic, docno, iteration). The same document in
another run, in another worker, in another batch of iterations gets the same number, and no
state has to travel between processes.

The hash is splitmix64's finaliser (a bijective mixer of 64-bit words) over a key that combines
the docno's 64-bit string hash, the topic's and the seed's; it passes the statistical tests it
is used for here (uniformity and independence of neighbouring counters) with a wide margin.

Example:
    >>> import pyarrow as pa
    >>> k = string_keys(pa.array(["d1", "d2", "d1"]))
    >>> bool(k[0] == k[2]), bool(k[0] == k[1])
    (True, False)
    >>> u = uniforms(k, seed=7, start=0, stop=4)
    >>> u.shape, bool((u[:, 0] == u[:, 2]).all()), bool(((u > 0) & (u < 1)).all())
    ((4, 3), True, True)
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from threading import Lock
from typing import Any

import numpy as np

from unjudged.data._strings import byte_rows

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_FNV_PRIME = np.uint64(0x100000001B3)
_FNV_BASIS = np.uint64(0xCBF29CE484222325)


def mix(x: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser, elementwise on uint64 (wrapping arithmetic)."""
    out = _mixed(np.array(x, dtype=np.uint64))
    return out[()] if out.ndim == 0 else out  # a scalar stays a scalar


def _mixed(x: np.ndarray) -> np.ndarray:
    """mix() in place on an array of its own (no temporary per step: 30% of the time)."""
    t = np.empty_like(x)
    with np.errstate(over="ignore"):
        np.right_shift(x, np.uint64(30), out=t)
        x ^= t
        x *= _M1
        np.right_shift(x, np.uint64(27), out=t)
        x ^= t
        x *= _M2
        np.right_shift(x, np.uint64(31), out=t)
        x ^= t
    return x


def name_key(*parts: str | int) -> np.uint64:
    """A 64-bit key of a few names (seed, topic, purpose): blake2b, so unrelated names never
    produce related keys."""
    text = "\x1f".join(str(p) for p in parts).encode("utf-8")
    return np.uint64(int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "little"))


def string_keys(values: Any) -> np.ndarray:
    """A 64-bit hash of each string of an Arrow string array (FNV-1a over its bytes, then
    mixed), vectorised over the strings: the loop runs over byte positions only."""
    mat, lengths = byte_rows(values)  # zero-padded bytes, through chunks and slices
    h = np.full(len(lengths), _FNV_BASIS, dtype=np.uint64)
    shortest = int(lengths.min(initial=0))
    with np.errstate(over="ignore"):
        for j in range(int(lengths.max(initial=0))):
            if j < shortest:  # every string has a byte here: in place, no gather
                np.bitwise_xor(h, mat[:, j], out=h)
                h *= _FNV_PRIME
                continue
            live = np.flatnonzero(lengths > j)
            h[live] = (h[live] ^ mat[live, j].astype(np.uint64)) * _FNV_PRIME
    return mix(h ^ lengths.astype(np.uint64))


def combine(a: np.ndarray | np.uint64, b: np.ndarray | np.uint64) -> np.ndarray:
    """One key from two (order matters)."""
    with np.errstate(over="ignore"):
        return mix(np.asarray(a, dtype=np.uint64) * _GOLDEN ^ np.asarray(b, dtype=np.uint64))


def distinct(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """np.unique(keys, return_index=True, return_inverse=True) of 1-D keys, by hashing: the
    sorted distinct keys, each one's first position and each key's index among them.

    np.unique sorts all the keys stably (0.9 s for the 3.1M open positions of TREC-COVID
    round 1's 143 runs, 462,711 distinct); a hash table numbers them in order of first
    appearance in 0.3 s, and only the distinct ones are sorted.

    Example:
        >>> [a.tolist() for a in distinct(np.array([5, 3, 5, 1], dtype=np.uint64))]
        [[1, 3, 5], [3, 1, 0], [2, 1, 2, 0]]
    """
    import pandas as pd

    codes, uniq = pd.factorize(keys)
    uniq = np.asarray(uniq, dtype=keys.dtype)
    if not codes.size:
        return uniq, np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
    # codes number the keys in order of first appearance: a key appears first where the
    # running maximum of the codes rises
    peak = np.maximum.accumulate(codes)
    rises = np.empty(codes.size, dtype=bool)
    rises[0] = True
    np.greater(peak[1:], peak[:-1], out=rises[1:])
    first = np.flatnonzero(rises)
    order = np.argsort(uniq, kind="stable")
    place = np.empty(order.size, dtype=np.intp)
    place[order] = np.arange(order.size)
    return uniq[order], first[order], place[codes]


#: elements of a block of variates worked at once: its temporaries stay in the cache (the
#: whole (iterations, keys) array at once streamed every one of some twenty steps through
#: memory: 1.4x slower). 1 << 17 (1 MiB an array) against 1 << 15: the 143-run estimate of
#: TREC-COVID round 1 (b = 10,000, -j 2) 0.95x the wall time; 1 << 16 and 1 << 18 slower
_BLOCK = 1 << 17


def row_blocks(rows: int, width: int) -> Iterator[tuple[int, int]]:
    """(from, to) row blocks of about _BLOCK elements of a (rows, width) array."""
    step = max(1, _BLOCK // max(width, 1))
    return ((a, min(rows, a + step)) for a in range(0, rows, step))


def _uniforms_into(keys: np.ndarray, seed: int, start: int, stop: int, out: np.ndarray,
                   ratio: bool = False) -> np.ndarray:
    """uniforms() (or with `ratio` their odds u / (1 - u)) into `out` (stop - start, keys),
    a block of rows at a time: every element takes the same steps as over the whole array,
    so the numbers are the same to the last bit."""
    base = combine(keys, name_key("unjudged-draw", seed))
    n = base.size
    if out.size == 0:
        return out
    rows = min(stop - start, max(1, _BLOCK // max(n, 1)))
    bits, t = np.empty((rows, n), dtype=np.uint64), np.empty((rows, n), dtype=np.uint64)
    tmp = np.empty((rows, n)) if ratio else None
    for a, z in row_blocks(stop - start, n):
        x, s = bits[:z - a], t[:z - a]
        steps = np.arange(start + a, start + z, dtype=np.uint64)[:, None]
        with np.errstate(over="ignore"):
            np.add(base[None, :], (steps + np.uint64(1)) * _GOLDEN, out=x)
            np.right_shift(x, np.uint64(30), out=s)
            x ^= s
            x *= _M1
            np.right_shift(x, np.uint64(27), out=s)
            x ^= s
            x *= _M2
            np.right_shift(x, np.uint64(31), out=s)
            x ^= s
        x >>= np.uint64(11)
        o = out[a:z]
        if tmp is None:
            np.copyto(o, x, casting="unsafe")  # astype(float64)
            o += 0.5
            o *= 1.0 / (1 << 53)
        else:
            u = tmp[:z - a]
            np.copyto(u, x, casting="unsafe")
            u += 0.5
            u *= 1.0 / (1 << 53)
            np.subtract(1.0, u, out=o)
            np.divide(u, o, out=o)
    return out


def uniforms(keys: np.ndarray, seed: int, start: int, stop: int) -> np.ndarray:
    """(stop - start, len(keys)) numbers in (0, 1): iteration i of key k is a function of
    (seed, k, i) only."""
    keys = np.asarray(keys, dtype=np.uint64)
    return _uniforms_into(keys, seed, start, stop, np.empty((max(stop - start, 0), keys.size)))


def odds(keys: np.ndarray, seed: int, start: int, stop: int, keep: bool = False) -> np.ndarray:
    """The odds u / (1 - u) of `uniforms`: their logarithms are standard logistic variates, and
    a grade is requested when the variate falls below the logit of its probability. The
    requests compare the odds with the probability's odds instead, times exp(-s) where the
    prior's uncertainty shifts every logit by s: the same comparison without a logarithm per
    variate (half the cost of drawing them; libm's log takes 10 ns a number here).

    With `keep`, the odds are also kept (one set, at most _KEPT_CELLS) for a later call
    of the same seed and iterations whose keys are all among them: a run estimated alone
    draws its documents for the grown normalisers and then again in its own samples.

    Example:
        >>> k = np.array([5, 3, 9], dtype=np.uint64)
        >>> a = odds(k, 1, 0, 4, keep=True)
        >>> bool((odds(k[[2, 0]], 1, 0, 4) == a[:, [2, 0]]).all()), bool((a > 0).all())
        (True, True)
    """
    keys = np.asarray(keys, dtype=np.uint64)
    kept = _kept(keys, seed, start, stop)
    if kept is not None:
        return kept
    out = _uniforms_into(keys, seed, start, stop, np.empty((max(stop - start, 0), keys.size)),
                         ratio=True)
    if keep and 0 < out.size <= _KEPT_CELLS:
        order = np.argsort(keys, kind="stable")
        with _kept_lock:
            _kept_set[:] = [(seed, start, stop, keys[order], out[:, order])]
    return out


_KEPT_CELLS = 1 << 22  # odds kept at most (32 MB)
_kept_set: list[tuple[int, int, int, np.ndarray, np.ndarray]] = []
_kept_lock = Lock()


def _kept(keys: np.ndarray, seed: int, start: int, stop: int) -> np.ndarray | None:
    """The kept odds of `keys` (a copy: callers shift them in place), or None when
    some key is not kept. They are a function of (seed, key, iteration) only: the same
    numbers a fresh computation gives."""
    with _kept_lock:
        if not _kept_set or keys.size == 0:
            return None
        s, a, z, known, values = _kept_set[0]
    if (s, a, z) != (seed, start, stop):
        return None
    at = np.minimum(np.searchsorted(known, keys), known.size - 1)
    if not (known[at] == keys).all():
        return None
    return values[:, at]


def normals(keys: np.ndarray, seed: int, start: int, stop: int) -> np.ndarray:
    """Standard normal variates (Box-Muller on two counter streams), (stop - start, keys)."""
    keys = np.asarray(keys, dtype=np.uint64)
    u1 = uniforms(keys, seed, start, stop)
    u2 = uniforms(combine(keys, np.uint64(2)), seed, start, stop)
    # sqrt(-2 log u1) cos(2 pi u2), in place
    np.log(u1, out=u1)
    u1 *= -2.0
    np.sqrt(u1, out=u1)
    u2 *= 2.0 * np.pi
    np.cos(u2, out=u2)
    u1 *= u2
    return u1
