"""Calibration bench: how often the bootstrap's intervals cover the truth, how wide they are,
and how far its point estimates fall from the truth, on collections where the truth is known.

The runs are estimated on incomplete "pool" qrels with each method (a label and the
EstimateSettings keyword arguments it changes: the prior, ``empty_run``, ``spread``, ...;
arguments this module does not know are passed through untouched), and compared with the
same measure under "truth" qrels. The interval of nominal level c is the equal-tailed
((1 - c) / 2, (1 + c) / 2) quantile range of the bootstrap samples.

Which (run, topic) pairs count, per measure of depth k (its cutoff; RBP(p) without a cutoff:
the depth where the residual weight p^k falls below 0.01, ``depth_of``):

- only pairs with an unjudged document (in the pool qrels) within the top k: the others are
  exact under every method;
- truth mode "complete": only pairs whose top k is entirely judged in the truth qrels (the
  truth is then known exactly); truth mode "all": every pair, documents the truth qrels lack
  counted non-relevant (as the measure itself counts them).

Normalised measures (nDCG's ideal DCG, AP's number of relevant documents) are normalised by
each qrels' own relevant documents: the truth's normaliser grows with relevant documents no
pooled run retrieved, an error no draw of the run's unjudged documents can show. (Setting
aside the topics whose normaliser did not grow would select topics whose unjudged documents
are all non-relevant, so the bench does not offer it.)

A run's mean is compared over the topics its mode keeps (for "complete", the topics judged
fully at that measure's depth), with the interval from the per-iteration mean of those
topics' samples; a run counts when one of those topics has an unjudged document.

The bound row ``[nonrel, upper]`` gives the coverage and width of the deterministic range
(nonrel: unjudged documents non-relevant; upper: relevant at the top grade) and nonrel's RMSE.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from unjudged.data.judged import PAD, Judged, judge
from unjudged.data.qrels import Qrels
from unjudged.data.run import Run
from unjudged.engine.results import aggregate
from unjudged.errors import InvalidOptionError
from unjudged.measures import Measure, parse_measures
from unjudged.policies import Policies
from unjudged.strategies.priors import ESTIMATES, PRIORS

#: nominal levels of the intervals
LEVELS = (0.8, 0.9, 0.95)
#: an uncut RBP(p) is judged "fully" down to the depth where p^k < RBP_RESIDUAL
RBP_RESIDUAL = 0.01
#: truth modes (see the module docstring)
MODES = ("complete", "all")
#: the deterministic range reported beside the methods
BOUND = "[nonrel, upper]"
#: a truth this close outside an interval still counts as covered (float noise)
EPS = 1e-9
#: P(A > B) at which the bench counts a pair as decided
DECIDED = 0.95

Method = tuple[str, dict[str, Any]]


EXPECTED = "expected"  #: the strategy whose moments a method may report instead of the bootstrap


def parse_method(text: str) -> Method:
    """A method from the command line: ``default`` (EstimateSettings' defaults, what
    `unjudged estimate` does), a prior's name (``pool``), ``expected`` (the expected
    strategy's moments instead of the bootstrap; also ``methods=expected``), or
    ``key=value,...`` of
    EstimateSettings arguments, optionally labelled ``LABEL:key=value,...``; numbers are
    read as numbers.

    Example:
        >>> parse_method("default"), parse_method("pool")
        (('default', {}), ('pool', {'prior': 'pool'}))
        >>> parse_method("zero:prior=pool+run,empty_run=zero,spread=0.5")
        ('zero', {'prior': 'pool+run', 'empty_run': 'zero', 'spread': 0.5})
        >>> parse_method("estimates:llm.tsv")
        ('estimates:llm.tsv', {'prior': 'estimates:llm.tsv'})
        >>> parse_method("half:prior=estimates:e,trust=0.5")
        ('half', {'prior': 'estimates:e', 'trust': 0.5})
        >>> parse_method("expected"), parse_method("e:methods=expected,prior=pool")
        (('expected', {'methods': 'expected'}), ('e', {'methods': 'expected', 'prior': 'pool'}))
    """
    text = text.strip()
    if text == "default":
        return text, {}
    if text == EXPECTED:  # the expected strategy's moments with the default prior
        return text, {"methods": EXPECTED}
    if text in PRIORS or text.startswith(f"{ESTIMATES}:"):
        return text, {"prior": text}
    label, sep, rest = text.partition(":")
    if not sep or "=" in label:
        label, rest = text, text
    kwargs: dict[str, Any] = {}
    for part in rest.split(","):
        key, eq, value = part.partition("=")
        if not eq or not key.strip():
            raise InvalidOptionError(f"method {text!r}: expected a prior ({', '.join(PRIORS)}) "
                                     "or [LABEL:]key=value,... (e.g. prior=pool,spread=0.5)")
        kwargs[key.strip()] = _value(value.strip())
    return label.strip(), kwargs


def _value(text: str) -> Any:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def depth_of(measure: Measure, residual: float = RBP_RESIDUAL) -> int | None:
    """How deep a ranking must be judged for the measure to be exact: its cutoff; for an
    uncut RBP(p), the first depth k with p^k < `residual`; None (the whole ranking) otherwise.

    Example:
        >>> [depth_of(m) for m in parse_measures("nDCG@10,RBP(p=0.8),AP")]
        [10, 21, None]
    """
    if measure.cutoff is not None:
        return int(measure.cutoff)
    if measure.spec.name == "RBP":
        p = float(dict(measure.params).get("p", 0.8))
        return max(1, math.floor(math.log(residual) / math.log(p)) + 1)
    return None


def quantile_intervals(samples: np.ndarray, levels: Sequence[float]) -> np.ndarray:
    """Equal-tailed intervals of each nominal level over axis 0 of `samples`:
    (..., levels, 2).

    Example:
        >>> s = np.arange(101, dtype=float)[:, None]
        >>> quantile_intervals(s, [0.8, 0.9])[0].tolist()
        [[10.0, 90.0], [5.0, 95.0]]
    """
    qs = [round(q, 12) for c in levels for q in ((1 - c) / 2, (1 + c) / 2)]
    q = np.quantile(samples, qs, axis=0)  # (2 * levels, ...)
    q = q.reshape(len(levels), 2, *q.shape[1:])
    return np.moveaxis(q, (0, 1), (-2, -1))


def coverage(lohi: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """Share of truths inside their intervals, per level: `lohi` (n, levels, 2), `truth` (n,);
    NaN when n = 0. A truth within EPS of an end counts as inside.

    Example:
        >>> lohi = np.array([[[0.0, 1.0]], [[0.0, 1.0]], [[2.0, 3.0]], [[0.5, 0.5]]])
        >>> coverage(lohi, np.array([0.5, 1.0, 1.0, 0.5])).tolist()
        [0.75]
    """
    if truth.size == 0:
        return np.full(lohi.shape[-2], np.nan)
    t = truth[:, None]
    return ((lohi[..., 0] - EPS <= t) & (t <= lohi[..., 1] + EPS)).mean(axis=0)


def pit_bounds(samples: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """(..., 2) the distribution function of `samples` (axis 0) just below and at each
    truth (within EPS): the randomised PIT lies uniformly between them.

    Example:
        >>> pit_bounds(np.array([[0.0], [0.5], [0.5], [1.0]]), np.array([0.5])).tolist()
        [[0.25, 0.75]]
    """
    below = (samples < truth - EPS).mean(axis=0)
    at = (samples <= truth + EPS).mean(axis=0)
    return np.stack([below, at], axis=-1)


def randomised_coverage(pit: np.ndarray, levels: Sequence[float]) -> np.ndarray:
    """Per level, the expected share of truths inside a randomised central interval: a
    truth whose PIT lies uniformly in [F(y-), F(y)] (`pit` (n, 2)) is inside the level-c
    interval with the probability that the PIT falls in [(1 - c)/2, (1 + c)/2]. A discrete
    distribution's closed interval [min, max] holds a truth sitting on an end always; the
    randomised one only as often as the mass there says (calibrated distributions give c).

    Example:
        >>> randomised_coverage(np.array([[0.0, 1.0], [0.5, 0.5], [0.99, 1.0]]), [0.9]).round(3)
        array([0.633])
    """
    if pit.shape[0] == 0:
        return np.full(len(levels), np.nan)
    lo, hi = pit[:, 0], pit[:, 1]
    out = []
    for c in levels:
        a, b = (1 - c) / 2, (1 + c) / 2
        span = hi - lo
        inside = np.clip(np.minimum(hi, b) - np.maximum(lo, a), 0, None) / np.where(
            span > 0, span, 1.0)
        point = ((a <= lo) & (lo <= b)).astype(float)
        out.append(float(np.mean(np.where(span > 0, inside, point))))
    return np.array(out)


def mean_width(lohi: np.ndarray) -> np.ndarray:
    """Mean width per level of (n, levels, 2) intervals; NaN when n = 0.

    Example:
        >>> mean_width(np.array([[[0.0, 1.0]], [[0.0, 0.5]]])).tolist()
        [0.75]
    """
    if lohi.shape[0] == 0:
        return np.full(lohi.shape[-2], np.nan)
    return (lohi[..., 1] - lohi[..., 0]).mean(axis=0)


@dataclass(eq=False)
class Calibration:
    """Per-pair and per-run values of a calibration bench on one collection.

    Arrays are (runs, topics, measures) with NaN where a run lacks a topic; ``lohi[label]`` is
    (runs, topics, measures, levels, 2); ``run_*[(label or BOUND, mode)]`` hold each run's
    aggregate over the topics of that truth mode: truth and point (runs, measures), lohi
    (runs, measures, levels, 2); ``run_ok[mode]`` (runs, measures) says which runs count.
    """

    collection: str
    runs: list[str]
    topics: list[str]
    measures: list[Measure]
    methods: list[str]
    levels: tuple[float, ...]
    truth: np.ndarray
    complete: np.ndarray
    unjudged: np.ndarray
    bounds: np.ndarray  # (runs, topics, measures, 2): nonrel, upper
    point: dict[str, np.ndarray] = field(default_factory=dict)
    lohi: dict[str, np.ndarray] = field(default_factory=dict)
    run_truth: dict[str, np.ndarray] = field(default_factory=dict)
    run_ok: dict[str, np.ndarray] = field(default_factory=dict)
    run_point: dict[tuple[str, str], np.ndarray] = field(default_factory=dict)
    run_lohi: dict[tuple[str, str], np.ndarray] = field(default_factory=dict)
    #: (runs, topics, measures, 2) and (runs, measures, 2): the randomised PIT's range of
    #: every truth under each method's distribution (pit_bounds)
    pit: dict[str, np.ndarray] = field(default_factory=dict)
    run_pit: dict[tuple[str, str], np.ndarray] = field(default_factory=dict)
    #: (b, runs, measures) each run's value in every iteration over a mode's kept topics
    #: (bootstrap methods): the coupled draws behind P(A > B) and rank intervals
    run_draws: dict[tuple[str, str], np.ndarray] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0

    def only(self, names: Sequence[str], collection: str | None = None) -> Calibration:
        """The bench restricted to the runs in `names` (e.g. the new systems unlike the pool),
        optionally under another collection name."""
        wanted = set(names)
        keep = np.array([n in wanted for n in self.runs], dtype=bool)
        out = Calibration(self.collection if collection is None else collection,
                          [n for n, k in zip(self.runs, keep, strict=True) if k], self.topics,
                          self.measures, self.methods, self.levels, self.truth[keep],
                          self.complete[keep], self.unjudged[keep], self.bounds[keep],
                          options=dict(self.options), seconds=self.seconds)
        out.point = {k: v[keep] for k, v in self.point.items()}
        out.lohi = {k: v[keep] for k, v in self.lohi.items()}
        out.run_truth = {k: v[keep] for k, v in self.run_truth.items()}
        out.run_ok = {k: v[keep] for k, v in self.run_ok.items()}
        out.run_point = {k: v[keep] for k, v in self.run_point.items()}
        out.run_lohi = {k: v[keep] for k, v in self.run_lohi.items()}
        out.pit = {k: v[keep] for k, v in self.pit.items()}
        out.run_pit = {k: v[keep] for k, v in self.run_pit.items()}
        out.run_draws = {k: v[:, keep] for k, v in self.run_draws.items()}
        return out

    def kept(self, mode: str) -> np.ndarray:
        """(runs, topics, measures) mask of the pairs whose truth a mode uses (with or
        without unjudged documents)."""
        keep = ~np.isnan(self.truth)
        return keep & self.complete if mode == "complete" else keep

    def pairs(self, mode: str) -> np.ndarray:
        """(runs, topics, measures) mask of the pairs a truth mode evaluates: those it keeps
        that have an unjudged document within the measure's depth."""
        return self.kept(mode) & self.unjudged


