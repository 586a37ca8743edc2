"""Render a sampling experiment (seed 002, Figures 2-4 and section 2) as tables: presentation
only, the statistics come from unjudged.experiments.sampling_stats."""

from __future__ import annotations

from typing import Any

from unjudged.report.rows import render_rows

_ACCURACY = ["design", "judged", "judgments", "estimator", "target", "runs", "rmse", "rmse_sd",
             "tau", "tau_sd", "rho", "rho_sd"]
_INTERVALS = ["design", "judged", "judgments", "estimator", "runs", "cover_topic",
              "cover_mean", "zero_width", "zero_missed", "ks_d", "ks_p", "ks_runs"]


def render_sampling(sweep, rows: list[dict[str, Any]], columns: list[str], fmt: str = "table"
                    ) -> str:
    """The experiment's rows: all `columns` in one row each for tsv, csv and jsonl; for a
    table, a heading, the accuracy table and the table of intervals (estimators with a
    variance only), judged as a percentage.

    Example:
        >>> print(render_sampling(None, [{"design": "uniform:0.1", "rmse": 0.01}],
        ...                       ["design", "rmse"], "csv"), end="")
        design,rmse
        uniform:0.1,0.01
    """
    if fmt != "table":
        return render_rows(rows, columns, fmt, decimals=4)
    shown = [{**r, "judged": f"{100 * r['judged']:.1f}%"} for r in rows]
    with_ci = [r for r in shown if r.get("cover_mean") == r.get("cover_mean")]  # not NaN
    o = sweep.options
    head = (f"sampling experiment: {len(sweep.runs)} runs ({o['pool_runs']} build the pools) "
            f"x {o['topics']} topics, {o['judgments']} judgments taken as complete; "
            f"{sweep.trials} trials per design, seed {o['seed']}\n"
            "judgments 'random' = a uniform sample of as many judgments per topic as the design "
            "holds; *_sd = standard deviation over trials\n")
    accuracy = render_rows(shown, _ACCURACY, lead=6, title="accuracy of the runs' means: "
                           "RMSE, Kendall's tau and Pearson's rho against the complete "
                           "judgments (mean over trials)")
    intervals = render_rows(with_ci, _INTERVALS, lead=5, title=f"{sweep.level:.0%} intervals: "
                            "coverage per topic and of the mean; KS test of (estimate - truth)"
                            " / se against N(0, 1), pooled (D, p) and share of runs passing")
    return head + "\n" + accuracy + "\n" + intervals
