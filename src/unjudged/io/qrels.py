"""Read qrels (`qid iter docno grade`) from files, DataFrames and dicts."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from unjudged.data._strings import intern_topics, numpy_of, sorted_vocabulary
from unjudged.data.qrels import Qrels
from unjudged.errors import FormatError, InputError
from unjudged.io._columns import TOPIC_TYPE, load_table
from unjudged.io._source import display_name
from unjudged.io._validate import first_bad_int, row_error

QRELS_LAYOUT = "qid iter docno grade"
_NAMES = ["qid", "group", "docno", "grade"]


def read_qrels(source: Any) -> Qrels:
    """Read qrels from a path ('-' = stdin, compressed ok), a DataFrame or a dict.

    A DataFrame needs query_id (or qid), doc_id (or docno) and relevance (or grade) columns and
    optionally iteration/subtopic; a dict is {qid: {docno: grade}}.

    Example:
        >>> q = read_qrels({"q1": {"d1": 1, "d2": 0}})
        >>> q.topics, q.to_dict()
        (['q1'], {'q1': {'d1': 1, 'd2': 0}})
    """
    if isinstance(source, Qrels):
        return source
    if isinstance(source, dict):
        rows = [(str(q), "0", str(d), int(g)) for q, docs in source.items() for d, g in docs.items()]
        cols = list(zip(*rows)) if rows else [[], [], [], []]
        return build_qrels(*(pa.array(list(c), pa.string()) for c in cols[:3]),
                           pa.array(list(cols[3]), pa.int64()), source="<dict>")
    if type(source).__name__ == "DataFrame":
        return _from_frame(source)
    table, text, _ = load_table(source, _NAMES, QRELS_LAYOUT,
                                types={"grade": pa.int64(), "qid": TOPIC_TYPE})
    name = display_name(source)
    columns = {n: table[n] for n in _NAMES}
    del table
    parts = _encode(columns, name, text)
    return _assemble(*parts, source=name, data=text)


def build_qrels(qid, group, docno, grade, *, source: str, data: Any = None) -> Qrels:
    """Validate columns (Arrow arrays) and build the ad hoc view."""
    columns = {"qid": qid, "group": group, "docno": docno, "grade": grade}
    return _assemble(*_encode(columns, source, data), source=source, data=data)


def _encode(columns: dict[str, Any], source: str, data: Any):
    """The strings of qrels columns as codes: (topics, tcode, docs, dcode, group, grades).

    Each column is taken out of `columns` as it is encoded, so that its memory is free again
    before the documents are sorted (the reader's peak)."""
    if len(columns["docno"]) == 0:
        raise InputError(source, f"no judgments, expected lines of `{QRELS_LAYOUT}`")
    grades = _grades(columns.pop("grade"), source, data)
    topics, tcode = intern_topics(columns.pop("qid"))
    group = columns.pop("group")
    group = group.combine_chunks() if isinstance(group, pa.ChunkedArray) else group
    docs, dcode = sorted_vocabulary(columns.pop("docno"))
    return topics, tcode, docs, dcode, group, grades


def _assemble(topics, tcode, docs, dcode, group, grades, *, source: str, data: Any) -> Qrels:
    """The ad hoc view: one key per (topic, document), with its highest grade.

    One stable sort by (topic, document, group) serves both the check that no document is
    judged twice under one group with different grades and the ad hoc view.
    """
    _, gcode = sorted_vocabulary(group)
    width = int(gcode.max(initial=0)) + 1
    full = tcode.astype(np.int64) * len(docs) + dcode
    if width > 1:
        full = full * width + gcode
    order = np.argsort(full, kind="stable")
    full = full[order]
    sorted_grades = grades[order]
    clash = np.flatnonzero((full[1:] == full[:-1]) & (sorted_grades[1:] != sorted_grades[:-1]))
    if clash.size:
        row = int(max(order[clash[0]], order[clash[0] + 1]))
        raise row_error(source, data, row,
                        f"document {docs[int(dcode[row])].as_py()!r} of topic "
                        f"{topics[tcode[row]]!r} is judged twice with different grades")
    del order
    if width > 1:
        full //= width
    first = np.ones(full.size, dtype=bool)
    first[1:] = full[1:] != full[:-1]
    starts = np.flatnonzero(first)
    keys = full[starts]
    del full, first
    key_grades = np.maximum.reduceat(sorted_grades, starts).astype(np.int32)
    counts = np.bincount(keys // max(len(docs), 1), minlength=len(topics))
    offsets = np.zeros(len(topics) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return Qrels(topics=topics, docs=docs, tcode=tcode, dcode=dcode, group=group, grade=grades,
                 keys=keys, key_grades=key_grades, topic_offsets=offsets, source=source)


def _grades(column, path: str, data: Any) -> np.ndarray:
    """The grades as int32 (half the memory of int64; no relevance scale comes near 2^31)."""
    if pa.types.is_integer(column.type):
        grades = np.asarray(numpy_of(column), dtype=np.int64)
    else:
        import pyarrow.compute as pc  # grades the reader could not convert

        try:
            grades = numpy_of(pc.cast(column, pa.int64())).astype(np.int64)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            row, msg = first_bad_int(column.to_pylist())
            raise row_error(path, data, row,
                            msg + ", expected an integer grade in column 4") from None
    small = np.iinfo(np.int32)
    outside = np.flatnonzero((grades < small.min) | (grades > small.max))
    if outside.size:
        raise row_error(path, data, int(outside[0]),
                        f"grade {int(grades[outside[0]])} is out of range, expected an integer "
                        f"grade from {small.min} to {small.max} in column 4")
    return grades.astype(np.int32)


def _from_frame(frame) -> Qrels:
    def pick(names, what, required=True):
        for n in names:
            if n in frame.columns:
                return frame[n]
        if required:
            raise FormatError("<DataFrame>", None,
                              f"no {what} column (expected one of {', '.join(names)})")
        return None

    q = pick(("query_id", "qid", "topic"), "query id")
    d = pick(("doc_id", "docno", "doc"), "document id")
    g = pick(("relevance", "grade", "rel", "label"), "relevance")
    it = pick(("iteration", "subtopic", "iter", "group"), "iteration", required=False)
    group = it.astype(str) if it is not None else ["0"] * len(frame)
    return build_qrels(pa.array(q.astype(str)), pa.array(group, pa.string()),
                       pa.array(d.astype(str)), pa.array(g.astype("int64")), source="<DataFrame>")