def calibrate(runs: Sequence[Run], pool: Qrels, truth: Qrels, measures: Any,
              methods: Sequence[Method], **kw: Any) -> Calibration:
    """The bench on one pool: every run estimated on `pool` with each method, compared with
    `truth`. Keyword arguments as for `calibrate_blocks`.

    Example:
        >>> from unjudged.io import read_qrels, read_run
        >>> pool = read_qrels({"t": {"a": 1, "b": 0, "c": 1}})
        >>> truth = read_qrels({"t": {"a": 1, "b": 0, "c": 1, "x": 1}})
        >>> run = read_run({"t": {"a": 3, "x": 2, "b": 1}}, name="r")
        >>> cal = calibrate([run], pool, truth, "P@3", [("pool", {"prior": "pool"})], b=200)
        >>> cal.truth[0, 0, 0], cal.bounds[0, 0, 0].tolist(), int(cal.pairs("complete").sum())
        (np.float64(0.6666666666666666), [0.3333333333333333, 0.6666666666666666], 1)
        >>> [r["cover90"] for r in summary_rows(cal, "complete")]
        [1.0, 1.0]
    """
    return calibrate_blocks([(list(runs), pool)], truth, measures, methods, **kw)


def calibrate_blocks(blocks: Sequence[tuple[Sequence[Run], Qrels]], truth: Qrels,
                     measures: Any, methods: Sequence[Method], *,
                     levels: Sequence[float] = LEVELS, b: int = 1000, seed: int = 0,
                     policies: Policies = Policies(), scored: Sequence[str] | None = None,
                     executor: Any = None, collection: str = "",
                     model_runs: Sequence[Run] | None = None) -> Calibration:
    """The bench over blocks of runs, each estimated on its own pool qrels (leave-one-group-
    out gives each group its own): every method's bootstrap (b iterations from `seed`) and
    the [nonrel, upper] range, compared with `truth`. Only runs named in `scored` are
    evaluated (all by default); the others are estimated with them (a prior built from all
    the runs given, such as "position", sees them). `executor` is one of unjudged.parallel's.
    `model_runs`: the runs the position prior (and growing normalisers) see in every block,
    instead of the block's own runs (leave-one-group-out: a group's runs are scored alongside
    every other group's, as a new system is).
    """
    from unjudged.engine.estimate import EstimateSettings, estimate_all

    start = time.perf_counter()
    ms = parse_measures(measures)
    levels = tuple(float(c) for c in levels)
    if not levels or any(not 0 < c < 1 for c in levels):
        raise InvalidOptionError("levels must lie strictly between 0 and 1")
    if not methods:
        raise InvalidOptionError("the bench needs at least one method")
    labels = [label for label, _ in methods]
    if len(set(labels)) != len(labels) or BOUND in labels:
        raise InvalidOptionError(f"method labels must be distinct (and not {BOUND!r})")
    settings, alone = [], []
    known = {f.name for f in fields(EstimateSettings)}
    for label, kwargs in methods:
        kwargs = dict(kwargs)
        # "alone": each run estimated without --pool-runs (its own pool context)
        alone.append(bool(kwargs.pop("alone", False)))
        unknown = sorted(set(kwargs) - known)
        if unknown:
            raise InvalidOptionError(f"method {label!r}: {unknown[0]!r} is not an estimate "
                                     f"setting (one of {', '.join(sorted(known))})")
        # a method reports the bootstrap's distribution, or with methods=("expected",) the
        # expected strategy's moments
        drawn = kwargs.pop("methods", ("bootstrap",))
        drawn = (drawn,) if isinstance(drawn, str) else tuple(drawn)
        if drawn not in (("bootstrap",), (EXPECTED,)):
            raise InvalidOptionError(f"method {label!r}: methods must be bootstrap or "
                                     f"{EXPECTED}, not {','.join(drawn)}")
        args = {"methods": ("nonrel", "upper", *drawn), "b": b, "seed": seed,
                "policies": policies, "keep_samples": drawn == ("bootstrap",), **kwargs}
        try:
            settings.append(EstimateSettings(**args))
        except TypeError as exc:  # an argument EstimateSettings does not take
            raise InvalidOptionError(f"method {label!r}: {exc}") from None
    want = None if scored is None else set(scored)
    order = [r.name for runs, _ in blocks for r in runs if want is None or r.name in want]
    if not order:
        raise InvalidOptionError("no run to score")
    by_name = {r.name: r for runs, _ in blocks for r in runs}
    depths = [depth_of(m) for m in ms]
    truth_of = {n: judge(by_name[n], truth, policies.but(complete=False)) for n in order}
    topics = _topics(blocks)
    tix = {t: i for i, t in enumerate(topics)}
    shape = (len(order), len(topics), len(ms))
    rix = {n: i for i, n in enumerate(order)}
    cal = Calibration(collection, order, topics, ms, labels, levels,
                      truth=np.full(shape, np.nan), complete=np.zeros(shape, dtype=bool),
                      unjudged=np.zeros(shape, dtype=bool),
                      bounds=np.full(shape + (2,), np.nan))
    for n in order:
        _truth_into(cal, rix[n], truth_of[n], tix, depths)
    for (label, _), s, own in zip(methods, settings, alone, strict=True):
        cal.point[label] = np.full(shape, np.nan)
        cal.lohi[label] = np.full(shape + (len(levels), 2), np.nan)
        cal.pit[label] = np.full(shape + (2,), np.nan)
        for mode in MODES:
            if "expected" not in s.methods:
                cal.run_draws[(label, mode)] = np.full((b, len(order), len(ms)), np.nan)
            cal.run_pit[(label, mode)] = np.full((len(order), len(ms), 2), np.nan)
            cal.run_point[(label, mode)] = np.full((len(order), len(ms)), np.nan)
            cal.run_lohi[(label, mode)] = np.full((len(order), len(ms), len(levels), 2), np.nan)
        for b_i, (runs, pool) in enumerate(blocks):
            if not any(r.name in rix for r in runs):
                continue
            desc = f"calibration {collection} {label}".strip()
            if len(blocks) > 1:
                desc += f" ({b_i + 1}/{len(blocks)})"
            est = estimate_all(runs, pool, ms, s, executor=executor, desc=desc,
                               context=None if own else _context(model_runs, pool, ms, s),
                               pool_runs=None if own else runs)  # unless model_runs
            for r in est.runs:
                if r.run not in rix:
                    continue
                _estimate_into(cal, label, rix[r.run], r, tix, depths,
                               judge(by_name[r.run], pool, policies))
                r.samples = None  # free as we go
    _run_truths(cal)
    cal.options = {"b": b, "seed": seed, "methods": [list(m) for m in methods],
                   "depths": depths, "blocks": len(blocks)}
    cal.seconds = time.perf_counter() - start
    return cal


