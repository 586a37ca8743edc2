"""Bootstrapped score distributions under unjudged documents (seed 000, section 3.2).

In each of b iterations every unjudged document within the cutoff draws a grade from a prior;
the drawn grade takes one still-available pool document of that grade, or else the highest
available lower grade, 0 as the last resort. The pool's grade counts, and with them every
measure's normaliser, never change, so the samples stay comparable with fully judged runs.

Everything is vectorised over iterations, topics and positions. The fallback is resolved grade
level by grade level (a handful of levels) instead of document by document: at level r the
documents still asking for a grade >= r are served in rank order while documents of grade r
remain, which hands out exactly what walking the documents from the top would.

Randomness: every (run, topic) pair has its own stream, derived from the user's seed and the
pair's identity (names, not positions), so results never depend on batching, workers or
executor.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

import numpy as np

from unjudged.data.judged import Judged
from unjudged.strategies.fill import available, max_grade, pool_counts, ranking_counts, unknown
from unjudged.strategies.priors import PRIORS, check_prior

__all__ = ["PRIORS", "batches", "check_prior", "fill", "priors", "sample", "stream"]
_CELLS = 1 << 22  # sampled grade cells per batch (b x topics x depth), bounds memory


def stream(seed: int, run: str, topic: str) -> np.random.Generator:
    """The random stream of one (run, topic) pair: a function of the seed and the two names."""
    ident = [int.from_bytes(hashlib.blake2b(s.encode("utf-8"), digest_size=8).digest(), "little")
             for s in (run, topic)]
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=ident)))


def priors(judged: Judged, prior: str, levels: int) -> np.ndarray:
    """(n, levels) probability of each grade for the unjudged documents of each topic.

    pool: the grade distribution of the topic's judged documents; run: that of the ranking's
    judged documents (within the cutoff; the pool's when the ranking has none); pool+run: their
    average. A topic without any judged document draws 0.
    """
    check_prior(prior)
    pc = pool_counts(judged.pool, levels).astype(np.float64)
    rc = ranking_counts(judged.grades, levels).astype(np.float64)
    p_pool = _normalise(pc)
    p_run = np.where(rc.sum(axis=-1, keepdims=True) > 0, _normalise(rc), p_pool)
    return {"pool": p_pool, "run": p_run, "pool+run": (p_pool + p_run) / 2}[prior]


def _normalise(counts: np.ndarray) -> np.ndarray:
    total = counts.sum(axis=-1, keepdims=True)
    out = np.zeros_like(counts)
    out[..., 0] = 1.0  # no judged documents at all: grade 0
    np.divide(counts, total, out=out, where=total > 0)
    return out


def fill(requested: np.ndarray, miss: np.ndarray, avail: np.ndarray) -> np.ndarray:
    """Grades handed out for requested grades (..., n, k) at the unjudged positions `miss`
    (n, k), given the documents available per grade `avail` (n, levels). Level by level from
    the top: the documents still asking for >= r are served in rank order while grade r lasts."""
    rows, cols = np.nonzero(miss)
    lead = requested.shape[:-2]
    flat = requested[..., rows, cols].reshape(-1, rows.size)
    got = _fill_cells(flat, rows, avail)
    out = np.zeros(requested.shape, dtype=np.int16)
    out[..., rows, cols] = got.reshape(lead + (rows.size,))
    return out


def _fill_cells(requested: np.ndarray, rows: np.ndarray, avail: np.ndarray) -> np.ndarray:
    """fill() on the unjudged cells only: `requested` is (iterations, cells) with the cells
    of each topic (`rows`, non-decreasing) together and in rank order."""
    assigned = np.zeros(requested.shape, dtype=np.int16)
    if rows.size == 0:
        return assigned
    first = np.flatnonzero(np.r_[True, rows[1:] != rows[:-1]])  # where each topic's cells start
    start = np.repeat(first, np.diff(np.append(first, rows.size)))
    pending = np.ones(requested.shape, dtype=bool)
    for r in range(avail.shape[-1] - 1, 0, -1):
        want = pending & (requested >= r)
        if not want.any():
            continue
        rank = np.cumsum(want, axis=-1, dtype=np.int32)  # served in rank order, per topic
        before = np.zeros_like(rank)
        before[:, 1:] = rank[:, :-1]
        rank -= before[:, start]
        served = want & (rank <= avail[rows, r])
        assigned[served] = r
        pending &= ~served
    return assigned


def batches(n: int, b: int, k: int) -> Iterator[tuple[int, int, int, int]]:
    """(topic from, topic to, iteration from, iteration to) blocks of at most _CELLS cells."""
    per_topic = max(1, b * max(k, 1))
    topics = max(1, _CELLS // per_topic)
    iters = b if per_topic <= _CELLS else max(1, _CELLS // max(k, 1))
    for t0 in range(0, n, topics):
        for i0 in range(0, b, iters):
            yield t0, min(t0 + topics, n), i0, min(i0 + iters, b)


def sample(judged: Judged, prior: str, streams: list[np.random.Generator],
           t0: int, t1: int, i0: int, i1: int) -> Judged:
    """Iterations i0..i1-1 of topics t0..t1-1 as one batch with a leading sample axis.

    `judged` is already cut to the measure's cutoff; `streams` are the topics' generators,
    consumed in iteration order, so any split of the iterations gives the same draws. Only the
    unjudged cells are drawn and filled; the judged ones are copied.
    """
    part = judged.topic_slice(t0, t1)
    g = part.grades
    rows, cols = np.nonzero(unknown(g))  # topic by topic, in rank order
    levels = max_grade(judged.pool) + 1
    cdf = np.cumsum(priors(part, prior, levels), axis=-1)  # (n, levels)
    m = i1 - i0
    uniform = np.empty((m, rows.size))
    counts = np.bincount(rows, minlength=t1 - t0)
    at = 0
    for t, c in enumerate(counts.tolist()):
        if c:
            uniform[:, at:at + c] = streams[t0 + t].random((m, c))
            at += c
    requested = np.zeros((m, rows.size), dtype=np.int8)
    for r in range(levels - 1):  # grade = number of cumulative levels the draw reaches
        requested += uniform >= cdf[rows, r]
    grades = np.repeat(g[None], m, axis=0)
    grades[:, rows, cols] = _fill_cells(requested, rows, available(part, levels))
    return part.with_grades(grades)
