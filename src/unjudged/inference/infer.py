"""Inferred measures with variances and confidence intervals, per topic and over topics.

How each measure's variance is estimated (method 'auto'):

- infAP: the paper's formula (seed 002, section 2 and appendix) with the appendix's covariances
  and a Laplace-smoothed proportion (infap.py); it assumes the judged documents are
  a uniform sample of the pool;
- xinfAP: the same two components per stratum (infap.py);
- iP, iNumRelRet, iNumRel: sums over strata of N_s times a sampled proportion, with the same
  proportion variance; infNDCG: a delta-method variance of DCG / IDCG (counts.py);
- statAP, statNDCG (samples with per-document inclusion probabilities, TREC's prels): the
  linearised Horvitz-Thompson variance of statistical.py;
- iIPrec, and every measure above but infAP with method 'bootstrap': a stratified (Rao-Wu)
  bootstrap that resamples the sampled documents within each (topic, stratum)
  (rescaling.py);
- any other measure: none (its interval is left empty).

The formulas are the default because they are calibrated (docs/sampled-judgments.md): the
bootstrap cannot see the uncertainty of a proportion estimated from one or two documents that
all agree, which is the common case in the top ranks, and gives intervals that are too narrow
for cut-offs like 10.

Intervals are normal: value +- z sqrt(variance), clipped to the range of what the measure
estimates (infNDCG and statNDCG estimate nDCG, statAP AP: [0, 1]; the counts: [0, inf)). Their
point estimates are kept as computed, even above 1 (a note says why): clipping would bias them.
Topics are sampled independently, so the variance of a mean over n topics is the sum of the
per-topic variances over n^2 (of a sum, their sum).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from unjudged.data.judged import Pool, evaluated_topics
from unjudged.data.sampled import SampledQrels, as_sampled, judge_sampled
from unjudged.data.topic_order import natural_key
from unjudged.engine.results import aggregate, aggregate_variance, normal_interval, z_value
from unjudged.errors import InvalidOptionError, note
from unjudged.inference.counts import count_variance, infndcg_variance
from unjudged.inference.infap import infap_variance, xinfap_variance
from unjudged.inference.rescaling import Replicates, bootstrap_values
from unjudged.inference.statistical import statap_variance, statndcg_variance
from unjudged.measures import Measure, measures_given, parse_measures  # noqa: F401 (doctests)
from unjudged.measures._common import level
from unjudged.measures.inferred import WEIGHTED, stratum_totals
from unjudged.policies import Policies, whole_number

#: families whose variance has a formula (the rest of WEIGHTED is bootstrapped)
ANALYTIC = ("infAP", "xinfAP", "infNDCG", "iP", "iNumRelRet", "iNumRel", "statAP", "statNDCG")
METHODS = ("auto", "bootstrap")


def method_of(measure: Measure, method: str = "auto") -> str | None:
    """'analytic', 'bootstrap' or None: how the measure's variance is estimated. `method`
    'auto' prefers the formula; 'bootstrap' bootstraps every measure it can (not infAP).

    Example:
        >>> ms = parse_measures(["infAP", "infNDCG@10", "iIPrec(recall=0.5)", "P@10"])
        >>> [method_of(m) for m in ms], method_of(ms[1], "bootstrap")
        (['analytic', 'analytic', 'bootstrap', None], 'bootstrap')
    """
    if method not in METHODS:
        raise InvalidOptionError(f"method must be one of {', '.join(METHODS)}, not {method!r}")
    name = measure.spec.name
    if name in ANALYTIC and not (method == "bootstrap" and name in WEIGHTED):
        return "analytic"
    return "bootstrap" if name in WEIGHTED else None


def analytic_variance(measure: Measure, judged) -> np.ndarray:
    """The formula's per-topic variance of one of the ANALYTIC families."""
    kw = measure.kwargs()
    name, rel = measure.spec.name, kw.get("rel")
    if name == "infAP":
        return infap_variance(judged, rel)
    if name == "infNDCG":
        return infndcg_variance(judged, measure.cutoff, kw["dcg"], kw["gains"])
    if name == "statAP":
        return statap_variance(judged, rel, kw["pc"])
    if name == "statNDCG":
        return statndcg_variance(judged, measure.cutoff, kw["dcg"], kw["gains"])
    if name == "iP":
        assert measure.cutoff is not None  # the parser refuses iP without its @k
        return count_variance(judged, measure.cutoff, rel) / measure.cutoff ** 2
    if name in ("iNumRelRet", "iNumRel"):
        return count_variance(judged, None, rel, whole=name == "iNumRel")
    var = xinfap_variance(judged, rel, kw["smoothing"])
    if kw["cap"]:  # the rescaled estimate's variance scales with the square of the factor
        total, _ = stratum_totals(as_sampled(judged), level(judged, rel))
        var = np.where(total > kw["cap"], var * (total / kw["cap"]) ** 2, var)
    return var