def _context(model_runs: Sequence[Run] | None, pool: Qrels, ms: list[Measure], s: Any) -> Any:
    """The draws' shared context built from `model_runs` on this block's pool (None: the
    estimate builds its own from the block's runs)."""
    from unjudged.engine.estimate import draw_context

    return None if model_runs is None else draw_context(model_runs, pool, ms, s)


def _topics(blocks: Sequence[tuple[Sequence[Run], Qrels]]) -> list[str]:
    seen: dict[str, None] = {}
    for _, pool in blocks:
        seen.update(dict.fromkeys(pool.topics))
    return list(seen)


def _within(j: Judged, depth: int | None) -> tuple[np.ndarray, np.ndarray]:
    """(fully judged, some unjudged document) within `depth`, per topic of `j`."""
    cut = j.cut(depth)
    missing = (cut < 0) & (cut != PAD)
    return ~missing.any(axis=-1), missing.any(axis=-1)


def _truth_into(cal: Calibration, r: int, j: Judged, tix: dict[str, int],
                depths: list[int | None]) -> None:
    here = np.array([t in tix for t in j.topics], dtype=bool)  # topics the pools have
    cols = np.array([tix[t] for t in j.topics if t in tix], dtype=np.int64)
    for i, m in enumerate(cal.measures):
        cal.truth[r, cols, i] = m.compute(j)[here]
        cal.complete[r, cols, i] = _within(j, depths[i])[0][here]


