"""Read which group (team) submitted each run.

Two layouts are accepted:

* whitespace-separated lines ``run group`` (``#`` starts a comment);
* a CSV file with a header naming a ``run`` column and a ``group`` or ``team`` column, as the
  TREC-COVID leaderboards are published.

The order of the lines is kept: it is the groups' priority order for `--runs-per-group`.

A CSV may also say which runs contributed judgments (the pool): `read_contributors` reads a
``contributed judgments`` (or ``contributed``, ``contributing``, ``pooled``) column of yes/no.
"""

from __future__ import annotations

from typing import Any

from unjudged.errors import FormatError, InputError
from unjudged.io._csv import csv_records
from unjudged.io._source import (
    data_lines,
    display_name,
    read_bytes,
    readable,
    unify_line_ends,
)

#: Header names of the column that says whether a run contributed to the pool (TREC-COVID's
#: leaderboards call it "contributed judgments"), and the values it may hold.
CONTRIBUTING_COLUMNS = ("contributed judgments", "contributed", "contributing", "pooled")
_YES, _NO = ("yes", "y", "true", "1"), ("no", "n", "false", "0")
GROUPS_LAYOUT = "lines of `run group`, or a CSV with `run` and `group` (or `team`) columns"


def _groups_text(source: Any) -> tuple[str, str, bool]:
    """(display name, text, whether it is a CSV) of a groups file: CRLF and CR-only files too,
    and a byte order mark dropped."""
    name = display_name(source)
    try:
        text = unify_line_ends(read_bytes(source)).decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(name, "not UTF-8 text, expected " + GROUPS_LAYOUT) from None
    first = next((line for line in text.split("\n") if line.strip()), "")
    return name, text, "," in first


def read_groups(source: Any) -> dict[str, str]:
    """{run: group} in file order, from a path or a dict.

    Example:
        >>> read_groups({"bm25": "anserini", "dense": "anserini"})
        {'bm25': 'anserini', 'dense': 'anserini'}
    """
    if isinstance(source, dict):
        return {str(k): str(v) for k, v in source.items()}
    name, text, is_csv = _groups_text(readable(source, "groups", "a dict {run: group}"))
    if is_csv:
        return _from_csv(text, name)
    out: dict[str, str] = {}
    for number, fields in data_lines(text.encode()):
        if len(fields) != 2:
            raise FormatError(name, number, f"{len(fields)} fields, expected `run group`")
        run, group = (f.decode() for f in fields)
        _add(out, run, group, name, number)
    if not out:
        raise InputError(name, "no runs, expected " + GROUPS_LAYOUT)
    return out


def read_contributors(source: Any) -> dict[str, bool] | None:
    """{run: contributed} from a groups CSV's contributing column (yes/no, true/false, 1/0);
    None when the source has no such column (a `run group` file, a dict, a CSV without it).

    Example:
        >>> import io
        >>> read_contributors(io.BytesIO(b"run,team,contributed judgments\\na,A,yes\\nb,A,no\\n"))
        {'a': True, 'b': False}
        >>> read_contributors({"a": "A"}) is None
        True
    """
    if isinstance(source, dict):
        return None
    name, text, is_csv = _groups_text(source)
    if not is_csv:
        return None
    records = csv_records(text, name, GROUPS_LAYOUT)
    header = [h.strip().lower() for h in next(records, (1, []))[1]]
    column = next((c for c in CONTRIBUTING_COLUMNS if c in header), None)
    if "run" not in header or column is None:
        return None
    r, c = header.index("run"), header.index(column)
    out: dict[str, bool] = {}
    for number, row in records:
        if not row or not any(cell.strip() for cell in row):
            continue
        value = row[c].strip().lower() if len(row) > c else ""
        if value not in _YES + _NO or len(row) <= r or not row[r].strip():
            raise FormatError(name, number, f"expected a run and yes or no in column "
                              f"{c + 1} ({column})")
        out[row[r].strip()] = value in _YES
    return out


def _from_csv(text: str, name: str) -> dict[str, str]:
    records = csv_records(text, name, GROUPS_LAYOUT)
    header = [h.strip().lower() for h in next(records, (1, []))[1]]
    column = next((c for c in ("group", "team") if c in header), None)
    if "run" not in header or column is None:
        raise FormatError(name, 1, "header lacks a `run` and a `group` or `team` column")
    r, g = header.index("run"), header.index(column)
    out: dict[str, str] = {}
    for number, row in records:
        if not row or not any(cell.strip() for cell in row):
            continue
        if len(row) <= max(r, g) or not row[r].strip() or not row[g].strip():
            raise FormatError(name, number, f"expected a run and a {column} in columns "
                              f"{r + 1} and {g + 1}")
        _add(out, row[r].strip(), row[g].strip(), name, number)
    return out


def _add(out: dict[str, str], run: str, group: str, name: str, number: int) -> None:
    if out.get(run, group) != group:
        raise FormatError(name, number, f"run {run!r} is already in group {out[run]!r}")
    out[run] = group
