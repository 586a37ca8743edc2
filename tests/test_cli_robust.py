"""Command-level robustness (issue 15, items 12, 13 and 15): no traceback for runs that share
no topic with the qrels, for odd groups files or a damaged index cache; loud warnings instead
of silent numbers, and --strict to fail on them; stray files in a run folder skipped."""

from __future__ import annotations

import bz2
import gzip
import lzma
import warnings

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from unjudged.cli import main
from unjudged.errors import FormatError
from unjudged.io.groups import read_groups
from unjudged.io.paths import first_tag, not_a_run
from unjudged.strategies.summaries import mode, summarise

QRELS = "1 0 a 1\n1 0 b 0\n1 0 c 1\n2 0 a 1\n"
RUN = "1 Q0 a 1 3.0 good\n1 Q0 x 2 2.0 good\n2 Q0 a 1 1.0 good\n"
ELSEWHERE = "7 Q0 a 1 3.0 lost\n8 Q0 b 1 1.0 lost\n"  # no topic of the qrels


def _invoke(*args: str):
    return CliRunner().invoke(main, [str(a) for a in args])


def _no_traceback(result, code: int = 0):
    assert result.exit_code == code, (result.output, result.exception)
    assert "Traceback" not in result.stderr and "Aborted" not in result.stderr
    return result


@pytest.fixture
def inputs(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "good.run").write_text(RUN)
    (tmp_path / "lost.run").write_text(ELSEWHERE)
    return tmp_path


# ---- item 13: a run that shares no topic with the qrels ------------------------------------

def _lost_warning(tmp_path) -> str:
    return (f"unjudged: warning: run lost (file {tmp_path / 'lost.run'}) shares no topic with "
            f"the qrels {tmp_path / 'qrels.txt'}; its scores are meaningless")


def test_eval_warns_of_a_run_with_no_common_topic(inputs):
    r = _no_traceback(_invoke("eval", inputs / "qrels.txt", inputs / "good.run",
                              inputs / "lost.run", "-m", "P@1"))
    assert [line.split() for line in r.stdout.splitlines()] == \
        [["run", "P@1"], ["good", "1.0000"], ["lost", "0.0000"]]
    assert _lost_warning(inputs) in r.stderr.splitlines()


def test_strict_fails_on_a_run_with_no_common_topic(inputs):
    r = _no_traceback(_invoke("eval", inputs / "qrels.txt", inputs / "lost.run", "-m", "P@1",
                              "--strict"), code=2)
    assert r.stdout == ""
    assert r.stderr.startswith("unjudged: error: run lost (file ")
    assert "(--strict)" in r.stderr


@pytest.mark.parametrize("complete", [[], ["-c"]])
def test_estimate_of_a_run_with_no_common_topic(inputs, complete):
    r = _no_traceback(_invoke("estimate", inputs / "qrels.txt", inputs / "lost.run", "-m", "P@1",
                              "-b", "30", "-f", "tsv", "--point", "mode", *complete))
    rows = [line.split("\t") for line in r.stdout.splitlines()]
    header = rows[0]
    summary = {row[header.index("method")]: row for row in rows[1:] if row[1] == "all"}
    assert float(summary["nonrel"][header.index("value")]) == 0.0
    assert float(summary["bootstrap"][header.index("value")]) == 0.0
    assert _lost_warning(inputs) in r.stderr.splitlines()


def test_report_of_a_run_with_no_common_topic(inputs, tmp_path):
    out = tmp_path / "report.html"
    r = _no_traceback(_invoke("report", inputs / "qrels.txt", inputs / "good.run",
                              inputs / "lost.run", "-m", "P@1", "-b", "30", "-o", out,
                              "--jobs", "1"))
    assert _lost_warning(inputs) in r.stderr.splitlines()
    assert "lost" in out.read_text()


def test_report_of_a_run_from_stdin(inputs, tmp_path):
    out = tmp_path / "report.html"
    (inputs / "other.run").write_text(RUN.replace("good", "other"))
    r = CliRunner().invoke(main, ["report", str(inputs / "qrels.txt"), "-",
                                  str(inputs / "other.run"), "-m", "P@1", "-b", "30", "-o",
                                  str(out), "--jobs", "1"], input=RUN)
    _no_traceback(r)
    page = out.read_text()
    assert "good" in page and "other" in page


