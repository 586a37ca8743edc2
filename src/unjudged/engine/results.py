"""Labelled results: run x topic x measure values, with the run-level aggregates."""

from __future__ import annotations

from typing import Any

import numpy as np

from unjudged._records import plain
from unjudged.errors import InvalidOptionError
from unjudged.measures import Measure

MIN_GEO_MEAN = 1e-5
#: The orders `Results.sorted_runs` (and `eval --sort-runs`) put runs in.
RUN_ORDERS = ("input", "name", "score")


def aggregate(values: np.ndarray, how: str, axis: int = -1) -> np.ndarray:
    """Combine per-topic values: mean, sum, or trec_eval's geometric mean (floored at 1e-5)."""
    if values.shape[axis] == 0:
        return np.zeros(np.delete(values.shape, axis if axis >= 0 else values.ndim + axis))
    if how == "sum":
        return values.sum(axis=axis)
    if how == "gmean":
        return np.exp(np.log(np.maximum(values, MIN_GEO_MEAN)).mean(axis=axis))
    return values.mean(axis=axis)


def z_value(level: float) -> float:
    """The standard normal quantile of a two-sided interval at `level`.

    Example:
        >>> round(z_value(0.95), 4)
        1.96
    """
    from scipy.stats import norm

    if not 0.0 < level < 1.0:
        raise InvalidOptionError("the confidence level must lie strictly between 0 and 1, "
                                 f"not {level}")
    return float(norm.ppf(0.5 + level / 2.0))


