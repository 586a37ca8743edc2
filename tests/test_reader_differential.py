"""Every reader against the reference parser (tests/reference_parser.py), on Hypothesis files.

The files mix odd blanks (tabs, VT, FF, runs of them, at line starts and ends), line ends (LF,
CRLF, lone CR, mixed, none at the end), blank and comment lines, numbers trec_eval reads one
way or another (+1, -1, 007, 1e3, 0x10, .5, huge integers, nan, inf) and ids (UTF-8, long, '#'
inside, digits only, bytes that str.split() but not trec_eval takes for blanks, bytes that are
not UTF-8, a byte order mark). A reader must give the reference's records, or fail with one line
naming the file and the first bad line.

Readers: read_run (a path, a stream, with qrels to look documents up in, every tie policy),
read_qrels, read_diversity_qrels, read_sampled_qrels (5 and 4 columns), read_intents and
trec_eval's -Z reader.
"""

from __future__ import annotations

import csv
import dataclasses
import gzip
import io
import json
import math
import os
import random
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))
import reference_parser as ref  # noqa: E402
import reference_trec_eval as ref_eval  # noqa: E402
from unjudged import evaluate  # noqa: E402
from unjudged.errors import FormatError, UnjudgedError  # noqa: E402
from unjudged.io import read_qrels, read_run  # noqa: E402
from unjudged.io.diversity import read_diversity_qrels, read_intents  # noqa: E402
from unjudged.io.sampled import read_sampled_qrels  # noqa: E402
from unjudged.trec_eval._run import read_zscores  # noqa: E402

try:  # the streaming evaluation of issue 15, item 16
    from unjudged.engine.stream import evaluate_stream
except ImportError:  # pragma: no cover -- not there yet
    evaluate_stream = None

