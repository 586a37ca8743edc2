"""ndeval's readers: qrels `topic subtopic docno judgment`, runs `topic Q0 docno rank score runid`.

Their rules, from ndeval.c: fields split on ASCII white space, extra fields ignored, a blank line
is a syntax error; topics, subtopics, judgments and ranks are natural numbers (digits only; a run
topic may carry a task prefix ending in '-', as `wt09-1`); judgments above 1 count as 1; the run
id is the first line's sixth field; runs are ordered by the rank column, or with -traditional by
score descending (double precision), then docno descending in byte order; -M keeps the first M
ranks of each topic; a repeated rank or docno within a topic is an error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from unjudged.errors import FormatError, InputError

LARGE_ENOUGH = 100000  # ndeval's limit: a number is refused once its prefix exceeds this
# what C's sscanf("%lf") reads at the start of a field (it ignores what follows)
_SCANF_DOUBLE = re.compile(rb"\s*([+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|"
                           rb"nan))", re.IGNORECASE)


@dataclass
class QrelsTopic:
    """One qrels topic: judged docnos in byte order, each one's relevant subtopic columns
    (ascending subtopic number), and per column the sum of its judgments (ndeval's nrelSub)."""

    docs: list[bytes]
    cols: dict[bytes, tuple[int, ...]]
    nrel_sub: list[int]


def natural(field: bytes) -> int:
    """ndeval's naturalNumber: digits only, else -1.

    Example:
        >>> natural(b"007"), natural(b"-1"), natural(b"2a")
        (7, -1, -1)
    """
    if not field:
        return -1
    value = 0
    for ch in field:
        if not 48 <= ch <= 57 or value > LARGE_ENOUGH:
            return -1
        value = 10 * value + ch - 48
    return value


def run_topic(field: bytes) -> int:
    """ndeval's parseTopic: a number, or what follows the first '-' of a prefixed one.

    Example:
        >>> run_topic(b"wt09-12"), run_topic(b"12"), run_topic(b"x")
        (12, 12, -1)
    """
    if field[:1].isdigit():
        return natural(field)
    cut = field.find(b"-")
    return -1 if cut < 0 else natural(field[cut + 1:])


def _lines(data: bytes, path: str, what: str) -> list[bytes]:
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    if not lines:
        raise InputError(path, f"{what} file is empty")
    return lines


def read_qrels(data: bytes, path: str) -> dict[int, QrelsTopic]:
    """{topic: QrelsTopic} from ndeval qrels bytes.

    Example:
        >>> q = read_qrels(b"1 2 b 3\\n1 0 a 0\\n1 1 b 0\\n", "q")
        >>> q[1].docs, q[1].cols[b"a"], q[1].cols[b"b"], q[1].nrel_sub
        ([b'a', b'b'], (), (0,), [1])
    """
    judged: dict[int, dict[bytes, dict[int, int]]] = {}
    counts: dict[int, dict[int, int]] = {}
    for i, line in enumerate(_lines(data, path, "qrels"), 1):
        f = line.split()
        if len(f) < 4:
            raise FormatError(path, i, "syntax error: expected `topic subtopic docno judgment`")
        topic, sub, grade = natural(f[0]), natural(f[1]), natural(f[3])
        if min(topic, sub, grade) < 0:
            raise FormatError(path, i, "syntax error: topic, subtopic and judgment must be "
                              "natural numbers")
        # a repeated (docno, subtopic) line: the later one sets the judgment (a stable sort),
        # every one adds to the subtopic's count, as in ndeval
        judged.setdefault(topic, {}).setdefault(f[2], {})[sub] = min(grade, 1)
        per_sub = counts.setdefault(topic, {})
        per_sub[sub] = per_sub.get(sub, 0) + min(grade, 1)
    out = {}
    for topic, docs in judged.items():
        # subtopics never judged relevant add nothing to any sum: only the others are columns
        columns = sorted(s for s, n in counts[topic].items() if n > 0)
        index = {s: c for c, s in enumerate(columns)}
        cols = {d: tuple(index[s] for s in sorted(subs) if subs[s] > 0)
                for d, subs in docs.items()}
        out[topic] = QrelsTopic(sorted(docs), cols, [counts[topic][s] for s in columns])
    return out


def read_run(data: bytes, path: str, traditional: bool = False, depth: int = 0
             ) -> tuple[bytes, dict[int, list[bytes]]]:
    """(run id, {topic: docnos in ndeval's order}) from run bytes.

    Example:
        >>> read_run(b"1 Q0 a 2 9.0 r\\n1 Q0 b 1 1.0 r\\n", "r")
        (b'r', {1: [b'b', b'a']})
        >>> read_run(b"1 Q0 a 2 9.0 r\\n1 Q0 b 1 1.0 r\\n", "r", traditional=True)[1]
        {1: [b'a', b'b']}
    """
    rows: dict[int, list[tuple[int, float, bytes]]] = {}
    runid = b""
    for i, line in enumerate(_lines(data, path, "run"), 1):
        f = line.split()
        topic = run_topic(f[0]) if len(f) >= 6 else -1
        rank = natural(f[3]) if len(f) >= 6 else -1
        score = _SCANF_DOUBLE.match(f[4]) if len(f) >= 6 else None
        if topic < 0 or rank < 0 or score is None:
            raise FormatError(path, i, "syntax error: expected `topic Q0 docno rank score "
                              "runid` with natural-number topic and rank")
        runid = runid or f[5]
        rows.setdefault(topic, []).append((rank, float(score.group(1)), f[2]))
    out = {}
    for topic in sorted(rows):
        ranked = rows[topic]
        if traditional:  # score descending in double precision, then docno descending
            ranked = sorted(ranked, key=lambda r: r[2], reverse=True)
            ranked.sort(key=lambda r: r[1], reverse=True)
            ranked = [(k, s, d) for k, (_, s, d) in enumerate(ranked, 1)]
        ranked.sort(key=lambda r: r[0])
        for a, b in zip(ranked, ranked[1:], strict=False):
            if a[0] == b[0]:
                raise InputError(path, f"duplicate rank ({a[0]}) for topic {topic}")
        docs = [d for _, _, d in ranked[:depth or None]]
        if len(set(docs)) != len(docs):
            seen: set[bytes] = set()
            dup = next(d for d in docs if d in seen or seen.add(d))  # type: ignore[func-returns-value]
            raise InputError(path, f"duplicate docno ({dup.decode('utf-8', 'replace')}) for "
                             f"topic {topic}")
        out[topic] = docs
    return runid, out
