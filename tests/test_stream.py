"""`eval --stream`: runs grouped by topic read a block at a time give the in-memory values, to
the last bit, and the same errors with the file's line numbers."""

from __future__ import annotations

import gzip
import io
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from unjudged.cli import main
from unjudged.engine.score import score
from unjudged.engine.stream import evaluate_stream, score_stream
from unjudged.errors import FormatError, InputError
from unjudged.io import read_qrels, read_run, set_max_line_length
from unjudged.io.runs import read_runs
from unjudged.measures import families, parse_measures
from unjudged.policies import Policies

sys.path.insert(0, str(Path(__file__).parent))
from shared_data import DATA, TREC_EVAL, need  # noqa: E402

# every measure family (diversity measures read plain qrels as one subtopic per topic)
MEASURES = parse_measures(
    [s.name + ("@10" if s.cutoff == "required" else "") for s in families()]
    + ["P@10", "nDCG@10", "AP@100", "Judged@10", "RR@5", "R@50", "alpha-nDCG@10"])

POLICIES = [Policies(), Policies(complete=True), Policies(judged_only=True),
            Policies(depth=40), Policies(rel_level=2), Policies(ties="rank"),
            Policies(ties="docno"), Policies(ties="file"), Policies(negative="nonrel"),
            Policies(complete=True, judged_only=True, depth=200, rel_level=2)]


def same_results(streamed, in_memory) -> None:
    assert [r.run for r in streamed.runs] == [r.run for r in in_memory.runs]
    for s, m in zip(streamed.runs, in_memory.runs, strict=True):
        assert s.topics == m.topics
        assert s.values.shape == m.values.shape
        assert s.values.tobytes() == m.values.tobytes()  # bit for bit, not approximately
        assert s.summary.tobytes() == m.summary.tobytes()


def in_memory(path, qrels, measures, pol):
    return score([read_run(str(path), ties=pol.ties, qrels=qrels)], qrels, measures, pol)


@pytest.mark.parametrize("pol", POLICIES, ids=repr)
def test_trec_eval_test_files_stream_as_in_memory(pol):
    qrels_path, run = need(TREC_EVAL / "qrels.test"), need(TREC_EVAL / "results.test")
    q = read_qrels(str(qrels_path))
    expected = in_memory(run, q, MEASURES, pol)
    assert len(expected.runs[0].topics) == 3
    for block in (100, 4096, 1 << 24):  # 100 bytes: every topic spans many blocks
        same_results(score_stream([str(run)], q, MEASURES, pol, block_size=block), expected)


def _run_text(rng: np.random.Generator, topics: list[str], lengths: list[int]) -> bytes:
    lines = []
    for t, n in zip(topics, lengths, strict=True):
        docs = rng.choice(60, size=n, replace=False)
        scores = np.sort(rng.integers(0, 8, size=n))[::-1] / 4  # many ties
        for rank, (d, s) in enumerate(zip(docs, scores, strict=True), 1):
            lines.append(f"{t} Q0 d{d} {rank} {s} tag{t}\n")
    return "".join(lines).encode()


def _qrels(rng: np.random.Generator) -> dict:
    return {str(t): {f"d{d}": int(rng.integers(-1, 3)) for d in rng.choice(60, 25, False)}
            for t in range(1, 9)}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), block=st.integers(1, 3000),
       pol=st.sampled_from(POLICIES),
       topics=st.lists(st.sampled_from(["1", "2", "3", "5", "8", "9", "13", "21"]),
                       min_size=1, max_size=7, unique=True))
