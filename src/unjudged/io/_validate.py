"""The reading rules for numbers and lines, and the error path that names the first bad line.

Numbers are read as trec_eval 10 reads them where it reads them completely: a score is a
decimal number (atof's value; "+1", ".5", "1e3", "007" are fine), a grade a decimal integer with
an optional sign (atol's value; "+1" is 1). What trec_eval reads only in part or as a silent 0
is refused with the line: "0x10" (trec_eval: grade 0), "1.5" as a grade (trec_eval: 1), "NA",
"null", an empty field. Hexadecimal scores, and scores that are not finite ("nan", "inf", and
"1e400", which overflows), are refused too; grades must fit in 32 bits.

The fast readers find that *something* is wrong with vectorised checks; `first_bad_line` then
walks the lines (only on this error path) so that the message always names the first bad line
in file order, whatever makes it bad.
"""

from __future__ import annotations

import math
import re
from typing import Any

from unjudged._records import frozen
from unjudged.errors import FormatError
from unjudged.io._source import data_lines

# compiled on first use (re caches them): only a refused field needs them
_DECIMAL = rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
_INTEGER = rb"[+-]?[0-9]+"
GRADE_RANGE = (-(2**31), 2**31 - 1)


@frozen
class Layout:
    """What a line of a format holds: `columns` fields (more allowed with `extra_ok`), ids
    that must be UTF-8, the number's column and kind, and the fields that key a row: a key may
    appear once (`once`) or again only with the same number."""

    text: str
    columns: int
    extra_ok: bool
    ids: tuple[int, ...]
    number: int | None = None
    kind: str = ""  # "score" or "grade"
    key: tuple[int, ...] = ()
    once: bool = False
    stratum: int | None = None  # a (topic, docno) lies in one stratum only
    integers: tuple[int, ...] = ()  # other fields that must be integers (a run's ranks)


RUN = Layout("qid Q0 docno rank score tag", 6, True, (0, 2), 4, "score", (0, 2), True)
RANKED_RUN = Layout(RUN.text, 6, True, (0, 2), 4, "score", (0, 2), True, integers=(3,))
QRELS = Layout("qid iter docno grade", 4, False, (0, 1, 2), 3, "grade", (0, 1, 2), False)
SAMPLED = Layout("topic iter docno stratum grade", 5, False, (0, 1, 2, 3), 4, "grade",
                 (0, 1, 2), False, stratum=3)
PRELS = Layout("topic docno grade method probability", 5, False, (0, 1, 3), 2, "grade",
               (0, 1), False)


def score_problem(text: bytes | str) -> str | None:
    """Why a score field is refused, or None when it is fine.

    >>> [score_problem(t) for t in ("+1", ".5", "1e3", "-0")]
    [None, None, None, None]
    >>> score_problem("0x10"), score_problem("1e400")
    ("score '0x10' is not a number", "score '1e400' is not a finite number")
    """
    raw = text.encode("utf-8", "replace") if isinstance(text, str) else text
    shown = raw.decode("utf-8", "replace")
    if raw.lower().lstrip(b"+-") in (b"nan", b"inf", b"infinity"):
        return f"score {shown!r} is not a finite number"
    if not re.fullmatch(_DECIMAL, raw):
        return f"score {shown!r} is not a number"
    if not math.isfinite(float(raw)):
        return f"score {shown!r} is not a finite number"
    return None


def grade_problem(text: bytes | str, what: str = "grade") -> str | None:
    """Why a grade field is refused, or None when it is fine.

    >>> grade_problem("+1") is None, grade_problem("0x10")
    (True, "grade '0x10' is not an integer (trec_eval would read 0)")
    """
    raw = text.encode("utf-8", "replace") if isinstance(text, str) else text
    shown = raw.decode("utf-8", "replace")
    if not re.fullmatch(_INTEGER, raw):
        taken = re.match(rb"\s*[+-]?[0-9]*", raw)  # what C's atol would take (always matches)
        lead = taken.group() if taken else b""
        atol = int(lead) if lead.strip(b" +-") else 0
        return f"{what} {shown!r} is not an integer (trec_eval would read {atol})"
    digits = raw.lstrip(b"+-").lstrip(b"0")  # a long run of digits never reaches int()
    if len(digits) > 10 or not GRADE_RANGE[0] <= int(raw) <= GRADE_RANGE[1]:
        return f"{what} {shown!r} is out of range ({GRADE_RANGE[0]} to {GRADE_RANGE[1]})"
    return None


def grade_value(text: str) -> int | None:
    """The grade a (dictionary) value stands for, or None when it is refused."""
    return None if grade_problem(text) else int(text)


