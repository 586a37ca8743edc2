"""Runs against one baseline: each measure's difference and test beside the same for A_p, and
the decision-matrix case (seed 001, 3.2), so a "significant win" resting on uneven judging
shows at once (`unjudged eval ... --baseline RUN`).

The assessment measure paired with a measure is A_p at the measure's cutoff (`Judged@k` for
`P@k`, `nDCG@k`, `AP@k`), or, for a measure without a cutoff (AP, Bpref, R-precision), A_p over
the whole run as evaluated (`Judged`: the run's length, 1000 for TREC runs, or -M).
"""

from __future__ import annotations

import numpy as np

from unjudged.analysis.matrix import ASSESSMENT, WEAK_CASES, classify
from unjudged.engine.results import Results, RunResult
from unjudged.measures import Measure

#: Keys of each row, in the order reports show them.
BASELINE_KEYS = ("run", "baseline", "measure", "value", "baseline_value", "diff", "p",
                 "assessment", "assessment_diff", "p_assessment", "case", "weak")


def assessment_name(m: Measure) -> str:
    """The A_p measure that goes with `m`.

    Example:
        >>> from unjudged.measures import parse_measure
        >>> assessment_name(parse_measure("nDCG@10")), assessment_name(parse_measure("AP"))
        ('Judged@10', 'Judged')
    """
    return ASSESSMENT if m.cutoff is None else f"{ASSESSMENT}@{m.cutoff}"


def assessment_measures(measures: list[Measure]) -> list[Measure]:
    """The distinct A_p measures that `measures` need, in first-use order.

    Example:
        >>> from unjudged.measures import parse_measures
        >>> [m.name for m in assessment_measures(parse_measures(["P@10", "nDCG@10", "AP"]))]
        ['Judged@10', 'Judged']
    """
    from unjudged.measures import parse_measures

    return parse_measures(list(dict.fromkeys(assessment_name(m) for m in measures)))


def _aligned(a: RunResult, b: RunResult) -> tuple[np.ndarray, np.ndarray]:
    """Row indices of the topics both results have (all of them under -c), in a's order."""
    where = {t: i for i, t in enumerate(b.topics)}
    ia = [i for i, t in enumerate(a.topics) if t in where]
    return np.array(ia, dtype=np.int64), np.array([where[a.topics[i]] for i in ia],
                                                   dtype=np.int64)


def _test(a: np.ndarray, b: np.ndarray, test: str, seed: int) -> tuple[float, float]:
    """(mean of a - b, p-value); p 1 with fewer than two topics in common (nothing to test)."""
    from unjudged.stats.significance import paired_test

    if len(a) < 2:
        return (float(np.mean(a - b)) if len(a) else float("nan")), 1.0
    r = paired_test(a, b, test=test, seed=seed)
    return float(r.mean_diff), float(r.p_value)


def baseline_comparison(results: Results, assessment: Results, baseline: str, *,
                        test: str = "t", alpha: float = 0.05, seed: int = 0) -> list[dict]:
    """One row per (other run, measure): its value and the baseline's, the mean per-topic
    difference run - baseline over the topics both have and its paired-test p-value, the same
    for the paired A_p measure (`assessment` holds them for the same runs), and the case with
    the run as s1 and the baseline as s2. No correction for the number of runs compared.

    Example:
        >>> from unjudged.engine.score import score
        >>> from unjudged.io import read_qrels, read_run
        >>> from unjudged.measures import parse_measures
        >>> q = read_qrels({"t1": {"a": 1}, "t2": {"b": 1}, "t3": {"c": 1}})
        >>> rs = [read_run({"t1": {"a": 1}, "t2": {"b": 1}, "t3": {"c": 1}}, name="base"),
        ...       read_run({"t1": {"a": 1}, "t2": {"y": 1}, "t3": {"z": 1}}, name="new")]
        >>> ms = parse_measures(["P@1"])
        >>> row = baseline_comparison(score(rs, q, ms), score(rs, q, assessment_measures(ms)),
        ...                           "base")[0]
        >>> round(row["diff"], 4), round(row["assessment_diff"], 4), round(row["p"], 4)
        (-0.6667, -0.6667, 0.1835)
        >>> row["case"], row["weak"]
        (1, False)
    """
    runs = {r.run: r for r in results.runs}
    judged = {r.run: r for r in assessment.runs}
    base, base_a = runs[baseline], judged[baseline]
    names = [m.name for m in assessment.runs[0].measures] if assessment.runs else []
    rows = []
    for r in results.runs:
        if r.run == baseline:
            continue
        ia, ib = _aligned(r, base)
        ja, jb = _aligned(judged[r.run], base_a)
        for i, m in enumerate(r.measures):
            sign = 1.0 if m.spec.higher_is_better else -1.0
            k = names.index(assessment_name(m))
            diff, p = _test(r.values[ia, i], base.values[ib, i], test, seed)
            adiff, ap = _test(judged[r.run].values[ja, k], base_a.values[jb, k], test, seed)
            case = int(classify(sign * diff, p < alpha, adiff, ap < alpha))
            rows.append({"run": r.run, "baseline": baseline, "measure": m.name,
                         "value": float(r.summary[i]), "baseline_value": float(base.summary[i]),
                         "diff": diff, "p": p, "assessment": names[k], "assessment_diff": adiff,
                         "p_assessment": ap, "case": case, "weak": case in WEAK_CASES})
    return rows
