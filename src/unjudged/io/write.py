"""Write qrels as `qid iter docno grade` text and runs as `qid Q0 docno rank score tag` text,
built column-wise with Arrow (`unjudged.write_qrels`, `unjudged.write_run`).

The text is assembled by Arrow's string kernels and taken from one buffer, so writing 300,000
judgments (or a 7-million-line run) creates no Python string per line. Files are written
atomically (unjudged.io.atomic): a reader never sees half a file.
"""

from __future__ import annotations

import os
from typing import Any, cast

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from unjudged.data._strings import arrow_of, byte_ranks, numpy_of
from unjudged.data.qrels import Qrels, qrels_columns
from unjudged.data.run import Run
from unjudged.errors import InputError

# What a field of TREC text cannot hold: the readers split fields on any of these blanks and end
# lines at LF or CR; NUL makes a file binary.
_BREAKS = r"[ \t\n\r\v\f\x00]"


def sorted_lines(qrels: Qrels) -> np.ndarray:
    """Line indices in the written order: topic (as `qrels.topics`), docno, iteration (bytes).

    The sort is stable, so repeated lines keep their input order.
    """
    doc_rank = byte_ranks(qrels.docs)[qrels.dcode]
    groups = cast(pa.DictionaryArray, pc.dictionary_encode(qrels.group))
    group_rank = byte_ranks(groups.dictionary)[numpy_of(groups.indices).astype(np.int64)]
    return np.lexsort((group_rank, doc_rank, qrels.tcode))


def format_qrels(qrels: Qrels, sort: bool = True) -> str:
    """The text of `qrels`, one `qid iter docno grade` line per judgment.

    With `sort`, lines follow the library's topic order, then docno and iteration in byte
    order, whatever order they were read in; otherwise they keep the input order.

    Example:
        >>> from unjudged.io import read_qrels
        >>> print(format_qrels(read_qrels({"2": {"b": 0, "a": 1}, "10": {"c": 2}})), end="")
        10 0 c 2
        2 0 a 1
        2 0 b 0
    """
    check_writable(qrels)
    qid, group, docno, grade = qrels_columns(qrels)
    if sort:
        order = arrow_of(sorted_lines(qrels))
        qid, group, docno = qid.take(order), group.take(order), docno.take(order)
        grade = grade[numpy_of(order)]
    return format_qrels_columns(qid, group, docno, grade)


def check_writable(qrels: Qrels) -> None:
    """Refuse qrels whose ids would not read back the same from TREC text (ids from Python can
    hold anything): an empty id or one with a blank, line end or NUL, a topic starting with `#`
    (read back as a comment) or with a byte order mark (dropped at the start of a file).

    Example:
        >>> from unjudged.io import read_qrels
        >>> check_writable(read_qrels({"#1": {"a": 1}}))
        Traceback (most recent call last):
        ...
        unjudged.errors.InputError: <dict>: topic '#1' cannot be written as TREC text: \
a topic starting with '#' reads back as a comment
    """
    _check_ids(qrels.source, qrels.topics, (("document", qrels.docs),
                                            ("iteration", qrels.group)))


def _check_ids(source: str, topics: list[str], columns) -> None:
    """check_writable's rules for the topics and for the (what, Arrow strings) `columns`."""
    import re

    for topic in topics:
        why = ("it is empty" if not topic else
               "a topic starting with '#' reads back as a comment" if topic.startswith("#") else
               "a byte order mark at the start of a file is dropped"
               if topic.startswith("\ufeff") else
               "it holds a blank, line end or NUL" if re.search(_BREAKS, topic) else None)
        if why:
            raise InputError(source, f"topic {topic!r} cannot be written as TREC text: "
                             f"{why}")
    for what, column in columns:
        # (pyarrow-stubs: the string kernels are typed for typed string arrays only)
        bad = pc.or_(pc.equal(pc.binary_length(column), 0),  # type: ignore[call-overload]
                     pc.match_substring_regex(column, _BREAKS))
        if pc.any(bad).as_py():
            value = column.filter(bad)[0].as_py()
            raise InputError(source, f"{what} id {value!r} cannot be written as TREC "
                             "text: an id must be non-empty, without blanks, line ends or NUL")


