"""Present a QrelsComparison: correlation tables, rank changes, and the orig-vs-new figure of
seed 003 (Voorhees 2020, Figures 1-4). Presentation only: every number comes from the
comparison object."""

from __future__ import annotations

import numpy as np

from unjudged.analysis.compare import RUN_KEYS, SUMMARY_KEYS, QrelsComparison
from unjudged.report._mpl import save_figure
from unjudged.report.rows import render_rows


def render_comparison(cmp: QrelsComparison, fmt: str = "table", *, top: int = 5,
                      per_run: bool = False) -> str:
    """Text of the comparison.

    table: the correlations per measure, then the `top` largest rank changes per measure, then
    (with `per_run`) every run. tsv/csv: the correlations, or with `per_run` one row per
    (measure, run). jsonl: one line per measure (SUMMARY_KEYS plus "largest_changes", the `top`
    largest moves), or with `per_run` one line per (measure, run).

    Example:
        >>> from unjudged.analysis.compare import compare_qrels
        >>> cmp = compare_qrels([{"q": {"a": 2.0, "b": 1.0}}], {"q": {"a": 1}}, {"q": {"b": 1}},
        ...                     "P@1")
        >>> print(render_comparison(cmp, "csv"), end="")
        measure,runs,kendall_tau,kendall_tau_a,tau_ap,spearman_rho,max_rank_change
        P@1,1,-,-,-,-,0
    """
    summary = cmp.summary()
    if per_run and fmt != "table":
        return render_rows(_all_runs(cmp), list(RUN_KEYS), fmt, lead=2)
    if fmt == "jsonl":
        for m, row in enumerate(summary):
            row["largest_changes"] = _largest(cmp, m, top)
        return render_rows(summary, list(SUMMARY_KEYS) + ["largest_changes"], fmt)
    if fmt != "table":
        return render_rows(summary, list(SUMMARY_KEYS), fmt)
    text = render_rows(summary, list(SUMMARY_KEYS), "table",
                       title=f"{len(cmp.runs)} runs: rankings under the original and the new "
                       "qrels (tau_ap: the original ranking is the reference)")
    if top > 0 and cmp.runs:
        moves = [r for m in range(len(cmp.measures)) for r in _largest(cmp, m, top)]
        text += "\n" + render_rows(moves, list(RUN_KEYS), "table", lead=2,
                                   title=f"Largest rank changes (top {top} per measure; "
                                   "rank_change = new_rank - orig_rank, > 0: fell)")
    if per_run and cmp.runs:
        text += "\n" + render_rows(_all_runs(cmp), list(RUN_KEYS), "table", lead=2,
                                   title="Every run, by original rank")
    return text


def _largest(cmp: QrelsComparison, m: int, top: int) -> list[dict]:
    return cmp.per_run(m, cmp.rank_changes(m).largest(top))


def _all_runs(cmp: QrelsComparison) -> list[dict]:
    return [r for m in range(len(cmp.measures)) for r in cmp.per_run(m)]


def plot_comparison(cmp: QrelsComparison, path: str) -> str:
    """One panel per measure: each run's score under the original (red) and the new (blue)
    qrels, runs sorted by their original rank, Kendall's tau in the title. Written atomically;
    returns `path`.

    Red is drawn over blue, so a run whose score did not change shows as a single red dot, as
    in seed 003's figures.

    Example (writes a file):
        >>> cmp = compare_qrels(runs, orig, new, ["P@5", "AP"])  # doctest: +SKIP
        >>> plot_comparison(cmp, "ranks.png")  # doctest: +SKIP
        'ranks.png'
    """
    from unjudged.report._mpl import pyplot

    plt = pyplot()

    n = len(cmp.measures)
    cols = min(2, n)
    rows = -(-n // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(5.2 * cols, 3.3 * rows), squeeze=False)
    x = np.arange(1, len(cmp.runs) + 1)
    for m, ax in enumerate(axes.ravel()):
        if m >= n:
            ax.set_visible(False)
            continue
        rc = cmp.rank_changes(m)
        order = np.lexsort((np.arange(len(cmp.runs)), rc.rank_x))
        ax.plot(x, cmp.new[order, m], "o", color="tab:blue", markersize=3, label="new")
        ax.plot(x, cmp.orig[order, m], "o", color="tab:red", markersize=3, label="orig")
        tau = cmp.stats["kendall_tau"][m]
        ax.set_title(f"{cmp.measures[m].name}: Kendall \u03c4 = {tau:.4f}", fontsize=10)
        ax.set_xlabel("runs by original score", fontsize=8)
        ax.set_ylabel(cmp.measures[m].name, fontsize=8)
        ax.tick_params(labelsize=7)
        ax.set_xticks([])
        ax.grid(axis="y", color="0.9")
        handles, labels = ax.get_legend_handles_labels()
        ax.legend(handles[::-1], labels[::-1], fontsize=7, frameon=False, loc="upper right")
    fig.tight_layout()
    save_figure(fig, path, dpi=90)
    return path
