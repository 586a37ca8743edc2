"""The System Evaluation Decision Matrix (Baillie, Azzopardi & Ruthven 2007; seed 001, 3.2).

For two runs s1 and s2 at a measurement depth d, a performance measure P (P@d, AP@d) and the
assessment measure A = A_p@d (`Judged@d`, the judged share of the top d; see `score_matrix`)
are each tested for a difference over the topics. Writing ">>" for "significantly in favour
of s1", "<<" for "significantly in favour of s2" and "==" for "no significant difference", the
pair falls into exactly one case (seed 001, Figure 3; `classify`):

    case 1  strong  P ==       A ==              equal, and judged alike
    case 2  weak    P ==       A >> or <<        equal, but one run is judged far more
    case 3  strong  P >> (<<)  A == or << (>>)   the winner is not the better judged run; 3.2's
                                                 special situation: it wins although it is
                                                 significantly *less* judged than the loser
    case 4  weak    P >> (<<)  A >> (<<)         the winner is also significantly better
                                                 judged: the win may rest on uneven judging

"Better" follows the measure (higher is better for P and AP); A is always higher = more judged.

    decision_matrix(runs, qrels, ["P", "AP"], [10, 100], ...) -> DecisionMatrix
    classify, compare_pairs, comparison_intervals     (unjudged.analysis.cases) the pieces

Topics: every qrels topic, a topic a run lacks scoring 0 on both P and A (trec_eval -c), so
all runs share one topic vector and the tests are paired. See docs/decision-matrix.md.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from unjudged.analysis.cases import (
    ASSESSMENT,
    DEFAULT_TEST,
    WEAK_CASES,
    Cell,
    classify,
    compare_pairs,
    comparison_intervals,
    pair_tests,
)
from unjudged.data.qrels import Qrels
from unjudged.data.run import Run
from unjudged.errors import InvalidOptionError
from unjudged.policies import Policies

__all__ = ["ASSESSMENT", "DEFAULT_TEST", "WEAK_CASES", "Cell", "DecisionMatrix", "classify",
           "compare_pairs", "comparison_intervals", "decision_matrix", "score_matrix"]

DENOMINATORS = ("retrieved", "depth")
Progress = Callable[[Iterable, str], Iterable]


@dataclass(eq=False)
class DecisionMatrix:
    """The decision matrix of several runs over measure families and depths.

    `perf[f, d, k, t]` is run k's value of family f at depth d on topic t, `assess[d, k, t]`
    its A_p@d; `cells` holds one Cell per (family, depth), family-major.

    Example:
        >>> from unjudged.io import read_qrels, read_run
        >>> q = read_qrels({"t1": {"a": 1, "b": 0}, "t2": {"a": 1, "c": 0}})
        >>> rs = [read_run({"t1": {"a": 2, "b": 1}, "t2": {"a": 1}}, name="x"),
        ...       read_run({"t1": {"b": 2, "z": 1}, "t2": {"c": 1}}, name="y")]
        >>> dm = decision_matrix(rs, q, ["P"], [1, 2], test="t")
        >>> [(r["depth"], r["case_3"], r["weak"]) for r in dm.summary()]
        [(1, 1.0, 0.0), (2, 1.0, 0.0)]
        >>> [(p["depth"], p["diff_performance"], p["diff_assessment"]) for p in dm.pairs()]
        [(1, 1.0, 0.0), (2, 0.5, 0.25)]
    """

    runs: list[str]
    topics: list[str]
    families: list[str]
    depths: list[int]
    perf: np.ndarray
    assess: np.ndarray
    cells: list[Cell]
    test: str
    alpha: float
    denominator: str = "retrieved"

    def assessment_name(self, depth: int) -> str:
        """What A_p@depth is: Judged@d, or judged documents in the top d over d."""
        if self.denominator == "depth":
            return f"A_p@{depth} (judged/{depth})"
        return f"{ASSESSMENT}@{depth}"

    @property
    def pairs_count(self) -> int:
        return len(self.runs) * (len(self.runs) - 1) // 2

    def cell(self, family: str, depth: int) -> Cell:
        return self.cells[self.families.index(family) * len(self.depths)
                          + self.depths.index(depth)]

    def summary(self) -> list[dict]:
        """One row per (measure, depth): runs, pairs, the share of pairs in each case and in
        the weak ones (2 and 4), and in case 3's special situation (`case_3_fewer`, part of
        case_3); the numbers of seed 001's Tables 3 and 4."""
        rows = []
        for c in self.cells:
            share = c.proportions()
            row = {"measure": c.family, "depth": c.depth, "runs": len(self.runs),
                   "pairs": len(c.case)}
            row.update({f"case_{i + 1}": float(share[i]) for i in range(4)})
            row["weak"] = float(share[1] + share[3])
            row["case_3_fewer"] = float(c.fewer_judged_wins().sum() / max(len(c.case), 1))
            rows.append(row)
        return rows

    def pairs(self, weak_only: bool = False) -> Iterator[dict]:
        """One row per (measure, depth, pair of runs) with both tests and the case."""
        for c in self.cells:
            weak = np.isin(c.case, WEAK_CASES)
            for i in np.flatnonzero(weak) if weak_only else range(len(c.case)):
                yield {"measure": c.family, "depth": c.depth,
                       "run_a": self.runs[c.run_a[i]], "run_b": self.runs[c.run_b[i]],
                       "case": int(c.case[i]), "p_performance": float(c.p[i]),
                       "p_assessment": float(c.assess_p[i]),
                       "diff_performance": float(c.diff[i]),
                       "diff_assessment": float(c.assess_diff[i]), "weak": bool(weak[i])}

    def means(self, family: str, depth: int) -> tuple[np.ndarray, np.ndarray]:
        """Each run's mean over topics of the measure and of A_p at `depth`."""
        f, d = self.families.index(family), self.depths.index(depth)
        return self.perf[f, d].mean(axis=1), self.assess[d].mean(axis=1)

    def intervals(self, family: str, depth: int) -> tuple[np.ndarray, ...]:
        """(mean, half-width) of the measure, then of A_p, per run (`comparison_intervals`)."""
        f, d = self.families.index(family), self.depths.index(depth)
        return (*comparison_intervals(self.perf[f, d], self.alpha),
                *comparison_intervals(self.assess[d], self.alpha))

    def ranking_tau(self, family: str | None = None, depth: int | None = None) -> dict:
        """Kendall's tau-b between the runs ranked by the measure and by A_p at one depth
        (default: AP if present, else the first family, at the deepest depth): seed 001,
        4.2.4 (MAP against A_p@1000)."""
        from unjudged.stats.correlation import kendall_tau

        family = family or ("AP" if "AP" in self.families else self.families[0])
        depth = depth or max(self.depths)
        perf, assess = self.means(family, depth)
        return {"measure": f"{family}@{depth}", "assessment": self.assessment_name(depth),
                "runs": len(self.runs), "kendall_tau": kendall_tau(perf, assess)}