def test_generated_runs_stream_as_in_memory(tmp_path_factory, seed, block, pol, topics):
    """Topics of any length (some not in the qrels, some qrels topics missing), tied scores,
    negative grades: every policy, every block size gives the in-memory values."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(1, 40, size=len(topics)).tolist()
    path = tmp_path_factory.mktemp("gen") / "run.txt"
    path.write_bytes(_run_text(rng, topics, lengths))
    q = read_qrels(_qrels(rng))
    same_results(score_stream([str(path)], q, MEASURES, pol, block_size=block),
                 in_memory(path, q, MEASURES, pol))


def test_batches_scored_before_the_longest_ranking_are_scored_again(tmp_path, monkeypatch):
    """Rankings padded to a batch's width can sum differently from the whole run's: batches
    scored at a width the run turns out not to have are scored again, and agree."""
    import unjudged.engine.stream as engine

    rng = np.random.default_rng(7)
    path = tmp_path / "run.txt"
    path.write_bytes(_run_text(rng, ["1", "2", "3", "5"], [3, 9, 30, 2]))  # longest third
    q = read_qrels(_qrels(rng))  # topic 8, in no run, may have the largest pool
    scored, original = [], engine.measure_values
    monkeypatch.setattr(engine, "measure_values",
                        lambda j, ms: scored.append(j.depth) or original(j, ms))
    for pol in (Policies(), Policies(judged_only=True), Policies(complete=True)):
        scored.clear()
        same_results(score_stream([str(path)], q, MEASURES, pol, block_size=60),
                     in_memory(path, q, MEASURES, pol))
        if pol == Policies():  # topics 1 and 2 scored at 3 and 9, then again at 30
            assert scored[:2] == [3, 9] and scored.count(30) == len(scored) - 2 >= 4


def _write(tmp_path: Path, name: str, text: str | bytes) -> str:
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return str(path)


def _cli(*args, input=None):
    return CliRunner().invoke(main, ["eval", *map(str, args)], input=input)


def test_cli_per_topic_output_is_byte_identical_in_every_format(tmp_path):
    qrels, run = need(TREC_EVAL / "qrels.test"), need(TREC_EVAL / "results.test")
    for fmt in ("table", "jsonl", "tsv", "csv", "trec"):
        args = [qrels, run, "-m", "AP", "-m", "nDCG", "-m", "Bpref", "-m", "P@10", "-q", "-c",
                "-f", fmt]
        plain = _cli(*args)
        streamed = _cli(*args, "--stream", "--stream-block", "100")
        assert plain.exit_code == streamed.exit_code == 0, streamed.output
        assert streamed.stdout == plain.stdout
        assert len(streamed.stdout.splitlines()) >= 5


def test_cli_stdin_and_gzip(tmp_path):
    qrels, run = need(TREC_EVAL / "qrels.test"), need(TREC_EVAL / "results.test")
    plain = _cli(qrels, run, "-m", "AP", "-q", "-f", "jsonl")
    piped = _cli(qrels, "-", "-m", "AP", "-q", "-f", "jsonl", "--stream", "--stream-block", "999",
                 input=run.read_bytes())
    assert piped.exit_code == 0, piped.output
    assert piped.stdout == plain.stdout
    packed = _write(tmp_path, "run.gz", gzip.compress(run.read_bytes()))
    zipped = _cli(qrels, packed, "-m", "AP", "-q", "-f", "jsonl", "--stream",
                  "--stream-block", "777")
    assert zipped.exit_code == 0, zipped.output
    assert zipped.stdout == plain.stdout
    assert '"topic": "303"' in plain.stdout.replace('"topic":"', '"topic": "')


QRELS = "1 0 a 1\n1 0 b 0\n2 0 c 1\n3 0 d 1\n"


def _lines(topics_docs: list[tuple[str, str]]) -> str:
    return "".join(f"{t} Q0 {d} {i} {100 - i} run\n" for i, (t, d) in enumerate(topics_docs))


def test_ungrouped_run_is_refused_naming_the_line(tmp_path):
    qrels = _write(tmp_path, "q.txt", QRELS)
    rows = [("1", "a"), ("1", "b"), ("2", "c"), ("2", "x"), ("3", "d"), ("1", "z")]
    run = _write(tmp_path, "run.txt", _lines(rows))
    for block in ("10", "1000000"):  # across blocks and within one
        result = _cli(qrels, run, "-m", "AP", "--stream", "--stream-block", block)
        assert result.exit_code == 2
        assert result.output.strip() == (
            f"unjudged: error: {run}:6: topic 1 reappears at line 6 after other topics (its "
            "first line is 1); --stream needs runs grouped by topic (sort -s -k1,1)")
    assert _cli(qrels, run, "-m", "AP").exit_code == 0  # in memory, any order is fine
    # a bad line before the topic comes back is the first bad line, and is named
    spoiled = _write(tmp_path, "spoiled.txt", _lines(rows).replace("2 Q0 x 3 97", "2 Q0 x 3 y"))
    for block in (10, 1 << 20):
        same_error(spoiled, read_qrels(qrels), block, r"spoiled.txt:4: score 'y'")


def test_bad_lines_in_later_blocks_are_named_by_file_line(tmp_path):
    q = read_qrels(_write(tmp_path, "q.txt", QRELS))
    good = [(t, f"d{i}") for t in "123" for i in range(40)]
    cases = {
        "score": (good[:70] + [("2", "bad")] + good[70:], lambda s: s.replace(
            "2 Q0 bad 70 30", "2 Q0 bad 70 x")),
        "columns": (good, lambda s: s.replace("3 Q0 d5 85 15 run", "3 Q0 d5 85")),
        "duplicate": (good[:100] + [("3", "d3")] + good[100:], lambda s: s),
    }
    for what, (rows, spoil) in cases.items():
        path = _write(tmp_path, f"{what}.txt", spoil(_lines(rows)))
        for block in (50, 700, 1 << 20):
            assert same_error(path, q, block, rf"{what}.txt:").line > 60, what


def same_error(path: str, q, block_size: int, match: str) -> FormatError:
    """The streamed error is the in-memory one, word for word, and matches `match`."""
    with pytest.raises(FormatError) as plain:
        read_run(path, qrels=q)
    with pytest.raises(FormatError, match=match) as streamed:
        score_stream([path], q, parse_measures(["AP"]), block_size=block_size)
    assert str(streamed.value) == str(plain.value)
    return streamed.value


def test_blank_and_comment_lines_between_topics(tmp_path):
    q = read_qrels(_write(tmp_path, "q.txt", QRELS))
    text = "# a comment\n" + _lines([("1", "a"), ("1", "b")]) + "\n\n# two\n" + \
        _lines([("2", "c"), ("2", "a")]) + "\n" + _lines([("3", "d")])
    path = _write(tmp_path, "run.txt", text)
    ms = parse_measures(["AP", "P@1"])
    for block in (5, 30, 1000):
        same_results(score_stream([path], q, ms, block_size=block),
                     in_memory(path, q, ms, Policies()))
    spoiled = _write(tmp_path, "bad.txt", text + "\n\n4 Q0 e 1 oops run\n")
    same_error(spoiled, q, 30, r"bad.txt:13: score 'oops'")


def test_empty_and_unended_inputs(tmp_path):
    q = read_qrels(_write(tmp_path, "q.txt", QRELS))
    ms = parse_measures(["AP"])
    with pytest.raises(InputError, match="empty file"):
        score_stream([_write(tmp_path, "empty.txt", "\n# nothing\n\n")], q, ms, block_size=4)
    set_max_line_length(1000)
    try:
        for name, text in {"zeros.txt": b"\0" * 5000, "long.txt": b"1 Q0 " + b"d" * 3000}.items():
            same_error(_write(tmp_path, name, text), q, 64, rf"{name}:1: ")
    finally:
        set_max_line_length(None)


def test_line_ends_byte_order_mark_and_compression(tmp_path):
    """CRLF, a lone CR (also cut between blocks) and a BOM read as the in-memory reader reads
    them; so do gzip, bzip2 and xz."""
    import bz2
    import lzma

    q = read_qrels(_write(tmp_path, "q.txt", QRELS))
    lines = _lines([("1", "a"), ("1", "b"), ("2", "c"), ("2", "a"), ("3", "d"), ("3", "e")])
    ms = parse_measures(["AP", "NumRet"])
    variants = {"crlf": lines.replace("\n", "\r\n").encode(),
                "cr": lines.replace("\n", "\r").encode(),
                "bom": b"\xef\xbb\xbf" + lines.encode(),
                "gz": gzip.compress(lines.encode()), "bz2": bz2.compress(lines.encode()),
                "xz": lzma.compress(lines.encode())}
    for name, data in variants.items():
        path = _write(tmp_path, name, data)
        want = in_memory(path, q, ms, Policies())
        assert want.runs[0].values[:, 1].tolist() == [2.0, 2.0, 2.0], name
        for block in (7, 23, 1 << 20):
            same_results(score_stream([path], q, ms, block_size=block), want)
    bad = _write(tmp_path, "bad_cr", lines.replace("\n", "\r").replace("3 Q0 e 5 95", "3 Q0 e 5 x"))
    same_error(bad, q, 23, r"bad_cr:6: ")


def test_only_the_files_own_byte_order_mark_is_dropped(tmp_path):
    """One mark at the file's start is dropped; a second one, or one that starts a line at a
    block's start, is part of the topic id (hypothesis found both read as '' and 'a')."""
    bom = "\ufeff"
    q = read_qrels(_write(tmp_path, "q.txt", f"{bom}{bom} 0 x 1\n{bom}a 0 y 1\n".encode()))
    assert q.topics == [bom, bom + "a"]
    path = _write(tmp_path, "r.run", f"{bom}{bom} Q0 x 1 1 run\n{bom}a Q0 y 1 1 run\n".encode())
    ms = parse_measures(["AP"])
    want = in_memory(path, q, ms, Policies())
    assert want.runs[0].topics == [bom, bom + "a"]
    for block in (3, 7, 25, 1 << 20):  # 25: the second line starts a block
        same_results(score_stream([path], q, ms, block_size=block), want)