# UNJUDGED_DIFF_EXAMPLES raises the count for a longer hunt (the default keeps the file < 30 s)
SETTINGS = settings(max_examples=int(os.environ.get("UNJUDGED_DIFF_EXAMPLES", "80")),
                    deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# ------------------------------------------------------------------------------ checking


def outcome(read, source, path: str, parsed: ref.Parsed, compare) -> tuple[str, str]:
    """("clean" | "clean error" | what went wrong, detail) of one reader on one input.

    `read(source)` reads it; `compare(result, parsed)` returns a difference or "".
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = read(source)
        except UnjudgedError as exc:
            return _judge_error(exc, path, parsed)
        except Exception as exc:  # noqa: BLE001 -- any other exception is the finding
            return "traceback", f"{type(exc).__name__}: {exc}"[:300]
    noisy = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
    if noisy:
        return "warning", noisy[0][:200]
    if not parsed.ok:
        return "accepted bad input", f"line {parsed.error}: {parsed.reason}"
    diff = compare(result, parsed)
    return ("clean", "") if not diff else ("wrong value", diff)


def _judge_error(exc: UnjudgedError, path: str, parsed: ref.Parsed) -> tuple[str, str]:
    text = str(exc)
    line = exc.line if isinstance(exc, FormatError) else None
    where = f"{path}:{line}: " if line is not None else f"{path}: "
    if "\n" in text or not text.startswith(where):
        return "bad message", f"{text[:200]!r} (expected it to start with {where!r})"
    if parsed.allows_error_at(line):
        return "clean error", ""
    if parsed.ok:
        return "rejected good input", f"{text[:200]}"
    return "wrong line", f"{text[:200]} (first bad line {parsed.error}: {parsed.reason})"


def compare_run(run, parsed: ref.Parsed, ties: str = "trec_eval") -> str:
    expected = ref.run_rankings(parsed.rows, ties, parsed.ranks)
    docs, scores = run.docno.to_pylist(), run.score.tolist()
    got = {t: list(zip(docs[run.offsets[i]:run.offsets[i + 1]],
                       scores[run.offsets[i]:run.offsets[i + 1]], strict=True))
           for i, t in enumerate(run.topics)}
    if got != expected:
        return _first_difference(got, expected)
    if run.name != parsed.name:
        return f"name {run.name!r}, expected the first tag {parsed.name!r}"
    return _byte_order(run.topics)


def _byte_order(topics: list[str]) -> str:
    """Run and Qrels promise their topics in byte order of the ids."""
    if list(topics) != sorted(topics, key=lambda t: t.encode("utf-8", "surrogateescape")):
        return f"topics not in byte order: {topics[:5]!r}"
    return ""


def compare_qrels(qrels, parsed: ref.Parsed) -> str:
    got, expected = qrels.to_dict(), ref.adhoc(parsed.rows)
    return _byte_order(qrels.topics) if got == expected else _first_difference(got, expected)


def _first_difference(got: dict, expected: dict) -> str:
    if set(got) != set(expected):
        return f"topics {sorted(got)[:5]!r}, expected {sorted(expected)[:5]!r}"
    for t in expected:
        if got[t] != expected[t]:
            return f"topic {t!r}: {str(got[t])[:150]}, expected {str(expected[t])[:150]}"
    return "differs"


# measures checked against tests/reference_trec_eval.py: ours -> trec_eval's name
MEASURES = {"P@10": "P_10", "AP": "map", "nDCG@10": "ndcg_cut_10", "NumRet": "num_ret",
            "Bpref": "bpref"}


def expected_scores(run: ref.Parsed, qrels: ref.Parsed) -> dict[tuple[str, str], float]:
    """{(topic, measure): value} by the reference measures, "all" = the mean."""
    # double scores: the ranking trec_eval 10 (and unjudged by default) sorts by; with float
    # (trec_eval 9) 1.00000001 would tie 1 and the docno would order them
    ranking = {q: [(d, float(s)) for d, s in docs]
               for q, docs in ref.run_rankings(run.rows).items()}
    per_topic, summary = ref_eval.evaluate(ref.adhoc(qrels.rows), ranking)
    out = {}
    for ours, theirs in MEASURES.items():
        for topic, values in per_topic.items():
            out[(topic, ours)] = float(values[theirs])
        if per_topic:
            out[("all", ours)] = float(summary[theirs])
    return out


def compare_scores(frame, expected: dict) -> str:
    got = {(t, m): float(v)
           for t, m, v in zip(frame.topic, frame.measure, frame.value, strict=True)}
    if not expected and all(t == "all" for t, _ in got):  # no topic in common: a mean of none
        return ""
    if set(got) != set(expected):
        missing = sorted(set(expected) ^ set(got))[:3]
        return f"{len(got)} values, expected {len(expected)} (differ: {missing})"
    for key, value in expected.items():
        if not np.isclose(got[key], value, rtol=1e-9, atol=1e-12):
            return f"{key}: {got[key]}, expected {value}"
    return ""


def regrouped(parsed: ref.Parsed) -> ref.Parsed:
    """`parsed`, allowing also an error at the first line whose topic comes back after
    another topic started (the streaming reader reads runs grouped by topic only)."""
    current, seen = None, set()
    for (qid, _, _), line in zip(parsed.rows, parsed.lines, strict=True):
        if qid != current and qid in seen:
            return dataclasses.replace(parsed, tolerated=parsed.tolerated + [line])
        current = qid
        seen.add(qid)
    return parsed


def stream(data: bytes, path: str) -> io.BytesIO:
    buf = io.BytesIO(data)
    buf.name = path
    return buf


def compare_sampled(qrels, parsed: ref.Parsed) -> str:
    diff = compare_qrels(qrels, parsed)
    docs, n = qrels.docs.to_pylist(), len(qrels.docs)
    got = {(qrels.topics[k // n], docs[k % n]): qrels.strata[s]
           for k, s in zip(qrels.keys.tolist(), qrels.key_strata.tolist(), strict=True)}
    expected = {(q, d): s for q, _, d, s, _ in parsed.rows}
    return diff or ("" if got == expected else _first_difference(got, expected))


def compare_zscores(zscores, parsed: ref.Parsed) -> str:
    expected = {(q, m): (mean, std) for q, m, mean, std in parsed.rows}
    return "" if zscores == expected else _first_difference(zscores, expected)


def compare_intents(intents, parsed: ref.Parsed) -> str:
    expected = {(t, s): p for t, s, p in parsed.rows}
    return "" if intents == expected else _first_difference(intents, expected)


# a few judgments, so that read_run(..., qrels=) looks documents up while it reads (the path
# `unjudged trec_eval` and `eval` take)
LOOKUP = read_qrels({"1": {"a": 1, "d1": 1}, "007": {"00700": 2}, "301": {"FBIS3-10082": 1}})

KINDS = {
    "run": (ref.parse_run, compare_run, {
        "read_run(path)": lambda data, path: (read_run, path),
        "read_run(stream)": lambda data, path: (read_run, stream(data, path)),
        "read_run(path, qrels=)": lambda data, path: (
            lambda p: read_run(p, qrels=LOOKUP), path),
    }),
    "qrels": (lambda data: ref.parse_qrels(data), compare_qrels, {
        "read_qrels(path)": lambda data, path: (read_qrels, path),
        "read_qrels(stream)": lambda data, path: (read_qrels, stream(data, path)),
        "read_diversity_qrels(path)": lambda data, path: (read_diversity_qrels, path),
    }),
    "sampled": (ref.parse_sampled, compare_sampled, {
        "read_sampled_qrels(path)": lambda data, path: (read_sampled_qrels, path),
        "read_sampled_qrels(stream)": lambda data, path: (read_sampled_qrels,
                                                          stream(data, path)),
    }),
    "zscores": (ref.parse_zscores, compare_zscores, {
        "read_zscores(path)": lambda data, path: (read_zscores, path),
    }),
    "intents": (ref.parse_intents, compare_intents, {
        "read_intents(path)": lambda data, path: (read_intents, path),
        "read_intents(stream)": lambda data, path: (read_intents, stream(data, path)),
    }),
}


def check_all(data: bytes, kind: str, folder: str) -> dict[str, tuple[str, str]]:
    """The outcome of every reader of `kind` (run, qrels, sampled) on `data`, by reader."""
    path = os.path.join(folder, f"{kind}.txt")
    with open(path, "wb") as fh:
        fh.write(data)
    parse, compare, readers = KINDS[kind]
    parsed = parse(data)
    out = {}
    for label, make in readers.items():
        read, source = make(data, path)
        out[label] = outcome(read, source, path, parsed, compare)
    return out


def assert_clean(data: bytes, kind: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        results = check_all(data, kind, folder)
    bad = {k: v for k, v in results.items() if v[0] not in ("clean", "clean error")}
    assert not bad, f"input {data[:400]!r}: {bad}"


# ---------------------------------------------------------------------------- strategies

SEPARATORS = st.text(alphabet=" \t\v\f", min_size=1, max_size=3)
EDGES = st.one_of(st.just(""), st.just(" "), st.text(alphabet=" \t\v\f", max_size=2))
LINE_ENDS = st.sampled_from(["\n", "\r\n", "\r"])

# ids trec_eval takes whole: digits only (also with leading zeros), '#' inside, UTF-8, bytes
# that only str.split() takes for blanks, long ones
# ("\udcff" is the byte 0xff after encoding with surrogateescape: not UTF-8)
SPECIAL_IDS = ["007", "7", "0", "a#b", "x#", "日本", "é", "d\u00a0x", "d\x1cx", "d\x85x",
               "d\u2028x", "\u202ex", "-1", "+1", "1e3", "x" * 3000, "9" * 5000, "x\udcffy",
               "\udcc3"]
ID_TEXT = st.text(st.characters(blacklist_categories=("Cs",),
                                blacklist_characters=" \t\n\v\f\r\x00"), min_size=1, max_size=10)
IDS = st.one_of(st.sampled_from(SPECIAL_IDS), ID_TEXT,
                st.text(alphabet="0123456789", min_size=1, max_size=25),
                st.text(alphabet="ab#", min_size=1, max_size=4))

GOOD_SCORES = ["+1", "-1", "007", "1e3", ".5", "5.", "-0", "1E-2", "0", "3.25", "1e-400",
               "9" * 40, "-2.5e+2", "00.100", "1.00000001", "1.00000002", "3.5e38"]
BAD_SCORES = ["0x10", "nan", "NaN", "inf", "-inf", "Infinity", "1e400", "NA", "null", "1_0",
              "1,5", "..", "1e", "e3", "+", "\uff11", "0x1p3", "1.2.3"]
SCORES = st.one_of(st.sampled_from(GOOD_SCORES), st.sampled_from(GOOD_SCORES),
                   st.floats(allow_nan=False, allow_infinity=False).map(repr),
                   st.integers(-10**6, 10**6).map(str), st.sampled_from(BAD_SCORES))
SCORES_ONLY_GOOD = st.one_of(st.sampled_from(GOOD_SCORES),
                             st.floats(allow_nan=False, allow_infinity=False).map(repr))

GOOD_GRADES = ["0", "1", "2", "+1", "-1", "007", "-0", "2147483647", "-2147483648", "-2"]
BAD_GRADES = ["0x10", "NA", "null", "1.0", "1e3", "2147483648", "99999999999999999999",
              "\u0663", "1_0", "+", "--1", "1.5"]
GRADES = st.one_of(st.sampled_from(GOOD_GRADES), st.sampled_from(GOOD_GRADES),
                   st.integers(-3, 4).map(str), st.sampled_from(BAD_GRADES))


@st.composite
def render(draw, rows: list[list[str]]) -> bytes:
    """Lines of fields joined by odd blanks, with blank and comment lines between them."""
    style = draw(st.sampled_from(["\n", "\r\n", "\r", "mixed"]))
    out = []
    for fields in rows:
        extra = draw(st.sampled_from(["", "", "", "", "blank", "comment"]))
        if extra == "blank":
            out.append(draw(EDGES))
        elif extra == "comment":
            out.append(draw(EDGES) + "#" + draw(st.sampled_from(["", " note", "# x y z"])))
        line = draw(EDGES)
        for i, f in enumerate(fields):
            line += (draw(SEPARATORS) if i else "") + f
        out.append(line + draw(EDGES))
    ends = [style if style != "mixed" else draw(LINE_ENDS) for _ in out]
    text = "".join(line + end for line, end in zip(out, ends, strict=True))
    if draw(st.integers(0, 9)) == 0:
        text = "\ufeff" + text  # a byte order mark
    if draw(st.booleans()):
        text = text[: len(text) - len(ends[-1])] if ends else text  # no end on the last line
    return text.encode("utf-8", "surrogateescape")


# the rank column, read only under --ties rank
RANKS = st.one_of(st.integers(-3, 30).map(str), st.sampled_from(["+1", "007", "-0"]))
BAD_RANKS = st.sampled_from(["1.0", "0x10", "x", "99999999999999999999", "\uff11"])


@st.composite
def run_files(draw, only_good: bool = False, ranks: bool = False) -> bytes:
    topics = draw(st.lists(IDS, min_size=1, max_size=3, unique=True))
    n = draw(st.integers(1, 25))
    rows = []
    for i in range(n):
        qid = draw(st.sampled_from(topics))
        docno = draw(IDS) + str(i)  # distinct documents; repeats are made on purpose below
        score = draw(SCORES_ONLY_GOOD if only_good else SCORES)
        tag = draw(st.sampled_from(["tag", "r#1", "x"]))
        rank = draw(st.one_of(RANKS, BAD_RANKS) if ranks and not only_good else RANKS
                    if ranks else st.just(str(i + 1)))
        rows.append([qid, "Q0", docno, rank, score, tag]
                    + draw(st.lists(st.sampled_from(["extra", "#", "1"]), max_size=2)))
    if not only_good:
        mutate = draw(st.sampled_from(["", "", "", "short", "repeat", "comment-first"]))
        at = draw(st.integers(0, n - 1))
        if mutate == "short":
            rows[at] = rows[at][:draw(st.integers(1, 5))]
        elif mutate == "repeat":
            rows.insert(at, list(rows[draw(st.integers(0, n - 1))]))
        elif mutate == "comment-first":
            rows[at][0] = "#" + rows[at][0]
    return draw(render(rows))


@st.composite
def qrels_files(draw, only_good: bool = False, sampled: bool = False) -> bytes:
    """Qrels (`sampled`: sample_eval's 5 columns, now and then trec_eval's 4)."""
    topics = draw(st.lists(IDS, min_size=1, max_size=3, unique=True))
    n = draw(st.integers(1, 25))
    strata = sampled and draw(st.integers(0, 4)) > 0
    rows = []
    for i in range(n):
        grade = draw(st.sampled_from(["-1"] + GOOD_GRADES) if only_good else GRADES)
        stratum = [draw(st.sampled_from(["1", "2", "10", "s#"]))] if strata else []
        rows.append([draw(st.sampled_from(topics)), draw(st.sampled_from(["0", "0", "1", "#"])),
                     draw(IDS) + str(i), *stratum, grade])
    if not only_good:
        mutate = draw(st.sampled_from(["", "", "short", "long", "same twice", "other grade",
                                       "other stratum"]))
        at = draw(st.integers(0, n - 1))
        if mutate == "short":
            rows[at] = rows[at][:draw(st.integers(1, 3))]
        elif mutate == "long":
            rows[at] = rows[at] + ["x"]
        elif mutate:
            copy = list(rows[draw(st.integers(0, n - 1))])
            if mutate == "other grade":
                copy[-1] = str((ref.parse_grade(copy[-1].encode()) or 0) + 1)
            elif mutate == "other stratum" and strata:
                copy[3] += "0"
            rows.insert(at, copy)
    return draw(render(rows))


@st.composite
def intents_files(draw, width: int = 3) -> bytes:
    """Intent probabilities (`width` 4: trec_eval's -Z lines `qid measure mean stddev`)."""
    pairs = draw(st.lists(st.tuples(IDS, IDS), min_size=1, max_size=8, unique=True))
    rows = [[t, s] + [draw(SCORES) for _ in range(width - 2)] for t, s in pairs]
    if draw(st.booleans()):
        at = draw(st.integers(0, len(rows) - 1))
        rows[at] = rows[at][:draw(st.integers(1, 2))] + draw(st.sampled_from([[], ["x"]]))
    return draw(render(rows))


# --------------------------------------------------------------------------------- tests


@SETTINGS
@given(run_files(only_good=True))
def test_good_runs_read_as_the_reference_reads_them(data):
    assert_clean(data, "run")


@SETTINGS
@given(run_files())
def test_runs_read_or_name_the_first_bad_line(data):
    assert_clean(data, "run")


@SETTINGS
@given(qrels_files(only_good=True))
def test_good_qrels_read_as_the_reference_reads_them(data):
    assert_clean(data, "qrels")


@SETTINGS
@given(qrels_files())
def test_qrels_read_or_name_the_first_bad_line(data):
    assert_clean(data, "qrels")


@SETTINGS
@given(st.data(), st.sampled_from(["docno", "file", "rank", "trec_eval9"]))
def test_runs_under_every_tie_policy(data, ties):
    text = data.draw(run_files(only_good=data.draw(st.booleans()), ranks=ties == "rank"))
    parsed = ref.parse_run(text, ties=ties)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "run.txt")
        Path(path).write_bytes(text)
        results = {label: outcome(lambda s: read_run(s, ties=ties), source, path, parsed,
                                  lambda run, p: compare_run(run, p, ties))
                   for label, source in (("path", path), ("stream", stream(text, path)))}
    bad = {k: v for k, v in results.items() if v[0] not in ("clean", "clean error")}
    assert not bad, f"ties={ties} input {text[:400]!r}: {bad}"


@SETTINGS
@given(run_files(), st.sampled_from([7, 64, 4096]))
def test_streaming_evaluation_gives_the_reference_values(data, block):
    """`--stream` reads a run a block of bytes at a time (here tiny blocks): the same values,
    or the first bad line (or the line where a topic comes back: it needs runs grouped)."""
    if evaluate_stream is None:
        pytest.skip("unjudged.engine.stream is not there yet")
    parsed = regrouped(ref.parse_run(data))
    judged = [(q, d, i % 3) for i, (q, d, _) in enumerate(parsed.rows) if i % 2 == 0]
    qrels = "".join(f"{q} 0 {d} {g}\n" for q, d, g in judged or [("q", "d", 1)]).encode(
        "utf-8", "surrogateescape")
    expected = expected_scores(parsed, ref.parse_qrels(qrels)) if parsed.ok else {}
    with tempfile.TemporaryDirectory() as folder:
        run_path, qrels_path = os.path.join(folder, "run.txt"), os.path.join(folder, "q.txt")
        Path(run_path).write_bytes(data)
        Path(qrels_path).write_bytes(qrels)
        status, detail = outcome(
            lambda _: evaluate_stream([run_path], qrels_path, list(MEASURES), block_size=block),
            None, run_path, parsed, lambda frame, _: compare_scores(frame, expected))
    assert status in ("clean", "clean error"), f"block {block}, input {data[:400]!r}: {detail}"


PREFIXES = [0, 7, 8, 15, 16, 31, 32, 63, 64, 255, 256, 1000, 5000, 20_000]


@SETTINGS
@given(st.sampled_from(PREFIXES), st.lists(st.text("ab\u00e9z", min_size=1, max_size=4),
                                            min_size=1, max_size=30, unique=True),
       st.lists(st.sampled_from(["1", "2", "1.0000001"]), min_size=30, max_size=30),
       st.sampled_from(["pool", "run"]))
def test_long_ids_sharing_a_prefix_rank_and_match_as_the_reference(width, tails, scores, how):
    """Documents (and topics) that differ only after a long common prefix: tie-breaking by
    docno and the lookup in the qrels must see their whole ids, not a window of them."""
    prefix = "p" * width
    topics = [prefix + "1", prefix + "2"]
    lines = [f"{topics[i % 2]} Q0 {prefix}{t} {i} {scores[i]} r" for i, t in enumerate(tails)]
    judged = [f"{topics[i % 2]} 0 {prefix}{t} {i % 3}" for i, t in enumerate(tails)
              if i % 2 or i == 0]  # the first too: a topic in common
    if how == "pool":  # judged documents the run lacks, sharing the prefix too
        judged += [f"{t} 0 {prefix}{tail}q 1" for t in topics for tail in tails[:3]]
    run, qrels = ("\n".join(lines) + "\n").encode(), ("\n".join(judged) + "\n").encode()
    parsed_run, parsed_qrels = ref.parse_run(run), ref.parse_qrels(qrels)
    expected = expected_scores(parsed_run, parsed_qrels) if parsed_qrels.ok else {}
    with tempfile.TemporaryDirectory() as folder:
        run_path, qrels_path = os.path.join(folder, "run.txt"), os.path.join(folder, "q.txt")
        Path(run_path).write_bytes(run)
        Path(qrels_path).write_bytes(qrels if parsed_qrels.ok else b"x 0 y 1\n")
        results = {
            "read_run": outcome(read_run, run_path, run_path, parsed_run, compare_run),
            "evaluate": outcome(lambda _: evaluate([run_path], qrels_path, list(MEASURES)),
                                None, run_path, parsed_run,
                                lambda frame, _: compare_scores(frame, expected)),
        }
    bad = {k: v for k, v in results.items() if v[0] != "clean"}
    assert not bad, f"prefix of {width}: {bad}"


HOSTILE_IDS = st.one_of(IDS.filter(lambda t: not any(0xD800 <= ord(c) < 0xE000 for c in t)),
                        st.sampled_from(["#1", "a b", "d\tx", "", "d\nx", "d\x00", "d\rx", " x"]))


@SETTINGS
@given(st.dictionaries(HOSTILE_IDS, st.dictionaries(HOSTILE_IDS, st.integers(-2, 3),
                                                    min_size=1, max_size=3),
                       min_size=1, max_size=3))
def test_qrels_from_a_dict_survive_the_text_format_or_are_refused(judgments):
    """Qrels read from Python (ids of any text) and written as TREC text read back the same,
    or are refused with the project's error, on reading or writing; never a damaged file."""
    from unjudged.io.write import format_qrels

    try:
        text = format_qrels(read_qrels(judgments)).encode()
    except UnjudgedError:
        return
    back = read_qrels(io.BytesIO(text)).to_dict()
    assert back == read_qrels(judgments).to_dict(), f"{judgments!r} written as {text[:300]!r}"


STREAM_CASES = [b"1 Q0 a 1 1 r\n1 Q0 b 2 1x r\n2 Q0 a 1 1 r\n1 Q0 c 3 1 r\n",
                b"1 Q0 a 1 1 r\n1 Q0 a 2 1 r\n2 Q0 a 1 1 r\n1 Q0 c 3 1 r\n"]


def test_streaming_names_the_first_bad_line_before_a_topic_comes_back():
    """A bad line (line 2) before the line where a topic comes back (line 4) is the one named."""
    if evaluate_stream is None:
        pytest.skip("unjudged.engine.stream is not there yet")
    failures = []
    with tempfile.TemporaryDirectory() as folder:
        run_path, qrels_path = os.path.join(folder, "run.txt"), os.path.join(folder, "q.txt")
        Path(qrels_path).write_bytes(b"1 0 a 1\n2 0 a 1\n")
        for text in STREAM_CASES:
            Path(run_path).write_bytes(text)
            status, detail = outcome(
                lambda _: evaluate_stream([run_path], qrels_path, ["P@10"], block_size=4096),
                None, run_path, ref.parse_run(text), lambda frame, p: "")
            if status != "clean error":
                failures.append(f"{text!r}: {status}: {detail}")
    assert not failures, "\n".join(failures)


RANK_CASES = [b"1 Q0 a +1 1 r\n1 Q0 b 007 1 r\n", b"1 Q0 a 0x10 1 r\n",
              b"1 Q0 a 0 1 r\n1 Q0 b 1.0 1 r\n1\n"]


def test_rank_column_cases():
    """Under --ties rank the rank column is read by the grade's integer rules."""
    failures = []
    for text in RANK_CASES:
        parsed = ref.parse_run(text, ties="rank")
        status, detail = outcome(lambda s: read_run(s, ties="rank"), stream(text, "<r>"), "<r>",
                                 parsed, lambda run, p: compare_run(run, p, "rank"))
        if status not in ("clean", "clean error"):
            failures.append(f"{text!r}: {status}: {detail}")
    assert not failures, "\n".join(failures)


# bytes that matter to the readers, in any order: the reference decides what each file is
TEXTISH = st.lists(st.sampled_from([b" ", b"\t", b"\n", b"\r", b"\v", b"#", b"0", b"1", b"a",
                                    b".", b"-", b"+", b"e", b"x", b"Q0", b"\x00", b"\xff",
                                    b"\xc3", b"\xef\xbb\xbf"]), max_size=120).map(b"".join)


@SETTINGS
@given(st.one_of(TEXTISH, st.binary(max_size=200)), st.sampled_from(sorted(KINDS)))
def test_any_bytes_read_or_name_the_first_bad_line(data, kind):
    assert_clean(data, kind)


@SETTINGS
@given(st.one_of(TEXTISH, st.binary(max_size=200)))
def test_any_bytes_as_a_groups_file_read_or_fail_cleanly(data):
    """`pool --groups` files (CSV or `run group` lines): never a traceback."""
    from unjudged.io.groups import read_groups

    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "groups.csv")
        Path(path).write_bytes(data)
        try:
            read_groups(path)
        except UnjudgedError as exc:
            assert str(exc).startswith(path) and "\n" not in str(exc), str(exc)


