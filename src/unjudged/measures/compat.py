"""Compatibility (Clarke, Vtyurina & Smucker, TOIS 2021): rank-biased overlap with an ideal."""

from __future__ import annotations

import numpy as np

from unjudged.data.judged import PAD
from unjudged.measures._spec import MeasureSpec, Param, register


def _ideal_positions(j) -> np.ndarray:
    """Each retrieved relevant document's place (1-based) in the ideal ranking: all documents of
    grade > 0 by grade, best first, those of one grade in the run's order; 0 elsewhere."""
    g = j.grades
    top = int(max(j.pool.sorted_grades.max(initial=0), g.max(initial=0)))
    pos = np.zeros(g.shape, dtype=np.int64)
    for grade in range(1, top + 1):
        at = g == grade
        # counted by the pool (a grown pool lays out only its best grades, see
        # unjudged.strategies.growth), per topic and any leading sample axis
        better = np.broadcast_to(j.pool.num_rel(grade + 1), g.shape[:-1])[..., None]
        pos = np.where(at, better + np.cumsum(at, axis=-1), pos)
    return pos


def _sum_to(x: np.ndarray, depth: np.ndarray) -> np.ndarray:
    """x[..., :depth].sum(-1), added left to right: the same bits however wide the batch is
    (a sum over the batch's widest depth would group the additions differently)."""
    total = np.cumsum(x, axis=-1)
    at = np.clip(depth - 1, 0, None)[..., None]
    return np.where(depth > 0, np.take_along_axis(total, at, axis=-1)[..., 0], 0.0)


def compat(j, p=0.95, normalize=True):
    """RBO(run, ideal) over depth D = max(|run|, R): sum_{d<=D} p^(d-1) |run_d ∩ ideal_d| / d
    over sum_{d<=D} p^(d-1); normalised, over the same for the ideal ranking itself.

    Example:
        >>> from unjudged.io import read_qrels, read_run
        >>> from unjudged.data.judged import judge
        >>> j = judge(read_run({"t": {"a": 2.0, "b": 1.0}}), read_qrels({"t": {"a": 1}}))
        >>> round(float(compat(j, p=0.5)[0]), 6)  # overlap 1/1 at depth 1, 1/2 at depth 2
        1.0
    """
    g = j.grades
    nrel = np.broadcast_to(j.pool.num_rel(1), g.shape[:-1])
    ret = (g != PAD).sum(axis=-1)
    ideal = _ideal_positions(j)
    rank = np.arange(1, g.shape[-1] + 1)
    depth = np.maximum(ret, nrel)  # (..., n)
    # the depth from which the document is in both prefixes (none past D: filled-in grades,
    # as the strategies for unjudged documents make, can place it beyond the qrels' ideal)
    when = np.where(ideal > 0, np.maximum(ideal, rank), 0)
    when = np.where(when <= depth[..., None], when, 0)
    width = int(max(depth.max(initial=0), 1))
    rows = int(np.prod(g.shape[:-1]))
    flat = when.reshape(rows, -1)
    index = (np.arange(rows)[:, None] * (width + 1) + flat)[flat > 0]
    events = np.bincount(index, minlength=rows * (width + 1)).reshape(rows, width + 1)
    overlap = np.cumsum(events[:, 1:], axis=-1).reshape(g.shape[:-1] + (width,))
    d = np.arange(1, width + 1, dtype=np.float64)
    weight = np.where(d <= depth[..., None], float(p) ** (d - 1.0), 0.0)
    score = _sum_to(weight * overlap / d, depth)
    if normalize:
        best = _sum_to(weight * np.minimum(d, nrel[..., None]) / d, depth)
    else:
        best = _sum_to(weight, depth)
    return np.where(best > 0, score / np.where(best > 0, best, 1.0), 0.0)


register(MeasureSpec(
    "Compat", compat, "Compatibility: rank-biased overlap (persistence p) between the ranking "
    "and an ideal ranking of the documents of grade > 0 (by grade, ties in the run's order), to "
    "depth max(|run|, R); normalize=True divides by the ideal's own overlap with itself. Every "
    "document of grade > 0 counts, whatever rel level the policies set.",
    params=(Param("p", float, 0.95, "persistence", low=0, high=1, open_high=True),
            Param("normalize", bool, True, "divide by the ideal ranking's value")),
    monotone=False, guaranteed=False,
    citation="Clarke, Vtyurina & Smucker, TOIS 2021; ir_measures 0.4.3 compat provider"))
