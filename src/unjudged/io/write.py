"""Write qrels as `qid iter docno grade` text, built column-wise with Arrow.

The text is assembled by Arrow's string kernels and taken from one buffer, so writing 300,000
judgments creates no Python string per line.
"""

from __future__ import annotations

from typing import cast

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from unjudged.data._strings import arrow_of, byte_ranks, numpy_of
from unjudged.data.qrels import Qrels, qrels_columns
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
    import re

    for topic in qrels.topics:
        why = ("it is empty" if not topic else
               "a topic starting with '#' reads back as a comment" if topic.startswith("#") else
               "a byte order mark at the start of a file is dropped"
               if topic.startswith("\ufeff") else
               "it holds a blank, line end or NUL" if re.search(_BREAKS, topic) else None)
        if why:
            raise InputError(qrels.source, f"topic {topic!r} cannot be written as TREC text: "
                             f"{why}")
    for what, column in (("document", qrels.docs), ("iteration", qrels.group)):
        # (pyarrow-stubs: the string kernels are typed for typed string arrays only)
        bad = pc.or_(pc.equal(pc.binary_length(column), 0),  # type: ignore[call-overload]
                     pc.match_substring_regex(column, _BREAKS))
        if pc.any(bad).as_py():
            value = column.filter(bad)[0].as_py()
            raise InputError(qrels.source, f"{what} id {value!r} cannot be written as TREC "
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
    lines = pc.binary_join_element_wise(qid, iteration, docno, grades, " ")  # type: ignore[call-overload]  # stubs
    # Joining each line with an empty string under a newline separator appends the newline;
    # the array's data buffer is then the whole file.
    lines = pc.binary_join_element_wise(lines, "", "\n")
    if isinstance(lines, pa.ChunkedArray):
        lines = lines.combine_chunks()
    offsets = np.frombuffer(lines.buffers()[1], dtype=np.int32)[lines.offset:]
    data = lines.buffers()[2]
    return data.to_pybytes()[offsets[0] : offsets[len(lines)]].decode("utf-8")
