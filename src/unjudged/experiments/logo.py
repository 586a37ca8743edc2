"""Leave-one-group-out (seed 000 section 4.1): how well each strategy for unjudged documents
recovers the scores a run would have had if its group had not contributed to the pool.

For each group, the judgments that only that group's runs brought into the depth-K pool are
removed; the group's runs are scored on the reduced qrels with every strategy and compared
with their scores on the full qrels. The sweep (groups x runs, each task all strategies over
all topics at once) runs on any executor of unjudged.parallel; every random draw belongs to
one (run, topic) stream, so the results do not depend on the executor.

Only runs that contributed to the pool belong in the sweep: a run that did not is pooled as if
it had (its own documents count as judged-away, and documents it shares with a contributing
group keep that group's judgments), and its "truth" already treats its unjudged documents as
non-relevant, which makes nonrel look exact. `non_contributors` finds such runs, from the
groups file's contributing column or, failing that, from the qrels (a contributing run's top
`depth` documents are all in them); the sweep notes them, or refuses them under `strict`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from unjudged.data.judged import PAD, judge
from unjudged.data.qrels import MISSING, Qrels
from unjudged.data.run import Run
from unjudged.engine.score import score
from unjudged.errors import IncompatibleInputsError, InvalidOptionError, note
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


def non_contributors(runs: Sequence[Run], qrels: Qrels, depth: int,
                     contributors: dict[str, bool] | None = None) -> list[str]:
    """The runs that did not contribute to the depth-`depth` pool of `qrels`: those
    `contributors` (a groups file's contributing column) marks no or, without it, those with a
    document in their top `depth` of some qrels topic that the qrels lack (any grade, negative
    ones too, counts as pooled). The top `depth` is taken both in ranking order and in file
    order (the order a pool is usually cut from, which differs where scores tie): pooled runs
    have no hole in one of them. On TREC-COVID round 1 all 56 contributing runs pass at depth
    7 (4 only in file order) and 82 of the other 87 fail.

    Example:
        >>> from unjudged.io import read_qrels, read_run
        >>> q = read_qrels({"t": {"a": 1, "b": 0}})
        >>> r1 = read_run({"t": {"a": 2, "b": 1, "x": 0}}, name="r1")
        >>> r2 = read_run({"t": {"a": 2, "x": 1}}, name="r2")
        >>> non_contributors([r1, r2], q, 2), non_contributors([r1, r2], q, 2, {"r1": False})
        (['r2'], ['r1'])
    """
    if contributors is not None:
        return [r.name for r in runs if not contributors.get(r.name, True)]
    return [r.name for r in runs if not _judged_to(r, qrels, depth)]


def _judged_to(run: Run, qrels: Qrels, depth: int) -> bool:
    """Every document in `run`'s top `depth` on the qrels topics is in the qrels, in ranking
    order or in file order."""
    lengths = np.diff(run.offsets)
    k = np.minimum(lengths, depth)
    starts = np.repeat(run.offsets[:-1], k)
    ramp = np.arange(int(k.sum())) - np.repeat(np.cumsum(k) - k, k)
    topic = np.repeat(qrels.topic_codes(run.topics), k)
    codes = run.doc_codes(qrels)
    orders = [starts + ramp]
    if run.order is not None:  # ranking positions sorted by file row within each topic
        block = np.repeat(np.arange(lengths.size), lengths)
        by_file = np.lexsort((run.order, block))
        orders.append(by_file[starts + ramp])
    for pos in orders:
        grades = qrels.lookup(topic, codes[pos])
        if not ((grades == MISSING) & (topic >= 0)).any():
            return True
    return False


def contributor_message(names: Sequence[str], total: int, depth: int, source: str | None
                        ) -> str:
    """What the sweep says about runs that did not contribute (`source`: the groups file whose
    column said so, None when the qrels did).

    Example:
        >>> contributor_message(["r3"], 3, 7, None)
        '1 of 3 runs did not contribute to the depth-7 pool (some of their top 7 documents are \
not in the qrels): r3; leave-one-group-out pools them as if they had (pass only the \
contributing runs)'
    """
    shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    why = (f"the contributing column of {source} says no" if source is not None else
           f"some of their top {depth} documents are not in the qrels")
    return (f"{len(names)} of {total} runs did not contribute to the depth-{depth} pool "
            f"({why}): {shown}; leave-one-group-out pools them as if they had (pass only the "
            "contributing runs)")


def leave_one_group_out(runs: Sequence[Run], qrels: Qrels, groups: dict[str, str], depth: int,
                        measures: Any = ("nDCG@10",), *,
                        strategies: Sequence[str] | None = None, top_fraction: float = 0.75,
                        b: int = 10_000, seed: int = 0, point: str = "mean",
                        policies: Policies = Policies(), executor: Any = None,
                        groups_source: str = "groups",
                        contributors: dict[str, bool] | None = None,
                        strict: bool = False, draw: dict[str, Any] | None = None) -> Sweep:
    """Run the sweep. `runs` are all pooled runs; only the `top_fraction` with the best first
    measure on the full qrels are scored (seed 000 keeps the best 75%); `executor` is one of
    unjudged.parallel's (serial when None). `strategies` default to every comparable one.
    Runs that did not contribute to the pool (`non_contributors`, from `contributors` or the
    qrels) are noted (an UnjudgedWarning), or refused (IncompatibleInputsError) when `strict`.
    `draw` passes other bootstrap settings (EstimateSettings' spread, shared_spread, ...);
    normalisers do not grow unless it says so: the truth here is the full pool, whose
    normalisers count only what the pool judged.

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
    outside = non_contributors(runs, qrels, depth, contributors)
    if outside:
        message = contributor_message(outside, len(runs), depth,
                                      None if contributors is None else groups_source)
        if strict:
            raise IncompatibleInputsError(message)
        note(message)
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
                   policies=policies, draw={"grow": False, **(draw or {})})
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
            boot = estimate_run(run, reduced, ms, methods=[kind], prior=prior, **common,
                                **opts.get("draw", {}))
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
