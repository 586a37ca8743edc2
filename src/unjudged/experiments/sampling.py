"""The sampling experiment of seed 002 (sections 2, 3.1 and 5): how well inferred measures on
sampled judgments recover the measures on the complete judgments.

For each design (one level of incompleteness) and trial, the complete qrels are sampled
(unjudged.judgments.sampling), every run is scored with each estimator on the sample and compared
with its target measure on the complete qrels (xinfAP and infAP -> AP, infNDCG -> nDCG, iP@k -> P@k;
any other measure -> itself, scored on the sample with unsampled documents non-relevant, the
paper's "nDCG on random judgments"). A stratified design is also paired with a uniform sample of
equally many judgments per topic (label 'random'), the paper's comparison. Statistics over the
runs (RMSE of the means, Kendall's tau, Pearson's rho), the coverage of the confidence intervals
and the Kolmogorov-Smirnov test of the standardised deviations are in
unjudged.experiments.sampling_stats.

One task per (design, trial) runs on any executor of unjudged.parallel, with the runs and
qrels sent once; each sample depends only on (seed, trial, topic), so the results do not
depend on the executor.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from unjudged.data.qrels import Qrels
from unjudged.data.run import Run
from unjudged.errors import FormatError, IncompatibleInputsError, InputError, InvalidOptionError
from unjudged.io._csv import csv_records
from unjudged.judgments.sampling import (
    Design,
    best_ranks,
    judged_universe,
    parse_design,
    sample_qrels,
    uniform_twin,
)
from unjudged.measures import REGISTRY, Measure, parse_measures
from unjudged.policies import Policies

#: estimators the paper compares (Figures 3-4): extended and plain infAP, infNDCG, and nDCG
#: on the sampled judgments as they are
ESTIMATORS = ("xinfAP", "infAP", "infNDCG", "nDCG")
#: what each inferred family estimates
TARGETS = {"infAP": "AP", "xinfAP": "AP", "infNDCG": "nDCG", "iP": "P", "iNumRel": "NumRel",
           "iNumRelRet": "NumRelRet", "iIPrec": "IPrec"}
#: an interval covers a truth within this much (the estimators' smoothing leaves a bias of
#: about 1e-5 even with complete judgments, where the interval has zero width)
TOLERANCE = 1e-4
#: yes/no spellings of a contributed-judgments column
_YES, _NO = {"yes", "y", "true", "1"}, {"no", "n", "false", "0", ""}


def target_of(measure: Measure) -> Measure:
    """The measure an estimator estimates, with the parameters the two share.

    Example:
        >>> [target_of(m).name for m in parse_measures(["xinfAP(rel=2)", "infNDCG@10", "P@5"])]
        ['AP(rel=2)', 'nDCG@10', 'P@5']
    """
    name = TARGETS.get(measure.spec.name)
    if name is None:
        return measure
    spec = REGISTRY[name]
    known = {p.name for p in spec.params}
    params = tuple((k, v) for k, v in measure.params if k in known)
    return Measure(spec, measure.cutoff, params)


@dataclass(eq=False)
class SamplingSweep:
    """Every trial's per-run estimates of a sampling experiment.

    `estimate[(d, label)]`, `sd[...]`, `covered[...]`, `zero[...]` and `zero_missed[...]` are
    (trials, runs, estimators): each run's mean over topics, the standard error of that mean,
    how many per-topic intervals cover the truth out of `topics[...]` (trials, runs), how
    many have zero width (variance 0: the estimate claims to be exact) and how many of those
    miss the truth. `label` is the design's kind or
    'random' (its uniform twin). `truth` is (runs, estimators): each run's target measure on
    the complete judgments.
    """

    designs: list[Design]
    trials: int
    runs: list[str]
    contributing: np.ndarray  # (runs,) bool
    estimators: list[Measure]
    targets: list[Measure]
    truth: np.ndarray
    judged: np.ndarray  # (designs,) fraction of the judgments sampled
    estimate: dict[tuple[int, str], np.ndarray]
    sd: dict[tuple[int, str], np.ndarray]
    covered: dict[tuple[int, str], np.ndarray]
    topics: dict[tuple[int, str], np.ndarray]
    zero: dict[tuple[int, str], np.ndarray] = field(default_factory=dict)
    zero_missed: dict[tuple[int, str], np.ndarray] = field(default_factory=dict)
    level: float = 0.95
    seconds: float = 0.0
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def samples(self) -> list[tuple[int, str]]:
        """(design index, label) of every judgment set, in report order."""
        return list(self.estimate)


def sampling_experiment(runs: Sequence[Run], qrels: Qrels, designs: Sequence[Design | str], *,
                        estimators: Any = ESTIMATORS, trials: int = 10, seed: int = 0,
                        contributing: Sequence[str] | None = None, level: float = 0.95,
                        b: int = 1000, policies: Policies = Policies(),
                        executor: Any = None) -> SamplingSweep:
    """Run the experiment. `contributing` names the runs that built the pool: the depth pools
    and strata come from them alone (the others are scored as unseen systems); all runs by
    default. `b` and `seed` also set the bootstrap of estimators without a variance formula.

    Example:
        >>> from unjudged.io import read_qrels, read_run
        >>> q = read_qrels({"t": {"a": 1, "b": 0, "c": 1, "d": 0}})
        >>> runs = [read_run({"t": {"a": 2, "b": 1}}, name="x"),
        ...         read_run({"t": {"c": 2, "d": 1}}, name="y")]
        >>> s = sampling_experiment(runs, q, ["uniform:1"], estimators=["infAP"], trials=1)
        >>> s.truth[:, 0].tolist(), s.estimate[(0, "random")][0, :, 0].round(4).tolist()
        ([0.5, 0.5], [0.5, 0.5])
    """
    from unjudged.engine.score import score
    from unjudged.parallel import SerialExecutor

    start = time.perf_counter()
    parsed = [parse_design(d) if isinstance(d, str) else d for d in designs]
    if trials < 1 or not parsed:
        raise InvalidOptionError("the experiment needs at least one design and one trial")
    ms = parse_measures(estimators)
    targets = [target_of(m) for m in ms]
    runs = list(runs)
    names = [r.name for r in runs]
    pooled = set(names if contributing is None else contributing)
    universe = judged_universe(qrels)
    best = None
    if any(d.needs_runs for d in parsed):
        pool_runs = [r for r in runs if r.name in pooled]
        if not pool_runs:
            raise IncompatibleInputsError("none of the contributing runs is among the runs: "
                                          "the depth pools would be empty")
        best = best_ranks(universe, pool_runs)
    truth = score(runs, universe, targets, policies)
    shared = _Trials(runs, universe, best, parsed, ms, [r.values for r in truth.runs],
                     seed=seed, level=level, b=b, policies=policies)
    items = [(d, t) for d in range(len(parsed)) for t in range(trials)]
    parts = (executor or SerialExecutor()).map(_trial, items, desc="sampling trials",
                                               shared=shared)
    sweep = _assemble(parts, items, parsed, trials, ms)
    sweep.runs, sweep.targets = names, targets
    sweep.contributing = np.array([n in pooled for n in names])
    sweep.truth = np.array([r.summary for r in truth.runs]).reshape(len(runs), len(ms))
    sweep.level, sweep.seconds = level, time.perf_counter() - start
    sweep.options = {"seed": seed, "trials": trials, "pool_runs": len(pooled & set(names)),
                     "topics": len(universe.topics), "judgments": int(universe.keys.size)}
    return sweep


@dataclass(frozen=True)
class _Trials:
    """What every trial shares, sent to the executor's workers once.

    Attributes:
        runs: the runs scored.
        qrels: the complete judgments sampled (the judged universe).
        best_rank: each judged document's best rank in the contributing runs (None when no
            design needs runs).
        designs: the designs, indexed by a trial's design number.
        estimators: the measures scored on each sample.
        truth: per run, the (topics, estimators) targets on the complete judgments.
        seed, level, b, policies: as given to sampling_experiment.
    """

    runs: list[Run]
    qrels: Qrels
    best_rank: np.ndarray | None
    designs: list[Design]
    estimators: list[Measure]
    truth: list[np.ndarray]
    seed: int
    level: float
    b: int
    policies: Policies


def _trial(shared: _Trials, item: tuple[int, int]) -> dict[str, Any]:
    """One trial of one design: its sample (and uniform twin) scored for every run."""
    from unjudged.inference.infer import infer_runs, normal_interval

    d, trial = item
    q, design, seed = shared.qrels, shared.designs[d], shared.seed
    sq = sample_qrels(q, design, seed=seed, trial=trial, best_rank=shared.best_rank)
    sets = [(design.kind, sq)]
    if design.kind != "random":
        sets.append(("random", uniform_twin(q, sq, seed=seed, trial=trial)))
    out: dict[str, Any] = {"judged": float((sq.key_grades >= 0).sum() / max(q.keys.size, 1))}
    shape = (len(shared.runs), len(shared.estimators))
    for label, s in sets:
        est, sd = np.zeros(shape), np.zeros(shape)
        covered, zero, zero_missed = (np.zeros(shape, dtype=np.int64) for _ in range(3))
        topics = np.zeros(shape[0], dtype=np.int64)
        inferred = infer_runs(shared.runs, s, shared.estimators, level=shared.level,
                              b=shared.b, seed=seed, policies=shared.policies)
        for r, inf in enumerate(inferred):
            mean, var = inf.summary
            est[r], sd[r] = mean, np.sqrt(var)
            lo, hi = normal_interval(inf.values, inf.variance, shared.level)
            truth = shared.truth[r]
            inside = (lo - TOLERANCE <= truth) & (truth <= hi + TOLERANCE)
            exact = inf.variance == 0.0
            covered[r] = inside.sum(axis=0)
            zero[r], zero_missed[r] = exact.sum(axis=0), (exact & ~inside).sum(axis=0)
            topics[r] = len(inf.topics)
        out[label] = (est, sd, covered, topics, zero, zero_missed)
    return out


def _assemble(parts: list[dict[str, Any]], items: list[tuple[int, int]],
              designs: list[Design], trials: int, ms: list[Measure]) -> SamplingSweep:
    judged = np.zeros(len(designs))
    names = ("estimate", "sd", "covered", "topics", "zero", "zero_missed")
    arrays: dict[str, dict[tuple[int, str], np.ndarray]] = {k: {} for k in names}
    for (d, t), part in zip(items, parts, strict=True):
        judged[d] += part["judged"] / trials
        for label, values in part.items():
            if label == "judged":
                continue
            for name, v in zip(names, values, strict=True):
                arrays[name].setdefault((d, label), np.zeros((trials,) + v.shape, v.dtype))[t] = v
    return SamplingSweep(designs=designs, trials=trials, runs=[], contributing=np.zeros(0, bool),
                         estimators=ms, targets=[], truth=np.zeros(0), judged=judged,
                         estimate=arrays["estimate"], sd=arrays["sd"],
                         covered=arrays["covered"], topics=arrays["topics"],
                         zero=arrays["zero"], zero_missed=arrays["zero_missed"])


def read_contributing(source: Any) -> list[str]:
    """The runs that contributed to the pool: a file with one run name per line, or a CSV
    (such as TREC-COVID's leaderboard) with a `run` column and a `contributed...` column of
    yes/no; a list of names is returned as it is.

    Example:
        >>> read_contributing(["a", "b"])
        ['a', 'b']
        >>> import io
        >>> read_contributing(io.BytesIO(b"run,contributed judgments\\na,yes\\nb,no\\n"))
        ['a']
    """
    from unjudged.io._source import display_name, read_bytes

    if isinstance(source, (list, tuple, set)):
        return list(source)
    return _contributing_from_text(read_bytes(source), display_name(source))


def _contributing_from_text(data: bytes, name: str) -> list[str]:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError(name, "not UTF-8 text, expected run names") from None
    lines = text.splitlines()
    first = next((line for line in lines if line.strip() and not line.startswith("#")), "")
    if "," not in first:
        out = []
        for number, line in enumerate(lines, start=1):
            fields = line.split()
            if not fields or fields[0].startswith("#"):
                continue
            if len(fields) != 1:
                raise FormatError(name, number, f"{len(fields)} fields, expected one run name "
                                  "per line (or a CSV with run and contributed columns)")
            out.append(fields[0])
        return out
    records = csv_records(text, name, "a CSV with run and contributed judgments columns")
    header = [h.strip().lower() for h in next(records, (1, []))[1]]
    flag = next((i for i, h in enumerate(header) if h.startswith("contribut")), None)
    if "run" not in header or flag is None:
        raise FormatError(name, 1, "header lacks a `run` and a `contributed judgments` column")
    r = header.index("run")
    out = []
    for number, row in records:
        if not any(cell.strip() for cell in row):
            continue
        value = row[flag].strip().lower() if len(row) > max(r, flag) else None
        if value is None or value not in _YES | _NO or not row[r].strip():
            raise FormatError(name, number, f"expected a run name in column {r + 1} and yes "
                              f"or no in column {flag + 1}")
        if value in _YES:
            out.append(row[r].strip())
    return out
