"""Hand-worked examples, small enough to check with pencil and paper.

Topic t has judged docs a (grade 2), b (1), c (0) and n (-1: pooled but unjudged).
The run ranks: a, x (not in qrels), c, b, n.
"""

from __future__ import annotations

import math

import pytest

import unjudged

QRELS = {"t": {"a": 2, "b": 1, "c": 0, "n": -1}}
RUN = {"t": {"a": 5.0, "x": 4.0, "c": 3.0, "b": 2.0, "n": 1.0}}
L = math.log2

HAND = {
    "P@2": 1 / 2,
    "P@10": 2 / 10,
    "R@3": 1 / 2,
    "AP": (1 / 1 + 2 / 4) / 2,
    "AP@3": (1 / 1) / 2,
    "RR": 1.0,
    "Rprec": 1 / 2,  # one relevant in the top R = 2
    "nDCG@3": 2 / (2 + 1 / L(3)),
    "nDCG": (2 + 1 / L(5)) / (2 + 1 / L(3)),
    "nDCG(dcg='exp-log2')@3": 3 / (3 + 1 / L(3)),
    "P(rel=2)@2": 1 / 2,
    "Bpref": (1 + (1 - 1 / 1)) / 2,  # b has one judged non-relevant (c) above it; min(R,N) = 1
    "Judged@2": 1 / 2,
    "Judged@5": 3 / 5,  # x not in qrels, n pooled but unjudged
    "NumRet": 5,
    "NumRel": 2,
    "NumRelRet": 2,
    "Success@1": 1.0,
    "RBP(p=0.5,rel=1)": 0.5 * (1 + 0.5 ** 3),
    "Unj@5": 2 / 5,
    # infAP: rank 1 relevant -> 1; rank 4 (b): 1/4 + 3/4 * (2 pooled of 3 above) *
    # ((1 + eps) / (2 + 2 eps)), eps = 1e-5
    "infAP": (1 + 1 / 4 + 3 / 4 * (2 / 3) * ((1 + 1e-5) / (2 + 2e-5))) / 2,
}


@pytest.mark.parametrize("name", list(HAND))
def test_hand_worked(name):
    df = unjudged.evaluate(RUN, QRELS, [name], per_topic=False)
    assert df.value[0] == pytest.approx(HAND[name], abs=1e-12)


def test_condensed_list_with_judged_only():
    # dropping x and n leaves a, c, b
    df = unjudged.evaluate(RUN, QRELS, ["P@2", "nDCG@2"], per_topic=False, judged_only=True)
    assert df.value.tolist() == pytest.approx([1 / 2, 2 / (2 + 1 / L(3))])


def test_depth_cut():
    df = unjudged.evaluate(RUN, QRELS, ["NumRet", "R@5"], per_topic=False, depth=3)
    assert df.value.tolist() == [3, 1 / 2]


def test_err_by_hand():
    """Grades 2, 0, 1 with max_grade 2: R = 3/4, 0, 1/4;
    ERR = 3/4 + 0 + (1/3)(1/4)(1/4)(1) = 0.7708333..."""
    from unjudged import evaluate

    df = evaluate({"q": {"a": 3.0, "b": 2.0, "c": 1.0}}, {"q": {"a": 2, "b": 0, "c": 1}},
                  ["ERR(max_grade=2)", "ERR(max_grade=2)@1", "ERR@3"])
    got = dict(df[df.topic == "q"][["measure", "value"]].values.tolist())
    assert abs(got["ERR(max_grade=2)"] - (0.75 + 1 / 48)) < 1e-12
    assert abs(got["ERR(max_grade=2)@1"] - 0.75) < 1e-12
    assert abs(got["ERR@3"] - (3 / 16 + (1 / 3) * (13 / 16) * (1 / 16))) < 1e-12


