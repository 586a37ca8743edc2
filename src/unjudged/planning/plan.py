"""plan(): which unjudged documents to judge next, and the plan as rows and a pool file."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from unjudged.data.qrels import Qrels
from unjudged.data.run import Run
from unjudged.errors import IncompatibleInputsError, InvalidOptionError
from unjudged.measures import Measure
from unjudged.planning.effects import Effects, effects
from unjudged.planning.strategies import STRATEGIES
from unjudged.planning.universe import Universe, distinct_pairs
from unjudged.planning.value import PairMoments, above
from unjudged.policies import Policies
from unjudged.strategies.priors import MODEL_PRIORS, split_prior

if TYPE_CHECKING:
    from unjudged.parallel import Executor

OBJECTIVES = ("ranking", "pair", "intervals")
PLAN_PRIORS = ("position", "pool", "estimates")  #: estimates as estimates:FILE
DECIDED = 0.95  #: a pair whose P(A > B) reaches this is settled (the report's threshold)


@dataclass(frozen=True)
class PlanSettings:
    """How a plan is made (what every batch of an experiment shares)."""

    strategy: str = "uncertainty"
    objective: str = "ranking"
    pair: tuple[str, str] | None = None
    b: int = 1000
    seed: int = 0
    prior: str = "position"
    depth: int | None = None  #: ranks considered for measures without cutoff (PLAN_DEPTH)
    policies: Policies = field(default_factory=Policies)

    def __post_init__(self) -> None:
        if self.strategy not in STRATEGIES:
            raise InvalidOptionError(f"strategy must be one of {', '.join(STRATEGIES)}, not "
                                     f"{self.strategy!r}")
        if self.objective not in OBJECTIVES:
            raise InvalidOptionError(f"objective must be one of {', '.join(OBJECTIVES)}, not "
                                     f"{self.objective!r}")
        if (self.objective == "pair") != (self.pair is not None):
            raise InvalidOptionError("the pair objective names two runs (and only it does)")
        if self.pair is not None and self.pair[0] == self.pair[1]:
            raise InvalidOptionError(f"the pair objective needs two different runs, not "
                                     f"{self.pair[0]!r} twice")
        if self.prior == "estimates":
            raise InvalidOptionError("the estimates prior names its file: estimates:FILE")
        if split_prior(self.prior)[0] not in PLAN_PRIORS:
            raise InvalidOptionError(f"a plan's prior must be one of {', '.join(PLAN_PRIORS)}"
                                     f":FILE, not {self.prior!r}")
        if self.b < 2:
            raise InvalidOptionError(f"a plan needs at least 2 bootstrap iterations, not "
                                     f"{self.b}")


class Context:
    """What the strategies read: the candidates, the runs, the measures, and lazily the
    effects, the prior and the bootstrap's moments (each computed once per plan)."""

    def __init__(self, u: Universe, runs: Sequence[Run], measures: list[Measure],
                 settings: PlanSettings, executor: Executor | None = None,
                 desc: str | None = None, draws: dict[str, np.ndarray] | None = None) -> None:
        self.u, self.runs, self.measures, self.settings = u, list(runs), measures, settings
        self.executor, self.desc, self.draws = executor, desc, draws
        if settings.pair is not None:
            missing = [n for n in settings.pair if n not in u.runs]
            if missing:
                raise IncompatibleInputsError(f"--pair: {missing[0]!r} is not among the runs")
            self.focus = np.array([u.runs.index(n) for n in settings.pair])
        else:
            self.focus = np.arange(len(u.runs))

    def entries(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(run, topic, rank0, candidate) of the focus runs' open candidates at any rank."""
        return self._entries

    @cached_property
    def _entries(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        return self.u.entries(None, self.focus if self.settings.pair else None)

    def open_candidates(self) -> np.ndarray:
        """Open candidates some focus run retrieves (all runs unless the objective is a
        pair)."""
        return np.flatnonzero(self.retrieved_by_focus & self.u.open)

    @cached_property
    def retrieved_by_focus(self) -> np.ndarray:
        r, t, k, c = self.entries()
        out = np.zeros(len(self.u), dtype=bool)
        out[c] = True
        return out

    @cached_property
    def doc_order(self) -> np.ndarray:
        """Each candidate's position in byte order of its document id (ties of last resort)."""
        from unjudged.data._strings import byte_ranks

        return np.asarray(byte_ranks(self.u.docno), dtype=np.int64)

    @cached_property
    def _best_hits(self) -> tuple[np.ndarray, np.ndarray]:
        if not self.settings.pair:  # every run is a focus run: the universe's own counts
            return self.u.best, self.u.hits
        r, t, k, c = self.entries()
        best = np.full(len(self.u), np.iinfo(np.int64).max, dtype=np.int64)
        np.minimum.at(best, c, k + 1)
        return best, np.bincount(c, minlength=len(self.u))

    def best_and_hits(self) -> tuple[np.ndarray, np.ndarray]:
        """Best rank and number of focus runs of each candidate."""
        return self._best_hits

    @cached_property
    def _effects(self) -> list[Effects]:
        focus = self.focus if self.settings.pair else None
        return [effects(self.u, m, self.settings.depth, focus) for m in self.measures]

    def effects(self) -> list[Effects]:
        return self._effects

    @cached_property
    def _estimate_settings(self):
        """The bootstrap's settings (and so its prior's model) under the plan's settings."""
        from unjudged.engine.estimate import EstimateSettings

        s = self.settings
        return EstimateSettings(methods=("bootstrap",), prior=s.prior, b=s.b, seed=s.seed,
                                policies=s.policies)

    @cached_property
    def _model(self):
        """The prior's model of the runs (position, or estimates), built once per plan."""
        from unjudged.engine.estimate import prior_model

        return prior_model(self.runs, self.u.qrels, self._estimate_settings)

    @cached_property
    def _prior(self) -> np.ndarray:
        levels = self.u.levels()
        if split_prior(self.settings.prior)[0] in MODEL_PRIORS:
            model = self._model
            return model.probabilities(model.topic_codes(self.u.topics)[self.u.topic],
                                       self.u.keys, levels)
        from unjudged.strategies.bootstrap import pool_prior

        return pool_prior(self.u.pool, levels)[self.u.topic]

    def prior(self) -> np.ndarray:
        """(candidates, levels) each candidate's grade probabilities under the plan's prior."""
        return self._prior

    def p_relevant(self) -> np.ndarray:
        return self.prior()[:, self.settings.policies.rel_level:].sum(axis=1)

    def topic_rate(self) -> np.ndarray:
        """Each topic's share of relevant documents among its judged ones (0 without any)."""
        pool = self.u.pool
        judged = pool.num_judged
        return np.where(judged > 0, pool.num_rel(self.settings.policies.rel_level) /
                        np.maximum(judged, 1), 0.0)

    @cached_property
    def _moments(self) -> list[PairMoments]:
        if self.draws is not None:
            return [PairMoments.of(self.draws[m.name]) for m in self.measures]
        from unjudged.engine.estimate import DrawContext, estimate_all, growth_of

        es = self._estimate_settings
        context = None
        if split_prior(self.settings.prior)[0] in MODEL_PRIORS:  # the prior's model, once
            context = DrawContext(self._model, growth_of(self._model, self.u.qrels,
                                                         self.measures, es)
                                  if es.grow else None)
        est = estimate_all(self.runs, self.u.qrels, self.measures, es, context=context,
                           executor=self.executor, desc=self.desc, pool_runs=self.runs)
        return [PairMoments.of(est.run_draws(i)) for i in range(len(self.measures))]

    def moments(self) -> list[PairMoments]:
        """Per measure, the runs' and pairs' moments under the bootstrap's coupled draws."""
        return self._moments

    def pair_weights(self) -> np.ndarray | None:
        """Which pairs the uncertainty objective sums over ((runs, runs) weights), None for
        the intervals objective."""
        n = len(self.u.runs)
        if self.settings.objective == "intervals":
            return None
        if self.settings.objective == "pair":
            w = np.zeros((n, n))
            a, b = self.focus
            w[a, b] = w[b, a] = 1.0
            return w
        return 1.0 - np.eye(n)

    def bounds(self, runs: Sequence[Run]) -> tuple[np.ndarray, np.ndarray]:
        """(lower, upper) (runs, measures): the runs' scores with every unjudged document
        non-relevant, and of the best grade the pool still has (NaN as 0)."""
        from unjudged.engine.estimate import EstimateSettings, estimate_all

        est = estimate_all(runs, self.u.qrels, self.measures,
                           EstimateSettings(methods=("nonrel", "upper"),
                                            policies=self.settings.policies))
        return (np.nan_to_num(np.stack([r.summary("nonrel") for r in est.runs])),
                np.nan_to_num(np.stack([r.summary("upper") for r in est.runs])))

    def open_pairs(self) -> np.ndarray | None:
        """The pair weights of minimal test collections: pairs whose order the guaranteed
        bounds (unjudged non-relevant / all relevant) do not settle under some measure."""
        w = self.pair_weights()
        if w is None or self.settings.objective == "pair":
            return w
        lo, hi = self.bounds(self.runs)
        settled = np.zeros_like(w, dtype=bool)
        for i in range(lo.shape[1]):
            a, b = lo[:, i], hi[:, i]
            settled |= (a[:, None] > b[None, :]) | (a[None, :] > b[:, None])
        return np.where(settled, 0.0, w)

    def pair_settled(self) -> str | None:
        """For the pair objective: why the bounds order the pair under every measure (one
        line), or None when some measure leaves the order open."""
        names = [self.u.runs[i] for i in self.focus]
        lo, hi = self.bounds([self.runs[i] for i in self.focus])
        why = []
        for i, m in enumerate(self.measures):
            w = 0 if lo[0, i] > hi[1, i] else 1 if lo[1, i] > hi[0, i] else None
            if w is None:
                return None
            why.append(f"under {m.name} {names[w]} scores at least {lo[w, i]:.4f} "
                       f"(unjudged documents non-relevant) and {names[1 - w]} at most "
                       f"{hi[1 - w, i]:.4f} (of the best grade the pool has)")
        return (f"--pair {names[0]} {names[1]} is settled: {'; '.join(why)}, so judging "
                "cannot reverse the order while the pool's normaliser holds; the plan is "
                "empty")

    def pair_odds(self) -> str | None:
        """For the pair objective of the uncertainty planner: a line when its P(A > B) (the
        planner's normal model of the bootstrap's draws) reaches DECIDED either way under every
        measure although the bounds leave the order open, or None."""
        a, b = self.focus
        names = [self.u.runs[i] for i in self.focus]
        chances = []
        for m, mo in zip(self.measures, self.moments(), strict=True):
            p = float(above(np.array(mo.mean[a] - mo.mean[b]), np.array(mo.pair_var[a, b])))
            if max(p, 1 - p) < DECIDED:
                return None
            w = 0 if p >= 0.5 else 1
            chances.append(f"P({names[w]} > {names[1 - w]}) = {max(p, 1 - p):.3f} under "
                           f"{m.name}")
        return (f"--pair {names[0]} {names[1]} is settled by the bootstrap: "
                f"{'; '.join(chances)} (the report's threshold is {DECIDED}), not by the "
                "bounds: the plan lists the documents whose judgment could still reverse it")


@dataclass(eq=False)
class Plan:
    """The chosen documents in priority order, with the strategy's score of each."""

    universe: Universe
    chosen: np.ndarray
    scores: np.ndarray
    p_relevant: np.ndarray  # per chosen document, under the plan's prior
    settings: PlanSettings
    measures: list[Measure]
    budget: int
    open_before: int
    #: (topics,) the open candidates each topic offered the strategy
    eligible: np.ndarray
    #: distinct (topic, document) pairs of the candidates file, when one was given
    given: int | None = None
    #: for the pair objective: a line saying that the pair is settled (the plan is then
    #: empty) or that the bootstrap all but settles it (Context.pair_settled, pair_odds)
    note: str | None = None

    def __len__(self) -> int:
        return int(self.chosen.size)

    @property
    def topic_ids(self) -> list[str]:
        return [self.universe.topics[t] for t in self.universe.topic[self.chosen]]

    @property
    def docnos(self) -> list[str]:
        return [str(d) for d in self.universe.docno.take(self.chosen).to_pylist()]

    def lines(self) -> str:
        """`topic 0 docno -1` per chosen document, in priority order (a pool file)."""
        return "".join(f"{t} 0 {d} -1\n" for t, d in zip(self.topic_ids, self.docnos,
                                                         strict=True))

    def rows(self) -> list[dict[str, Any]]:
        """One dict per chosen document: priority, topic, docno, best_rank, runs (that
        retrieved it), p_relevant, score."""
        u = self.universe
        return [{"priority": i + 1, "topic": t, "docno": d, "best_rank": int(u.best[c]),
                 "runs": int(u.hits[c]), "p_relevant": float(p), "score": float(s)}
                for i, (t, d, c, p, s) in enumerate(zip(
                    self.topic_ids, self.docnos, self.chosen.tolist(), self.p_relevant,
                    self.scores, strict=True))]

    def topic_rows(self) -> list[dict[str, Any]]:
        """Per topic: candidates open before the plan, documents chosen, their expected
        number of relevant ones under the prior, and their best ranks (min, median)."""
        u = self.universe
        chosen_t = u.topic[self.chosen]
        out = []
        for t, name in enumerate(u.topics):
            sel = self.chosen[chosen_t == t]
            ranks = u.best[sel]
            out.append({"topic": name, "candidates": int(self.eligible[t]),
                        "chosen": int(sel.size),
                        "expected_relevant": float(self.p_relevant[chosen_t == t].sum()),
                        "best_rank_min": int(ranks.min()) if sel.size else None,
                        "best_rank_median": float(np.median(ranks)) if sel.size else None})
        return out


def plan(runs: Sequence[Run], qrels: Qrels, budget: int, measures: list[Measure],
         settings: PlanSettings = PlanSettings(), *, candidates: Qrels | None = None,
         universe: Universe | None = None, executor: Executor | None = None,
         desc: str | None = None, draws: dict[str, np.ndarray] | None = None) -> Plan:
    """The `budget` documents to judge next, in priority order.

    Candidates are the documents `runs` retrieve that `qrels` do not judge (only the (topic,
    document) pairs of `candidates`, when given); a plan never proposes anything else. The same
    inputs and seed give the same plan on every executor. `desc` labels the progress of the
    uncertainty planner's bootstrap (on stderr; lines every 10 s when it is not a terminal);
    `draws` hands it that bootstrap's run-level draws ({measure name: (b, runs)}) when they
    were made already with the same settings on the same qrels.

    Example (two runs disagree only on d3 and d4; the pool judged d1 and d2):
        >>> from unjudged.io import read_qrels, read_run
        >>> from unjudged.measures import parse_measures
        >>> q = read_qrels({"t": {"d1": 1, "d2": 0}})
        >>> a = read_run({"t": {"d1": 4, "d3": 3, "d2": 2}}, name="a")
        >>> b = read_run({"t": {"d1": 4, "d4": 3, "d2": 2, "d5": 1}}, name="b")
        >>> p = plan([a, b], q, 2, parse_measures("P@2"), PlanSettings("depth"))
        >>> p.lines()
        't 0 d3 -1\\nt 0 d4 -1\\n'
    """
    if budget < 1:
        raise InvalidOptionError(f"the budget must be at least 1 document, not {budget}")
    s = settings
    if s.strategy == "uncertainty":
        bad = [m.name for m in measures if not m.spec.estimable]
        if bad:
            raise InvalidOptionError(f"the uncertainty planner needs measures the bootstrap "
                                     f"estimates; not {', '.join(bad)}")
    u = universe if universe is not None else Universe.build(runs, qrels, s.policies,
                                                             candidates)
    ctx = Context(u, runs, measures, s, executor, desc, draws)
    eligible = ctx.open_candidates()
    # a settled pair: every document would be worth nothing, so none is proposed
    note = ctx.pair_settled() if s.objective == "pair" and eligible.size else None
    if note is not None:
        chosen, scores = np.zeros(0, dtype=np.int64), np.zeros(0)
    else:
        chosen, scores = STRATEGIES[s.strategy].choose(ctx, min(budget, eligible.size))
        if s.objective == "pair" and s.strategy == "uncertainty" and eligible.size:
            note = ctx.pair_odds()
    chosen = np.asarray(chosen, dtype=np.int64)
    return Plan(u, chosen, np.asarray(scores, dtype=float), ctx.p_relevant()[chosen], s,
                measures, budget, int(eligible.size),
                np.bincount(u.topic[eligible], minlength=len(u.topics)),
                None if candidates is None else distinct_pairs(candidates), note)


def plan_judgments(runs: Any, qrels: Any, budget: int, measures: Any = "nDCG@10", *,
                   candidates: Any = None, names: str = "tag", **settings: Any) -> Plan:
    """plan() for any inputs: runs and qrels as `unjudged.evaluate` takes them (paths, dicts
    {topic: {docno: score}}, DataFrames, Run and Qrels objects), measures as names; `settings`
    are PlanSettings' fields (strategy, objective, pair, b, seed, prior, depth, policies).

    Example (the pool judged d1 and d2; d3 and d4 decide whether run a beats run b):
        >>> runs = {"a": {"t": {"d1": 4, "d3": 3, "d2": 2}},
        ...         "b": {"t": {"d1": 4, "d4": 3, "d2": 2}}}
        >>> p = plan_judgments(runs, {"t": {"d1": 1, "d2": 0}}, 2, "P@2", strategy="mtc")
        >>> p.docnos, p.lines()
        (['d3', 'd4'], 't 0 d3 -1\\nt 0 d4 -1\\n')
    """
    from unjudged.engine.score import _as_runs
    from unjudged.io import read_qrels
    from unjudged.measures import parse_measures
    from unjudged.policies import whole_number

    whole_number(budget, "budget")
    s = PlanSettings(**settings)
    if "b" in settings and not STRATEGIES[s.strategy].bootstrap:  # an option applies or fails
        raise InvalidOptionError(f"b does not apply to strategy {s.strategy} (the uncertainty "
                                 "planner's bootstrap)")
    q = read_qrels(qrels)
    cands = None if candidates is None else read_qrels(candidates)
    return plan(_as_runs(runs, s.policies.ties, q, names), q, budget,  # type: ignore[arg-type]
                parse_measures(measures), s, candidates=cands)
