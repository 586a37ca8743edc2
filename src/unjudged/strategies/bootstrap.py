"""Bootstrapped score distributions under unjudged documents (seed 000, section 3.2).

In each of b iterations every unjudged document within the cutoff draws a grade from a prior;
the drawn grade takes one still-available pool document of that grade, or else the highest
available lower grade, 0 as the last resort. The pool's grade counts, and with them every
measure's normaliser, never change, so the samples stay comparable with fully judged runs.

Everything is vectorised over iterations, topics and positions. The fallback is resolved grade
level by grade level (a handful of levels) instead of document by document: at level r the
documents still asking for a grade >= r are served in rank order while documents of grade r
remain, which hands out exactly what walking the documents from the top would.

Randomness (coupled draws): the random number behind an unjudged document's grade in an
iteration is a hash of (seed, topic, docno, iteration) (`unjudged.strategies.keys`), so within
one iteration a document retrieved by several runs requests the same grade in each of them
(under a prior that depends on the document, not on the run: pool, position), and results never
depend on batching, workers or executor. `stream` gives the per-(run, topic) generators that
other random procedures (sampling judgments) use.

The prior's own uncertainty: with `spread` and `shared_spread`, every log-odds of the prior is
shifted in each iteration by a normal variate per topic and one shared by all topics. The
draws of one topic then move together (a topic whose unjudged documents are likelier relevant
than the prior says), and so do all topics (a prior misspecified for the whole collection),
which a run-level interval must not average away.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, replace
from threading import Lock
from typing import TYPE_CHECKING, Literal, overload

import numpy as np

from unjudged.data.judged import Judged, Pool
from unjudged.errors import InvalidOptionError
from unjudged.strategies.base import Drawing
from unjudged.strategies.fill import available, max_grade, pool_counts, ranking_counts, unknown
from unjudged.strategies.keys import combine, name_key, normals, odds, row_blocks, uniforms
from unjudged.strategies.position import PositionModel, topic_keys
from unjudged.strategies.priors import MODEL_PRIORS, PRIORS, check_prior
from unjudged.strategies.rows import SampledBatch, distinct_rows

if TYPE_CHECKING:
    from unjudged.strategies.growth import Growth
    from unjudged.strategies.misfit import RunShift

__all__ = ["PRIORS", "Draw", "batches", "check_prior", "fill", "priors", "sample", "samples",
           "stream"]
_CELLS = 1 << 22  # sampled grade cells per batch (b x topics x depth), bounds memory
#: the sd of the deep documents' extra shift, in units of shared_spread (depth_shifts)
DEPTH_SPREAD = 3.0


def stream(seed: int, run: str, topic: str) -> np.random.Generator:
    """The random stream of one (run, topic) pair: a function of the seed and the two names."""
    ident = [int.from_bytes(hashlib.blake2b(s.encode("utf-8"), digest_size=8).digest(), "little")
             for s in (run, topic)]
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=ident)))


def priors(judged: Judged, prior: str, levels: int, empty_run: str = "pool") -> np.ndarray:
    """(n, levels) probability of each grade for the unjudged documents of each topic.

    pool: the grade distribution of the topic's judged documents; run: that of the ranking's
    judged documents (within the cutoff; when the ranking has none, the pool's, or grade 0
    with `empty_run` "zero", as the seed authors' code does); pool+run: their average. A topic
    without any judged document draws 0.
    """
    check_prior(prior)
    rc = ranking_counts(judged.grades, levels).astype(np.float64)
    p_pool = pool_prior(judged.pool, levels)
    fallback = p_pool if empty_run == "pool" else _normalise(np.zeros_like(p_pool))
    p_run = np.where(rc.sum(axis=-1, keepdims=True) > 0, _normalise(rc), fallback)
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
    pending = np.ones(requested.shape, dtype=bool)
    cells = np.bincount(rows, minlength=avail.shape[0])[rows]  # its topic's unjudged cells
    for r in range(avail.shape[-1] - 1, 0, -1):
        want = pending & (requested >= r)
        # only where grade r may run out are the requests counted (rank order, per topic)
        tight = np.flatnonzero(cells > avail[rows, r])
        if tight.size and want.any():
            sub, at = want[:, tight], rows[tight]
            first = np.flatnonzero(np.r_[True, at[1:] != at[:-1]])  # each topic's first cell
            start = np.repeat(first, np.diff(np.append(first, at.size)))
            rank = np.cumsum(sub, axis=-1, dtype=np.int32)
            before = np.zeros_like(rank)
            before[:, 1:] = rank[:, :-1]
            rank -= before[:, start]
            want[:, tight] = sub & (rank <= avail[at, r])
        assigned[want] = r  # served
        pending &= ~want
    return assigned


def batches(n: int, b: int, k: int) -> Iterator[tuple[int, int, int, int]]:
    """(topic from, topic to, iteration from, iteration to) blocks of at most _CELLS cells."""
    per_topic = max(1, b * max(k, 1))
    topics = max(1, _CELLS // per_topic)
    iters = b if per_topic <= _CELLS else max(1, _CELLS // max(k, 1))
    for t0 in range(0, n, topics):
        for i0 in range(0, b, iters):
            yield t0, min(t0 + topics, n), i0, min(i0 + iters, b)


@dataclass(frozen=True)
class Draw:
    """How one run's unjudged documents draw their grades: the prior, its uncertainty, the
    seed, and the documents' keys (which couple the draws across runs)."""

    prior: str
    seed: int
    keys: np.ndarray  # (n, depth) key of each ranked (topic, document); see strategies.keys
    model: PositionModel | None = None  # the position prior's model (prior "position")
    spread: float = 0.0  # sd of a per-(topic, iteration) shift of every log-odds
    shared_spread: float = 0.0  # sd of a per-iteration shift shared by every topic
    empty_run: str = "pool"  # the run prior of a ranking without judged documents
    growth: Growth | None = None  # drawn documents that add to the normaliser
    run_shift: RunShift | None = None  # the run's misfit (unjudged.strategies.misfit)


def sample(judged: Judged, how: Draw, t0: int, t1: int, i0: int, i1: int,
           capped: bool = True) -> Judged:
    """Iterations i0..i1-1 of topics t0..t1-1 as one batch with a leading sample axis.

    `judged` is already cut to the measure's cutoff. Each unjudged document requests the
    grades whose log-odds under the prior (shifted by this iteration's uncertainty) exceed
    its logistic variate (compared in odds: requests()), a function of (seed, topic,
    document, iteration) only: the same document gets the same request in every run, batch
    and worker. The requests are then served from the grades the pool still has (`fill`), or
    kept as drawn: when not `capped` (for measures without a normaliser), or with
    `how.growth`, which adds them to the normaliser. The judged cells are copied.
    """
    return samples(judged, how, t0, t1, i0, i1, (capped,))[capped]


def samples(judged: Judged, how: Draw, t0: int, t1: int, i0: int, i1: int,
            kinds: tuple[bool, ...] = (True,)) -> dict[bool, Judged]:
    """sample() for each of `kinds` (capped or not) from one set of requests."""
    part = judged.topic_slice(t0, t1)
    g = part.grades
    rows, cols = np.nonzero(unknown(g))  # topic by topic, in rank order
    levels = max_grade(judged.pool) + 1
    if how.growth is not None:
        levels = max(levels, how.growth.counts.shape[-1])
    m = i1 - i0
    pool = how.growth.pool(part.pool, i0, i1, g.shape[-1]) if how.growth is not None else None
    got = None
    if rows.size:
        keys = how.keys[t0:t1][rows, cols]
        p = cell_probabilities(part, how, how.model, rows, keys, levels)
        model = how.model
        deep = model.deep(keys) if model is not None and depth_shifted(how, model) else None
        if pool is not None and how.growth is not None and how.run_shift is not None:
            # the grown normalisers counted these documents as drawn without the run's shift:
            # count them as this run draws them, so its relevant documents are all in its
            # normaliser
            got, base = requests(keys, p, part.topics, rows, how, i0, i1, unshifted=True,
                                 deep=deep)
            pool = how.growth.regrown(pool, got, base, rows)
        else:
            got = requests(keys, p, part.topics, rows, how, i0, i1, deep=deep)
    out: dict[bool, Judged] = {}
    for capped in kinds:
        grades = np.repeat(g[None], m, axis=0)
        served = None
        if got is not None:
            served = _served(got, rows, part, levels, capped, pool is not None)
            grades[:, rows, cols] = served
        if type(part) is Judged:
            # the batch's few distinct rankings, for kernels of a ranking alone
            # (strategies.rows)
            out[capped] = SampledBatch(part.run_name, part.topics, grades, part.length,
                                       part.pool if pool is None else pool, part.retrieved,
                                       part.policies, distinct_rows(g, grades, rows, cols,
                                                                    served, levels))
        else:  # a batch with more per document (subtopics) keeps its own kind
            batch = part.with_grades(grades)
            out[capped] = batch if pool is None else replace(batch, pool=pool)
    return out


def cell_probabilities(part: Judged, how: Drawing, model: PositionModel | None,
                       rows: np.ndarray, keys: np.ndarray, levels: int) -> np.ndarray:
    """(cells, levels) the prior's grade probabilities of the unjudged documents `keys`
    (of topics part.topics[rows]): the model's for the position and estimates priors, the
    topic's (or ranking's) grade distribution for the others."""
    if how.prior in MODEL_PRIORS:
        if model is None:
            raise InvalidOptionError(f"the {how.prior} prior needs a model of the runs")
        return model.probabilities(model.topic_codes(part.topics)[rows], keys, levels)
    return priors(part, how.prior, levels, how.empty_run)[rows]


def _served(got: np.ndarray, rows: np.ndarray, part: Judged, levels: int, capped: bool,
            grown: bool) -> np.ndarray:
    """The grades the requests `got` receive: all of them when the normalisers grow with the
    drawn documents; what the pool still has when capped; else as drawn, at most the topic's
    highest judged grade (at least 1), the scale its graded gains divide by."""
    if grown:
        return got
    if capped:
        return _fill_cells(got, rows, available(part, levels))
    return np.minimum(got, np.maximum(part.pool.top_grade, 1)[rows])


@overload
def requests(keys: np.ndarray, p: np.ndarray, topics: list[str], rows: np.ndarray,
             how: Drawing, i0: int, i1: int, unshifted: Literal[False] = ...,
             keep: bool = ..., deep: np.ndarray | None = ...) -> np.ndarray: ...


@overload
def requests(keys: np.ndarray, p: np.ndarray, topics: list[str], rows: np.ndarray,
             how: Drawing, i0: int, i1: int, unshifted: Literal[True], keep: bool = ...,
             deep: np.ndarray | None = ...
             ) -> tuple[np.ndarray, np.ndarray]: ...


def requests(keys: np.ndarray, p: np.ndarray, topics: list[str], rows: np.ndarray,
             how: Drawing, i0: int, i1: int, unshifted: bool = False, keep: bool = False,
             deep: np.ndarray | None = None) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """(i1 - i0, cells) grade requested by each document `keys` (of topic topics[rows]) with
    grade probabilities `p` (cells, levels) in iterations i0..i1-1; with `unshifted`, also
    the grades requested without the run's own shift (from the same variates). `keep` keeps
    the variates for a later request of the same documents (unjudged.strategies.keys). The
    cells `deep` (where the prior extrapolates) take the iteration's depth shift too."""
    tails = np.cumsum(p[:, ::-1], axis=-1)[:, ::-1][:, 1:]  # (cells, grades >= 1)
    run_shift = getattr(how, "run_shift", None)
    if not (how.spread or how.shared_spread or run_shift is not None):
        # the same comparison without the logarithms: u < P(grade >= g)
        plain = _grades(uniforms(keys, how.seed, i0, i1), tails)
        return (plain, plain) if unshifted else plain
    # in log-odds the prior's uncertainty shifts every threshold: a variate log(r) moved by
    # -s falls below the log-odds log(o) exactly where r * exp(-s) < o. Compared in odds, so
    # that no variate needs a logarithm (the shifts' factors are a few per iteration)
    threshold = _odds(tails)
    ratio = odds(keys, how.seed, i0, i1, keep)  # (m, cells)
    topic_factor, at = None, rows
    if how.spread or how.shared_spread:
        # a topic's shifts are a function of its name: the same whichever others are
        # drawn. All the topics' when most have unjudged documents (the table every run
        # of the same topics shares: _shift_table keeps it), else those only
        used = np.flatnonzero(np.bincount(rows, minlength=len(topics)))
        if 2 * used.size >= len(topics):
            topic_factor, at = _shift_factors(topics, how, i0, i1), rows
        else:
            topic_factor = _shift_factors([topics[t] for t in used.tolist()], how, i0, i1)
            at = np.searchsorted(used, rows)
    depth = np.exp(-depth_shifts(how.seed, how.shared_spread, i0, i1)) \
        if deep is not None and how.shared_spread and deep.any() else None
    moved = np.exp(-run_shift.draws(how.seed, i0, i1)) if run_shift is not None else None
    got = np.zeros(ratio.shape, dtype=np.int8)
    before = np.zeros(ratio.shape, dtype=np.int8) if unshifted and moved is not None \
        else None
    # a block of iterations at a time (the same steps for every element: the same numbers)
    # so that the odds stay in the cache from one step to the next
    for a, z in row_blocks(ratio.shape[0], ratio.shape[1]):
        v = ratio[a:z]
        if topic_factor is not None:
            v *= np.take(topic_factor[a:z], at, axis=1)
        if depth is not None:
            v[:, deep] *= depth[a:z, None]
        if moved is not None:
            if before is not None:
                _grades(v, threshold, before[a:z])
            v *= moved[a:z, None]
        _grades(v, threshold, got[a:z])
    if unshifted:
        return got, got if before is None else before
    return got


def _grades(variate: np.ndarray, threshold: np.ndarray, out: np.ndarray | None = None
            ) -> np.ndarray:
    """(m, cells) the number of upper tails (odds or probabilities `threshold`, (cells,
    grades >= 1)) each variate falls within: the grade it requests (added to `out`, zeros,
    when given)."""
    got = np.zeros(variate.shape, dtype=np.int8) if out is None else out
    for r in range(threshold.shape[-1]):
        got += variate < threshold[None, :, r]
    return got


#: P(Poisson(1) <= k) for k = 0..15: the topic bootstrap's weights by inverse CDF
_POISSON_CDF = np.cumsum([np.exp(-1.0) / float(np.prod(np.arange(1, k + 1)))
                          for k in range(16)])


def topic_weights(topics: list[str], seed: int, b: int) -> np.ndarray:
    """(b, topics) how often each topic counts in each iteration of a bootstrap over topics:
    independent Poisson(1) counts (the Poisson bootstrap), each a function of the seed, the
    topic's name and the iteration only, so that every run sees the same resample of the topics
    it shares with the others (coupled, and independent of the other runs).

    Example:
        >>> w = topic_weights([str(t) for t in range(200)], 0, 400)
        >>> round(float(w.mean()), 1), round(float(w.var()), 1)
        (1.0, 1.0)
    """
    tk = combine(topic_keys(topics), name_key("topic-bootstrap"))
    u = uniforms(tk, seed, 0, b)
    return np.searchsorted(_POISSON_CDF, u).astype(np.float64)


def pool_prior(pool: Pool, levels: int) -> np.ndarray:
    """(n, levels) the pool prior: the grade distribution of each topic's judged documents."""
    return _normalise(pool_counts(pool, levels).astype(np.float64))


def _log_odds(p: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return np.log(p) - np.log1p(-np.minimum(p, 1.0))


def _odds(p: np.ndarray) -> np.ndarray:
    """p / (1 - p): infinite where p is 1 (every odds falls below), 0 where p is 0 (none)."""
    with np.errstate(divide="ignore"):
        return p / (1.0 - np.minimum(p, 1.0))


def _shifts(topics: list[str], how: Drawing, i0: int, i1: int) -> np.ndarray:
    """(iterations, topics) shift of every log-odds: the prior's uncertainty, one normal
    variate per (topic, iteration) and one per iteration shared by all topics, both functions
    of the seed and the names only (every run sees the same shifts)."""
    return _shift_table(tuple(topics), how.seed, how.spread, how.shared_spread, i0, i1)


def _shift_factors(topics: list[str], how: Drawing, i0: int, i1: int) -> np.ndarray:
    """exp(-_shifts()): the factor by which each shift moves a document's odds (kept beside
    the shifts: every run asks for the same)."""
    return _shift_table(tuple(topics), how.seed, how.spread, how.shared_spread, i0, i1,
                        factors=True)


def depth_shifts(seed: int, shared_spread: float, i0: int, i1: int) -> np.ndarray:
    """(i1 - i0,) the depth shift: an extra log-odds shift of the documents past the judged
    ones' ranks (PositionModel.deep), one normal variate per iteration shared by every topic
    and run, of sd DEPTH_SPREAD x shared_spread. How wrong the prior is where it extrapolates
    is one fact of the collection: the deep documents' true log-odds misfit was +0.5, +0.9,
    +0.5 and +1.7 on Cranfield, CACM, CISI and NPL, -2.6 on TREC-COVID round 1 (its complete
    qrels; docs/unjudged-documents.md)."""
    z = normals(np.array([name_key("depth-shift")], dtype=np.uint64), seed, i0, i1)[:, 0]
    return DEPTH_SPREAD * shared_spread * z


def depth_shifted(how: Drawing, model: PositionModel | None) -> bool:
    """Whether documents past the model's support take the depth shift: under the position
    prior with a shared spread (the estimates prior does not extrapolate by depth)."""
    return model is not None and bool(how.shared_spread) and how.prior == "position"


def _shift_table(topics: tuple[str, ...], seed: int, spread: float, shared_spread: float,
                 i0: int, i1: int, factors: bool = False) -> np.ndarray:
    # kept: every run of an estimate asks for the same table, batch by batch; at most
    # _TABLES tables and _TABLE_BYTES (the growth's blocks of 1,400 topics at b = 1,000 kept
    # 16 tables of 11 MB that no run asked for again: 180 MB at the peak of 100,000 topics)
    key = (topics, seed, spread, shared_spread, i0, i1, factors)
    with _tables_lock:
        if key in _tables:
            _tables.move_to_end(key)
            return _tables[key]
    if factors:
        out = np.negative(_shift_table(topics, seed, spread, shared_spread, i0, i1))
        np.exp(out, out=out)
    else:
        tk = combine(topic_keys(topics), name_key("topic-spread"))
        out = normals(tk, seed, i0, i1)
        out *= spread  # in place: the same products, no second table
        if shared_spread:
            shared = normals(np.array([name_key("shared-spread")], np.uint64), seed, i0, i1)
            out += shared_spread * shared
    out.setflags(write=False)
    with _tables_lock:
        _tables[key] = out
        while len(_tables) > _TABLES or (len(_tables) > 1 and sum(
                t.nbytes for t in _tables.values()) > _TABLE_BYTES):
            _tables.popitem(last=False)
    return out


_TABLES, _TABLE_BYTES = 16, 1 << 25  # shift tables kept at most, and their bytes (32 MiB)
_tables: OrderedDict[tuple, np.ndarray] = OrderedDict()
_tables_lock = Lock()
