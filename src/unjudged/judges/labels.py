"""Automatic judges and audit samples, read and checked against the human qrels.

A judge file has the layouts of ``--prior estimates:FILE`` (read by the same parser): per
(topic, document) a grade (``topic iter docno grade``), a probability of relevance
(``topic docno p``) or a distribution over grades (``topic docno g0:p0,g1:p1``). An audit
sample is ``topic docno pi`` lines: the documents drawn for people to judge, each with its
inclusion probability, as `draw_audit` writes them.

Example:
    >>> j = read_judge(b"1 0 d1 2\\n1 0 d2 0\\n", name="llm")
    >>> j.name, j.docno.to_pylist(), j.dist.tolist()
    ('llm', ['d1', 'd2'], [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])
    >>> a = read_audit(b"1 d2 0.5\\n")
    >>> a.docno.to_pylist(), a.pi.tolist()
    (['d2'], [0.5])
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from unjudged.errors import FormatError, InputError
from unjudged.io._source import display_name, read_bytes, text_lines
from unjudged.io.estimates import ExternalEstimates, read_estimates

AUDIT_LAYOUT = ("`topic docno pi` lines (pi: the document's inclusion probability, in (0, 1], "
                "as `unjudged judge audit` writes them)")


@dataclass(eq=False)
class Judge:
    """One automatic judge: `dist` (entries, levels) its grade distribution per (topic, docno);
    `relevance_only`: it gave probabilities of relevance, not grades."""

    name: str
    topic: pa.Array
    docno: pa.Array
    dist: np.ndarray
    source: str
    relevance_only: bool = False

    def __len__(self) -> int:
        return int(self.dist.shape[0])


@dataclass(eq=False)
class AuditSample:
    """Documents drawn for people to judge, with their inclusion probabilities `pi`."""

    topic: pa.Array
    docno: pa.Array
    pi: np.ndarray
    source: str
    #: every document the sample was drawn from with its pi (as drawn by draw_audit)
    design: AuditSample | None = None

    def __len__(self) -> int:
        return int(self.pi.size)


def read_judge(source: Any, name: str | None = None) -> Judge:
    """A judge from a path or bytes in one of the layouts of `estimates:FILE` (or a Judge,
    returned as it is). `name` defaults to the file name without its extension."""
    if isinstance(source, Judge):
        return source
    data, path = _data(source)
    est = _estimates(data, path)
    if name is None:
        name = os.path.splitext(os.path.basename(path))[0] if path != "<bytes>" else "judge"
    return Judge(name, est.topic, est.docno, est.dist, path, est.relevance_only)


def check_judge(judge: Judge, top_grade: int) -> None:
    """Refuse grades the human qrels cannot have: above their highest grade `top_grade`."""
    if judge.relevance_only or judge.dist.shape[1] <= top_grade + 1:
        return
    beyond = judge.dist[:, top_grade + 1:].sum(axis=1) > 0
    if not beyond.any():
        return
    row = int(np.argmax(beyond))
    grade = int(np.nonzero(judge.dist[row])[0].max())
    raise FormatError(judge.source, _line_of(judge.source, row),
                      f"grade {grade} is outside the qrels' grades 0..{top_grade}")


def read_audit(source: Any) -> AuditSample:
    """An audit sample from a path or bytes: `topic docno pi` lines, 0 < pi <= 1."""
    if isinstance(source, AuditSample):
        return source
    data, path = _data(source)
    first = next(text_lines(data, path), None)
    if first is None:
        raise InputError(path, f"no audit documents, expected {AUDIT_LAYOUT}")
    number, fields = first
    if len(fields) != 3 or b":" in fields[2]:
        raise FormatError(path, number, f"an audit sample needs inclusion probabilities: "
                          f"expected {AUDIT_LAYOUT}, found {len(fields)} columns")
    est = _estimates(data, path, AUDIT_LAYOUT)
    pi = est.dist[:, 1]
    if np.any(pi <= 0):
        row = int(np.argmax(pi <= 0))
        raise FormatError(path, _line_of(path, row, data),
                          f"inclusion probability 0: a document that cannot be drawn cannot "
                          f"be in the sample; expected {AUDIT_LAYOUT}")
    return AuditSample(est.topic, est.docno, pi.copy(), path)


def _estimates(data: bytes, path: str, layout: str | None = None) -> ExternalEstimates:
    """read_estimates on bytes read once (stdin too), its errors naming `path`."""
    try:
        return read_estimates(data)
    except FormatError as exc:
        message = exc.message if layout is None else \
            exc.message.split("; expected")[0] + f"; expected {layout}"
        raise FormatError(path, exc.line, message) from None
    except InputError as exc:
        raise InputError(path, exc.message) from None


def _data(source: Any) -> tuple[bytes, str]:
    if isinstance(source, bytes):
        return source, "<bytes>"
    return read_bytes(source), display_name(source)


def _line_of(path: str, row: int, data: bytes | None = None) -> int | None:
    """The file line of data row `row` (comments and blank lines skipped); only on errors."""
    try:
        data = read_bytes(path) if data is None else data
    except (InputError, OSError):
        return None
    for i, (number, _) in enumerate(text_lines(data, path)):
        if i == row:
            return number
    return None
