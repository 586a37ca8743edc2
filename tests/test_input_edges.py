"""Issue 15, items 6-11: blanks, pipes, numbers, CR line ends, error lines, memory and limits.

Each case is a hand-made file; the CLI cases compare against what trec_eval 10 prints or against
the same input read from a regular file.
"""

from __future__ import annotations

import gzip
import io
import os
import subprocess
import sys
import threading
from itertools import pairwise

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from unjudged.cli import main
from unjudged.data._strings import WINDOW, fingerprints, string_offsets
from unjudged.errors import FormatError, InputError
from unjudged.io import read_qrels, read_run
from unjudged.io._source import LineLimit, set_max_line_length
from unjudged.io._validate import grade_problem, score_problem
from unjudged.io.diversity import read_intents
from unjudged.io.sampled import read_sampled_qrels

QRELS = b"1 0 d1 1\n1 0 d2 1\n1 0 d3 0\n"
LINES = [(b"1", b"Q0", b"d1", b"1", b"3.0", b"r"), (b"1", b"Q0", b"d2", b"2", b"2.0", b"r"),
         (b"1", b"Q0", b"d3", b"3", b"1.0", b"r")]


def _run_text(sep: bytes, end: bytes = b"\n", extra: bytes = b"") -> bytes:
    return b"".join(sep.join(line) + extra + end for line in LINES)


def _eval(tmp_path, run: bytes, *args: str, qrels: bytes = QRELS):
    q, r = tmp_path / "q.txt", tmp_path / "run.txt"
    q.write_bytes(qrels)
    r.write_bytes(run)
    return CliRunner().invoke(main, ["eval", str(q), str(r), "-m", "P@10", "-m", "NumRet",
                                     "-f", "tsv", *args])


def _values(result) -> dict[str, str]:
    assert result.exit_code == 0, result.output
    return {row.split("\t")[2]: row.split("\t")[3] for row in result.stdout.splitlines()[1:]}


# item 6: any run of blanks separates fields, on every path -----------------------------------

@pytest.mark.parametrize("sep", [b" \t", b"\t ", b"\v", b"\f", b" \v\f ", b"\t\t", b"  "])
def test_blank_runs_separate_fields(tmp_path, sep):
    # trec_eval prints P_10 0.2000 and num_ret 3 for each of these (tsv keeps full precision)
    assert _values(_eval(tmp_path, _run_text(sep))) == {"P@10": "0.2", "NumRet": "3"}
    run = read_run(tmp_path / "run.txt")
    assert run.docno.to_pylist() == ["d1", "d2", "d3"]


def test_blank_inside_an_unused_field_shifts_nothing_silently(tmp_path):
    # "Q0\tz" is two fields: docno is then "z" and the score "1" (the rank column)
    p = tmp_path / "r"
    p.write_bytes(b"1 Q0\tz d1 1 3.0 r\n")
    run = read_run(p)
    assert run.docno.to_pylist() == ["z"] and run.score.tolist() == [1.0]


@pytest.mark.parametrize("pad", [0, (1 << 18) - 8, (1 << 18) - 7])
def test_two_delimiters_in_a_row_never_make_an_empty_field(tmp_path, pad):
    """`1 Q0 d1  3.0 r` has 5 fields whichever way it is read: from a regular file (Arrow's
    fast path, with the doubled blank in a block or across two of Arrow's 256 KiB blocks), from
    bytes, and through a pipe."""
    # one line of exactly `pad` bytes: the doubled blank then starts at byte 2^18 - 1 or 2^18
    filler = b"0 Q0 " + b"f" * (pad - 12) + b" 1 1 r\n" if pad else b""
    text = filler + b"1 Q0 d1  3.0 r\n"
    p = tmp_path / "r"
    p.write_bytes(text)
    line = text.count(b"\n")
    for source in (p, io.BytesIO(text)):
        with pytest.raises(FormatError) as err:
            read_run(source)
        assert err.value.line == line and "found 5" in str(err.value)


def test_qrels_with_vertical_tab_in_docno_has_five_fields(tmp_path):
    p = tmp_path / "q"
    p.write_bytes(b"301 0 FBIS-1 1\n301 0 FBIS\x0b-17880 0\n")
    with pytest.raises(FormatError) as err:
        read_qrels(p)
    assert err.value.line == 2 and "found 5" in str(err.value)


# item 7: stdin, pipes, FIFOs read exactly what a regular file reads -------------------------

def _big_run() -> bytes:
    rows = [f"{t} Q0 doc{t}-{i} {i} {1000 - i} tag\n" for t in range(30) for i in range(1, 500)]
    return "".join(rows).encode()  # ~430 KB: more than any sniffed head or pipe buffer


