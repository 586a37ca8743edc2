"""Render a leave-one-group-out experiment: seed 000's Tables 4-5 (prediction) and 6
(preferences), one pair of tables per measure (presentation only)."""

from __future__ import annotations

import json
import math

from unjudged.report.rows import render_rows

_PREDICTION = ["strategy", "rmse", "rmse_lower", "rmse_upper", "kendall_tau", "spearman_rho",
               "marks"]
_PREFERENCE = ["estimate", "kind", "precision", "recall", "f1", "emitted", "marks"]


def render_logo(sweep, tables: dict[str, tuple[list[dict], list[dict]]], fmt: str = "table",
                *, counts: dict[str, float]) -> str:
    """`tables` maps each measure name to its (prediction rows, preference rows); `counts` are
    the header's numbers (unjudged.experiments.logo_summary.logo_counts)."""
    if fmt == "jsonl":
        out = []
        for measure, (pred, pref) in tables.items():
            for kind, rows in (("prediction", pred), ("preferences", pref)):
                out += [json.dumps({"measure": measure, "table": kind, **_plain(r)}) + "\n"
                        for r in rows]
        return "".join(out)
    if fmt in ("tsv", "csv"):
        rows = [{"measure": m, "table": kind, "name": r.get("strategy", r.get("estimate")), **r}
                for m, (pred, pref) in tables.items()
                for kind, rows_ in (("prediction", pred), ("preferences", pref)) for r in rows_]
        cols = ["measure", "table", "name", "kind", "rmse", "rmse_lower", "rmse_upper",
                "kendall_tau", "spearman_rho", "precision", "recall", "f1", "emitted", "marks"]
        cols += sorted({k for r in rows for k in r if k.startswith("p_")})
        return render_rows(rows, cols, fmt)
    return _text(sweep, tables, counts)


def _text(sweep, tables, counts: dict[str, float]) -> str:
    head = (f"leave one group out: {sweep.pooled_runs} pooled runs, depth {sweep.depth}; "
            f"{len(sweep.runs)} best runs scored (top {sweep.options['top_fraction']:.0%}) "
            f"from {len(set(sweep.groups))} groups over {len(sweep.topics)} topics\n"
            f"judgments removed per group: mean {counts['removed_mean']:.1f}; (run, topic) "
            f"pairs that lost judgments within the cutoff: {counts['lost']} of "
            f"{counts['pairs']}; bootstrap b = {sweep.options['b']}, seed "
            f"{sweep.options['seed']}, point = {sweep.options['point']}\n"
            "marks: significant (paired t-test, Bonferroni, p < 0.05) against nonrel †, upper "
            "‡, condensed * (prediction); against the condensed point *, the range up to upper "
            "†, the range up to condensed ‡ (preferences)\n")
    parts = [head]
    for measure, (pred, pref) in tables.items():
        parts.append("\n" + render_rows(pred, _PREDICTION, title=f"{measure}: prediction "
                                        "(RMSE) and system rankings (tau, rho)"))
        parts.append("\n" + render_rows(pref, _PREFERENCE, title=f"{measure}: topic-level "
                                        "preferences against exactly judged runs"))
    return "".join(parts)


def _plain(row: dict) -> dict:
    return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()}