def normal_interval(value: Any, variance: Any, level: float = 0.95,
                    bounds: tuple[float, float] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(lo, hi) = value -+ z sqrt(variance), clipped to `bounds`; NaN where the variance is.

    Example:
        >>> lo, hi = normal_interval(0.5, 0.01, 0.95, (0.0, 1.0))
        >>> round(float(lo), 4), round(float(hi), 4)
        (0.304, 0.696)
    """
    half = z_value(level) * np.sqrt(np.asarray(variance, dtype=np.float64))
    lo, hi = np.asarray(value) - half, np.asarray(value) + half
    if bounds is not None:
        lo, hi = np.clip(lo, *bounds), np.clip(hi, *bounds)
    return lo, hi


def aggregate_variance(variance: np.ndarray, how: str = "mean", axis: int = -1) -> np.ndarray:
    """Variance of the mean (sum of variances / n^2) or of the sum of independent topics; NaN
    for a geometric mean.

    Example:
        >>> float(aggregate_variance(np.array([0.01, 0.03])))
        0.01
    """
    n = variance.shape[axis]
    total = variance.sum(axis=axis)
    if how == "sum":
        return total
    if how == "mean":
        return total / max(n, 1) ** 2
    return np.full(total.shape, np.nan)


def weighted_aggregate(values: np.ndarray, weights: np.ndarray, how: str) -> np.ndarray:
    """aggregate() of (b, topics) values over topics with (b, topics) weights (a bootstrap
    over topics: each topic counted as often as its weight says).

    Example:
        >>> v = np.array([[0.2, 0.4, 0.9]])
        >>> weighted_aggregate(v, np.array([[2.0, 1.0, 0.0]]), "mean").round(4).tolist()
        [0.2667]
    """
    if values.shape[-1] == 0:  # no topic (a run that shares none with the qrels): as aggregate()
        return aggregate(values, how)
    total = weights.sum(axis=-1)
    if how == "sum":
        # a sum over a resample of as many topics as there are
        scaled = (values * weights).sum(axis=-1) * values.shape[-1] / np.maximum(total, 1e-12)
        return np.where(total > 0, scaled, values.sum(axis=-1))
    x = np.log(np.maximum(values, MIN_GEO_MEAN)) if how == "gmean" else values
    mean = (x * weights).sum(axis=-1) / np.maximum(total, 1e-12)
    mean = np.where(total > 0, mean, x.mean(axis=-1))
    return np.exp(mean) if how == "gmean" else mean


def aggregate_measures(values: np.ndarray, measures: list[Measure],
                       weights: np.ndarray | None = None) -> np.ndarray:
    """Aggregate (..., topics, measures) over topics, each measure its own way; with
    (b, topics) `weights` (values (b, topics, measures)), a weighted aggregate per row."""
    # each measure's values contiguous: a strided column sums in another order, and its mean
    # would then differ in the last bit with the other measures asked for beside it
    if weights is not None:
        return np.stack([weighted_aggregate(np.ascontiguousarray(values[..., i]), weights,
                                            m.spec.aggregate)
                         for i, m in enumerate(measures)], axis=-1)
    return np.stack([aggregate(np.ascontiguousarray(values[..., i]), m.spec.aggregate)
                     for i, m in enumerate(measures)], axis=-1)


@plain
class RunResult:
    """One run's values: `values[t, m]` for topic t and measure m, and their aggregates."""

    run: str
    topics: list[str]
    measures: list[Measure]
    values: np.ndarray  # (topics, measures)
    totals: np.ndarray | None = None  # run-level values when not an aggregate of `values`

    @property
    def summary(self) -> np.ndarray:
        """Aggregated value per measure (mean, sum or geometric mean as the measure says)."""
        return self.totals if self.totals is not None else \
            aggregate_measures(self.values, self.measures)


@plain
class Results:
    """Results of several runs on the same measures."""

    runs: list[RunResult]

    def sorted_runs(self, by: str = "input") -> Results:
        """The same results with the runs in another order: `input` (as given), `name`
        (natural order of the names: run2 before run10) or `score` (the first measure's
        run-level value, best first as the measure counts best; ties by name).

        Example:
            >>> from unjudged.engine.score import score
            >>> from unjudged.io import read_qrels, read_run
            >>> from unjudged.measures import parse_measures
            >>> q = read_qrels({"t": {"a": 1}})
            >>> rs = [read_run({"t": {"x": 1, "a": 0.5}}, name=n) for n in ("r10", "r2")]
            >>> rs.append(read_run({"t": {"a": 1}}, name="r9"))
            >>> res = score(rs, q, parse_measures(["RR"]))
            >>> [r.run for r in res.sorted_runs("name").runs]
            ['r2', 'r9', 'r10']
            >>> [r.run for r in res.sorted_runs("score").runs]
            ['r9', 'r2', 'r10']
        """
        from unjudged.data.topic_order import natural_key

        if by == "input":
            return Results(list(self.runs))
        if by == "name":
            return Results(sorted(self.runs, key=lambda r: natural_key(r.run)))
        if by == "score":
            def key(r: RunResult) -> tuple:
                if not r.measures:
                    return (0.0, natural_key(r.run))
                value = float(r.summary[0])
                sign = -1.0 if r.measures[0].spec.higher_is_better else 1.0
                # NaN (no topic) last
                return (np.isnan(value), sign * value if not np.isnan(value) else 0.0,
                        natural_key(r.run))
            return Results(sorted(self.runs, key=key))
        raise InvalidOptionError(f"sort runs by: expected one of {', '.join(RUN_ORDERS)}, "
                                 f"got {by!r}")

    def to_pandas(self, per_topic: bool = True, summary: bool = True):
        """Tidy DataFrame with columns run, topic, measure, value (topic 'all' = aggregate)."""
        import pandas as pd

        frames = []
        for r in self.runs:
            names = [m.name for m in r.measures]
            if per_topic and r.topics:
                frames.append(pd.DataFrame({
                    "run": r.run,
                    "topic": np.repeat(np.array(r.topics, dtype=object), len(names)),
                    "measure": np.tile(np.array(names, dtype=object), len(r.topics)),
                    "value": r.values.reshape(-1),
                }))
            if summary:
                frames.append(pd.DataFrame({"run": r.run, "topic": "all",
                                            "measure": names, "value": r.summary}))
        if not frames:
            return pd.DataFrame(columns=["run", "topic", "measure", "value"])
        return pd.concat(frames, ignore_index=True)
