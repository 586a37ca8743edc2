"""Read qrels (`qid iter docno grade`) from files, DataFrames and dicts."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from unjudged.data._strings import intern_topics, numpy_of
from unjudged.data.qrels import Qrels
from unjudged.errors import FormatError, InputError
from unjudged.io._columns import load_table
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
    table, text, _ = load_table(source, _NAMES, QRELS_LAYOUT)
    return build_qrels(table["qid"], table["group"], table["docno"], table["grade"],
                       source=display_name(source), data=text)


def build_qrels(qid, group, docno, grade, *, source: str, data: Any = None) -> Qrels:
    """Validate columns (Arrow arrays) and build the ad hoc view."""
    if len(qid) == 0:
        raise InputError(source, f"no judgments, expected lines of `{QRELS_LAYOUT}`")
    grades = _grades(grade, source, data)
    topics, tcode = intern_topics(qid)
    enc = pc.dictionary_encode(docno)
    if isinstance(enc, pa.ChunkedArray):
        enc = enc.combine_chunks()
    docs = enc.dictionary
    dcode = numpy_of(enc.indices).astype(np.int64)
    gcodes = pc.dictionary_encode(group)
    if isinstance(gcodes, pa.ChunkedArray):
        gcodes = gcodes.combine_chunks()
    gcode = numpy_of(gcodes.indices).astype(np.int64)
    key = tcode.astype(np.int64) * len(docs) + dcode
    _check_conflicts(key, gcode, grades, source, data, topics, docs, tcode, dcode)
    order = np.lexsort((grades, key))
    sk = key[order]
    last = np.ones(sk.size, dtype=bool)
    last[:-1] = sk[1:] != sk[:-1]
    keys = sk[last]
    key_grades = grades[order][last]  # the highest grade per (topic, doc): sorted ascending
    counts = np.bincount(keys // max(len(docs), 1), minlength=len(topics))
    offsets = np.zeros(len(topics) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    if isinstance(group, pa.ChunkedArray):
        group = group.combine_chunks()
    return Qrels(topics=topics, docs=docs, tcode=tcode, dcode=dcode, group=group, grade=grades,
                 keys=keys, key_grades=key_grades.astype(np.int32), topic_offsets=offsets,
                 source=source)


def _check_conflicts(key, gcode, grades, source, data, topics, docs, tcode, dcode) -> None:
    """The same (topic, group, doc) judged twice with different grades is an error."""
    full = key * (int(gcode.max(initial=0)) + 1) + gcode
    order = np.lexsort((grades, full))
    sf, sg = full[order], grades[order]
    clash = np.flatnonzero((sf[1:] == sf[:-1]) & (sg[1:] != sg[:-1]))
    if clash.size:
        row = int(max(order[clash[0]], order[clash[0] + 1]))
        raise row_error(source, data, row,
                        f"document {docs[int(dcode[row])].as_py()!r} of topic "
                        f"{topics[tcode[row]]!r} is judged twice with different grades")


def _grades(column, path: str, data: Any) -> np.ndarray:
    if pa.types.is_integer(column.type):
        return np.asarray(numpy_of(column), dtype=np.int64)
    try:
        return numpy_of(pc.cast(column, pa.int64())).astype(np.int64)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        row, msg = first_bad_int(column.to_pylist())
        raise row_error(path, data, row, msg + ", expected an integer grade in column 4") from None


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
