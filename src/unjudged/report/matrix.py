"""Text of the decision matrix (`unjudged matrix`) and of runs against a baseline
(`unjudged eval --baseline`). Presentation only: every number comes from `unjudged.analysis.matrix`.
"""

from __future__ import annotations

import math

from unjudged.analysis.baseline import BASELINE_KEYS
from unjudged.analysis.matrix import DecisionMatrix
from unjudged.report.rows import render_rows

SUMMARY_KEYS = ("measure", "depth", "runs", "pairs", "case_1", "case_2", "case_3", "case_4",
                "weak", "case_3_fewer")
PAIR_KEYS = ("measure", "depth", "run_a", "run_b", "case", "p_performance", "p_assessment",
             "diff_performance", "diff_assessment", "weak")
_SUMMARY_HEAD = {"case_2": "case_2 (weak)", "case_4": "case_4 (weak)",
                 "case_3_fewer": "case_3: winner less judged"}
LEGEND = ("cases (seed 001, Figure 3): 1 equal and judged alike; 2 equal but judged unevenly "
          "(weak);\n3 one run wins without more judgments; 4 the winner is also judged more "
          "(weak)\n")


def tau_said(tau: dict) -> str:
    """ranking_tau's value as the matrix prints it; a ranking in which every run ties (no
    relevant document, or every run judged alike) has no tau, and the line says why.

    Example:
        >>> tau_said({"kendall_tau": 0.5}), tau_said({"kendall_tau": float("nan")})[:9]
        ('0.5000', 'undefined')
    """
    value = tau["kendall_tau"]
    if math.isnan(value):
        return "undefined (every run ties in one of the two rankings)"
    return f"{value:.4f}"


def render_matrix(dm: DecisionMatrix, fmt: str = "table", *, pairs: bool | None = None,
                  weak_only: bool = False) -> str:
    """The decision matrix as text.

    table: the share of pairs per case for each (measure, depth), the same in seed 001's
    Tables 3/4 layout, the Kendall tau of the measure and A_p rankings, and (`pairs`) the
    per-pair listing with weak cases marked. tsv/csv/jsonl: the per-pair listing (the
    default) or, with `pairs=False`, the summary rows.

    Example:
        >>> from unjudged.io import read_qrels, read_run
        >>> from unjudged.analysis.matrix import decision_matrix
        >>> q = read_qrels({"t1": {"a": 1, "b": 0}, "t2": {"a": 1}})
        >>> rs = [read_run({"t1": {"a": 2, "b": 1}, "t2": {"a": 1}}, name="x"),
        ...       read_run({"t1": {"b": 2, "c": 1}, "t2": {"c": 1}}, name="y")]
        >>> dm = decision_matrix(rs, q, ["P"], [1], test="t")
        >>> import json
        >>> line = json.loads(render_matrix(dm, "jsonl"))
        >>> line["run_a"], line["run_b"], line["case"], round(line["p_assessment"], 4)
        ('x', 'y', 3, 0.5)
    """
    if fmt != "table":
        if pairs is False:
            return render_rows(dm.summary(), list(SUMMARY_KEYS), fmt)
        return render_rows(dm.pairs(weak_only), list(PAIR_KEYS), fmt)
    tau = dm.ranking_tau()
    d = dm.depths[0]
    out = [f"decision matrix: {len(dm.runs)} runs, {dm.pairs_count} pairs, {len(dm.topics)} "
           f"topics; test {dm.test}, alpha {dm.alpha:g}; A_p@{d} = {dm.assessment_name(d)}\n",
           LEGEND, "\n",
           _summary_table(dm), "\n", _seed_layout(dm), "\n",
           f"Kendall's tau-b between the rankings by {tau['measure']} and by "
           f"{tau['assessment']} ({tau['runs']} runs): {tau_said(tau)}\n"]
    if pairs or weak_only:
        rows = [dict(r, weak="WEAK" if r["weak"] else "") for r in dm.pairs(weak_only)]
        out += ["\n", render_rows(rows, list(PAIR_KEYS), "table", lead=4,
                                  title="weak pairs" if weak_only else "pairs")]
    return "".join(out)


def _summary_table(dm: DecisionMatrix) -> str:
    rows = [{_SUMMARY_HEAD.get(k, k): v for k, v in r.items()} for r in dm.summary()]
    return render_rows(rows, [_SUMMARY_HEAD.get(k, k) for k in SUMMARY_KEYS], "table",
                       title="share of pairs per case")


def _seed_layout(dm: DecisionMatrix) -> str:
    """One row per measure family, one column per depth holding the four shares."""
    rows = []
    for f in dm.families:
        row = {"measure": f, "runs": len(dm.runs)}
        for d in dm.depths:
            s = dm.cell(f, d).proportions()
            row[f"@{d}"] = f"{s[0]:.2f} [{s[1]:.2f}] {s[2]:.2f} [{s[3]:.2f}]"
        rows.append(row)
    return render_rows(rows, ["measure", "runs"] + [f"@{d}" for d in dm.depths], "table",
                       title="seed 001 Tables 3/4 layout: case 1 [case 2] case 3 [case 4], "
                       "weak cases in brackets")


def render_baseline(rows: list[dict], fmt: str = "table", *, test: str = "t",
                    alpha: float = 0.05) -> str:
    """Runs against a baseline (rows of `baseline_comparison`); weak cases marked in a table.
    In tsv/csv a second block after a blank line, in jsonl more lines (they carry `baseline`).

    Example:
        >>> row = {"run": "new", "baseline": "base", "measure": "P@10", "value": 0.6,
        ...        "baseline_value": 0.5, "diff": 0.1, "p": 0.01, "assessment": "Judged@10",
        ...        "assessment_diff": 0.2, "p_assessment": 0.001, "case": 4, "weak": True}
        >>> render_baseline([row]).splitlines()[-1].split()[4:]
        ['0.1000', '0.0100', 'Judged@10', '0.2000', '0.0010', '4', 'WEAK']
    """
    if fmt == "jsonl":
        return render_rows(rows, list(BASELINE_KEYS), "jsonl")
    if fmt in ("tsv", "csv"):
        return "\n" + render_rows(rows, list(BASELINE_KEYS), fmt)
    base = rows[0]["baseline"] if rows else "-"
    shown = [dict(r, weak="WEAK" if r["weak"] else "") for r in rows]
    return "\n" + render_rows(shown, [k for k in BASELINE_KEYS if k != "baseline"], "table",
                              lead=2, title=f"against baseline {base} (paired {test} test, "
                              f"alpha {alpha:g}; diff = run - baseline; A_p = assessment)\n"
                              + LEGEND)
