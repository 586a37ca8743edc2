"""Scores under each strategy for unjudged documents, per run, topic and measure."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

import numpy as np

from unjudged.data.diversity import judge_diversity, needs_subtopics
from unjudged.data.judged import PAD, Judged, Pool, evaluated_topics, judge
from unjudged.data.qrels import Qrels
from unjudged.data.run import Run
from unjudged.data.topic_order import natural_key
from unjudged.engine.results import (
    aggregate,
    aggregate_measures,
    aggregate_variance,
    normal_interval,
)
from unjudged.errors import InvalidOptionError, UnjudgedError, shown
from unjudged.measures import Measure, measures_given, parse_measures  # noqa: F401 (doctests)
from unjudged.policies import NameMode, Policies, whole_number
from unjudged.strategies import fill
from unjudged.strategies.base import AtCutoff, Fill, Moments, Sampled
from unjudged.strategies.expected import SHIFTS as EXPECTED_SHIFTS
from unjudged.strategies.growth import Expected, Growth
from unjudged.strategies.position import PositionModel, run_keys
from unjudged.strategies.priors import (
    DEFAULT_CAP,
    DEFAULT_PRIOR,
    DEFAULT_SHARED_SPREAD,
    DEFAULT_SPREAD,
    ESTIMATES,
    MODEL_PRIORS,
    default_grow,
    split_prior,
)
from unjudged.strategies.registry import BASELINE, STRATEGIES
from unjudged.strategies.summaries import STATS, column_blocks, describe, parse_point

if TYPE_CHECKING:
    from unjudged.parallel import Executor

#: The registered strategies' names, in report order ("guaranteed" yields two values, lower and
#: upper). The registry (unjudged.strategies.registry) is the source; this name stays for callers.
METHODS = STRATEGIES.names()


#: what a run-level interval covers (EstimateSettings.population)
POPULATIONS = ("these", "topics")


@dataclass(frozen=True)
class EstimateSettings:
    """What every run's estimate shares (it travels once to each worker).

    `methods` are validated and put in report order (default: every registered strategy);
    `point` and `prior` are checked too, so a bad setting fails before any run is read.

    Example:
        >>> EstimateSettings(methods=("upper", "nonrel"), b=100).methods
        ('nonrel', 'upper')
        >>> EstimateSettings(point="q2")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        unjudged.errors.InvalidOptionError: point must be mean, mode, median or q<level> ...
    """

    methods: tuple[str, ...] = field(default_factory=STRATEGIES.names)
    prior: str = DEFAULT_PRIOR
    b: int = 10_000
    seed: int = 0
    point: str = "mean"
    policies: Policies = field(default_factory=Policies)
    keep_samples: bool = False
    #: the level of the lo-hi interval reported with every bootstrap value
    interval: float = 0.9
    #: the prior's uncertainty: sd of a per-(topic, iteration) and of a per-iteration shift of
    #: its log-odds (unjudged.strategies.bootstrap)
    spread: float = DEFAULT_SPREAD
    shared_spread: float = DEFAULT_SHARED_SPREAD
    #: the run prior of a ranking with no judged document: "pool" or "zero"
    empty_run: str = "zero"
    #: drawn relevant documents add to the normalisers (unjudged.strategies.growth); None:
    #: wherever the prior allows it (pool, position), the default the calibration bench chose
    grow: bool | None = None
    #: whose drawn grades come from what the pool still has: "normalised" measures or "all"
    cap: str = DEFAULT_CAP
    #: the file of the estimates prior (prior "estimates:FILE" sets it), or estimates made in
    #: memory (unjudged.io.estimates.ExternalEstimates: the text prior's), and the weight of
    #: its estimates against the topic prior (None: fitted on the judged documents)
    estimates: Any = None
    trust: float | None = None
    #: each run's log-odds shift of a model prior (position, estimates), learned from its
    #: judged documents against the pool runs' and drawn in every iteration
    #: (unjudged.strategies.misfit)
    misfit: bool = True
    #: what a run-level interval covers: "these" topics (their unjudged documents only), or
    #: also the sampling of "topics" (a bootstrap over topics in every iteration)
    population: str = "these"

    def __post_init__(self) -> None:
        if not isinstance(self.prior, str):
            raise InvalidOptionError(f"prior: expected a name such as 'position' or "
                                     f"'estimates:FILE', got {self.prior!r}")
        if not isinstance(self.point, str):
            raise InvalidOptionError(f"point: expected a name such as 'mean', got "
                                     f"{self.point!r}")
        whole_number(self.b, "b (bootstrap iterations)", 1)
        whole_number(self.seed, "seed")
        if not isinstance(self.policies, Policies):
            raise InvalidOptionError(f"policies: expected unjudged.Policies, got "
                                     f"{shown(self.policies, 60)}")
        prior, path = split_prior(self.prior)
        if path is not None:
            object.__setattr__(self, "prior", prior)
            object.__setattr__(self, "estimates", path)
        if (self.prior == ESTIMATES) != (self.estimates is not None):
            raise InvalidOptionError("the estimates prior names its file (estimates:FILE), "
                                     "and only it reads one")
        if self.trust is not None and not 0.0 <= self.trust <= 1.0:
            raise InvalidOptionError(f"trust must lie in [0, 1], not {self.trust}")
        if self.population not in POPULATIONS:
            raise InvalidOptionError(f"population must be one of {', '.join(POPULATIONS)}, "
                                     f"not {self.population!r}")
        object.__setattr__(self, "methods", check_methods(self.methods))
        if self.grow is None:  # an unknown prior is refused below (Bootstrap.check)
            object.__setattr__(self, "grow", default_grow(self.prior))
        parse_point(self.point)
        for s in STRATEGIES:
            if isinstance(s, Sampled):
                s.check(self)


@dataclass(eq=False)
class RunEstimate:
    """One run's estimates.

    points[column] is (topics, measures) for the deterministic strategies (NaN where a strategy
    does not apply to a measure); `stats` is (topics, measures, 9) over the samples of the
    random strategy (the bootstrap) and `run_stats` (measures, 9) over the per-iteration run
    aggregate; `point` its point estimate (topics, measures) and `run_point` (measures,).
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
    #: the interval of `interval` level around each bootstrap value: (topics, measures, 2)
    #: and (measures, 2) for the run
    lohi: np.ndarray | None = None
    run_lohi: np.ndarray | None = None
    #: the share of the draws on each end of lo-hi: (topics, measures, 2) and (measures, 2)
    ends: np.ndarray | None = None
    run_ends: np.ndarray | None = None
    #: (b, measures) the run-level value in each iteration; iteration i of every run comes
    #: from the same coupled draw, which is what P(A > B) compares
    run_samples: np.ndarray | None = field(default=None, repr=False)
    #: variances[column] (topics, measures) of the columns that report an expectation
    #: (Moments strategies: `points` holds the expectation), and shared[column] the standard
    #: deviation of the part of each that all topics share (see Moments.moments)
    variances: dict[str, np.ndarray] = field(default_factory=dict)
    shared: dict[str, np.ndarray] = field(default_factory=dict)
    #: notes said while estimating it in a worker process (estimate_all says them)
    notes: list[str] = field(default_factory=list, repr=False)

    def summary(self, method: str) -> np.ndarray:
        """Run-level value per measure of a deterministic column."""
        return aggregate_measures(self.points[method], self.measures)

    def drawn(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(stats, run_stats, point, run_point) of the random strategy, which must have been
        estimated (callers that ask for it always do)."""
        if (self.stats is None or self.run_stats is None or self.point is None
                or self.run_point is None):
            raise UnjudgedError(f"run {self.run}: no random strategy was estimated")
        return self.stats, self.run_stats, self.point, self.run_point


@dataclass(eq=False)
class Estimates:
    runs: list[RunEstimate]
    methods: tuple[str, ...]
    prior: str
    b: int
    seed: int
    point: str
    interval: float = 0.9
    #: the model of all runs (position prior) and the grown normalisers the draws used; hand it
    #: to another estimate of some of the same runs to draw exactly the same
    context: DrawContext | None = None
    #: whether the drawn relevant documents grew the normalisers
    grow: bool = False
    #: which runs defined the pool context of the prior and of the grown normalisers
    #: (Reference.label): "each run alone", or the --pool-runs
    reference: str = ""
    #: what the run-level intervals cover (EstimateSettings.population)
    population: str = "these"
    #: the judges' prediction-powered estimates (unjudged.judges.options.JudgeEstimates), when
    #: `unjudged.estimate_runs` was given a judge: their rows follow the strategies' (`ppi`)
    judged: Any = None

    def rows(self, per_topic: bool = True) -> Iterable[dict[str, Any]]:
        """One dict per (run, topic, measure, column): `value`, or a random strategy's
        statistics (with `value` = the chosen point estimate); then the judges' `ppi` rows
        (value, lo, hi), if any."""
        yield from self._strategy_rows(per_topic)
        if self.judged is not None:
            yield from self.judged.rows(per_topic)

    def _strategy_rows(self, per_topic: bool) -> Iterable[dict[str, Any]]:
        methods = expand_methods(self.methods)
        drawn = {c: is_random(c) for c in methods}
        for r in self.runs:
            totals = {m: r.summary(m) for m in methods if m in r.points}
            spread = {m: run_variance(v, r.shared[m], r.measures)
                      for m, v in r.variances.items()}
            # topics in natural order (2 before 10), as every table lists them
            topics = sorted(enumerate(r.topics), key=lambda x: natural_key(x[1])) \
                if per_topic else []
            for t, topic in topics + [(None, "all")]:
                for i, m in enumerate(r.measures):
                    for method in methods:
                        row = _row(r, totals, t, i, method, drawn[method])
                        if row is not None and method in r.variances:
                            var = spread[method][i] if t is None else \
                                r.variances[method][t, i]
                            row.update(_moment_stats(row["value"], var, self.interval,
                                                     m.spec.bounded))
                        if row is not None:
                            yield {"run": r.run, "topic": topic, "measure": m.name,
                                   "method": method, **row}

    def run_draws(self, i: int) -> np.ndarray:
        """(b, runs) run-level samples of measure i, every run drawn with the same coupled
        draws (iteration by iteration); InvalidOptionError when no random strategy was
        estimated."""
        missing = [r.run for r in self.runs if r.run_samples is None]
        if missing:
            raise InvalidOptionError(f"run {missing[0]}: no random strategy was estimated")
        return np.stack([r.run_samples[:, i] for r in self.runs  # type: ignore[index]
                         ], axis=1) if self.runs else np.zeros((self.b, 0))

    def pair_rows(self) -> list[dict[str, Any]]:
        """P(A > B) for every ordered pair of runs, per measure: dicts run_a, run_b, measure,
        p_a_better (unjudged.engine.pairs)."""
        from unjudged.engine.pairs import pair_rows

        names = [r.run for r in self.runs]
        out: list[dict[str, Any]] = []
        for i, m in enumerate(self.runs[0].measures if self.runs else []):
            out += pair_rows(names, m.name, self.run_draws(i))
        return out

    def rank_intervals(self, level: float | None = None) -> dict[str, np.ndarray]:
        """{measure: (runs, 2)} interval of each run's rank (1 = best) over the coupled
        draws, of `level` (default: the estimate's interval)."""
        from unjudged.engine.pairs import rank_intervals

        lvl = self.interval if level is None else level
        return {m.name: rank_intervals(self.run_draws(i), lvl)
                for i, m in enumerate(self.runs[0].measures if self.runs else [])}

    def to_pandas(self, per_topic: bool = True):
        import pandas as pd

        cols = ["run", "topic", "measure", "method", "value", "lo", "hi", *STATS, "p_lo",
                "p_hi"]
        return pd.DataFrame(list(self.rows(per_topic)), columns=cols)


def expand_methods(methods: Iterable[str]) -> list[str]:
    """Strategies as reported: each becomes its columns, e.g. "guaranteed" becomes
    guaranteed_lower and guaranteed_upper.

    Example:
        >>> expand_methods(["upper", "guaranteed"])
        ['upper', 'guaranteed_lower', 'guaranteed_upper']
    """
    out: list[str] = []
    for m in methods:
        out += STRATEGIES[m].columns if m in STRATEGIES else [m]
    return out


def is_random(column: str) -> bool:
    """Whether a reported column holds a distribution (a random strategy's).

    Example:
        >>> is_random("bootstrap"), is_random("guaranteed_lower")
        (True, False)
    """
    try:
        return STRATEGIES.owner(column).random
    except KeyError:
        return False


def has_interval(column: str) -> bool:
    """Whether a reported column comes with an interval: a random strategy's distribution or
    a Moments strategy's expectation.

    Example:
        >>> has_interval("bootstrap"), has_interval("expected"), has_interval("upper")
        (True, True, False)
    """
    try:
        s = STRATEGIES.owner(column)
    except KeyError:
        return False
    return s.random or isinstance(s, Moments)


def _row(r: RunEstimate, totals: dict[str, np.ndarray], t: int | None, i: int,
         method: str, drawn: bool) -> dict[str, float] | None:
    if drawn:
        if r.stats is None or r.run_stats is None or r.point is None or r.run_point is None:
            return None
        stats = r.run_stats[i] if t is None else r.stats[t, i]
        if np.isnan(stats[0]):
            return None
        value = r.run_point[i] if t is None else r.point[t, i]
        bounds = _bounds(r, t, i)
        ends = r.run_ends if t is None else r.ends
        p_lo, p_hi = (float("nan"),) * 2 if ends is None else \
            (float(x) for x in (ends[i] if t is None else ends[t, i]))
        return {"value": float(value), "lo": bounds[0], "hi": bounds[1],
                **{k: float(v) for k, v in zip(STATS, stats, strict=True)},
                "p_lo": p_lo, "p_hi": p_hi}
    values = r.points.get(method)
    if values is None:
        return None
    v = totals[method][i] if t is None else values[t, i]
    return None if np.isnan(v) else {"value": float(v)}


def run_variance(var: np.ndarray, shared: np.ndarray, measures: list[Measure]) -> np.ndarray:
    """(measures,) variance of each run-level value from the per-topic variances `var`
    (topics, measures), of which the part with standard deviation `shared` moves with every
    topic's and the rest is independent across topics."""
    own = np.maximum(var - shared ** 2, 0.0)
    return np.array([aggregate_variance(own[:, i], m.spec.aggregate)
                     + aggregate(shared[:, i], m.spec.aggregate) ** 2
                     for i, m in enumerate(measures)])


def _moment_stats(value: float, var: float, level: float,
                  bounds: tuple[float, float] | None) -> dict[str, float]:
    """lo, hi (normal, clipped to the measure's range), mean and std of an expectation."""
    lo, hi = normal_interval(value, var, level, bounds)
    return {"lo": float(lo), "hi": float(hi), "mean": value, "std": float(np.sqrt(var))}


def _bounds(r: RunEstimate, t: int | None, i: int) -> tuple[float, float]:
    lohi = r.run_lohi if t is None else r.lohi
    if lohi is None:
        return float("nan"), float("nan")
    pair = lohi[i] if t is None else lohi[t, i]
    return float(pair[0]), float(pair[1])


def check_methods(methods: Iterable[str]) -> tuple[str, ...]:
    """Strategy names validated against the registry, in report order; InvalidOptionError
    (a ValueError) names the first unknown one.

    Example:
        >>> check_methods(["bootstrap", "nonrel"])
        ('nonrel', 'bootstrap')
    """
    return STRATEGIES.check(methods)


def judge_for(run: Run, qrels: Qrels, measures: list[Measure],
              policies: Policies = Policies(), pool: Pool | None = None) -> Judged:
    """The run judged as `measures` need it: diversity measures read each ranked document's
    subtopics too."""
    return (judge_diversity if needs_subtopics(measures) else judge)(run, qrels, policies, pool)


def estimate_run(run: Run, qrels: Qrels, measures: list[Measure], *,
                 methods: Iterable[str] | None = None, prior: str = DEFAULT_PRIOR,
                 b: int = 10_000, seed: int = 0, point: str = "mean",
                 policies: Policies = Policies(), pool: Pool | None = None,
                 keep_samples: bool = False, judged: Judged | None = None,
                 **draw: Any) -> RunEstimate:
    """Every requested strategy (default: every registered one) for one run (see `estimate`).
    `judged` may hand over the run already judged by `judge_for` with the same qrels, measures
    and policies; `draw` takes EstimateSettings' other fields (interval, spread, ...)."""
    settings = EstimateSettings(_method_names(methods), prior, b, seed, point, policies,
                                keep_samples, **draw)
    return estimate_with(run, qrels, measures, settings, pool=pool, judged=judged)


def estimate_with(run: Run, qrels: Qrels, measures: list[Measure], settings: EstimateSettings,
                  *, pool: Pool | None = None, judged: Judged | None = None,
                  context: DrawContext | None = None) -> RunEstimate:
    """estimate_run with its settings as one object. `context` holds what random strategies
    share across all the runs estimated together (`draw_context`; built from this run alone
    when not given).

    Example:
        >>> from unjudged.io import read_qrels, read_run
        >>> q = read_qrels({"t": {"a": 1, "b": 0, "c": 1}})
        >>> r = estimate_with(read_run({"t": {"a": 2.0, "x": 1.0}}), q, parse_measures("P@2"),
        ...                   EstimateSettings(methods=("nonrel", "upper")))
        >>> r.points["nonrel"].tolist(), r.points["upper"].tolist()
        ([[0.5]], [[1.0]])
    """
    how = parse_point(settings.point)
    chosen = [STRATEGIES[name] for name in settings.methods]
    if judged is None:
        judged = judge_for(run, qrels, measures, settings.policies, pool)
    n, nm, b = len(judged.topics), len(measures), settings.b
    points = {c: np.full((n, nm), np.nan) for s in chosen if isinstance(s, (Fill, Moments))
              for c in s.columns}
    expecting = [s for s in chosen if isinstance(s, Moments)]
    variances = {c: np.full((n, nm), np.nan) for s in expecting for c in s.columns}
    shared = {c: np.zeros((n, nm)) for s in expecting for c in s.columns}
    plain = points.get(BASELINE, np.full((n, nm), np.nan))
    baseline = STRATEGIES[BASELINE]
    assert isinstance(baseline, Fill)  # the registry's baseline is deterministic
    fills = [s for s in chosen if isinstance(s, Fill) and s is not baseline]
    sampled = [s for s in chosen if isinstance(s, Sampled)]
    samples = np.full((b, n, nm), np.nan) if sampled else None
    keys = run_keys(run, judged.topics, judged.depth) if sampled or expecting else None
    if context is None:
        context = draw_context([run], qrels, measures, settings)
    once: dict[str, tuple[Judged, ...]] = {}  # rankings that do not depend on the cutoff
    shift = run_shift(run, judged, keys, context, settings) \
        if sampled and n and keys is not None else None
    for k, idx in _by_cutoff(measures).items():
        at = AtCutoff(judged, k, fill.top(judged, k), keys, context.model, context.growth_at(k),
                      context.expected, shift)
        # each strategy's rankings are built once per cutoff, when some measure needs them
        here: dict[str, tuple[Judged, ...]] = {}
        for i in idx:
            m = measures[i]
            plain[:, i] = baseline.values(m, _rankings(baseline, at, once, here))[0]
            for s in fills:
                if s.applies(m):
                    values = s.values(m, _rankings(s, at, once, here))
                    for column, v in zip(s.columns, values, strict=True):
                        points[column][:, i] = v
        for e in expecting:  # the grade distributions are built once per cutoff
            todo = [i for i in idx if e.applies(measures[i])]
            if not todo or not n:  # no measure of its, or no topic shared with the qrels
                continue
            got = e.moments(at, [measures[i] for i in todo], settings)
            c = e.columns[0]
            for i, (mean, var, common) in zip(todo, got, strict=True):
                points[c][:, i], variances[c][:, i], shared[c][:, i] = mean, var, common
        for d in sampled:
            todo = [i for i in idx if d.applies(measures[i])]
            if samples is not None and todo and n:
                d.draw(at, [measures[i] for i in todo], todo, samples, settings)
    out = RunEstimate(run.name, judged.topics, measures, points, nonrel=plain,
                      variances=variances, shared=shared)
    if samples is not None:
        out.stats, out.point, out.lohi = describe(samples, how, settings.interval)
        per_iter = aggregate_measures(samples, measures)  # (b, measures)
        out.run_stats, out.run_point, out.run_lohi = describe(per_iter, how, settings.interval)
        if settings.population == "topics":
            # the interval (and P(A > B), ranks) also covers the sampling of topics: every
            # iteration resamples them; the point stays the estimate on these topics
            from unjudged.strategies.bootstrap import topic_weights

            weights = topic_weights(judged.topics, settings.seed, b)
            per_iter = aggregate_measures(samples, measures, weights)
            point = out.run_point
            out.run_stats, _, out.run_lohi = describe(per_iter, how, settings.interval)
            out.run_point = point
        out.run_samples = per_iter
        out.ends, out.run_ends = end_mass(samples, out.lohi), end_mass(per_iter, out.run_lohi)
        if settings.keep_samples:
            out.samples = samples
    return out


def end_mass(samples: np.ndarray, lohi: np.ndarray) -> np.ndarray:
    """(..., 2) the share of `samples` (axis 0) equal to each end of their interval `lohi`
    (to 12 decimals): with one or two unjudged documents a distribution takes a few values
    and the interval's ends hold much of it.

    Example:
        >>> s = np.array([[0.0], [0.5], [0.5], [1.0]])
        >>> end_mass(s, np.array([[0.0, 1.0]])).tolist()
        [[0.25, 0.25]]
    """
    tol = 1e-12
    b = samples.shape[0]
    cols, ends = samples.reshape(b, -1), lohi.reshape(-1, 2)
    out = np.empty(ends.shape)
    for s in column_blocks(b, cols.shape[1]):  # temporaries of 16 MB, not b x n
        for e in range(2):
            out[s, e] = (np.abs(cols[:, s] - ends[s, e]) <= tol).mean(axis=0)
    return out.reshape(lohi.shape)


def growth_of(model: PositionModel, qrels: Qrels, measures: list[Measure],
              settings: EstimateSettings) -> dict[int | None, Growth]:
    """Per cutoff of the measures, the drawn grade counts that grow its normalisers: every
    unjudged document some run retrieves, at any rank (a deeper collection's normaliser counts
    relevant documents below any cutoff of ours). Those within the cutoff (all for uncut
    measures) are drawn as in the runs; the deeper ones as a sum (unjudged.strategies.growth).
    One per cutoff, so that a measure's draws do not depend on the other measures asked for
    beside it."""
    levels = max(int(qrels.key_grades.max(initial=0)) + 1, 2)
    cutoffs = sorted({m.cutoff for m in measures}, key=lambda c: (c is None, c or 0))
    return {k: Growth.build(model, qrels, settings, levels, settings.b, exact_depth=k)
            for k in cutoffs}


def _rankings(s: Fill, at: AtCutoff, once: dict[str, tuple[Judged, ...]],
              here: dict[str, tuple[Judged, ...]]) -> tuple[Judged, ...]:
    store = here if s.by_cutoff else once
    if s.name not in store:
        store[s.name] = s.rankings(at)
    return store[s.name]


def _by_cutoff(measures: list[Measure]) -> dict[int | None, list[int]]:
    groups: dict[int | None, list[int]] = {}
    for i, m in enumerate(measures):
        groups.setdefault(m.cutoff, []).append(i)
    return groups


def estimate_runs(runs: Iterable[Run], qrels: Qrels, measures: list[Measure], *,
                  methods: Iterable[str] | None = None, prior: str = DEFAULT_PRIOR,
                  b: int = 10_000, seed: int = 0, point: str = "mean",
                  policies: Policies = Policies(), keep_samples: bool = False, workers: int = 1,
                  executor: Executor | None = None, desc: str | None = None,
                  context: DrawContext | None = None, pool_runs: Sequence[Run] | None = None,
                  **draw: Any) -> Estimates:
    """estimate_run for each run, on `executor` (unjudged.parallel; default: this process).

    `pool_runs` are the runs that define the pool context (the position prior's features, the
    documents whose drawn grades grow the normalisers); without them each run's context is
    the qrels and that run alone. A run's rows never depend on the other runs estimated with
    it (see Reference).

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
    from unjudged.parallel import ProcessExecutor

    settings = EstimateSettings(_method_names(methods), prior, b, seed, point, policies,
                                keep_samples, **draw)
    if executor is None and workers > 1:
        with ProcessExecutor(workers) as ex:
            return estimate_all(runs, qrels, measures, settings, executor=ex, desc=desc,
                                context=context, pool_runs=pool_runs)
    return estimate_all(runs, qrels, measures, settings, executor=executor, desc=desc,
                        context=context, pool_runs=pool_runs)


def _method_names(methods: Any) -> tuple[str, ...]:
    """The strategies asked for: None (all), names, or one text of comma-separated names."""
    if methods is None:
        return STRATEGIES.names()
    if isinstance(methods, str):
        return tuple(m.strip() for m in methods.split(",") if m.strip())
    if not isinstance(methods, Iterable) or not all(isinstance(m, str) for m in methods):
        raise InvalidOptionError(f"methods: expected names such as ['upper', 'bootstrap'], "
                                 f"got {shown(methods, 60)}")
    return tuple(methods)


@dataclass(frozen=True)
class DrawContext:
    """What random strategies share across all the runs of one estimate."""

    model: PositionModel | None = None
    #: the grown normalisers per cutoff of the measures (growth_of), when they grow
    growth: dict[int | None, Growth] | None = None
    expected: Expected | None = None
    #: the pool runs' judged misfits (unjudged.strategies.misfit.Pool), when runs shift
    misfit: Any = None

    def growth_at(self, cutoff: int | None) -> Growth | None:
        """The grown normalisers a measure at `cutoff` reads (None: they do not grow)."""
        if self.growth is None:
            return None
        if cutoff not in self.growth:
            raise RuntimeError(f"no grown normalisers for cutoff {cutoff}")  # a bug
        return self.growth[cutoff]


@dataclass(frozen=True)
class _Shared:
    """What travels once to each worker: a run is one task (runs are big)."""

    qrels: Qrels
    measures: list[Measure]
    pools: dict[tuple[str, ...], Pool]
    settings: EstimateSettings
    context: DrawContext
    reference: Reference | None = None


def run_print(run: Run) -> bytes:
    """A digest of what a run's draws read of it: its topics and ranked documents (not
    its name or scores, which change no feature of the prior)."""
    import hashlib

    from unjudged.strategies.position import doc_keys

    held = run.__dict__.get("_print")
    if held is None:
        h = hashlib.blake2b(digest_size=16)
        h.update("\0".join(run.topics).encode("utf-8", "surrogatepass"))
        h.update(np.asarray(run.offsets, dtype=np.int64).tobytes())
        h.update(doc_keys(run).tobytes())
        held = run.__dict__["_print"] = h.digest()
    return held


@dataclass(frozen=True)
class Reference:
    """The runs that define the pool context of every estimate: the position prior's
    features and fit, and the unjudged documents whose drawn grades grow the normalisers.

    A run's estimate depends only on the qrels, the run, these runs, the options and the
    seed, never on which other runs are estimated beside it: a run that is one of `runs`
    (the same ranked documents) draws from their shared context; any other run from the
    context of `runs` and itself; with no `runs`, from its own.
    """

    runs: tuple[Run, ...] = ()
    context: DrawContext | None = None
    prints: frozenset[bytes] = frozenset()

    @classmethod
    def of(cls, pool_runs: Sequence[Run] | None, qrels: Qrels, measures: list[Measure],
           settings: EstimateSettings) -> Reference:
        runs = tuple(pool_runs or ())
        if not runs:
            return cls()
        return cls(runs, draw_context(runs, qrels, measures, settings),
                   frozenset(run_print(r) for r in runs))

    @property
    def label(self) -> str:
        n = len(self.runs)
        return "each run alone" if not n else f"{n} pool run{'s' * (n != 1)} (--pool-runs)"

    def member(self, run: Run) -> bool:
        return self.context is not None and run_print(run) in self.prints

    def falls_back(self, settings: EstimateSettings) -> bool:
        """Whether the position prior sees fewer than MIN_RUNS runs: the pool runs (a run
        outside them adds itself), or each run alone."""
        from unjudged.strategies.position import MIN_RUNS

        return settings.prior == "position" and len(self.runs) < MIN_RUNS

    def context_for(self, run: Run, qrels: Qrels, measures: list[Measure],
                    settings: EstimateSettings) -> DrawContext:
        if self.context is not None and self.member(run):
            return self.context
        return draw_context([*self.runs, run], qrels, measures, settings)

    def without_runs(self) -> Reference:
        """What a worker needs when every run it estimates is one of the pool runs."""
        return Reference((), self.context, self.prints) if self.runs else self


def draw_context(runs: Sequence[Run], qrels: Qrels, measures: list[Measure],
                 settings: EstimateSettings) -> DrawContext:
    """The position prior's model of `runs` and the grown normalisers (drawn for the random
    strategies, expected for the Moments ones), where the settings' strategies need them (an
    empty context otherwise)."""
    if not _shares_context(settings):
        return DrawContext()
    model = prior_model(runs, qrels, settings)
    chosen = [STRATEGIES[m] for m in settings.methods]
    growth = growth_of(model, qrels, measures, settings) \
        if settings.grow and any(s.random for s in chosen) else None
    levels = max(int(qrels.key_grades.max(initial=0)) + 1, 2)
    # always with the counts at +- a shift (the prior's uncertainty): a context may serve
    # another estimate of the same runs, whose spreads differ (and they cost little)
    expected = Expected.build(model, qrels, settings, levels, EXPECTED_SHIFTS) \
        if settings.grow and any(isinstance(s, Moments) for s in chosen) else None
    misfit = pool_misfit(runs, qrels, model, settings) if _shifts_runs(settings) else None
    return DrawContext(model, growth, expected, misfit)


def _shifts_runs(settings: EstimateSettings) -> bool:
    return settings.misfit and settings.prior in MODEL_PRIORS and any(
        STRATEGIES[m].random for m in settings.methods)


def pool_misfit(runs: Sequence[Run], qrels: Qrels, model: PositionModel,
                settings: EstimateSettings):
    """The judged misfits of `runs` under `model`: their mean and between-run spread."""
    from unjudged.parallel import ThreadExecutor
    from unjudged.strategies.misfit import DEPTH, Pool, judged_offset

    pol = settings.policies

    def offset(run: Run) -> tuple[float, float]:
        j = judge(run, qrels, pol)
        keys = run_keys(run, j.topics, min(j.depth, DEPTH))
        return judged_offset(j.grades, keys, j.topics, model, pol.rel_level)

    # two runs at a time: judging and the model's probabilities are numpy's work, which
    # releases the GIL (10 runs of 100,000 topics: 4-6 s one at a time -> 3 s); in the runs'
    # order. The qrels' document index first, if a run needs it (one read without these
    # qrels: judge looks its documents up there): built once, not by both threads
    if any(run.judged_pairs(qrels) is None for run in runs):
        qrels.doc_index()
    with ThreadExecutor(2) as threads:
        found = threads.map(offset, runs)
    table = np.array(found, dtype=float).reshape(-1, 2)
    return Pool.of(table[:, 0], table[:, 1])


def run_shift(run: Run, judged: Judged, keys: np.ndarray, context: DrawContext,
              settings: EstimateSettings):
    """This run's misfit shift (unjudged.strategies.misfit.RunShift), or None."""
    if context.misfit is None or context.model is None:
        return None
    from unjudged.strategies.misfit import RunShift, judged_offset

    shift, error = judged_offset(judged.grades, keys, judged.topics, context.model,
                                 settings.policies.rel_level)
    key = int.from_bytes(run_print(run)[:8], "little")
    return RunShift.of(shift, error, context.misfit, key)


