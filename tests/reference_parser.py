"""Slow, obviously correct reference parser for TREC runs and qrels (a test oracle).

It reads bytes line by line with trec_eval 10's rules (get_trec_results.c, get_qrels.c) plus the
project's documented decisions where trec_eval is silent or silently wrong. Each rule is one
commented line below; the differential and fuzz tests hold every reader of `unjudged` to it.

What trec_eval 10 itself does (usnistgov/trec_eval, get_trec_results.c and get_qrels.c):
fields are split by C's isspace() (space, \t, \n, \v, \f, \r), so \r is a blank and only \n
ends a line; a results line needs six fields and ignores the rest, and the run id kept is the
last line's; a qrels line needs exactly four fields (else "Malformed line"), and a blank qrels
line is malformed too; a line starting with '#' is a comment (in results also after leading
blanks); the score is atof() and the relevance atol(), so "0x10" is 16.0 as a score and 0 as a
grade, "NA" is 0 and "1.5" is 1 as a grade; a NUL byte ends the text early; there is no limit
on the length of a docno (ids point into the file's buffer).

The answer is a `Parsed`: the records of a good file, or the number of the FIRST bad line (in
file order, whatever makes it bad) with the reason. `tolerated` lists earlier lines that a
reader may reject instead, because the project has not fixed one answer for them (each is a
question-decision in the fuzz findings): a reader that accepts them must give the records below.

    >>> p = parse_run(b"1 Q0 a 1 2.5 tag\\n# note\\n1 Q0 b 2 +1 tag extra\\r\\n")
    >>> p.rows, p.lines, p.name
    ([('1', 'a', 2.5), ('1', 'b', 1.0)], [1, 3], 'tag')
    >>> parse_qrels(b"1 0 a 1\\n1 0 b 0x10\\n").error
    2
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import math
import re
import zlib
from dataclasses import dataclass, field

import numpy as np

# trec_eval splits on isspace() in the C locale: space, \t, \n, \v, \f, \r. Python's
# bytes.split() with no argument splits on exactly these bytes (not on \x1c-\x1f, \x85 or
# U+00A0, which str.split() would take as blanks: ids are bytes here, never decoded text).
BLANKS = b" \t\n\v\f\r"

# Project rule: a line ends at \n, at \r\n or at a lone \r (trec_eval ends lines at \n only and
# takes \r for a blank, so a CR-only file is one long line to it: issue 15, item 9).
_LINE_END = re.compile(rb"\r\n|\r|\n")

# Score: trec_eval uses atof(). The project accepts the decimal forms atof reads completely
# ("+1", "-1", "007", "1e3", ".5", "5.") with atof's value, and refuses what atof reads only in
# part or reads as no number ("1,5" -> 1, "NA" -> 0), hex floats ("0x10"; unclear to a reader of
# a run file), and what is not finite ("nan", "inf", "1e400" which overflows to inf).
_DECIMAL = re.compile(rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")

# Grade: trec_eval uses atol(). Accepted: an optional sign and decimal digits ("+1" -> 1,
# "007" -> 7); refused: what atol reads only in part ("0x10" -> 0, "1.5" -> 1, "1e3" -> 1),
# reads as 0 ("NA", "null") or cannot hold; the project holds grades as int32.
_INTEGER = re.compile(rb"[+-]?[0-9]+")
INT32 = (-(2**31), 2**31 - 1)

# Project rule: gzip, bzip2 and xz input is recognised by its first bytes and read as the text
# it holds; one that does not decompress is refused as a whole. bzip2's "BZh" is text too (a
# topic id "BZh1"), so it counts only with the block size digit and the first block's magic.
_ARCHIVES = ((re.compile(rb"\x1f\x8b"), gzip.decompress),
             (re.compile(rb"BZh[1-9](1AY&SY|\x17rE8P\x90)"), bz2.decompress),
             (re.compile(rb"\xfd7zXZ\x00"), lzma.decompress))

RUN_FIELDS = 6    # qid Q0 docno rank score tag; more fields are ignored (as trec_eval does)
QRELS_FIELDS = 4  # qid iter docno grade; exactly four (trec_eval: "Malformed line" otherwise)


@dataclass
class Parsed:
    """Records of a file (`rows`, each with its line number in `lines`), or its first bad line.

    `error` is the first bad line's number, 0 when the file as a whole is bad (no data line),
    None when the file is good.
    """

    rows: list[tuple] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    error: int | None = None
    reason: str = ""
    tolerated: list[int] = field(default_factory=list)
    name: str | None = None
    too_long: int | None = None
    ranks: list[int] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.error is None

    def allows_error_at(self, line: int | None) -> bool:
        """Whether a reader's error naming `line` (None: no line) is the right answer."""
        if line is not None and line == self.too_long:  # reading may stop there, unparsed
            return True
        if self.error is None:
            return line is not None and line in self.tolerated
        if self.error == 0:
            return line is None or line in self.tolerated
        return line == self.error or (line is not None and line in self.tolerated
                                      and line < self.error)