def test_judged_only_drops_pooled_but_unjudged_documents():
    """trec_eval -J keeps the documents graded >= 0 only: those the qrels lack and the -1
    (pooled, not judged) ones both go, as form_res_rels's `rel >= 0` loop has it; under the
    nonrel policy a -1 is a judged non-relevant document and stays."""
    from unjudged import evaluate

    run, qrels = {"t": {"a": 3.0, "x": 2.0, "b": 1.0}}, {"t": {"a": 1, "b": -1}}
    df = evaluate(run, qrels, ["NumRet", "P@2"], judged_only=True, per_topic=False)
    assert df.set_index("measure")["value"].to_dict() == {"NumRet": 1.0, "P@2": 0.5}
    df = evaluate(run, qrels, ["NumRet", "P@2"], judged_only=True, per_topic=False,
                  negative="nonrel")
    assert df.set_index("measure")["value"].to_dict() == {"NumRet": 2.0, "P@2": 0.5}


def test_trec_eval_judged_only_with_a_negative_grade(tmp_path):
    """trec_eval 10.0's own output (built from source) on this pair, -q -J: the -1 document b
    and the unjudged z are dropped, so 2 documents remain and relstring is '10'."""
    from click.testing import CliRunner

    from unjudged.cli import main

    (tmp_path / "q").write_text("1 0 a 1\n1 0 b -1\n1 0 c 0\n")
    (tmp_path / "r").write_text("1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 c 3 1 t\n1 Q0 z 4 0.5 t\n")
    got = CliRunner().invoke(main, ["trec_eval", "-q", "-J", "-m", "num_ret", "-m", "P.5",
                                    "-m", "relstring", str(tmp_path / "q"), str(tmp_path / "r")])
    assert got.exit_code == 0, got.output
    assert got.output == ("num_ret               \t1\t2\n"
                          "P_5                   \t1\t0.2000\n"
                          "relstring             \t1\t'10'\n"
                          "num_ret               \tall\t2\n"
                          "P_5                   \tall\t0.2000\n")


@pytest.mark.parametrize("level,per_topic", [("2", "1 1 0"), ("0", "3 2 1"), ("1", "2 2 1")])
def test_trec_eval_complete_num_rel_summary_counts_grades_above_0(tmp_path, level, per_topic):
    """Under -c trec_eval 10.0 sums num_rel over the qrels itself, counting grades > 0 in every
    qrels topic whatever -l says (m_num_rel.c): 5 here at -l 2, 0 and 1 alike, while the
    topics' own lines follow -l (outputs of trec_eval 10.0 built from source)."""
    from click.testing import CliRunner

    from unjudged.cli import main

    (tmp_path / "q").write_text("1 0 a 2\n1 0 b 1\n1 0 c 0\n2 0 d 1\n2 0 e 2\n3 0 f 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 3 t\n1 Q0 c 2 2 t\n2 Q0 z 1 1 t\n")
    got = CliRunner().invoke(main, ["trec_eval", "-q", "-c", "-l", level, "-m", "num_rel",
                                    str(tmp_path / "q"), str(tmp_path / "r")])
    assert got.exit_code == 0, got.output
    want = "".join(f"num_rel               \t{t}\t{n}\n"
                   for t, n in zip("123", per_topic.split(), strict=True))
    assert got.output == want + "num_rel               \tall\t5\n"