def prior_model(runs: Sequence[Run], qrels: Qrels, settings: EstimateSettings) -> PositionModel:
    """The model of `runs` the draws read: the position prior's, extended by the estimates
    prior's file when that is the prior (its probabilities then come from the estimates)."""
    pol = settings.policies
    model = PositionModel.build(runs, qrels, pol.rel_level, pol.depth)
    return external_prior(model, qrels, settings) if settings.prior == ESTIMATES else model


def external_prior(model: PositionModel, qrels: Qrels, settings: EstimateSettings):
    """The estimates prior of settings.estimates over `model`, with a note on how well the
    estimates predict the judged documents (and on estimates of topics the qrels lack)."""
    from unjudged.errors import note
    from unjudged.io.estimates import read_estimates
    from unjudged.strategies.external import ExternalPrior

    assert settings.estimates is not None  # EstimateSettings checks it
    levels = max(int(qrels.key_grades.max(initial=0)) + 1, 2)
    prior = ExternalPrior.of(model, read_estimates(settings.estimates), qrels, levels,
                             settings.trust)
    f = prior.fit
    how = "fitted on" if f["fitted"] else "given; compared on"
    name = estimates_name(settings.estimates)
    if f["judged_compared"]:
        fit = (f"{how} {f['judged_compared']} judged documents with an estimate: log loss "
               f"{f['log_loss_estimates']:.4f} estimates, {f['log_loss_topic']:.4f} topic "
               f"prior, {f['log_loss_blend']:.4f} blend")
    else:  # no log loss to show (nan): say why
        fit = ("no judged document has an estimate, so the topic prior alone" if f["fitted"]
               else "given; no judged document has an estimate to check it on")
    note(f"estimates {name}: {f['estimates']} estimates; trust {f['trust']:.3f} ({fit})")
    if f["other_topics"]:
        note(f"estimates {name}: {f['other_topics']} estimates of topics the "
             "qrels lack are ignored")
    return prior


