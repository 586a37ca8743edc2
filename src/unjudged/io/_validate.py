"""Error-path helpers: map a data row back to its line and say what was wrong with it.

These run only once something is known to be wrong, so they may loop over lines.
"""

from __future__ import annotations

import math
from typing import Any

from unjudged.errors import FormatError
from unjudged.io._source import data_lines


def line_of_row(data: Any, row: int) -> int | None:
    """1-based line number of the `row`-th data line (blank and comment lines skipped).

    `data` is the text, or a function that reads it again.
    """
    if data is None:
        return None
    if callable(data):
        data = data()
    for seen, (number, _) in enumerate(data_lines(data)):
        if seen == row:
            return number
    return None


def field_text(data: Any, line: int | None, index: int) -> str:
    """The raw text of field `index` of a line (error path only)."""
    if data is None or line is None:
        return "?"
    data = data() if callable(data) else data
    for number, fields in data_lines(data):
        if number == line:
            return fields[index].decode("utf-8", "replace") if len(fields) > index else "?"
    return "?"


def first_bad_float(values: list[str]) -> tuple[int, str]:
    for i, v in enumerate(values):
        try:
            x = float(v)
        except ValueError:
            return i, f"score {v!r} is not a number"
        if not math.isfinite(x):
            return i, f"score {v!r} is not a finite number"
    return -1, ""


def first_bad_int(values: list[str], what: str = "grade") -> tuple[int, str]:
    for i, v in enumerate(values):
        try:
            int(v)
        except ValueError:
            return i, f"{what} {v!r} is not an integer"
    return -1, ""


def row_error(path: str, data: Any, row: int, message: str) -> FormatError:
    return FormatError(path, line_of_row(data, row), message)