def test_trec_eval_says_where_trec_eval_itself_stops(tmp_path):
    """A topic judged only with negative grades stops trec_eval 10.0 (exit 4, "Can't calculate
    measure") when it is the first topic evaluated (strcmp order); the drop-in evaluates it as
    a topic without relevant documents and says so in one line, only then: not when the topic
    is not evaluated (absent from the run, without -c), nor when another topic comes first
    (trec_eval then prints the same values, checked against trec_eval 10.0)."""
    from click.testing import CliRunner

    from unjudged.cli import main

    (tmp_path / "q").write_text("1 0 a -1\n1 0 b -1\n2 0 c 1\n")
    (tmp_path / "r").write_text("2 Q0 c 1 1 t\n")
    args = ["trec_eval", "-m", "num_rel", str(tmp_path / "q"), str(tmp_path / "r")]
    quiet = CliRunner().invoke(main, args)
    assert (quiet.exit_code, quiet.stdout, quiet.stderr) == (0, "num_rel               \tall\t1\n",
                                                            "")
    said = CliRunner().invoke(main, [*args[:1], "-c", *args[1:]])
    assert said.exit_code == 0 and said.stdout == "num_rel               \tall\t1\n"
    assert said.stderr.count("\n") == 1
    assert "topic '1', the first that trec_eval evaluates, has only negative grades" in \
        said.stderr
    (tmp_path / "q").write_text("2 0 a -1\n1 0 c 0\n")  # '1' comes first: no stop, no note
    (tmp_path / "r").write_text("2 Q0 a 1 1 t\n1 Q0 c 1 1 t\n")
    later = CliRunner().invoke(main, ["trec_eval", "-q", "-m", "num_rel", str(tmp_path / "q"),
                                      str(tmp_path / "r")])
    assert (later.exit_code, later.stderr) == (0, "")
    assert later.stdout == ("num_rel               \t1\t0\nnum_rel               \t2\t0\n"
                            "num_rel               \tall\t0\n")


@pytest.mark.parametrize("how", [["-N", "100"], ["-N100"]])
def test_trec_eval_collection_size_feeds_utility(tmp_path, how):
    """-N (documents in the collection) enters utility's fourth weight, d * (N + rel_ret - ret
    - rel): trec_eval 10.0 prints 97, 96 and 96.5 here; both the plain call (no click) and
    click's command read it."""
    import subprocess
    import sys

    (tmp_path / "q").write_text("1 0 a 2\n1 0 b 1\n1 0 c 0\n2 0 d 1\n2 0 e 2\n")
    (tmp_path / "r").write_text("1 Q0 a 1 3 t\n1 Q0 c 2 2 t\n2 Q0 z 1 1 t\n")
    want = "".join(f"utility_1,-1,0,1      \t{t}\t{v}\n"
                   for t, v in (("1", "97.0000"), ("2", "96.0000"), ("all", "96.5000")))
    args = ["trec_eval", "-q", *how, "-m", "utility.1,-1,0,1", str(tmp_path / "q"),
            str(tmp_path / "r")]
    plain = subprocess.run([sys.executable, "-m", "unjudged", *args], capture_output=True,
                           text=True)
    assert (plain.returncode, plain.stdout, plain.stderr) == (0, want, "")
    from click.testing import CliRunner

    from unjudged.cli import main

    got = CliRunner().invoke(main, args)
    assert (got.exit_code, got.stdout) == (0, want)


@pytest.mark.parametrize("how", [["-l", "0", "-m", "Rndcg"], ["-m", "Rndcg.1=0,2=0"]])
def test_trec_eval_rndcg_without_a_positive_gain_is_nan(tmp_path, how):
    """Rndcg averages nDCG over the ranks where the ideal gain drops; a topic with relevant
    documents (num_rel > 0) but no positive gain has no such rank, and trec_eval 10.0 prints
    0/0 as -nan (its outputs here, built from source)."""
    from click.testing import CliRunner

    from unjudged.cli import main

    (tmp_path / "q").write_text("1 0 a 0\n1 0 b 0\n" if how[0] == "-l" else "1 0 a 2\n1 0 b 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 3 t\n1 Q0 z 2 2 t\n")
    got = CliRunner().invoke(main, ["trec_eval", "-q", *how, str(tmp_path / "q"),
                                    str(tmp_path / "r")])
    name = how[-1].replace(".", "_", 1)
    assert (got.exit_code, got.stdout) == (0, f"{name:<22}\t1\t  -nan\n{name:<22}\tall\t  -nan\n")


