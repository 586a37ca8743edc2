"""Everything `unjudged report` shows, computed by the library and nothing else.

    build_report(runs, qrels, measures, ...) -> ReportData

The HTML page (unjudged.report.html) only lays these numbers out; it never computes. Tables are
lists of dicts (one per row) so the same rows become HTML, TSV and JSON lines.
"""

from __future__ import annotations

import hashlib
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import pairwise
from typing import TYPE_CHECKING, Any

import numpy as np

from unjudged.data.qrels import Qrels
from unjudged.data.run import Run
from unjudged.data.topic_order import natural_ranks, natural_sorted
from unjudged.measures import Measure, parse_measures
from unjudged.policies import Policies
from unjudged.strategies.registry import STRATEGIES
from unjudged.strategies.summaries import STATS


def leaderboard_strategies() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The leaderboard's strategy columns: the comparable deterministic ones (nonrel, condensed,
    upper) and the random ones (the bootstrap's point), read from the table when a report is
    built (so a strategy added to it is shown too).

    Example:
        >>> leaderboard_strategies()
        (('nonrel', 'condensed', 'upper'), ('bootstrap',))
    """
    fills = tuple(s.name for s in STRATEGIES if s.comparable and not s.random and s.default)
    return fills, tuple(s.name for s in STRATEGIES if s.random)

if TYPE_CHECKING:
    from unjudged.engine.estimate import Estimates
    from unjudged.judgments.coverage import Coverage
    from unjudged.parallel import Executor

#: Rank bands of the collection view: the pool depth of TREC-COVID round 1 is 7, so the first
#: bands are narrow; deeper ranks matter less to the usual measures.
REPORT_BANDS = ((1, 5), (6, 10), (11, 20), (21, 50), (51, 100))
#: the level of the leaderboard's intervals (score and rank); a pair's order is settled when
#: the bootstrap puts it one way round in at least 1 - (1 - LEVEL) / 2 of the draws (0.95)
LEVEL = 0.9
_SD = STATS.index("std")


@dataclass(eq=False)
class ReportData:
    """The numbers of one report. `leaderboards[measure]` and `pairs[measure]` are row lists in
    rank order; `orders[measure]` the pairs of runs whose order the bootstrap does not settle;
    `panels` the estimates (with samples) of the runs drawn per topic."""

    measures: list[str]
    leaderboards: dict[str, list[dict[str, Any]]]
    pairs: dict[str, list[dict[str, Any]]]
    topics: list[dict[str, Any]]
    judgments: list[dict[str, Any]]
    coverage: list[dict[str, Any]]
    bands: list[str]
    panels: Estimates | None
    est: Estimates
    cov: Coverage
    b: int
    seed: int
    baseline: str | None
    panel_orders: list[list[int]] = field(default_factory=list)  # topics, most uncertain first
    inputs: list[dict[str, str]] = field(default_factory=list)
    orders: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    #: per measure, what the draws settle (unjudged.analysis.report_verdict.verdict)
    verdicts: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: the notes said while reading and computing (fallbacks, clipping, qrels without a
    #: non-relevant judgment...), each once and in order: the page shows them by the verdict
    notes: list[str] = field(default_factory=list)


@contextmanager
def said_notes() -> Iterator[list[str]]:
    """The list of the library's notes (UnjudgedWarning) said inside the block, each once and
    in order. Each is still shown as the caller's warnings show it (the command line's
    `unjudged: note:` line), as it is said; a note said again inside is shown only once.

    Example:
        >>> from unjudged.errors import note
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")  # not shown here; still collected
        ...     with said_notes() as notes:
        ...         for _ in range(2):
        ...             note("a fallback")
        >>> notes
        ['a fallback']
    """
    from unjudged.errors import UnjudgedWarning

    said: list[str] = []
    outer = list(warnings.filters)  # what the caller shows, asked for each note
    with warnings.catch_warnings():
        shown = warnings.showwarning
        # every note reaches the list, whatever the caller's filters (a note said earlier at
        # the same place would otherwise be missing from a second report in one process)
        warnings.simplefilter("always", UnjudgedWarning)

        def show(message, category, filename, lineno, file=None, line=None) -> None:
            if issubclass(category, UnjudgedWarning):
                text = str(message)
                if text in said:
                    return
                said.append(text)
                action = _action(outer, category)
                if action == "ignore":
                    return
                if action == "error":
                    raise message if isinstance(message, Warning) else category(text)
            shown(message, category, filename, lineno, file, line)

        warnings.showwarning = show
        yield said


def _action(filters: Sequence[Any], category: type[Warning]) -> str:
    """The action of the first of `filters` (warnings.filters entries) that applies to any
    message of `category`: "default" when none does."""
    for action, message, cat, module, lineno in filters:
        if issubclass(category, cat) and (message is None or message.pattern in ("", ".*")) \
                and module is None and lineno == 0:
            return action
    return "default"


def sha256_of(path: str) -> str:
    """Hex sha256 of a file's bytes, read in blocks.

    Example:
        >>> import tempfile
        >>> with tempfile.NamedTemporaryFile(delete=False) as fh:
        ...     _ = fh.write(b"abc")
        >>> sha256_of(fh.name)[:12]
        'ba7816bf8f01'
    """
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def run_samples(est: Estimates, i: int) -> np.ndarray | None:
    """(b, runs) per-iteration run-level bootstrap value of measure i, every run's iteration j
    from the same draw (Estimates.run_draws); None when a run has no draws, or a value is
    missing (a measure the bootstrap does not apply to).

    Example:
        >>> from unjudged.io import read_qrels, read_run
        >>> from unjudged.engine.estimate import estimate_runs
        >>> q = read_qrels({"t": {"a": 1, "b": 0}})
        >>> rs = [read_run({"t": {d: 1.0}}, name=d) for d in ("a", "x")]
        >>> s = run_samples(estimate_runs(rs, q, parse_measures("P@1"), b=3), 0)
        >>> s.shape, s[:, 0].tolist()  # run a's top document is judged relevant: 1 every time
        ((3, 2), [1.0, 1.0, 1.0])
    """
    from unjudged.errors import InvalidOptionError

    try:
        s = est.run_draws(i)
    except InvalidOptionError:
        return None
    return s if np.isfinite(s).all() else None


def _leaderboard(est: Estimates, res, judged, i: int, k: int,
                 level: float = LEVEL) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Rows of measure i in descending order of the mean score (trec_eval's nonrel), with the
    run's Judged@k (column k of `judged`), each strategy, the bootstrap's `level` interval of
    the run's mean and of its rank, with how many runs its order is uncertain or reversed, and
    whether that is so against a neighbouring row ("unsettled"); then those pairs
    (unjudged.engine.pairs): every pair, the higher in this order first, that the bootstrap
    does not order either way with probability `level` + (1 - level) / 2 (0.95 for 90%:
    "uncertain"; runs that tie that often are settled, as equal), or orders the other way
    round ("reversed")."""
    from unjudged.engine.pairs import pair_probabilities, rank_intervals, uncertain_pairs

    fills, drawn = leaderboard_strategies()
    rows = []
    for r, rr, jr in zip(est.runs, res.runs, judged.runs, strict=True):
        _, _, _, run_point = r.drawn()
        assert r.run_lohi is not None  # set with the draws, of `level` (build_report asks)
        lo, hi = (float(v) for v in r.run_lohi[i])
        row = {"run": r.run, "score": float(rr.summary[i]), "judged": float(jr.summary[k]),
               **{s: float(r.summary(s)[i]) for s in fills},
               **{s: float(run_point[i]) for s in drawn}, "lo": lo, "hi": hi}
        rows.append(row)
    order = np.argsort(-np.array([r["score"] for r in rows]), kind="stable")
    rows = [rows[j] for j in order]
    for rank, row in enumerate(rows, start=1):
        row["rank"] = rank
    s = run_samples(est, i)
    if s is None:  # no joint draws: no rank interval, no verdict on pairs
        for row in rows:
            row.update(rank_lo=None, rank_hi=None, uncertain=None, reversed=None,
                       unsettled=False, twin_of=None)
        return rows, []
    s = s[:, order]
    ranks = rank_intervals(s, level)
    p = pair_probabilities(s)
    sure = 1.0 - (1.0 - level) / 2.0
    # pairs (a, b) with a above b here (a < b): uncertain if neither order reaches `sure`
    # (but for runs that tie that often: their order is settled, they are equal); reversed if
    # b beats a that often
    uncertain = np.zeros(p.shape, dtype=bool)
    uncertain[tuple(uncertain_pairs(p, sure).T)] = True
    tied = 1.0 - p - p.T >= sure - 1e-12
    uncertain &= ~tied
    reversed_ = np.triu(np.greater_equal(p.T, sure - 1e-12), k=1)
    # highlighted: the order against the row above or below is not settled (they may swap)
    loose = np.diagonal(uncertain | reversed_, offset=1)
    near = np.zeros(len(rows), dtype=bool)
    near[:-1] |= loose
    near[1:] |= loose
    for j, row in enumerate(rows):
        row["rank_lo"], row["rank_hi"] = int(ranks[j, 0]), int(ranks[j, 1])
        row["uncertain"] = int(uncertain[j].sum() + uncertain[:, j].sum())
        row["reversed"] = int(reversed_[j].sum() + reversed_[:, j].sum())
        row["unsettled"] = bool(near[j])
        # twins: the same score in (nearly) every draw as the row above; named once
        row["twin_of"] = (rows[j - 1]["twin_of"] or rows[j - 1]["run"]) \
            if j and tied[j - 1, j] else None
    a, b = np.nonzero(uncertain | reversed_)
    flagged = [{"run_a": rows[x]["run"], "rank_a": x + 1, "run_b": rows[y]["run"],
                "rank_b": y + 1, "p_a_better": float(p[x, y]), "p_b_better": float(p[y, x]),
                "order": "reversed" if reversed_[x, y] else "uncertain"}
               for x, y in zip(a.tolist(), b.tolist(), strict=True)]
    return rows, flagged


