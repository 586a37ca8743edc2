"""How much judging one document can move each run's score: per (run, candidate) the change of
the run's mean under a measure when the document turns out to be of each grade.

The effect of grade g is the measure with the document judged g minus the measure as the
rankings stand (unjudged documents non-relevant, as trec_eval scores them), divided by the
run's number of evaluated topics, so effects add up to changes of the run's mean. Normalisers
(ideal DCG, R) stay the pool's: judging one document hardly moves them, and Carterette, Allan
and Sitaraman's minimal test collections make the same simplification for AP.

Every measure is its own kernel applied to variants of each ranking, one variant per (rank,
grade), vectorised over topics: no measure needs a formula of its own.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from unjudged.measures import Measure
from unjudged.planning.universe import Universe

#: the deepest rank whose document a measure without cutoff (AP, uncut nDCG, bpref) is
#: planned for: deeper single documents move such a measure very little
PLAN_DEPTH = 100
_CELLS = 1 << 23  # grade cells per kernel call (variants x topics x depth)


@dataclass(frozen=True)
class Effects:
    """Per open candidate position within the measure's depth: `run`, `candidate` (indices)
    and `delta` (entries, levels), the change of the run's mean per grade."""

    measure: Measure
    run: np.ndarray
    candidate: np.ndarray
    delta: np.ndarray


def plan_depth(measure: Measure, depth: int | None = None) -> int:
    """The ranks of `measure` whose documents a plan considers: its cutoff, else `depth`
    (default PLAN_DEPTH)."""
    return measure.cutoff if measure.cutoff is not None else (depth or PLAN_DEPTH)


def effects(u: Universe, measure: Measure, depth: int | None = None,
            runs: np.ndarray | None = None) -> Effects:
    """The effects of every open candidate within `plan_depth(measure, depth)` of each run
    (only `runs`, indices, when given) on that run's mean."""
    d = plan_depth(measure, depth)
    r, t, k, c = u.entries(d, runs)
    levels = u.levels()
    delta = np.zeros((r.size, levels))
    for i in np.unique(r):
        sel = np.flatnonzero(r == i)
        delta[sel] = _run_effects(u, int(i), measure, t[sel], k[sel], levels)
    return Effects(measure, r.astype(np.int64), c, delta)


def _run_effects(u: Universe, run: int, measure: Measure, topic: np.ndarray, rank: np.ndarray,
                 levels: int) -> np.ndarray:
    """(len(topic), levels) effects of the positions (topic, rank) of one run."""
    j = u.judged[run]
    n_eval = max(int(u.evaluated[run].sum()), 1)
    base = measure.compute(j)  # (topics,)
    out = np.zeros((topic.size, levels))
    ranks = np.unique(rank)
    g = j.grades
    # variants: one per (rank, grade), every topic at once; a few ranks per kernel call
    per_call = max(1, _CELLS // max(1, g.size * levels))
    for lo in range(0, ranks.size, per_call):
        chunk = ranks[lo:lo + per_call]
        var = np.broadcast_to(g, (chunk.size, levels) + g.shape).copy()
        for a, k in enumerate(chunk):
            var[a, :, :, k] = np.arange(levels, dtype=g.dtype)[:, None]
        flat = var.reshape((-1,) + g.shape)  # kernels take one leading axis
        values = (measure.compute(j.with_grades(flat)) - base).reshape(chunk.size, levels, -1)
        where = np.searchsorted(chunk, rank)
        inside = (where < chunk.size) & (chunk[np.minimum(where, chunk.size - 1)] == rank)
        sel = np.flatnonzero(inside)
        out[sel] = values[where[sel], :, topic[sel]]
    out[~u.evaluated[run][topic]] = 0.0  # a topic the run is not scored on moves nothing
    return out / n_eval
