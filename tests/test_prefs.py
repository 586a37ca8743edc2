"""trec_eval's preference measures and formats (-R prefs, qrels_prefs, qrels_jg), worked by hand.

The byte-identical runs of trec_eval 10's own test suite are in test_trec_eval_golden.py.
"""

from __future__ import annotations

import io

import numpy as np
import pytest
from click.testing import CliRunner

from shared_data import TREC_EVAL, need
from unjudged.cli import main
from unjudged.errors import FormatError
from unjudged.io.prefs import read_prefs
from unjudged.measures.prefs import build_groups, ec_group, topic_values


def _values(lines: str, ranking: list[str]) -> dict[str, float]:
    """Every measure of one topic: prefs lines `jg jsg docno level`, ranking of docnos."""
    rows = [line.split() for line in lines.strip().splitlines()]
    docs = sorted({r[2] for r in rows})
    ret = [d for d in ranking if d in docs]
    order = ret + [d for d in docs if d not in ret]
    rank = np.array([order.index(r[2]) for r in rows])
    groups = build_groups([r[0] for r in rows], [r[1] for r in rows],
                          np.array([float(r[3]) for r in rows]), rank)
    return topic_values(groups, len(order), len(ret))


def test_one_subgroup_ranking_six_documents_states_13_preferences():
    # get_prefs.c's example: levels 3, 2, 0, 6, 0, 2 -> 5 + 4 + 2 + 2 preferences
    v = _values("u s d1 3\nu s d2 2\nu s d3 0\nu s d4 6\nu s d5 0\nu s d6 2", [])
    assert v["prefs_num_prefs_poss"] == 13
    assert v["prefs_num_prefs_ful"] == 0 and v["prefs_simp"] == 0.0


def test_subgroups_of_one_group_add_transitive_preferences():
    # 1>2, 1>3, 2>3 and 2>4 give 1>4 too; nothing between 3 and 4
    v = _values("u a d1 3\nu a d2 2\nu a d3 1\nu b d2 5\nu b d4 4", ["d4", "d1", "d2"])
    assert v["prefs_num_prefs_poss"] == 5
    # retrieved d4 d1 d2: 1>2 fulfilled, 2>4 and 1>4 not; 1>3 and 2>3 implied fulfilled
    assert v["prefs_num_prefs_ful_ret"] == 1
    assert v["prefs_num_prefs_ful"] == 3
    assert v["prefs_simp_ret"] == pytest.approx(1 / 3)


def test_two_judgment_groups_disagree_on_a_pair():
    # get_prefs.c's example of two users: 1>2 | 3>4, 3>1, 4>1, 2>1 (5 preferences)
    lines = "u1 s d1 3\nu1 s d2 2\nu2 s d1 0\nu2 s d3 6\nu2 s d4 2\nu2 t d1 0\nu2 t d2 8"
    v = _values(lines, ["d1", "d2", "d3", "d4"])
    assert v["prefs_num_prefs_poss"] == 5
    assert v["prefs_simp"] == pytest.approx(2 / 5)  # 1>2 and 3>4 fulfilled
    assert v["prefs_avgjg"] == pytest.approx((1 / 1 + 1 / 4) / 2)
    # pairs (1,2): one of two users, (1,3): 0, (1,4): 0, (3,4): 1 -> 1.5 / 4
    assert v["prefs_pair"] == pytest.approx(1.5 / 4)


def test_rnonrel_keeps_r_nonrelevant_documents_and_compares_them_with_themselves():
    # a relevant, b c d not; ranking a b c. R = 1 < N = 3: the non-relevant class is cut to
    # its first document (b), and, as trec_eval 10 does, every document of the cut class is
    # also compared with b: a > b fulfilled; b, c, d vs b not -> 1 / 4 (not bpref's 1)
    lines = "u s a 1\nu s b 0\nu s c 0\nu s d 0"
    v = _values(lines, ["a", "b", "c"])
    assert v["prefs_simp"] == 1.0
    assert v["prefs_avgjg_Rnonrel"] == pytest.approx(1 / 4)
    # among the retrieved, R = 1 < N = 2: a vs b fulfilled, b and c vs b not -> 1 / 3
    assert v["prefs_avgjg_Rnonrel_ret"] == pytest.approx(1 / 3)


def test_rnonrel_adds_fulfilled_preferences_when_relevant_documents_outnumber():
    # R = 2 relevant, N = 1: R(R-N) = 2 preferences added, fulfilled for retrieved ones
    v = _values("u s a 2\nu s b 1\nu s c 0", ["a", "c"])
    # a>b implied, a>c, b>c not (c retrieved, b not): 2 of 3; plus a: 1 of 2 added
    assert v["prefs_avgjg_Rnonrel"] == pytest.approx((2 + 1) / (3 + 2))


def test_nothing_relevant_scores_zero_not_nan():
    v = topic_values([ec_group(np.array([0, 1]), np.array([0.0, 0.0]))], 2, 2)
    assert v["prefs_avgjg_Rnonrel"] == 0.0 and v["prefs_simp"] == 0.0