def estimates_name(estimates: Any) -> str:
    """How notes and labels name the estimates prior's source: its file, or the source of
    estimates made in memory."""
    return estimates if isinstance(estimates, str) else str(getattr(estimates, "source",
                                                                    "<estimates>"))


def _shares_context(settings: EstimateSettings) -> bool:
    return ((settings.prior in MODEL_PRIORS or bool(settings.grow))
            and any(STRATEGIES[m].uses_prior for m in settings.methods))


def check_draws(settings: EstimateSettings, qrels: Qrels, measures: list[Measure]) -> None:
    """Refuse a b whose draws cannot fit in memory (one line, before any work): each
    iteration keeps a float64 per topic, measure and random method, and the growth of the
    normalisers an int32 per topic and grade (-b 1000000000 once asked numpy for 56 GiB).

    Example:
        >>> from unjudged.io import read_qrels
        >>> from unjudged.errors import InvalidOptionError
        >>> q = read_qrels({"t": {"a": 1, "b": 0}})
        >>> try:
        ...     check_draws(EstimateSettings(b=10 ** 15), q, parse_measures("P@2"))
        ... except InvalidOptionError as exc:
        ...     print(str(exc).split(" needs")[0])
        -b 1000000000000000 (1 topics, 1 measures)
    """
    from unjudged.data._memory import check_fits

    randoms = sum(STRATEGIES[m].random for m in settings.methods)
    if randoms:
        levels = int(qrels.key_grades.max(initial=0)) + 2 if qrels.key_grades.size else 2
        topics = len(qrels.topics)
        check_fits(float(settings.b) * topics * (8 * len(measures) * randoms + 4 * levels),
                   f"-b {settings.b} ({topics} topics, {len(measures)} measures)")