def first_bad_line(data: Any, path: str, layout: Layout) -> FormatError | None:
    """The first line (in file order) that breaks a rule of `layout`, or None.

    `data` is the text or a function that reads it again. Loops over lines: error path only.
    """
    if data is None:
        return None
    data = data() if callable(data) else data
    if b"\x00" in data:
        first_nul = data.index(b"\x00")
        from unjudged.io._source import line_number_at

        nul_line = line_number_at(data, first_nul)
    else:
        nul_line = None
    seen: dict[tuple[bytes, ...], bytes] = {}
    strata: dict[tuple[bytes, bytes], bytes] = {}
    for number, fields in data_lines(data):
        if nul_line is not None and nul_line <= number:
            break
        problem = _line_problem(fields, layout)
        if problem is None and layout.number is not None:
            key = tuple(fields[i] for i in layout.key)
            value = fields[layout.number]
            before = seen.get(key)
            if before is None:
                seen[key] = value
            elif layout.once:
                problem = (f"docno {fields[2].decode()!r} appears twice in topic "
                           f"{fields[0].decode()!r}; each document may be ranked once per topic")
            elif int(before) != int(value):
                problem = (f"document {fields[2].decode()!r} of topic {fields[0].decode()!r} "
                           "is judged twice with different grades")
            if problem is None and layout.stratum is not None:
                label = strata.setdefault((fields[0], fields[2]), fields[layout.stratum])
                if label != fields[layout.stratum]:
                    problem = (f"document {fields[2].decode()!r} of topic "
                               f"{fields[0].decode()!r} is in two strata ({label.decode()!r} "
                               f"and {fields[layout.stratum].decode()!r})")
        if problem is not None:
            return FormatError(path, number, problem)
    if nul_line is not None:
        return FormatError(path, nul_line, "binary data (NUL byte), expected a text file")
    return None


def _line_problem(fields: list[bytes], layout: Layout) -> str | None:
    n = len(fields)
    if n < layout.columns or (n > layout.columns and not layout.extra_ok):
        return f"expected {layout.columns} columns `{layout.text}`, found {n}"
    try:
        for i in layout.ids:
            fields[i].decode("utf-8")
    except UnicodeDecodeError:
        return "not UTF-8 text (binary data?)"
    for i in layout.integers:
        problem = grade_problem(fields[i], "rank")
        if problem:
            return f"{problem}, expected an integer rank in column {i + 1}"
    if layout.number is None:
        return None
    where = f" in column {layout.number + 1}"
    if layout.kind == "score":
        problem = score_problem(fields[layout.number])
        return None if problem is None else f"{problem}, expected a number{where}"
    problem = grade_problem(fields[layout.number])
    return None if problem is None else f"{problem}, expected an integer grade{where}"


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


def first_bad_float(values: list[Any]) -> tuple[int, str]:
    """(index, message) of the first value that is not an acceptable score, or (-1, "")."""
    for i, v in enumerate(values):
        if v is None:
            return i, "score '' is not a number"
        problem = score_problem(v) if isinstance(v, (str, bytes)) else (
            None if math.isfinite(v) else f"score {v!r} is not a finite number")
        if problem:
            return i, problem
    return -1, ""


def first_bad_int(values: list[Any], what: str = "grade") -> tuple[int, str]:
    """(index, message) of the first value that is not an acceptable integer, or (-1, "")."""
    for i, v in enumerate(values):
        problem = f"{what} {v!r} is missing" if v is None else grade_problem(str(v), what)
        if problem:
            return i, problem
    return -1, ""


def row_error(path: str, data: Any, row: int, message: str,
              layout: Layout | None = None) -> FormatError:
    """The error for data row `row`, unless (with `layout`) an earlier line is bad: then that
    line's error, so that the message always names the first bad line."""
    if layout is not None:
        earlier = first_bad_line(data, path, layout)
        if earlier is not None:
            return earlier
    return FormatError(path, line_of_row(data, row), message)


#: a score as text: what TREC text and every table column holds
SCORE_TEXT = r"^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$"


def grade_number(value: Any, source: str, strict: bool = False) -> int:
    """A grade given as a Python value: an integer, or text by the file rules (`strict`: a
    value from a file, where a float such as 1.0 is no grade, as in TREC text)."""
    import numpy as np

    integral = (isinstance(value, (int, np.integer))
                and not isinstance(value, (bool, np.bool_))) or (
        not strict and isinstance(value, (float, np.floating)) and math.isfinite(value)
        and float(value).is_integer())
    text = str(int(value)) if integral else str(value)  # a number is then checked for range
    problem = grade_problem(text)
    if problem:
        raise FormatError(source, None, f"{problem}, expected an integer grade")
    return int(text)


def score_number(value: Any, source: str) -> float:
    """A score given as a Python value: a number, or text by the file rules."""
    import numpy as np

    if isinstance(value, (bool, np.bool_)):  # True is no score (a TREC field "true" is not)
        raise FormatError(source, None, f"score {value!r} is not a number, expected a number")
    if isinstance(value, (str, bytes)):
        problem = score_problem(value)
        if problem:
            raise FormatError(source, None, f"{problem}, expected a number")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise FormatError(source, None, f"score {value!r} is not a number") from None
