"""Drawn relevant documents that add to the normaliser (`--grow`).

The seed's bootstrap keeps every measure's normaliser (the ideal ranking, the number of relevant
documents) at the pool's: a drawn relevant document takes the place of a judged one the run did
not retrieve. But a collection judged further finds relevant documents the pool never saw, and
its normalisers grow: on a shallow pool nDCG and AP are then overestimated, whatever the prior.

With growth, every unjudged document that some run retrieves within the top `depth` draws a
grade in each iteration (the same coupled draw as in the runs: a function of seed, topic,
document and iteration), and the topic's normaliser in that iteration counts the judged documents
plus the drawn ones. The counts are the same for every run, so the runs stay comparable with each
other in every iteration; they are no longer comparable with scores computed on the pool alone.

Example:
    >>> from unjudged.io import read_qrels, read_run
    >>> from unjudged.strategies.bootstrap import Draw
    >>> q = read_qrels({"t": {"a": 1, "b": 0}})
    >>> runs = [read_run({"t": {"a": 3.0, "x": 2.0, "y": 1.0}}, name="r")]
    >>> model = PositionModel.build(runs, q)
    >>> g = Growth.build(model, q, Draw("pool", 0, np.zeros((1, 1), np.uint64)), levels=2,
    ...                  depth=10, b=1000)
    >>> g.counts.shape, round(float(g.counts[:, 0, 1].mean()), 1)  # x, y relevant w.p. 1/2
    ((1000, 1, 2), 1.0)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from unjudged.data._strings import index_codes
from unjudged.data.judged import Pool
from unjudged.data.qrels import Qrels
from unjudged.strategies.base import Drawing
from unjudged.strategies.bootstrap import _CELLS, pool_prior, requests
from unjudged.strategies.position import PositionModel


@dataclass(frozen=True)
class Growth:
    """Per iteration and topic, how many unjudged documents (retrieved by some run within
    `depth`) drew each grade."""

    topics: list[str]
    counts: np.ndarray  # (b, topics, levels) int32
    depth: int

    @classmethod
    def build(cls, model: PositionModel, qrels: Qrels, how: Drawing, levels: int, depth: int,
              b: int) -> Growth:
        topics = model.topics
        judged = model.judged_keys(qrels)
        at = np.minimum(np.searchsorted(judged, model.keys), max(judged.size - 1, 0))
        known = (judged[at] == model.keys) if judged.size else np.zeros(model.keys.shape, bool)
        todo = ~known & (model.best <= depth)
        keys, owner = model.keys[todo], model.topic[todo]
        if how.prior == "position":
            p = model.probabilities(owner.astype(np.int64), keys, levels)
        else:
            p = pool_prior(Pool.build(qrels, topics, "unjudged"), levels)[owner]
        counts = np.zeros((b, len(topics), levels), dtype=np.int32)
        order = np.argsort(owner, kind="stable")
        keys, owner, p = keys[order], owner[order], p[order]
        bounds = np.searchsorted(owner, np.arange(len(topics) + 1))
        for t in range(len(topics)):  # a loop per topic, vectorised over documents and draws
            a, z = int(bounds[t]), int(bounds[t + 1])
            if a == z:
                continue
            step = max(1, _CELLS // (z - a))
            for i0 in range(0, b, step):
                i1 = min(b, i0 + step)
                got = requests(keys[a:z], p[a:z], [topics[t]], np.zeros(z - a, np.int64), how,
                               i0, i1)
                for g in range(1, levels):
                    counts[i0:i1, t, g] = (got == g).sum(axis=-1)
        return cls(topics, counts, depth)

    @cached_property
    def _topic_index(self) -> dict[str, int]:
        return {t: i for i, t in enumerate(self.topics)}

    def pool(self, base: Pool, i0: int, i1: int, width: int) -> Pool:
        """The pool of iterations i0..i1-1 for `base`'s topics, with a leading axis: its
        judged grades plus the drawn ones. Only the best `width` grades are laid out (what an
        ideal ranking of that depth reads); the counts answer the rest."""
        rows = index_codes(self._topic_index, base.topics)
        levels = max(self.counts.shape[-1], int(base.sorted_grades.max(initial=0)) + 1)
        judged = np.stack([(base.sorted_grades == g).sum(axis=-1) for g in range(levels)],
                          axis=-1)  # (n, levels)
        drawn = np.zeros((i1 - i0,) + judged.shape, dtype=np.int64)
        have = self.counts.shape[-1]
        drawn[..., :have] = np.where(rows[None, :, None] >= 0,
                                     self.counts[i0:i1, np.maximum(rows, 0)], 0)
        total = judged[None] + drawn  # (m, n, levels)
        above = np.cumsum(total[..., ::-1], axis=-1)[..., ::-1]  # grade >= g
        pos = np.arange(max(width, 1))
        grades = np.zeros(total.shape[:-1] + pos.shape, dtype=np.int32)
        for g in range(1, levels):
            grades += pos < above[..., g, None]
        grades[pos >= above[..., 0, None]] = -1
        return GrownPool(base.topics, grades, base.num_unjudged, total)


@dataclass(eq=False)
class GrownPool(Pool):
    """A pool per iteration whose grade counts include drawn documents; `sorted_grades` holds
    only the best grades (see Growth.pool), so the counts come from `counts`."""

    counts: np.ndarray = field(default_factory=lambda: np.zeros((0, 0, 0), np.int64))

    @property
    def num_judged(self) -> np.ndarray:
        return self.counts.sum(axis=-1)

    def num_rel(self, level: int) -> np.ndarray:
        return self.counts[..., max(level, 0):].sum(axis=-1)

    def topic_slice(self, a: int, b: int) -> Pool:
        return GrownPool(self.topics[a:b], self.sorted_grades[..., a:b, :],
                         self.num_unjudged[a:b], self.counts[..., a:b, :])