def plain_text(data: bytes) -> bytes | None:
    """The text of `data`, decompressed when it starts like an archive; None when it does not
    decompress.

    >>> plain_text(gzip.compress(b"1 0 a 1\\n")), plain_text(b"BZh1 0 a 1\\n")
    (b'1 0 a 1\\n', b'BZh1 0 a 1\\n')
    >>> plain_text(b"\\x1f\\x8b") is None
    True
    """
    for magic, decompress in _ARCHIVES:
        if magic.match(data):
            try:
                return decompress(data)
            except (OSError, EOFError, ValueError, lzma.LZMAError, zlib.error):
                return None
    return data


def _plain(parse):
    """`parse` of the text a file holds; a file-level error when it does not decompress."""
    def wrapper(data: bytes, *args, **kwargs) -> Parsed:
        text = plain_text(data)
        if text is None:
            return Parsed(error=0, reason="compressed data that does not decompress")
        return parse(text, *args, **kwargs)

    wrapper.__doc__, wrapper.__name__ = parse.__doc__, parse.__name__
    return wrapper


def split_lines(data: bytes) -> list[tuple[int, bytes]]:
    """(1-based number, text without its line end) of every line.

    >>> split_lines(b"a\\r\\nb\\rc\\n\\nd")
    [(1, b'a'), (2, b'b'), (3, b'c'), (4, b''), (5, b'd')]
    """
    # Project rule: a UTF-8 byte order mark that starts the file is not text of the first id
    # (trec_eval would read it into the first topic id)
    data = data[3:] if data.startswith(b"\xef\xbb\xbf") else data
    parts = _LINE_END.split(data)
    if parts and parts[-1] == b"":  # the last line's end does not start another line
        parts.pop()
    return list(enumerate(parts, 1))


def parse_score(text: bytes) -> float | None:
    """The score a field holds, or None when the project refuses it.

    >>> [parse_score(t) for t in (b"+1", b"007", b"1e3", b".5", b"-0", b"5.")]
    [1.0, 7.0, 1000.0, 0.5, -0.0, 5.0]
    >>> [parse_score(t) for t in (b"0x10", b"nan", b"inf", b"1e400", b"NA", b"1_0", b".")]
    [None, None, None, None, None, None, None]
    """
    if not _DECIMAL.fullmatch(text):
        return None
    value = float(text)
    return value if math.isfinite(value) else None


