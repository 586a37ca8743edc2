"""Read qrels (`qid iter docno grade`) from files, DataFrames and dicts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

import numpy as np
import pyarrow as pa

from unjudged.data._strings import intern_topics, numpy_of, sorted_vocabulary
from unjudged.data.qrels import Qrels
from unjudged.errors import FormatError, InputError
from unjudged.io import irds
from unjudged.io._columns import TOPIC_TYPE, load_table
from unjudged.io._csv import read_frame
from unjudged.io._frames import as_pandas
from unjudged.io._source import display_name, readable
from unjudged.io._validate import (
    QRELS,
    Layout,
    grade_number,
    grade_problem,
    grade_value,
    row_error,
)
from unjudged.io.irds import dataset_name, is_irds_source
from unjudged.io.paths import not_trec, tabular_kind
from unjudged.io.records import QRELS_FIELDS, is_records, nested_mapping, record_columns

QRELS_LAYOUT = "qid iter docno grade"
_NAMES = ["qid", "group", "docno", "grade"]


def read_qrels(source: Any) -> Qrels:
    """Read qrels from a path ('-' = stdin, compressed ok), a DataFrame or a dict.

    A DataFrame needs query_id (or qid), doc_id (or docno) and relevance (or grade, label)
    columns and optionally iteration/subtopic; a dict is {qid: {docno: grade}}. Also: an
    iterable of records (ir_measures' `Qrel`, ir_datasets' qrels, namedtuples, objects or dicts
    with those fields, tuples (qid, docno, grade[, iteration])), ranx's `Qrels` (anything whose
    `to_dict()` gives {qid: {docno: grade}}), an ir_datasets dataset
    (anything with `qrels_iter()`) or `irds:<dataset id>`, and files with a header in
    ir_measures' or PyTerrier's column names: CSV, TSV, JSONL, Parquet.

    Example:
        >>> q = read_qrels({"q1": {"d1": 1, "d2": 0}})
        >>> q.topics, q.to_dict()
        (['q1'], {'q1': {'d1': 1, 'd2': 0}})
    """
    if isinstance(source, Qrels):
        return source
    if isinstance(source, dict):
        odd = next(((q, v) for q, v in source.items() if not isinstance(v, Mapping)), None)
        if odd is not None:
            raise FormatError("<dict>", None, f"topic {odd[0]!r} maps to "
                              f"{type(odd[1]).__name__} {str(odd[1])[:40]}, expected a dict "
                              "{qid: {docno: grade}}")
        rows = [(str(q), "0", str(d), grade_number(g, "<dict>")) for q, docs in source.items()
                for d, g in docs.items()]
        cols: list[Sequence[Any]] = list(zip(*rows, strict=True)) if rows else [[], [], [], []]
        qid, group, docno = (pa.array(list(c), pa.string()) for c in cols[:3])
        return build_qrels(qid, group, docno, pa.array(list(cols[3]), pa.int64()),
                           source="<dict>")
    frame = as_pandas(source)
    if frame is not None:
        return _from_frame(frame)
    ranx = nested_mapping(source)  # ranx's Qrels, or anything with a .to_dict() like it
    if ranx is not None:
        return read_qrels(ranx)
    if is_irds_source(source):
        return _from_records(irds.records(source, "qrels"), dataset_name(source))
    if is_records(source):
        return _from_records(source, "<records>")
    source = readable(source, "qrels", "Qrels, a DataFrame, a dict {qid: {docno: grade}}, "
                      "records or irds:<id>")
    kind = tabular_kind(source)
    if kind is not None:
        return _from_frame(read_frame(source, kind), display_name(source), strict=True)
    # grades come dictionary-encoded (a handful of distinct values), so that each distinct
    # text is checked by the rules of unjudged.io._validate: Arrow's own integer parser would
    # read "0x10" as 16, where trec_eval reads 0
    try:
        table, text, _ = load_table(source, _NAMES, QRELS, types={"grade": TOPIC_TYPE,
                                                                  "qid": TOPIC_TYPE})
    except FormatError as exc:
        raise not_trec(exc, source, QRELS_LAYOUT) from None
    name = display_name(source)
    columns = {n: table[n] for n in _NAMES}
    del table
    parts = _encode(columns, name, text, QRELS)
    return _assemble(*parts, source=name, data=text, layout=QRELS)


def build_qrels(qid, group, docno, grade, *, source: str, data: Any = None,
                layout: Layout = QRELS) -> Qrels:
    """Validate columns (Arrow arrays) and build the ad hoc view. `data` (the text, to name a
    bad line) has lines of `layout`."""
    columns = {"qid": qid, "group": group, "docno": docno, "grade": grade}
    return _assemble(*_encode(columns, source, data, layout), source=source, data=data,
                     layout=layout)


def _encode(columns: dict[str, Any], source: str, data: Any, layout: Layout):
    """The strings of qrels columns as codes: (topics, tcode, docs, dcode, group, grades).

    Each column is taken out of `columns` as it is encoded, so that its memory is free again
    before the documents are sorted (the reader's peak)."""
    if len(columns["docno"]) == 0:
        raise InputError(source, f"no judgments, expected lines of `{QRELS_LAYOUT}`")
    grades = _grades(columns.pop("grade"), source, data, layout)
    topics, tcode = intern_topics(columns.pop("qid"))
    group = columns.pop("group")
    group = group.combine_chunks() if isinstance(group, pa.ChunkedArray) else group
    docs, dcode = sorted_vocabulary(columns.pop("docno"))
    return topics, tcode, docs, dcode, group, grades


def _assemble(topics, tcode, docs, dcode, group, grades, *, source: str, data: Any,
              layout: Layout) -> Qrels:
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
                        f"{topics[tcode[row]]!r} is judged twice with different grades",
                        layout)
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


