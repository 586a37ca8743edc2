"""Render plain rows (lists of dicts) as an aligned table, TSV, CSV or JSON lines.

Presentation only: values arrive computed; floats are shown with a fixed number of decimals in
aligned tables only, and kept exact (as Python prints them) in TSV, CSV and JSON lines.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections.abc import Iterable
from typing import Any

from unjudged.errors import InvalidOptionError

FORMATS = ("table", "tsv", "csv", "jsonl")

_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\Z")
_FORMULA = ("=", "+", "-", "@", "\t", "\r")
_TSV_BREAKS = re.compile(r"[\t\n\r]")
# C0 and C1 controls, DEL, bidi overrides and isolates, LRM/RLM, line/paragraph separators
_TERMINAL = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069"
                       "\u2028\u2029]")


def sheet_text(text: str) -> str:
    """A CSV/TSV cell a spreadsheet will not run as a formula: text starting with =, +, -, @,
    a tab or a CR gets a leading single quote (OWASP), unless it is a plain number or '-'
    (the mark of a missing value).

    Example:
        >>> sheet_text("=1+1"), sheet_text("-0.5"), sheet_text("-1"), sheet_text("run-1")
        ("'=1+1", '-0.5', '-1', 'run-1')
    """
    if text.startswith(_FORMULA) and text != "-" and not _NUMBER.match(text):
        return "'" + text
    return text


def tsv_text(text: str) -> str:
    r"""A TSV cell: tab, LF and CR written as \t, \n, \r so no row is ever broken,
    then made safe for spreadsheets.

    Example:
        >>> tsv_text("a\tb\nc")
        'a\\tb\\nc'
    """
    if _TSV_BREAKS.search(text):
        text = text.replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")
    return sheet_text(text)


def terminal_text(text: str) -> str:
    r"""Text for a terminal: control characters, bidi controls and line separators shown as
    escapes, so a name can neither move the cursor nor reorder what follows it.

    Example:
        >>> print(terminal_text("run\x1b[31m\u202e"))
        run\x1b[31m\u202e
    """
    if _TERMINAL.search(text) is None:
        return text
    return _TERMINAL.sub(lambda m: f"\\x{ord(m[0]):02x}" if ord(m[0]) < 0x100
                         else f"\\u{ord(m[0]):04x}", text)


def safe_text(fmt: str):
    """The function making a string cell safe in `fmt` (identity for jsonl and trec)."""
    return {"csv": sheet_text, "tsv": tsv_text, "table": terminal_text}.get(fmt, str)


def cell(value: Any, decimals: int | None = 4) -> str:
    """A value as text: floats with `decimals` decimals, or in full (Python's repr, which reads
    back as the same float) when `decimals` is None.

    Example:
        >>> cell(0.1 + 0.2), cell(0.1 + 0.2, None), cell(float("nan")), cell(True)
        ('0.3000', '0.30000000000000004', '-', 'yes')
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return repr(float(value)) if decimals is None else f"{value:.{decimals}f}"
    return str(value)


def render_rows(rows: Iterable[dict[str, Any]], columns: list[str], fmt: str = "table", *,
                lead: int = 1, decimals: int = 4, title: str | None = None) -> str:
    """Text of `rows` restricted to `columns`. In a table the first `lead` columns are
    left-aligned (labels) and the rest right-aligned (numbers), floats with `decimals`
    decimals; TSV, CSV and JSON lines keep every float in full.

    Example:
        >>> print(render_rows([{"run": "a", "x": 1 / 3}], ["run", "x"]), end="")
        run       x
        a    0.3333
        >>> render_rows([{"run": "a", "x": 1 / 3}], ["run", "x"], "csv")
        'run,x\\na,0.3333333333333333\\n'
    """
    rows = list(rows)
    if fmt == "jsonl":
        return "".join(json.dumps({c: _json(r.get(c)) for c in columns}) + "\n" for r in rows)
    safe = safe_text(fmt)
    if fmt in ("tsv", "csv"):
        buf = io.StringIO()
        writerow = row_writer(buf, fmt)
        writerow([safe(c) for c in columns])
        for r in rows:
            writerow(["" if r.get(c) is None else _cell_in(r.get(c), None, safe)
                      for c in columns])
        return buf.getvalue()
    body = [[_cell_in(r.get(c), decimals, safe) for c in columns] for r in rows]
    columns = [safe(c) for c in columns]
    if title:  # a title may have several lines of its own
        title = "\n".join(safe(line) for line in title.split("\n"))
    widths = [max(len(x[i]) for x in [columns] + body) for i in range(len(columns))]

    def line(row: list[str]) -> str:
        return "  ".join(v.ljust(w) if i < lead else v.rjust(w)
                         for i, (v, w) in enumerate(zip(row, widths, strict=True))).rstrip() + "\n"

    head = f"{title}\n" if title else ""
    return head + line(columns) + "".join(line(x) for x in body)


def row_writer(buf, fmt: str):
    """The writerow of a tsv or csv writer on `buf`. A CSV row with a CR in a cell is quoted
    whole: the csv module quotes LF but leaves a lone CR bare, which readers take as a row end.

    Example:
        >>> buf = io.StringIO()
        >>> write = row_writer(buf, "csv")
        >>> write(["a", "1"]); write(["b\\rc", "2"])
        >>> buf.getvalue()
        'a,1\\n"b\\rc","2"\\n'
    """
    plain = csv.writer(buf, delimiter="\t" if fmt == "tsv" else ",", lineterminator="\n")
    if fmt == "tsv":
        return plain.writerow
    quoted = csv.writer(buf, lineterminator="\n", quoting=csv.QUOTE_ALL)

    def writerow(cells: list[str]) -> None:
        (quoted if any("\r" in c for c in cells) else plain).writerow(cells)

    return writerow


def _cell_in(value: Any, decimals: int | None, safe) -> str:
    """cell(), with text from the inputs (names, ids) made safe; numbers are left alone."""
    return safe(value) if isinstance(value, str) else cell(value, decimals)


def _json(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    if hasattr(value, "item"):  # numpy scalars
        return value.item()
    return value


#: File name endings write_table understands.
TABLE_SUFFIXES = (".csv", ".tsv", ".jsonl", ".parquet")


def write_table(rows: list[dict[str, Any]], path: str, decimals: int = 6) -> None:
    """Write rows to `path` as CSV, TSV, JSON lines or Parquet (by its ending), with
    unjudged.io.atomic.write_file: a failure leaves no half-written file."""
    import os

    from unjudged.io.atomic import write_file

    columns = list(rows[0]) if rows else []
    ending = os.path.splitext(path)[1]
    if ending not in TABLE_SUFFIXES:
        raise InvalidOptionError(f"{path}: expected a name ending in {', '.join(TABLE_SUFFIXES)}")
    if ending == ".parquet":
        import pandas as pd

        buf = io.BytesIO()
        pd.DataFrame(rows, columns=columns).to_parquet(buf, index=False)
        write_file(path, buf.getbuffer())
    else:
        write_file(path, render_rows(rows, columns, ending[1:], decimals=decimals))
