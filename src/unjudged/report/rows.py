"""Render plain rows (lists of dicts) as an aligned table, TSV, CSV or JSON lines.

Presentation only: values arrive computed; floats are shown with a fixed number of decimals in
the text formats and kept exact in JSON lines.
"""

from __future__ import annotations

import csv
import io
import json
import math
from typing import Any, Iterable

FORMATS = ("table", "tsv", "csv", "jsonl")


def cell(value: Any, decimals: int = 4) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.{decimals}f}"
    return str(value)


def render_rows(rows: Iterable[dict[str, Any]], columns: list[str], fmt: str = "table", *,
                lead: int = 1, decimals: int = 4, title: str | None = None) -> str:
    """Text of `rows` restricted to `columns`. In a table the first `lead` columns are
    left-aligned (labels) and the rest right-aligned (numbers).

    Example:
        >>> print(render_rows([{"run": "a", "x": 0.5}], ["run", "x"]), end="")
        run       x
        a    0.5000
    """
    rows = list(rows)
    if fmt == "jsonl":
        return "".join(json.dumps({c: _json(r.get(c)) for c in columns}) + "\n" for r in rows)
    if fmt in ("tsv", "csv"):
        buf = io.StringIO()
        writer = csv.writer(buf, delimiter="\t" if fmt == "tsv" else ",", lineterminator="\n")
        writer.writerow(columns)
        for r in rows:
            writer.writerow(["" if r.get(c) is None else cell(r.get(c), decimals)
                             for c in columns])
        return buf.getvalue()
    body = [[cell(r.get(c), decimals) for c in columns] for r in rows]
    widths = [max(len(x[i]) for x in [columns] + body) for i in range(len(columns))]

    def line(row: list[str]) -> str:
        return "  ".join(v.ljust(w) if i < lead else v.rjust(w)
                         for i, (v, w) in enumerate(zip(row, widths))).rstrip() + "\n"

    head = f"{title}\n" if title else ""
    return head + line(columns) + "".join(line(x) for x in body)


def _json(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    if hasattr(value, "item"):  # numpy scalars
        return value.item()
    return value


#: File name endings write_table understands.
TABLE_SUFFIXES = (".csv", ".tsv", ".jsonl", ".parquet")


def write_table(rows: list[dict[str, Any]], path: str, decimals: int = 6) -> None:
    """Write rows to `path` as CSV, TSV, JSON lines or Parquet (by its ending), atomically: a
    failure leaves no half-written file."""
    import os

    from unjudged.io.atomic import atomic_path

    columns = list(rows[0]) if rows else []
    ending = os.path.splitext(path)[1]
    if ending not in TABLE_SUFFIXES:
        raise ValueError(f"{path}: expected a name ending in {', '.join(TABLE_SUFFIXES)}")
    with atomic_path(path, ending) as tmp:
        if ending == ".parquet":
            import pandas as pd

            pd.DataFrame(rows, columns=columns).to_parquet(tmp, index=False)
        else:
            with open(tmp, "w", encoding="utf-8") as fh:
                fh.write(render_rows(rows, columns, ending[1:], decimals=decimals))
