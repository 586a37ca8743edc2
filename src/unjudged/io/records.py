"""Runs and qrels given as records: iterables of namedtuples (ir_measures' `ScoredDoc` and
`Qrel`, ir_datasets' records), objects with the same attributes, dicts, or plain tuples.

A record names its fields as ir_measures does (query_id, doc_id, score / relevance) or as
PyTerrier does (qid, docno, score / label); a plain tuple is read by position: (query_id,
doc_id, score) for a run, (query_id, doc_id, relevance) or ir_datasets' (query_id, doc_id,
relevance, iteration) for qrels.

Example:
    >>> from collections import namedtuple
    >>> ScoredDoc = namedtuple("ScoredDoc", "query_id doc_id score")
    >>> cols = record_columns([ScoredDoc("1", "d1", 2.0), ScoredDoc("1", "d2", 1.0)],
    ...                       RUN_FIELDS, "<x>")
    >>> cols["qid"], cols["docno"], cols["score"]
    (['1', '1'], ['d1', 'd2'], [2.0, 1.0])
    >>> record_columns([("1", "d1", 1, "0")], QRELS_FIELDS, "<x>")["group"]
    ['0']
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterable, Mapping
from typing import Any

from unjudged.data.qrels import Qrels
from unjudged.data.run import Run
from unjudged.errors import FormatError
from unjudged.io._frames import is_frame

# (column, the names a record may give it, its position in a plain tuple, required)
Field = tuple[str, tuple[str, ...], int, bool]
RUN_FIELDS: tuple[Field, ...] = (
    ("qid", ("query_id", "qid"), 0, True),
    ("docno", ("doc_id", "docno"), 1, True),
    ("score", ("score",), 2, True),
)
#: how a missing value of a required column is named in the error
_WHAT = {"qid": "query id", "docno": "document id", "score": "score", "grade": "relevance"}
QRELS_FIELDS: tuple[Field, ...] = (
    ("qid", ("query_id", "qid"), 0, True),
    ("docno", ("doc_id", "docno"), 1, True),
    ("grade", ("relevance", "label", "grade"), 2, True),
    ("group", ("iteration", "subtopic"), 3, False),
)


def converts_to_dict(source: Any) -> bool:
    """Whether `source` is an object (not a dict, path, text, frame or series) with a
    `to_dict()` method, as ranx's Run and Qrels: cheap, nothing is called."""
    if not callable(getattr(source, "to_dict", None)):
        return False
    if isinstance(source, (Mapping, str, bytes, os.PathLike)):
        return False
    return type(source).__name__ not in ("DataFrame", "Series") and \
        not hasattr(source, "to_arrow")


def nested_mapping(source: Any) -> dict[str, Any] | None:
    """The {qid: {docno: value}} of an object that converts itself with `.to_dict()` (ranx's
    Run and Qrels; ranx need not be installed), else None: a frame's or a series' `to_dict`
    gives something else and is never called.

    Example:
        >>> class Like:  # ranx.Run's interface
        ...     name = "bm25"
        ...     def to_dict(self):
        ...         return {"q1": {"d1": 1.5}}
        >>> nested_mapping(Like()), nested_mapping({"q1": {}}), nested_mapping([1])
        ({'q1': {'d1': 1.5}}, None, None)
    """
    if not converts_to_dict(source):
        return None
    data = source.to_dict()
    if not isinstance(data, Mapping) or not all(isinstance(v, Mapping) for v in data.values()):
        return None
    return {q: dict(v) for q, v in data.items()}


def is_records(source: Any) -> bool:
    """Whether `source` is an iterable of records (not a path, text, stream, dict or frame).

    Example:
        >>> is_records([("q", "d", 1.0)]), is_records(iter([])), is_records("run.txt")
        (True, True, False)
    """
    if isinstance(source, (str, bytes, bytearray, Mapping, os.PathLike)):
        return False
    if hasattr(source, "read") or is_frame(source):
        return False
    return isinstance(source, Iterable)


def first_is_record(items: Any) -> tuple[bool, Any]:
    """(whether the first item of `items` is a record, `items` with that item put back).

    Lists of sources (paths, Runs, frames) are not records; a tuple or namedtuple of plain
    values, or an object with a doc_id/docno attribute, is.
    """
    it = iter(items)
    first = next(it, None)
    rest = items if isinstance(items, (list, tuple)) else (
        it if first is None else itertools.chain([first], it))
    if first is None:
        return False, rest
    return _looks_like_record(first), rest


def _looks_like_record(item: Any) -> bool:
    if isinstance(item, (Run, Qrels)):  # a source, though it has a docno column
        return False
    if isinstance(item, tuple):
        return all(isinstance(v, (str, int, float)) or v is None for v in item)
    if isinstance(item, Mapping):
        return any(k in item for k in ("doc_id", "docno"))
    return any(hasattr(item, k) for k in ("doc_id", "docno"))


def record_columns(records: Iterable[Any], fields: tuple[Field, ...], source: str
                   ) -> dict[str, list[Any]]:
    """The columns of `records` as lists (a missing optional field: None; a missing value of
    a required one is a FormatError naming the record)."""
    out: dict[str, list[Any]] = {f[0]: [] for f in fields}
    getter = None
    for i, rec in enumerate(records):
        if getter is None:
            getter = _getter(rec, fields, source)
        try:
            values = getter(rec)
        except (AttributeError, KeyError, IndexError, TypeError):
            raise FormatError(source, None, f"record {i} ({_short(rec)}) is not like the "
                              f"first; expected {_expected(fields)}") from None
        for (col, *_), v in zip(fields, values, strict=True):
            out[col].append(v)
    for col, _, _, required in fields:
        missing = next((i for i, v in enumerate(out[col]) if v is None), None) if required \
            else None
        if missing is not None:
            raise FormatError(source, None, f"missing {_WHAT[col]} in record {missing}")
    return out


def _getter(rec: Any, fields: tuple[Field, ...], source: str):
    """How to take the fields out of records like `rec`: by name or by position."""
    if isinstance(rec, Mapping):
        keys = [_key(rec.keys(), f, source, rec) for f in fields]
        return lambda r: [r.get(k) if k is not None else None for k in keys]
    names = getattr(rec, "_fields", None)
    if names is not None or not isinstance(rec, (tuple, list)):
        have = names if names is not None else [n for f in fields for n in f[1]
                                                if hasattr(rec, n)]
        attrs = [_key(have, f, source, rec) for f in fields]
        return lambda r: [getattr(r, a) if a is not None else None for a in attrs]
    width = len(rec)
    need = sum(f[3] for f in fields)
    if width < need:
        raise FormatError(source, None, f"record 0 {_short(rec)} has {width} values; "
                          f"expected {_expected(fields)}")
    spots = [f[2] if f[2] < width else None for f in fields]
    return lambda r: [r[s] if s is not None else None for s in spots]


def _key(have: Iterable[str], field: Field, source: str, rec: Any) -> str | None:
    have = list(have)
    for n in field[1]:
        if n in have:
            return n
    if field[3]:
        raise FormatError(source, None, f"record 0 ({_short(rec)}) has no {field[1][0]} "
                          f"(fields: {', '.join(map(str, have)) or 'none'}); "
                          f"expected {_expected((field,))}")
    return None


def _expected(fields: tuple[Field, ...]) -> str:
    return ", ".join(" or ".join(f[1]) for f in fields if f[3])


def _short(rec: Any) -> str:
    text = repr(rec)
    return text if len(text) <= 80 else text[:77] + "..."
