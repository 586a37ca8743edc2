"""Render judgment statistics and qrels differences: aligned tables, TSV, CSV, JSON lines.

Presentation only: every number comes from `unjudged.judgments.stats`.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Sequence
from typing import Any

STATS_FORMATS = ("table", "tsv", "csv", "jsonl")


def render_stats(stats, fmt: str = "table") -> str:
    """Text of `judgment_stats` output: an aligned table with one block of columns per qrels
    side by side (as Voorhees 2020, Table 1), or one row per (qrels, topic) in tsv, csv or jsonl.

    Example:
        >>> from unjudged.judgments.stats import judgment_stats
        >>> print(render_stats(judgment_stats({"1": {"a": 1, "b": 0}})), end="")
               <dict>
        topic  judged  g0  g1  frac_rel  !
        1           2   1   1     0.500  !
        all         2   1   1     0.500  !
    """
    # every format lists the topics as the table does (2 before 10), each qrels' in a block
    rank = {t: i for i, t in enumerate(shown_order(stats.topic.tolist()))}
    block = {q: i for i, q in enumerate(dict.fromkeys(stats.qrels))}
    order = sorted(range(len(stats)), key=lambda i: (block[stats.qrels.iat[i]],
                                                     rank[stats.topic.iat[i]]))
    stats = stats.iloc[order]
    if fmt in ("tsv", "csv"):
        return _delimited(stats, fmt)
    if fmt == "jsonl":
        return "".join(json.dumps(_plain(row)) + "\n" for row in stats.to_dict("records"))
    return _stats_table(stats)


def _delimited(frame, fmt: str) -> str:
    """A frame as tsv/csv, its text cells (qrels names, topic ids, docnos) made safe."""
    from unjudged.report.rows import safe_text

    safe = safe_text(fmt)
    frame = frame.rename(columns=safe)
    quoting = csv.QUOTE_MINIMAL
    for c in frame.columns:
        if frame[c].dtype.kind in "biufcmM":
            continue
        # only the few cells that could need it go through `safe` (a listing can be long)
        risky = frame[c].str.contains(r"^[-=+@\t\r]|[\t\n\r]", regex=True, na=False)
        if risky.any():
            frame.loc[risky, c] = frame.loc[risky, c].map(safe)
            if fmt == "csv" and frame.loc[risky, c].str.contains("\r").any():
                quoting = csv.QUOTE_ALL  # as row_writer: csv leaves a lone CR bare
    return frame.to_csv(sep="\t" if fmt == "tsv" else ",", index=False, lineterminator="\n",
                        quoting=quoting)


def stats_warnings(stats) -> list[str]:
    """One line per qrels with topics flagged as more than a third relevant.

    Example:
        >>> from unjudged.judgments.stats import judgment_stats
        >>> stats_warnings(judgment_stats({"1": {"a": 1}, "2": {"b": 0}}))
        ['1 of 2 topics in <dict> have more than a third relevant: 1']
    """
    lines = []
    for name, rows in stats[stats.topic != "all"].groupby("qrels", sort=False):
        flagged = shown_order(rows.topic[rows.warn].tolist())
        if flagged:
            lines.append(f"{len(flagged)} of {len(rows)} topics in {name} have more than a "
                         f"third relevant: {', '.join(flagged)}")
    return lines


def shown_order(topics) -> list[str]:
    """Topics as every format shows them: numerically when every id is a number (as the
    papers' tables), else in the library's byte order; "all" last.

    Example:
        >>> shown_order(["10", "all", "2", "1"])
        ['1', '2', '10', 'all']
    """
    ids = list(dict.fromkeys(t for t in topics if t != "all"))
    numeric = all(t.isdigit() for t in ids)
    # by length first: numeric order without int(), which refuses 4,300+ digits
    ids.sort(key=(lambda t: (len(t.lstrip("0")), t.lstrip("0"), t)) if numeric else str.encode)
    return ids + (["all"] if "all" in topics else [])


def _plain(row: dict[str, Any]) -> dict[str, Any]:
    """JSON-ready values: numpy scalars to Python, NaN and NA to null."""
    out = {}
    for key, value in row.items():
        if hasattr(value, "item"):
            value = value.item()
        if value is None or (isinstance(value, float) and math.isnan(value)) or \
                type(value).__name__ == "NAType":
            value = None
        out[key] = value
    return out


def _stats_table(stats) -> str:
    grade_cols = [c for c in stats.columns if c.startswith("grade_")]
    extra = ["unjudged_negative"] if stats.unjudged_negative.any() else []
    heads = ["judged"] + ["g" + c[len("grade_"):] for c in grade_cols] + \
        (["unjudged"] if extra else []) + ["frac_rel", "!"]
    blocks = list(dict.fromkeys(stats.qrels))
    cells = {(r["qrels"], r["topic"]): r for r in stats.to_dict("records")}
    topics = shown_order(stats.topic.tolist())
    body = []
    for topic in topics:
        row = [topic]
        for block in blocks:
            r = cells.get((block, topic))
            if r is None:
                row += ["-"] * (len(heads) - 1) + [""]
                continue
            frac = r["relevant_fraction"]
            row += [str(int(r[c])) for c in ["judged"] + grade_cols + extra]
            row += ["-" if math.isnan(frac) else f"{frac:.3f}", "!" if r["warn"] else ""]
        body.append(row)
    spans = [(1 + i * len(heads), 1 + (i + 1) * len(heads)) for i in range(len(blocks))]
    return _aligned(["topic"] + heads * len(blocks), body, spans, blocks)


def _aligned(header: list[str], body: list[list[str]], spans: Sequence[tuple[int, int]] = (),
             titles: Sequence[str] = (), left: int = 1) -> str:
    """Columns right-aligned but the first `left`; optional titles over spans of columns.
    Every cell is shown safely on a terminal (names and ids come from the inputs)."""
    from unjudged.report.rows import terminal_text

    header = [terminal_text(h) for h in header]
    body = [[terminal_text(v) for v in row] for row in body]
    titles = [terminal_text(t) for t in titles]
    widths = [max(len(row[c]) for row in [header] + body) for c in range(len(header))]
    for (start, end), title in zip(spans, titles, strict=True):
        short = len(title) - (sum(widths[start:end]) + 2 * (end - start - 1))
        if short > 0:  # a long file name widens its block's first column
            widths[start] += short
    gap = "  "

    def line(row: list[str]) -> str:
        cells = [v.ljust(w) if c < left else v.rjust(w)
                 for c, (v, w) in enumerate(zip(row, widths, strict=True))]
        return gap.join(cells).rstrip() + "\n"

    top = ""
    if titles:
        parts = [" " * widths[0]]
        for (start, end), title in zip(spans, titles, strict=True):
            parts.append(title.ljust(sum(widths[start:end]) + len(gap) * (end - start - 1)))
        top = gap.join(parts).rstrip() + "\n"
    return top + line(header) + "".join(line(row) for row in body)


def render_diff(diff, fmt: str = "table", listing: bool = False) -> str:
    """Text of a `QrelsDiff`: the per-topic summary, or with `listing` each differing judgment.

    Example:
        >>> from unjudged.judgments.stats import diff_qrels
        >>> print(render_diff(diff_qrels({"1": {"x": 1}}, {"1": {"x": 2, "z": 0}})), end="")
        topic  <dict>  <dict>#2  added  removed  changed
        1           1         2      1        0        1
        all         1         2      1        0        1
    """
    frame = diff.changes if listing else diff.summary
    if fmt in ("tsv", "csv"):
        return _delimited(frame, fmt)
    if fmt == "jsonl":
        return "".join(json.dumps(_plain(row)) + "\n" for row in frame.to_dict("records"))
    rank = {t: i for i, t in enumerate(shown_order(frame.topic.tolist()))}
    frame = frame.iloc[frame.topic.map(rank).argsort(kind="stable")]
    names = {"judgments_a": diff.a, "judgments_b": diff.b, "grade_a": diff.a,
             "grade_b": diff.b}
    header = [names.get(c, c) for c in frame.columns]
    body = [["-" if type(v).__name__ == "NAType" else str(v) for v in row]
            for row in frame.itertuples(index=False)]
    return _aligned(header, body, left=3 if listing else 1)
