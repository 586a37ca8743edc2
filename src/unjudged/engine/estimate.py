"""Scores under each strategy for unjudged documents, per run, topic and measure."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from unjudged.data.diversity import judge_diversity, needs_subtopics
from unjudged.data.judged import PAD, Judged, Pool, evaluated_topics, judge
from unjudged.data.qrels import Qrels
from unjudged.data.run import Run
from unjudged.engine.results import aggregate, aggregate_measures
from unjudged.measures import Measure, parse_measures
from unjudged.policies import Policies
from unjudged.strategies import bootstrap as bs
from unjudged.strategies import fill
from unjudged.strategies.summaries import STATS, parse_point, point_estimate, summarise

if TYPE_CHECKING:
    from unjudged.parallel import Executor

#: Strategies, in report order. "guaranteed" yields two values (lower, upper).
METHODS = ("nonrel", "condensed", "upper", "bootstrap", "guaranteed")


@dataclass(eq=False)
class RunEstimate:
    """One run's estimates.

    points[method] is (topics, measures) for the deterministic methods (NaN where a method does
    not apply to a measure); `stats` is (topics, measures, 9) over the bootstrap samples and
    `run_stats` (measures, 9) over the per-iteration run aggregate; `point` the bootstrap's
    point estimate (topics, measures) and `run_point` (measures,).
    """

    run: str
    topics: list[str]
    measures: list[Measure]
    points: dict[str, np.ndarray]
    stats: np.ndarray | None = None
    run_stats: np.ndarray | None = None
    point: np.ndarray | None = None
    run_point: np.ndarray | None = None
    samples: np.ndarray | None = field(default=None, repr=False)  # (b, topics, measures)
    nonrel: np.ndarray | None = field(default=None, repr=False)  # always computed

    def summary(self, method: str) -> np.ndarray:
        """Run-level value per measure of a deterministic method."""
        return aggregate_measures(self.points[method], self.measures)


@dataclass(eq=False)
class Estimates:
    runs: list[RunEstimate]
    methods: tuple[str, ...]
    prior: str
    b: int
    seed: int
    point: str

    def rows(self, per_topic: bool = True) -> Iterable[dict[str, Any]]:
        """One dict per (run, topic, measure, method): `value`, or the bootstrap statistics
        (with `value` = the chosen point estimate)."""
        methods = expand_methods(self.methods)
        for r in self.runs:
            totals = {m: r.summary(m) for m in methods if m in r.points}
            topics = list(enumerate(r.topics)) if per_topic else []
            for t, topic in topics + [(None, "all")]:
                for i, m in enumerate(r.measures):
                    for method in methods:
                        row = _row(r, totals, t, i, method)
                        if row is not None:
                            yield {"run": r.run, "topic": topic, "measure": m.name,
                                   "method": method, **row}

    def to_pandas(self, per_topic: bool = True):
        import pandas as pd

        cols = ["run", "topic", "measure", "method", "value", *STATS]
        return pd.DataFrame(list(self.rows(per_topic)), columns=cols)


def expand_methods(methods: Iterable[str]) -> list[str]:
    """Methods as reported: "guaranteed" becomes guaranteed_lower and guaranteed_upper."""
    out: list[str] = []
    for m in methods:
        out += ["guaranteed_lower", "guaranteed_upper"] if m == "guaranteed" else [m]
    return out


def _row(r: RunEstimate, totals: dict[str, np.ndarray], t: int | None, i: int,
         method: str) -> dict[str, float] | None:
    if method == "bootstrap":
        if r.stats is None:
            return None
        stats = r.run_stats[i] if t is None else r.stats[t, i]
        if np.isnan(stats[0]):
            return None
        value = r.run_point[i] if t is None else r.point[t, i]
        return {"value": float(value), **{k: float(v) for k, v in zip(STATS, stats, strict=False)}}
    values = r.points.get(method)
    if values is None:
        return None
    v = totals[method][i] if t is None else values[t, i]
    return None if np.isnan(v) else {"value": float(v)}


def check_methods(methods: Iterable[str]) -> tuple[str, ...]:
    methods = tuple(methods)
    bad = [m for m in methods if m not in METHODS]
    if bad:
        raise ValueError(f"unknown method {bad[0]!r}; expected some of {', '.join(METHODS)}")
    return tuple(m for m in METHODS if m in methods)


def judge_for(run: Run, qrels: Qrels, measures: list[Measure],
              policies: Policies = Policies(), pool: Pool | None = None) -> Judged:
    """The run judged as `measures` need it: diversity measures read each ranked document's
    subtopics too."""
    return (judge_diversity if needs_subtopics(measures) else judge)(run, qrels, policies, pool)


def estimate_run(run: Run, qrels: Qrels, measures: list[Measure], *,
                 methods: Iterable[str] = METHODS, prior: str = "pool+run", b: int = 10_000,
                 seed: int = 0, point: str = "mean", policies: Policies = Policies(),
                 pool: Pool | None = None, keep_samples: bool = False,
                 judged: Judged | None = None) -> RunEstimate:
    """Every requested strategy for one run (see `estimate`). `judged` may hand over the run
    already judged by `judge_for` with the same qrels, measures and policies."""
    methods = check_methods(methods)
    how = parse_point(point)
    bs.check_prior(prior)
    if judged is None:
        judged = judge_for(run, qrels, measures, policies, pool)
    n, nm = len(judged.topics), len(measures)
    points = {m: np.full((n, nm), np.nan) for m in expand_methods(methods) if m != "bootstrap"}
    plain = points.get("nonrel", np.full((n, nm), np.nan))
    samples = np.full((b, n, nm), np.nan) if "bootstrap" in methods else None
    condensed = fill.condensed(judged) if "condensed" in points else None
    for k, idx in _by_cutoff(measures).items():
        base = fill.top(judged, k)
        # each strategy's rankings are built once per cutoff, when some measure needs them
        upper = guaranteed = None
        for i in idx:
            m = measures[i]
            plain[:, i] = m.compute(base)
            if not m.spec.estimable:
                continue
            if condensed is not None:
                points["condensed"][:, i] = m.compute(condensed)
            if "upper" in points and m.spec.monotone:
                upper = upper or fill.upper(base)
                points["upper"][:, i] = m.compute(upper)
            if "guaranteed_lower" in points and m.spec.guaranteed:
                guaranteed = guaranteed or (fill.guaranteed_lower(judged, k),
                                            fill.guaranteed_upper(base))
                lo, hi = _guaranteed(m, *guaranteed)
                points["guaranteed_lower"][:, i], points["guaranteed_upper"][:, i] = lo, hi
        todo = [i for i in idx if measures[i].spec.estimable]
        if samples is not None and todo and n:
            _bootstrap(base, [measures[i] for i in todo], todo, samples, prior, b, seed)
    out = RunEstimate(run.name, judged.topics, measures, points, nonrel=plain)
    if samples is not None:
        out.stats = summarise(samples)
        out.point = point_estimate(samples, how)
        per_iter = aggregate_measures(samples, measures)  # (b, measures)
        out.run_stats = summarise(per_iter)
        out.run_point = point_estimate(per_iter, how)
        if keep_samples:
            out.samples = samples
    return out


def _guaranteed(m: Measure, lower: Judged, upper: Judged) -> tuple[np.ndarray, np.ndarray]:
    """The guaranteed bounds, within the measure's range."""
    low_end, high_end = m.spec.bounded or (-np.inf, np.inf)
    return np.maximum(m.compute(lower), low_end), np.minimum(m.compute(upper), high_end)


