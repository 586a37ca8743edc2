"""Read and write sampled judgments.

Two layouts read into one `SampledQrels`:

- TREC's sample_eval format, 5 columns ``topic iter docno stratum grade``: grade -1 = in the
  stratum but not sampled; documents absent from the file are outside the sampled universe.
- trec_eval's infAP convention, 4 columns ``qid iter docno grade``: one stratum, in which the
  documents with a grade >= 0 are the sample and negative grades mark pooled, unjudged ones.

The number of columns of the first data line decides; every line must then have as many.

A third layout, TREC's prels (Million Query 2007-2008, Web 2009), is read by `read_prels`: 5
columns ``topic docno grade method probability``, where `probability` is the document's
inclusion probability in the sample statAP estimates from; `method` says which selection
method chose it, and method 0 (MTC alone, probability always 1 in TREC's files) is outside
that sample. Both layouts have 5 columns, hence the separate reader (`infer --prels`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from unjudged.data._strings import arrow_of, numpy_of, string_array
from unjudged.data.qrels import Qrels, qrels_columns
from unjudged.data.sampled import SampledQrels
from unjudged.errors import FormatError, InputError, note
from unjudged.io._columns import read_columns
from unjudged.io._frames import as_pandas
from unjudged.io._source import display_name, read_bytes, readable, text_lines
from unjudged.io._validate import PRELS, QRELS, SAMPLED, line_of_row, row_error
from unjudged.io.qrels import QRELS_LAYOUT, build_qrels, read_qrels
from unjudged.io.write import format_qrels_columns, sorted_lines

SAMPLED_LAYOUT = "topic iter docno stratum grade"
_NAMES = ["qid", "group", "docno", "stratum", "grade"]


def read_sampled_qrels(source: Any) -> SampledQrels:
    """Sampled qrels from a path ('-' = stdin, compressed ok), a DataFrame, a dict or Qrels.

    A dict maps qid -> docno -> (stratum, grade), or -> grade for one stratum; a DataFrame
    needs query_id (or qid), doc_id (or docno), relevance (or grade) and optionally stratum.

    Example:
        >>> q = read_sampled_qrels({"1": {"a": ("1", 2), "b": ("2", -1), "c": ("2", 0)}})
        >>> q.strata, q.stratum_sizes.tolist(), q.sampled_counts.tolist()
        (['1', '2'], [[1, 2]], [[1, 1]])
    """
    if isinstance(source, SampledQrels):
        return source
    if isinstance(source, Qrels):
        return SampledQrels.from_qrels(source)
    if isinstance(source, dict):
        return _from_dict(source)
    frame = as_pandas(source)
    if frame is not None:
        return _from_frame(frame)
    source = readable(source, "sampled qrels", "SampledQrels, Qrels, a DataFrame or a dict "
                      "{qid: {docno: (stratum, grade)}}")
    path = display_name(source)
    data = read_bytes(source)
    first = next(text_lines(data, path), None)
    if first is None:
        raise InputError(path, f"no judgments, expected lines of `{SAMPLED_LAYOUT}`")
    number, fields = first
    if len(fields) == 4:
        t = read_columns(data, path, ["qid", "group", "docno", "grade"], QRELS)
        return SampledQrels.from_qrels(build_qrels(t["qid"], t["group"], t["docno"],
                                                   t["grade"], source=path, data=data))
    if len(fields) != 5:
        raise FormatError(path, number, f"expected 5 columns `{SAMPLED_LAYOUT}` (or 4, "
                          f"`{QRELS_LAYOUT}`), found {len(fields)}")
    t = read_columns(data, path, _NAMES, SAMPLED)
    return build_sampled_qrels(t["qid"], t["docno"], t["stratum"], t["grade"], group=t["group"],
                               source=path, data=data)


PRELS_LAYOUT = PRELS.text
#: the method code of TREC's prels whose documents are not in the probability sample
MTC_ONLY = "0"


#: The smallest inclusion probability of a sampled document: 1/p weighs it in statAP's and
#: statNDCG's estimates and 1/p^2 in their variances, which must stay finite floats.
MIN_INCLUSION = 1e-150


def read_prels(source: Any, outside: Sequence[str] = (MTC_ONLY,)) -> SampledQrels:
    """Sampled qrels from TREC's prels (`topic docno grade method probability`): every line is
    a judgment (one stratum: trec_eval-style measures see complete judgments of these
    documents), and the documents whose method is not in `outside` form the probability
    sample, with their inclusion probabilities (`SampledQrels.key_inclusion`, what statAP and
    statNDCG read).

    Example:
        >>> q = read_prels(b"1 a 1 1 0.5\\n1 b 0 0 1\\n1 c 2 1 1\\n")
        >>> q.to_dict(), q.key_inclusion.tolist()
        ({'1': {'a': 1, 'b': 0, 'c': 2}}, [0.5, 0.0, 1.0])
    """
    path = display_name(source) if not isinstance(source, bytes) else "<bytes>"
    data = source if isinstance(source, bytes) else read_bytes(source)
    t = read_columns(data, path, ["qid", "docno", "grade", "method", "prob"], PRELS)
    group = pc.cast(arrow_of(np.zeros(t.num_rows, dtype=np.int8)), pa.string())
    q = build_qrels(t["qid"], group, t["docno"], t["grade"], source=path, data=data,
                    layout=PRELS)
    prob = _probabilities(t["prob"], data, path)
    outside_sample = pc.is_in(_strings(t["method"]), value_set=pa.array(list(outside)))
    sampled = ~numpy_of(outside_sample).astype(bool)
    if np.any(sampled & (prob < MIN_INCLUSION)):
        row = int(np.flatnonzero(sampled & (prob < MIN_INCLUSION))[0])
        raise row_error(path, data, row, f"inclusion probability {float(prob[row])!r} is not in "
                        f"[{MIN_INCLUSION:g}, 1] (1/p and its square weigh the estimates and "
                        f"their variances), expected `{PRELS_LAYOUT}`", PRELS)
    if np.any(sampled & (prob < 1e-9)):  # valid, but one judgment then outweighs the rest
        row = int(np.flatnonzero(sampled & (prob < 1e-9))[0])
        line = line_of_row(data, row)
        note(f"{path}{'' if line is None else f':{line}'}: inclusion probability "
             f"{float(prob[row])!r} weighs one judgment as {1 / prob[row]:.3g} documents; "
             "statAP's and statNDCG's estimates are dominated by it")
    line_key = np.searchsorted(q.keys, q.tcode.astype(np.int64) * len(q.docs) + q.dcode)
    pi = np.where(sampled, prob, 0.0)
    inclusion = np.zeros(q.keys.size)
    np.maximum.at(inclusion, line_key, pi)
    differs = np.flatnonzero(inclusion[line_key] != pi)
    if differs.size:
        row = int(differs[0])
        raise row_error(path, data, row, f"document {q.docs[int(q.dcode[row])].as_py()!r} of "
                        f"topic {q.topics[q.tcode[row]]!r} appears twice with different "
                        "inclusion probabilities", PRELS)
    return SampledQrels.from_qrels(q, inclusion=inclusion)


def _probabilities(column: Any, data: bytes, path: str) -> np.ndarray:
    """The probability column as floats in [0, 1]; a FormatError names the first bad line."""
    from unjudged.io._validate import score_problem

    texts = _strings(column)
    try:
        p = np.asarray(pc.cast(texts, pa.float64()).to_numpy(zero_copy_only=False), dtype=float)
        bad = ~np.isfinite(p) | (p < 0) | (p > 1)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        p, bad = np.zeros(len(texts)), None
    if bad is None or bad.any():
        values = texts.to_pylist()
        for row, v in enumerate(values):
            if v is None or score_problem(v) is not None or not 0.0 <= float(v) <= 1.0:
                raise row_error(path, data, row, f"probability {v!r} is not a number in "
                                f"[0, 1], expected `{PRELS_LAYOUT}`", PRELS)
    return p


def build_sampled_qrels(qid: Any, docno: Any, stratum: Any, grade: Any, *, group: Any = None,
                        source: str = "<memory>", data: Any = None) -> SampledQrels:
    """Sampled qrels from parallel columns (Arrow arrays or sequences), one entry per judgment:
    topic, document, stratum label and grade (-1 = not sampled).

    Example:
        >>> q = build_sampled_qrels(["1", "1"], ["a", "b"], ["1", "2"], [1, -1])
        >>> q.to_dict(), q.key_strata.tolist()
        ({'1': {'a': 1, 'b': -1}}, [0, 1])
    """
    qid, docno, stratum = (_strings(c) for c in (qid, docno, stratum))
    if not isinstance(grade, (pa.Array, pa.ChunkedArray)):
        grade = arrow_of(np.asarray(grade, dtype=np.int64))
    if group is None:
        group = pc.cast(arrow_of(np.zeros(len(qid), dtype=np.int8)), pa.string())
    q = build_qrels(qid, _strings(group), docno, grade, source=source, data=data,
                    layout=SAMPLED)
    names, codes = _stratum_codes(stratum)
    line_key = np.searchsorted(q.keys, q.tcode.astype(np.int64) * len(q.docs) + q.dcode)
    order = np.lexsort((codes, line_key))
    clash = np.flatnonzero((line_key[order][1:] == line_key[order][:-1]) &
                           (codes[order][1:] != codes[order][:-1]))
    if clash.size:
        a, b = order[clash[0]], order[clash[0] + 1]
        row = int(max(a, b))
        raise row_error(source, data, row,
                        f"document {q.docs[int(q.dcode[row])].as_py()!r} of topic "
                        f"{q.topics[q.tcode[row]]!r} is in two strata "
                        f"({names[codes[a]]!r} and {names[codes[b]]!r})", SAMPLED)
    key_strata = np.zeros(q.keys.size, dtype=np.int32)
    key_strata[line_key] = codes
    return SampledQrels.from_qrels(q, key_strata, names)


def _strings(column: Any) -> pa.Array | pa.ChunkedArray:
    if isinstance(column, (pa.Array, pa.ChunkedArray)):
        return column if pa.types.is_string(column.type) else pc.cast(column, pa.string())
    return string_array([str(v) for v in column])


def _stratum_codes(column) -> tuple[list[str], np.ndarray]:
    """Stratum labels (numerically ordered when they are all integers) and each line's code."""
    enc = pc.dictionary_encode(column)
    if isinstance(enc, pa.ChunkedArray):
        enc = enc.combine_chunks()
    labels = enc.dictionary.to_pylist()
    try:
        order = sorted(range(len(labels)), key=lambda i: (int(labels[i]), labels[i]))
    except ValueError:
        order = sorted(range(len(labels)), key=lambda i: labels[i].encode())
    rank = np.empty(len(labels), dtype=np.int32)
    rank[order] = np.arange(len(labels), dtype=np.int32)
    return [labels[i] for i in order], rank[numpy_of(enc.indices).astype(np.int64)]


