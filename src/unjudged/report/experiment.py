"""Render a leave-one-group-out experiment: seed 000's Tables 4-5 (prediction) and 6
(preferences), one pair of tables per measure (presentation only)."""

from __future__ import annotations

import json
import math

import numpy as np

from unjudged.report.rows import render_rows

_PREDICTION = ["strategy", "rmse", "rmse_lower", "rmse_upper", "kendall_tau", "spearman_rho",
               "marks"]
_PREFERENCE = ["estimate", "kind", "precision", "recall", "f1", "emitted", "marks"]


def render_logo(sweep, tables: dict[str, tuple[list[dict], list[dict]]], fmt: str = "table"
                ) -> str:
    """`tables` maps each measure name to its (prediction rows, preference rows)."""
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
    return _text(sweep, tables)


def _text(sweep, tables) -> str:
    n_pairs = int((~np.isnan(sweep.truth[..., 0])).sum())
    lost = int(((sweep.unjudged > sweep.unjudged_full) & ~np.isnan(sweep.truth[..., 0])).sum())
    head = (f"leave one group out: {sweep.pooled_runs} pooled runs, depth {sweep.depth}; "
            f"{len(sweep.runs)} best runs scored (top {sweep.options['top_fraction']:.0%}) "
            f"from {len(set(sweep.groups))} groups over {len(sweep.topics)} topics\n"
            f"judgments removed per group: mean {_mean(sweep.removed):.1f}; (run, topic) pairs "
            f"that lost judgments within the cutoff: {lost} of {n_pairs}; bootstrap b = "
            f"{sweep.options['b']}, seed {sweep.options['seed']}, point = "
            f"{sweep.options['point']}\n"
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


def _mean(d: dict) -> float:
    return sum(d.values()) / len(d) if d else 0.0


def _plain(row: dict) -> dict:
    return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()}