def parse_grade(text: bytes) -> int | None:
    """The grade a field holds, or None when the project refuses it.

    >>> [parse_grade(t) for t in (b"+1", b"-1", b"007", b"-2147483648", b"0" * 5000 + b"1")]
    [1, -1, 7, -2147483648, 1]
    >>> [parse_grade(t) for t in (b"0x10", b"NA", b"1.0", b"1e3", b"2147483648", b"9" * 5000)]
    [None, None, None, None, None, None]
    """
    if not _INTEGER.fullmatch(text):
        return None
    if len(text.lstrip(b"+-").lstrip(b"0")) > 10:  # beyond int32 (and Python's digit limit)
        return None
    value = int(text.lstrip(b"+-").lstrip(b"0") or b"0") * (-1 if text[:1] == b"-" else 1)
    return value if INT32[0] <= value <= INT32[1] else None


def _utf8(text: bytes) -> str | None:
    try:
        return text.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _data_lines(data: bytes, parsed: Parsed, max_line: int | None = None):
    """Yield (number, fields) of data lines; mark a bad line in `parsed` and stop."""
    for number, line in split_lines(data):
        # Project rule: a line (comment and blank lines too) may hold at most `max_line`
        # bytes besides its end; a reader refuses the first longer one, even when an earlier
        # line is bad (it stops reading there, before parsing what it has read)
        if max_line is not None and len(line) > max_line:
            if parsed.too_long is None:
                parsed.too_long = number
            parsed.error, parsed.reason = number, f"line longer than {max_line} bytes"
            return
        # trec_eval: "File may contain no NULL characters"; the project names the line, even
        # in a comment (a NUL means a binary file, not a text with an odd comment)
        if b"\x00" in line:
            parsed.error, parsed.reason = number, "NUL byte"
            return
        fields = line.split()
        if not fields:  # blank lines, also of VT/FF/tabs only (trec_eval skips them in runs)
            continue
        # Project rule: a line whose first field starts with '#' is a comment (trec_eval: '#'
        # after leading blanks in runs, '#' in column 1 in qrels); '#' elsewhere is id text.
        if fields[0].startswith(b"#"):
            if _utf8(line) is None:  # undecided: a comment need not be text, but may be refused
                parsed.tolerated.append(number)
            continue
        yield number, fields


@_plain
def parse_run(data: bytes, max_line: int | None = None, ties: str = "trec_eval") -> Parsed:
    """Records (qid, docno, score) of a run file in file order, or its first bad line.

    With `ties` "rank" the rank column must hold integers too (`ranks`, one per record).
    """
    parsed = Parsed(too_long=_first_long(data, max_line))
    seen: set[tuple[str, str]] = set()
    for number, fields in _data_lines(data, parsed, max_line):
        bad = _run_line(fields, parsed, number, ties == "rank")
        if bad is None:
            qid, docno, score = parsed.rows[-1]
            if (qid, docno) in seen:  # project rule: a document once per topic
                bad = f"docno {docno!r} twice in topic {qid!r}"
                parsed.rows.pop()
                del parsed.ranks[len(parsed.rows):]
            else:
                seen.add((qid, docno))
                parsed.lines.append(number)
                if parsed.name is None:  # the run's name: the first data line's tag
                    parsed.name = fields[5].decode("utf-8", "replace")
        if bad is not None:
            parsed.error, parsed.reason = number, bad
            return parsed
    return _finish(parsed, "no data line")


def _run_line(fields: list[bytes], parsed: Parsed, number: int, ranked: bool) -> str | None:
    if len(fields) < RUN_FIELDS:
        return f"{len(fields)} fields, expected at least {RUN_FIELDS}"
    qid, docno = _utf8(fields[0]), _utf8(fields[2])
    if qid is None or docno is None:
        return "ids not UTF-8"
    # fields the reader does not use (Q0, rank, tag, the rest): undecided whether they must be
    # UTF-8; a reader may refuse them as "not text" or ignore them as trec_eval does
    if any(_utf8(f) is None for f in fields[:2] + fields[3:4] + fields[5:]):
        parsed.tolerated.append(number)
    score = parse_score(fields[4])
    if score is None:
        return f"score {fields[4]!r}"
    if ranked:
        # --ties rank: an integer, read like a grade; beyond int32 (within int64) a reader may
        # refuse it as out of range
        rank = int(fields[3]) if _INTEGER.fullmatch(fields[3]) and len(fields[3]) < 19 else None
        if rank is None:
            return f"rank {fields[3]!r}"
        if parse_grade(fields[3]) is None:
            parsed.tolerated.append(number)
        parsed.ranks.append(rank)
    parsed.rows.append((qid, docno, score))
    return None