def test_several_runs_are_streamed_in_turn_and_named_as_in_memory(tmp_path):
    qrels = _write(tmp_path, "q.txt", QRELS)
    a = _write(tmp_path, "a.run", _lines([("1", "a"), ("2", "c"), ("3", "x")]))
    b = _write(tmp_path, "b.run", _lines([("1", "b"), ("1", "a"), ("3", "d")]).replace(
        "run\n", "other\n"))
    plain = _cli(qrels, a, b, "-m", "AP", "-m", "NumRet", "-q", "-f", "tsv")
    streamed = _cli(qrels, a, b, "-m", "AP", "-m", "NumRet", "-q", "-f", "tsv", "--stream")
    assert streamed.exit_code == 0, streamed.output
    assert streamed.stdout == plain.stdout
    assert "other\tall\tNumRet\t3" in streamed.stdout


def test_python_api_matches_evaluate(tmp_path):
    import unjudged

    qrels = _write(tmp_path, "q.txt", QRELS)
    run = _write(tmp_path, "a.run", _lines([("1", "b"), ("1", "a"), ("2", "c"), ("4", "z")]))
    want = unjudged.evaluate(run, qrels, ["AP", "P@2"], complete=True)
    got = evaluate_stream(run, qrels, ["AP", "P@2"], complete=True, block_size=8)
    assert got.to_dict("list") == want.to_dict("list")
    assert got[got.topic == "all"].value.tolist() == [0.5, 1 / 3]


