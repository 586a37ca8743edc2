"""`unjudged ndeval` against ndeval 4.5 itself: compiled on the fly from pyndeval's sdist (which
ships ndeval.c), run on the Web track diversity qrels with generated runs and every option set,
compared byte for byte."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from shared_data import DATA, need
from unjudged.cli import main
from unjudged.errors import FormatError, InputError, InvalidOptionError
from unjudged.ndeval import NdevalOptions, parse_args, run_ndeval

QRELS = ["anserini-tools/qrels/qrels.web.201-250.ndeval.txt",
         "ssanner-diversify/files/trec/qrels.diversity"]
OPTION_SETS = [[], ["-alpha", "0.3"], ["-beta", "0.8"], ["-traditional"], ["-c"],
               ["-M", "10"], ["-baseline", "BASE", "-riskAlpha", "1"], ["-c", "-baseline", "BASE"]]

# Topic 1, subtopics 1-3: a covers 1 and 2, b covers 2, c covers 3, d is judged non-relevant.
TOY_QRELS = b"1 1 a 1\n1 2 a 2\n1 2 b 1\n1 3 c 1\n1 1 d 0\n2 1 e 0\n"
TOY_RUN = b"1 Q0 b 1 5 r\n1 Q0 d 2 4 r\n1 Q0 a 3 3 r\n1 Q0 x 4 2 r\n1 Q0 c 5 1 r\n" \
          b"2 Q0 e 1 1 r\n9 Q0 a 1 1 r\n"


def test_hand_worked_toy():
    # gains b 1, d 0, a 1.5, x 0, c 1 (3 subtopics); ideal a (2), c (1), b (0.5)
    out = run_ndeval(NdevalOptions("q", "r"), TOY_QRELS, TOY_RUN).decode().splitlines()
    row = dict(zip(out[0].split(","), out[1].split(","), strict=True))
    dcg5 = 1 + 1.5 / np.log2(4) + 1 / np.log2(6)
    ideal = 2 + 1 / np.log2(3) + 0.5 / np.log2(4)
    assert row["alpha-nDCG@5"] == f"{dcg5 / ideal:.6f}" == "0.741723"
    assert row["P-IA@5"] == "0.266667" and row["strec@5"] == "1.000000"
    assert row["MAP-IA"] == f"{(1 / 3 + (1 + 2 / 3) / 2 + 1 / 5) / 3:.6f}"
    # topic 2 has no relevant document: ndeval's nNRBP is 0/0, printed by glibc as -nan;
    # topic 9 is not in the qrels: a row of zeros, left out of the mean's count (2 topics)
    assert out[2].split(",")[15] == "-nan" and out[3].split(",")[15] == "0.000000"
    assert out[4].split(",")[2] == f"{float(row['ERR-IA@5']) / 2:.6f}"


def test_options_as_ndeval_reads_them():
    o = parse_args(["-ca", "-traditional", "-M", "5", "-riskAlpha", "2.50", "-baseline", "b",
                    "q", "r"])
    assert (o.complete, o.traditional, o.depth, o.risk_alpha_text, o.baseline) == \
        (True, True, 5, "2.50", "b")
    with pytest.raises(InvalidOptionError, match="alpha must be in"):
        parse_args(["-alpha", "2", "q", "r"])
    with pytest.raises(InvalidOptionError, match="unexpected argument '-x'"):
        parse_args(["-x", "q", "r"])
    with pytest.raises(FormatError, match=":2: syntax error"):
        run_ndeval(NdevalOptions("q", "r"), b"1 1 a 1\n1 1 b -1\n", b"1 Q0 a 1 1 r\n")


def test_traditional_orders_by_double_score_then_docno_descending():
    run = b"1 Q0 a 1 0.30000000000000004 r\n1 Q0 c 2 0.3 r\n1 Q0 b 3 0.3 r\n"
    from unjudged.ndeval._read import read_run
    assert read_run(run, "r", traditional=True)[1] == {1: [b"a", b"c", b"b"]}
    assert read_run(run, "r", traditional=True, depth=2)[1] == {1: [b"a", b"c"]}


# Found by benchmarks/ndeval_fuzz.py; the expected bytes are ndeval 4.5's own (pyndeval 0.0.8's
# ndeval.c, gcc 12, glibc 2.36). Topic 1 of FUZZ_QRELS has subtopics 1 and 2, topic 2 1 and 3.
FUZZ_QRELS = b"1 1 a 1\n1 2 b 1\n1 2 c 1\n2 1 a 1\n2 3 d 1\n"
FUZZ_HEAD = (
    "runid,topic,ERR-IA@5,ERR-IA@10,ERR-IA@20,nERR-IA@5,nERR-IA@10,nERR-IA@20,alpha-DCG@5,"
    "alpha-DCG@10,alpha-DCG@20,alpha-nDCG@5,alpha-nDCG@10,alpha-nDCG@20,NRBP,nNRBP,MAP-IA,"
    "P-IA@5,P-IA@10,P-IA@20,strec@5,strec@10,strec@20\n")


def test_scores_unread_and_topic_read_past_its_field_as_ndeval():
    # without -traditional ndeval never reads the score ("n/a" will do); a topic field with no
    # digit first and no '-' (`t`) makes ndeval read on into the next field, here "2"
    # (the drop-in refused both lines before)
    run = b"1 Q0 b 1 n/a r\n1 Q0 a 2 - r\nt 2 d 1 x r\nt 2 a 2 x r\n"
    out = run_ndeval(NdevalOptions("q", "r"), FUZZ_QRELS, run).decode()
    assert out == FUZZ_HEAD + (
        "r,1,0.544629,0.541075,0.541011,0.900000,0.900000,0.900000,0.537028,0.529859,0.529677,"
        "0.867087,0.867087,0.867087,0.562500,0.923077,0.500000,0.200000,0.100000,0.050000,"
        "1.000000,1.000000,1.000000\n"
        "r,2,0.544629,0.541075,0.541011,1.000000,1.000000,1.000000,0.537028,0.529859,0.529677,"
        "1.000000,1.000000,1.000000,0.562500,1.000000,0.750000,0.200000,0.100000,0.050000,"
        "1.000000,1.000000,1.000000\n"
        "r,amean,0.544629,0.541075,0.541011,0.950000,0.950000,0.950000,0.537028,0.529859,"
        "0.529677,0.933544,0.933544,0.933544,0.562500,0.961538,0.625000,0.200000,0.100000,"
        "0.050000,1.000000,1.000000,1.000000\n")
    with pytest.raises(FormatError, match=":1: syntax error"):  # two blanks: ndeval reads one
        run_ndeval(NdevalOptions("q", "r"), FUZZ_QRELS, b"t  2 d 1 x r\n")


def test_traditional_reads_scores_as_glibc_sscanf():
    # 0x1p-1 is 0.5 (hex), "1e" is 1, "infx" is inf: order x, c, a, b (the drop-in read
    # 0x1p-1 as 0 and put b before a: nERR-IA@5 0.550000)
    run = b"1 Q0 a 1 0x1p-1 r\n1 Q0 b 2 0.4 r\n1 Q0 c 3 1e r\n1 Q0 x 4 infx r\n"
    out = run_ndeval(NdevalOptions("q", "r", traditional=True), FUZZ_QRELS, run).decode()
    row = ("0.347958,0.345687,0.345646,0.575000,0.575000,0.575000,0.443295,0.437378,0.437227,"
           "0.715746,0.715746,0.715746,0.304688,0.500000,0.416667,0.300000,0.150000,0.075000,"
           "1.000000,1.000000,1.000000\n")
    assert out == FUZZ_HEAD + "r,1," + row + "r,amean," + row
    with pytest.raises(FormatError, match="not a number"):  # ndeval sorts on unset memory
        run_ndeval(NdevalOptions("q", "r", traditional=True), FUZZ_QRELS, b"1 Q0 a 1 x r\n")


def test_repeated_ranks_are_found_before_repeated_docnos():
    # ndeval checks every topic's ranks, then docnos: "duplicate rank (1) for topic 2"
    # (the drop-in said "duplicate docno (a) for topic 1")
    run = b"1 Q0 a 1 1 r\n1 Q0 a 2 1 r\n2 Q0 a 1 1 r\n2 Q0 b 1 1 r\n"
    with pytest.raises(InputError, match=r"duplicate rank \(1\) for topic 2"):
        run_ndeval(NdevalOptions("q", "r"), FUZZ_QRELS, run)


@pytest.fixture(scope="session")
def ndeval_binary(tmp_path_factory) -> Path:
    """ndeval compiled from pyndeval's sdist (the installed version), or a skip saying why."""
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        pytest.skip("no C compiler to build ndeval from pyndeval's sdist")
    try:
        from importlib.metadata import version
        pinned = version("pyndeval")
    except Exception:
        pinned = "0.0.8"
    where = tmp_path_factory.mktemp("ndeval")
    got = subprocess.run([sys.executable, "-m", "pip", "download", "--no-binary", ":all:",
                          "--no-deps", f"pyndeval=={pinned}", "-d", str(where)],
                         capture_output=True, text=True, timeout=120)
    sdists = list(where.glob("pyndeval-*.tar.gz"))
    if got.returncode or not sdists:
        pytest.skip(f"cannot fetch pyndeval's sdist with pip: {got.stderr.strip()[-200:]}")
    with tarfile.open(sdists[0]) as tar:
        member = next(m for m in tar.getmembers() if m.name.endswith("src/ndeval.c"))
        source = where / "ndeval.c"
        source.write_bytes(tar.extractfile(member).read())  # type: ignore[union-attr]
    binary = where / "ndeval"
    built = subprocess.run([cc, "-O2", "-o", str(binary), str(source), "-lm"],
                           capture_output=True, text=True)
    if built.returncode:
        pytest.skip(f"cannot compile ndeval.c: {built.stderr[-200:]}")
    return binary