def _from_dict(mapping: dict) -> SampledQrels:
    rows = [(str(q), str(d), v) for q, docs in mapping.items() for d, v in docs.items()]
    if rows and not isinstance(rows[0][2], (tuple, list)):
        return SampledQrels.from_qrels(read_qrels(mapping))
    qid, doc, value = zip(*rows, strict=True) if rows else ((), (), ())
    return build_sampled_qrels(qid, doc, [str(v[0]) for v in value], [int(v[1]) for v in value],
                               source="<dict>")


def _from_frame(frame) -> SampledQrels:
    if "stratum" not in frame.columns:
        return SampledQrels.from_qrels(read_qrels(frame))
    pick = {n: next((c for c in names if c in frame.columns), None) for n, names in (
        ("q", ("query_id", "qid", "topic")), ("d", ("doc_id", "docno", "doc")),
        ("g", ("relevance", "grade", "rel", "label")))}
    missing = [n for n, c in pick.items() if c is None]
    if missing:
        raise FormatError("<DataFrame>", None, "expected columns query_id, doc_id, stratum and "
                          "relevance (or qid, docno, stratum, grade)")
    return build_sampled_qrels(frame[pick["q"]].astype(str).tolist(),
                               frame[pick["d"]].astype(str).tolist(),
                               frame["stratum"].astype(str).tolist(),
                               frame[pick["g"]].astype("int64").to_numpy(), source="<DataFrame>")


