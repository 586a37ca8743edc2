"""The report's tables: which columns each shows, as escaped HTML or as TSV / JSON lines."""

from __future__ import annotations

import html
import math
from typing import Any

#: (key, heading) of each table, in display order. Keys are the unjudged.analysis.report_data row
#: keys.
#: The leaderboard's key columns come first, so that they stay in view at 800 px (rank and run
#: also stay put while the rest scrolls sideways); the strategies and the rest follow.
LEADERBOARD_LEAD = [("rank", "rank"), ("run", "run"), ("score", "score"), ("lo", "90% lo"),
                    ("hi", "90% hi"), ("rank_lo", "rank lo"), ("rank_hi", "rank hi"),
                    ("uncertain", "uncertain vs"), ("reversed", "reversed vs"),
                    ("judged", "Judged@k")]
LEADERBOARD_TAIL = [("tier", "tier"), ("twin_of", "same score as")]
#: the built-in strategies' places: the lower end, the estimates, the upper end; strategies
#: added to the table follow them
_SHOWN_FIRST = ("nonrel", "condensed", "bootstrap", "upper")
PAIRS = [("run", "run"), ("baseline", "against"), ("diff", "score diff"), ("p", "p"),
         ("case", "case"), ("assessment_diff", "judged diff"), ("p_assessment", "p (judged)"),
         ("assessment", "A_p"), ("weak", "weak")]
#: the tiers of the verdict (report_data's verdict "tiers")
TIERS = [("tier", "tier"), ("ranks", "ranks"), ("size", "runs"), ("runs", "names")]
#: pairs of runs whose order the bootstrap does not settle (report_data's `orders`)
ORDERS = [("rank_a", "rank"), ("run_a", "run"), ("rank_b", "rank"), ("run_b", "against"),
          ("p_a_better", "P(run > against)"), ("p_b_better", "P(against > run)"),
          ("order", "order")]
TOPICS = [("topic", "topic"), ("unjudged_mean", "unjudged share (mean over runs)"),
          ("unjudged_max", "unjudged share (max)"), ("bootstrap_std", "bootstrap std (mean)")]
#: the judge section (report --judge; unjudged.judges.options.judge_tables)
JUDGE_ESTIMATES = [("judge", "judge"), ("measure", "measure"), ("run", "run"),
                   ("estimate", "ppi"), ("lo", "lo"), ("hi", "hi"), ("rank_lo", "rank lo"),
                   ("rank_hi", "rank hi"), ("judged", "judge's score"),
                   ("human_only", "audit alone"), ("lift", "judge lift"),
                   ("lift_flag", "lift excludes 0"), ("audited", "audited")]
JUDGE_AGREEMENT = [("judge", "judge"), ("overlap", "documents graded by both"),
                   ("kappa_binary", "kappa (relevant)"), ("kappa_weighted", "weighted kappa"),
                   ("agreement", "same grade")]
JUDGE_CALIBRATION = [("judge", "judge"), ("low", "p from"), ("high", "p to"),
                     ("documents", "documents"), ("predicted", "predicted"),
                     ("observed", "observed relevant")]
#: the columns holding p-values: printed by p_text, never as 0.0000
P_COLUMNS = frozenset({"p", "p_assessment"})
JUDGMENTS_LEAD = [("topic", "topic"), ("judged", "judged")]
JUDGMENTS_TAIL = [("relevant", "relevant"), ("relevant_fraction", "relevant share"),
                  ("unjudged_negative", "negative grades"), ("warn", "> 1/3 relevant")]


def leaderboard_columns() -> list[tuple[str, str]]:
    """Columns of the leaderboard: rank, run, score, the bootstrap's 90% interval of the score
    and of the rank, with how many runs the order is uncertain or reversed, Judged@k, every
    comparable strategy of the table, the run's tier and the run it is a twin of.

    Example:
        >>> [k for k, _ in leaderboard_columns()][10:14]
        ['nonrel', 'condensed', 'bootstrap', 'upper']
    """
    from unjudged.analysis.report_data import leaderboard_strategies

    fills, drawn = leaderboard_strategies()
    shown = sorted(fills + drawn, key=lambda s: (_SHOWN_FIRST + (s,)).index(s))
    return LEADERBOARD_LEAD + [(s, s) for s in shown] + LEADERBOARD_TAIL


