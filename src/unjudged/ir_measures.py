"""unjudged as an ir_measures provider, and measure objects for its estimates.

`import unjudged.ir_measures` registers a provider named ``unjudged``
(``ir_measures.providers.registry["unjudged"]``) and appends it to ir_measures'
``DefaultPipeline``, after the providers already there (so ir_measures' own results for its
measures do not change, and the measures below work wherever ir_measures evaluates, e.g. in
PyTerrier's ``Experiment``). Use it directly with::

    import ir_measures
    import unjudged.ir_measures as uim
    uim.provider.calc_aggregate([ir_measures.nDCG@10, uim.Upper(ir_measures.nDCG@10)],
                                qrels, run)

It takes ir_measures' measure objects (translated by name through
`unjudged.measures.parse_measure`: only those unjudged computes natively) and every input
ir_measures accepts (dicts, DataFrames with query_id/doc_id/score or relevance columns,
iterables of `Qrel` / `ScoredDoc`). Topics follow ir_measures: every query of the qrels,
a query the run leaves out scoring the measure's DEFAULT (0); and so do negative grades: a
judgment (non-relevant), not unjudged as `unjudged eval` reads them by default (the
provider's `policies`, `Policies(negative="nonrel")`; `UnjudgedProvider(policies)` for
others). Two exceptions follow trec_eval whatever the policies: infAP reads a negative grade
as pooled but unjudged, and a measure with judged_only=True drops such a document (as -J and
pytrec_eval do).

The estimates under incomplete judgments (docs/unjudged-documents.md) as measures:

``Upper(m)``                the comparable upper bound (strategy "upper")
``Condensed(m)``            unjudged documents removed (strategy "condensed")
``Guaranteed(m, bound='lower'|'upper')``  bounds whatever the unjudged grades (another
                            normaliser: not comparable across runs)
``Bootstrap(m, stat='mean', b=10000, seed=0, prior='position')``  the bootstrap; stat is
                            one of mean, mode, std, p5, p25, p50, p75, p90, p95; prior also
                            'estimates:FILE' (relevance estimates from outside judges)
``Expected(m, stat='mean', prior='position')``  the exact expectation (stat 'mean') or
                            standard deviation ('std') when unjudged grades are independent
                            draws from the prior (docs/expected-measures.md)

Per query (``iter_calc``) a value is the topic's own estimate; the run level
(``calc_aggregate``) of a Bootstrap statistic is that statistic over the bootstrap's run
means (as `unjudged estimate -c` reports it), which for stat='mean' is the mean of the
per-query values and otherwise is not (a percentile of a mean is not a mean of percentiles);
an Expected std is that of the run's mean. ir_measures aggregates a list that mixes
providers, and PyTerrier any list, by feeding the per-query values to each measure's
``aggregator()``: those values carry the run's value (`_RunValue`), which the aggregator
returns, so every path gives the same number. ``Judged@k`` is ir_measures' own measure.

Example:
    >>> import ir_measures
    >>> qrels = {"q1": {"d1": 1, "d2": 0, "d3": 1}}
    >>> run = {"q1": {"d1": 3.0, "x": 2.0, "d2": 1.0}}
    >>> P3 = ir_measures.P @ 3
    >>> got = provider.calc_aggregate([P3, Upper(P3), Bootstrap(P3, stat="p95", b=200)],
    ...                               qrels, run)
    >>> round(got[P3], 4), round(got[Upper(P3)], 4), repr(Bootstrap(P3, stat="p95", b=200))
    (0.3333, 0.6667, "Bootstrap(P@3,stat='p95',b=200)")
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import ir_measures
from ir_measures.measures.base import Agg, ParamInfo
from ir_measures.providers.base import Any as AnyParam

from unjudged.errors import IncompatibleInputsError, MeasureSpecError
from unjudged.strategies.priors import DEFAULT_PRIOR, PRIORS
from unjudged.strategies.priors import ESTIMATES as FROM_FILE

NAME = "unjudged"
_STATS = ("mean", "mode", "std", "p5", "p25", "p50", "p75", "p90", "p95")
_DRAWS = 10_000  #: the bootstrap's default b (an Expected shares its estimate)
# trec_eval's infAP reads a negative grade as pooled but unjudged, whatever else does
_POOLED_NEGATIVE = frozenset({"infAP"})


# ---- run-level values ----------------------------------------------------------------------

class _RunValue(float):
    """A per-query value that carries its measure's run-level value along.

    ir_measures (its DefaultPipeline when a list mixes providers, and PyTerrier's Experiment)
    aggregates the per-query values of each measure with `measure.aggregator()`; the values are
    all it hands over, so a run-level statistic must travel with them."""

    run: float

    def __new__(cls, value: float, run: float) -> _RunValue:
        out = super().__new__(cls, value)
        out.run = run
        return out


class _RunAgg(Agg):
    """The aggregator of a run-level statistic: the run value its per-query values carry.

    Values without one are the DEFAULT of queries the run leaves out (ir_measures adds them);
    nonzero values without one were separated from theirs (copied as plain floats), and their
    mean would be a different number, so that is an error rather than a silent mean."""

    def __init__(self, measure: Any) -> None:
        self.measure = measure
        self.runs: set[float] = set()
        self.bare = 0  # values without a run value that are not the DEFAULT

    def add(self, value: float) -> None:
        if isinstance(value, _RunValue):
            self.runs.add(value.run)
        elif value != self.measure.DEFAULT:
            self.bare += 1

    def result(self) -> float:
        if len(self.runs) == 1 and not self.bare:
            return next(iter(self.runs))
        if not self.runs and not self.bare:
            return float(self.measure.DEFAULT)  # the run retrieves none of the queries
        why = ("come from several runs or batches of queries evaluated apart"
               if len(self.runs) > 1 else "do not carry it")
        raise IncompatibleInputsError(
            f"{self.measure!r}: the run-level value is a statistic of its own (not a mean of "
            f"per-query values), and the values aggregated here {why}; "
            f"aggregate one run's values, all queries at once, as ir_measures' "
            f"calc_aggregate/evaluator (or PyTerrier's Experiment without batch_size) give them")


# ---- measure objects for the estimates ---------------------------------------------------

class _Estimate(ir_measures.measures.Measure):
    """A measure of an unjudged strategy around an ir_measures measure: `Kind(measure, ...)`."""

    __name__ = "Estimate"
    NAME = "Estimate"
    METHOD = ""  # the strategy (unjudged.strategies)
    SUPPORTED_PARAMS = {
        "measure": ParamInfo(dtype=ir_measures.measures.Measure, required=True,
                             desc="the measure estimated (one unjudged computes natively)"),
    }

    def __call__(self, measure: Any = None, **kwargs: Any) -> Any:
        params = dict(self.params)
        if measure is not None:
            params["measure"] = measure
        params.update(kwargs)
        return type(self)(**params)

    def __repr__(self) -> str:
        inner = self.params.get("measure")
        shown = [f"{k}={v!r}" for k, v in self.params.items()
                 if k != "measure" and v != self.SUPPORTED_PARAMS[k].default]
        return f"{self.NAME}({', '.join([repr(inner), *shown]).replace(', ', ',')})"

    def column(self) -> str:
        """The strategy column of `unjudged estimate` this measure reads."""
        return self.METHOD

    def settings(self) -> tuple[Any, ...]:
        """What must be equal for measures to share one estimate."""
        return ()

    def run_level(self) -> bool:
        """Whether the run's value is a statistic of its own, not the mean of the per-query
        values (a percentile of a mean is not a mean of percentiles)."""
        return False

    def aggregator(self) -> Any:
        return _RunAgg(self) if self.run_level() else super().aggregator()


class _Upper(_Estimate):
    """The comparable upper bound: each unjudged document takes the best grade the pool still
    has (strategy "upper")."""

    __name__ = "Upper"
    NAME = "Upper"
    METHOD = "upper"


class _Condensed(_Estimate):
    """Unjudged documents removed, order kept (trec_eval -J; strategy "condensed")."""

    __name__ = "Condensed"
    NAME = "Condensed"
    METHOD = "condensed"


class _Guaranteed(_Estimate):
    """Bounds that hold whatever the unjudged documents' grades (strategy "guaranteed"; another
    normaliser: not comparable with other runs' scores)."""

    __name__ = "Guaranteed"
    NAME = "Guaranteed"
    METHOD = "guaranteed"
    SUPPORTED_PARAMS = {
        **_Estimate.SUPPORTED_PARAMS,
        "bound": ParamInfo(dtype=str, choices=("lower", "upper"), default="lower",
                           desc="which bound"),
    }

    def column(self) -> str:
        return f"guaranteed_{self['bound']}"


class _Drawn(_Estimate):
    """A strategy that reads the prior: its `prior` is one of PRIORS or 'estimates:FILE'."""

    def validate_params(self) -> None:
        super().validate_params()
        prior = self["prior"]
        assert prior in PRIORS or prior.startswith(f"{FROM_FILE}:"), \
            f"prior must be one of {', '.join(PRIORS)} or {FROM_FILE}:FILE, not {prior!r}"


_PRIOR = ParamInfo(dtype=str, default=DEFAULT_PRIOR,
                   desc=f"where the grade distribution comes from: {', '.join(PRIORS)} or "
                   f"{FROM_FILE}:FILE")
_POOL_RUNS = ParamInfo(dtype=str, default="",
                       desc="runs that define the pool context (files, directories or globs "
                       "joined by the path separator, as `unjudged estimate --pool-runs`); "
                       "default: each run alone")


class _Bootstrap(_Drawn):
    """The bootstrap: unjudged grades drawn b times from a prior; `stat` of the draws."""

    __name__ = "Bootstrap"
    NAME = "Bootstrap"
    METHOD = "bootstrap"
    SUPPORTED_PARAMS = {
        **_Estimate.SUPPORTED_PARAMS,
        "stat": ParamInfo(dtype=str, choices=_STATS, default="mean",
                          desc="statistic of the draws: mean, mode, std or a percentile"),
        "b": ParamInfo(dtype=int, default=_DRAWS, desc="number of draws"),
        "seed": ParamInfo(dtype=int, default=0, desc="random seed"),
        "prior": _PRIOR,
        "pool_runs": _POOL_RUNS,
    }

    def settings(self) -> tuple[Any, ...]:
        return (self["b"], self["seed"], self["prior"], self["pool_runs"])

    def run_level(self) -> bool:
        return bool(self["stat"] != "mean")


class _Expected(_Drawn):
    """The expected strategy: the exact expectation (stat 'mean') or standard deviation
    ('std') when every unjudged grade is an independent draw from the prior."""

    __name__ = "Expected"
    NAME = "Expected"
    METHOD = "expected"
    SUPPORTED_PARAMS = {
        **_Estimate.SUPPORTED_PARAMS,
        "stat": ParamInfo(dtype=str, choices=("mean", "std"), default="mean",
                          desc="the expectation (mean) or its standard deviation (std)"),
        "prior": _PRIOR,
        "pool_runs": _POOL_RUNS,
    }

    def settings(self) -> tuple[Any, ...]:
        # shares the default Bootstrap's estimate
        return (_DRAWS, 0, self["prior"], self["pool_runs"])

    def run_level(self) -> bool:
        return bool(self["stat"] == "std")


Upper = _Upper()
Condensed = _Condensed()
Guaranteed = _Guaranteed()
Bootstrap = _Bootstrap()
Expected = _Expected()
ESTIMATES = (Upper, Condensed, Guaranteed, Bootstrap, Expected)


# ---- translation ---------------------------------------------------------------------------

def to_unjudged(measure: Any) -> Any:
    """unjudged's Measure for an ir_measures measure (by its name and parameters), or None when
    unjudged does not compute it natively.

    Example:
        >>> to_unjudged(ir_measures.nDCG @ 10).name, to_unjudged(ir_measures.P(rel=2) @ 5).name
        ('nDCG@10', 'P(rel=2)@5')
    """
    from unjudged.measures import parse_measure

    if isinstance(measure, _Estimate):
        return None
    try:
        measure.validate_params()
        return parse_measure(repr(measure))
    except (MeasureSpecError, AssertionError):
        return None


def _supported(measure: Any) -> bool:
    if isinstance(measure, _Estimate):
        try:
            measure.validate_params()
        except AssertionError:
            return False
        return to_unjudged(measure["measure"]) is not None
    return to_unjudged(measure) is not None


# ---- the provider --------------------------------------------------------------------------

def _prototypes() -> list[Any]:
    """ir_measures' families that unjudged parses, with any parameters (for listings; the
    exact check is `supports`)."""
    from unjudged.measures import REGISTRY

    out, seen = [], set()
    for proto in ir_measures.measures.registry.values():
        family = type(proto)
        if family in seen or proto.NAME not in REGISTRY:
            continue
        seen.add(family)
        out.append(family(**{p: AnyParam() for p in family.SUPPORTED_PARAMS}))
    return out + [type(e)(**{p: AnyParam() for p in type(e).SUPPORTED_PARAMS})
                  for e in ESTIMATES]


class UnjudgedProvider(ir_measures.providers.Provider):
    """unjudged: trec_eval's measures computed exactly, and estimates under incomplete
    judgments (https://github.com/unjudged)."""

    NAME = NAME

    def __init__(self, policies: Any = None) -> None:
        from unjudged.policies import Policies

        super().__init__()
        self.SUPPORTED_MEASURES = _prototypes()
        # ir_measures' conventions: a negative grade is a judgment (non-relevant), as
        # pytrec_eval and ir_measures' Judged read it
        self.policies = policies if policies is not None else Policies(negative="nonrel")

    def supports(self, measure: Any) -> bool:
        return _supported(measure)

    def _evaluator(self, measures: Iterable[Any], qrels: Any) -> UnjudgedEvaluator:
        measures = list(measures)
        bad = [m for m in measures if not _supported(m)]
        if bad:
            raise ValueError(f"unsupported measures {bad} (provider {NAME})")
        return UnjudgedEvaluator(measures, qrels, self.policies)


class UnjudgedEvaluator(ir_measures.providers.Evaluator):
    """Scores runs against one set of qrels (read once) under `policies`."""

    def __init__(self, measures: list[Any], qrels: Any, policies: Any) -> None:
        from unjudged.io import read_qrels

        self.policies = policies
        self.qrels = read_qrels(qrels)
        super().__init__(measures, set(self.qrels.topics))
        self.plain = [(m, to_unjudged(m)) for m in measures if not isinstance(m, _Estimate)]
        self.estimates = [m for m in measures if isinstance(m, _Estimate)]
        self._references: dict[tuple[Any, ...], Any] = {}

    def _reference(self, pool: str, inner: list[Any], settings: Any) -> Any:
        """The pool context of the `pool` runs (read and built once per evaluator)."""
        import os

        from unjudged.engine.estimate import Reference
        from unjudged.io.runs import iter_runs

        key = (pool, tuple(m.name for m in inner), settings)
        if key not in self._references:
            sources = [p for p in pool.split(os.pathsep) if p]
            runs = list(iter_runs(sources, ties=self.policies.ties, qrels=self.qrels,
                                  names="file"))
            self._references[key] = Reference.of(runs, self.qrels, inner, settings)
        return self._references[key]

    def _read(self, run: Any) -> Any:
        from unjudged.io import read_run

        return read_run(run, name="run", qrels=self.qrels)

    def _values(self, run: Any) -> list[Any]:
        """Per-query Metrics (those of run-level statistics carry the run's value)."""
        from unjudged.engine.score import score

        r = self._read(run)
        metrics: list[Any] = []
        by_policy: dict[Any, list[tuple[Any, Any]]] = {}
        for m, u in self.plain:
            pol = self.policies
            if u.spec.name in _POOLED_NEGATIVE or u.kwargs().get("judged_only"):
                # judged_only drops a negatively graded document, as trec_eval -J does (and
                # pytrec_eval, whose qrels leave negative grades out): not a judgment there
                pol = pol.but(negative="unjudged")
            by_policy.setdefault(pol, []).append((m, u))
        for pol, pairs in by_policy.items():
            res = score([r], self.qrels, [u for _, u in pairs], pol).runs[0]
            for t, topic in enumerate(res.topics):
                for i, (m, _) in enumerate(pairs):
                    metrics.append(ir_measures.Metric(topic, m, float(res.values[t, i])))
        groups: dict[tuple[Any, ...], list[Any]] = {}
        for m in self.estimates:
            groups.setdefault(m.settings(), []).append(m)
        for key, ms in groups.items():
            metrics += self._estimate(r, ms, key)
        return metrics

    def _estimate(self, run: Any, ms: list[Any], key: tuple[Any, ...]) -> list[Any]:
        from unjudged.engine.estimate import EstimateSettings, estimate_with

        inner: list[Any] = []
        for m in ms:
            u = to_unjudged(m["measure"])
            if u not in inner:
                inner.append(u)
        methods = sorted({m.METHOD for m in ms})
        kw = dict(zip(("b", "seed", "prior", "pool_runs"), key, strict=True)) if key else {}
        pool = kw.pop("pool_runs", "")
        # every query of the qrels, as ir_measures counts them (a left-out query scores 0):
        # run-level statistics (a percentile of the run mean) must cover the same queries
        settings = EstimateSettings(methods=tuple(methods),
                                    policies=self.policies.but(complete=True), **kw)
        context = self._reference(pool, inner, settings).context_for(
            run, self.qrels, inner, settings) if pool else None
        est = estimate_with(run, self.qrels, inner, settings, context=context)
        out = []
        for m in ms:
            i = inner.index(to_unjudged(m["measure"]))
            total = None
            if m.METHOD == "bootstrap":
                stats, run_stats, _, _ = est.drawn()
                s = _STATS.index(m["stat"])
                per_topic = stats[:, i, s]
                total = float(run_stats[i, s])
            elif m.METHOD == "expected" and m["stat"] == "std":
                import numpy as np

                from unjudged.engine.estimate import run_variance

                var, shared = est.variances["expected"], est.shared["expected"]
                per_topic = np.sqrt(var[:, i])
                total = float(np.sqrt(run_variance(var[:, i:i + 1], shared[:, i:i + 1],
                                                       [inner[i]])[0]))
            else:
                per_topic = est.points[m.column()][:, i]
            if not m.run_level():
                total = None  # the mean of the per-query values (ir_measures' MeanAgg)
            out += [ir_measures.Metric(t, m, float(per_topic[k]) if total is None
                                       else _RunValue(per_topic[k], total))
                    for k, t in enumerate(est.topics)]
        return out

    def _iter_calc(self, run: Any) -> Iterator[Any]:
        yield from self._values(run)

    def calc_aggregate(self, run: Any) -> dict[Any, float | int]:
        return self.calc(run).aggregated

    def calc(self, run: Any) -> Any:
        metrics = self._values(run)
        done = {(m.measure, m.query_id) for m in metrics}
        for measure in self.measures:  # queries of the qrels the run leaves out
            for qid in sorted(self.qrel_qids):
                if (measure, qid) not in done:
                    metrics.append(ir_measures.Metric(qid, measure, measure.DEFAULT))
        aggregators = {m: m.aggregator() for m in self.measures}
        for metric in metrics:
            aggregators[metric.measure].add(metric.value)
        agg = {m: a.result() for m, a in aggregators.items()}
        return ir_measures.CalcResults(agg, metrics)


provider = UnjudgedProvider()
ir_measures.providers.register(provider)
if provider not in ir_measures.DefaultPipeline.providers:
    ir_measures.DefaultPipeline.providers.append(provider)

__all__ = ["Bootstrap", "Condensed", "Guaranteed", "NAME", "Upper", "UnjudgedEvaluator",
           "UnjudgedProvider", "provider", "to_unjudged"]