def format_qrels_columns(qid: pa.Array, iteration: pa.Array, docno: pa.Array,
                         grade: np.ndarray) -> str:
    """`qid iter docno grade` lines from parallel columns, in the order given.

    Example:
        >>> from unjudged.data._strings import string_array as s
        >>> format_qrels_columns(s(["1"]), s(["0"]), s(["d1"]), np.array([2]))
        '1 0 d1 2\\n'
    """
    if len(qid) == 0:
        return ""
    grades = pc.cast(arrow_of(np.asarray(grade, dtype=np.int64)), pa.string())
    return _joined(qid, iteration, docno, grades)


def _joined(*columns: Any) -> str:
    """One line per row: the string `columns` (arrays, or strings repeated on every line)
    joined by single blanks."""
    lines = pc.binary_join_element_wise(*columns, " ")
    # Joining each line with an empty string under a newline separator appends the newline;
    # the array's data buffer is then the whole file.
    lines = pc.binary_join_element_wise(lines, "", "\n")
    if isinstance(lines, pa.ChunkedArray):
        lines = lines.combine_chunks()
    offsets = np.frombuffer(lines.buffers()[1], dtype=np.int32)[lines.offset:]
    data = lines.buffers()[2]
    return data.to_pybytes()[offsets[0] : offsets[len(lines)]].decode("utf-8")


def format_run(run: Run, tag: str | None = None) -> str:
    """The text of `run`, one `qid Q0 docno rank score tag` line per document: topics in the
    run's order, each ranking in its order with ranks 1, 2, ...; scores in the shortest text
    that reads back as the same double; `tag` (default: the run's name) in the last column.

    Example:
        >>> from unjudged.io import read_run
        >>> print(format_run(read_run({"2": {"b": 0.25, "a": 1}, "10": {"c": 3}}, name="bm25")),
        ...       end="")
        10 Q0 c 1 3 bm25
        2 Q0 a 1 1 bm25
        2 Q0 b 2 0.25 bm25
    """
    tag = run.name if tag is None else tag
    if not tag or any(ch in tag for ch in " \t\n\r\v\f\x00"):
        raise InputError(run.source, f"run tag {tag!r} cannot be written as TREC text: a tag "
                         "must be non-empty, without blanks, line ends or NUL")
    _check_ids(run.source, run.topics, (("document", run.docno),))
    n = len(run)
    if n == 0:
        return ""
    from unjudged.data._strings import string_array

    lengths = np.diff(run.offsets)
    topic = np.repeat(np.arange(len(run.topics), dtype=np.int32), lengths)
    # 1-based rank within each topic: the row number minus its topic's first row
    rank = np.arange(1, n + 1, dtype=np.int64) - np.repeat(run.offsets[:-1], lengths)
    qid = string_array(run.topics).take(arrow_of(topic))
    return _joined(qid, "Q0", run.docno, pc.cast(arrow_of(rank), pa.string()),
                   pc.cast(arrow_of(run.score), pa.string()), tag)


def write_run(run: Any, path: str | os.PathLike[str], *, tag: str | None = None) -> None:
    """Write `run` to `path` as a TREC run file (`format_run`), atomically; `run` is a Run or
    anything unjudged.read_run takes (a dict, a DataFrame, ranx's Run, ...). "-" is stdout.

    Example:
        >>> import os, tempfile
        >>> from unjudged.io import read_run
        >>> path = os.path.join(tempfile.mkdtemp(), "bm25.run")
        >>> write_run({"q1": {"d1": 2.5, "d2": 1.0}}, path, tag="bm25")
        >>> print(open(path).read(), end="")
        q1 Q0 d1 1 2.5 bm25
        q1 Q0 d2 2 1 bm25
        >>> read_run(path).to_dict()
        {'q1': {'d1': 2.5, 'd2': 1.0}}
    """
    from unjudged.io.atomic import write_file
    from unjudged.io.runs import read_run

    write_file(path, format_run(read_run(run), tag))


def write_qrels(qrels: Any, path: str | os.PathLike[str], *, sort: bool = True) -> None:
    """Write `qrels` to `path` as TREC qrels (`format_qrels`: `qid iter docno grade`),
    atomically; `qrels` is a Qrels or anything unjudged.read_qrels takes. "-" is stdout.

    Example:
        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "qrels.txt")
        >>> write_qrels({"q1": {"d2": 0, "d1": 2}}, path)
        >>> print(open(path).read(), end="")
        q1 0 d1 2
        q1 0 d2 0
    """
    from unjudged.io.atomic import write_file
    from unjudged.io.qrels import read_qrels

    write_file(path, format_qrels(read_qrels(qrels), sort=sort))
