"""Pools: the (topic, document) pairs a set of runs brings to the assessors.

A depth-k pool holds every document some run ranks in its top k; ranks J..K give the
documents a deeper pass adds (TREC-COVID's Judgment Set 1.5 pooled ranks 8-14 of the round-1
priority runs, skipping what was already judged). For each pair the pool keeps who brought it:
how many runs and groups, and the single run or group when only one did (its *unique*
contribution, which leave-one-group-out experiments take away again).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from unjudged.data._strings import arrow_of, numpy_of
from unjudged.data.qrels import MISSING, Qrels
from unjudged.data.run import Run
from unjudged.data.topic_order import natural_ranks
from unjudged.engine.score import run_objects
from unjudged.errors import IncompatibleInputsError, InputError, InvalidOptionError
from unjudged.policies import whole_number


@dataclass(eq=False)
class JudgingPool:
    """Pooled pairs sorted by topic (byte order) and docno, with their contributors.

    Attributes:
        topics: every topic some run retrieved (byte order); `topic` indexes it.
        topic, docno: one entry per pooled pair.
        best_rank: the best (1-based) rank at which any run retrieved the pair.
        n_runs, n_groups: how many runs and groups brought it.
        only_run, only_group: the single run / group that brought it, -1 when several did.
        runs, run_group, groups: the pooled runs, each run's group index, group names.
        contributed: pairs each run brought (before removing duplicates across runs).
        depth, from_rank: the ranks pooled; excluded: pairs left out as already judged.
    """

    topics: list[str]
    topic: np.ndarray
    docno: pa.Array
    best_rank: np.ndarray
    n_runs: np.ndarray
    n_groups: np.ndarray
    only_run: np.ndarray
    only_group: np.ndarray
    runs: list[str]
    run_group: np.ndarray
    groups: list[str]
    contributed: np.ndarray
    depth: int
    from_rank: int = 1
    excluded: int = 0

    def __len__(self) -> int:
        return int(self.topic.size)

    def sizes(self) -> np.ndarray:
        """Pool size per topic (aligned with `topics`)."""
        return np.bincount(self.topic, minlength=len(self.topics))

    def unique_by_run(self) -> np.ndarray:
        """Pairs only one run brought, per run."""
        own = self.only_run[self.n_runs == 1]
        return np.bincount(own, minlength=len(self.runs))

    def unique_by_group(self) -> np.ndarray:
        """Pairs only one group brought, per group."""
        own = self.only_group[self.n_groups == 1]
        return np.bincount(own, minlength=len(self.groups))

    def qrels_keys(self, qrels: Qrels) -> np.ndarray:
        """Each pair's key in `qrels`' ad hoc view, -1 where the qrels lack the topic or
        document (see Qrels.keys)."""
        t = qrels.topic_codes(self.topics)[self.topic]
        d = qrels.doc_codes(self.docno).astype(np.int64)
        keys = t * len(qrels.docs) + d
        keys[(t < 0) | (d < 0)] = -1
        return keys


def build_pool(runs: Iterable[Run], depth: int, *, from_rank: int = 1,
               exclude: Qrels | None = None, groups: dict[str, str] | None = None,
               runs_per_group: int | None = None, groups_source: str = "groups"
               ) -> JudgingPool:
    """The pool of ranks `from_rank`..`depth` of `runs`.

    `exclude`: qrels whose judged pairs (grade >= 0) stay out of the pool; negative grades
    (pooled but never judged) stay in. `groups` maps runs to groups (each run is its own group
    otherwise); with `runs_per_group` only each group's first N runs are pooled, in the order
    the groups mapping lists them (its priority order).

    Example:
        >>> from unjudged.io import read_run
        >>> a = read_run({"t": {"d1": 3, "d2": 2, "d3": 1}}, name="a")
        >>> b = read_run({"t": {"d2": 3, "d4": 2}}, name="b")
        >>> p = build_pool([a, b], depth=2)
        >>> p.docno.to_pylist(), p.n_runs.tolist(), p.unique_by_run().tolist()
        (['d1', 'd2', 'd4'], [1, 2, 1], [1, 1])
    """
    depth, from_rank = whole_number(depth, "depth"), whole_number(from_rank, "from_rank")
    if depth < 1 or from_rank < 1 or from_rank > depth:
        raise InvalidOptionError(f"ranks {from_rank}..{depth} are empty; expected 1 <= J <= K")
    runs = _choose(run_objects(runs, "build_pool"), groups, runs_per_group, groups_source)
    names = [r.name for r in runs]
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise IncompatibleInputsError(f"two runs are named {dup!r}; run names must be unique")
    group_of = group_runs(names, groups, groups_source)
    group_names = list(dict.fromkeys(group_of))
    run_group = np.array([group_names.index(g) for g in group_of], dtype=np.int32)
    topics = sorted({t for r in runs for t in r.topics}, key=lambda t: t.encode())
    tindex = {t: i for i, t in enumerate(topics)}
    parts = [_slice(r, i, from_rank, depth, tindex) for i, r in enumerate(runs)]
    table = pa.concat_tables(parts) if parts else _empty()
    excluded = 0
    if exclude is not None and table.num_rows:
        judged = _judged_in(exclude, topics, numpy_of(table["t"]), table["d"])
        excluded = int(judged.sum())
        table = table.filter(cast(pa.BooleanArray, arrow_of(~judged).cast(pa.bool_())))
    contributed = np.bincount(numpy_of(table["r"]), minlength=len(runs))
    table = table.append_column("g", arrow_of(run_group[numpy_of(table["r"])]))
    agg = table.group_by(["t", "d"], use_threads=False).aggregate(
        [("k", "min"), ("r", "count_distinct"), ("g", "count_distinct"), ("r", "min"),
         ("g", "min")])
    agg = agg.take(pc.sort_indices(agg, [("t", "ascending"), ("d", "ascending")]))
    n_runs = numpy_of(agg["r_count_distinct"]).astype(np.int64)
    n_groups = numpy_of(agg["g_count_distinct"]).astype(np.int64)
    docno = agg["d"].combine_chunks() if agg.num_rows else pa.array([], pa.string())
    return JudgingPool(
        topics=topics, topic=numpy_of(agg["t"]).astype(np.int64), docno=docno,
        best_rank=numpy_of(agg["k_min"]).astype(np.int64), n_runs=n_runs, n_groups=n_groups,
        only_run=np.where(n_runs == 1, numpy_of(agg["r_min"]), -1).astype(np.int64),
        only_group=np.where(n_groups == 1, numpy_of(agg["g_min"]), -1).astype(np.int64),
        runs=names, run_group=run_group, groups=group_names, contributed=contributed,
        depth=depth, from_rank=from_rank, excluded=excluded)


def _choose(runs: list[Run], groups: dict[str, str] | None, n: int | None,
            source: str) -> list[Run]:
    """Each group's first n runs in the priority order of the groups mapping."""
    if n is None:
        return runs
    if groups is None:
        raise InvalidOptionError("runs per group needs the groups of the runs")
    if n < 1:
        raise InvalidOptionError("runs per group must be at least 1")
    group_runs([r.name for r in runs], groups, source)  # every run has a group
    priority = {name: i for i, name in enumerate(groups)}
    taken: dict[str, int] = {}
    keep = set()
    for run in sorted(runs, key=lambda r: priority[r.name]):
        g = groups[run.name]
        if taken.get(g, 0) < n:
            taken[g] = taken.get(g, 0) + 1
            keep.add(run.name)
    return [r for r in runs if r.name in keep]


