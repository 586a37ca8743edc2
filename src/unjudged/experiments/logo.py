"""Leave-one-group-out (seed 000 section 4.1): how well each strategy for unjudged documents
recovers the scores a run would have had if its group had not contributed to the pool.

For each group, the judgments that only that group's runs brought into the depth-K pool are
removed; the group's runs are scored on the reduced qrels with every strategy and compared
with their scores on the full qrels. The sweep (groups x runs, each task all strategies over
all topics at once) runs on any executor of unjudged.parallel; every random draw belongs to
one (run, topic) stream, so the results do not depend on the executor.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from unjudged.data.judged import PAD, judge
from unjudged.data.qrels import Qrels
from unjudged.data.run import Run
from unjudged.engine.score import score
from unjudged.errors import InvalidOptionError
from unjudged.judgments.pools import build_pool, group_runs
from unjudged.measures import Measure, parse_measures
from unjudged.policies import Policies
from unjudged.strategies.registry import BASELINE
from unjudged.strategies.registry import STRATEGIES as REGISTRY

#: Strategies in report order, read from the registry when this module is imported (the
#: comparable ones; bootstrap:PRIOR draws unjudged grades from that prior).
STRATEGIES = REGISTRY.comparable()
#: Upper ends of score ranges taken from each bootstrap distribution (Table 6).
RANGE_PERCENTILES = ("p75", "p90", "p95")


@dataclass(eq=False)
class Sweep:
    """Per-run values of a leave-one-group-out sweep, aligned on one topic list.

    values[strategy] and truth are (runs, topics, measures), NaN where a run lacks a topic;
    ranges[(strategy, pXX)] hold the bootstrap percentiles; unjudged[r, t] counts unjudged
    documents within the first measure's cutoff after removing the group's judgments.
    """

    runs: list[str]
    groups: list[str]  # group of each run
    topics: list[str]
    measures: list[Measure]
    strategies: tuple[str, ...]
    truth: np.ndarray
    values: dict[str, np.ndarray]
    ranges: dict[tuple[str, str], np.ndarray]
    unjudged: np.ndarray
    unjudged_full: np.ndarray
    removed: dict[str, int]  # judgments removed per group
    pooled_runs: int
    depth: int
    seconds: float = 0.0
    options: dict[str, Any] = field(default_factory=dict)


def check_strategies(strategies: Sequence[str]) -> tuple[str, ...]:
    """`strategies` validated against the registry's comparable ones, in report order, with
    nonrel (the lower end of every score range) added.

    Example:
        >>> check_strategies(["bootstrap:run", "upper"])
        ('nonrel', 'upper', 'bootstrap:run')
    """
    known = REGISTRY.comparable()
    bad = [s for s in strategies if s not in known]
    if bad:
        raise InvalidOptionError(f"unknown strategy {bad[0]!r}; expected some of "
                                 f"{', '.join(known)}")
    if BASELINE not in strategies:
        strategies = [BASELINE, *strategies]  # the lower end of every score range
    return tuple(s for s in known if s in strategies)


def leave_one_group_out(runs: Sequence[Run], qrels: Qrels, groups: dict[str, str], depth: int,
                        measures: Any = ("nDCG@10",), *,
                        strategies: Sequence[str] | None = None, top_fraction: float = 0.75,
                        b: int = 10_000, seed: int = 0, point: str = "mean",
                        policies: Policies = Policies(), executor: Any = None,
                        groups_source: str = "groups") -> Sweep:
    """Run the sweep. `runs` are all pooled runs; only the `top_fraction` with the best first
    measure on the full qrels are scored (seed 000 keeps the best 75%); `executor` is one of
    unjudged.parallel's (serial when None). `strategies` default to every comparable one.

    Example:
        >>> from unjudged.io import read_qrels, read_run
        >>> q = read_qrels({"t": {"a": 1, "b": 1, "c": 0}})
        >>> r1 = read_run({"t": {"a": 2, "c": 1}}, name="r1")
        >>> r2 = read_run({"t": {"b": 2, "c": 1}}, name="r2")
        >>> s = leave_one_group_out([r1, r2], q, {"r1": "A", "r2": "B"}, 2, "P@2",
        ...                         strategies=["nonrel", "upper"], top_fraction=1.0)
        >>> s.truth[:, 0, 0].tolist(), s.values["nonrel"][:, 0, 0].tolist()
        ([0.5, 0.5], [0.0, 0.0])
        >>> s.values["upper"][:, 0, 0].tolist()
        [0.5, 0.5]
    """
    from unjudged.parallel import SerialExecutor

    start = time.perf_counter()
    strategies = check_strategies(REGISTRY.comparable() if strategies is None else strategies)
    ms = parse_measures(measures)
    runs = list(runs)
    group_of = dict(zip((r.name for r in runs), group_runs([r.name for r in runs], groups,
                                                            groups_source), strict=True))
    pool = build_pool(runs, depth, groups=group_of)
    keys = pool.qrels_keys(qrels)
    removed = {g: keys[(pool.only_group == i) & (keys >= 0)]
               for i, g in enumerate(pool.groups)}
    truth_all = score(runs, qrels, ms, policies)
    kept = _best(truth_all, top_fraction)
    topics = [t for t in qrels.topics
              if any(t in truth_all.runs[i].topics for i in kept)]
    options = dict(measures=ms, strategies=strategies, b=b, seed=seed, point=point,
                   policies=policies)
    shared = {"runs": {r.name: r for r in runs}, "qrels": qrels, "removed": removed,
              "options": options}
    items = [(group_of[runs[i].name], runs[i].name) for i in kept]
    ex = executor or SerialExecutor()
    parts = ex.map(_task, items, desc="leave one group out", shared=shared)
    sweep = _assemble(parts, [truth_all.runs[i] for i in kept], topics, ms, strategies)
    sweep.groups = [group_of[n] for n in sweep.runs]
    sweep.removed = {g: int(v.size) for g, v in removed.items()}
    sweep.pooled_runs, sweep.depth = len(runs), depth
    sweep.options = {"top_fraction": top_fraction, "b": b, "seed": seed, "point": point}
    sweep.seconds = time.perf_counter() - start
    return sweep


def sweep_details(sweep: Sweep) -> list[dict[str, Any]]:
    """One row per (run, topic, measure, strategy): the estimate and the truth, for users who
    want to analyse the sweep themselves."""
    rows = []
    for r, run in enumerate(sweep.runs):
        for t, topic in enumerate(sweep.topics):
            if np.isnan(sweep.truth[r, t, 0]):
                continue
            for i, m in enumerate(sweep.measures):
                for s in sweep.strategies:
                    rows.append({"group": sweep.groups[r], "run": run, "topic": topic,
                                 "measure": m.name, "strategy": s,
                                 "value": float(sweep.values[s][r, t, i]),
                                 "truth": float(sweep.truth[r, t, i]),
                                 "unjudged": int(sweep.unjudged[r, t]),
                                 "unjudged_full": int(sweep.unjudged_full[r, t])})
    return rows


def _best(truth, fraction: float) -> list[int]:
    """Indices of the best `fraction` of runs by their first measure, in input order."""
    if not 0 < fraction <= 1:
        raise InvalidOptionError(f"top fraction {fraction} is not in (0, 1]")
    first = np.array([r.summary[0] for r in truth.runs])
    n = max(1, math.ceil(fraction * first.size - 1e-9))
    order = np.argsort(-first, kind="stable")[:n]
    return sorted(order.tolist())


def _task(shared: dict[str, Any], item: tuple[str, str]) -> dict[str, Any]:
    """All strategies for one run on its group's reduced qrels (runs in a worker)."""
    from unjudged.engine.estimate import estimate_run, judge_for

    group, name = item
    run = shared["runs"][name]
    opts = shared["options"]
    reduced = shared["qrels"].without(shared["removed"][group])
    ms, strategies = opts["measures"], opts["strategies"]
    plain = [s for s in strategies if s in REGISTRY and not REGISTRY[s].random]
    judged = judge_for(run, reduced, ms, opts["policies"])  # once for every strategy
    common = dict(b=opts["b"], seed=opts["seed"], point=opts["point"], policies=opts["policies"],
                  judged=judged)
    est = estimate_run(run, reduced, ms, methods=plain, **common)
    out: dict[str, Any] = {"run": name, "topics": est.topics,
                           "values": {s: est.points[s] for s in plain}, "ranges": {}}
    for s in strategies:
        kind, _, prior = s.partition(":")
        if prior:  # a random strategy drawing from that prior
            boot = estimate_run(run, reduced, ms, methods=[kind], prior=prior, **common)
            assert boot.stats is not None  # a random strategy's estimate has its statistics
            out["values"][s] = boot.point
            for p in RANGE_PERCENTILES:
                out["ranges"][(s, p)] = boot.stats[..., _STAT[p]]
    out["unjudged"] = _unjudged(judged, ms[0])
    out["unjudged_full"] = _unjudged(judge(run, shared["qrels"], opts["policies"]), ms[0])
    return out