def make_run(qrels: Path, seed: int, name: str) -> bytes:
    """Judged documents in random order with unjudged ones mixed in, tied scores (for
    -traditional), ranks shuffled against the scores, one topic dropped, one the qrels lack."""
    rng = np.random.default_rng(seed)
    docs: dict[str, list[str]] = {}
    for line in qrels.read_text().splitlines():
        t, _, d, _ = line.split()
        docs.setdefault(t, []).append(d)
    topics = sorted(docs, key=int)
    lines = []
    for t in topics[1:] + ["9999"]:
        pool = sorted(set(docs.get(t, ["z1", "z2"])))
        pick = [pool[i] for i in rng.choice(len(pool), size=min(60, len(pool)), replace=False)]
        pick += [f"unjudged-{i}" for i in range(5)]
        rng.shuffle(pick)
        scores = rng.integers(0, 25, len(pick)) / 8.0
        ranks = rng.permutation(len(pick)) + 1
        lines += [f"{t} Q0 {d} {r} {s} {name}\n" for d, r, s in
                  zip(pick, ranks, scores, strict=True)]
    return "".join(lines).encode()


@pytest.mark.parametrize("name", QRELS)
def test_byte_identical_to_ndeval(name, ndeval_binary, tmp_path):
    qrels = need(DATA / name)
    base = tmp_path / "base.run"
    base.write_bytes(make_run(qrels, 99, "base"))
    compared = 0
    for seed in range(3):
        run = tmp_path / f"run{seed}.run"
        run.write_bytes(make_run(qrels, seed, f"run{seed}"))
        for opts in OPTION_SETS:
            args = [str(base) if a == "BASE" else a for a in opts] + [str(qrels), str(run)]
            want = subprocess.run([str(ndeval_binary), *args], capture_output=True, check=True)
            got = CliRunner().invoke(main, ["ndeval", *args])
            assert got.exit_code == 0, got.output
            assert got.stdout_bytes == want.stdout, (seed, opts)
            compared += want.stdout.count(b"\n") - 1
    assert compared > 3 * len(OPTION_SETS) * 40
