"""Simulated rounds of judging: how fast each planning strategy makes the ranking of the runs
trustworthy (`unjudged experiment planning`, docs/planning.md).

Every strategy starts from the same qrels and, batch after batch, chooses documents among those
the truth qrels judge; the truth "judges" them, and after each batch the runs are scored on what
has been judged so far (unjudged documents non-relevant, as trec_eval does) and compared with
their scores on the truth: Kendall's tau and tau_AP between the two rankings, the RMSE of the run
means, and, for the measures planned for (the bootstrap of an uncut measure such as AP costs
as much as all the rest), the share of pairs whose order it settles
(P(A > B) >= 0.95) rightly and wrongly, and the mean width of the runs' 90% intervals. Reference
qrels (e.g. what a real deeper pool judged) are scored the same way, and the summary says how
many judgments each strategy needed to reach each reference's tau.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from unjudged.data.qrels import MISSING, Qrels
from unjudged.data.run import Run
from unjudged.errors import IncompatibleInputsError, InvalidOptionError
from unjudged.judgments.edit import filter_qrels, merge_qrels
from unjudged.measures import Measure
from unjudged.planning import STRATEGIES, PlanSettings, Universe, plan
from unjudged.planning.plan import DECIDED
from unjudged.policies import Policies
from unjudged.stats.correlation import kendall_tau, tau_ap
from unjudged.strategies.priors import DEFAULT_PRIOR

if TYPE_CHECKING:
    from unjudged.parallel import Executor

#: where the simulated assessors' documents come from (see planning_experiment)
CANDIDATES = ("truth", "runs")
#: the measures seed 003 compares rankings by
DEFAULT_MEASURES = ("nDCG@10", "P@5", "AP", "bpref")
LEVEL = 0.9  #: the runs' interval level whose width is recorded


@dataclass(eq=False)
class PlanningSweep:
    """One row per (strategy, trial, judgments, measure) in `rows`; one per (reference,
    measure) in `references`."""

    rows: list[dict[str, Any]]
    references: list[dict[str, Any]]
    strategies: list[str]
    budgets: list[int]
    measures: list[Measure]
    plan_measures: list[Measure]
    runs: list[str]
    topics: list[str]
    candidates: int
    trials: int
    b: int
    seed: int
    seconds: float = 0.0
    details: list[dict[str, Any]] = field(default_factory=list)

    def mean_rows(self) -> list[dict[str, Any]]:
        """`rows` averaged over trials."""
        groups: dict[tuple, list[dict[str, Any]]] = {}
        for r in self.rows:
            groups.setdefault((r["strategy"], r["judgments"], r["measure"]), []).append(r)
        out = []
        for (s, j, m), rs in groups.items():
            row: dict[str, Any] = {"strategy": s, "judgments": j, "measure": m}
            for k in _METRICS:
                vals = [r[k] for r in rs if r[k] is not None and not np.isnan(r[k])]
                row[k] = float(np.mean(vals)) if vals else float("nan")
            out.append(row)
        return out

    def needed(self) -> list[dict[str, Any]]:
        """Per (reference, measure, strategy): the fewest judgments (among the budgets) at
        which the strategy's mean tau reaches the reference's tau; None when no budget does."""
        means = self.mean_rows()
        out = []
        for ref in self.references:
            for s in self.strategies:
                curve = sorted((r["judgments"], r["tau"]) for r in means
                               if r["strategy"] == s and r["measure"] == ref["measure"])
                hit = next((j for j, t in curve if t >= ref["tau"] - 1e-12), None)
                out.append({"reference": ref["reference"], "measure": ref["measure"],
                            "reference_judgments": ref["judgments"],
                            "reference_tau": ref["tau"], "strategy": s, "judgments": hit,
                            "ratio": None if hit is None else hit / max(ref["judgments"], 1)})
        return out


_METRICS = ("tau", "tau_ap", "rmse", "decided_right", "decided_wrong", "width")


class _Scorer:
    """Scores every run on a universe's current qrels and compares with the truth."""

    def __init__(self, runs: Sequence[Run], measures: list[Measure], truth: np.ndarray,
                 b: int, seed: int, policies: Policies, executor: Executor | None,
                 drawn: list[Measure]) -> None:
        self.runs, self.measures, self.truth, self.drawn = list(runs), measures, truth, drawn
        self.b, self.seed, self.policies, self.executor = b, seed, policies, executor
        #: (qrels, seed, draws) of the last call: the uncertainty planner's next batch draws
        #: the same when it shares the settings (`shared_draws`)
        self.last: tuple[Qrels | None, int, dict[str, np.ndarray]] = (None, 0, {})

    def shared_draws(self, qrels: Qrels, seed: int, settings: PlanSettings,
                     planned: list[Measure]) -> dict[str, np.ndarray] | None:
        """The last call's draws when the plan on `qrels` would draw exactly them: the same
        qrels, seed, iterations, prior, policies and measures."""
        q, s, draws = self.last
        same = (q is qrels and s == seed and settings.b == self.b
                and settings.prior == DEFAULT_PRIOR and settings.policies == self.policies
                and set(draws) == {m.name for m in planned})
        return draws if same else None

    def __call__(self, u: Universe, seed: int) -> list[dict[str, Any]]:
        means = run_means(u, self.measures)
        drawn = self._draws(u.qrels, seed)
        self.last = (u.qrels, seed, drawn)
        out = []
        for i, m in enumerate(self.measures):
            x, y = means[:, i], self.truth[:, i]
            row = {"measure": m.name, "tau": kendall_tau(x, y), "tau_ap": tau_ap(x, y),
                   "rmse": float(np.sqrt(np.mean((x - y) ** 2))),
                   "decided_right": float("nan"), "decided_wrong": float("nan"),
                   "width": float("nan")}
            if m.name in drawn:
                row.update(_decided(drawn[m.name], y))
            out.append(row)
        return out

    def _draws(self, qrels: Qrels, seed: int) -> dict[str, np.ndarray]:
        from unjudged.engine.estimate import EstimateSettings, estimate_all

        ms = [m for m in self.measures if m.spec.estimable and m in self.drawn]
        if not ms or self.b < 2:
            return {}
        est = estimate_all(self.runs, qrels, ms, EstimateSettings(
            methods=("bootstrap",), b=self.b, seed=seed, policies=self.policies,
            interval=LEVEL), executor=self.executor, pool_runs=self.runs)
        return {m.name: est.run_draws(i) for i, m in enumerate(ms)}