def _pairs(res, judged, order: list[str], baseline: str | None, seed: int) -> list[dict]:
    """Adjacent runs in rank order (the better as run, the next as baseline), or every run
    against `baseline`: differences, p-values and decision-matrix cases."""
    from unjudged.analysis.baseline import baseline_comparison
    from unjudged.engine.results import Results

    by = {r.run: r for r in res.runs}
    jby = {r.run: r for r in judged.runs}
    if baseline is not None:
        return baseline_comparison(res, judged, baseline, seed=seed)
    rows = []
    for a, b in pairwise(order):
        rows += baseline_comparison(Results([by[a], by[b]]), Results([jby[a], jby[b]]), b,
                                    seed=seed)
    return rows


def _topics(est: Estimates, judged, k: int, top: int) -> list[dict[str, Any]]:
    """The `top` topics with the largest mean unjudged share of the top k over the runs, with
    the mean bootstrap standard deviation of the first measure (its uncertainty)."""
    names = natural_sorted({t for r in judged.runs for t in r.topics})  # ties: 2 before 10
    index = {t: n for n, t in enumerate(names)}
    share = np.full((len(judged.runs), len(names)), np.nan)
    spread = np.full_like(share, np.nan)
    for j, (jr, r) in enumerate(zip(judged.runs, est.runs, strict=True)):
        cols = [index[t] for t in jr.topics]
        share[j, cols] = 1.0 - jr.values[:, k]
        spread[j, [index[t] for t in r.topics]] = r.drawn()[0][:, 0, _SD]
    with warnings.catch_warnings():  # a topic no run has: NaN, as it should be
        warnings.simplefilter("ignore", RuntimeWarning)
        mean_share = np.nanmean(share, axis=0)
        mean_spread = np.nanmean(spread, axis=0)
        worst = np.nanmax(share, axis=0)
    order = np.argsort(-np.nan_to_num(mean_share, nan=-1.0), kind="stable")[:top]
    return [{"topic": names[t], "unjudged_mean": float(mean_share[t]),
             "unjudged_max": float(worst[t]), "bootstrap_std": float(mean_spread[t])}
            for t in order]