def judgment_columns(rows: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """Columns of the judgment table: topic, judged, one per grade present, the rest.

    Example:
        >>> [k for k, _ in judgment_columns([{"topic": "1", "grade_0": 1, "grade_2": 0}])][:4]
        ['topic', 'judged', 'grade_0', 'grade_2']
    """
    grades = [k for k in (rows[0] if rows else {}) if k.startswith("grade_")]
    return JUDGMENTS_LEAD + [(g, g.replace("_", " ")) for g in grades] + JUDGMENTS_TAIL


def coverage_columns(bands: list[str]) -> list[tuple[str, str]]:
    """Columns of the coverage table for the given rank bands.

    Example:
        >>> coverage_columns(["1-5"])[1]
        ('judged_1-5', 'judged 1-5')
    """
    return ([("run", "run")] + [(f"judged_{b}", f"judged {b}") for b in bands]
            + [("unjudged", "unjudged in top 100"), ("unique", "of which no other run's")])


def cell_text(v: Any, decimals: int = 4) -> str:
    """A value as shown in the page: floats rounded, booleans as a mark, None/NaN empty.

    Example:
        >>> cell_text(0.123456), cell_text(True), cell_text(float("nan")), cell_text(3)
        ('0.1235', 'yes', '', '3')
    """
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    if isinstance(v, bool) or type(v).__name__ == "bool_":
        return "yes" if v else ""
    if isinstance(v, float):
        return f"{v:.{decimals}f}"
    return str(v)


def p_text(p: Any) -> str:
    """A p-value as shown in the page: 4 decimals, and "<0.0001" below that (never 0.0000);
    empty when missing. The TSV and JSON tables keep the full value.

    Example:
        >>> p_text(0.04321), p_text(3.2e-07), p_text(0.0), p_text(0.0001), p_text(None)
        ('0.0432', '<0.0001', '<0.0001', '0.0001', '')
    """
    if isinstance(p, float) and p < 0.0001:  # NaN compares false: cell_text leaves it empty
        return "<0.0001"
    return cell_text(p)


def html_table(rows: list[dict[str, Any]], columns: list[tuple[str, str]], *, table_id: str,
               row_class: str = "", mark: str | None = None, css: str = "") -> str:
    """An escaped HTML table, in a box that scrolls sideways when the table is wider than the
    page; rows where `mark` is true get the class "mark" (they need attention), rows with a
    true "break_above" the class "break", rows with a "twin_of" the class "twin", the table the
    class `css`. p-values print as p_text.

    Example:
        >>> print(html_table([{"run": "<script>"}], [("run", "run")], table_id="t"))
        <div class="scroll"><table id="t"><thead><tr><th>run</th></tr></thead><tbody>
        <tr><td>&lt;script&gt;</td></tr>
        </tbody></table></div>
    """
    head = "".join(f"<th>{html.escape(h)}</th>" for _, h in columns)
    body = []
    for r in rows:
        classes = " ".join(c for c in (row_class, "mark" if mark and r.get(mark) else "",
                                       "break" if r.get("break_above") else "",
                                       "twin" if r.get("twin_of") else "") if c)
        attr = f' class="{classes}"' if classes else ""
        tds = "".join(f"<td>{html.escape((p_text if k in P_COLUMNS else cell_text)(r.get(k)))}"
                      "</td>" for k, _ in columns)
        body.append(f"<tr{attr}>{tds}</tr>")
    klass = f' class="{html.escape(css)}"' if css else ""
    return (f'<div class="scroll"><table id="{html.escape(table_id)}"{klass}><thead><tr>{head}</tr>'
            "</thead><tbody>\n" + "\n".join(body) + "\n</tbody></table></div>")


def text_tables(rows: list[dict[str, Any]], columns: list[tuple[str, str]]) -> dict[str, str]:
    """The same table as TSV and JSON lines (unjudged.report.rows), keyed by file extension."""
    from unjudged.report.rows import render_rows

    keys = [k for k, _ in columns]
    return {"tsv": render_rows(rows, keys, "tsv"), "jsonl": render_rows(rows, keys, "jsonl")}