# The cases the issue names, spelled out so that a failure reads as the issue's item.
ISSUE_CASES = [
    ("run", b"1 \tQ0 \td1 \t1 \t3.0 \tr\n1 \tQ0 \td2 \t2 \t2.0 \tr\n"),  # item 6
    ("run", b"1\vQ0\fd1\v1\f3.0\vr\n"),  # item 6: VT/FF
    ("run", b"1 Q0 a 1 3 r x\r1 Q0 b 2 2 r\r1 Q0 c 3 1 r\r"),  # item 9: CR-only, text after tag
    ("qrels", b"1 0 a 0x10\n"),  # item 8
    ("qrels", b"1 0 a +1\n"),
    ("qrels", b"1 0 a NA\n"),
    ("qrels", b"1 0 a 99999999999999999999\n"),
    ("run", b"9" * 5000 + b" Q0 a 1 1.0 r\n"),
    ("run", b"1 Q0 a 1 1 r\n   \t \n1 Q0 b\n"),  # item 10: the bad line after blanks
    ("qrels", b"1 0 a 1\n \n\n1 0 b\n"),
    ("run", b"\xef\xbb\xbf 1 Q0 a 1 1 r\n"),  # a byte order mark, then a blank
    ("run", b"\xef\xbb\xbf#c\n1 Q0 a 1 1 r\n"),  # a byte order mark, then a comment
    ("run", b"1 Q0 a 1 1 r\n1 Q0 b 2 0.5 "),  # 5 fields and one trailing blank
    ("qrels", b"1 0 a 0000000000001\n"),  # atol reads 1
    ("run", b"BZh1 Q0 a 1 1 r\n"),  # text, not bzip2
    ("intents", b"#\x00\n1 a 1\n"),  # a NUL byte, in a comment too
    ("zscores", b"#\x00\n1 a 1 1\n"),
    ("sampled", b"#\x00"),
    ("intents", b"0\n\x00"),  # line 1 is bad before the NUL of line 2
    ("intents", gzip.compress(b"1 a 0.5\n")),  # a stream reads what a path reads
    ("intents", b"007\n"),  # one field
    ("intents", b"1 x\xffy 0.5\n"),  # not UTF-8
    ("intents", b"1 a 1_0\n"),  # Python's float() reads 10
]