def _decided(draws: np.ndarray, truth: np.ndarray) -> dict[str, float]:
    """Shares of pairs settled (P >= DECIDED) in the truth's order and against it, and the
    mean width of the runs' LEVEL intervals, from (b, runs) coupled draws."""
    from unjudged.engine.pairs import pair_probabilities

    p = pair_probabilities(draws)
    n = truth.size
    iu = np.triu_indices(n, 1)
    a_wins, b_wins = p[iu], p.T[iu]
    t = np.sign(truth[iu[0]] - truth[iu[1]])
    right = ((a_wins >= DECIDED) & (t > 0)) | ((b_wins >= DECIDED) & (t < 0))
    wrong = ((a_wins >= DECIDED) & (t <= 0)) | ((b_wins >= DECIDED) & (t >= 0))
    lo, hi = np.quantile(draws, [(1 - LEVEL) / 2, (1 + LEVEL) / 2], axis=0)
    pairs = max(iu[0].size, 1)
    return {"decided_right": float(right.sum() / pairs),
            "decided_wrong": float(wrong.sum() / pairs),
            "width": float(np.mean(hi - lo))}


def run_means(u: Universe, measures: list[Measure]) -> np.ndarray:
    """(runs, measures) each run's mean over its evaluated topics, unjudged documents
    non-relevant (what trec_eval reports)."""
    out = np.zeros((len(u.runs), len(measures)))
    for r, j in enumerate(u.judged):
        ev = u.evaluated[r]
        for i, m in enumerate(measures):
            out[r, i] = float(np.mean(m.compute(j)[ev])) if ev.any() else 0.0
    return out


def judged_by(truth: Qrels, u: Universe, chosen: np.ndarray, unlisted: bool = False) -> Qrels:
    """The truth's judgments of the chosen candidates, as qrels; with `unlisted`, a document
    the truth does not list is non-relevant (qrels that list only relevant documents)."""
    topics = [u.topics[t] for t in u.topic[chosen]]
    docs = u.docno.take(pa.array(chosen))
    grades = truth.lookup(truth.topic_codes(topics), truth.doc_codes(docs))
    missing = (grades == MISSING) | (grades < 0)
    if missing.any() and not unlisted:
        raise IncompatibleInputsError("a plan chose a document the truth does not judge")
    grades = np.where(missing, 0, grades)
    from unjudged.io.qrels import build_qrels

    n = len(topics)
    return build_qrels(pa.array(topics, pa.string()), pa.array(["0"] * n, pa.string()), docs,
                       pa.array(grades.astype(np.int64)), source="<judged>")