def _first_long(data: bytes, max_line: int | None) -> int | None:
    if max_line is None:
        return None
    return next((n for n, line in split_lines(data) if len(line) > max_line), None)


@_plain
def parse_qrels(data: bytes, max_line: int | None = None) -> Parsed:
    """Records (qid, iter, docno, grade) of a qrels file in file order, or its first bad line.

    A (topic, iter, docno) judged twice must have one grade (an exact repeat is harmless); the
    ad hoc view (`adhoc`) keeps the highest grade over the iter column (the subtopics of
    diversity qrels).
    """
    return _judgments(data, QRELS_FIELDS, max_line)


@_plain
def parse_sampled(data: bytes, max_line: int | None = None) -> Parsed:
    """Records (qid, iter, docno, stratum, grade) of sample_eval's 5-column qrels, or the first
    bad line; a file whose first data line has 4 fields is read as qrels (stratum "1").

    Project rules: every line has as many fields as the first; a document lies in one stratum
    of its topic (a second stratum is an error at that line); grades as in qrels (-1 = in the
    stratum, not sampled).
    """
    head = next(iter(_data_lines(data, Parsed())), None)
    if head is not None and len(head[1]) == QRELS_FIELDS:
        parsed = parse_qrels(data, max_line)
        parsed.rows = [(q, i, d, "1", g) for q, i, d, g in parsed.rows]
        return parsed
    return _judgments(data, QRELS_FIELDS + 1, max_line)


def _judgments(data: bytes, width: int, max_line: int | None) -> Parsed:
    """Lines of `width` fields: ids (qid, iter, docno[, stratum]) and a grade last."""
    parsed = Parsed(too_long=_first_long(data, max_line))
    grades: dict[tuple[str, ...], int] = {}
    strata: dict[tuple[str, str], str] = {}
    for number, fields in _data_lines(data, parsed, max_line):
        ids = tuple(_utf8(f) for f in fields[:-1])
        grade = parse_grade(fields[-1])
        if len(fields) != width:
            bad = f"{len(fields)} fields, expected {width}"
        elif None in ids:
            bad = "ids not UTF-8"
        elif grade is None:
            bad = f"grade {fields[-1]!r}"
        elif grades.setdefault(ids[:3], grade) != grade:
            bad = f"judged twice with grades {grades[ids[:3]]} and {grade}"
        elif width > QRELS_FIELDS and strata.setdefault((ids[0], ids[2]), ids[3]) != ids[3]:
            bad = f"in strata {strata[(ids[0], ids[2])]!r} and {ids[3]!r}"
        else:
            parsed.rows.append((*ids, grade))
            parsed.lines.append(number)
            continue
        parsed.error, parsed.reason = number, bad
        return parsed
    return _finish(parsed, "no judgment")


@_plain
def parse_intents(data: bytes) -> Parsed:
    """Records (topic, subtopic, probability) of an intents file, or its first bad line.

    Project rules: three fields; the probability a score (as above) that is not negative; a
    (topic, subtopic) given twice keeps the last probability.
    """
    parsed = Parsed()
    for number, fields in _data_lines(data, parsed):
        ids = [_utf8(f) for f in fields[:2]]
        p = parse_score(fields[2]) if len(fields) == 3 else None
        if len(fields) != 3 or None in ids or p is None or p < 0:
            parsed.error, parsed.reason = number, "expected `topic subtopic probability`"
            return parsed
        parsed.rows.append((*ids, p))
        parsed.lines.append(number)
    return _finish(parsed, "no intent")


