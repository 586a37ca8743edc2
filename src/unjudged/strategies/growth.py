"""Drawn relevant documents that add to the normaliser (the default with the pool and position
priors; `--no-grow` keeps the pool's).

The seed's bootstrap keeps every measure's normaliser (the ideal ranking, the number of relevant
documents) at the pool's: a drawn relevant document takes the place of a judged one the run did
not retrieve. But a collection judged further finds relevant documents the pool never saw, and
its normalisers grow: on a shallow pool nDCG and AP are then overestimated, whatever the prior.

With growth, every unjudged document that some run retrieves, at any rank, draws a
grade in each iteration, and the topic's normaliser in that iteration counts the judged
documents plus the drawn ones. The documents some run ranks within `exact_depth` (the depth the
measures read) draw exactly as in the runs (the same coupled draw: a function of seed, topic,
document and iteration), so a run's drawn relevant documents are among the ones its normaliser
counts. The deeper ones only add to the counts, and only their number matters: per (topic,
iteration and grade) it is a sum of independent Bernoulli variates whose probabilities the
iteration's shift of the prior moves together, drawn as a normal with that sum's mean and
variance (interpolated over the shift). On TREC-COVID round 1 (143 runs, every retrieved
document, b = 2,000) the counts' means agree with drawing every document to 1.6% and their
standard deviations to 5%, and building them takes 0.9 s instead of 18 s (b = 10,000: 1.4 s, in
two threads; depth 100 alone took 23 s). The sums are drawn in blocks of topics
(unjudged.strategies._sums: a loop per topic cost 12 ms a topic at b = 10,000); a topic whose
deep documents share a few probabilities (a run alone, whose prior is its topic's rate: one)
takes its sums' moments at each shift itself, exactly, instead of interpolating them. The
counts are the same for every run, so the runs stay comparable with each other in every
iteration; they are no longer comparable with scores computed on the pool alone.

Example:
    >>> from unjudged.io import read_qrels, read_run
    >>> from unjudged.strategies.bootstrap import Draw
    >>> q = read_qrels({"t": {"a": 1, "b": 0}})
    >>> runs = [read_run({"t": {"a": 3.0, "x": 2.0, "y": 1.0}}, name="r")]
    >>> model = PositionModel.build(runs, q)
    >>> g = Growth.build(model, q, Draw("pool", 0, np.zeros((1, 1), np.uint64)), levels=2,
    ...                  b=1000)
    >>> g.counts.shape, round(float(g.counts[:, 0, 1].mean()), 1)  # x, y relevant w.p. 1/2
    ((1000, 1, 2), 1.0)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from threading import Lock
from typing import TypeVar

import numpy as np

from unjudged.data._memory import check_fits
from unjudged.data._strings import index_codes
from unjudged.data.judged import Pool
from unjudged.data.qrels import Qrels
from unjudged.strategies._sums import blocks_of_sums
from unjudged.strategies.base import Drawing
from unjudged.strategies.bootstrap import (
    _CELLS,
    _log_odds,
    _shifts,
    depth_shifted,
    depth_shifts,
    pool_prior,
    requests,
)
from unjudged.strategies.fill import pool_counts
from unjudged.strategies.keys import combine, name_key, normals
from unjudged.strategies.position import PositionModel, topic_keys
from unjudged.strategies.priors import MODEL_PRIORS

T = TypeVar("T")
#: (rows,) -> (rows, levels) grade probabilities of the model's documents `rows`
Probabilities = Callable[[np.ndarray], np.ndarray]
_KEEP = 4  # pools Growth.pool keeps laid out
_KEEP_BYTES = 1 << 26  # and the bytes of their arrays at most (64 MiB: with many topics
#   no run asks for a kept pool again, 239 batches a run at 100,000 topics)


def _pool_bytes(pool: Pool) -> int:
    return pool.held_bytes if isinstance(pool, GrownPool) else pool.sorted_grades.nbytes


def unjudged_universe(model: PositionModel, qrels: Qrels, how: Drawing, levels: int
                      ) -> tuple[np.ndarray, Probabilities]:
    """Which of the model's documents are unjudged (what the normalisers grow by), and their
    grade probabilities under the prior (a function of the model's rows)."""
    judged = model.judged_keys(qrels)
    at = np.minimum(np.searchsorted(judged, model.keys), max(judged.size - 1, 0))
    known = (judged[at] == model.keys) if judged.size else np.zeros(model.keys.shape, bool)
    rates = None if how.prior in MODEL_PRIORS else \
        pool_prior(Pool.build(qrels, model.topics, "unjudged"), levels)

    def p_of(rows: np.ndarray) -> np.ndarray:
        """(rows, levels) grade probabilities of the documents `rows` of the model."""
        if rates is not None:
            return rates[model.topic[rows]]
        return model.probabilities(model.topic[rows].astype(np.int64), model.keys[rows],
                                   levels)

    return ~known, p_of


@dataclass(frozen=True)
class Expected:
    """Per topic, over the unjudged documents some run retrieves (what the normalisers grow
    by): the expected number of each grade, sum_u P_u(g), and the sums of the products of
    their grade probabilities, sum_u P_u(g) P_u(h), which give the variance of any per-grade
    function of them (the expected strategy's normalisers and their covariances). Both are
    held for every log-odds shift in `shifts` (the prior's uncertainty moves them all)."""

    topics: list[str]
    shifts: tuple[float, ...]
    counts: np.ndarray  # (shifts, topics, levels) float64
    outer: np.ndarray  # (shifts, topics, levels, levels) float64

    @classmethod
    def build(cls, model: PositionModel, qrels: Qrels, how: Drawing, levels: int,
              shifts: tuple[float, ...] = (0.0,)) -> Expected:
        todo, p_of = unjudged_universe(model, qrels, how, levels)
        rows = np.flatnonzero(todo)
        n = len(model.topics)
        counts = np.zeros((len(shifts), n, levels))
        outer = np.zeros((len(shifts), n, levels, levels))
        if rows.size:
            base, owner = p_of(rows), model.topic[rows]
            for i, d in enumerate(shifts):
                p = shift_grades(base, d)
                for g in range(levels):
                    counts[i, :, g] = np.bincount(owner, weights=p[:, g], minlength=n)
                    for h in range(levels):
                        outer[i, :, g, h] = np.bincount(owner, weights=p[:, g] * p[:, h],
                                                        minlength=n)
        return cls(model.topics, tuple(shifts), counts, outer)

    @cached_property
    def _topic_index(self) -> dict[str, int]:
        return {t: i for i, t in enumerate(self.topics)}

    def of(self, topics: list[str], levels: int, shift: float = 0.0
           ) -> tuple[np.ndarray, np.ndarray]:
        """(counts (len(topics), levels), outer (len(topics), levels, levels)) of `topics`
        at a log-odds shift it holds (0 for a topic it does not know, and for grades it
        does not hold)."""
        k = self.shifts.index(shift)
        codes = index_codes(self._topic_index, topics)
        counts, outer = np.zeros((len(topics), levels)), np.zeros((len(topics), levels, levels))
        w = min(levels, self.counts.shape[-1])
        known = codes >= 0
        counts[known, :w] = self.counts[k, codes[known], :w]
        outer[known, :w, :w] = self.outer[k, codes[known], :w, :w]
        return counts, outer


def shift_grades(p: np.ndarray, shift: float) -> np.ndarray:
    """Grade distributions (..., levels) with the log-odds of every tail P(grade >= g) moved
    by `shift`, as the bootstrap's prior uncertainty moves them.

    Example:
        >>> shift_grades(np.array([[0.5, 0.5]]), np.log(3.0)).round(4).tolist()
        [[0.25, 0.75]]
    """
    if shift == 0.0:
        return p
    tails = np.cumsum(p[..., ::-1], axis=-1)[..., ::-1][..., 1:]
    with np.errstate(divide="ignore", over="ignore"):
        moved = 1.0 / (1.0 + np.exp(-(_log_odds(tails) + shift)))
    moved = np.where(tails >= 1.0, 1.0, np.where(tails <= 0.0, 0.0, moved))
    full = np.concatenate([np.ones(p.shape[:-1] + (1,)), moved,
                           np.zeros(p.shape[:-1] + (1,))], axis=-1)
    return full[..., :-1] - full[..., 1:]


def _per_topic(draw: Callable[[int], None], topics: Iterable[int]) -> None:
    """draw(t) for every topic, two at a time: each writes its own topic's counts only, and
    numpy's array work releases the GIL (TREC-COVID round 1, b = 10,000: 2.4 s -> 1.4 s)."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(draw, topics))  # raises the first failure


def _sum_variates(names: tuple[str, ...], seed: int, b: int, levels: int, part: str = ""
                  ) -> np.ndarray:
    """(b, topics, grades >= 1) the standard normals of the growth's sums (of one `part` of
    the documents): functions of the seed and the topics' names only, so every run estimated
    alone draws the same (kept for the next run when small)."""
    if b * len(names) * (levels - 1) <= _CACHED:
        return _cached_variates(names, seed, b, levels, part)
    return _fresh_variates(names, seed, b, levels, part)


def _fresh_variates(names: tuple[str, ...], seed: int, b: int, levels: int, part: str = ""
                    ) -> np.ndarray:
    tk = topic_keys(list(names))
    return np.stack([normals(combine(tk, name_key("growth-sum" + part, g)), seed, 0, b)
                     for g in range(1, levels)], axis=-1)


@lru_cache(maxsize=4)
def _cached_variates(names: tuple[str, ...], seed: int, b: int, levels: int, part: str = ""
                     ) -> np.ndarray:
    out = _fresh_variates(names, seed, b, levels, part)
    out.setflags(write=False)
    return out


_CACHED = 1 << 21  # variates kept at most (16 MB)


@dataclass(frozen=True)
class Growth:
    """Per iteration and topic, how many unjudged documents (retrieved by some run) drew each
    grade."""

    topics: list[str]
    counts: np.ndarray  # (b, topics, levels) uint8, uint16 or int32 (what the counts need)
    #   (Growth.build's are a view of (levels, b, topics))
    # the last pools laid out: every run of an estimate asks for the same ones, batch by batch
    # (and runs on a thread executor ask at once: hence the lock)
    _pools: dict[tuple, Pool] = field(default_factory=dict, compare=False, repr=False)
    _lock: Lock = field(default_factory=Lock, compare=False, repr=False)

    @classmethod
    def build(cls, model: PositionModel, qrels: Qrels, how: Drawing, levels: int, b: int,
              exact_depth: int | None = None) -> Growth:
        """Counts of the unjudged documents some run retrieves, at any rank; those some run
        ranks within `exact_depth` (None: all) drawn one by one, the rest as a sum."""
        topics = model.topics
        todo, p_of = unjudged_universe(model, qrels, how, levels)
        exact = todo if exact_depth is None else todo & (model.best <= exact_depth)
        # a count never exceeds its topic's unjudged documents: the narrowest type that holds
        # them (100,000 topics x b = 1,000 x 3 grades: 0.3 GB in uint8, 1.2 GB in int32)
        most = int(np.bincount(model.topic[todo], minlength=1).max(initial=0))
        dtype = np.dtype(np.uint8 if most <= 255 else np.uint16 if most <= 65535 else np.int32)
        # the counts and a draw's temporaries of their size (-b 1000000000: 56 GiB)
        check_fits(float(b) * len(topics) * levels * (dtype.itemsize + 4),
                   f"-b {b} ({len(topics)} topics)")
        # held grade by grade, (levels, b, topics), and seen as (b, topics, levels): grade 0
        # is never drawn (it adds no document to a normaliser), and its plane of zeros, never
        # written, takes no memory (np.zeros' pages stay unmapped until written: 95 MiB at
        # 100,000 topics x b = 1,000)
        counts = np.zeros((levels, b, len(topics)), dtype=dtype).transpose(1, 2, 0)
        cls._draw_exact(counts, np.flatnonzero(exact), p_of, topics, model, how)
        cls._draw_sums(counts, np.flatnonzero(todo & ~exact), p_of, topics, model, how)
        return cls(topics, counts)

    @staticmethod
    def _draw_exact(counts: np.ndarray, rows: np.ndarray, p_of: Probabilities,
                    topics: list[str], model: PositionModel, how: Drawing) -> None:
        """Add each document's own coupled draw to its topic's counts."""
        b, _, levels = counts.shape
        keys, owner, p = model.keys[rows], model.topic[rows], p_of(rows)
        order = np.argsort(owner, kind="stable")
        keys, owner, p = keys[order], owner[order], p[order]
        # the model's own documents: their best rank is at hand (no lookup by key)
        deep = model.best[rows[order]] > model.support if depth_shifted(how, model) else None
        # vectorised over the documents of many topics at once (a loop per topic cost 1 ms a
        # topic: 100 s at 100,000 topics), in blocks of whole topics of about _CELLS / b
        # documents, so that no two blocks (drawn in two threads) write the same topic
        bounds = np.searchsorted(owner, np.arange(len(topics) + 1))
        cells = max(1, _CELLS // max(b, 1))
        cut = np.flatnonzero(np.diff(bounds[1:] // cells) != 0) + 1  # topics starting a block
        edges = np.unique(np.r_[0, cut, len(topics)])

        def draw(block: int) -> None:
            t0, t1 = int(edges[block]), int(edges[block + 1])
            a, z = int(bounds[t0]), int(bounds[t1])
            if z == a:
                return
            mine = owner[a:z]
            first = np.flatnonzero(np.r_[True, mine[1:] != mine[:-1]])
            ts = mine[first]  # the block's topics with documents, each once (owners sorted)
            iters = max(1, _CELLS // (z - a))
            # one request for every document and iteration (a run alone, a few runs): its
            # variates are kept, as the run's own samples draw the same documents again
            keep = edges.size == 2 and iters >= b
            for i0 in range(0, b, iters):
                i1 = min(b, i0 + iters)
                # the block's topics by name: the shifts of the same topics that the runs'
                # samples read (requests)
                got = requests(keys[a:z], p[a:z], topics[t0:t1], mine - t0, how, i0, i1,
                               keep=keep, deep=None if deep is None else deep[a:z])
                for g in range(1, levels):
                    # summed as int32 straight from the comparison (no int32 copy of it:
                    # 2.5x faster, the same counts)
                    per = np.add.reduceat(got == g, first, axis=1, dtype=np.int32)
                    counts[i0:i1, ts, g] += per.astype(counts.dtype)  # at most `most`

        _per_topic(draw, range(edges.size - 1))

    @staticmethod
    def _draw_sums(counts: np.ndarray, rows: np.ndarray, p_of: Probabilities,
                   topics: list[str], model: PositionModel, how: Drawing) -> None:
        """Add, per topic and iteration, how many of the documents `rows` take each grade g:
        a sum of Bernoulli variates with probabilities P(g | shift) (each grade's tail
        probability moved by the iteration's shift in log-odds), drawn as a normal of that
        sum's mean and variance, rounded, at least 0 (one variate per topic, iteration and
        grade: the small negative covariance between grades is left out), in blocks of
        topics (unjudged.strategies._sums). The deep documents (past the judged ones' ranks)
        are a sum of their own, moved by the iteration's depth shift too."""
        b, _, levels = counts.shape
        if rows.size == 0 or levels < 2:
            return
        deep = model.best[rows] > model.support if depth_shifted(how, model) else None
        parts = [(rows, "")] if deep is None or not deep.any() else \
            [(rows[~deep], ""), (rows[deep], "deep")]
        for part_rows, part in parts:
            Growth._draw_sum(counts, part_rows, p_of, topics, model, how, part)

    @staticmethod
    def _draw_sum(counts: np.ndarray, rows: np.ndarray, p_of: Probabilities,
                  topics: list[str], model: PositionModel, how: Drawing, part: str) -> None:
        """_draw_sums for one part of the documents ("deep": with the depth shift)."""
        b, _, levels = counts.shape
        if rows.size == 0:
            return
        present, owner = np.unique(model.topic[rows], return_inverse=True)
        logit = _log_odds(np.cumsum(p_of(rows)[:, ::-1], axis=-1)[:, ::-1][:, 1:])  # P(>= g)
        names = tuple(topics[t] for t in present.tolist())
        shifts = _shifts(list(names), how, 0, b) if how.spread or how.shared_spread else \
            np.zeros((b, present.size))
        if part:
            shifts = shifts + depth_shifts(how.seed, how.shared_spread, 0, b)[:, None]

        def variates(a: int, z: int) -> np.ndarray:
            return _sum_variates(names[a:z], how.seed, b, levels, part)

        for a, z, drawn in blocks_of_sums(logit, owner, shifts, variates):
            # at most the documents: the counts' type holds them
            span = _span(present[a:z])
            if span is not None:  # topics in a row (the usual case)
                np.add(counts[:, span, 1:], drawn, out=counts[:, span, 1:], casting="unsafe")
            else:
                counts[:, present[a:z], 1:] += drawn.astype(counts.dtype)

    def regrown(self, pool: Pool, got: np.ndarray, base: np.ndarray, rows: np.ndarray
                ) -> Pool:
        """A pool laid out by `pool` (a GrownPool of this growth) whose counts take the
        grades `got` instead of `base` ((iterations, cells) of topics `rows`): a run whose own
        shift (unjudged.strategies.misfit) drew its documents otherwise than the growth did
        counts them as it drew them."""
        counts = pool.counts  # type: ignore[attr-defined]
        n, width = counts.shape[1], counts.shape[-1]
        moved = np.flatnonzero(got != base)  # most draws agree: only these count
        if moved.size == 0:
            return pool
        # each cell's topic among the topics of the cells (each once)
        ts, local = np.unique(rows, return_inverse=True)
        k = ts.size
        it, cell = np.divmod(moved, rows.size)
        place = it * k + local[cell]  # the moved draws' (iteration, topic) cells
        # the cells a moved draw is in, each once (ascending), and each draw's among them; a
        # cell whose changes cancel keeps its counts (and its best grades)
        mark = np.zeros(got.shape[0] * k, dtype=bool)
        mark[place] = True
        cells = np.flatnonzero(mark)
        at = np.cumsum(mark, dtype=np.int64)[place] - 1
        # the net change of each of those cells' grade counts: the relevant grades only (grade
        # 0 adds no document), grades past the counts' last counted there; over the moved
        # cells alone, not every (iteration, topic)
        def counted(grades: np.ndarray) -> np.ndarray:
            g = np.minimum(grades.reshape(-1)[moved], width - 1)
            rel = g > 0
            return np.bincount(at[rel] * width + g[rel], minlength=cells.size * width)

        net = counted(got) - counted(base)
        hi, hk = np.divmod(cells, k)
        topic = ts[hk]
        old = counts[hi, topic]  # (cells, width), whatever the counts' layout
        new = old + net.reshape(-1, width)

        def total() -> np.ndarray:
            # copied only when read: nDCG at a cutoff reads the rows' codes alone
            out = counts.copy(order="K")
            out[hi, topic] = new
            out.setflags(write=False)
            return out

        # the best grades move only where a count of a grade or better crosses the depth laid
        # out (on a deep pool, rarely): only those cells are laid out again, and a topic whose
        # cells all stay shares what was computed from its best grades (its ideal DCG)
        depth = pool.laid_width  # type: ignore[attr-defined]
        shifted = np.flatnonzero(
            (_clipped_above(old, depth) != _clipped_above(new, depth)).any(axis=-1))
        same_best = np.ones(n, dtype=bool)
        coded = getattr(pool, "rows", None)
        laid = pool.sorted_grades if coded is None else None
        if shifted.size:
            same_best[topic[shifted]] = False
            if coded is None:
                laid = pool.sorted_grades.copy()
                laid[hi[shifted], topic[shifted]] = _laid_out(new[shifted], depth)
            else:
                # the moved cells' rows in the parent's table of every possible row: what is
                # computed from the best grades (the ideal DCG) is then read per row
                table, code = coded
                code = code.copy()
                code[hi[shifted], topic[shifted]] = _row_codes(new[shifted].T, depth)
                coded = (table, code)
        elif coded is not None:
            laid = pool.laid_so_far  # type: ignore[attr-defined]  # the parent's, if made
        return GrownPool(pool.topics, laid, pool.num_unjudged, total,  # type: ignore[arg-type]
                         parent=pool, same_best=same_best, rows=coded)  # type: ignore[arg-type]

    def __getstate__(self) -> dict:
        # workers lay out their own (and a lock does not travel)
        return {**self.__dict__, "_pools": {}, "_lock": None}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state, _lock=Lock())

    @cached_property
    def _topic_index(self) -> dict[str, int]:
        return {t: i for i, t in enumerate(self.topics)}

    def pool(self, base: Pool, i0: int, i1: int, width: int) -> Pool:
        """The pool of iterations i0..i1-1 for `base`'s topics, with a leading axis: its
        judged grades plus the drawn ones. Only the best `width` grades are laid out (what an
        ideal ranking of that depth reads); the counts answer the rest. The result is shared
        by every caller with the same topics and judgments: read it, do not write it."""
        key = (tuple(base.topics), i0, i1, width, base.sorted_grades.tobytes(),
               base.sorted_grades.shape, base.num_unjudged.tobytes())
        with self._lock:
            if key not in self._pools:
                pool = self._lay_out(base, i0, i1, width)
                self._pools[key] = pool
                # at most _KEEP pools and _KEEP_BYTES: with many topics a run's batches are
                # more than any cache holds, the next run asks for the first again, and
                # kept pools only take memory (4 x 60 MB at 100,000 topics x b = 1,000: 2 kept)
                while len(self._pools) > _KEEP or (len(self._pools) > 1 and sum(
                        _pool_bytes(p) for p in self._pools.values()) > _KEEP_BYTES):
                    del self._pools[next(iter(self._pools))]
            return self._pools[key]

    def _lay_out(self, base: Pool, i0: int, i1: int, width: int) -> Pool:
        rows = index_codes(self._topic_index, base.topics)
        levels = max(self.counts.shape[-1], int(base.sorted_grades.max(initial=0)) + 1)
        judged = pool_counts(base, levels).astype(np.int32)  # (n, levels)
        # held grade by grade, (levels, m, n), seen as (m, n, levels) (as the growth's own
        # counts): each grade's sum is one pass over contiguous planes, in int32 (a count
        # never exceeds a topic's documents), and the laid-out rows' codes read the planes
        planes = np.empty((levels, i1 - i0, judged.shape[0]), dtype=np.int32)
        have = self.counts.shape[-1]
        span = _span(rows)
        for g in range(levels):
            if g >= have:
                planes[g] = judged[:, g]
            elif span is not None:  # the growth's own topics in order (a batch of them)
                np.add(self.counts[i0:i1, span, g], judged[:, g], out=planes[g])
            else:
                grown = np.where(rows >= 0, self.counts[i0:i1, np.maximum(rows, 0), g], 0)
                np.add(grown, judged[:, g], out=planes[g])
        planes.setflags(write=False)
        total = planes.transpose(1, 2, 0)
        w = max(width, 1)
        coded = _laid_codes(planes, w)
        if coded is None:
            grades = _lay_rows(_above(total), w)
            grades.setflags(write=False)
            return GrownPool(base.topics, grades, base.num_unjudged, total)
        # the best grades themselves are laid out only when read (GrownPool.sorted_grades):
        # an ideal ranking at a cutoff reads the rows' table and codes alone
        return GrownPool(base.topics, None, base.num_unjudged, total,  # type: ignore[arg-type]
                         rows=coded)