def test_the_issue_cases():
    failures = []
    for kind, data in ISSUE_CASES:
        with tempfile.TemporaryDirectory() as folder:
            for label, (status, detail) in check_all(data, kind, folder).items():
                if status not in ("clean", "clean error"):
                    failures.append(f"{label} on {data[:60]!r}: {status}: {detail}")
    assert not failures, "\n".join(failures)


@SETTINGS
@given(qrels_files(only_good=True, sampled=True))
def test_good_sampled_qrels_read_as_the_reference_reads_them(data):
    assert_clean(data, "sampled")


@SETTINGS
@given(qrels_files(sampled=True))
def test_sampled_qrels_read_or_name_the_first_bad_line(data):
    assert_clean(data, "sampled")


@SETTINGS
@given(intents_files())
def test_intents_read_or_name_the_first_bad_line(data):
    assert_clean(data, "intents")


@SETTINGS
@given(intents_files(width=4))
def test_zscores_read_or_name_the_first_bad_line(data):
    assert_clean(data, "zscores")


# ------------------------------------------------- tables against the same data as TREC text
# A table (CSV, TSV, JSONL, Parquet) and the TREC file with the same rows must read to the same
# run or qrels, or both be refused (issue 34, item 5): a cell is read by the rules of a TREC
# field whatever its format or column type. Seeded random cases, fast enough for the suite.

