"""Plans and planning experiments as text and plots. Presentation only."""

from __future__ import annotations

from typing import Any

from unjudged.report.rows import render_rows

TOPIC_COLUMNS = ["topic", "candidates", "chosen", "expected_relevant", "best_rank_min",
                 "best_rank_median"]
CURVE_COLUMNS = ["strategy", "judgments", "measure", "tau", "tau_ap", "rmse", "decided_right",
                 "decided_wrong", "width"]
NEEDED_COLUMNS = ["reference", "measure", "reference_judgments", "reference_tau", "strategy",
                  "judgments", "ratio"]
DOCUMENT_COLUMNS = ["priority", "topic", "docno", "best_rank", "runs", "p_relevant", "score"]
REFERENCE_COLUMNS = ["reference", "judgments", "measure", "tau", "tau_ap", "rmse",
                     "decided_right", "decided_wrong", "width"]


def render_plan(rows: list[dict[str, Any]], fmt: str, head: str) -> str:
    """The per-topic summary of a plan in natural topic order (2 before 10, as eval lists
    them), with a total line in a table."""
    from unjudged.data.topic_order import natural_key

    rows = sorted(rows, key=lambda r: natural_key(str(r["topic"])))
    if fmt != "table":
        return render_rows(rows, TOPIC_COLUMNS, fmt)
    total = {"topic": "all", "candidates": sum(r["candidates"] for r in rows),
             "chosen": sum(r["chosen"] for r in rows),
             "expected_relevant": sum(r["expected_relevant"] for r in rows)}
    return render_rows(rows + [total], TOPIC_COLUMNS, fmt, title=head, decimals=2)


def render_documents(rows: list[dict[str, Any]], fmt: str) -> str:
    """A plan's documents in priority order (Plan.rows). In a table the strategy's score has
    three significant digits: the uncertainty planner's bits can be tiny where every pair is
    nearly settled."""
    if fmt == "table":
        rows = [{**r, "score": f"{r['score']:.3g}"} for r in rows]
    return render_rows(rows, DOCUMENT_COLUMNS, fmt, lead=3)


def render_planning(curves: list[dict[str, Any]], references: list[dict[str, Any]],
                    needed: list[dict[str, Any]], fmt: str, head: str) -> str:
    """The experiment's curves (mean over trials), the references, and the judgments each
    strategy needed to reach each reference's tau. Machine formats carry the curves only."""
    if fmt != "table":
        return render_rows(curves, CURVE_COLUMNS, fmt)
    out = render_rows(curves, CURVE_COLUMNS, fmt, lead=3, title=head)
    if references:
        out += "\n" + render_rows(references, REFERENCE_COLUMNS, fmt, lead=3,
                                  title="references (start + the reference's judgments)")
        out += "\n" + render_rows(needed, NEEDED_COLUMNS, fmt, lead=2,
                                  title="judgments each strategy needed to reach the "
                                  "reference's tau (first budget at or above it)")
    return out


def plot_planning(curves: list[dict[str, Any]], references: list[dict[str, Any]],
                  path: str, metric: str = "tau") -> str:
    """One panel per measure: `metric` against judgments spent, a line per strategy, each
    reference as a marker at its own number of judgments."""
    import math

    from unjudged.report._mpl import pyplot, save_figure, shown

    plt = pyplot()
    measures = list(dict.fromkeys(r["measure"] for r in curves))
    cols = min(2, len(measures))
    rows = math.ceil(len(measures) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.6 * cols, 3.4 * rows), squeeze=False,
                             layout="constrained")
    strategies = list(dict.fromkeys(r["strategy"] for r in curves))
    for ax, m in zip(axes.flat, measures, strict=False):
        for s in strategies:
            pts = sorted((r["judgments"], r[metric]) for r in curves
                         if r["measure"] == m and r["strategy"] == s)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", ms=3,
                    label=shown(s))
        for ref in references:
            if ref["measure"] == m:
                ax.scatter([ref["judgments"]], [ref[metric]], marker="*", s=90, color="k",
                           zorder=5, label=shown(ref["reference"]))
        ax.set_title(shown(m), fontsize=10)
        ax.set_xlabel("judgments spent")
        ax.set_ylabel(metric)
        ax.grid(alpha=0.3)
    for ax in axes.flat[len(measures):]:
        ax.set_visible(False)
    axes.flat[0].legend(fontsize=7)
    save_figure(fig, path, dpi=100)
    return path
