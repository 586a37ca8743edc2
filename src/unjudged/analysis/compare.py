"""Compare system rankings: rank correlations, and runs scored under two sets of qrels.

    kendall_tau(x, y, variant="b")   Kendall's tau (tau-b, or tau-a)
    tau_ap(x, y)                     AP correlation, x the reference (Yilmaz et al. 2008)
    spearman_rho(x, y)               Spearman's rho
    correlations(X, Y)               all of them for each column of (systems x measures) arrays
    rank_changes(x, y)               each system's rank under x and under y
    compare_qrels(runs, orig, new, measures) -> QrelsComparison

The functions over score arrays live in `unjudged.stats.correlation` and take one score per
system, higher is better; see there for what a tie means to each statistic.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from unjudged.data.qrels import Qrels
from unjudged.data.run import Run
from unjudged.measures import Measure, parse_measures
from unjudged.policies import Policies
from unjudged.stats.correlation import (
    DECIMALS,
    RankChanges,
    correlations,
    kendall_tau,
    rank_changes,
    ranks,
    spearman_rho,
    tau_ap,
)

__all__ = ["kendall_tau", "tau_ap", "spearman_rho", "correlations", "ranks", "rank_changes",
           "RankChanges", "compare_qrels", "QrelsComparison"]

#: Per-measure statistics, in the order reports show them.
SUMMARY_KEYS = ("measure", "runs", "kendall_tau", "kendall_tau_a", "tau_ap", "spearman_rho",
                "max_rank_change")
#: Per-run columns.
RUN_KEYS = ("measure", "run", "orig", "new", "orig_rank", "new_rank", "rank_change")


@dataclass(eq=False)
class QrelsComparison:
    """The same runs scored under two qrels, and how their rankings agree, per measure.

    `orig[k, m]` and `new[k, m]` are run k's scores on measure m (averaged over topics as the
    policies say); `stats[name][m]` is a correlation between the two rankings (see
    `unjudged.stats.correlation.correlations`; `orig` is tau_ap's reference). Measures where lower
    is better are ranked with the order reversed.

    Example:
        >>> cmp = QrelsComparison(["a", "b", "c"], parse_measures("P@5"),
        ...                       np.array([[0.6], [0.4], [0.2]]), np.array([[0.6], [0.8], [0.2]]))
        >>> row = cmp.summary()[0]
        >>> round(row["kendall_tau"], 4), round(row["tau_ap"], 4), row["max_rank_change"]
        (0.3333, 0.0, 1)
        >>> [(r["run"], r["orig_rank"], r["new_rank"]) for r in cmp.per_run(0)]
        [('a', 1, 2), ('b', 2, 1), ('c', 3, 3)]
    """

    runs: list[str]
    measures: list[Measure]
    orig: np.ndarray
    new: np.ndarray
    decimals: int | None = DECIMALS
    stats: dict[str, np.ndarray] = field(init=False)

    def __post_init__(self) -> None:
        self.stats = correlations(self._oriented(self.orig), self._oriented(self.new),
                                  self.decimals)

    def _oriented(self, values: np.ndarray) -> np.ndarray:
        sign = np.array([1.0 if m.spec.higher_is_better else -1.0 for m in self.measures])
        return values.reshape(len(self.runs), len(self.measures)) * sign

    @property
    def measure_names(self) -> list[str]:
        return [m.name for m in self.measures]

    def rank_changes(self, m: int) -> RankChanges:
        """Ranks of every run under the original and the new qrels on the m-th measure."""
        return rank_changes(self._oriented(self.orig)[:, m], self._oriented(self.new)[:, m],
                            self.decimals)

    def summary(self) -> list[dict[str, Any]]:
        """One dict per measure with the keys of SUMMARY_KEYS."""
        out = []
        for m, name in enumerate(self.measure_names):
            change = self.rank_changes(m).change
            out.append({"measure": name, "runs": len(self.runs),
                        **{k: float(v[m]) for k, v in self.stats.items()},
                        "max_rank_change": int(np.abs(change).max(initial=0))})
        return out

    def per_run(self, m: int, order: np.ndarray | None = None) -> list[dict[str, Any]]:
        """One dict per run (RUN_KEYS) on the m-th measure; by original rank unless `order`
        gives the run indices to list."""
        rc = self.rank_changes(m)
        if order is None:
            order = np.lexsort((np.arange(len(self.runs)), rc.rank_x))
        name = self.measures[m].name
        return [{"measure": name, "run": self.runs[k], "orig": float(self.orig[k, m]),
                 "new": float(self.new[k, m]), "orig_rank": int(rc.rank_x[k]),
                 "new_rank": int(rc.rank_y[k]), "rank_change": int(rc.change[k])}
                for k in order]

    def to_pandas(self, per_run: bool = False):
        """The per-measure summary as a DataFrame, or with `per_run` every run's two scores
        and ranks (columns RUN_KEYS)."""
        import pandas as pd

        if per_run:
            rows = [r for m in range(len(self.measures)) for r in self.per_run(m)]
            return pd.DataFrame(rows, columns=list(RUN_KEYS))
        return pd.DataFrame(self.summary(), columns=list(SUMMARY_KEYS))


def compare_qrels(runs: Any, orig: Any, new: Any, measures: Any,
                  policies: Policies | None = None, *,
                  decimals: int | None = DECIMALS) -> QrelsComparison:
    """Score `runs` under the `orig` and the `new` qrels and compare the two rankings.

    `runs` may be paths (directories and globs expand), Runs, dicts or DataFrames, or an
    iterator of Runs (consumed one at a time, so a long list never sits in memory). Each run is
    read once, with `orig`'s document codes, and scored under both qrels with the same
    `policies` (trec_eval's by default; `Policies(complete=True)` is trec_eval -c). Scores equal
    to `decimals` places are ties.

    Example:
        >>> runs = [{"q": {"a": 3.0, "b": 2.0, "c": 1.0}}, {"q": {"c": 3.0, "b": 2.0}},
        ...         {"q": {"b": 3.0, "a": 2.0}}]
        >>> cmp = compare_qrels(runs, {"q": {"a": 1, "b": 0}}, {"q": {"a": 1, "c": 1}}, "P@1")
        >>> cmp.orig[:, 0].tolist(), cmp.new[:, 0].tolist()
        ([1.0, 0.0, 0.0], [1.0, 1.0, 0.0])
        >>> round(cmp.summary()[0]["kendall_tau"], 4)
        0.5
    """
    from unjudged.engine.score import score
    from unjudged.io import read_qrels

    pol = policies or Policies()
    ms = list(measures) if _all_measures(measures) else parse_measures(measures)
    q_orig, q_new = read_qrels(orig), read_qrels(new)
    names: list[str] = []
    a: list[np.ndarray] = []
    b: list[np.ndarray] = []
    for run in _stream(runs, pol, q_orig):
        names.append(run.name)
        a.append(score([run], q_orig, ms, pol).runs[0].summary)
        b.append(score([run], q_new, ms, pol).runs[0].summary)
    shape = (len(names), len(ms))
    return QrelsComparison(names, ms, np.array(a, dtype=np.float64).reshape(shape),
                           np.array(b, dtype=np.float64).reshape(shape), decimals)


def _all_measures(measures: Any) -> bool:
    return isinstance(measures, Iterable) and not isinstance(measures, str) and all(
        isinstance(m, Measure) for m in measures)


def _stream(runs: Any, pol: Policies, qrels: Qrels) -> Iterator[Run]:
    from unjudged.engine.score import _as_runs, _named
    from unjudged.io.runs import iter_runs

    if isinstance(runs, dict) and runs and _named(runs):  # {name: run}
        yield from _as_runs(runs, pol.ties, qrels)
        return
    if isinstance(runs, (str, bytes, os.PathLike, Run, dict)) or \
            type(runs).__name__ == "DataFrame":
        runs = [runs]
    if isinstance(runs, (list, tuple)):  # one at a time, each under a distinct name
        yield from iter_runs(runs, ties=pol.ties, qrels=qrels)
        return
    for item in runs if isinstance(runs, Iterable) else [runs]:
        if isinstance(item, Run):
            yield item
        else:  # a path may be a directory or a glob: several runs
            yield from iter_runs([item], ties=pol.ties, qrels=qrels)