@pytest.mark.parametrize("run", [{"7": {"a": 1.0}}, {}])
def test_api_warns_of_a_run_with_no_common_topic(run):
    import unjudged
    from unjudged.errors import UnjudgedWarning

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        df = unjudged.evaluate(run, {"1": {"a": 1}}, "P@1", per_topic=False)
    assert df.value.tolist() == [0.0]
    assert [(w.category, str(w.message)) for w in seen] == [
        (UnjudgedWarning, "run run shares no topic with the qrels <dict>; its scores are "
         "meaningless")]


def test_mode_of_no_samples_is_nan():
    assert mode(np.zeros((5, 0, 2))).shape == (0, 2)
    assert np.isnan(mode(np.zeros((0, 3)))).all()
    assert summarise(np.zeros((4, 0, 2))).shape == (0, 2, 9)


@pytest.mark.parametrize("command", [
    "eval", "estimate", "report", "compare-qrels", "matrix", "infer", "sample", "coverage",
    "pool", "experiment leave-one-group-out", "experiment sampling",
    "experiment diversity-sampling", "text divergence"])
def test_every_command_that_reads_runs_has_strict_and_names(command):
    r = _invoke(*command.split(), "--help")
    assert r.exit_code == 0
    assert "--strict" in r.stdout and "--names [tag|file]" in r.stdout


# ---- item 15: stray files in a run folder ---------------------------------------------------

