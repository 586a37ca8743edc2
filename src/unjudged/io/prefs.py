"""Readers of trec_eval's preference formats (`-R prefs`, `-R qrels_prefs`, `-R qrels_jg`).

    prefs        qid  jg  jsg  docno  level    (level: a decimal number, as trec_eval's atof)
    qrels_prefs  qid  jg  docno  level         (a qrels: jg is the iter column, jsg "0")
    qrels_jg     qid  jg  docno  grade         (a qrels with one judgment group per jg value)

Blank lines and `#` comment lines are skipped, as by the qrels reader. What trec_eval reads as
an error is refused with the file and line: a line with too few or too many fields, a number
that is not one, the same document twice in a qrels_jg group, a document with two levels in
one sub-group, and, within a judgment group, a document judged non-relevant (0) in one
sub-group and relevant in another or preferences that contradict each other.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from unjudged.data.prefs import Prefs, closure
from unjudged.errors import FormatError
from unjudged.io._source import display_name, read_bytes, text_lines
from unjudged.io._validate import grade_problem, score_problem

_LAYOUTS = {"prefs": "qid jg jsg docno level", "qrels_prefs": "qid jg docno level",
            "qrels_jg": "qid jg docno grade"}
KINDS = tuple(_LAYOUTS)


def read_prefs(source: Any, kind: str = "prefs") -> Prefs:
    """Read a preference file of trec_eval's format `kind` (prefs, qrels_prefs or qrels_jg).

    Example:
        >>> import io
        >>> p = read_prefs(io.BytesIO(b"q u s b 2\\nq u s a 0.5\\n"), "prefs")
        >>> p.topics, p.docno, p.level.tolist()
        (['q'], ['a', 'b'], [0.5, 2.0])
    """
    if kind not in _LAYOUTS:
        raise ValueError(f"unknown preference format {kind!r}")
    path = display_name(source)
    layout = _LAYOUTS[kind]
    width = len(layout.split())
    rows: list[tuple[bytes, bytes, bytes, bytes, float, int]] = []
    for number, f in text_lines(read_bytes(source), path):
        if len(f) != width:
            raise FormatError(path, number, f"expected `{layout}` ({width} fields), got "
                              f"{len(f)} field{'s' if len(f) != 1 else ''}")
        raw = f[-1]
        problem = grade_problem(raw) if kind == "qrels_jg" else score_problem(raw)
        if problem:
            raise FormatError(path, number, problem.replace("score", "level"))
        jsg = f[2] if kind == "prefs" else b"0"
        rows.append((f[0], f[1], jsg, f[-2], float(raw), number))
    for r in rows:
        for field in r[:4]:
            try:
                field.decode("utf-8")
            except UnicodeDecodeError:
                raise FormatError(path, r[5], "not UTF-8 text (binary data?)") from None
    # trec_eval sorts the lines by qid then docno (byte order); Python sorts bytes that way
    rows.sort(key=lambda r: (r[0], r[3]))
    _check(rows, kind, path)
    topics = [t.decode() for t in dict.fromkeys(r[0] for r in rows)]
    cut = np.flatnonzero([a[0] != b[0] for a, b in zip(rows, rows[1:], strict=False)]) + 1
    offsets = np.concatenate(([0], cut, [len(rows)])).astype(np.int64) if rows else \
        np.zeros(1, np.int64)
    return Prefs(topics, offsets, [r[1].decode() for r in rows], [r[2].decode() for r in rows],
                 [r[3].decode() for r in rows], np.array([r[4] for r in rows], np.float64),
                 kind, path)


def _check(rows: list, kind: str, path: str) -> None:
    """Refuse what trec_eval refuses (or aborts on), naming the later of two clashing lines."""
    seen: dict[tuple, tuple[float, int]] = {}
    for r in rows:
        key = (r[0], r[1], r[2], r[3])
        if key in seen:
            level, line = seen[key]
            if kind == "qrels_jg":
                raise FormatError(path, max(line, r[5]), f"document {r[3].decode()!r} twice "
                                  f"in judgment group {r[1].decode()!r} of topic "
                                  f"{r[0].decode()!r} (line {min(line, r[5])})")
            if level != r[4]:
                raise FormatError(path, max(line, r[5]), f"document {r[3].decode()!r} has "
                                  f"levels {level:g} and {r[4]:g} in one sub-group (line "
                                  f"{min(line, r[5])})")
        seen[key] = (r[4], r[5])
    if kind == "prefs":
        _check_groups(rows, path)


def _check_groups(rows: list, path: str) -> None:
    """Within a judgment group of several sub-groups: 0 and > 0 for one document, or a cycle
    of preferences, are contradictions (trec_eval stops or aborts on them)."""
    groups: dict[tuple[bytes, bytes], list] = {}
    for r in rows:
        groups.setdefault((r[0], r[1]), []).append(r)
    for (topic, jg), lines in groups.items():
        if len({r[2] for r in lines}) < 2:
            continue
        status: dict[bytes, tuple[bool, int]] = {}
        for r in sorted(lines, key=lambda r: r[5]):
            if r[4] < 0:
                continue
            was = status.setdefault(r[3], (r[4] > 0, r[5]))
            if was[0] != (r[4] > 0):
                raise FormatError(path, r[5], f"document {r[3].decode()!r} is non-relevant "
                                  f"(0) and relevant in judgment group {jg.decode()!r} of "
                                  f"topic {topic.decode()!r} (line {was[1]})")
        docs = sorted({r[3] for r in lines})
        index = {d: i for i, d in enumerate(docs)}
        prefer = np.zeros((len(docs), len(docs)), dtype=bool)
        by_sub: dict[bytes, list] = {}
        for r in lines:
            by_sub.setdefault(r[2], []).append(r)
        for sub in by_sub.values():
            idx = np.array([index[r[3]] for r in sub])
            lev = np.array([r[4] for r in sub])
            above = lev[:, None] > lev[None, :]
            prefer[idx[:, None].repeat(len(sub), 1)[above], idx[None, :].repeat(len(sub), 0)
                   [above]] = True
        reach = closure(prefer)
        clash = np.argwhere(reach & reach.T)
        if clash.size:
            a, b = docs[clash[0][0]].decode(), docs[clash[0][1]].decode()
            raise FormatError(path, None, f"judgment group {jg.decode()!r} of topic "
                              f"{topic.decode()!r} prefers {a!r} to {b!r} and {b!r} to {a!r}")