def _by_cutoff(measures: list[Measure]) -> dict[int | None, list[int]]:
    groups: dict[int | None, list[int]] = {}
    for i, m in enumerate(measures):
        groups.setdefault(m.cutoff, []).append(i)
    return groups


def _bootstrap(base: Judged, measures: list[Measure], cols: list[int], out: np.ndarray,
               prior: str, b: int, seed: int) -> None:
    n = len(base.topics)
    streams = [bs.stream(seed, base.run_name, t) for t in base.topics]
    for t0, t1, i0, i1 in bs.batches(n, b, base.depth):
        batch = bs.sample(base, prior, streams, t0, t1, i0, i1)
        for col, m in zip(cols, measures, strict=False):
            out[i0:i1, t0:t1, col] = m.compute(batch)


def estimate_runs(runs: Iterable[Run], qrels: Qrels, measures: list[Measure], *,
                  methods: Iterable[str] = METHODS, prior: str = "pool+run", b: int = 10_000,
                  seed: int = 0, point: str = "mean", policies: Policies = Policies(),
                  keep_samples: bool = False, workers: int = 1,
                  executor: Executor | None = None, desc: str | None = None) -> Estimates:
    """estimate_run for each run, on `executor` (unjudged.parallel; default: this process).

    `workers` > 1 without an executor spreads the runs over that many local processes. Every
    random stream belongs to one (run, topic) pair, so the output is the same on every
    executor. `desc` labels a progress bar (shown on a terminal only).

    Example:
        >>> from unjudged.io import read_qrels, read_run
        >>> from unjudged.parallel import ProcessExecutor
        >>> q = read_qrels({"t": {"a": 1, "b": 0}})
        >>> runs = [read_run({"t": {"a": 2.0, "x": 1.0}}, name=n) for n in ("r1", "r2")]
        >>> with ProcessExecutor(2) as ex:
        ...     est = estimate_runs(runs, q, parse_measures("P@2"), b=100, executor=ex)
        >>> [float(r.summary("upper")[0]) for r in est.runs]
        [0.5, 0.5]
    """
    from unjudged.parallel import ProcessExecutor, SerialExecutor

    methods = check_methods(methods)
    options = dict(methods=methods, prior=prior, b=b, seed=seed, point=point,
                   policies=policies, keep_samples=keep_samples)
    if executor is None and workers > 1:
        with ProcessExecutor(workers) as ex:
            return estimate_runs(runs, qrels, measures, **options, executor=ex, desc=desc)
    pools: dict[tuple[str, ...], Pool] = {}

    def pool_of(run: Run) -> tuple[str, ...]:
        key = tuple(evaluated_topics(run, qrels, policies.complete))
        if key not in pools:  # runs of the same topics share one (built once)
            pools[key] = Pool.build(qrels, list(key), policies.negative)
        return key

    if executor is None or isinstance(executor, SerialExecutor):
        # one run at a time, as they are read, so only one is ever held in memory
        from unjudged.parallel import progress_bar

        out = []
        with progress_bar(None, desc) as bar:
            for run in runs:
                out.append(estimate_run(run, qrels, measures, pool=pools[pool_of(run)],
                                        **options))
                bar.update()
    else:
        runs = list(runs)
        for run in runs:
            pool_of(run)
        # qrels, measures and pools travel once per worker; a run is one task (they are big)
        out = executor.map(_estimate_task, runs, desc=desc, chunksize=1,
                           shared=(qrels, measures, pools, options))
    return Estimates(out, methods, prior, b, seed, point)