def _grades(column, path: str, data: Any, layout: Layout) -> np.ndarray:
    """The grades as int32 (half the memory of int64; no relevance scale comes near 2^31).

    Text grades (dictionary-encoded or plain strings) are read by grade_problem's rules, one
    check per distinct value."""
    if pa.types.is_integer(column.type):
        grades = numpy_of(column)  # in its own type: a uint64 2^64-1 must not become -1
        small = np.iinfo(np.int32)
        outside = np.flatnonzero(grades > small.max) if grades.dtype.kind == "u" else \
            np.flatnonzero((grades < small.min) | (grades > small.max))
        if outside.size:
            value = int(grades[outside[0]])
            raise row_error(path, data, int(outside[0]),
                            f"{grade_problem(str(value))}, expected an integer grade", layout)
        return grades.astype(np.int32)
    parts: list[tuple[list[Any], np.ndarray]]
    if pa.types.is_dictionary(column.type):
        chunks = cast("list[pa.DictionaryArray]",
                      column.chunks if isinstance(column, pa.ChunkedArray) else [column])
        parts = [(c.dictionary.to_pylist(), numpy_of(c.indices, null=-1).astype(np.int64))
                 for c in chunks]
    else:
        from unjudged.data._strings import sorted_vocabulary

        vocab, codes = sorted_vocabulary(column)
        parts = [(vocab.to_pylist(), codes.astype(np.int64))]
    out: list[np.ndarray] = []
    base = 0
    for values, codes in parts:
        parsed = [grade_value(v) for v in values]  # once per distinct text
        table = np.array([-1 if g is None else g for g in parsed] + [0], dtype=np.int64)
        bad = np.array([g is None for g in parsed] + [True])
        wrong = np.flatnonzero(bad[codes])  # codes of -1 (a null) pick the last entry
        if wrong.size:
            row = int(wrong[0])
            text = values[codes[row]] if codes[row] >= 0 else ""
            assert layout.number is not None  # a layout of grades has a grade column
            raise row_error(path, data, base + row,
                            f"{grade_problem(text)}, expected an integer grade in column "
                            f"{layout.number + 1}", layout)
        out.append(table[codes].astype(np.int32))
        base += codes.size
    return np.concatenate(out) if out else np.zeros(0, dtype=np.int32)


def _from_records(records: Any, source: str) -> Qrels:
    cols = record_columns(records, QRELS_FIELDS, source)
    grades = [grade_number(g, source) for g in cols["grade"]]
    group = ["0" if g is None else str(g) for g in cols["group"]]
    return build_qrels(pa.array([str(v) for v in cols["qid"]], pa.string()),
                       pa.array(group, pa.string()),
                       pa.array([str(v) for v in cols["docno"]], pa.string()),
                       pa.array(grades, pa.int64()), source=source)


def _from_frame(frame, source: str = "<DataFrame>", strict: bool = False) -> Qrels:
    """Qrels from a DataFrame (`strict`: read from a file, see unjudged.io._frames)."""
    from unjudged.io._frames import grade_column, id_column

    def pick(names, what, required=True):
        for n in names:
            if n in frame.columns:
                return frame[n]
        if required:
            raise FormatError(source, None,
                              f"no {what} column (expected one of {', '.join(names)}; "
                              f"columns: {', '.join(map(str, frame.columns))})")
        return None

    q = pick(("query_id", "qid", "topic"), "query id")
    d = pick(("doc_id", "docno", "doc"), "document id")
    g = pick(("relevance", "grade", "rel", "label"), "relevance")
    missing = np.flatnonzero(g.isna().to_numpy())
    if missing.size:
        raise FormatError(source, None, f"missing relevance in row {int(missing[0])} "
                          f"(column {g.name})")
    it = pick(("iteration", "subtopic", "iter", "group"), "iteration", required=False)
    group = it.astype(str) if it is not None else ["0"] * len(frame)
    qid, docno = id_column(q, "query id", source), id_column(d, "document id", source)
    return build_qrels(qid, pa.array(group, pa.string()), docno,
                       grade_column(g, source, strict), source=source)