@dataclass(eq=False)
class Inference:
    """One run's values and variances (NaN where a measure has no variance method).

    Attributes:
        run: the run's name.
        topics: evaluated topics (n).
        measures: the measures (m).
        values, variance: (n, m).
        level: the confidence level of the intervals, None for none.
    """

    run: str
    topics: list[str]
    measures: list[Measure]
    values: np.ndarray
    variance: np.ndarray
    level: float | None = None

    @property
    def summary(self) -> tuple[np.ndarray, np.ndarray]:
        """(values, variances) over topics, each measure aggregated its own way."""
        how = [m.spec.aggregate for m in self.measures]
        return (np.array([aggregate(self.values[:, c], h) for c, h in enumerate(how)]),
                np.array([aggregate_variance(self.variance[:, c], h) for c, h in enumerate(how)]))

    def rows(self, per_topic: bool = True) -> list[dict[str, Any]]:
        """{run, topic, measure, value[, lo, hi]} rows; topic 'all' = over topics."""
        order = sorted(range(len(self.topics)), key=lambda i: natural_key(self.topics[i]))
        blocks = [(self.topics[i], self.values[i], self.variance[i]) for i in order] \
            if per_topic else []
        blocks.append(("all", *self.summary))
        out = []
        for topic, values, variance in blocks:
            for m, v, var in zip(self.measures, values, variance, strict=True):
                row: dict[str, Any] = {"run": self.run, "topic": topic, "measure": m.name,
                                       "value": float(v)}
                if self.level is not None:
                    lo, hi = normal_interval(v, var, self.level, target_range(m))
                    row.update(lo=float(lo), hi=float(hi))
                out.append(row)
        return out


#: The range of what an estimator without a range of its own estimates: its intervals are
#: clipped to it (statAP's and statNDCG's Horvitz-Thompson estimates and infNDCG's ratio of two
#: estimates can leave [0, 1], the AP and nDCG they estimate cannot).
TARGET_RANGE = {"infNDCG": (0.0, 1.0), "statAP": (0.0, 1.0), "statNDCG": (0.0, 1.0),
                "iNumRelRet": (0.0, np.inf), "iNumRel": (0.0, np.inf)}

#: Why a point estimate can leave its target's range, by family (the note on such values).
_WHY_OUTSIDE = {
    "statAP": "each sampled document counts 1/(its inclusion probability), so a run made "
              "mostly of sampled documents can score above 1",
    "infNDCG": "its DCG and its ideal DCG are estimated apart",
}
_WHY_OUTSIDE["statNDCG"] = _WHY_OUTSIDE["statAP"]


def target_range(measure: Measure) -> tuple[float, float] | None:
    """The range `measure`'s intervals are clipped to: its own, or that of what it estimates.

    Example:
        >>> [target_range(m) for m in parse_measures(["xinfAP", "statAP", "iNumRel"])]
        [(0.0, 1.0), (0.0, 1.0), (0.0, inf)]
    """
    return measure.spec.bounded or TARGET_RANGE.get(measure.spec.name)


