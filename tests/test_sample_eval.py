"""`unjudged sample_eval` and `infer --compat`: both lineages of sample_eval.pl.

Hand-worked cases for each rule in which the two copies differ, and byte-for-byte comparisons
with the real programs' output (tests/data/sample_eval/, SOURCES.md there says which copy,
commit and command produced each file).
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

import pytest
from click.testing import CliRunner

from shared_data import DATA, TREC_EVAL, need
from unjudged.cli import main
from unjudged.errors import IncompatibleInputsError
from unjudged.io import read_run
from unjudged.sample_eval import sample_eval_text
from unjudged.sample_eval._qrels import read_qrels
from unjudged.sample_eval._score import ranking

HERE = Path(__file__).parent / "data" / "sample_eval"
PM_QRELS = (DATA / "bst-mug-trec-pm/src/main/resources/gold-standard"
            / "sample-qrels-final-abstracts.txt")
BC_QRELS = DATA / "biocaddie2016-amillert/qrelsBiocaddie"


def log2(x: float) -> float:
    return math.log(x) / math.log(2)


def toy(name: str) -> bytes:
    return (HERE / name).read_bytes()


def rows(text: str) -> dict[tuple[str, str], str]:
    """{(measure, topic): printed value} of a sample_eval output."""
    out = {}
    for line in text.splitlines():
        f = line.split()
        if len(f) == 3:
            out[(f[0], f[1])] = f[2]
    return out


def hash_run(qrels_text: str, pad: bool) -> str:
    """A run built from hashes of the qrels' names (no random generator): about a third of each
    topic's universe plus 20 documents outside it; a fifth of the scores small integers (ties),
    a seventh equal in float32 but not in double; even topics zero-padded when `pad`."""
    lines, outside = [], {}
    for line in qrels_text.splitlines():
        f = line.split()
        if len(f) != 5:
            continue
        topic, docno, grade = f[0], f[2], int(f[4])
        h = int.from_bytes(hashlib.blake2b(f"{topic} {docno}".encode(), digest_size=6).digest(),
                           "little")
        if h % 3:
            continue
        if topic not in outside:
            outside[topic] = True
            for i in range(20):
                lines.append((topic, f"zz-out-{i}", f"{i % 4}"))
        if h % 5 == 0:
            score = f"{h % 4}"
        elif h % 7 == 0:
            score = f"{1 + (h % 3) * 1e-9:.10f}"
        else:
            score = f"{(h % 100000) / 10000 + 2 * max(grade, 0):.4f}"
        lines.append((topic, docno, score))
    out = []
    for topic, docno, score in lines:
        tid = "0" + topic if pad and topic.isdigit() and int(topic) % 2 == 0 else topic
        out.append(f"{tid} Q0 {docno} 0 {score} hash\n")
    return "".join(out)


# ----------------------------------------------------------------------------- hand-worked rules

# stratum 1: a (grade 2), b (0), c (unsampled): 1.5 estimated grade-2 documents;
# stratum 2: d, e (grade 1): 2 estimated grade-1 documents
GRADES = b"1 0 a 1 2\n1 0 b 1 0\n1 0 c 1 -1\n1 0 d 2 1\n1 0 e 2 1\n"


def test_ideal_dcg_rounds_counts_in_the_trec_copy_and_keeps_them_fractional_in_trecvid():
    t = read_qrels(GRADES)["1"]
    assert t.grade_estimates() == {"1": 2.0, "2": 1.5}
    # TREC: int(1.5 + 0.5) = 2 grade-2 documents at ranks 1, 2; grade 1 at 3, 4
    assert t.ideal_dcg(1000, rounded=True) == pytest.approx(
        2 / log2(2) + 2 / log2(3) + 1 / log2(4) + 1 / log2(5), abs=1e-12)
    # TRECVID: ranks 1 <= r <= 1.5 (one document), then from the fractional start 1.5: 2.5, 3.5
    assert t.ideal_dcg(1000, rounded=False) == pytest.approx(
        2 / log2(2) + 1 / log2(3.5) + 1 / log2(4.5), abs=1e-12)


def test_ideal_dcg_lets_each_lower_grade_spill_one_document_past_the_limit():
    t = read_qrels(GRADES)["1"]
    # limit 1: grade 2 stops at rank 1; grade 1 still adds its first document (rank 3, or 2.5)
    assert t.ideal_dcg(1, rounded=True) == pytest.approx(2 + 1 / log2(4), abs=1e-12)
    assert t.ideal_dcg(1, rounded=False) == pytest.approx(2 + 1 / log2(3.5), abs=1e-12)


def test_infndcg_of_each_lineage_uses_its_ideal_dcg():
    run = b"1 Q0 a 1 3 r\n1 Q0 d 2 2 r\n"
    # DCG: a at rank 1 (stratum 1: 1 of 1 sampled, gain 2) + d at rank 2 (stratum 2: gain 1)
    dcg = 2 / log2(2) + 1 / log2(3)
    want = {"trec": dcg / (2 + 2 / log2(3) + 1 / log2(4) + 1 / log2(5)),
            "trecvid": dcg / (2 + 1 / log2(3.5) + 1 / log2(4.5))}
    for lineage, value in want.items():
        got = rows(sample_eval_text(GRADES, run, lineage=lineage))
        assert got[("infNDCG", "all")] == f"{value:6.4f}", lineage
    assert want["trec"] != pytest.approx(want["trecvid"], abs=1e-3)


def test_trecvid_rescales_ap_by_r_over_max_result_size():
    # toy topic 2: R = 3 (stratum 1, complete) + 1 x 2/1 (stratum 2) = 5. Ranking t, s, p, y, q
    # (p and s tie at 4: docno descending). With M = 2 only t (unsampled) and s (grade 2) count:
    # precision at s = 1/2 + (1/2)(1/3) (stratum 2: nothing sampled above, smoothed to 1/3);
    # AP = (R_2 / R) x that = 2/5 x 2/3 = 4/15, rescaled by R/M = 5/2 -> 2/3 (TRECVID only)
    q, run = toy("toy.qrels"), toy("toy.run")
    vid = rows(sample_eval_text(q, run, lineage="trecvid", per_topic=True, max_result_size=2))
    assert vid[("infAP", "2")] == f"{4 / 15 * 5 / 2:6.4f}" == "0.6667"
    trec = rows(sample_eval_text(q, run, lineage="trec", per_topic=True, max_result_size=2))
    assert trec[("infAP", "2")] == f"{4 / 15:6.4f}"


def test_trec_strips_leading_zeros_from_run_topics_trecvid_does_not():
    q, run = toy("toy.qrels"), toy("toy.run")
    trec = rows(sample_eval_text(q, run, lineage="trec", per_topic=True))
    vid = rows(sample_eval_text(q, run, lineage="trecvid", per_topic=True))
    assert ("infAP", "1") in trec  # run topic "01"
    assert ("infAP", "1") not in vid and ("infAP", "01") not in vid
    assert {t for _, t in vid} == {"2", "all"}


def test_inum_rel_all_sums_every_qrels_topic_and_num_ret_counts_lines():
    q, run = toy("toy.qrels"), toy("toy.run")
    got = rows(sample_eval_text(q, run, per_topic=True))
    # topic 1: 2 (stratum 1) + 1 x 4/2 (stratum 2); topic 2: 3 + 2; topic 3, not in the run: 1
    assert (got[("inum_rel", "1")], got[("inum_rel", "2")]) == ("4.0000", "5.0000")
    assert got[("inum_rel", "all")] == "10.0000"
    # c is listed twice: 7 lines, 6 ranked documents; 'all' counts ranked documents (6 + 5)
    assert got[("num_ret", "1")] == "7" and got[("num_ret", "all")] == "11"


def test_scores_compared_in_double_then_docno_descending():
    docs = {"a": "1", "b": "1.0", "x": "2.00000002", "e": "2.00000001", "d": "2.00000001"}
    assert ranking(docs) == ["x", "e", "d", "b", "a"]
    run = {"1": {d: float(s) for d, s in docs.items()}}
    assert read_run(run, ties="sample_eval").docno.to_pylist() == ["x", "e", "d", "b", "a"]
    # scores equal in float32: trec_eval 9 ties them (docno descending), sample_eval does not,
    # nor does trec_eval 10.0
    close = {"1": {"b": 2.00000001, "a": 2.00000002}}
    assert read_run(close, ties="trec_eval9").docno.to_pylist() == ["b", "a"]
    assert read_run(close, ties="sample_eval").docno.to_pylist() == ["a", "b"]
    assert read_run(close, ties="trec_eval").docno.to_pylist() == ["a", "b"]


def test_windows_infinity_scores_rank_first_as_in_perl():
    # Perl reads "1.#INF" (the Windows C library's infinity) as +Inf, so c (grade 0) leads;
    # read as the number 1 it came after a, and infAP was 0.8333. The TREC copy's output, -q.
    q = b"1 0 a 1 1\n1 0 b 1 1\n1 0 c 1 0\n"
    run = b"1 Q0 c 1 1.#INF x\n1 Q0 a 2 2 x\n1 Q0 b 3 0.5 x\n"
    assert ranking({"c": "1.#INF", "a": "2", "b": "0.5"}) == ["c", "a", "b"]
    perl = [
        "infAP\t\t1\t\t0.5833",
        "infNDCG\t\t1\t\t0.6934",
        "iP10\t\t1\t\t0.2000",
        "iP50\t\t1\t\t0.0400",
        "iP1000\t\t1\t\t0.0020",
        "inum_rel_ret\t1\t        2.0000",
        "inum_rel\t1\t        2.0000",
        "num_ret\t\t1\t        3",
        "infAP\t\tall\t\t0.5833",
        "infNDCG\t\tall\t\t0.6934",
        "iprec@rec0.00\tall\t\t0.6667",
        "iprec@rec0.10\tall\t\t0.6667",
        "iprec@rec0.20\tall\t\t0.6667",
        "iprec@rec0.30\tall\t\t0.6667",
        "iprec@rec0.40\tall\t\t0.6667",
        "iprec@rec0.50\tall\t\t0.6667",
        "iprec@rec0.60\tall\t\t0.6667",
        "iprec@rec0.70\tall\t\t0.6667",
        "iprec@rec0.80\tall\t\t0.6667",
        "iprec@rec0.90\tall\t\t0.6667",
        "iprec@rec1.00\tall\t\t0.0000",
        "iP10\t\tall\t\t0.2000",
        "iP50\t\tall\t\t0.0400",
        "iP1000\t\tall\t\t0.0020",
        "inum_rel_ret\tall\t        2.0000",
        "inum_rel\tall\t        2.0000",
        "num_ret\t\tall\t        3",
    ]
    assert sample_eval_text(q, run, per_topic=True) == "\n".join(perl) + "\n"


def test_no_common_topic_is_an_error():
    with pytest.raises(IncompatibleInputsError, match="no topic of the run"):
        sample_eval_text(b"1 0 a 1 1\n", b"9 Q0 a 1 1 r\n")


# ----------------------------------------------------------------------------- the real programs


@pytest.mark.parametrize(("out", "args"), [
    ("toy.trec.out", []), ("toy.trec.q.out", ["-q"]),
    ("toy.trecvid.M1000.out", ["--lineage", "trecvid"]),
    ("toy.trecvid.q.M2.out", ["-q", "--lineage", "trecvid", "--max-result-size", "2"])])
def test_cli_prints_the_toy_outputs_byte_for_byte(out, args, monkeypatch):
    monkeypatch.chdir(HERE)  # the TRECVID copy prints the file names as given
    res = CliRunner().invoke(main, ["sample_eval", *args, "toy.qrels", "toy.run"])
    assert res.exit_code == 0, res.output
    assert res.output == (HERE / out).read_text()


@pytest.mark.parametrize(("qrels", "pad", "out", "options"), [
    (PM_QRELS, True, "pm2017.hash.trec.q.out", {}),
    (PM_QRELS, True, "pm2017.hash.trecvid.q.M1000.out", {"lineage": "trecvid"}),
    (BC_QRELS, False, "biocaddie2016.hash.trec.q.out", {}),
    (BC_QRELS, False, "biocaddie2016.hash.trecvid.q.M500.out",
     {"lineage": "trecvid", "max_result_size": 500})])
def test_real_qrels_byte_for_byte(qrels, pad, out, options):
    q = need(qrels).read_bytes()
    run = hash_run(q.decode(), pad).encode()
    got = sample_eval_text(q, run, per_topic=True, qrels_name="QRELS", run_name="RUN", **options)
    assert got == (HERE / out).read_text()


def _sampled_trec_eval_qrels(tmp_path) -> Path:
    path = tmp_path / "sampled.qrels"
    res = CliRunner().invoke(main, ["sample", str(need(TREC_EVAL / "qrels.test")),
                                    str(TREC_EVAL / "results.test"), "--design",
                                    "depth:10+uniform:0.3", "--seed", "7", "-o", str(path)])
    assert res.exit_code == 0, res.output
    return path


@pytest.mark.parametrize(("out", "options"), [
    ("trec_eval-test.sampled.trec.q.out", {}),
    ("trec_eval-test.sampled.trecvid.q.M100.out", {"lineage": "trecvid", "max_result_size": 100})])
def test_sampled_by_unjudged_sample_byte_for_byte(tmp_path, out, options):
    q = _sampled_trec_eval_qrels(tmp_path).read_bytes()
    run = (TREC_EVAL / "results.test").read_bytes()
    got = sample_eval_text(q, run, per_topic=True, qrels_name="QRELS", run_name="RUN", **options)
    assert got == (HERE / out).read_text()


def test_docs_biocaddie_topics_over_1000_grade_2_and_the_spill():
    # docs/sampled-judgments.md, "Where the default differs"
    q = need(BC_QRELS).read_bytes()
    topics = read_qrels(q)
    over = {t: round(topics[t].grade_estimates().get("2", 0.0), 1) for t in topics
            if topics[t].grade_estimates().get("2", 0.0) > 1000}
    assert over == {"1": 1105.2, "11": 1090.0, "14": 1109.9}
    run = hash_run(q.decode(), pad=False).encode()
    trec = rows(sample_eval_text(q, run, per_topic=True))
    vid = rows(sample_eval_text(q, run, per_topic=True, lineage="trecvid"))
    res = CliRunner().invoke(main, ["infer", str(BC_QRELS), "-", "-M", "1000", "--ties",
                                    "sample_eval", "-q", "-f", "jsonl", "-m", "infNDCG@1000"],
                             input=run.decode())
    assert res.exit_code == 0, res.output
    ours = {d["topic"]: f"{d['value']:.4f}" for d in map(json.loads, res.output.splitlines())
            if d["topic"] != "all"}
    differ = {t for t in ours if ours[t] != vid[("infNDCG", t)]}
    assert differ == {"1", "11", "14"}
    assert [(ours[t], vid[("infNDCG", t)]) for t in ("1", "11", "14")] == [
        ("0.5106", "0.5104"), ("0.2212", "0.2211"), ("0.5513", "0.5510")]
    assert {t for t in ours if ours[t] != trec[("infNDCG", t)]} == {
        "1", "5", "6", "8", "9", "11", "12", "14"}
    assert (trec[("infNDCG", "5")], vid[("infNDCG", "5")]) == ("0.4218", "0.4249")


# ----------------------------------------------------------------------------- infer --compat

NAMES = {"xinfAP": "infAP", "xinfAP(cap=1000)": "infAP", "iNumRelRet": "inum_rel_ret",
         "iNumRel": "inum_rel"}


def _printed_name(measure: str) -> str:
    if measure.startswith("infNDCG"):
        return "infNDCG"
    if measure.startswith("iIPrec"):
        return f"iprec@rec{float(measure.split('=')[1][:-1]) if '=' in measure else 0:4.2f}"
    if measure.startswith("iP@"):
        return "iP" + measure[3:]
    return NAMES[measure]


@pytest.mark.parametrize(("compat", "qrels", "pad", "out"), [
    ("sample_eval", BC_QRELS, False, "biocaddie2016.hash.trec.q.out"),
    ("sample_eval-trecvid", PM_QRELS, True, "pm2017.hash.trecvid.q.M1000.out")])
def test_infer_compat_gives_the_programs_values(tmp_path, compat, qrels, pad, out):
    run = tmp_path / "hash.run"
    run.write_text(hash_run(need(qrels).read_text(), pad))
    res = CliRunner().invoke(main, ["infer", "--compat", compat, str(qrels), str(run), "-q",
                                    "-f", "jsonl"])
    assert res.exit_code == 0, res.output
    want = rows((HERE / out).read_text())
    compared = 0
    for line in res.output.splitlines():
        if not line.startswith("{"):
            continue
        d = json.loads(line)
        key = (_printed_name(d["measure"]), d["topic"])
        if key == ("inum_rel", "all"):
            # sample_eval adds every qrels topic; infer the topics it evaluated (the padded ids
            # of the PM run are not in the qrels for the TRECVID copy)
            evaluated = sum(float(v) for (m, t), v in want.items()
                            if m == "inum_rel" and t != "all")
            assert d["value"] == pytest.approx(evaluated, abs=1e-3)
            continue
        if key in want:
            assert f"{d['value']:.4f}" == want[key], key
            compared += 1
    # every value printed but num_ret (the TRECVID copy prints iP1000 twice)
    assert compared == sum(m != "num_ret" for m, _ in want) - 1  # less inum_rel 'all'


@pytest.mark.parametrize(("compat", "qrels", "pad", "out", "args"), [
    ("sample_eval", BC_QRELS, False, "biocaddie2016.hash.trec.q.out", []),
    ("sample_eval-trecvid", PM_QRELS, True, "pm2017.hash.trecvid.q.M1000.out",
     ["--lineage", "trecvid", "--max-result-size", "1000"])])
def test_infer_compat_applies_to_the_measures_named(tmp_path, compat, qrels, pad, out, args):
    """-m infNDCG -m infAP with --compat: the copy's ideal DCG and its infAP (xinfAP), equal to
    `unjudged sample_eval -q` and to the program's own output on every topic (issue 32: the
    fractional ideal was used whatever --compat said)."""
    run = tmp_path / "hash.run"
    run.write_text(hash_run(need(qrels).read_text(), pad))
    res = CliRunner().invoke(main, ["infer", "--compat", compat, "-m", "infNDCG", "-m", "infAP",
                                    str(qrels), str(run), "-q", "-f", "jsonl"])
    assert res.exit_code == 0, res.output
    got = {(_printed_name(d["measure"]), d["topic"]): f"{d['value']:.4f}"
           for d in map(json.loads, (x for x in res.output.splitlines() if x.startswith("{")))}
    program = rows((HERE / out).read_text())
    ours = CliRunner().invoke(main, ["sample_eval", "-q", *args, str(qrels), str(run)])
    assert ours.exit_code == 0, ours.output
    cli = rows(ours.output)
    keys = [k for k in program if k[0] in ("infNDCG", "infAP")]
    assert len(keys) == len(got) > 20
    assert [k for k in keys if not got[k] == cli[k] == program[k]] == []


def test_infer_compat_refuses_a_measure_without_a_rule():
    for measure, why in (("AP", "has no rule for AP"),
                         ("infNDCG(ideal='fractional')", "computes infNDCG with ideal='rounded'")):
        res = CliRunner().invoke(main, ["infer", "--compat", "sample_eval", "-m", measure,
                                        str(HERE / "toy.qrels"), str(HERE / "toy.run")])
        assert res.exit_code == 2 and why in res.output, res.output
        assert len(res.output.strip().splitlines()) == 1
