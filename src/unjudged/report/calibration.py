"""Render a calibration bench (unjudged.experiments.calibration): tables, markdown and the plot
of coverage against nominal level. Presentation only: the numbers come from the experiment."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from unjudged.report.rows import render_rows


def _names(levels: Sequence[float]) -> list[str]:
    return [f"{100 * c:.4g}" for c in levels]


def _pair_columns(levels: Sequence[float]) -> list[str]:
    n = _names(levels)
    return (["collection", "truth", "measure", "method", "pairs"] + [f"cover{x}" for x in n]
            + [f"rcover{x}" for x in n] + [f"width{x}" for x in n]
            + ["on_end90", "rmse", "bound_width", "narrower90"])


def _run_columns(levels: Sequence[float]) -> list[str]:
    n = _names(levels)
    return (["collection", "truth", "measure", "method", "runs"] + [f"run_cover{x}" for x in n]
            + [f"run_rcover{x}" for x in n] + [f"run_width{x}" for x in n]
            + ["run_rmse", "run_bias", "run_bound_width", "tau", "decided", "decided_agree",
               "rank_cover90"])


def render_calibration(rows: list[dict[str, Any]], columns: list[str],
                       levels: Sequence[float], fmt: str = "table", head: str = "") -> str:
    """All `columns` in one row each for tsv, csv and jsonl; for a table, `head`, then the
    per-(run, topic) table and the per-run table.

    Example:
        >>> rows = [{"collection": "c", "truth": "all", "measure": "P@10", "method": "pool",
        ...          "pairs": 3, "cover90": 2 / 3, "width90": 0.25}]
        >>> print(render_calibration(rows, ["measure", "method", "cover90"], [0.9], "csv"), end="")
        measure,method,cover90
        P@10,pool,0.6666666666666666
    """
    if fmt != "table":
        return render_rows(rows, columns, fmt, decimals=4)
    pairs = render_rows(rows, _pair_columns(levels), lead=4, decimals=3,
                        title="per (run, topic) with unjudged documents within the measure's "
                        "depth: coverage (closed, and randomised: rcover) and mean width of "
                        "each nominal interval, share of truths on an end of the 90% interval, "
                        "RMSE of the point estimate, mean width of [nonrel, upper], "
                        "1 - width90 / that")
    runs = render_rows(rows, _run_columns(levels), lead=4, decimals=3,
                       title="per run (mean over the topics the truth mode keeps): coverage, "
                       "width, RMSE and bias of the run means; Kendall's tau against the truth; "
                       "pairs with P(A > B) >= 0.95 and the share the truth orders alike; "
                       "share of runs whose true rank is in their 90% rank interval")
    return f"{head}{pairs}\n{runs}"


def markdown_table(rows: list[dict[str, Any]], levels: Sequence[float]) -> str:
    """A markdown table of the rows: coverage and width per level per pair, RMSE, the bound's
    width, then coverage of the 90% interval per run and the run-level RMSE.

    Example:
        >>> print(markdown_table([{"measure": "P@10", "method": "pool", "pairs": 3,
        ...                        "cover90": 0.9, "width90": 0.2, "rmse": 0.1,
        ...                        "bound_width": 0.4, "narrower90": 0.5, "runs": 2,
        ...                        "run_cover90": 1.0, "run_width90": 0.1,
        ...                        "run_rmse": 0.05}], [0.9]), end="")
        | measure | method | pairs | cov 90 | width 90 | RMSE | [nonrel, upper] width | narrower | runs | run cov 90 | run width 90 | run RMSE |
        |---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
        | P@10 | pool | 3 | 0.900 | 0.200 | 0.1000 | 0.400 | 50% | 2 | 1.000 | 0.100 | 0.0500 |
    """  # noqa: E501
    n = _names(levels)
    head = (["measure", "method", "pairs"] + [f"cov {x}" for x in n]
            + [f"width {x}" for x in n] + ["RMSE", "[nonrel, upper] width", "narrower", "runs"]
            + [f"run cov {x}" for x in n] + ["run width 90", "run RMSE"])
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join(["---", "---"] + ["---:"] * (len(head) - 2)) + "|"]
    for r in rows:
        cells = [str(r.get("measure", "")), str(r.get("method", "")), _n(r.get("pairs"))]
        cells += [_f(r.get(f"cover{x}"), 3) for x in n] + [_f(r.get(f"width{x}"), 3) for x in n]
        cells += [_f(r.get("rmse"), 4), _f(r.get("bound_width"), 3),
                  _pct(r.get("narrower90")), _n(r.get("runs"))]
        cells += [_f(r.get(f"run_cover{x}"), 3) for x in n]
        cells += [_f(r.get("run_width90"), 3), _f(r.get("run_rmse"), 4)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _n(value: Any) -> str:
    return "-" if value is None else str(value)


def _f(value: Any, decimals: int) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{float(value):.{decimals}f}"


def _pct(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{100 * float(value):.0f}%"


def plot_calibration(curves: dict[str, dict[str, list[float]]], levels: Sequence[float],
                     path: Any) -> Any:
    """Coverage against nominal level: one panel per collection, a line per method, the
    diagonal for reference. `curves` are unjudged.experiments.calibration.coverage_curves'."""
    from unjudged.report._mpl import pyplot, save_figure, shown

    plt = pyplot()
    panels = list(curves)
    cols = min(3, max(1, len(panels)))
    nrows = max(1, math.ceil(len(panels) / cols))
    fig, axes = plt.subplots(nrows, cols, figsize=(3.6 * cols, 3.3 * nrows), squeeze=False,
                             sharex=True, sharey=True, layout="constrained")
    lo = min(levels) - 0.1
    for ax, panel in zip(axes.flat, panels, strict=False):
        ax.plot([lo, 1], [lo, 1], color="k", lw=0.7, ls=":")
        for method, cover in curves[panel].items():
            ax.plot(levels, cover, marker="o", ms=3, label=shown(method))
        ax.set_title(shown(panel), fontsize=9)
        ax.set_xlim(lo, 1)
        ax.set_ylim(0, 1.02)
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xlabel("nominal level")
    for ax in axes[:, 0]:
        ax.set_ylabel("coverage (pairs)")
    axes.flat[0].legend(fontsize=6, loc="lower right")
    save_figure(fig, path, dpi=100)
    return path