TABLE_IDS = ["007", "7", "0", "12", "a#b", "日本", "é", "-1", "+1", "1e3", "1.0", "d1", "D1",
             "x" * 300, "q", "true", "NaN", "null"]
TABLE_SCORES = GOOD_SCORES + BAD_SCORES + ["", "true", "false", "1.0", "1e0", "0X10", "1e-320"]
TABLE_GRADES = GOOD_GRADES + BAD_GRADES + ["", "true", "1e0", "0X1", "4294967295",
                                           "18446744073709551615", "0" * 30 + "2"]
# Parquet column types of the number column, with the values they may hold
TYPED = {
    "int64": lambda rng: rng.choice([0, 1, 2, -1, 3, 2**31 - 1, 2**31, -(2**31), 2**62]),
    "uint64": lambda rng: rng.choice([0, 1, 2, 3, 2**31, 2**32 - 1, 2**64 - 1]),
    "float64": lambda rng: rng.choice([0.0, 1.0, 2.0, 1.5, -0.0, 1e300, 5e-324, math.nan,
                                       math.inf, -math.inf, rng.uniform(-5, 5)]),
    "bool": lambda rng: rng.random() < 0.5,
}


def trec_text(value) -> str:
    """A cell as the TREC field of the same text ('' for a missing cell: the field is gone)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def json_token(value) -> str:
    """A cell as JSONL writes it: a number's text bare when JSON takes it, else a string."""
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else {"nan": "NaN", "inf": "Infinity"}.get(
            repr(value), "-Infinity")
    text = str(value)
    if isinstance(value, int):
        return text
    try:
        number = json.loads(text)
        bare = isinstance(number, (int, float)) and not isinstance(number, bool) \
            and text.strip() == text
    except ValueError:
        bare = False
    return text if bare and value != "" else json.dumps(text)


