"""How much of each ranking is judged: per rank band, how deep, and what judging would cost.

A run that contributed to the pool is judged to (at least) the pool depth on every topic; a
new run is not, and the documents it would add to the judging queue say how far its scores can
be trusted. Coverage reads the rankings as the evaluation does (same tie-breaking and topics).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import cast

import numpy as np
import pyarrow as pa

from unjudged.data._strings import arrow_of
from unjudged.data.judged import PAD, Pool, evaluated_topics, judge
from unjudged.data.qrels import Qrels
from unjudged.data.run import Run
from unjudged.engine.score import run_objects
from unjudged.errors import InvalidOptionError, shown
from unjudged.io.qrels import read_qrels
from unjudged.judgments.pools import JudgingPool, build_pool
from unjudged.policies import Policies, whole_number

BANDS = ((1, 5), (6, 10), (11, 20), (21, 50), (51, 100))


@dataclass(eq=False)
class RunCoverage:
    """One run's coverage over its evaluated topics.

    band_judged: fraction of the documents at each band's ranks that are judged (all topics'
    documents together); by_rank: the same per rank 1..depth (NaN past every ranking's end);
    judged_to: per topic, the deepest rank down to which every document is judged;
    unjudged: unjudged documents in the top `depth` (what judging the run would add);
    unique: those that no other given run retrieves in its top `depth`.
    """

    run: str
    topics: list[str]
    band_judged: np.ndarray
    by_rank: np.ndarray
    judged_to: np.ndarray
    unjudged: int
    unique: int = 0

    def looks_pooled(self, depth: int) -> bool:
        """Judged to at least `depth` on every topic, as a run in a depth-`depth` pool is."""
        return bool(self.judged_to.size) and int(self.judged_to.min()) >= depth

    def judged_to_range(self) -> tuple[int | None, float | None]:
        """(min, median) over topics of `judged_to`; (None, None) without topics.

        Example:
            >>> r = RunCoverage("r", ["1", "2", "3"], np.zeros(0), np.zeros(0),
            ...                 np.array([2, 9, 4]), 0)
            >>> r.judged_to_range()
            (2, 4.0)
        """
        to = self.judged_to
        if not to.size:
            return None, None
        return int(to.min()), float(np.median(to))


@dataclass(eq=False)
class Coverage:
    runs: list[RunCoverage]
    bands: tuple[tuple[int, int], ...]
    depth: int
    pool: JudgingPool  # the unjudged documents of every run's top `depth`, with contributors

    @property
    def to_add(self) -> int:
        """Distinct unjudged (topic, document) pairs in the top `depth` of all runs."""
        return len(self.pool)

    def rank_band(self, pooled: bool, pool_depth: int
                  ) -> tuple[int, np.ndarray, np.ndarray, np.ndarray] | None:
        """Over the runs that look pooled at `pool_depth` (or, `pooled` False, the others):
        how many, and the 10th, 50th and 90th percentile of the judged fraction at each rank
        1..depth (ranks past a ranking's end left out); None when there are no such runs."""
        rows = [r.by_rank for r in self.runs if r.looks_pooled(pool_depth) == pooled]
        if not rows:
            return None
        m = np.full((len(rows), self.depth), np.nan)
        for i, row in enumerate(rows):
            m[i, : row.size] = row
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # ranks no run reaches: NaN
            lo, mid, hi = np.nanpercentile(m, [10, 50, 90], axis=0)
        return len(rows), lo, mid, hi


def coverage(runs: Iterable[Run], qrels: Qrels, bands: Sequence[tuple[int, int]] = BANDS,
             policies: Policies = Policies()) -> Coverage:
    """Judged fractions per rank band for each run, and the documents judging them would add.

    Negative grades (pooled but never judged) count as unjudged.

    Example:
        >>> from unjudged.io import read_qrels, read_run
        >>> q = read_qrels({"t": {"a": 1, "b": 0}})
        >>> r = read_run({"t": {"a": 3, "x": 2, "b": 1}}, name="r")
        >>> c = coverage([r], q, bands=[(1, 1), (2, 3)])
        >>> c.runs[0].band_judged.tolist(), c.runs[0].judged_to.tolist(), c.runs[0].unjudged
        ([1.0, 0.5], [1], 1)
    """
    try:
        bands = tuple((whole_number(a, "band"), whole_number(b, "band")) for a, b in bands)
    except InvalidOptionError:
        raise
    except (TypeError, ValueError):  # not pairs
        raise InvalidOptionError(f"rank bands must be pairs (a, b), got {shown(bands, 60)}"
                                 ) from None
    if not bands or any(a < 1 or b < a for a, b in bands):
        raise InvalidOptionError("rank bands must be ranges a-b with 1 <= a <= b")
    depth = max(b for _, b in bands)
    runs = run_objects(runs, "coverage")
    qrels = read_qrels(qrels)
    pols = policies.but(judged_only=False, depth=None)
    pools: dict[tuple[str, ...], Pool] = {}
    out = []
    for run in runs:
        key = tuple(evaluated_topics(run, qrels, pols.complete))
        if key not in pools:
            pools[key] = Pool.build(qrels, list(key), pols.negative)
        out.append(_one(judge(run, qrels, pols, pools[key]), bands, depth))
    pool = build_pool(runs, depth, exclude=qrels)
    in_qrels = np.array([t in qrels.topic_index for t in pool.topics], dtype=bool)
    pool = _restrict(pool, in_qrels[pool.topic] if len(pool) else np.zeros(0, bool))
    unique = pool.unique_by_run()
    for rc, u in zip(out, unique.tolist(), strict=True):
        rc.unique = u
    return Coverage(out, bands, depth, pool)


def _one(j, bands, depth: int) -> RunCoverage:
    g = j.cut(depth)
    present = g != PAD
    judged = g >= 0
    with np.errstate(invalid="ignore", divide="ignore"):
        by_rank = judged.sum(axis=0) / present.sum(axis=0)
    band = np.array([judged[:, a - 1:b].sum() / max(present[:, a - 1:b].sum(), 1)
                     if present[:, a - 1:b].any() else np.nan for a, b in bands])
    holes = present & ~judged
    first_hole = np.where(holes.any(axis=1), holes.argmax(axis=1), np.minimum(j.length, depth))
    return RunCoverage(j.run_name, j.topics, band, by_rank, first_hole.astype(np.int64),
                       int(holes.sum()))


def _mask(keep: np.ndarray) -> pa.BooleanArray:
    """A numpy bool array as an Arrow filter mask (without pa.array, which imports pandas)."""
    return cast(pa.BooleanArray, arrow_of(keep).cast(pa.bool_()))


def _restrict(pool: JudgingPool, keep: np.ndarray) -> JudgingPool:
    """The pool's pairs where `keep` holds."""
    fields = {f: getattr(pool, f)[keep] for f in ("topic", "best_rank", "n_runs", "n_groups",
                                                  "only_run", "only_group")}
    return replace(pool, docno=pool.docno.filter(_mask(keep)), **fields)