def outside_note(inf: Inference) -> str | None:
    """One line on the point estimates of `inf` outside their target's range (kept as they
    are), or None when there are none."""
    if not inf.topics:
        return None
    means = inf.summary[0]
    shown: list[str] = []
    why: dict[str, list[str]] = {}  # reason: families
    for c, m in enumerate(inf.measures):
        low, high = TARGET_RANGE.get(m.spec.name, (-np.inf, np.inf))
        column = inf.values[:, c]
        if m.spec.bounded is not None or not ((column > high) | (column < low)).any():
            continue
        worst = column.max() if (column > high).any() else column.min()
        shown.append(f"{m.name} {means[c]:.4f} (a topic: {worst:.4f})")
        families = why.setdefault(_WHY_OUTSIDE[m.spec.name], [])
        families += [] if m.spec.name in families else [m.spec.name]
    if not shown:
        return None
    reasons = "; ".join(f"{', '.join(fams)}: {text}" for text, fams in why.items())
    return (f"run {inf.run}: {', '.join(shown)} outside [0, 1], the range of what they "
            f"estimate ({reasons}); kept unclipped, as clipping would bias them; their "
            "intervals are clipped (docs/sampled-judgments.md)")


def infer_runs(runs: Iterable[Any], qrels: SampledQrels, measures: list[Measure], *,
               level: float | None = 0.95, b: int = 1000, seed: int = 0,
               policies: Policies = Policies(), method: str = "auto") -> Iterable[Inference]:
    """Yield each run's Inference (runs already read; bootstrap replicates are shared by all).
    `level=None` computes values only."""
    if level is not None:
        z_value(level)  # fail early on a bad level
    how = [method_of(m, method) for m in measures]
    boot = [m for m, h in zip(measures, how, strict=True) if h == "bootstrap"]
    reps = Replicates(qrels, b, seed) if level is not None and boot else None
    pools: dict[tuple[str, ...], Pool] = {}
    for run in runs:
        topics = evaluated_topics(run, qrels, policies.complete)
        pool = pools.setdefault(tuple(topics), Pool.build(qrels, topics, policies.negative))
        j = judge_sampled(run, qrels, policies, pool)
        values = np.zeros((len(topics), len(measures)))
        variance = np.full(values.shape, np.nan)
        if topics:
            for c, m in enumerate(measures):
                values[:, c] = m.compute(j)
                if level is not None and how[c] == "analytic":
                    variance[:, c] = analytic_variance(m, j)
            if reps is not None:
                # replicates along a contiguous last axis: each topic's sum then runs in the
                # same order however many topics there are (bit-identical variances)
                reps_values = np.ascontiguousarray(np.moveaxis(bootstrap_values(j, reps, boot),
                                                               0, -1))
                for c, m in enumerate(boot):
                    variance[:, measures.index(m)] = reps_values[:, c].var(axis=-1, ddof=1)
        inference = Inference(run.name, topics, measures, values, variance, level)
        text = outside_note(inference)
        if text is not None:
            note(text)
        yield inference


def infer(runs: Any, qrels: Any, measures: Any, *, level: float | None = 0.95, b: int = 1000,
          seed: int = 0, method: str = "auto", per_topic: bool = True,
          policies: Policies | None = None, **policy_kw: Any):
    """Inferred measures with confidence intervals as a tidy DataFrame
    (run, topic, measure, value, lo, hi; topic 'all' = over topics).

    `qrels` may be sample_eval's 5-column file, trec_eval-style qrels (one stratum), a
    SampledQrels, dict or DataFrame; `runs` anything `evaluate` takes. `level=None` skips the
    intervals; `method` 'bootstrap' bootstraps every measure it can; `b` and `seed` set the
    stratified bootstrap.

    Example:
        >>> df = infer({"t": {"c": 3.0, "a": 2.0, "b": 1.0}},
        ...            {"t": {"a": 1, "b": 0, "c": -1, "d": 1}}, ["infAP"], per_topic=False)
        >>> df[["measure", "value", "lo", "hi"]].round(4).values.tolist()
        [['infAP', 0.375, 0.0, 0.8167]]
    """
    import pandas as pd

    from unjudged.engine.score import _as_runs, policies_from
    from unjudged.io.sampled import read_sampled_qrels

    pol = policies_from(policies, policy_kw)
    whole_number(b, "b (bootstrap replicates)", 2)
    whole_number(seed, "seed")
    q = read_sampled_qrels(qrels)
    ms = measures_given(measures)
    rows = [row for inf in infer_runs(_as_runs(runs, pol.ties, q), q, ms, level=level, b=b,
                                      seed=seed, policies=pol, method=method)
            for row in inf.rows(per_topic)]
    columns = ["run", "topic", "measure", "value"] + (["lo", "hi"] if level is not None else [])
    return pd.DataFrame(rows, columns=columns)