def _slice(run: Run, index: int, from_rank: int, depth: int, tindex: dict[str, int]
           ) -> pa.Table:
    """The rows of `run` at ranks from_rank..depth: topic code, docno, rank, run index."""
    lengths = run.lengths()
    first = run.offsets[:-1] + (from_rank - 1)
    take = np.clip(np.minimum(lengths, depth) - (from_rank - 1), 0, None)
    rows = np.repeat(first - np.cumsum(take) + take, take) + np.arange(int(take.sum()))
    codes = np.array([tindex[t] for t in run.topics], dtype=np.int32)
    topic = np.repeat(codes, take)
    rank = (rows - np.repeat(run.offsets[:-1], take) + 1).astype(np.int32)
    return pa.table({"t": arrow_of(topic), "d": run.docno.take(arrow_of(rows)),
                     "k": arrow_of(rank), "r": arrow_of(np.full(rows.size, index, np.int32))})


def _empty() -> pa.Table:
    return pa.table({"t": pa.array([], pa.int32()), "d": pa.array([], pa.string()),
                     "k": pa.array([], pa.int32()), "r": pa.array([], pa.int32())})


def _judged_in(qrels: Qrels, topics: Sequence[str], topic: np.ndarray, docno) -> np.ndarray:
    """Whether each (topic, docno) row is judged (grade >= 0) in `qrels`."""
    grades = qrels.lookup(qrels.topic_codes(topics)[topic], qrels.doc_codes(docno))
    return (grades != MISSING) & (grades >= 0)


def pool_lines(pool: JudgingPool, fmt: str = "qrels") -> str:
    """The pool as text: `qrels` (`topic 0 docno -1`: trec_eval's "pooled, not yet judged"),
    `pairs` (`topic docno`) or `tsv` (with best rank, runs and groups per pair). Topics come
    in natural order (2 before 10), each topic's documents in byte order."""
    # a stable sort on the topic's natural place keeps each topic's documents in docno order
    order = np.argsort(np.array(natural_ranks(pool.topics), dtype=np.int64)[pool.topic],
                       kind="stable") if len(pool) else np.zeros(0, dtype=np.int64)
    topics = np.array(pool.topics, dtype=object)[pool.topic[order]] if len(pool) else []
    docs = pool.docno.take(arrow_of(order)).to_pylist()
    best_rank, n_runs, n_groups = (x[order] for x in (pool.best_rank, pool.n_runs,
                                                       pool.n_groups))
    if fmt == "pairs":
        return "".join(f"{t} {d}\n" for t, d in zip(topics, docs, strict=True))
    if fmt == "tsv":
        head = "topic\tdocno\tbest_rank\truns\tgroups\n"
        return head + "".join(f"{t}\t{d}\t{k}\t{r}\t{g}\n" for t, d, k, r, g in zip(
            topics, docs, best_rank.tolist(), n_runs.tolist(), n_groups.tolist(),
            strict=True))
    return "".join(f"{t} 0 {d} -1\n" for t, d in zip(topics, docs, strict=True))


def group_runs(run_names: list[str], groups: dict[str, str] | None, source: str = "groups"
               ) -> list[str]:
    """The group of each run (its own name when no groups are given); every run must be
    listed (an InputError naming `source`, the groups file, otherwise).

    Example:
        >>> group_runs(["a", "b"], {"a": "g1", "b": "g1"})
        ['g1', 'g1']
        >>> group_runs(["a", "b"], None)
        ['a', 'b']
    """
    if groups is None:
        return list(run_names)
    missing = [r for r in run_names if r not in groups]
    if missing:
        shown = ", ".join(missing[:5]) + (" ..." if len(missing) > 5 else "")
        raise InputError(os.fspath(source), f"{len(missing)} run(s) have no group: {shown}")
    return [groups[r] for r in run_names]