def estimate_all(runs: Iterable[Run], qrels: Qrels, measures: list[Measure],
                 settings: EstimateSettings, *, executor: Executor | None = None,
                 desc: str | None = None, context: DrawContext | None = None,
                 pool_runs: Sequence[Run] | None = None) -> Estimates:
    """estimate_runs with its settings as one object. A `context` (draw_context of some
    runs) serves every run as it is; otherwise each run's comes from `pool_runs` and the run
    (Reference).

    Example:
        >>> from unjudged.io import read_qrels, read_run
        >>> q = read_qrels({"t": {"a": 1, "b": 0}})
        >>> est = estimate_all([read_run({"t": {"a": 2.0, "x": 1.0}})], q, parse_measures("P@2"),
        ...                    EstimateSettings(methods=("bootstrap",), b=50, seed=1))
        >>> est.methods, float(est.runs[0].run_point[0])  # x relevant about half the time
        (('bootstrap',), 0.79)
    """
    from unjudged.parallel import SerialExecutor

    check_draws(settings, qrels, measures)
    _note_one_draw(settings)
    policies = settings.policies
    pools: dict[tuple[str, ...], Pool] = {}

    def pool_of(run: Run) -> tuple[str, ...]:
        key = tuple(evaluated_topics(run, qrels, policies.complete))
        if key not in pools:  # runs of the same topics share one (built once)
            pools[key] = Pool.build(qrels, list(key), policies.negative)
        return key

    reference = None
    if context is None and _shares_context(settings):
        reference = Reference.of(pool_runs, qrels, measures, settings)
        _note_reference(reference, settings)
    if any(STRATEGIES[m].uses_prior for m in settings.methods):
        note_qrels(qrels, settings.policies.rel_level, settings.prior, settings.empty_run)
    shared_context = context or (reference.context if reference else None) or DrawContext()

    if executor is None or isinstance(executor, SerialExecutor):
        # one run at a time, as they are read, so only one is ever held in memory; each note
        # said once, as from workers (a run's own context would repeat it for every run)
        from unjudged.parallel import progress_bar

        out = []
        shared = _Shared(qrels, measures, pools, settings, shared_context, reference)
        with progress_bar(None, desc, unit="runs") as bar:
            for run in runs:
                pool_of(run)
                out.append(_estimate_task(shared, run))
                bar.update()
    else:
        runs = list(runs)
        for run in runs:
            pool_of(run)
        # the workers' copy only: the pool runs need not travel (the label below still
        # counts them)
        travels = reference.without_runs() if reference is not None and all(
            reference.member(r) for r in runs) else reference
        out = executor.map(_estimate_task, runs, desc=desc, chunksize=1,
                           shared=_Shared(qrels, measures, pools, settings, shared_context,
                                          travels))
    from unjudged.errors import note

    for message in dict.fromkeys(m for r in out for m in r.notes):
        note(message)
    label = (settings.prior if settings.estimates is None
             else f"{ESTIMATES}:{estimates_name(settings.estimates)}")
    return Estimates(out, settings.methods, label, settings.b, settings.seed,
                     settings.point, settings.interval,
                     # each run alone: no context to hand on (another estimate builds each
                     # run's own again)
                     None if reference is not None and reference.context is None
                     else shared_context, bool(settings.grow),
                     _reference_label(reference, settings), settings.population)