def _estimate_into(cal: Calibration, label: str, r: int, est: Any, tix: dict[str, int],
                   depths: list[int | None], pool_j: Judged) -> None:
    cols = np.array([tix[t] for t in est.topics], dtype=np.int64)
    if pool_j.topics != est.topics:
        raise InvalidOptionError(f"run {est.run}: estimated topics differ from judged ones")
    for i in range(len(cal.measures)):
        cal.unjudged[r, cols, i] = _within(pool_j, depths[i])[1]
    cal.bounds[r, cols, :, 0] = est.points["nonrel"]
    cal.bounds[r, cols, :, 1] = est.points["upper"]
    if EXPECTED in est.variances:  # an expectation and its variance: normal intervals
        _moments_into(cal, label, r, cols, est.points[EXPECTED], est.variances[EXPECTED],
                      est.shared[EXPECTED])
        return
    samples = est.samples  # (b, topics, measures)
    cal.point[label][r, cols] = est.point
    cal.lohi[label][r, cols] = quantile_intervals(samples, cal.levels)
    cal.pit[label][r, cols] = pit_bounds(samples, cal.truth[r, cols])

    def drawn(sel: np.ndarray, i: int, m: Measure, truth: float) -> tuple[np.ndarray, ...]:
        per_iter = aggregate(samples[:, sel, i], m.spec.aggregate, axis=1)
        return quantile_intervals(per_iter, cal.levels), pit_bounds(per_iter, np.asarray(truth))

    _runs_into(cal, label, r, cols, est.point, drawn)
    for mode in MODES:
        keep = cal.kept(mode)[r, cols]
        for i, m in enumerate(cal.measures):
            if keep[:, i].any() and (label, mode) in cal.run_draws:
                cal.run_draws[(label, mode)][:, r, i] = aggregate(
                    samples[:, keep[:, i], i], m.spec.aggregate, axis=1)