def table_case(rng, kind: str) -> tuple[str, list[str], list[list]]:
    """(format, column names, rows) of a random run or qrels table."""
    fmt = rng.choice(["csv", "tsv", "jsonl", "parquet"])
    topics = rng.sample(TABLE_IDS, rng.randint(1, 3))
    typed = fmt == "parquet" and rng.random() < 0.5
    kind_of = rng.choice(list(TYPED)) if typed else None
    pool = TABLE_SCORES if kind == "run" else TABLE_GRADES
    rows = []
    for i in range(rng.randint(1, 10)):
        good = rng.random() < 0.85
        if kind_of is not None:
            value = TYPED[kind_of](rng)
        elif good:
            value = rng.choice(GOOD_SCORES if kind == "run" else GOOD_GRADES)
        else:
            value = rng.choice(pool)
        docno = rng.choice(TABLE_IDS) + str(i)
        rows.append([rng.choice(topics), docno, value])
    if rng.random() < 0.15:  # a document twice in a topic: same or another value
        copy = list(rng.choice(rows))
        if rng.random() < 0.5:
            copy[2] = rng.choice(GOOD_GRADES if kind == "qrels" else GOOD_SCORES) \
                if kind_of is None else TYPED[kind_of](rng)
        rows.insert(rng.randrange(len(rows) + 1), copy)
    if rng.random() < 0.05:  # a missing cell
        rows[rng.randrange(len(rows))][rng.randrange(3)] = "" if fmt in ("csv", "tsv") \
            else None
    names = ["qid", "docno", "score" if kind == "run" else "relevance"]
    return fmt, names, rows