def _note_one_draw(settings: EstimateSettings) -> None:
    """Say that -b 1 leaves nothing of the distribution but one draw."""
    from unjudged.errors import note

    if settings.b == 1 and any(STRATEGIES[m].random for m in settings.methods):
        note("-b 1: one bootstrap draw: its value is one possible outcome, its interval that "
             "value alone (no spread) and each P(A > B) 0 or 1; the intervals need many draws "
             "(the default is 10000)")


def _reference_label(reference: Reference | None, settings: EstimateSettings) -> str:
    if reference is None:
        return ""
    label = reference.label + ("; fewer than 5 runs: the topics' relevance rates"
                               * reference.falls_back(settings))
    misfit = reference.context.misfit if reference.context is not None else None
    if misfit is not None and misfit.runs:
        from unjudged.strategies.misfit import DEPTH

        # what every run's shift is measured against: the pool runs' judged misfit
        label += (f"; their misfit in the judged top {DEPTH}: centre {misfit.centre:+.2f}, "
                  f"tau {misfit.tau:.2f} (log-odds)")
    return label


def _note_reference(reference: Reference, settings: EstimateSettings) -> None:
    """Say when the position prior, seeing fewer than MIN_RUNS runs, falls back to the
    topics' relevance rates."""
    from unjudged.errors import note
    from unjudged.strategies.position import MIN_RUNS

    if reference.falls_back(settings):
        n = len(reference.runs)
        seen = "no --pool-runs: each run is its own pool context" if not n else \
            f"{n} --pool-runs (a run outside them makes {n + 1})"
        note(f"position prior: {seen}, fewer than {MIN_RUNS} runs to tell the documents "
             "many runs agree on from the rest, so every unjudged document draws from its "
             "topic's relevance rate among the judged documents (as --prior pool), and the "
             "normalisers grow from these runs' documents only, so measures divided by every "
             "relevant document (AP, R-prec) sit high (TREC-COVID round 1, AP@100: +0.056 a "
             "run alone, +0.011 beside the 143); name the runs that define the pool with "
             "--pool-runs")


