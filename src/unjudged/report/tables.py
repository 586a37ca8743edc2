"""Render Results as an aligned table, TSV, CSV, JSON lines or trec_eval's layout."""

from __future__ import annotations

import io
import json

from unjudged.data.topic_order import natural_key
from unjudged.engine.results import Results
from unjudged.report.rows import row_writer, safe_text


def topic_order(topics: list[str], natural: bool = True) -> list[int]:
    """Indices of `topics` in reading order: natural (2 before 10), or as given (the data
    model's byte order, trec_eval's) when not `natural`.

    Example:
        >>> topic_order(["1", "10", "2"])
        [0, 2, 1]
    """
    if not natural:
        return list(range(len(topics)))
    return sorted(range(len(topics)), key=lambda t: natural_key(topics[t]))


def _rows(results: Results, per_topic: bool, safe=str, natural: bool = True):
    """(run, topic, measure, value, integer) in run order, topics first (in natural order
    unless not `natural`), 'all' last; the names passed through `safe` (once each)."""
    for r in results.runs:
        run = safe(r.run)
        names = [safe(m.name) for m in r.measures]
        if per_topic:
            for t in topic_order(r.topics, natural):
                topic = safe(r.topics[t])
                for m, measure in enumerate(r.measures):
                    yield run, topic, names[m], float(r.values[t, m]), measure.spec.integer
        for m, (measure, value) in enumerate(zip(r.measures, r.summary, strict=True)):
            yield run, "all", names[m], float(value), measure.spec.integer


def _num(value: float, integer: bool) -> str:
    return str(int(round(value))) if integer else f"{value:.4f}"


def _full(value: float, integer: bool) -> str:
    """A value in full: Python's repr of the float (reads back as the same number)."""
    return str(int(round(value))) if integer else repr(float(value))


def render(results: Results, fmt: str = "table", per_topic: bool = False) -> str:
    """Text of `results` in one of: table, tsv, csv, jsonl, trec. Only `table` and `trec`
    (trec_eval's bytes) round to 4 decimals; tsv, csv and jsonl keep every value in full.
    Topics are listed in natural order (1, 2, ..., 10), but by `trec`, which keeps
    trec_eval's (byte order: 1, 10, 11, ..., 2) so that its lines diff against trec_eval's."""
    if fmt == "jsonl":
        return "".join(json.dumps({"run": run, "topic": topic, "measure": m, "value":
                                   int(round(v)) if integer else v}) + "\n"
                       for run, topic, m, v, integer in _rows(results, per_topic))
    if fmt == "trec":
        return "".join(f"{m:<22}\t{topic}\t{_num(v, integer)}\n"
                       for run, topic, m, v, integer in _rows(results, per_topic,
                                                              natural=False))
    if fmt in ("tsv", "csv"):
        buf = io.StringIO()
        writerow = row_writer(buf, fmt)
        writerow(["run", "topic", "measure", "value"])
        for run, topic, m, v, integer in _rows(results, per_topic, safe_text(fmt)):
            writerow([run, topic, m, _full(v, integer)])
        return buf.getvalue()
    return _table(results, per_topic)


def _table(results: Results, per_topic: bool) -> str:
    """One row per run (and per topic with -q), one column per measure, aligned."""
    if not results.runs:
        return ""
    safe = safe_text("table")
    names = [safe(m.name) for m in results.runs[0].measures]
    header = ["run"] + (["topic"] if per_topic else []) + names
    body = []
    for r in results.runs:
        ints = [m.spec.integer for m in r.measures]
        run = safe(r.run)
        if per_topic:
            for t in topic_order(r.topics):
                body.append([run, safe(r.topics[t])]
                            + [_num(v, i) for v, i in zip(r.values[t], ints, strict=True)])
        body.append([run] + (["all"] if per_topic else []) +
                    [_num(v, i) for v, i in zip(r.summary, ints, strict=True)])
    widths = [max(len(row[c]) for row in [header] + body) for c in range(len(header))]
    lead = 2 if per_topic else 1

    def line(row):
        cells = [row[c].ljust(widths[c]) if c < lead else row[c].rjust(widths[c])
                 for c in range(len(row))]
        return "  ".join(cells).rstrip() + "\n"

    return line(header) + "".join(line(row) for row in body)