def format_sampled_qrels(qrels: SampledQrels, sort: bool = True) -> str:
    """sample_eval's 5-column text of `qrels` (`topic iter docno stratum grade`, -1 = not
    sampled); lines ordered as `format_qrels` orders them.

    Example:
        >>> q = read_sampled_qrels({"1": {"b": ("2", -1), "a": ("1", 1)}})
        >>> print(format_sampled_qrels(q), end="")
        1 0 a 1 1
        1 0 b 2 -1
    """
    qid, group, docno, grade = qrels_columns(qrels)
    line_key = np.searchsorted(qrels.keys, qrels.tcode.astype(np.int64) * len(qrels.docs) +
                               qrels.dcode)
    labels = string_array(qrels.strata).take(arrow_of(qrels.key_strata[line_key]))
    # docno and stratum as one column (pyarrow-stubs type this kernel for string arrays only)
    docno = pc.binary_join_element_wise(docno, labels, " ")  # type: ignore[call-overload]
    if sort:
        order = sorted_lines(qrels)
        qid, group, docno = (c.take(arrow_of(order)) for c in (qid, group, docno))
        grade = grade[order]
    return format_qrels_columns(qid, group, docno, grade)


__all__: Sequence[str] = ["read_sampled_qrels", "build_sampled_qrels", "format_sampled_qrels",
                          "read_prels", "SAMPLED_LAYOUT", "PRELS_LAYOUT"]
