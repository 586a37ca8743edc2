"""ndeval's readers: qrels `topic subtopic docno judgment`, runs `topic Q0 docno rank score runid`.

Their rules, from ndeval.c: fields split on ASCII white space, extra fields ignored, a blank line
is a syntax error; topics, subtopics, judgments and ranks are natural numbers (digits only; a run
topic may carry a task prefix ending in '-', as `wt09-1`; one with neither reads on into the
next field); judgments above 1 count as 1; the run id is the first line's sixth field; runs are
ordered by the rank column, or with -traditional by score (glibc's sscanf reading) descending in
double precision, then docno descending in byte order (the score is read for -traditional only);
-M keeps the first M ranks of each topic; a repeated rank or docno within a topic is an error.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from unjudged.errors import FormatError, InputError

LARGE_ENOUGH = 100000  # ndeval's limit: a number is refused once its prefix exceeds this
# what glibc's sscanf("%lf") reads at the start of a field (it ignores what follows): decimal,
# hex ("0x1p-2", "0x."), "inf" or "infinity" ("infi" fails: glibc cannot step back), "nan..."
_SCANF_DOUBLE = re.compile(rb"([+-]?)(?:(0x(?:[0-9a-f]+\.?[0-9a-f]*|\.[0-9a-f]*)(?:p[+-]?\d+)?)|"
                           rb"((?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)|(infinity|inf(?!i))|(nan))",
                           re.IGNORECASE)


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


def run_topic(field: bytes, beyond: bytes = b"") -> int:
    """ndeval's parseTopic: a number, or what follows the first '-' of a prefixed one.

    A field with neither (`t`) makes ndeval read on past the field's end, into its line buffer:
    `beyond` is what it finds there (see `read_run`).

    Example:
        >>> run_topic(b"wt09-12"), run_topic(b"12"), run_topic(b"x"), run_topic(b"x", b"0")
        (12, 12, -1, 0)
    """
    if field[:1].isdigit():
        return natural(field)
    cut = field.find(b"-")
    return natural(beyond) if cut < 0 else natural(field[cut + 1:])


def scanf_double(field: bytes) -> float | None:
    """The number glibc's sscanf("%lf") reads at the start of a field, None if it reads none.

    Example:
        >>> [scanf_double(f) for f in (b"1.5abc", b"0x1p-2", b"1e", b"infi", b"0x")]
        [1.5, 0.25, 1.0, None, None]
    """
    m = _SCANF_DOUBLE.match(field)
    if m is None or (m.group(3) is not None and field[len(m.group(1)):][:2] in (b"0x", b"0X")):
        return None  # glibc took "0x" for a hex number and found none ("0x", "0xg")
    sign, hexa, decimal, inf, _ = m.groups()
    if decimal is not None:
        value = float(decimal)
    elif inf is not None:
        value = math.inf
    elif hexa is not None:
        mantissa, _, power = hexa[2:].lower().partition(b"p")
        try:  # "0x." alone is glibc's 0
            value = float.fromhex((b"0x0" + mantissa + b"p" + (power or b"0")).decode())
        except OverflowError:
            value = math.inf
    else:
        value = math.nan
    return -value if sign == b"-" else value


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


def _beyond(line: bytes) -> bytes:
    """What ndeval's parseTopic reads past a run line's first field when that has no digit
    first and no '-': its split ends the field with a NUL in place of the first blank, and the
    read goes on from the next byte to the next NUL: the second field when one blank separates
    them, else a blank (not a number)."""
    rest = line.lstrip(b" \t\n\r\x0b\x0c")
    cut = next((k for k, c in enumerate(rest) if c in b" \t\n\r\x0b\x0c"), len(rest))
    after = rest[cut + 1:]
    return after.split(None, 1)[0] if after[:1] and not after[:1].isspace() else b""


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
    unread: tuple[int, bytes] | None = None
    for i, line in enumerate(_lines(data, path, "run"), 1):
        f = line.split()
        if len(f) >= 6:
            odd = not f[0][:1].isdigit() and b"-" not in f[0]
            topic, rank = run_topic(f[0], _beyond(line) if odd else b""), natural(f[3])
        if len(f) < 6 or topic < 0 or rank < 0:
            raise FormatError(path, i, "syntax error: expected `topic Q0 docno rank score "
                              "runid` with natural-number topic and rank")
        # ndeval reads the score for -traditional only: elsewhere any text will do
        score = scanf_double(f[4]) if traditional else 0.0
        if score is None and unread is None:
            unread = (i, f[4])
        runid = runid or f[5]
        rows.setdefault(topic, []).append((rank, 0.0 if score is None else score, f[2]))
    if unread is not None:  # after the syntax errors, which ndeval reports first
        shown = unread[1].decode("utf-8", "replace")
        raise FormatError(path, unread[0], f"-traditional orders by score, and {shown!r} is not "
                          "a number (ndeval would sort on an unset value)")
    ordered = {}
    for topic in sorted(rows):
        ranked = rows[topic]
        if traditional:  # score descending in double precision, then docno descending
            ranked = sorted(ranked, key=lambda r: r[2], reverse=True)
            ranked.sort(key=lambda r: r[1], reverse=True)
            ranked = [(k, s, d) for k, (_, s, d) in enumerate(ranked, 1)]
        ranked.sort(key=lambda r: r[0])
        ordered[topic] = [d for _, _, d in ranked]
        for a, b in zip(ranked, ranked[1:], strict=False):
            if a[0] == b[0]:
                raise InputError(path, f"duplicate rank ({a[0]}) for topic {topic}")
    # as in ndeval, docnos are checked once every topic's ranks are, after the -M cut, and the
    # error names the first repeat in byte order
    out = {}
    for topic, docs in ordered.items():
        docs = docs[:depth or None]
        if len(set(docs)) != len(docs):
            twice = sorted(docs)
            dup = next(a for a, b in zip(twice, twice[1:], strict=False) if a == b)
            raise InputError(path, f"duplicate docno ({dup.decode('utf-8', 'replace')}) for "
                             f"topic {topic}")
        out[topic] = docs
    return runid, out