def _unjudged(judged, m: Measure) -> np.ndarray:
    """Unjudged documents within the measure's cutoff, per evaluated topic."""
    cut = judged.cut(m.cutoff)
    return ((cut < 0) & (cut != PAD)).sum(axis=-1)


def _stat_index() -> dict[str, int]:
    from unjudged.strategies.summaries import STATS

    return {s: i for i, s in enumerate(STATS)}


_STAT = _stat_index()


def _assemble(parts: list[dict[str, Any]], truths, topics: list[str], ms: list[Measure],
              strategies: tuple[str, ...]) -> Sweep:
    tix = {t: i for i, t in enumerate(topics)}
    shape = (len(parts), len(topics), len(ms))
    truth = np.full(shape, np.nan)
    values = {s: np.full(shape, np.nan) for s in strategies}
    ranges: dict[tuple[str, str], np.ndarray] = {}
    unjudged = np.zeros(shape[:2], dtype=np.int64)
    unjudged_full = np.zeros(shape[:2], dtype=np.int64)
    for r, (part, tr) in enumerate(zip(parts, truths, strict=True)):
        cols = np.array([tix[t] for t in tr.topics], dtype=np.int64)
        truth[r, cols] = tr.values
        cols = np.array([tix[t] for t in part["topics"]], dtype=np.int64)
        for s, v in part["values"].items():
            values[s][r, cols] = v
        for key, v in part["ranges"].items():
            ranges.setdefault(key, np.full(shape, np.nan))[r, cols] = v
        unjudged[r, cols] = part["unjudged"]
        unjudged_full[r, cols] = part["unjudged_full"]
    return Sweep(runs=[p["run"] for p in parts], groups=[], topics=topics, measures=ms,
                 strategies=strategies, truth=truth, values=values, ranges=ranges,
                 unjudged=unjudged, unjudged_full=unjudged_full, removed={}, pooled_runs=0, depth=0)
