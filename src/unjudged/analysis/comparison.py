"""Many runs side by side with significance marks, as papers print them (ranx's `compare`):
for each run and measure, the runs it is significantly better than, tested against every other
run or against one baseline, corrected for the number of comparisons per measure.

The tests pair the runs on the topics every run has; the values are the runs' own (`eval`'s).
`unjudged.report.comparison` prints the result as LaTeX or Markdown.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from unjudged.engine.results import Results
from unjudged.errors import InvalidOptionError

#: Multiple-comparison corrections over one measure's tests (statsmodels' names).
CORRECTIONS = ("holm", "bonferroni", "none")


@dataclass(frozen=True)
class Comparison:
    """Runs x measures with significance marks.

    Attributes:
        runs, measures: row and column names; labels: each run's letter (a, b, ..., z, aa, ...).
        values: (runs, measures) run-level values, as `eval` reports them.
        best: (runs, measures) True where the value is the measure's best (ties all best).
        better: better[r][m], the indices of the runs run r is significantly better than.
        p: (measures, runs, runs) corrected p-values of the tests made (NaN where none).
        baseline: the run every other run was tested against, or None (every pair).
        test, correction, alpha: how; topics: the topics the tests pair; tests: per measure.
    """

    runs: list[str]
    labels: list[str]
    measures: list[str]
    integer: list[bool]
    values: np.ndarray
    best: np.ndarray
    better: list[list[list[int]]]
    p: np.ndarray
    baseline: str | None
    test: str
    correction: str
    alpha: float
    topics: int
    tests: int


def run_labels(k: int) -> list[str]:
    """Letters naming k runs: a..z, then aa, ab, ... (as spreadsheet columns).

    Example:
        >>> run_labels(3), run_labels(28)[-3:]
        (['a', 'b', 'c'], ['z', 'aa', 'ab'])
    """
    out = []
    for i in range(k):
        name, i = "", i + 1
        while i:
            i, rest = divmod(i - 1, 26)
            name = chr(ord("a") + rest) + name
        out.append(name)
    return out


def _common_topics(results: Results) -> list[str]:
    have = set(results.runs[0].topics)
    for r in results.runs[1:]:
        have &= set(r.topics)
    return [t for t in results.runs[0].topics if t in have]


def _p_values(scores: np.ndarray, pairs: list[tuple[int, int]], test: str, seed: int
              ) -> np.ndarray:
    """Raw p-values of `test` for the (i, j) rows of `scores` (runs, topics)."""
    from unjudged.stats.pairs import pair_arrays
    from unjudged.stats.significance import TESTS, paired_test

    if test not in TESTS:
        raise InvalidOptionError(f"test: expected one of {', '.join(TESTS)}, got {test!r}")
    k = len(scores)
    if len(pairs) == k * (k - 1) // 2:  # every pair: the vectorised engine, in triu order
        return pair_arrays(scores, test, seed=seed)["p_value"]
    return np.array([paired_test(scores[i], scores[j], test, seed=seed).p_value
                     for i, j in pairs])


def compare_runs(results: Results, *, baseline: str | None = None, test: str = "t",
                 correction: str = "holm", alpha: float = 0.05, seed: int = 0) -> Comparison:
    """Test the runs of `results` per measure, every pair or each run against `baseline`, with
    `test` (one of unjudged.stats.significance.TESTS) on the topics every run has, and correct
    the p-values of each measure's tests for their number (`correction`: holm, bonferroni or
    none). A run is significantly better than another when the corrected p < alpha and its
    mean paired difference favours it (measures where lower is better count that way).

    Example:
        >>> from unjudged.engine.score import score
        >>> from unjudged.io import read_qrels, read_run
        >>> from unjudged.measures import parse_measures
        >>> q = read_qrels({t: {"a": 1} for t in "123456"})
        >>> good = read_run({t: {"a": 1} for t in "123456"}, name="good")
        >>> bad = read_run({t: {"b": 1} for t in "123456"}, name="bad")
        >>> half = read_run({t: {"a" if t in "135" else "b": 1} for t in "123456"}, name="half")
        >>> c = compare_runs(score([good, bad, half], q, parse_measures(["P@1"])))
        >>> c.labels, [row[0] for row in c.better], c.best[:, 0].tolist()
        (['a', 'b', 'c'], [[1], [], []], [True, False, False])
    """
    if correction not in CORRECTIONS:
        raise InvalidOptionError(f"correction: expected one of {', '.join(CORRECTIONS)}, got "
                                 f"{correction!r}")
    if not 0 < alpha < 1:
        raise InvalidOptionError(f"alpha: expected a value in (0, 1), got {alpha}")
    runs = results.runs
    if len(runs) < 2:
        raise InvalidOptionError("a comparison table needs at least two runs")
    names = [r.run for r in runs]
    if baseline is not None and baseline not in names:
        raise InvalidOptionError(f"baseline {baseline!r} is not one of the runs")
    topics = _common_topics(results)
    if len(topics) < 2:
        raise InvalidOptionError(f"the runs have {len(topics)} topic(s) in common; the tests "
                                 "need at least two")
    rows = [np.array([r.topics.index(t) for t in topics]) if r.topics != topics
            else np.arange(len(topics)) for r in runs]
    k, measures = len(runs), runs[0].measures
    if baseline is None:
        i, j = np.triu_indices(k, 1)
        pairs = list(zip(i.tolist(), j.tolist(), strict=True))
    else:
        b = names.index(baseline)
        pairs = [(i, b) for i in range(k) if i != b]
    values = np.array([r.summary for r in runs], dtype=np.float64).reshape(k, len(measures))
    p_all = np.full((len(measures), k, k), np.nan)
    better: list[list[list[int]]] = [[[] for _ in measures] for _ in runs]
    best = np.zeros((k, len(measures)), dtype=bool)
    for m, measure in enumerate(measures):
        sign = 1.0 if measure.spec.higher_is_better else -1.0
        scores = np.stack([r.values[rows[n], m] for n, r in enumerate(runs)])
        p = _p_values(scores, pairs, test, seed)
        if correction != "none":
            from unjudged.stats.paired import adjust

            p = adjust(p, correction, alpha)[0]
        for (i, j), pij in zip(pairs, p.tolist(), strict=True):
            p_all[m, i, j] = p_all[m, j, i] = pij
            if pij < alpha:
                diff = sign * float(np.mean(scores[i] - scores[j]))
                if diff > 0:
                    better[i][m].append(j)
                elif diff < 0:
                    better[j][m].append(i)
        column = sign * values[:, m]
        if np.isfinite(column).any():
            best[:, m] = column == np.nanmax(column)
    for row in better:
        for marks in row:
            marks.sort()
    return Comparison(names, run_labels(k), [m.name for m in measures],
                      [m.spec.integer for m in measures], values, best, better, p_all,
                      baseline, test, correction, alpha, len(topics), len(pairs))