#: what drawing from qrels without a non-relevant judgment means, per prior (note_qrels)
_ONLY_RELEVANT = {
    "pool": "--prior pool draws each unjudged document from its topic's judged grades, all "
            "relevant there, so every unjudged document is drawn relevant: the estimates say "
            "what a run would score if all its unjudged documents were relevant, not how good "
            "it is",
    "run": "--prior run draws from the ranking's own judged documents in the top k, all "
           "relevant there: every unjudged document of a ranking with a judged one is drawn "
           "relevant, and a ranking without any draws {empty}; the estimates follow how many "
           "judged documents a run retrieved, not how good it is",
    "pool+run": "--prior pool+run averages the two: an unjudged document is drawn relevant "
                "surely where its ranking holds a judged document in the top k, and with "
                "probability {half} where it holds none; the estimates follow how many judged "
                "documents a run retrieved, not how good it is",
    "position": "--prior position fits each topic's odds of relevance on its judged "
                "documents, all relevant there: unjudged documents are drawn relevant almost "
                "surely whichever runs retrieve them, and the estimates sit near what a run "
                "would score if all were relevant",
    "estimates": "--prior {prior} fits its trust in the estimates on the judged documents, all "
                 "relevant there, where the topic's rate (relevant) predicts best: the fitted "
                 "trust tends to 0 and unjudged documents are drawn relevant as with --prior "
                 "pool (give --trust to use the estimates anyway)",
}