def _estimate_task(shared: tuple, run: Run) -> RunEstimate:
    qrels, measures, pools, options = shared
    key = tuple(evaluated_topics(run, qrels, options["policies"].complete))
    return estimate_run(run, qrels, measures, pool=pools[key], **options)


def strategy_results(est: Estimates, method: str):
    """One strategy's values as evaluation Results (what `eval --unjudged` prints)."""
    from unjudged.engine.results import Results, RunResult

    runs = []
    for r in est.runs:
        if method == "bootstrap":
            values, totals = r.point.copy(), r.run_point.copy()
        else:
            values, totals = r.points[method].copy(), r.summary(method)
        # measures about judgments themselves are the same under every strategy
        fixed = [i for i, m in enumerate(r.measures) if not m.spec.estimable]
        values[:, fixed] = r.nonrel[:, fixed]
        totals[fixed] = aggregate_measures(r.nonrel, r.measures)[fixed]
        runs.append(RunResult(r.run, r.topics, r.measures, values, totals))
    return Results(runs)


def estimate(runs: Any, qrels: Any, measures: Any, *, methods: Iterable[str] = METHODS,
             prior: str = "pool+run", b: int = 10_000, seed: int = 0, point: str = "mean",
             per_topic: bool = True, policies: Policies | None = None, names: str = "tag",
             **policy_kw: Any):
    """Scores under each strategy for unjudged documents, as a tidy DataFrame.

    Columns run, topic ("all" for the run level), measure, method (nonrel, condensed, upper,
    bootstrap, guaranteed_lower, guaranteed_upper), value, and for the bootstrap mean, mode,
    std, p5, p25, p50, p75, p90, p95. `prior` is pool, run or pool+run; `b` the number of
    bootstrap iterations; `point` the bootstrap's point estimate (mean, mode, median, q0.75).
    `runs` and `names` are taken as by `evaluate` (e.g. a dict {name: run}).

    Example:
        >>> df = estimate({"q": {"a": 3, "x": 2, "b": 1}}, {"q": {"a": 1, "b": 0, "c": 1}},
        ...               "P@2", methods=["nonrel", "upper"])
        >>> df[df.topic == "all"][["method", "value"]].values.tolist()
        [['nonrel', 0.5], ['upper', 1.0]]
    """
    from unjudged.engine.score import _as_runs, policies_from
    from unjudged.io import read_qrels

    pol = policies_from(policies, policy_kw)
    q = read_qrels(qrels)
    ms = parse_measures(measures)
    est = estimate_runs(_as_runs(runs, pol.ties, q, names), q, ms, methods=methods,
                        prior=prior, b=b, seed=seed, point=point, policies=pol)
    return est.to_pandas(per_topic=per_topic)


