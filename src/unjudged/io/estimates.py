"""Read relevance estimates made elsewhere (an LLM judge, a cross-encoder, autoqrels): per
(topic, document) a distribution over grades.

Three layouts, told apart by the first data line:

- ``topic docno p``: the probability that the document is relevant (0..1): grade 0 with
  1 - p, and p on grade 1 here (`relevance_only`: the prior spreads p over the relevant grades
  as the topic's judged relevant documents are spread);
- ``topic docno g0:p0,g1:p1,...``: a distribution over grades (the probabilities must sum to 1,
  within 1e-6);
- ``topic iter docno grade``: inferred qrels with fractional grades (autoqrels and the like): a
  grade of 1.3 is grade 1 with 0.7 and grade 2 with 0.3 (the mean stays 1.3).

Every line must have the layout of the first; a (topic, document) may appear once. Errors name
the file, the line and what was expected.

Example:
    >>> e = read_estimates(b"1 d1 0.8\\n1 d2 0.25\\n")
    >>> e.docno.to_pylist(), e.dist.round(2).tolist()
    (['d1', 'd2'], [[0.2, 0.8], [0.75, 0.25]])
    >>> read_estimates(b"1 d1 0:0.5,2:0.5\\n").dist.tolist()
    [[0.5, 0.0, 0.5]]
    >>> read_estimates(b"1 0 d1 1.25\\n").dist.tolist()
    [[0.0, 0.75, 0.25]]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from unjudged.errors import FormatError, InputError
from unjudged.io._columns import read_columns
from unjudged.io._source import display_name, read_bytes, text_lines

LAYOUTS = ("`topic docno p`, `topic docno g0:p0,g1:p1,...` or `topic iter docno grade` "
           "(fractional grades)")
MAX_GRADE = 100  #: grades above this are refused (a distribution is held per grade)


@dataclass(eq=False)
class ExternalEstimates:
    """One entry per (topic, document): `dist` (entries, levels) its grade probabilities.
    `relevance_only`: the file gave probabilities of relevance (dist[:, 1] holds them), not
    grades."""

    topic: pa.Array
    docno: pa.Array
    dist: np.ndarray
    source: str
    relevance_only: bool = False

    def __len__(self) -> int:
        return int(self.dist.shape[0])


def read_estimates(source: Any) -> ExternalEstimates:
    """Estimates from a path ('-' = stdin, compressed ok) or bytes, in one of the LAYOUTS (or
    ExternalEstimates already made, returned as they are)."""
    if isinstance(source, ExternalEstimates):
        return source
    path = display_name(source) if not isinstance(source, bytes) else "<bytes>"
    data = source if isinstance(source, bytes) else read_bytes(source)
    first = next(text_lines(data, path), None)
    if first is None:
        raise InputError(path, f"no estimates, expected lines of {LAYOUTS}")
    number, fields = first
    if len(fields) == 3:
        t = read_columns(data, path, ["qid", "docno", "value"], "topic docno estimate")
        values = t["value"]
        only = not any(b":" in f for f in fields[2:])
        dist = _probabilities(values, data, path) if only else \
            _distributions(values, data, path)
    elif len(fields) == 4:
        t = read_columns(data, path, ["qid", "iter", "docno", "value"],
                         "topic iter docno grade")
        dist = _fractional(t["value"], data, path)
        only = False
    else:
        raise FormatError(path, number, f"expected {LAYOUTS}, found {len(fields)} columns")
    topic, docno = _strings(t["qid"]), _strings(t["docno"])
    _check_once(topic, docno, data, path)
    return ExternalEstimates(topic, docno, dist, path, only)


def _strings(column: Any) -> pa.Array:
    c = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    return c.cast(pa.string())


def _floats(column: Any, data: bytes, path: str, what: str, col: int) -> np.ndarray:
    try:
        return np.asarray(pc.cast(column, pa.float64()).to_numpy(zero_copy_only=False),
                          dtype=float)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        raise _bad_line(data, path, col, lambda f: _number(f) is None,
                        f"{what} must be a number") from None


def _number(text: str) -> float | None:
    try:
        v = float(text)
    except ValueError:
        return None
    return v if np.isfinite(v) else None


def _bad_line(data: bytes, path: str, col: int, bad, why: str) -> FormatError:
    """The first data line whose field `col` is `bad`, as a FormatError."""
    for number, fields in text_lines(data, path):
        text = fields[col].decode("utf-8", "replace") if col < len(fields) else ""
        if bad(text):
            return FormatError(path, number, f"{why}, not {text!r}; expected {LAYOUTS}")
    return FormatError(path, 1, f"{why}; expected {LAYOUTS}")


def _probabilities(column: Any, data: bytes, path: str) -> np.ndarray:
    p = _floats(column, data, path, "a probability", 2)
    if np.any(~np.isfinite(p) | (p < 0) | (p > 1)):
        raise _bad_line(data, path, 2, lambda f: not (_number(f) is not None
                                                      and 0 <= float(f) <= 1),
                        "a probability must lie in [0, 1]")
    return np.stack([1.0 - p, p], axis=1)


def _fractional(column: Any, data: bytes, path: str) -> np.ndarray:
    g = _floats(column, data, path, "a grade", 3)
    if np.any(~np.isfinite(g) | (g < 0) | (g > MAX_GRADE)):
        raise _bad_line(data, path, 3, lambda f: not (_number(f) is not None
                                                      and 0 <= float(f) <= MAX_GRADE),
                        f"an inferred grade must lie in [0, {MAX_GRADE}]")
    low = np.floor(g).astype(np.int64)
    frac = g - low
    levels = int(np.ceil(g.max(initial=0))) + 1
    out = np.zeros((g.size, max(levels, 2)))
    rows = np.arange(g.size)
    out[rows, low] = 1.0 - frac
    np.add.at(out, (rows, np.minimum(low + 1, out.shape[1] - 1)), frac)
    return out


def _distributions(column: Any, data: bytes, path: str) -> np.ndarray:
    """`g:p,g:p` per line (parsed line by line: a distribution is a small nested value)."""
    texts = _strings(column).to_pylist()
    parsed: list[dict[int, float]] = []
    for i, text in enumerate(texts):
        one = _distribution(str(text))
        if one is None:
            raise _nth_line(data, path, i, f"expected a distribution g0:p0,g1:p1,... with "
                            f"integer grades 0..{MAX_GRADE} and probabilities summing to 1, "
                            f"not {text!r}")
        parsed.append(one)
    levels = max(max(d) for d in parsed) + 1
    out = np.zeros((len(parsed), max(levels, 2)))
    for i, d in enumerate(parsed):
        for g, p in d.items():
            out[i, g] = p
    return out


def _distribution(text: str) -> dict[int, float] | None:
    out: dict[int, float] = {}
    for part in text.split(","):
        g, sep, p = part.partition(":")
        try:
            grade, prob = int(g), float(p)
        except ValueError:
            return None
        if not sep or grade < 0 or grade > MAX_GRADE or not 0 <= prob <= 1 or grade in out:
            return None
        out[grade] = prob
    return out if abs(sum(out.values()) - 1.0) <= 1e-6 else None


def _nth_line(data: bytes, path: str, row: int, why: str) -> FormatError:
    """FormatError at the line of data row `row` (0-based, comments and blanks skipped)."""
    for i, (number, _) in enumerate(text_lines(data, path)):
        if i == row:
            return FormatError(path, number, why)
    return FormatError(path, 1, why)


def _check_once(topic: pa.Array, docno: pa.Array, data: bytes, path: str) -> None:
    pairs = pa.table({"t": topic, "d": docno})
    if pairs.group_by(["t", "d"]).aggregate([]).num_rows == pairs.num_rows:
        return
    seen: set[tuple[Any, Any]] = set()  # only on error: name the first repeat
    for i, pair in enumerate(zip(topic.to_pylist(), docno.to_pylist(), strict=True)):
        if pair in seen:
            raise _nth_line(data, path, i, f"topic {pair[0]} document {pair[1]} has a second "
                            "estimate; each (topic, document) may appear once")
        seen.add(pair)