def note_qrels(qrels: Qrels, rel_level: int = 1, prior: str = DEFAULT_PRIOR,
               empty_run: str = "zero") -> None:
    """Say when the qrels cannot teach a prior what an unjudged document is: topics whose
    judged documents are all relevant (relevant-only qrels, such as many converted classic
    collections), and topics without a judged document; what that means depends on `prior`.

    Example:
        >>> import warnings
        >>> from unjudged.io import read_qrels
        >>> with warnings.catch_warnings(record=True) as seen:
        ...     warnings.simplefilter("always")
        ...     note_qrels(read_qrels({"t": {"a": 1}, "u": {"b": 1, "c": 0}}), prior="run")
        >>> print(str(seen[0].message)[:71])
        1 of 2 topics have no non-relevant judgment: --prior run draws from the
    """
    from unjudged.errors import note

    n = len(qrels.topics)
    if n == 0:
        return
    judged, nonrel = qrels.judged_counts(rel_level)
    empty = int((judged == 0).sum())
    only_rel = int(((judged > 0) & (nonrel == 0)).sum())
    if only_rel:
        which = "the qrels hold no non-relevant judgment" if only_rel == n else \
            f"{only_rel} of {n} topics have no non-relevant judgment"
        name = "estimates" if prior in ("text", "estimates") or prior.startswith("estimates:") \
            else prior
        what = _ONLY_RELEVANT.get(name, _ONLY_RELEVANT["pool"]).format(
            prior=prior, empty="them all non-relevant (--empty-run zero)"
            if empty_run == "zero" else "them as the pool does (relevant)",
            half="1/2" if empty_run == "zero" else "1")
        note(f"{which}: {what}; qrels that list only relevant documents need their "
             "non-relevant judgments to say more")
    if empty:
        note(f"{empty} of {n} topics have no judged document: nothing says how often their "
             "unjudged documents are relevant (the position prior puts them at even odds "
             "before its shared slopes; the pool and run priors draw grade 0)")