def _coverage_rows(cov: Coverage) -> tuple[list[dict[str, Any]], list[str]]:
    bands = [f"{a}-{b}" for a, b in cov.bands]
    rows = [{"run": rc.run, **{f"judged_{band}": float(v) for band, v in
                               zip(bands, rc.band_judged.tolist(), strict=True)},
             "unjudged": rc.unjudged, "unique": rc.unique} for rc in cov.runs]
    return rows, bands


def build_report(runs: list[Run], qrels: Qrels, measures: Sequence[str | Measure], *,
                 b: int = 2000, seed: int = 0, baseline: str | None = None,
                 topic_panels: int = 3, top_topics: int = 10,
                 policies: Policies = Policies(), executor: Executor | None = None,
                 inputs: Sequence[str] = (), draw: dict[str, Any] | None = None,
                 pool_runs: Sequence[Run] | None = None,
                 notes: Sequence[str] = ()) -> ReportData:
    """Compute the report of `runs` against `qrels`: per measure a leaderboard and pairwise
    tests, the per-topic bootstrap of the best `topic_panels` runs (first measure), the topics
    with the most unjudged documents, judgment statistics and coverage by rank band. `inputs`
    are file paths listed with their sha256; `draw` other bootstrap settings (EstimateSettings'
    prior, spread, ...); `pool_runs` the runs that define the prior's pool context (default:
    each run alone, so a run's row does not depend on the others in the report). The notes
    said while computing are kept (ReportData.notes) after `notes`, those said before (while
    reading the inputs, say).

    Example:
        >>> from unjudged.io import read_qrels, read_run
        >>> q = read_qrels({"t1": {"a": 1, "b": 0}, "t2": {"c": 1, "d": 0}})
        >>> rs = [read_run({"t1": {"a": 2, "x": 1}, "t2": {"c": 2, "d": 1}}, name="good"),
        ...       read_run({"t1": {"x": 2, "b": 1}, "t2": {"y": 2, "d": 1}}, name="bad")]
        >>> d = build_report(rs, q, ["P@2"], b=50)
        >>> [(r["rank"], r["run"], r["score"], r["judged"]) for r in d.leaderboards["P@2"]]
        [(1, 'good', 0.5, 0.75), (2, 'bad', 0.0, 0.5)]
        >>> d.pairs["P@2"][0]["case"], d.judgments[-1]["warn"]
        (3, True)
        >>> d.notes[0][:60]  # two runs: the position prior falls back, and says so
        'position prior: no --pool-runs: each run is its own pool con'
    """
    with said_notes() as said:
        data = _build(runs, qrels, measures, b=b, seed=seed, baseline=baseline,
                      topic_panels=topic_panels, top_topics=top_topics, policies=policies,
                      executor=executor, inputs=inputs, draw=draw, pool_runs=pool_runs)
    data.notes = list(dict.fromkeys([*notes, *said]))
    return data