def _runs_into(cal: Calibration, label: str, r: int, cols: np.ndarray, point: np.ndarray,
               interval: Any) -> None:
    """Run r's value per mode and measure (the aggregate of `point` over the kept topics)
    and its intervals and PIT range, interval(kept topics, measure index, measure, truth)."""
    for mode in MODES:
        keep = cal.kept(mode)[r, cols]
        for i, m in enumerate(cal.measures):
            sel = keep[:, i]
            if not sel.any():
                continue
            cal.run_point[(label, mode)][r, i] = aggregate(point[sel, i], m.spec.aggregate)
            truth = aggregate(cal.truth[r, cols[sel], i], m.spec.aggregate)
            lohi, pit = interval(sel, i, m, truth)
            cal.run_lohi[(label, mode)][r, i], cal.run_pit[(label, mode)][r, i] = lohi, pit


def _moments_into(cal: Calibration, label: str, r: int, cols: np.ndarray, point: np.ndarray,
                  var: np.ndarray, shared: np.ndarray) -> None:
    """The expected strategy's values: normal intervals around each expectation, and for a
    run around the mean of the kept topics (engine.estimate.run_variance)."""
    from unjudged.engine.estimate import run_variance
    from unjudged.engine.results import normal_interval

    def lohi(value: np.ndarray, variance: np.ndarray, bounds: Any) -> np.ndarray:
        return np.stack([np.stack(normal_interval(value, variance, c, bounds), axis=-1)
                         for c in cal.levels], axis=-2)

    cal.point[label][r, cols] = point
    for i, m in enumerate(cal.measures):
        cal.lohi[label][r, cols, i] = lohi(point[:, i], var[:, i], m.spec.bounded)
        cal.pit[label][r, cols, i] = _normal_pit(point[:, i], var[:, i], cal.truth[r, cols, i])

    def normal(sel: np.ndarray, i: int, m: Measure, truth: float) -> tuple[np.ndarray, ...]:
        value = aggregate(point[sel, i], m.spec.aggregate)
        spread = run_variance(var[sel, i:i + 1], shared[sel, i:i + 1], [m])[0]
        return (lohi(np.asarray(value), spread, m.spec.bounded),
                _normal_pit(np.asarray(value), np.asarray(spread), np.asarray(truth)))

    _runs_into(cal, label, r, cols, point, normal)