def test_diversity_qrels_with_subtopics(tmp_path):
    from unjudged.io.diversity import read_diversity_qrels

    path = need(DATA / "ssanner-diversify" / "files" / "trec" / "qrels.diversity")
    q = read_diversity_qrels(path)
    rng = np.random.default_rng(3)
    lines = []
    for t in q.topics[::3]:  # every third topic: some qrels topics are missing (-c)
        docs = np.unique(q.docs.take(q.keys[q.topic_offsets[q.topic_index[t]]:
                                            q.topic_offsets[q.topic_index[t] + 1]] % len(q.docs)
                                     ).to_numpy(zero_copy_only=False))
        pick = list(rng.choice(docs, size=min(len(docs), int(rng.integers(5, 60))),
                               replace=False)) + ["unjudged-1", "unjudged-2"]
        lines += [f"{t} Q0 {d} {i} {len(pick) - i} div\n" for i, d in enumerate(pick)]
    run = _write(tmp_path, "div.run", "".join(lines))
    ms = parse_measures(["alpha-nDCG@20", "ERR-IA@20", "nERR-IA", "NRBP", "nNRBP", "P-IA@10",
                         "MAP-IA", "S-recall@20", "AP", "nDCG"])
    for pol in (Policies(), Policies(complete=True, judged_only=True), Policies(depth=20)):
        want = in_memory(run, q, ms, pol)
        assert np.count_nonzero(want.runs[0].values) > len(want.runs[0].topics)
        for block in (300, 5000):
            same_results(score_stream([run], q, ms, pol, block_size=block), want)


def test_what_streaming_cannot_do_is_refused(tmp_path):
    qrels = _write(tmp_path, "q.txt", QRELS)
    run = _write(tmp_path, "a.run", _lines([("1", "a")]))
    for extra in (["--unjudged", "upper"], ["--baseline", "run"]):
        result = _cli(qrels, run, "-m", "AP", "--stream", *extra)
        assert result.exit_code == 2
        assert "--stream" in result.output and "Traceback" not in result.output


def test_progress_line_when_stderr_is_not_a_terminal(capsys):
    from unjudged.cli._stream import StreamProgress

    shown = StreamProgress(every=0.0)
    shown.terminal = False
    shown(12_000_000, 4210)
    assert capsys.readouterr().err == "unjudged: streamed 12.0M lines, 4,210 topics\n"
    quiet = StreamProgress(every=3600.0)
    quiet.terminal = False
    quiet(5, 1)
    assert capsys.readouterr().err == ""


def test_binary_stream_source():
    q = read_qrels({"1": {"a": 1}, "2": {"b": 1}})
    text = b"1 Q0 x 1 3 r\n1 Q0 a 2 2 r\n2 Q0 b 1 1 r\n"
    res = score_stream([io.BytesIO(text)], q, parse_measures(["RR"]), block_size=3)
    plain = score(read_runs([io.BytesIO(text)]), q, parse_measures(["RR"]))
    assert res.runs[0].run == plain.runs[0].run  # named as read_runs names it
    assert res.runs[0].values[:, 0].tolist() == [0.5, 1.0]
