"""How well estimates recover the truth: seed 000's Tables 4-6 from a leave-one-group-out sweep.

* prediction (Table 4): RMSE over (run, topic) pairs; the lower-bound RMSE ignores
  underestimates (an estimate used as a lower bound errs only when above the truth) and the
  upper-bound RMSE ignores overestimates.
* system rankings (Table 5): Kendall's tau-b and Spearman's rho between the runs ranked by
  their estimated and by their true mean scores.
* preferences (Table 6): per topic, each scored run against every run of another group, whose
  exact score is known. A point estimate prefers whichever side it lies on; a score range
  [lower, upper] prefers only when it lies strictly above or below the other run's exact score.
  Precision = correct preferences / preferences emitted, recall = correct / true preferences.

Significance: paired Student's t-tests (scipy.stats.ttest_rel) with a Bonferroni correction
over all comparisons of a table, at p = 0.05: over (run, topic) squared errors for Table 4,
over per-run precision and recall for Table 6.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from unjudged.analysis.compare import kendall_tau, spearman_rho
from unjudged.engine.results import aggregate
from unjudged.experiments.logo import RANGE_PERCENTILES, Sweep
from unjudged.strategies.registry import BASELINE, STRATEGIES

#: Table 4's baselines and their markers (seed 000).
PREDICTION_BASELINES = {"nonrel": "†", "upper": "‡", "condensed": "*"}
#: Table 6's baselines: the condensed point, and the ranges up to the naive bound / condensed.
PREFERENCE_BASELINES = {"point:condensed": "*", "range:upper": "†", "range:condensed": "‡"}
ALPHA = 0.05


def prediction_table(sweep: Sweep, m: int = 0) -> list[dict[str, Any]]:
    """One row per strategy: rmse, rmse_lower, rmse_upper, kendall_tau, spearman_rho, and
    Bonferroni-corrected p-values against the baselines (p_vs_<baseline>)."""
    truth = sweep.truth[..., m]
    spec = sweep.measures[m].spec
    true_mean = _run_means(truth, spec.aggregate)
    errors = {s: sweep.values[s][..., m] - truth for s in sweep.strategies}
    ok = ~np.isnan(truth)
    for e in errors.values():
        ok &= ~np.isnan(e)
    rows: list[dict[str, Any]] = []
    for s in sweep.strategies:
        e = errors[s][ok]
        est_mean = _run_means(sweep.values[s][..., m], spec.aggregate)
        rows.append({"strategy": s, "rmse": _rms(e), "rmse_lower": _rms(np.maximum(e, 0)),
                     "rmse_upper": _rms(np.minimum(e, 0)),
                     "kendall_tau": kendall_tau(est_mean, true_mean),
                     "spearman_rho": spearman_rho(est_mean, true_mean), "pairs": int(ok.sum())})
    tests = [(r["strategy"], b) for r in rows for b in PREDICTION_BASELINES
             if b in errors and b != r["strategy"]]
    for s, b in tests:
        p = _paired_p(errors[s][ok] ** 2, errors[b][ok] ** 2) * len(tests)
        row = next(r for r in rows if r["strategy"] == s)
        row[f"p_vs_{b}"] = min(p, 1.0)
    for row in rows:
        row["marks"] = "".join(mark for b, mark in PREDICTION_BASELINES.items()
                               if row.get(f"p_vs_{b}", 1.0) < ALPHA)
    return rows


def preference_table(sweep: Sweep, m: int = 0) -> list[dict[str, Any]]:
    """One row per point estimate and per score range: precision, recall, f1, emitted, and
    Bonferroni-corrected p-values (per-run precision and recall) against the baselines."""
    truth = sweep.truth[..., m]
    other = np.array(sweep.groups)[:, None] != np.array(sweep.groups)[None, :]  # (r, s)
    # the truth of each pair: +1 when r is better than s on the topic, -1 worse, 0 tied/unknown
    t_r, t_s = truth[:, None, :], truth[None, :, :]
    ok = other[..., None] & ~np.isnan(t_r) & ~np.isnan(t_s)
    want = np.where(ok, np.sign(np.nan_to_num(t_r - t_s)), 0)
    lower = sweep.values[BASELINE][..., m][:, None, :]
    kinds: dict[str, np.ndarray] = {}
    for s in sweep.strategies:
        kinds[f"point:{s}"] = _emit(sweep.values[s][..., m][:, None, :], t_s, ok)
    for s in sweep.strategies:
        if s != BASELINE and s in STRATEGIES and not STRATEGIES[s].random:
            # [nonrel, upper] and [nonrel, condensed]: from the baseline to each other fill
            kinds[f"range:{s}"] = _emit_range(lower, sweep.values[s][..., m][:, None, :], t_s, ok)
    for (s, p), v in sweep.ranges.items():
        if p in RANGE_PERCENTILES:
            kinds[f"range:{s}@{p}"] = _emit_range(lower, v[..., m][:, None, :], t_s, ok)
    per_run = {}
    rows: list[dict[str, Any]] = []
    for name, emitted in kinds.items():
        correct = (emitted == want) & (emitted != 0)
        n_emit, n_correct, n_true = (emitted != 0).sum(), correct.sum(), (want != 0).sum()
        precision = n_correct / n_emit if n_emit else np.nan
        recall = n_correct / n_true if n_true else np.nan
        f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else np.nan
        kind, _, estimate = name.partition(":")
        rows.append({"estimate": estimate, "kind": kind, "precision": float(precision),
                     "recall": float(recall), "f1": float(f1), "emitted": int(n_emit),
                     "true_preferences": int(n_true)})
        with np.errstate(invalid="ignore", divide="ignore"):
            per_run[name] = (correct.sum(axis=(1, 2)) / (emitted != 0).sum(axis=(1, 2)),
                             correct.sum(axis=(1, 2)) / (want != 0).sum(axis=(1, 2)))
    tests = [(n, b) for n in kinds for b in PREFERENCE_BASELINES if b in kinds and b != n]
    for (name, b), row in ((t, r) for t in tests for r in rows
                           if f"{r['kind']}:{r['estimate']}" == t[0]):
        for i, what in enumerate(("precision", "recall")):
            pv = _paired_p(per_run[name][i], per_run[b][i]) * len(tests) * 2
            row[f"p_{what}_vs_{b}"] = min(pv, 1.0)
    for row in rows:
        row["marks"] = "".join(
            mark for b, mark in PREFERENCE_BASELINES.items()
            if min(row.get(f"p_precision_vs_{b}", 1.0), row.get(f"p_recall_vs_{b}", 1.0)) < ALPHA)
    return rows


def _emit(point: np.ndarray, other: np.ndarray, ok: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        return np.where(ok, np.sign(np.nan_to_num(point - other)), 0)


def _emit_range(lo: np.ndarray, hi: np.ndarray, other: np.ndarray, ok: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        out = np.where(lo > other, 1, np.where(hi < other, -1, 0))
    return np.where(ok & ~np.isnan(lo) & ~np.isnan(hi), out, 0)


def _run_means(values: np.ndarray, how: str) -> np.ndarray:
    """Each run's aggregate over the topics it has."""
    return np.array([aggregate(row[~np.isnan(row)], how) for row in values], dtype=float)


def _rms(e: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(e)))) if e.size else float("nan")


def _paired_p(a: np.ndarray, b: np.ndarray) -> float:
    """Two-sided p of a paired t-test over the units where both are known."""
    from unjudged.stats.significance import paired_test

    keep = ~(np.isnan(a) | np.isnan(b))
    if keep.sum() < 2:
        return 1.0
    return paired_test(a[keep], b[keep], test="t").p_value