def write_table(path: str, fmt: str, names: list[str], rows: list[list]) -> None:
    if fmt in ("csv", "tsv"):
        with open(path, "w", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh, delimiter="," if fmt == "csv" else "\t")
            writer.writerow(names)
            writer.writerows([[trec_text(v) for v in row] for row in rows])
    elif fmt == "jsonl":
        with open(path, "w", encoding="utf-8") as fh:
            for row in rows:
                cells = (f"{json.dumps(n)}: {json_token(v)}" for n, v in zip(names, row,
                                                                           strict=True))
                fh.write("{" + ", ".join(cells) + "}\n")
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        columns = {}
        for j, n in enumerate(names):
            values = [row[j] for row in rows]
            kinds = {type(v) for v in values if v is not None}
            if kinds == {str} or not kinds:
                columns[n] = pa.array([v for v in values], pa.string())
            elif kinds == {bool}:
                columns[n] = pa.array(values, pa.bool_())
            elif kinds == {float}:
                columns[n] = pa.array(values, pa.float64())
            else:  # integers: uint64 when one needs it
                big = any(v is not None and v >= 2**63 for v in values)
                columns[n] = pa.array(values, pa.uint64() if big or min(
                    v for v in values if v is not None) >= 2**31 else pa.int64())
        pq.write_table(pa.table(columns), path)