def _measures(families: Sequence[str], depths: Sequence[int]):
    from unjudged.measures import parse_measures

    names = [f"{f}@{d}" for f in families for d in depths]
    return parse_measures(names + [f"{ASSESSMENT}@{d}" for d in depths] + ["NumRet"])


def score_matrix(runs: Iterable[Run], qrels: Qrels, families: Sequence[str],
                 depths: Sequence[int], policies: Policies = Policies(),
                 denominator: str = "retrieved"):
    """Per-topic scores for the matrix from one pass over the runs: (names, topics, perf
    (families, depths, runs, topics), assess (depths, runs, topics), measures).

    A_p@d is Judged@d, the judged share of the top min(d, |run|) (seed 001, eq. 8), or with
    `denominator="depth"` the judged documents in the top d over d (seed 001's footnote 13:
    trec_eval's P@d with every judged document relevant), where a run shorter than d loses
    the positions it leaves empty.

    Example:
        >>> from unjudged.io import read_qrels, read_run
        >>> q = read_qrels({"t1": {"a": 1, "b": 0}})
        >>> r = read_run({"t1": {"a": 2, "x": 1}}, name="r")
        >>> _, _, perf, assess, _ = score_matrix([r], q, ["P"], [2, 4], denominator="depth")
        >>> perf[0, :, 0, 0].tolist(), assess[:, 0, 0].tolist()
        ([0.5, 0.25], [0.5, 0.25])
    """
    from unjudged.engine.score import score
    from unjudged.errors import IncompatibleInputsError

    if denominator not in DENOMINATORS:
        raise InvalidOptionError(f"denominator: expected one of {', '.join(DENOMINATORS)}, "
                                 f"got {denominator!r}")
    ms = _measures(families, depths)
    res = score(runs, qrels, ms, policies.but(complete=True))
    names = [r.run for r in res.runs]
    dupes = sorted(n for n, c in Counter(names).items() if c > 1)
    if dupes:
        raise IncompatibleInputsError(f"runs must have distinct names; repeated: "
                                      f"{', '.join(dupes[:5])}")
    topics = res.runs[0].topics if res.runs else list(qrels.topics)
    values = np.stack([r.values for r in res.runs]) if res.runs else \
        np.zeros((0, len(topics), len(ms)))
    nf, nd = len(families), len(depths)
    v = values.transpose(2, 0, 1)  # (measures, runs, topics)
    perf = v[: nf * nd].reshape(nf, nd, len(names), len(topics))
    assess = v[nf * nd: -1]
    if denominator == "depth":
        d = np.asarray(depths, dtype=np.float64)[:, None, None]
        assess = assess * np.minimum(d, v[-1]) / d
    return names, topics, perf, assess, ms


