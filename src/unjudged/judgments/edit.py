"""Editing qrels: the union of several (merge) and a subset by topics or iteration (filter).

Both work on whole columns: lines are concatenated, keyed by integer codes and resolved by one
sort, so a 300,000-line qrels costs no Python loop per judgment.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import Any, cast

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from unjudged.data._strings import arrow_of, intern_topics, numpy_of, string_array
from unjudged.data.qrels import Qrels, qrels_columns
from unjudged.errors import (
    IncompatibleInputsError,
    InputError,
    InvalidOptionError,
    shown,
)
from unjudged.io.qrels import build_qrels, read_qrels

CONFLICT_RULES = ("error", "max", "min", "first", "last")


def qrels_labels(qrels: Sequence[Qrels]) -> list[str]:
    """Short names for qrels: the file name, or the whole path when two file names clash.

    Example:
        >>> from unjudged.io import read_qrels
        >>> qrels_labels([read_qrels({"1": {"d": 1}})])
        ['<dict>']
    """
    names = [os.path.basename(q.source) or q.source for q in qrels]
    if len(set(names)) < len(names):
        names = [q.source for q in qrels]
    seen: dict[str, int] = {}
    out = []
    for name in names:  # the same file given twice still needs two names
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return out


def merge_qrels(qrels_list: Sequence[Any], on_conflict: str = "error",
                by_iteration: bool = False) -> Qrels:
    """The union of several qrels, one line per (topic, document).

    A document judged in several inputs with the same grade keeps its first line (inputs in
    the order given, then line order). Different grades are an error naming both files, unless
    `on_conflict` picks a winner: the highest (`max`) or lowest (`min`) grade, or the first or
    last line in input order. With `by_iteration`, a judgment is a (topic, iteration, document)
    line, as in subtopic qrels, where one document may hold a grade per subtopic.

    Example:
        >>> from unjudged.io import read_qrels
        >>> a, b = read_qrels({"1": {"d1": 1}}), read_qrels({"1": {"d1": 2, "d2": 0}})
        >>> merge_qrels([a, b], on_conflict="max").to_dict()
        {'1': {'d1': 2, 'd2': 0}}
    """
    if on_conflict not in CONFLICT_RULES:
        raise InvalidOptionError(f"on_conflict must be one of {', '.join(CONFLICT_RULES)}")
    qs = [read_qrels(q) for q in qrels_list]
    if not qs:
        raise InvalidOptionError("merge_qrels needs at least one qrels")
    cols = [qrels_columns(q) for q in qs]
    qid = pa.concat_arrays([c[0] for c in cols])
    group = pa.concat_arrays([c[1].cast(pa.string()) for c in cols])
    docno = pa.concat_arrays([c[2].cast(pa.string()) for c in cols])
    grade = np.concatenate([c[3] for c in cols])
    source = np.repeat(np.arange(len(qs)), [len(c[3]) for c in cols])
    key = _line_keys(qid, docno, group if by_iteration else None)
    line = np.arange(grade.size)
    tiebreak = {"max": (line, -grade), "min": (line, grade), "last": (-line,)}
    order = np.lexsort(tiebreak.get(on_conflict, (line,)) + (key,))
    sk, sg = key[order], grade[order]
    starts = np.flatnonzero(np.r_[True, sk[1:] != sk[:-1]])
    if on_conflict == "error":
        spread = np.maximum.reduceat(sg, starts) != np.minimum.reduceat(sg, starts)
        if spread.any():
            raise _conflict(qs, qid, docno, group, grade, source, order, starts, spread)
    keep = np.sort(order[starts])
    take = arrow_of(keep)
    return build_qrels(qid.take(take), group.take(take), docno.take(take), arrow_of(grade[keep]),
                       source=" + ".join(q.source for q in qs))


def _line_keys(qid: pa.Array, docno: pa.Array, group: pa.Array | None) -> np.ndarray:
    """An int64 per line, equal exactly for lines of the same (topic, [iteration,] doc)."""
    _, tcode = intern_topics(qid)
    key = tcode.astype(np.int64)
    for column in (docno,) if group is None else (group, docno):
        enc = cast(pa.DictionaryArray, pc.dictionary_encode(column))
        key = key * len(enc.dictionary) + numpy_of(enc.indices).astype(np.int64)
    return key


def _conflict(qs, qid, docno, group, grade, source, order, starts, spread) -> Exception:
    """The error for the first conflicting judgment (error path: may loop)."""
    labels = qrels_labels(qs)
    first = int(np.flatnonzero(spread)[0])
    end = starts[first + 1] if first + 1 < starts.size else order.size
    rows = order[starts[first]:end]
    a = int(rows[0])
    b = int(rows[np.flatnonzero(grade[rows] != grade[a])[0]])
    doc, topic = docno[a].as_py(), qid[a].as_py()
    more = int(spread.sum()) - 1
    tail = f" ({more} more conflicting judgments)" if more else ""
    if source[a] == source[b]:
        what = (f"{labels[source[a]]} judges document {doc!r} of topic {topic!r} twice: grade "
                f"{grade[a]} under iteration {group[a].as_py()!r}, {grade[b]} under "
                f"{group[b].as_py()!r}{tail}; keep both with --by-iteration, or choose")
    else:
        what = (f"{labels[source[a]]} and {labels[source[b]]} disagree on document {doc!r} of "
                f"topic {topic!r}: grade {grade[a]} vs {grade[b]}{tail}; choose")
    return IncompatibleInputsError(f"{what} a winner with --on-conflict max|min|first|last")


def filter_qrels(qrels: Any, topics: Iterable[str] | None = None,
                 iterations: Iterable[str] | None = None,
                 exclude_iterations: Iterable[str] | None = None) -> Qrels:
    """The lines of `qrels` whose topic is in `topics` and whose iteration (column 2) is in
    `iterations` and not in `exclude_iterations`; None means no condition.

    Topics and iterations match as exact strings ("1.5" is not "1.50"). Naming an iteration
    the qrels do not have is an error (most likely a typo); naming absent topics is not, so
    that a range such as 1-50 can be applied to any part of a collection.

    Example:
        >>> from unjudged.io import read_qrels
        >>> q = read_qrels({"1": {"a": 1}, "2": {"b": 0}, "3": {"c": 2}})
        >>> filter_qrels(q, topics=["1", "3", "9"]).to_dict()
        {'1': {'a': 1}, '3': {'c': 2}}
    """
    q = read_qrels(qrels)
    keep = np.ones(q.grade.size, dtype=bool)
    if topics is not None:
        if isinstance(topics, (str, bytes)) or not isinstance(topics, Iterable):
            raise InvalidOptionError(f"topics: expected a list of topic ids, got "
                                     f"{shown(topics, 60)}")
        wanted = {str(t) for t in topics}
        keep &= np.array([t in wanted for t in q.topics], dtype=bool)[q.tcode]
    present = cast(set[str], set(pc.unique(q.group).to_pylist()))  # iterations: no nulls
    for values, include in ((iterations, True), (exclude_iterations, False)):
        if values is None:
            continue
        values = [str(v) for v in values]
        unknown = [v for v in values if v not in present]
        if unknown:
            raise InputError(q.source, f"no judgment has iteration {', '.join(unknown)} (its "
                             f"iterations: {', '.join(sorted(present, key=str.encode))})")
        hit = numpy_of(pc.is_in(q.group, value_set=string_array(values))).astype(bool)
        keep &= hit if include else ~hit
    if not keep.any():
        raise InputError(q.source, "no judgment is left after filtering")
    return select_lines(q, keep)


def select_lines(qrels: Qrels, keep: np.ndarray) -> Qrels:
    """The qrels made of the lines where `keep` (one flag per line) holds.

    Example:
        >>> from unjudged.io import read_qrels
        >>> q = read_qrels({"1": {"a": 1, "b": 0}})
        >>> select_lines(q, q.grade > 0).to_dict()
        {'1': {'a': 1}}
    """
    rows = np.flatnonzero(keep)
    take = arrow_of(rows)
    qid, group, docno, grade = qrels_columns(qrels)
    return build_qrels(qid.take(take), group.take(take), docno.take(take), arrow_of(grade[rows]),
                       source=qrels.source)