def _span(index: np.ndarray) -> slice | None:
    """`index` as a slice when it counts up by one from 0 or more (a slice, not a gather:
    no copy of what it selects), else None."""
    if index.size == 0 or index[0] < 0 or int(index[-1]) - int(index[0]) != index.size - 1 \
            or (index.size > 1 and not (np.diff(index) == 1).all()):
        return None
    return slice(int(index[0]), int(index[0]) + index.size)


def _clipped_above(counts: np.ndarray, depth: int) -> np.ndarray:
    """(..., levels) how many documents of each grade or better, at most `depth`: what the
    best `depth` grades of counts (..., levels) are a function of."""
    return np.minimum(_above(counts), depth)


def _laid_out(counts: np.ndarray, width: int) -> np.ndarray:
    """(..., width) the best `width` grades, descending, of grade counts (..., levels); -1
    past the last document."""
    w = max(width, 1)
    # a row is a function of its counts of each grade or better, clipped to the width: when
    # those take few values (a shallow cutoff, a few grades), every possible row is laid out
    # once and each (iteration, topic) picks its own (one pass over the grades, not one per
    # grade and a mask; 3x faster on 100,000 topics x b = 1,000)
    coded = _laid_codes(np.moveaxis(counts, -1, 0), w)
    if coded is None:
        return _lay_rows(_above(counts), w)
    return _rows_of(coded)