def planning_experiment(runs: Sequence[Run], start: Qrels, truth: Qrels, budgets: Sequence[int],
                        strategies: Sequence[str], measures: list[Measure],
                        plan_measures: list[Measure], *, settings: PlanSettings | None = None,
                        trials: int = 1, b: int = 500,
                        references: dict[str, Qrels] | None = None,
                        executor: Executor | None = None, desc: str | None = None,
                        details: bool = False, candidates: str = "truth") -> PlanningSweep:
    """Replay judging with each strategy from `start` towards `truth` (see the module).

    `budgets` are cumulative numbers of judgments (increasing); `trials` repeat everything
    with seeds settings.seed + trial (only the bootstrap's draws differ); `b` is the
    bootstrap of the decided-pairs and width columns (0: skip them). With `details`, every
    chosen document is listed (strategy, trial, batch, topic, docno, grade). `candidates`:
    "truth", the documents the truth judges (the others cannot be judged), or "runs", every
    unjudged document the runs retrieve, those the truth does not list being non-relevant (for
    qrels that list only relevant documents, e.g. Cranfield's).
    """
    from unjudged.parallel import progress_bar

    settings = settings or PlanSettings()
    began = time.perf_counter()
    budgets = _check_budgets(budgets)
    unknown = [s for s in strategies if s not in STRATEGIES]
    if unknown or not strategies:
        raise InvalidOptionError(f"strategies must be among {', '.join(STRATEGIES)}, not "
                                 f"{', '.join(unknown) or 'none'}")
    if candidates not in CANDIDATES:
        raise InvalidOptionError(f"candidates must be one of {', '.join(CANDIDATES)}, not "
                                 f"{candidates!r}")
    if trials < 1:
        raise InvalidOptionError(f"trials must be at least 1, not {trials}")
    truth = filter_qrels(truth, topics=start.topics)
    if len(truth) == 0:
        raise IncompatibleInputsError("the truth qrels judge none of the start qrels' topics")
    pol = settings.policies
    unlisted = candidates == "runs"
    universe = Universe.build(runs, start, pol,
                              candidates=None if unlisted else _judged_only(truth))
    if len(universe) == 0:
        raise IncompatibleInputsError("no document the runs retrieve is judged by the truth "
                                      "but not by the start qrels: nothing to plan")
    truth_u = universe.with_qrels(runs, merge_qrels([start, truth], on_conflict="last"))
    truth_means = run_means(truth_u, measures)
    scorer = _Scorer(runs, measures, truth_means, b, settings.seed, pol, executor,
                     plan_measures)
    rows: list[dict[str, Any]] = []
    chosen_rows: list[dict[str, Any]] = []
    start_rows = scorer(universe, settings.seed)
    start_draws = scorer.last
    total = len(strategies) * trials * len(budgets)
    with progress_bar(total, desc, unit="batches") as bar:
        for s in strategies:
            for trial in range(trials):
                seed = settings.seed + trial
                rows += [{"strategy": s, "trial": trial, "judgments": 0, **r}
                         for r in start_rows]
                u, spent = universe, 0
                scorer.last = start_draws
                for batch, budget in enumerate(budgets):
                    chosen = replace(settings, strategy=s, seed=seed)
                    p = plan(runs, u.qrels, budget - spent, plan_measures, chosen, universe=u,
                             executor=executor,
                             draws=scorer.shared_draws(u.qrels, seed, chosen, plan_measures))
                    new = judged_by(truth, u, p.chosen, unlisted)
                    if details:
                        chosen_rows += [{"strategy": s, "trial": trial, "batch": batch + 1,
                                         **row} for row in p.rows()]
                    u = u.with_qrels(runs, merge_qrels([u.qrels, new], on_conflict="last"))
                    spent += len(p)
                    rows += [{"strategy": s, "trial": trial, "judgments": spent, **r}
                             for r in scorer(u, seed)]
                    bar.update()
    refs = []
    for name, q in (references or {}).items():
        q = filter_qrels(q, topics=start.topics)
        added = _added(start, q)
        ref_u = universe.with_qrels(runs, merge_qrels([start, q], on_conflict="last"))
        refs += [{"reference": name, "judgments": added, **r}
                 for r in scorer(ref_u, settings.seed)]
    return PlanningSweep(rows, refs, list(strategies), budgets, measures, plan_measures,
                         [r.name for r in runs], universe.topics, len(universe), trials, b,
                         settings.seed, time.perf_counter() - began, chosen_rows)


def _check_budgets(budgets: Sequence[int]) -> list[int]:
    out = [int(x) for x in budgets]
    rising = all(b > a for a, b in zip(out, out[1:], strict=False))
    if not out or any(x < 1 for x in out) or not rising:
        raise InvalidOptionError(f"budgets must be increasing positive numbers of judgments, "
                                 f"not {', '.join(map(str, out)) or 'none'}")
    return out


def _judged_only(q: Qrels) -> Qrels:
    """The lines of `q` with a grade >= 0 (what it judged)."""
    from unjudged.judgments.edit import select_lines

    return select_lines(q, q.grade >= 0)


def _added(start: Qrels, q: Qrels) -> int:
    """Judgments (grade >= 0) of `q` that `start` lacks."""
    j = _judged_only(q)
    docs = j.docs.take(pa.array(j.dcode))
    topics = [j.topics[t] for t in j.tcode]
    have = start.lookup(start.topic_codes(topics), start.doc_codes(docs))
    return int(((have == MISSING) | (have < 0)).sum())