@_plain
def parse_zscores(data: bytes) -> Parsed:
    """Records (qid, measure, mean, stddev) of trec_eval's -Z file, or its first bad line.

    Project rules: at least four fields (more are ignored); mean and stddev scores as above
    (finite); a (qid, measure) given twice keeps the last line. An empty file is allowed.
    """
    parsed = Parsed()
    for number, fields in _data_lines(data, parsed):
        ids = [_utf8(f) for f in fields[:2]]
        numbers = [parse_score(f) for f in fields[2:4]]
        if len(fields) < 4 or None in ids or None in numbers:
            parsed.error, parsed.reason = number, "expected `qid measure mean stddev`"
            return parsed
        if any(_utf8(f) is None for f in fields[4:]):
            parsed.tolerated.append(number)
        parsed.rows.append((*ids, *numbers))
        parsed.lines.append(number)
    return parsed


def _finish(parsed: Parsed, reason: str) -> Parsed:
    if parsed.error is None and not parsed.rows:
        parsed.error, parsed.reason = 0, reason
    return parsed


def run_rankings(rows: list[tuple[str, str, float]], ties: str = "trec_eval",
                 ranks: list[int] | None = None) -> dict[str, list[tuple[str, float]]]:
    """{qid: [(docno, score), ...]} in ranking order. `ties` (the project's policies):
    "trec_eval": score descending compared as C doubles (trec_eval 10.0), ties by docno
    descending in byte order; "trec_eval9": the same with scores compared as C floats (single
    precision, trec_eval 9); "docno": score descending, ties by docno ascending; "file": the
    file's order; "rank": the rank column (`ranks`) ascending, ties in file order.

    >>> run_rankings([("1", "a", 1.0), ("1", "b", 1.00000001), ("1", "c", 2.0)])
    {'1': [('c', 2.0), ('b', 1.00000001), ('a', 1.0)]}
    >>> run_rankings([("1", "b", 1.0), ("1", "a", 1.00000001)], "trec_eval9")
    {'1': [('b', 1.0), ('a', 1.00000001)]}
    >>> run_rankings([("1", "a", 1.0), ("1", "b", 1.00000001)], "docno")
    {'1': [('b', 1.00000001), ('a', 1.0)]}
    """
    out: dict[str, list[tuple[str, float, int]]] = {}
    for i, (qid, docno, score) in enumerate(rows):
        out.setdefault(qid, []).append((docno, score, ranks[i] if ranks else 0))
    for ranking in out.values():
        if ties == "rank":
            ranking.sort(key=lambda d: d[2])
        elif ties == "docno":
            ranking.sort(key=lambda d: d[0].encode())
            ranking.sort(key=lambda d: d[1], reverse=True)
        elif ties == "trec_eval":
            ranking.sort(key=lambda d: d[0].encode(), reverse=True)  # stable: docno the tie
            ranking.sort(key=lambda d: d[1], reverse=True)
        elif ties == "trec_eval9":
            ranking.sort(key=lambda d: d[0].encode(), reverse=True)
            with np.errstate(over="ignore"):  # beyond float's range: inf, as C's cast gives
                ranking.sort(key=lambda d: float(np.float32(d[1])), reverse=True)
    return {q: [(d, s) for d, s, _ in ranking] for q, ranking in out.items()}


def adhoc(rows: list[tuple[str, str, str, int]]) -> dict[str, dict[str, int]]:
    """{qid: {docno: grade}}: each document's highest grade over the iter column.

    >>> adhoc([("1", "0", "a", 0), ("1", "2", "a", 2), ("2", "0", "b", 1)])
    {'1': {'a': 2}, '2': {'b': 1}}
    """
    out: dict[str, dict[str, int]] = {}
    for qid, _, docno, *_, grade in rows:  # qrels rows, or sampled rows with a stratum
        topic = out.setdefault(qid, {})
        topic[docno] = max(grade, topic.get(docno, grade))
    return out