def _rows_of(coded: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """(..., w) the rows of _laid_codes' table that the codes name."""
    table, code = coded
    # take, not table[code]: the same rows, 4x faster (fancy indexing of rows is slow)
    return np.take(table, code, axis=0)


def _laid_codes(planes: np.ndarray, w: int) -> tuple[np.ndarray, np.ndarray] | None:
    """(every possible laid-out row (codes, w), each row's code (...)) of the grade counts
    `planes` (levels, ...) when there are few possible rows, else None."""
    levels = planes.shape[0]
    combos = (w + 1) ** levels
    if combos > _TABLE or combos * w > planes.size:
        return None
    every = np.indices((w + 1,) * levels).reshape(levels, -1).T  # the codes' rows, in order
    return _lay_rows(every, w), _row_codes(planes, w)


def _row_codes(planes: np.ndarray, w: int) -> np.ndarray:
    """(...) the code in _laid_codes' table of each row of grade counts `planes` (levels,
    ...): sum over grades g of min(documents of grade g or better, w) (w + 1)^(levels - 1 -
    g), from the best grade down, one plane at a time."""
    levels = planes.shape[0]
    # in int32: codes stay below _TABLE, counts below a topic's documents (int64: 6x slower)
    above = planes[levels - 1].astype(np.int32)
    clipped = np.minimum(above, w)
    code = clipped.copy()
    scale = 1
    for g in range(levels - 2, -1, -1):
        scale *= w + 1
        above += planes[g]
        np.minimum(above, w, out=clipped)
        clipped *= scale
        code += clipped
    return code


_TABLE = 1 << 15  # possible rows of a laid-out table at most (nDCG@10 of grades 0-3: 11^4)


def _above(counts: np.ndarray) -> np.ndarray:
    """(..., levels) how many documents of each grade or better (one add per grade: a
    cumsum along a short last axis pays a loop per row)."""
    above = np.array(counts, dtype=np.int64)
    for g in range(counts.shape[-1] - 2, -1, -1):
        above[..., g] += above[..., g + 1]
    return above


def _lay_rows(above: np.ndarray, width: int) -> np.ndarray:
    pos = np.arange(width)
    grades = np.zeros(above.shape[:-1] + pos.shape, dtype=np.int32)
    for g in range(1, above.shape[-1]):
        grades += pos < above[..., g, None]
    grades[pos >= above[..., 0, None]] = -1
    return grades


@dataclass(eq=False)
class GrownPool(Pool):
    """A pool per iteration whose grade counts include drawn documents; `sorted_grades` holds
    only the best grades (see Growth.pool), so the counts come from `counts`.

    Both are made when first read, when given as None (`sorted_grades`, from `rows`) or as a
    function (`counts`): nDCG at a cutoff reads neither (only `rows`), and every run makes
    its own batches' pools (one int32 per iteration, topic and position: 17 MB a batch)."""

    grown: np.ndarray | Callable[[], np.ndarray] = field(
        default_factory=lambda: np.zeros((0, 0, 0), np.int64))
    # a pool regrown from `parent` (Growth.regrown) whose best grades are the parent's in the
    # topics `same_best`: there it shares what was computed from them (ideal_memo)
    parent: GrownPool | None = field(default=None, repr=False)
    same_best: np.ndarray | None = field(default=None, repr=False)
    _best: dict = field(default_factory=dict, repr=False)
    # (every possible row of sorted_grades, each (iteration, topic)'s row in it), when they
    # are few (_laid_codes): what is computed from the best grades is computed per row
    rows: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.parent is not None and self.same_best is not None and self.same_best.all():
            self._best = self.parent._best

    @property  # type: ignore[misc]
    def sorted_grades(self) -> np.ndarray:  # the dataclass field of Pool, laid out when read
        laid = self.laid_so_far
        if laid is None:
            if self.rows is None:
                raise ValueError("a grown pool without its best grades needs their rows")
            laid = _rows_of(self.rows)
            laid.setflags(write=False)
            self.__dict__["_laid"] = laid
        return laid

    @sorted_grades.setter
    def sorted_grades(self, value: np.ndarray | None) -> None:
        self.__dict__["_laid"] = value

    @property
    def laid_so_far(self) -> np.ndarray | None:
        """The best grades if they have been laid out, else None (without laying them out)."""
        return self.__dict__.get("_laid")

    @property
    def held_bytes(self) -> int:
        """The bytes of what this pool has made so far (what keeping it costs)."""
        arrays = [self.laid_so_far, self.grown, *(self.rows or ())]
        return sum(a.nbytes for a in arrays if isinstance(a, np.ndarray))

    @property
    def counts(self) -> np.ndarray:
        """(iterations, topics, levels) documents of each grade: judged plus drawn."""
        grown = self.grown  # read once: another thread may make it meanwhile (the same)
        if callable(grown):
            grown = grown()
            self.grown = grown
        return grown

    @property
    def laid_width(self) -> int:
        """How many best grades `sorted_grades` holds (without laying them out)."""
        return int(self.rows[0].shape[-1]) if self.rows is not None \
            else self.sorted_grades.shape[-1]

    def ideal_memo(self, depth: int, key: tuple, make: Callable[[], T],
                   of_rows: Callable[[np.ndarray], np.ndarray] | None = None) -> T:
        if depth > self.laid_width:  # read from the counts
            return self.memo(("ideal", depth, *key), make)
        k = (depth, *key)
        if k not in self._best:
            if of_rows is not None and self.rows is not None:
                # once per possible row, then each (iteration, topic) takes its row's: every
                # run recomputes its batch's pool, and this is most of it (a row's value is
                # the same whichever other rows it is computed with)
                table, code = self.rows
                self._best[k] = np.take(of_rows(table[:, :depth]), code)
            else:
                self._best[k] = make()
        return self._best[k]

    @property
    def ideal_width(self) -> int:
        # past the last document of grade > 0 in any iteration the ideal gains nothing
        return max(self.laid_width, int(self.num_rel(1).max(initial=0)))

    @property
    def num_judged(self) -> np.ndarray:
        return self.counts.sum(axis=-1)

    def num_rel(self, level: int) -> np.ndarray:
        return self.counts[..., max(level, 0):].sum(axis=-1)

    def ideal_grades(self, depth: int | None = None) -> np.ndarray:
        """The ideal ranking's grades to `depth`; None: to the last document of grade > 0 in
        any iteration (what uncut measures read: the grades below gain nothing)."""
        laid = self.sorted_grades
        need = int(self.num_rel(1).max(initial=0)) if depth is None else depth
        if need <= laid.shape[-1]:
            return laid if depth is None else laid[..., :depth]
        return _laid_out(self.counts, need)

    def topic_slice(self, a: int, b: int) -> Pool:
        # kept: measures slice a batch by topics, and every run's batch is this same pool;
        # what is made when read stays so
        def part() -> GrownPool:
            laid = self.laid_so_far
            grown = self.grown
            return GrownPool(
                self.topics[a:b],
                None if laid is None else laid[..., a:b, :],  # type: ignore[arg-type]
                self.num_unjudged[a:b],
                (lambda: self.counts[..., a:b, :]) if callable(grown) else grown[..., a:b, :],
                None if self.parent is None else self.parent.topic_slice(a, b),  # type: ignore[arg-type]
                None if self.same_best is None else self.same_best[a:b],
                rows=None if self.rows is None else (self.rows[0], self.rows[1][..., a:b]))

        return self.memo(("topics", a, b), part)