def _only_relevant(qrels: Qrels, rel_level: int) -> tuple[int, int]:
    """(topics whose judged documents are all relevant, topics): there the prior learns that
    unjudged documents are relevant, and the verdict is the order under that assumption."""
    judged, nonrel = qrels.judged_counts(rel_level)
    return int(((judged > 0) & (nonrel == 0)).sum()), len(qrels.topics)


def _build(runs: list[Run], qrels: Qrels, measures: Sequence[str | Measure], *, b: int,
           seed: int, baseline: str | None, topic_panels: int, top_topics: int,
           policies: Policies, executor: Executor | None, inputs: Sequence[str],
           draw: dict[str, Any] | None, pool_runs: Sequence[Run] | None) -> ReportData:
    from unjudged.analysis.baseline import assessment_measures, assessment_name
    from unjudged.analysis.report_verdict import verdict
    from unjudged.engine.estimate import estimate_runs, strategy_results
    from unjudged.engine.score import score
    from unjudged.judgments.coverage import coverage
    from unjudged.judgments.stats import judgment_stats

    ms = parse_measures(list(measures))
    if baseline is not None and baseline not in {r.name for r in runs}:
        from unjudged.errors import IncompatibleInputsError

        raise IncompatibleInputsError(f"--baseline {baseline!r} is not one of the runs given")
    assess = assessment_measures(ms)
    anames = [m.name for m in assess]
    draws = {"interval": LEVEL, **(draw or {})}
    est = estimate_runs(runs, qrels, ms, b=b, seed=seed, policies=policies, executor=executor,
                        desc="bootstrap", pool_runs=pool_runs, **draws)
    res = strategy_results(est, "nonrel")  # trec_eval's scores, computed with the estimates
    judged = score(runs, qrels, assess, policies)
    boards, pairs, orders, verdicts = {}, {}, {}, {}
    only_relevant = _only_relevant(qrels, policies.rel_level)  # the same for every measure
    for i, m in enumerate(ms):
        k = anames.index(assessment_name(m))
        boards[m.name], orders[m.name] = _leaderboard(est, res, judged, i, k)
        order = [r["run"] for r in boards[m.name]]
        pairs[m.name] = [row for row in _pairs(res, judged, order, baseline, seed)
                         if row["measure"] == m.name]
        for row in pairs[m.name]:  # significant, but the winner is also more judged
            row["attention"] = row.get("case") == 4
        verdicts[m.name] = verdict(boards[m.name], orders[m.name], pairs[m.name])
        verdicts[m.name]["only_relevant"] = only_relevant
    k0 = anames.index(assessment_name(ms[0]))
    # The panels need every sample; re-estimating the few best runs (first measure only) with
    # the same seed and the same pool context gives the same numbers as above at a fraction
    # of the memory.
    best = [r["run"] for r in boards[ms[0].name][:topic_panels]]
    chosen = sorted((r for r in runs if r.name in best), key=lambda r: best.index(r.name))
    with warnings.catch_warnings():
        from unjudged.errors import UnjudgedWarning

        # some of the same runs, on the same qrels and settings: its notes were said above
        warnings.simplefilter("ignore", UnjudgedWarning)
        panels = estimate_runs(chosen, qrels, ms[:1], b=b, seed=seed, policies=policies,
                               keep_samples=True, pool_runs=pool_runs, **draws) if chosen else None
    # most uncertain first; equal spreads (often 0 but for float noise: fully judged topics)
    # in natural topic order
    panel_orders = [np.lexsort((natural_ranks(r.topics),
                          -np.nan_to_num(r.drawn()[0][:, 0, _SD].round(12), nan=-1.0))).tolist()
              for r in panels.runs] if panels else []
    stats = judgment_stats(qrels, rel_level=policies.rel_level)
    cov = coverage(runs, qrels, REPORT_BANDS, policies)
    cov_rows, bands = _coverage_rows(cov)
    return ReportData([m.name for m in ms], boards, pairs, _topics(est, judged, k0, top_topics),
                      stats.drop(columns="qrels").to_dict("records"), cov_rows, bands, panels,
                      est, cov, b, seed, baseline, panel_orders,
                      [{"file": p, "sha256": sha256_of(p)} for p in inputs], orders, verdicts)