def fit_quantiles(est: Estimates, runs: list[Run], truth: Qrels,
                  policies: Policies = Policies(), folds: int = 5) -> dict[str, dict[str, Any]]:
    """Fit, per measure, the quantile of the bootstrap distribution that best predicts known
    truths, and switch the point estimates to it.

    The truth of a (run, topic) pair is its score under the `truth` qrels, used only where
    those judge every document the measure looks at (the top k, or the whole ranking). Needs
    the samples (keep_samples=True). Returns {measure: {level, cv_rmse, pairs}}; cv_rmse is
    the error when each fold of topics is predicted with the level fitted on the others.
    """
    from unjudged.strategies.summaries import cross_validated_quantile

    by_name = {r.name: r for r in runs}
    truths = [judge(by_name[r.run], truth, policies.but(complete=False)) for r in est.runs]
    report: dict[str, dict[str, Any]] = {}
    for i, m in enumerate(est.runs[0].measures if est.runs else []):
        cols, values, groups = [], [], []
        for r, j in zip(est.runs, truths, strict=False):
            if r.samples is None:
                raise ValueError("fitting a quantile needs the bootstrap samples")
            known = {t: k for k, t in enumerate(j.topics)}
            true = m.compute(j)
            cut = j.cut(m.cutoff)
            complete = np.all((cut >= 0) | (cut == PAD), axis=-1)
            for t, topic in enumerate(r.topics):
                k = known.get(topic)
                if k is not None and complete[k] and not np.isnan(r.samples[0, t, i]):
                    cols.append(r.samples[:, t, i])
                    values.append(true[k])
                    groups.append(topic)
        if not cols:
            continue
        level, cv = cross_validated_quantile(np.stack(cols, axis=1), np.array(values),
                                             np.array(groups), folds)
        report[m.name] = {"level": level, "cv_rmse": cv, "pairs": len(cols)}
        for r in est.runs:
            r.point[:, i] = np.quantile(r.samples[:, :, i], level, axis=0)
            per_iter = aggregate(r.samples[:, :, i], m.spec.aggregate, axis=1)
            r.run_point[i] = np.quantile(per_iter, level)
    est.point = "fitted quantile"
    return report