def decision_matrix(runs: Iterable[Run], qrels: Qrels, families: Sequence[str] = ("P", "AP"),
                    depths: Sequence[int] = (10, 30, 100, 500, 1000), *,
                    test: str = DEFAULT_TEST, alpha: float = 0.05, seed: int = 0,
                    policies: Policies = Policies(), denominator: str = "retrieved",
                    progress: Progress | None = None) -> DecisionMatrix:
    """Score `runs` once at every depth and classify every pair of runs for each measure
    family (P, AP, ...) and depth; A_p@d is tested once per depth and shared by the families.
    `test` is any method of `unjudged.stats.significance.pairwise_tests`; `denominator` chooses
    what A_p@d divides by (see `score_matrix`).

    Example:
        >>> from unjudged.io import read_qrels, read_run
        >>> q = read_qrels({"t1": {"a": 1, "b": 0}, "t2": {"a": 1}})
        >>> rs = [read_run({"t1": {"a": 2, "b": 1}, "t2": {"a": 1}}, name="x"),
        ...       read_run({"t1": {"b": 2, "c": 1}, "t2": {"c": 1}}, name="y")]
        >>> dm = decision_matrix(rs, q, ["P"], [1], test="t")
        >>> dm.summary()[0]["case_3"], dm.cell("P", 1).diff.tolist()
        (1.0, [1.0])
    """
    families, depths = list(families), [int(d) for d in depths]
    names, topics, perf, assess, ms = score_matrix(runs, qrels, families, depths, policies,
                                                   denominator)
    if len(topics) < 2:
        from unjudged.errors import IncompatibleInputsError

        raise IncompatibleInputsError(f"the tests need at least two topics; the qrels have "
                                      f"{len(topics)}")
    better = [ms[i * len(depths)].spec.higher_is_better for i in range(len(families))]
    steps = [(f, d) for f in range(len(families)) for d in range(len(depths))]
    assessed: dict[int, tuple] = {}
    cells = []
    for f, d in (progress(steps, "testing pairs") if progress else steps):
        if d not in assessed:
            assessed[d] = pair_tests(assess[d], test, alpha, seed, 1.0)[2:]
        cells.append(compare_pairs(perf[f, d], assess[d], family=families[f],
                                   depth=depths[d], test=test, alpha=alpha, seed=seed,
                                   higher_is_better=better[f], assessed=assessed[d]))
    return DecisionMatrix(names, topics, families, depths, perf, assess, cells, test, alpha,
                          denominator)