@pytest.fixture
def folder(inputs):
    runs = inputs / "runs"
    runs.mkdir()
    (runs / "good.run").write_text(RUN)
    (runs / "README.md").write_text("# Runs\nThese are the runs we submitted in 2020.\n")
    (runs / "qrels.txt").write_text(QRELS)
    (runs / "plot.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    (runs / "notes.txt").write_text("one two three\n")
    (runs / "blob.bin").write_bytes(b"1 Q0 a\x00\x01 1 2 x\n")
    (runs / ".DS_Store").write_bytes(b"\x00\x00\x00\x01Bud1\x00")
    return runs


def test_stray_files_are_skipped_with_a_note(folder, inputs):
    r = _no_traceback(_invoke("eval", inputs / "qrels.txt", folder, "-m", "P@1", "-m",
                              "NumRet"))
    assert [line.split() for line in r.stdout.splitlines()] == \
        [["run", "P@1", "NumRet"], ["good", "1.0000", "3"]]
    assert r.stderr.splitlines() == [
        f"unjudged: note: skipped {folder / 'README.md'}: not a run file (line 2: score "
        "'we' is not a number)",
        f"unjudged: note: skipped {folder / 'blob.bin'}: not a run file (binary data)",
        f"unjudged: note: skipped {folder / 'notes.txt'}: not a run file (line 1 has 3 "
        "fields; a run line has 6)",
        f"unjudged: note: skipped {folder / 'plot.png'}: not a run file (a PNG image)",
        f"unjudged: note: skipped {folder / 'qrels.txt'}: not a run file (line 1 has 4 "
        "fields, like a qrels line; a run line has 6)",
    ]


def test_glob_skips_strays_too(folder, inputs):
    r = _no_traceback(_invoke("eval", inputs / "qrels.txt", str(folder / "*"), "-m", "P@1"))
    assert [line.split() for line in r.stdout.splitlines()] == [["run", "P@1"],
                                                                ["good", "1.0000"]]
    assert r.stderr.count("unjudged: note: skipped") == 5


def test_strict_fails_on_a_stray_file(folder, inputs):
    r = _no_traceback(_invoke("eval", inputs / "qrels.txt", folder, "-m", "P@1", "--strict"),
                      code=2)
    assert r.stdout == ""
    assert r.stderr == (f"unjudged: error: skipped {folder / 'README.md'}: not a run file "
                        "(line 2: score 'we' is not a number) (--strict)\n")


def test_a_folder_of_strays_only_is_an_error(folder, inputs):
    (folder / "good.run").unlink()
    r = _no_traceback(_invoke("eval", inputs / "qrels.txt", folder, "-m", "P@1"), code=2)
    assert r.stderr.splitlines()[-1] == (
        f"unjudged: error: {folder}: no run file among the 5 file(s) of its "
        "(`qid Q0 docno rank score tag` lines)")


def test_an_empty_folder_is_an_error(inputs):
    (inputs / "empty").mkdir()
    r = _no_traceback(_invoke("eval", inputs / "qrels.txt", inputs / "empty", "-m", "P@1"),
                      code=2)
    assert r.stderr == f"unjudged: error: {inputs / 'empty'}: directory contains no run files\n"


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="no FIFOs here")
@pytest.mark.parametrize("how", ["folder", "glob"])
def test_a_fifo_or_broken_link_among_the_runs_is_skipped_not_read(folder, inputs, how):
    """A FIFO in a runs folder (or matched by a pattern) was opened and waited on for ever
    (nobody writes to it), a broken link matched by a pattern was an error, a folder inside
    was dropped silently: each is passed over with a note. A subprocess with a timeout, so
    that a regression fails, not hangs."""
    import os
    import subprocess
    import sys

    os.mkfifo(folder / "pipe")
    os.symlink(folder / "gone.run", folder / "link.run")
    (folder / "2020").mkdir()
    (folder / "2020" / "old.run").write_text(RUN)
    where = str(folder) if how == "folder" else str(folder / "*")
    r = subprocess.run([sys.executable, "-m", "unjudged", "eval", str(inputs / "qrels.txt"),
                        where, "-m", "P@1"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert [line.split() for line in r.stdout.splitlines()] == [["run", "P@1"],
                                                                ["good", "1.0000"]]
    assert f"unjudged: note: skipped {folder / 'pipe'}: not a regular file (a FIFO)" \
        in r.stderr.splitlines()
    assert (f"unjudged: note: skipped {folder / 'link.run'}: not a regular file (a broken "
            "symbolic link)") in r.stderr.splitlines()
    assert (f"unjudged: note: skipped {folder / '2020'}: a folder (folders in a folder or "
            "pattern are not searched; name it to read its runs)") in r.stderr.splitlines()


def test_a_file_named_explicitly_is_read_strictly(folder, inputs):
    r = _no_traceback(_invoke("eval", inputs / "qrels.txt", folder / "notes.txt", "-m", "P@1"),
                      code=2)
    assert r.stderr.startswith(f"unjudged: error: {folder / 'notes.txt'}:1: ")


def test_a_compressed_run_in_a_folder_is_kept(inputs):
    runs = inputs / "gz"
    runs.mkdir()
    (runs / "good.run.gz").write_bytes(gzip.compress(RUN.encode()))
    (runs / "qrels.gz").write_bytes(gzip.compress(QRELS.encode()))
    r = _no_traceback(_invoke("eval", inputs / "qrels.txt", runs, "-m", "P@1"))
    assert [line.split() for line in r.stdout.splitlines()] == [["run", "P@1"],
                                                                ["good", "1.0000"]]
    assert "skipped" in r.stderr and "qrels.gz" in r.stderr


_ids = st.text(alphabet="abcXYZ019-_.:/", min_size=1, max_size=8)
_packers = {"plain": lambda b: b, "gz": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress}


@settings(max_examples=120, deadline=None)
@given(lines=st.lists(st.tuples(_ids, _ids, st.floats(allow_nan=False, allow_infinity=False),
                                _ids), min_size=1, max_size=6),
       end=st.sampled_from(["\n", "\r\n", "\r"]), comment=st.booleans(),
       pad=st.integers(0, 3000), pack=st.sampled_from(sorted(_packers)))
def test_sniffing_keeps_every_run_and_reads_its_tag(tmp_path_factory, lines, end, comment, pad,
                                                     pack):
    head = ("# " + "x" * pad + end + end) if comment else ""
    text = head + end.join(f"{q} Q0 {d}{i} {i + 1} {score!r} {tag}"
                           for i, (q, d, score, tag) in enumerate(lines)) + end
    path = tmp_path_factory.mktemp("sniff") / "some.run"
    path.write_bytes(_packers[pack](text.encode()))
    assert not_a_run(str(path)) is None
    assert first_tag(str(path)) == lines[0][3]  # a long comment first: a second, longer read


@pytest.mark.parametrize("text,why", [
    ("1 0 a 1\n", "line 1 has 4 fields, like a qrels line; a run line has 6"),
    ("# c\n\n1 Q0 a\n", "line 3 has 3 fields; a run line has 6"),
    ("1 Q0 a 1 high r\n", "line 1: score 'high' is not a number"),
    ("# only a comment\n", "no data lines"),
    ("%PDF-1.4\n", "a PDF file"),
])
def test_sniffing_names_why_a_file_is_no_run(tmp_path, text, why):
    path = tmp_path / "f"
    path.write_text(text)
    assert not_a_run(str(path)) == why


# ---- item 12: groups files -------------------------------------------------------------------

def test_groups_csv_with_cr_line_ends(tmp_path):
    path = tmp_path / "board.csv"
    path.write_bytes(b"run,team\rbm25,anserini\rdense,uw\r")
    assert read_groups(str(path)) == {"bm25": "anserini", "dense": "uw"}


def test_groups_csv_with_a_huge_field(tmp_path):
    path = tmp_path / "board.csv"
    path.write_text("run,team\nbm25,anserini\ndense,\"" + "x" * 140_000 + "\"\n")
    with pytest.raises(FormatError, match=r"board.csv:3: not CSV: field larger than field "):
        read_groups(str(path))


def test_contributing_csv_with_cr_line_ends_and_a_huge_field(tmp_path):
    from unjudged.experiments.sampling import read_contributing

    path = tmp_path / "board.csv"
    path.write_bytes(b"run,contributed judgments\rbm25,yes\rdense,no\r")
    assert read_contributing(str(path)) == ["bm25"]
    path.write_text("run,contributed judgments\nbm25,yes\ndense,\"" + "x" * 140_000 + "\n")
    with pytest.raises(FormatError, match=r"board.csv:3: not CSV: field larger than field "):
        read_contributing(str(path))


def test_pool_with_a_bad_groups_file(inputs):
    path = inputs / "board.csv"
    path.write_text("run,team\ngood,\"" + "x" * 140_000 + "\"\n")
    r = _no_traceback(_invoke("pool", inputs / "good.run", "--depth", "1", "--groups", path),
                      code=2)
    assert r.stderr.startswith(f"unjudged: error: {path}:2: not CSV")


# ---- item 12: a damaged index cache ----------------------------------------------------------

@pytest.mark.parametrize("damage", [b"", b"not a zip file at all", "truncated", "flipped"])
def test_a_damaged_index_cache_is_rebuilt(tmp_path, damage):
    corpus = tmp_path / "c.tsv"
    corpus.write_text("d1\twing lift lift\nd2\tshock wave\n")
    first = _no_traceback(_invoke("text", "index", corpus))
    assert "(written)" in first.stdout
    cache = next(tmp_path.glob("c.tsv.*.unjudged-index.npz"))
    data = cache.read_bytes()
    if damage == "truncated":
        damage = data[: len(data) // 2]
    elif damage == "flipped":
        damage = bytearray(data)
        for i in range(100, len(damage), 50):
            damage[i] ^= 0xFF
        damage = bytes(damage)
    cache.write_bytes(damage)
    again = _no_traceback(_invoke("text", "index", corpus))
    assert "documents   2" in again.stdout and "(written)" in again.stdout
    assert again.stderr.startswith(f"unjudged: note: the index cache {cache} is damaged (")
    assert again.stderr.rstrip().endswith("rebuilding it")
    third = _no_traceback(_invoke("text", "index", corpus))
    assert "(loaded)" in third.stdout and third.stderr == ""


def test_a_binary_stopword_file_is_refused(tmp_path):
    corpus = tmp_path / "c.tsv"
    corpus.write_text("d1\twing lift\n")
    words = tmp_path / "stop.bin"
    words.write_bytes(b"the\nof\x00\xff\n")
    r = _no_traceback(_invoke("text", "index", corpus, "--stopwords", words, "--no-cache"),
                      code=2)
    assert r.stderr == (f"unjudged: error: {words}:2: not UTF-8 text, expected stop words "
                        "separated by blanks\n")


# ---- item 13: text divergence with documents missing from the corpus -------------------------

@pytest.fixture
def corpus(tmp_path):
    path = tmp_path / "c.tsv"
    path.write_text("d1\twing lift lift\nd2\tshock wave\n")
    (tmp_path / "r1").write_text("1 Q0 d1 1 3 r1\n1 Q0 d5 2 2 r1\n")
    (tmp_path / "r2").write_text("1 Q0 d7 1 3 r2\n")
    return path


def _divergence(tmp_path, corpus, qrels: str, *extra):
    (tmp_path / "dq").write_text(qrels)
    return _invoke("text", "divergence", tmp_path / "dq", *extra, "--corpus", corpus,
                   "-m", "ABS-NB@5", "--no-cache")


def test_divergence_counts_documents_missing_from_the_corpus(tmp_path, corpus):
    r = _no_traceback(_divergence(tmp_path, corpus, "1 1 d1 1\n1 2 d9 1\n", tmp_path / "r1",
                                  tmp_path / "r2"))
    assert [line.split() for line in r.stdout.splitlines()] == \
        [["run", "ABS-NB@5"], ["r1", "2.0000"], ["r2", "0.0000"]]
    assert r.stderr.splitlines() == [
        "unjudged: warning: 1 of 2 relevant documents are not in the corpus",
        "unjudged: warning: run r1: 1 of 2 retrieved documents in the top 5 are not in the "
        "corpus",
        "unjudged: warning: run r2: 1 of 1 retrieved documents in the top 5 are not in the "
        "corpus; all its scores are 0",
    ]
    strict = _no_traceback(_divergence(tmp_path, corpus, "1 1 d1 1\n1 2 d9 1\n",
                                       tmp_path / "r1", "--strict"), code=2)
    assert strict.stderr.endswith("(--strict)\n")


@pytest.mark.parametrize("qrels,message", [
    ("1 1 d8 1\n", "none of the 1 relevant documents of the qrels is in the corpus"),
    ("1 1 d1 0\n", "the qrels have no relevant document (grade > 0)"),
])
def test_divergence_with_nothing_to_score_is_an_error(tmp_path, corpus, qrels, message):
    r = _no_traceback(_divergence(tmp_path, corpus, qrels, tmp_path / "r1"), code=2)
    assert r.stdout == ""
    assert r.stderr.startswith("unjudged: error: " + message)


# ---- loose ends: stdin twice, --baseline, names on stderr, corpora's long lines ------------

def test_stdin_named_twice_is_one_clear_error(inputs):
    r = CliRunner().invoke(main, ["eval", str(inputs / "qrels.txt"), "-", "-", "-m", "P@1"],
                           input=RUN)
    assert r.exit_code == 2 and r.stderr.splitlines() == [
        "unjudged: error: <stdin>: given more than once; standard input can be read only once"]


def test_unknown_baseline_is_one_line(inputs):
    r = _invoke("eval", inputs / "qrels.txt", inputs / "good.run", "-m", "P@1",
                "--baseline", "nope")
    assert r.exit_code == 2 and r.stderr.splitlines() == [
        "unjudged: error: --baseline nope: not among the runs (by name or file), which are: good"]


def test_names_on_stderr_cannot_drive_the_terminal(inputs):
    """A run tag with ESC and a bidi override reaches stderr as visible escapes, on one line."""
    (inputs / "evil.run").write_text("7 Q0 a 1 3.0 ev\x1b[2J\u202eil\n")
    r = _no_traceback(_invoke("eval", inputs / "qrels.txt", inputs / "evil.run", "-m", "P@1"))
    warning = [line for line in r.stderr.splitlines() if "warning" in line]
    assert warning == [f"unjudged: warning: run ev\\x1b[2J\\u202eil (file {inputs / 'evil.run'})"
                       f" shares no topic with the qrels {inputs / 'qrels.txt'}; its scores are "
                       "meaningless"]
    assert "\x1b" not in r.stderr and "\u202e" not in r.stderr


def test_a_corpus_line_may_exceed_the_runs_line_limit(tmp_path):
    """A JSONL document is one line: the limit for runs and qrels (here 100 bytes) does not
    apply to corpora, which have their own (256 MiB)."""
    from unjudged.io._source import set_max_line_length
    from unjudged.text.readers import read_docs

    p = tmp_path / "c.jsonl"
    p.write_text('{"id": "d1", "text": "' + "wing " * 1000 + '"}\n')
    set_max_line_length(100)
    try:
        docnos, texts = read_docs(p)
    finally:
        set_max_line_length(None)
    assert docnos == ["d1"] and texts[0].split() == ["wing"] * 1000


@pytest.mark.parametrize("judgments, words", [
    ({"#1": {"a": 1}}, "topic '#1' cannot be written as TREC text: a topic starting with '#'"),
    ({"1": {"a b": 1}}, "document id 'a b' cannot be written as TREC text"),
    ({"": {"a": 1}}, "topic '' cannot be written as TREC text: it is empty"),
])
def test_qrels_that_text_cannot_hold_are_refused_before_writing(judgments, words):
    from unjudged.errors import InputError
    from unjudged.io import read_qrels
    from unjudged.io.write import format_qrels

    with pytest.raises(InputError, match=words):
        format_qrels(read_qrels(judgments))


# ---- issue 34, item 10: options at their edges ---------------------------------------------
# A corpus of option values that must be refused before any work with one line and exit 2, or
# taken; `option_edges_counts` tallies it (tried, clean, defects) for the closing note.

# (arguments with {q} the qrels and {r} a run, the one stderr line expected; None: exit 0)
OPTION_EDGES = [
    (["estimate", "{q}", "{r}", "-m", "", "-j", "1"], "unjudged: error: -m: empty measure name "
     "''; expected names such as 'nDCG@10', or several as 'P@5 AP'"),
    (["plan", "{q}", "{r}", "--budget", "2", "-m", " , ", "-j", "1"],
     "unjudged: error: -m: empty measure name ' , '; expected names such as 'nDCG@10', or "
     "several as 'P@5 AP'"),
    (["report", "{q}", "{r}", "-o", "{q}.html", "-m", "", "-j", "1"], "-m: empty measure name"),
    (["matrix", "{q}", "{r}", "{r}", "-m", ""], "-m: empty measure name"),
    (["infer", "{q}", "{r}", "-m", ""], "-m: empty measure name"),
    (["compare-qrels", "--orig", "{q}", "--new", "{q}", "{r}", "-m", ""],
     "-m: empty measure name"),
    (["eval", "{q}", "{r}", "-m", ""], "unjudged: error: no measure given; expected names such "
     "as 'nDCG@10', or a list of them"),
    *[(["estimate", "{q}", "{r}", "-m", "P@1", "--dask", address],
       "unjudged: error: --dask expects 'local' or a scheduler address tcp://HOST:PORT or "
       f"tls://HOST:PORT, not '{address}'")
      for address in ("http://example.org:80", "bogus://x", "ws://10.0.0.1:8786",
                      "tcp://host", "tcp://host:0", "tcp://host:99999", "tcp://h:1/path",
                      "tcp://:8786", "localhost")],
    (["estimate", "{q}", "{r}", "-m", "P@1", "--dask", "tls://10.0.0.1:8786"],
     "unjudged: error: --dask tls://10.0.0.1:8786: TLS needs Dask's TLS settings (a CA file, "
     "a client certificate and key under distributed.comm.tls in the Dask configuration); "
     "none are set"),
    *[(args, "unjudged: error: --seed: expected a whole number >= 0, not -1") for args in (
        ["estimate", "{q}", "{r}", "-m", "P@1", "--seed", "-1"],
        ["matrix", "{q}", "{r}", "{r}", "--test", "bootstrap", "--seed", "-1"],
        ["infer", "{q}", "{r}", "--ci-method", "bootstrap", "--seed", "-1"],
        ["report", "{q}", "{r}", "-o", "{q}.html", "-m", "P@1", "--seed", "-1"],
        ["plan", "{q}", "{r}", "--budget", "2", "--seed", "-1"],
        ["sample", "{q}", "--design", "uniform:0.5", "--seed", "-1"])],
    # seeds beyond 64 bits are fine everywhere (SeedSequence takes any whole number >= 0)
    (["estimate", "{q}", "{r}", "-m", "P@1", "-b", "20", "-j", "1", "--seed", str(2 ** 70)],
     None),
    (["matrix", "{q}", "{r}", "{r}", "--test", "bootstrap", "--seed", str(2 ** 70)], None),
    # item 9: sizes. A cutoff past the deepest ranking reads the rankings (or 1,000 positions)
    # only; what cannot fit is refused with the memory it needs (2 topics of the run)
    (["eval", "{q}", "{r}", "-m", "P@1000000000000"], None),
    (["eval", "{q}", "{r}", "-m", "alpha-nDCG@1000000000000"], None),  # diversity too (19afb2b)
    (["estimate", "{q}", "{r}", "-m", "nDCG@1000000000000", "-m", "P@1000000000000", "-j",
      "1"], None),
    (["estimate", "{q}", "{r}", "-m", "P@5", "-b", str(10 ** 13), "-j", "1"],
     f"unjudged: error: -b {10 ** 13} (2 topics"),
    (["plan", "{q}", "{r}", "--budget", "2", "-b", str(10 ** 13), "-j", "1"],
     f"unjudged: error: -b {10 ** 13} (2 topics"),
    (["qrels", "filter", "{q}", "--topics", "1-100000000"], "unjudged: error: --topics: range "
     "'1-100000000' names 100000000 topics, expected at most 10,000,000 in all"),
    *[(args, f"unjudged: error: {option}: expected a whole number up to {2 ** 63 - 1}, not "
       f"{2 ** 63}") for option, args in (
        ("-M", ["eval", "{q}", "{r}", "-m", "P@1", "-M", str(2 ** 63)]),
        ("-M", ["trec_eval", "-M", str(2 ** 63), "{q}", "{r}"]),
        ("-k", ["pool", "{r}", "-k", str(2 ** 63)]),
        ("--decimals", ["compare-qrels", "--orig", "{q}", "--new", "{q}", "{r}", "-m", "P@1",
                        "--decimals", str(2 ** 63)]),
        ("-j", ["estimate", "{q}", "{r}", "-m", "P@1", "--jobs", str(2 ** 63)]))],
    (["--max-line-length", str(2 ** 63), "eval", "{q}", "{r}", "-m", "P@1"], None),
    (["eval", "{q}", "{r}", "-m", "P@1", "-M", str(2 ** 63 - 1)], None),
]



def option_edges_counts(folder) -> tuple[int, int, int]:
    """(tried, clean, defects) over OPTION_EDGES: clean is the expected outcome."""
    clean = 0
    for args, line in OPTION_EDGES:
        clean += _edge_outcome(args, line, folder) is None
    return len(OPTION_EDGES), clean, len(OPTION_EDGES) - clean


def _edge_outcome(args: list[str], line: str | None, folder) -> str | None:
    """None when the command did what OPTION_EDGES expects, else what went wrong."""
    argv = [a.format(q=folder / "qrels.txt", r=folder / "good.run") for a in args]
    r = CliRunner().invoke(main, argv)
    if "Traceback" in r.stderr or (r.exception and not isinstance(r.exception, SystemExit)):
        return f"exception {r.exception!r}"
    if line is None:
        return None if r.exit_code == 0 else f"exit {r.exit_code}: {r.stderr}"
    errors = [x for x in r.stderr.splitlines() if not x.startswith("unjudged: note:")]
    if r.exit_code != 2 or len(errors) != 1 or line not in errors[0]:
        return f"exit {r.exit_code}: {r.stderr}"
    return None


@pytest.mark.parametrize(("args", "line"), OPTION_EDGES,
                         ids=[" ".join(a[:1] + a[3:]) for a, _ in OPTION_EDGES])
def test_option_edges(inputs, args, line):
    if "--dask" in args and "tls://" in " ".join(args):
        pytest.importorskip("distributed")
    assert _edge_outcome(args, line, inputs) is None


def test_an_endless_binary_stream_is_refused_not_read_to_the_end():
    """A device of endless bytes (/dev/urandom as a run) was read until memory ran out: a
    stream stops at the end of its first line holding a NUL byte, which the parser refuses."""
    import io

    from unjudged.io import read_run

    class Endless(io.RawIOBase):
        reads = 0

        def readable(self):
            return True

        def readinto(self, buffer):
            Endless.reads += 1  # 64 KiB a read: a few reads make the first chunk
            assert Endless.reads < 1000, "read on past the binary line"
            block = b"1 Q0 a\x00b 2 1 x\n" * 4096
            n = min(len(buffer), len(block))
            buffer[:n] = block[:n]
            return n

    with pytest.raises(FormatError, match="binary data"):
        read_run(io.BufferedReader(Endless(), 1 << 16), name="endless")
    assert Endless.reads <= 200  # the first chunk (4 MiB), not the 64 MiB the guard allows


def test_a_closed_standard_input_is_one_line(inputs):
    """`unjudged eval QRELS - <&-` (descriptor 0 closed: Python's sys.stdin is None) was an
    AttributeError traceback."""
    import os
    import subprocess
    import sys

    def close_stdin():
        os.close(0)

    for args in (["eval", str(inputs / "qrels.txt"), "-", "-m", "P@1"],
                 ["trec_eval", str(inputs / "qrels.txt"), "-"]):
        r = subprocess.run([sys.executable, "-m", "unjudged", *args], capture_output=True,
                           text=True, timeout=120, preexec_fn=close_stdin)
        assert r.returncode == 2, r.stderr
        assert r.stderr == ("unjudged: error: <stdin>: standard input is closed, expected "
                            "lines to read\n")