def test_reader_sorts_lines_and_reads_the_formats():
    p = read_prefs(io.BytesIO(b"# c\n2 u s b 1\n10 u s a 0.5\n2 u s a 0\n"), "prefs")
    assert p.topics == ["10", "2"] and p.docno == ["a", "a", "b"]
    q = read_prefs(io.BytesIO(b"1 0 a 1\n1 0 b 0\n"), "qrels_prefs")
    assert q.subgroup == ["0", "0"] and q.group == ["0", "0"]


@pytest.mark.parametrize("kind,text,message", [
    ("prefs", b"1 u s a 1\n1 u a 1\n", "<bytes>:2: expected `qid jg jsg docno level`"),
    ("prefs", b"1 u s a x\n", "<bytes>:1: level 'x' is not a number"),
    ("qrels_jg", b"1 0 a 1\n1 0 a 1\n", "<bytes>:2: document 'a' twice"),
    ("qrels_jg", b"1 0 a 1.5\n", "<bytes>:1: grade '1.5' is not an integer"),
    ("prefs", b"1 u s a 1\n1 u s a 2\n", "<bytes>:2: document 'a' has levels 1 and 2"),
    ("prefs", b"1 u s a 1\n1 u t a 0\n1 u t b 1\n", "<bytes>:2: document 'a' is non-relevant"),
    ("prefs", b"1 u s a 2\n1 u s b 1\n1 u t b 2\n1 u t a 1\n", "prefers 'a' to 'b' and"),
])
def test_reader_refuses_what_trec_eval_refuses(kind, text, message):
    src = io.BytesIO(text)
    src.name = "<bytes>"
    with pytest.raises(FormatError) as exc:
        read_prefs(src, kind)
    assert message in str(exc.value)


def test_prefs_format_refuses_qrels_measures(tmp_path):
    prefs = tmp_path / "p"
    prefs.write_text("1 u s a 1\n1 u s b 0\n")
    run = tmp_path / "r"
    run.write_text("1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n")
    result = CliRunner().invoke(main, ["trec_eval", "-R", "prefs", str(prefs), str(run)])
    assert result.exit_code == 2
    assert "cannot read -R prefs judgments (use -m all_prefs or prefs)" in result.output
    ok = CliRunner().invoke(main, ["trec_eval", "-R", "prefs", "-m", "prefs", str(prefs),
                                   str(run)])
    assert ok.exit_code == 0, ok.output
    assert ok.stdout.splitlines()[-1] == "prefs_avgjg           \tall\t1.0000"


def test_prefs_ties_break_by_docno_ascending(tmp_path):
    # a > b, equal scores: trec_eval's prefs code ranks a first (its qrels code b first)
    prefs = tmp_path / "p"
    prefs.write_text("1 u s a 1\n1 u s b 0\n")
    run = tmp_path / "r"
    run.write_text("1 Q0 b 1 1.0 t\n1 Q0 a 2 1.0 t\n")
    result = CliRunner().invoke(main, ["trec_eval", "-R", "prefs", "-m", "prefs_simp_ret",
                                       str(prefs), str(run)])
    assert result.stdout.splitlines()[-1].endswith("\t1.0000")


def test_qrels_jg_averages_over_groups(tmp_path):
    # group 0: a relevant (P@1 = 1); group 1: b relevant (P@1 = 0) -> 0.5
    qrels = tmp_path / "q"
    qrels.write_text("1 0 a 1\n1 0 b 0\n1 1 a 0\n1 1 b 1\n")
    run = tmp_path / "r"
    run.write_text("1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n")
    result = CliRunner().invoke(main, ["trec_eval", "-R", "qrels_jg", "-m", "P_avgjg.1",
                                       "-m", "map_avgjg", str(qrels), str(run)])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-2:] == ["map_avgjg             \tall\t0.7500",
                                               "P_avgjg_1             \tall\t0.5000"]


def test_eval_reads_a_qrels_as_trec_eval_reads_qrels_prefs(monkeypatch):
    """`eval --ties docno -m <prefs measure>` on a one-iter qrels gives trec_eval 10's
    `-R qrels_prefs -m all_prefs -q` values: 14 measures x (3 topics + all) = 56 values."""
    folder = need(TREC_EVAL)
    monkeypatch.chdir(folder)
    expected = {}
    for line in (folder / "out.test.qrels_prefs").read_text().splitlines():
        name, topic, value = (f.strip() for f in line.split("\t"))
        if name.startswith("prefs_"):
            expected[(name, topic)] = value
    args = ["eval", "-q", "--ties", "docno", "-f", "tsv"]
    for name in sorted({n for n, _ in expected}):
        args += ["-m", name]
    result = CliRunner().invoke(main, [*args, "qrels.test", "results.test"])
    assert result.exit_code == 0, result.output
    from unjudged.measures import parse_measure

    got = {}
    for line in result.stdout.splitlines()[1:]:
        _run, topic, measure, value = line.split("\t")
        # tsv keeps full precision; trec_eval prints 4 decimals
        got[(parse_measure(measure).spec.aliases[0], topic)] = \
            f"{float(value):.4f}" if "." in value else value
    assert len(expected) == 56
    assert got == expected