def trec_file(path: str, kind: str, rows: list[list]) -> None:
    lines = []
    for qid, docno, value in rows:
        fields = [trec_text(qid), "Q0", trec_text(docno), "1", trec_text(value), "tag"] \
            if kind == "run" else [trec_text(qid), "0", trec_text(docno), trec_text(value)]
        lines.append(" ".join(f for f in fields if f != ""))
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")


def _read_both(read, table: str, trec: str):
    out = []
    for path in (table, trec):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                result = read(path)
            except UnjudgedError as exc:
                result = exc
            except Exception as exc:  # noqa: BLE001 -- any other exception is the finding
                return f"traceback on {os.path.basename(path)}: {type(exc).__name__}: {exc}"
        noisy = [w for w in caught if issubclass(w.category, RuntimeWarning)]
        if noisy:
            return f"warning: {noisy[0].message}"
        out.append(result)
    return out


def _value_of(result, kind: str):
    if isinstance(result, UnjudgedError):
        if "\n" in str(result):
            return "error over several lines"
        return "refused"
    if kind == "qrels":
        return result.to_dict()
    docs, scores = result.docno.to_pylist(), result.score.tolist()
    return {t: list(zip(docs[result.offsets[i]:result.offsets[i + 1]],
                        scores[result.offsets[i]:result.offsets[i + 1]], strict=True))
            for i, t in enumerate(result.topics)}


def table_outcome(rng, kind: str, folder: str) -> tuple[str, str]:
    """("same", "") or (what differs, detail) for one random table and its TREC text."""
    fmt, names, rows = table_case(rng, kind)
    table, trec = os.path.join(folder, f"t.{fmt}"), os.path.join(folder, f"t.{kind}")
    write_table(table, fmt, names, rows)
    trec_file(trec, kind, rows)
    both = _read_both(read_run if kind == "run" else read_qrels, table, trec)
    if isinstance(both, str):
        return "traceback or warning", both
    got, want = (_value_of(r, kind) for r in both)
    if got == want:
        return "same", ""
    status = "rule mismatch" if "refused" in (got, want) else "different values"
    return status, f"{fmt} {kind} rows {rows!r}: table {str(got)[:150]}, TREC {str(want)[:150]}"


def test_tables_read_as_their_trec_text_or_are_refused_alike():
    rng = random.Random(34)
    counts: dict[str, int] = {}
    failures = []
    with tempfile.TemporaryDirectory() as folder:
        for i in range(int(os.environ.get("UNJUDGED_TABLE_CASES", "2000"))):
            status, detail = table_outcome(rng, "run" if i % 2 else "qrels", folder)
            counts[status] = counts.get(status, 0) + 1
            if status != "same":
                failures.append(f"{status}: {detail}")
    assert not failures, f"{counts}\n" + "\n".join(failures[:15])