def _normal_pit(mean: np.ndarray, var: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """(..., 2) the PIT of truths under normals (a point: both ends; no spread: 0, 1, or
    the whole [0, 1] at the mean)."""
    from scipy.stats import norm

    sd = np.sqrt(np.maximum(var, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(sd > 0, (truth - mean) / np.where(sd > 0, sd, 1.0), 0.0)
    u = norm.cdf(z)
    flat = sd <= 0
    lo = np.where(flat, (truth > mean + EPS).astype(float), u)
    hi = np.where(flat, (truth >= mean - EPS).astype(float), u)
    return np.stack([lo, hi], axis=-1)


def _run_truths(cal: Calibration) -> None:
    """Per mode: each run's aggregate truth, its [nonrel, upper] and whether it counts."""
    nr, nm = len(cal.runs), len(cal.measures)
    for mode in MODES:
        keep = cal.kept(mode)
        truth, ok = np.full((nr, nm), np.nan), np.zeros((nr, nm), dtype=bool)
        bounds = np.full((nr, nm, len(cal.levels), 2), np.nan)
        point = np.full((nr, nm), np.nan)
        for r in range(nr):
            for i, m in enumerate(cal.measures):
                sel = keep[r, :, i]
                if not sel.any():
                    continue
                how = m.spec.aggregate
                truth[r, i] = aggregate(cal.truth[r, sel, i], how)
                ok[r, i] = bool(cal.unjudged[r, sel, i].any())
                lo, hi = (aggregate(cal.bounds[r, sel, i, k], how) for k in (0, 1))
                bounds[r, i, :, 0], bounds[r, i, :, 1] = lo, hi
                point[r, i] = lo
        cal.run_truth[mode], cal.run_ok[mode] = truth, ok
        cal.run_lohi[(BOUND, mode)], cal.run_point[(BOUND, mode)] = bounds, point


def level_name(level: float) -> str:
    """A level as a column suffix.

    Example:
        >>> level_name(0.9), level_name(0.975)
        ('90', '97.5')
    """
    return f"{100 * level:.4g}"


def columns(levels: Sequence[float] = LEVELS) -> list[str]:
    """The columns of `summary_rows`, in order."""
    names = [level_name(c) for c in levels]
    return (["collection", "truth", "measure", "method", "pairs"]
            + [f"cover{n}" for n in names] + [f"rcover{n}" for n in names]
            + [f"width{n}" for n in names]
            + ["on_end90", "rmse", "bound_width", "narrower90", "runs"]
            + [f"run_cover{n}" for n in names] + [f"run_rcover{n}" for n in names]
            + [f"run_width{n}" for n in names] + ["run_rmse", "run_bias", "run_bound_width",
                                                   "tau", "decided", "decided_agree",
                                                   "rank_cover90"])


def summary_rows(cal: Calibration, mode: str = "complete") -> list[dict[str, Any]]:
    """One row per (measure, method), then the bound row, with the columns of `columns`:
    coverage and mean width per level over pairs with unjudged documents, RMSE of the point
    estimate, the mean width of [nonrel, upper] over the same pairs and how much narrower the
    90% interval is (1 - width90 / bound_width; NaN without a 90% level), and the same per run.
    """
    if mode not in MODES:
        raise InvalidOptionError(f"truth mode must be one of {', '.join(MODES)}")
    pairs = cal.pairs(mode)
    names = [level_name(c) for c in cal.levels]
    rows = []
    for i, m in enumerate(cal.measures):
        sel = pairs[..., i]
        truth = cal.truth[..., i][sel]
        bounds = cal.bounds[..., i, :][sel]
        bound_width = _mean(bounds[:, 1] - bounds[:, 0])
        ok = cal.run_ok[mode][:, i]
        run_truth = cal.run_truth[mode][ok, i]
        run_bounds = cal.run_lohi[(BOUND, mode)][ok, i, 0]
        run_bound_width = _mean(run_bounds[:, 1] - run_bounds[:, 0])
        for label in [*cal.methods, BOUND]:
            if label == BOUND:
                lohi = np.repeat(bounds[:, None, :], len(cal.levels), axis=1)
                point = bounds[:, 0]
            else:
                lohi, point = cal.lohi[label][..., i, :, :][sel], cal.point[label][..., i][sel]
            row: dict[str, Any] = {"collection": cal.collection, "truth": mode,
                                   "measure": m.name, "method": label, "pairs": int(sel.sum())}
            _fill(row, "", names, lohi, point, truth)
            pit = cal.pit[label][..., i, :][sel] if label in cal.pit else None
            _randomised(row, "", names, cal.levels, pit)
            row["on_end90"] = _on_end(lohi, truth, cal.levels)
            row["bound_width"] = bound_width
            w90 = row.get("width90", np.nan)
            row["narrower90"] = (0.0 if label == BOUND else 1 - w90 / bound_width
                                 ) if bound_width > 0 else np.nan
            row["runs"] = int(ok.sum())
            _fill(row, "run_", names, cal.run_lohi[(label, mode)][ok, i],
                  cal.run_point[(label, mode)][ok, i], run_truth)
            run_pit = cal.run_pit[(label, mode)][ok, i] if label in cal.pit else None
            _randomised(row, "run_", names, cal.levels, run_pit)
            run_point = cal.run_point[(label, mode)][ok, i]
            row["run_bias"] = _mean(run_point - run_truth)
            draws = cal.run_draws.get((label, mode))
            row.update(order_stats(run_point, run_truth,
                                   None if draws is None else draws[:, ok, i]))
            row["run_bound_width"] = run_bound_width
            rows.append(row)
    return rows


def _fill(row: dict[str, Any], prefix: str, names: list[str], lohi: np.ndarray,
          point: np.ndarray, truth: np.ndarray) -> None:
    """Coverage and width per level, and RMSE, of (n, levels, 2) intervals."""
    cover, width = coverage(lohi, truth), mean_width(lohi)
    for k, n in enumerate(names):
        row[f"{prefix}cover{n}"] = float(cover[k])
        row[f"{prefix}width{n}"] = float(width[k])
    row[f"{prefix}rmse"] = float(np.sqrt(np.mean((point - truth) ** 2))) if truth.size \
        else float("nan")


def order_stats(point: np.ndarray, truth: np.ndarray, draws: np.ndarray | None
                ) -> dict[str, float]:
    """How well the runs' order is told: Kendall's tau of the point estimates against the
    truths; from coupled (b, runs) draws, the pairs with P(A > B) >= 0.95 (decided), the
    share of them the truths order alike, and the share of runs whose true rank lies in
    their 90% rank interval (NaN without draws).

    Example:
        >>> d = np.array([[0.3, 0.2, 0.1], [0.31, 0.19, 0.12]])
        >>> s = order_stats(d.mean(axis=0), np.array([0.3, 0.1, 0.2]), d)
        >>> s["decided"], round(s["decided_agree"], 3), round(s["rank_cover90"], 3)
        (3, 0.667, 0.333)
    """
    from scipy.stats import kendalltau

    out: dict[str, float] = {"tau": float("nan"), "decided": 0,
                             "decided_agree": float("nan"), "rank_cover90": float("nan")}
    if truth.size >= 2:
        out["tau"] = float(kendalltau(point, truth).statistic)
    if draws is None or truth.size < 2:
        return out
    from unjudged.engine.pairs import pair_probabilities, rank_intervals

    p = pair_probabilities(draws)
    a, b = np.nonzero(p >= DECIDED)
    out["decided"] = int(a.size)
    if a.size:
        out["decided_agree"] = float(np.mean(truth[a] > truth[b]))
    ranks = rank_intervals(draws, 0.9)
    true_rank = 1 + (truth[None, :] > truth[:, None]).sum(axis=1)  # ties share the best
    out["rank_cover90"] = float(np.mean((ranks[:, 0] <= true_rank) & (true_rank <= ranks[:, 1])))
    return out


def _randomised(row: dict[str, Any], prefix: str, names: list[str],
                levels: Sequence[float], pit: np.ndarray | None) -> None:
    """Randomised coverage per level (NaN for the deterministic bound row)."""
    cover = randomised_coverage(pit, levels) if pit is not None else np.full(len(names), np.nan)
    for k, n in enumerate(names):
        row[f"{prefix}rcover{n}"] = float(cover[k])


def _on_end(lohi: np.ndarray, truth: np.ndarray, levels: Sequence[float]) -> float:
    """Share of truths sitting on an end of their 90% interval (NaN without that level)."""
    if 0.9 not in levels or truth.size == 0:
        return float("nan")
    k = list(levels).index(0.9)
    lo, hi = lohi[:, k, 0], lohi[:, k, 1]
    return float(np.mean((np.abs(truth - lo) <= EPS) | (np.abs(truth - hi) <= EPS)))


def _mean(values: np.ndarray) -> float:
    return float(np.mean(values)) if values.size else float("nan")


def coverage_curves(rows: Sequence[dict[str, Any]], levels: Sequence[float] = LEVELS,
                    measure: str | None = None) -> dict[str, dict[str, list[float]]]:
    """{panel: {method: per-level coverage}} for a coverage plot: one panel per (collection,
    truth mode), averaged over measures (or only `measure`), the bound row left out.

    Example:
        >>> rows = [{"collection": "c", "truth": "all", "measure": "P@10", "method": "pool",
        ...          "cover80": 0.7, "cover90": 0.8, "cover95": 0.9}]
        >>> coverage_curves(rows)
        {'c (all)': {'pool': [0.7, 0.8, 0.9]}}
    """
    names = [level_name(c) for c in levels]
    acc: dict[str, dict[str, list[list[float]]]] = {}
    for r in rows:
        if r["method"] == BOUND or (measure is not None and r["measure"] != measure):
            continue
        panel = f"{r['collection']} ({r['truth']})" if r.get("truth") else r["collection"]
        cover = [float(r.get(f"cover{n}", np.nan)) for n in names]
        acc.setdefault(panel, {}).setdefault(r["method"], []).append(cover)
    return {p: {m: np.nanmean(np.array(v), axis=0).round(6).tolist()
                if np.isfinite(np.array(v)).any() else [float("nan")] * len(names)
                for m, v in methods.items()}
            for p, methods in acc.items()}