def test_trec_eval_rbp_resid_in_trec_evals_arithmetic(tmp_path):
    """rbp_resid's mean here is 0.96355 up to the last bits: trec_eval 10.0 (its powers of p by
    repeated products, its sum left to right) prints 0.9636, where numpy's powers and pairwise
    sum printed 0.9635 (a case of benchmarks/trec_eval10_fuzz.py)."""
    from click.testing import CliRunner

    from unjudged.cli import main

    (tmp_path / "q").write_text("101 x d12 0\n2 0 d27 -1\n")
    lines = ["101 Q0 d5 1 8 t", "101 Q0 d23 0 3.1394 t", "101 Q0 d8 4 0.1 t", "101 Q0 d12 0 0 t"]
    lines += [f"2 Q0 {d} 0 {s} t" for d, s in (
        ("d2", "4.0771701"), ("d9", "7.6933202"), ("d19", "8.5"), ("d14", "2"), ("d21", "5.160001"),
        ("d25", "2.9415"), ("d28", "4.2074"), ("d0", "0.5"), ("D1", "2"), ("d222", "1.25"),
        ("d30", "3.5718722"))]
    (tmp_path / "r").write_text("\n".join(lines) + "\n")
    got = CliRunner().invoke(main, ["trec_eval", "-m", "rbp_resid", str(tmp_path / "q"),
                                    str(tmp_path / "r")])
    assert (got.exit_code, got.stdout) == (0, "rbp_resid             \tall\t0.9636\n")


def test_trec_eval_version_results_format_and_debug_options(tmp_path):
    """trec_eval's -v (its version line on standard error, exit 0), -T trec_results (its only
    results format) and -D 0 (no debug output) are accepted; another format or a debug level
    is refused in one line, exit 2."""
    from click.testing import CliRunner

    from unjudged.cli import main

    said = CliRunner().invoke(main, ["trec_eval", "-v"])
    assert said.exit_code == 0 and said.stdout == ""
    assert said.stderr.startswith("trec_eval version 10.0 (unjudged ")
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n")
    (tmp_path / "r").write_text("1 Q0 b 1 2 t\n1 Q0 a 2 1 t\n")
    files = [str(tmp_path / "q"), str(tmp_path / "r")]
    plain = CliRunner().invoke(main, ["trec_eval", "-m", "map", *files])
    same = CliRunner().invoke(main, ["trec_eval", "-m", "map", "-T", "trec_results", "-D", "0",
                                     *files])
    assert (same.exit_code, same.stdout) == (0, plain.stdout) == (0, "map                   "
                                                                  "\tall\t0.5000\n")
    for bad in (["-D", "1"], ["-T", "qrels"]):
        got = CliRunner().invoke(main, ["trec_eval", *bad, "-m", "map", *files])
        assert got.exit_code == 2 and "Invalid value for" in got.stderr


def test_trec_eval_long_option_names(tmp_path):
    """trec_eval 10.0's getopt_long names (--query_eval_wanted, --measure, --level_for_rel,
    --Judged_docs_only, --Max_retrieved_per_topic, --Number_docs_in_coll, --Rel_info_format,
    --complete_rel_info_wanted, --nosummary, --Zscore, ...) give the short options' output."""
    from click.testing import CliRunner

    from unjudged.cli import main

    (tmp_path / "q").write_text("1 0 a 2\n1 0 b 1\n1 0 c 0\n2 0 d 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 3 t\n1 Q0 c 2 2 t\n2 Q0 z 1 1 t\n")
    files = [str(tmp_path / "q"), str(tmp_path / "r")]
    short = CliRunner().invoke(main, ["trec_eval", "-q", "-c", "-m", "all_trec", "-l", "2", "-J",
                                      "-M", "5", "-N", "9", "-R", "qrels", *files])
    long = CliRunner().invoke(main, [
        "trec_eval", "--query_eval_wanted", "--complete_rel_info_wanted", "--measure=all_trec",
        "--level_for_rel", "2", "--Judged_docs_only", "--Max_retrieved_per_topic", "5",
        "--Number_docs_in_coll", "9", "--Rel_info_format", "qrels", *files])
    assert short.exit_code == long.exit_code == 0 and short.stdout == long.stdout
    assert "num_rel               \tall\t3\n" in long.stdout  # -c: grades > 0 whatever -l
    quiet = CliRunner().invoke(main, ["trec_eval", "--nosummary", "-m", "map", *files])
    assert (quiet.exit_code, quiet.stdout) == (0, "")