def _estimate_task(shared: _Shared, run: Run) -> RunEstimate:
    import warnings

    from unjudged.errors import UnjudgedWarning

    key = tuple(evaluated_topics(run, shared.qrels, shared.settings.policies.complete))
    # a worker's notes (a fitted trust, a fallback) would be lost with its process: they
    # travel back with the estimate and the caller says them
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always", UnjudgedWarning)
        context = shared.context if shared.reference is None else \
            shared.reference.context_for(run, shared.qrels, shared.measures, shared.settings)
        out = estimate_with(run, shared.qrels, shared.measures, shared.settings,
                            pool=shared.pools[key], context=context)
    out.notes = [str(w.message) for w in seen if issubclass(w.category, UnjudgedWarning)]
    for w in seen:  # anything else as it came
        if not issubclass(w.category, UnjudgedWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return out


def strategy_results(est: Estimates, method: str):
    """One reported column's values as evaluation Results (what `eval --unjudged` prints)."""
    from unjudged.engine.results import Results, RunResult

    drawn = is_random(method)
    runs = []
    for r in est.runs:
        if drawn:
            assert r.point is not None and r.run_point is not None  # estimated with it
            values, totals = r.point.copy(), r.run_point.copy()
        else:
            values, totals = r.points[method].copy(), r.summary(method)
        # measures about judgments themselves are the same under every strategy
        fixed = [i for i, m in enumerate(r.measures) if not m.spec.estimable]
        assert r.nonrel is not None  # always computed
        values[:, fixed] = r.nonrel[:, fixed]
        totals[fixed] = aggregate_measures(r.nonrel, r.measures)[fixed]
        runs.append(RunResult(r.run, r.topics, r.measures, values, totals))
    return Results(runs)


def estimate(runs: Any, qrels: Any, measures: Any, *, methods: Iterable[str] | None = None,
             prior: str = DEFAULT_PRIOR, b: int = 10_000, seed: int = 0, point: str = "mean",
             per_topic: bool = True, policies: Policies | None = None, names: NameMode = "tag",
             pool_runs: Any = None, **policy_kw: Any):
    """Scores under each strategy for unjudged documents, as a tidy DataFrame.

    Columns run, topic ("all" for the run level), measure, method (nonrel, condensed, upper,
    bootstrap, guaranteed_lower, guaranteed_upper: every registered strategy's columns by
    default), value, and for the bootstrap mean, mode, std, p5, p25, p50, p75, p90, p95.
    `prior` is pool, run or pool+run; `b` the number of bootstrap iterations; `point` the
    bootstrap's point estimate (mean, mode, median, q0.75); "estimates:FILE" as the prior draws
    from relevance estimates made elsewhere (unjudged.strategies.external). `runs` and `names`
    are taken as by `evaluate` (e.g. a dict {name: run}); `pool_runs` (taken the same way)
    are the runs that define the prior's pool context (default: each run alone; Reference).
    Other keywords are EstimateSettings'
    draw options (interval, spread, shared_spread, empty_run, grow, cap, trust) or Policies'
    fields.

    Example:
        >>> df = estimate({"q": {"a": 3, "x": 2, "b": 1}}, {"q": {"a": 1, "b": 0, "c": 1}},
        ...               "P@2", methods=["nonrel", "upper"])
        >>> df[df.topic == "all"][["method", "value"]].values.tolist()
        [['nonrel', 0.5], ['upper', 1.0]]
    """
    from unjudged.engine.score import _as_runs, policies_from
    from unjudged.io import read_qrels

    draw = {k: policy_kw.pop(k) for k in list(policy_kw) if k in _DRAW_FIELDS}
    _refuse_unread(_method_names(methods), prior, draw)
    pol = policies_from(policies, policy_kw)
    q = read_qrels(qrels)
    ms = measures_given(measures)
    pool = None if pool_runs is None else list(_as_runs(pool_runs, pol.ties, q, "file"))
    est = estimate_runs(_as_runs(runs, pol.ties, q, names), q, ms, methods=methods,
                        prior=prior, b=b, seed=seed, point=point, policies=pol,
                        pool_runs=pool, **draw)
    return est.to_pandas(per_topic=per_topic)


def unread_options(methods: Iterable[str], judged: bool = False) -> tuple[tuple[str, ...], str]:
    """The options that `methods` ignore (EstimateSettings' fields and estimate's arguments,
    by their Python names) and why, or ((), "") when they read them all; `judged`: a judge's
    ppi rows, which read b, seed and interval, come too. The command line (unjudged.cli.
    evaluate) and `estimate` refuse them: an option either applies or is refused.

    Example:
        >>> names, why = unread_options(["expected"])
        >>> names, why
        (('point', 'misfit', 'population', 'b', 'seed'), 'draw nothing')
    """
    chosen = [STRATEGIES[m] for m in check_methods(methods)]
    if not any(s.uses_prior for s in chosen):  # nothing drawn, no interval
        return ("prior", "pool_runs", "empty_run", "grow", "trust", "cap", "spread",
                "shared_spread", "point", "misfit", "population") + \
            (() if judged else ("b", "seed", "interval")), "neither draw nor read a prior"
    if not any(s.random for s in chosen):
        return ("point", "misfit", "population") + (() if judged else ("b", "seed")), \
            "draw nothing"
    return (), ""


def _refuse_unread(methods: tuple[str, ...], prior: str, draw: dict[str, Any]) -> None:
    """Refuse draw keywords that `methods` (and `prior`) would ignore (unread_options).

    Example:
        >>> _refuse_unread(("nonrel",), "position", {"interval": 0.5})
        Traceback (most recent call last):
        ...
        unjudged.errors.InvalidOptionError: interval does not apply to methods nonrel, which \
neither draw nor read a prior
    """
    names, why = unread_options(methods)
    bad = sorted(set(draw) & set(names))
    reason = f"to methods {','.join(methods)}, which {why}"
    if not bad and "trust" in draw and not str(prior).startswith(ESTIMATES):
        bad, reason = ["trust"], f"without prior {ESTIMATES}:FILE"
    if bad:
        raise InvalidOptionError(f"{', '.join(bad)} {'does' if len(bad) == 1 else 'do'} not "
                                 f"apply {reason}")


#: EstimateSettings' fields that `estimate` takes as keywords beside the policies (the others
#: are its own arguments)
_DRAW_FIELDS = frozenset(f.name for f in fields(EstimateSettings)) - {
    "methods", "prior", "b", "seed", "point", "policies", "keep_samples", "estimates"}


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
        for r, j in zip(est.runs, truths, strict=True):
            if r.samples is None or r.point is None or r.run_point is None:
                raise InvalidOptionError("fitting a quantile needs the bootstrap samples")
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
            assert r.samples is not None and r.point is not None and r.run_point is not None
            r.point[:, i] = np.quantile(r.samples[:, :, i], level, axis=0)
            per_iter = aggregate(r.samples[:, :, i], m.spec.aggregate, axis=1)
            r.run_point[i] = np.quantile(per_iter, level)
    est.point = "fitted quantile"
    return report