def test_pipe_reads_everything():
    data = _big_run()
    read_fd, write_fd = os.pipe()

    def write():
        with os.fdopen(write_fd, "wb") as fh:
            fh.write(data)

    writer = threading.Thread(target=write)
    writer.start()
    run = read_run(f"/dev/fd/{read_fd}")
    writer.join()
    os.close(read_fd)
    assert len(run) == data.count(b"\n") and run.name == "tag"


def test_small_pipe_is_not_empty():
    read_fd, write_fd = os.pipe()
    os.write(write_fd, b"1 Q0 a 1 1.0 r\n")
    os.close(write_fd)
    try:
        assert read_run(f"/dev/fd/{read_fd}").docno.to_pylist() == ["a"]
    finally:
        os.close(read_fd)


def test_fifo_whose_writer_finished(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    data = _big_run()

    def write():
        with open(fifo, "wb") as fh:
            fh.write(data)

    writer = threading.Thread(target=write)
    writer.start()
    run = read_run(str(fifo))  # opened once: a second open would wait for a writer forever
    writer.join()
    assert len(run) == data.count(b"\n")


def test_stdin_in_a_subprocess(tmp_path):
    data = _big_run()
    qrels = tmp_path / "q"
    qrels.write_bytes(b"0 0 doc0-1 1\n")
    regular = tmp_path / "run"
    regular.write_bytes(data)
    cmd = [sys.executable, "-m", "unjudged", "eval", str(qrels), "-", "-m", "NumRet", "-f", "tsv"]
    piped = subprocess.run(cmd, input=data, capture_output=True, timeout=120)
    cmd[5] = str(regular)
    direct = subprocess.run(cmd, capture_output=True, timeout=120)
    assert piped.returncode == direct.returncode == 0, piped.stderr
    assert piped.stdout == direct.stdout and b"\t499\n" in piped.stdout


# item 8: numbers as trec_eval reads them, or one clear line ----------------------------------

@pytest.mark.parametrize("grade,value", [("+1", 1), ("007", 7), ("-0", 0), ("-2", -2)])
def test_grades_trec_eval_reads(tmp_path, grade, value):
    p = tmp_path / "q"
    p.write_text(f"1 0 a 1\n1 0 b {grade}\n")
    assert read_qrels(p).to_dict() == {"1": {"a": 1, "b": value}}


@pytest.mark.parametrize("grade,words", [
    ("0x10", "trec_eval would read 0"), ("NA", "not an integer"), ("null", "not an integer"),
    ("1.5", "trec_eval would read 1"), ("99999999999999999999", "out of range"),
    ("2147483648", "out of range"), ("\u0663", "not an integer"),
])
def test_grades_refused_with_their_line(tmp_path, grade, words):
    text = f"1 0 a 1\n\n1 0 b {grade}\n1 0 c 1\n".encode()
    for source in (tmp_path / "q",):
        source.write_bytes(text)
        with _no_warnings(), pytest.raises(FormatError) as err:
            read_qrels(source)
        assert err.value.line == 3 and words in str(err.value), str(err.value)
        with pytest.raises(FormatError) as err:
            read_sampled_qrels(str(source))
        assert err.value.line == 3


def test_grade_from_dicts_and_frames_follows_the_same_rules():
    with pytest.raises(FormatError, match="0x10"):
        read_qrels({"1": {"a": "0x10"}})
    assert read_qrels({"1": {"a": "+1"}}).to_dict() == {"1": {"a": 1}}


class _no_warnings:
    """No numpy RuntimeWarning (or any other) while reading."""

    def __enter__(self):
        import warnings

        self._catch = warnings.catch_warnings()
        self._catch.__enter__()
        warnings.simplefilter("error")

    def __exit__(self, *exc):
        self._catch.__exit__(*exc)
        return False


@pytest.mark.parametrize("score,ok", [
    ("+1", 1.0), (".5", 0.5), ("5.", 5.0), ("1e3", 1000.0), ("007", 7.0), ("1e-400", 0.0),
    ("0x10", None), ("0x1p3", None), ("inf", None), ("nan", None), ("1e400", None),
    ("1_0", None), ("NA", None), ("\uff11", None),
])
def test_scores_on_every_path(tmp_path, score, ok):
    text = f"1 Q0 a 1 9 r\n1 Q0 b 2 {score} r\n".encode()
    paths = {"fast": text, "tabs": text.replace(b" ", b"\t"),
             "blanks": text.replace(b" ", b"  "), "gzip": gzip.compress(text)}
    for label, data in paths.items():
        p = tmp_path / label
        p.write_bytes(data)
        if ok is None:
            with pytest.raises(FormatError) as err:
                read_run(p)
            assert err.value.line == 2, label
        else:
            assert read_run(p).to_dict() == {"1": {"a": 9.0, "b": ok}}, label
    if ok is None:
        with pytest.raises(FormatError):
            read_run({"1": {"a": 9.0, "b": score}})
        assert score_problem(score) is not None
    else:
        assert score_problem(score) is None


def test_score_beyond_float_range_ties_without_warnings(tmp_path):
    p = tmp_path / "r"
    p.write_text("1 Q0 a 1 1e39 r\n1 Q0 b 2 2e39 r\n")
    with _no_warnings():
        run = read_run(p)
    assert run.docno.to_pylist() == ["b", "a"]  # equal as C floats (inf): docno descending


def test_five_thousand_digit_topic_id(tmp_path):
    topic = "9" * 5000
    q = (f"{topic} 0 d1 1\n1 0 d1 1\n").encode()
    run = (f"{topic} Q0 d1 1 1.0 r\n1 Q0 d1 1 1.0 r\n").encode()
    values = _values(_eval(tmp_path, run, qrels=q))
    assert values == {"P@10": "0.1", "NumRet": "2"}
    q_file = tmp_path / "q.txt"
    result = CliRunner().invoke(main, ["qrels", "stats", str(q_file)])
    assert result.exit_code == 0 and "Traceback" not in result.output


def test_nan_mean_in_z_file(tmp_path):
    z = tmp_path / "z"
    z.write_text("1 P_10 0.5 0.1\n1 map nan 0.1\n")
    (tmp_path / "q").write_bytes(QRELS)
    (tmp_path / "r").write_bytes(_run_text(b" "))
    result = CliRunner().invoke(main, ["trec_eval", "-Z", str(z), str(tmp_path / "q"),
                                       str(tmp_path / "r")])
    assert result.exit_code == 2 and f"{z}:2:" in result.output and "finite" in result.output


def test_intents_follow_the_number_rules():
    import io

    with pytest.raises(FormatError) as err:
        read_intents(io.BytesIO(b"1 1 0.5\n1 2 0x1p3\n"))
    assert err.value.line == 2


# item 9: CR-only line ends read as lines ------------------------------------------------------

@pytest.mark.parametrize("end", [b"\r", b"\r\n", b"\n"])
@pytest.mark.parametrize("extra", [b"", b" text after the tag"])
def test_line_ends(tmp_path, end, extra):
    assert _values(_eval(tmp_path, _run_text(b" ", end, extra))) == {"P@10": "0.2",
                                                                      "NumRet": "3"}


def test_mixed_line_ends_and_their_numbers(tmp_path):
    p = tmp_path / "r"
    p.write_bytes(b"1 Q0 a 1 1 r\r\n1 Q0 b 2 1 r\r1 Q0 c 3 1 r\n1 Q0 d 4 x r\n")
    with pytest.raises(FormatError) as err:
        read_run(p)
    assert err.value.line == 4
    q = tmp_path / "q"
    q.write_bytes(b"# comment\r1 0 a 1\r1 0 b 0\r")
    assert read_qrels(q).to_dict() == {"1": {"a": 1, "b": 0}}


# item 10: the message names the first bad line -----------------------------------------------

@pytest.mark.parametrize("kind,text,line", [
    ("run", b"1 Q0 a 1 1 r\n     \n1 Q0 b 2 0 r\n", None),
    ("qrels", b"1 0 a 1\n   \n1 0 b 0\n", None),
    ("run", b"1 Q0 a 1 x r\n1 Q0 b 2\n", 1),
    ("run", b"1 Q0 a 1 1 r\n1 Q0 a 2 1 r\n1 Q0 b 2\x00 1 r\n", 2),
    ("run", b"1 Q0 a 1 1 r\n1 Q0 b 2 x r\n1 Q0 a 3 1 r\n", 2),
    ("qrels", b"1 0 a 1\n1 0 a 0\n1 0 b\n", 2),
    ("qrels", b"1 0 a 1\n1 0 b 1\n1 0 b 0\n1 0 a 0\n", 3),
    ("qrels", b"1 0 a 1\n\t \v\n1 0 b NA\n", 3),
])
def test_first_bad_line(tmp_path, kind, text, line):
    p = tmp_path / "f"
    p.write_bytes(text)
    reader = read_run if kind == "run" else read_qrels
    if line is None:
        assert len(reader(p)) == 2
        return
    with pytest.raises(FormatError) as err:
        reader(p)
    assert err.value.line == line, str(err.value)


# item 11: a line length limit, and memory that does not grow with the longest id -----------

def test_line_limit(tmp_path):
    p = tmp_path / "r"
    p.write_bytes(b"1 Q0 a 1 1 r\n1 Q0 " + b"x" * 500 + b" 2 1 r\n")
    set_max_line_length(100)
    try:
        with pytest.raises(FormatError) as err:
            read_run(p)
        assert err.value.line == 2 and "longer than 100 bytes" in str(err.value)
    finally:
        set_max_line_length(None)
    assert len(read_run(p)) == 2
    q = tmp_path / "q"
    q.write_bytes(b"1 0 a 1\n")
    result = CliRunner().invoke(main, ["--max-line-length", "100", "eval", str(q), str(p),
                                       "-m", "P@10"])
    assert result.exit_code == 2 and ":2: line longer than 100 bytes" in result.output


def test_gzip_bomb_of_zeros_stops_at_the_limit(tmp_path):
    p = tmp_path / "bomb.gz"
    p.write_bytes(gzip.compress(bytes(64 << 20)))  # 64 MB of zeros, 64 KB compressed
    # VmHWM is this process image's own peak: ru_maxrss would carry over the peak of the
    # (large) test process that forked it, as Linux keeps it across exec
    code = ("import sys\n"
            "from unjudged.io import read_run\n"
            "from unjudged.errors import FormatError\n"
            "try:\n    read_run(sys.argv[1])\n"
            "except FormatError as e:\n    print(e)\n"
            "status = open('/proc/self/status').read()\n"
            "print(next(l.split()[1] for l in status.splitlines() if l.startswith('VmHWM')))\n")
    env = dict(os.environ, UNJUDGED_MAX_LINE="4096")
    out = subprocess.run([sys.executable, "-c", code, str(p)], capture_output=True, text=True,
                         env=env, timeout=120).stdout.splitlines()
    assert out[0].endswith("bomb.gz:1: line longer than 4096 bytes; a longer line is refused "
                           "(raise the limit with --max-line-length or UNJUDGED_MAX_LINE)")
    assert int(out[1]) < 250_000  # KB: the 64 MB were never inflated at once


@given(st.integers(1, 12), st.lists(st.sampled_from([b"a", b"\n", b"\r", b"b"]), max_size=60),
       st.lists(st.integers(0, 60), max_size=3))
@settings(max_examples=300, deadline=None)
def test_line_limit_in_chunks_finds_the_first_long_line(limit, parts, cuts):
    data = b"".join(parts)
    expected, current = -1, 0
    for i, byte in enumerate(data):
        current = 0 if byte in b"\r\n" else current + 1
        if current > limit:
            expected = i
            break
    check, found = LineLimit(limit), -1
    bounds = sorted({0, len(data), *(min(c, len(data)) for c in cuts)})
    for a, b in pairwise(bounds):
        over = check.check(data[a:b])
        if over >= 0:
            found = a + over
            break
    assert found == expected


def test_fingerprints_of_long_ids_match_the_unwindowed_hash():
    import pyarrow as pa

    ids = ["x" * n + str(n) for n in (1, 7, 8, 9, 100, WINDOW - 1, WINDOW + 5, 3000)]
    col = pa.array(ids)
    got = fingerprints(col)
    # the definition: first word, then for longer ids each further word mixed in
    mix = np.uint64(0x9E3779B97F4A7C15)
    for i, s in enumerate(ids):
        raw = s.encode() + b"\0" * (-len(s) % 8)
        words = np.frombuffer(raw, dtype=np.uint64)
        h = words[0]
        if len(s) > 8:
            h = h ^ (np.uint64(len(s)) << np.uint64(56))
            with np.errstate(over="ignore"):
                for w in words[1:]:
                    h = h * mix ^ w
        assert got[i] == h, s
    assert string_offsets(col)[-1] == sum(map(len, ids))


def test_long_docno_peak_memory(tmp_path):
    run, qrels = tmp_path / "run.txt", tmp_path / "qrels.txt"
    with open(run, "w") as r, open(qrels, "w") as q:
        for i in range(30_000):
            doc = "L" * 10_000 if i == 17 else f"doc{i:06d}"
            r.write(f"{i // 1000} Q0 {doc} {i % 1000 + 1} {1000 - i % 1000} tag\n")
            if i % 3 == 0 or i == 17:
                q.write(f"{i // 1000} 0 {doc} {i % 2}\n")
    cmd = [sys.executable, "-m", "unjudged", "eval", str(qrels), str(run), "-m", "P@10",
           "-m", "AP", "-m", "NumRet", "-f", "tsv"]
    # a parent of its own, so that RUSAGE_CHILDREN holds this one command's peak alone
    code = ("import resource, subprocess, sys\n"
            "done = subprocess.run(sys.argv[1:], capture_output=True)\n"
            "sys.stderr.buffer.write(done.stderr)\n"
            "sys.stdout.buffer.write(done.stdout)\n"
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")
    done = subprocess.run([sys.executable, "-c", code, *cmd], capture_output=True, text=True,
                          timeout=300)
    *output, peak_kb = done.stdout.splitlines()
    assert "NumRet\t30000" in "\n".join(output), done.stderr
    assert int(peak_kb) < 300 * 1024, f"peak {int(peak_kb) // 1024} MB"


def test_empty_and_missing_inputs_stay_clean(tmp_path):
    p = tmp_path / "e"
    p.write_bytes(b"\r\n \t\r\n")
    with pytest.raises(InputError, match="empty file"):
        read_run(p)
    assert grade_problem("+7") is None


@pytest.mark.parametrize("text,records", [
    (b"\xef\xbb\xbf 1 Q0 a 1 1 r\n", 1),          # BOM, then a blank
    (b"\xef\xbb\xbf#c\n1 Q0 a 1 1 r\n", 1),       # BOM, then a comment
    (b"\xef\xbb\xbf1\tQ0\ta\t1\t1\tr\n", 1),
])
def test_byte_order_mark_then_the_first_line_as_any_other(tmp_path, text, records):
    p = tmp_path / "r"
    p.write_bytes(text)
    run = read_run(p)
    assert run.topics == ["1"] and len(run) == records and run.name == "r"


def test_small_readers_share_the_rules(tmp_path):
    import io

    with pytest.raises(FormatError, match="UTF-8"):
        read_intents(io.BytesIO(b"1 x\xffy 0.5\n"))
    assert read_intents(io.BytesIO(b"\xef\xbb\xbf1 a 0.5\n")) == {("1", "a"): 0.5}
    from unjudged.trec_eval._run import read_zscores

    z = tmp_path / "z"
    z.write_bytes(b"1 P_10 0.5 1\r1 map 1_0 1\r")
    with pytest.raises(FormatError) as err:
        read_zscores(str(z))
    assert err.value.line == 2


@pytest.mark.parametrize("text", [b"1 Q0 a 1 1 r\n1 Q0 b 2 0.5 ", b" 1 Q0 a 1 1 r\n",
                                  b"1 Q0 a 1 1 \r\n1 Q0 b 2 0.5 r\n"])
def test_a_missing_field_at_the_ends_of_the_file_is_named(tmp_path, text):
    p = tmp_path / "r"
    p.write_bytes(text)
    if text.startswith(b" "):  # leading blanks are no field
        assert len(read_run(p)) == 1
        return
    with pytest.raises(FormatError, match="found 5"):
        read_run(p)


def test_ranks_and_long_zero_padded_grades_follow_the_rules(tmp_path):
    p = tmp_path / "r"
    p.write_bytes(b"1 Q0 a +2 1 r\n1 Q0 b 1 1 r\n")
    assert read_run(p, ties="rank").docno.to_pylist() == ["b", "a"]
    p.write_bytes(b"1 Q0 a 1.0 1 r\n1 Q0 b 2 0x10 r\n")
    with pytest.raises(FormatError) as err:
        read_run(p, ties="rank")
    assert err.value.line == 1 and "rank '1.0'" in str(err.value)
    q = tmp_path / "q"
    q.write_bytes(b"1 0 a 0000000000001\n")
    assert read_qrels(q).to_dict() == {"1": {"a": 1}}


def test_hexadecimal_rank_and_missing_frame_values():
    import io

    import pandas as pd

    with pytest.raises(FormatError) as err:
        read_run(io.BytesIO(b"1 Q0 a 0x10 1 r\n"), ties="rank")
    assert err.value.line == 1 and "rank '0x10'" in str(err.value)
    with pytest.raises(FormatError, match="missing query id in row 1"):
        read_run(pd.DataFrame({"qid": ["1", None], "docno": ["a", "b"], "score": [1.0, 2.0]}))
    with pytest.raises(FormatError, match="missing relevance in row 0"):
        read_qrels(pd.DataFrame({"qid": ["1"], "docno": ["a"], "rel": [None]}))
    with pytest.raises(FormatError, match="score 'nan'"):
        read_run({"1": {"a": float("nan")}})
