"""DataFrame columns read by the rules of a TREC file's fields, whatever their type.

A table's cells arrive as text (CSV, TSV, JSONL numbers), as typed columns (Parquet, a pandas
or polars frame in memory), or as Python objects. Text is read as unjudged.io._validate reads a
TREC field; a typed column must hold what that text could: an id is text or an integer (not a
list, a float or a boolean), a score a finite number (not a boolean), a grade an integer that
fits in 32 bits (a uint64 2^64-1 is out of range, not -1). Only a frame built in Python may give
grades as integral floats (pandas turns integers into floats around a missing value); a file's
grade 1.0 is refused, as in TREC text.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from unjudged.errors import FormatError
from unjudged.io._validate import (
    GRADE_RANGE,
    SCORE_TEXT,
    grade_number,
    grade_problem,
    score_number,
    score_problem,
)


def is_frame(obj: Any) -> bool:
    """Whether `obj` is a table as_pandas takes (without converting it)."""
    return (type(obj).__name__ == "DataFrame" and hasattr(obj, "iloc")) or (
        callable(getattr(obj, "to_arrow", None)) and hasattr(obj, "columns")) or isinstance(
        obj, pa.Table)


def as_pandas(obj: Any) -> Any | None:
    """`obj` as a pandas DataFrame when it is a table (pandas, polars or anything with
    `.to_arrow()`, a pyarrow Table), else None. polars need not be installed: its frames are
    recognised by their `to_arrow` method.

    Example:
        >>> import pyarrow as pa
        >>> as_pandas(pa.table({"qid": ["1"]})).columns.tolist(), as_pandas({"q": {}})
        (['qid'], None)
    """
    if type(obj).__name__ == "DataFrame" and hasattr(obj, "iloc"):
        frame = obj  # pandas
    elif callable(getattr(obj, "to_arrow", None)) and hasattr(obj, "columns"):
        frame = obj.to_arrow().to_pandas()  # polars (and other Arrow-backed frames)
    elif isinstance(obj, pa.Table):
        frame = obj.to_pandas()
    else:
        return None
    twice = frame.columns[frame.columns.duplicated()]
    if len(twice):  # frame[name] would be a frame, not a column
        raise FormatError("<DataFrame>", None, f"column {twice[0]!r} appears twice; expected "
                          "each column named once")
    return frame


def id_column(series: Any, what: str, source: str) -> pa.Array:
    """A query or document id column as strings: text or integers, none missing or empty."""
    import pandas as pd

    name = series.name
    missing = np.flatnonzero(series.isna().to_numpy())
    if missing.size:
        raise FormatError(source, None, f"missing {what} in row {int(missing[0])} "
                          f"(column {name})")
    kind = series.dtype.kind
    if isinstance(series.dtype, pd.CategoricalDtype):
        kind = series.cat.categories.dtype.kind
    inferred = pd.api.types.infer_dtype(series, skipna=False)
    if not (kind in "iu" or inferred in ("string", "integer", "mixed-integer", "empty")):
        value = _first_odd(series.tolist())
        raise FormatError(source, None, f"{what} {value!r} in column {name} is not text or an "
                          f"integer ({inferred} values); expected text ids")
    import pyarrow.compute as pc

    if kind in "iu":
        text = pa.array(series.to_numpy()).cast(pa.string())
    elif inferred == "string":
        text = pa.array(series.to_numpy(dtype=object), pa.string())
    else:
        text = pa.array([str(v) for v in series.tolist()], pa.string())
    empty = pc.equal(pc.utf8_length(pc.utf8_trim_whitespace(text)),
                     pa.scalar(0, pa.int32()))
    if pc.any(empty).as_py():
        row = int(np.flatnonzero(empty.to_numpy(zero_copy_only=False))[0])
        raise FormatError(source, None, f"empty {what} in row {row} (column {name})")
    return text


def _first_odd(values: list[Any]) -> Any:
    odd = next((v for v in values if isinstance(v, bool) or not isinstance(v, (str, int))),
               values[0] if values else None)
    tolist = getattr(odd, "tolist", None)
    return tolist() if tolist is not None else odd  # a numpy array: as a list


def _where(row: int, name: Any) -> str:
    return f"in row {row} (column {name})"


def score_column(series: Any, source: str) -> pa.Array:
    """Scores as float64: numbers must be finite, text is read by the file rules."""
    import pandas as pd

    kind = series.dtype.kind
    if kind in "iuf":
        values = series.to_numpy().astype(np.float64)
    elif kind != "b" and pd.api.types.infer_dtype(series, skipna=False) == "string":
        import pyarrow.compute as pc

        text = pa.array(series.to_numpy(dtype=object), pa.string())
        good = pc.match_substring_regex(text, SCORE_TEXT)
        numbers = pc.cast(pc.if_else(good, text, "nan"), pa.float64())
        values = np.asarray(numbers.to_numpy(zero_copy_only=False))  # type: ignore[attr-defined]
        bad = np.flatnonzero(~np.isfinite(values))  # refused text, or beyond float's range
        if bad.size:
            row = int(bad[0])
            raise FormatError(source, None, f"{score_problem(text[row].as_py())} "
                              f"{_where(row, series.name)}, expected a number")
    else:
        values = np.empty(len(series), dtype=np.float64)
        for row, v in enumerate(series.tolist()):
            try:
                values[row] = score_number(v, source)
            except FormatError as exc:
                raise FormatError(source, None, f"{exc.message.split(', expected')[0]} "
                                  f"{_where(row, series.name)}, expected a number") from None
    infinite = np.flatnonzero(~np.isfinite(values))
    if infinite.size:
        row = int(infinite[0])
        raise FormatError(source, None, f"score {series.iloc[row]!r} is not a finite number "
                          f"{_where(row, series.name)}")
    return pa.array(values)


def grade_column(series: Any, source: str, strict: bool) -> pa.Array:
    """Grades as int64, range-checked, by the file rules. `strict` (a file) refuses floats; a
    frame built in Python may give integral floats."""
    import pandas as pd

    kind = series.dtype.kind
    values = series.to_numpy()
    if kind in "iu":
        low, high = GRADE_RANGE
        outside = np.flatnonzero(values > high) if kind == "u" else \
            np.flatnonzero((values < low) | (values > high))
        if outside.size:
            row = int(outside[0])
            raise FormatError(source, None, f"{grade_problem(str(values[row]))} "
                              f"{_where(row, series.name)}, expected an integer grade")
        return pa.array(values.astype(np.int64))
    if kind == "f" and not strict and np.all(np.isfinite(values) & (values % 1 == 0)
                                              & (np.abs(values) < 2.0**53)):
        return grade_column(pd.Series(values.astype(np.int64), name=series.name), source, True)
    texts = kind not in "bf" and pd.api.types.infer_dtype(series, skipna=False) == "string"
    cache: dict[Any, int] = {}  # a handful of distinct grades: each checked once
    out = np.empty(len(series), dtype=np.int64)
    for row, v in enumerate(series.tolist()):
        key = (type(v), v) if texts or isinstance(v, (str, int, float)) else None
        if key is not None and key in cache:
            out[row] = cache[key]
            continue
        try:
            out[row] = grade_number(v, source, strict)
        except FormatError as exc:
            raise FormatError(source, None, f"{exc.message.split(', expected')[0]} "
                              f"{_where(row, series.name)}, expected an integer grade") from None
        if key is not None:
            cache[key] = int(out[row])
    return pa.array(out)
