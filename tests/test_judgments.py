"""Judgment statistics and qrels editing: hand-worked examples, the command line, and seed 003
(Voorhees, extending the TREC-COVID round-1 pools), Table 1, on the released qrels."""

from __future__ import annotations

import json
import math

import pytest
from click.testing import CliRunner

from shared_data import COVID1, DATA, need
from unjudged.cli import main
from unjudged.errors import IncompatibleInputsError, InputError
from unjudged.io import read_qrels
from unjudged.io.topics import parse_topics, read_topics_file
from unjudged.io.write import format_qrels
from unjudged.judgments.stats import diff_qrels, filter_qrels, judgment_stats, merge_qrels

# Topic 1: three judged (grades 2, 0, 1) and one pooled-but-unjudged (-1): 2/3 relevant.
# Topic 2: exactly a third relevant, which is not "more than a third". Topic 10: none.
A = "1 0 a 2\n1 0 b 0\n1 0 c 1\n1 0 n -1\n2 0 d 0\n2 0 e 0\n2 0 f 1\n10 0 g 0\n"
B = "2 1 d 1\n1 1 z 1\n"  # grades d of topic 2 as 1 where A says 0


def _cols(df, *names):
    return df[list(names)].values.tolist()


def _write(tmp_path, **files):
    for name, text in files.items():
        (tmp_path / f"{name}.txt").write_text(text)
    return [str(tmp_path / f"{name}.txt") for name in files]


def test_stats_by_hand(tmp_path):
    a, = _write(tmp_path, A=A)
    df = judgment_stats(a)
    assert list(df.columns) == ["qrels", "topic", "judged", "grade_0", "grade_1", "grade_2",
                                "relevant", "relevant_fraction", "unjudged_negative", "warn"]
    assert _cols(df, "qrels", "topic", "judged", "grade_0", "grade_1", "grade_2", "relevant",
                 "unjudged_negative", "warn") == [
        ["A.txt", "1", 3, 1, 1, 1, 2, 1, True],
        ["A.txt", "10", 1, 1, 0, 0, 0, 0, False],
        ["A.txt", "2", 3, 2, 1, 0, 1, 0, False],
        ["A.txt", "all", 7, 4, 2, 1, 3, 1, True]]
    assert df.relevant_fraction.tolist() == pytest.approx([2 / 3, 0, 1 / 3, 3 / 7])
    strict = judgment_stats(a, rel_level=2)
    assert _cols(strict, "topic", "relevant", "warn")[0] == ["1", 1, False]


def test_stats_side_by_side_with_union(tmp_path):
    a, b = _write(tmp_path, A=A, B=B)
    df = judgment_stats([a, b])
    assert list(dict.fromkeys(df.qrels)) == ["A.txt", "B.txt", "union"]
    union = df[df.qrels == "union"]  # d of topic 2 takes the higher grade, 1
    assert _cols(union, "topic", "judged", "grade_0", "grade_1", "grade_2", "warn") == [
        ["1", 4, 1, 2, 1, True], ["10", 1, 1, 0, 0, False], ["2", 3, 1, 2, 0, True],
        ["all", 8, 3, 4, 1, True]]
    assert _cols(df[df.qrels == "B.txt"], "topic", "judged", "grade_2") == [
        ["1", 1, 0], ["2", 1, 0], ["all", 2, 0]]
    assert "union" not in set(judgment_stats([a, b], union=False).qrels)


def test_only_negative_grades_leave_a_topic_unjudged():
    df = judgment_stats({"7": {"x": -1, "y": -2}})
    assert _cols(df, "topic", "judged", "unjudged_negative", "warn")[0] == ["7", 0, 2, False]
    assert math.isnan(df.relevant_fraction[0])


def test_merge_rules_and_conflict(tmp_path):
    a, b = _write(tmp_path, A=A, B=B)
    with pytest.raises(IncompatibleInputsError, match=r"A.txt and B.txt disagree on document "
                       r"'d' of topic '2': grade 0 vs 1; choose a winner with --on-conflict"):
        merge_qrels([a, b])
    winner = {rule: merge_qrels([a, b], on_conflict=rule).to_dict()["2"]["d"]
              for rule in ("max", "min", "first", "last")}
    assert winner == {"max": 1, "min": 0, "first": 0, "last": 1}
    merged = merge_qrels([a, b], on_conflict="max")
    assert merged.to_dict()["1"] == {"a": 2, "b": 0, "c": 1, "n": -1, "z": 1}
    # the same grade twice is no conflict: the first line (and its iteration) stays
    one, s = read_qrels({"1": {"a": 1}}), _write(tmp_path, S="1 9 a 1\n1 9 b 0\n")[0]
    assert format_qrels(merge_qrels([one, s])) == "1 0 a 1\n1 9 b 0\n"
    assert format_qrels(merge_qrels([one, s], on_conflict="last")) == "1 9 a 1\n1 9 b 0\n"


def test_merge_by_iteration_keeps_subtopics(tmp_path):
    sub, = _write(tmp_path, sub="1 s1 a 1\n1 s2 a 0\n1 s1 b 1\n")
    with pytest.raises(IncompatibleInputsError, match="sub.txt judges document 'a' of topic "
                       "'1' twice: grade 1 under iteration 's1', 0 under 's2'"):
        merge_qrels([sub])
    assert format_qrels(merge_qrels([sub], by_iteration=True)) == \
        "1 s1 a 1\n1 s2 a 0\n1 s1 b 1\n"


def test_format_sorts_by_topic_then_docno():
    q = read_qrels({"2": {"b": 0, "a": 1}, "10": {"c": 2}, "1": {"B": 1}})
    assert format_qrels(q) == "1 0 B 1\n10 0 c 2\n2 0 a 1\n2 0 b 0\n"  # byte order
    assert format_qrels(q, sort=False).splitlines()[0] == "2 0 b 0"


def test_filter_by_topics_and_iterations(tmp_path):
    q, = _write(tmp_path, q="1 0.5 a 1\n1 1 b 0\n2 1.5 c 2\n2 1 d 0\n3 1.5 e 1\n")
    assert filter_qrels(q, topics=["2", "3", "99"]).to_dict() == {"2": {"c": 2, "d": 0},
                                                                  "3": {"e": 1}}
    assert format_qrels(filter_qrels(q, iterations=["1.5"])) == "2 1.5 c 2\n3 1.5 e 1\n"
    kept = filter_qrels(q, topics=["1", "2"], exclude_iterations=["1"])
    assert format_qrels(kept) == "1 0.5 a 1\n2 1.5 c 2\n"
    with pytest.raises(InputError, match=r"no judgment has iteration 1.50 \(its iterations: "
                       r"0.5, 1, 1.5\)"):
        filter_qrels(q, iterations=["1.50"])
    with pytest.raises(InputError, match="no judgment is left"):
        filter_qrels(q, topics=["7"])


def test_topic_lists(tmp_path):
    assert parse_topics("1,2,5-9") == ["1", "2", "5", "6", "7", "8", "9"]
    assert parse_topics(" 3 q-7, 12-12,") == ["3", "q-7", "12"]
    for bad in ("", "5-", "-5", "9-5", "1,--"):
        with pytest.raises(ValueError):
            parse_topics(bad)
    (tmp_path / "t").write_text("# round 1\n1-3, 8\n\n30\n")
    assert read_topics_file(str(tmp_path / "t")) == ["1", "2", "3", "8", "30"]
    (tmp_path / "u").write_text("1\n4-2\n")
    with pytest.raises(InputError, match=r"u:2: range '4-2' runs backwards"):
        read_topics_file(str(tmp_path / "u"))


def test_diff_by_hand(tmp_path):
    a, b = _write(tmp_path, A=A, B=B)
    d = diff_qrels(a, b)
    assert d.changes.astype(object).where(d.changes.notna(), None).values.tolist() == [
        ["1", "a", "removed", 2, None], ["1", "b", "removed", 0, None],
        ["1", "c", "removed", 1, None], ["1", "n", "removed", -1, None],
        ["1", "z", "added", None, 1], ["10", "g", "removed", 0, None],
        ["2", "d", "changed", 0, 1], ["2", "e", "removed", 0, None],
        ["2", "f", "removed", 1, None]]
    assert d.summary.values.tolist() == [["1", 4, 1, 1, 4, 0], ["10", 1, 0, 0, 1, 0],
                                         ["2", 3, 1, 0, 2, 1], ["all", 8, 2, 1, 7, 1]]


def test_cli_stats_table_jsonl_and_warning(tmp_path):
    a, = _write(tmp_path, A=A)
    result = CliRunner().invoke(main, ["qrels", "stats", a])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "       A.txt",
        "topic  judged  g0  g1  g2  unjudged  frac_rel  !",
        "1           3   1   1   1         1     0.667  !",
        "2           3   2   1   0         0     0.333",
        "10          1   1   0   0         0     0.000",
        "all         7   4   2   1         1     0.429  !"]
    assert result.stderr == ("unjudged: warning: 1 of 3 topics in A.txt have more than a third "
                             "relevant: 1\n")
    rows = [json.loads(x) for x in
            CliRunner().invoke(main, ["qrels", "stats", a, "-f", "jsonl"]).stdout.splitlines()]
    assert rows[0] == {"qrels": "A.txt", "topic": "1", "judged": 3, "grade_0": 1, "grade_1": 1,
                       "grade_2": 1, "relevant": 2, "relevant_fraction": 2 / 3,
                       "unjudged_negative": 1, "warn": True}
    csv = CliRunner().invoke(main, ["qrels", "stats", a, "-f", "csv"]).stdout.splitlines()
    assert csv[0].startswith("qrels,topic,judged,grade_0") and csv[2].startswith("A.txt,2,3,2")
    # every format in the table's natural topic order (issue 32 item 11; was 1, 10, 2)
    tsv = CliRunner().invoke(main, ["qrels", "stats", a, a, "-f", "tsv"]).stdout.splitlines()
    assert [line.split("\t")[1] for line in tsv[1:]] == ["1", "2", "10", "all"] * 3
    assert [r["topic"] for r in rows] == ["1", "2", "10", "all"]
    assert [line.split(",")[1] for line in csv[1:]] == ["1", "2", "10", "all"]


def test_cli_merge_filter_diff(tmp_path):
    a, b = _write(tmp_path, A=A, B=B)
    out = tmp_path / "m.txt"
    run = CliRunner().invoke
    conflict = run(main, ["qrels", "merge", a, b, "-o", str(out)])
    assert conflict.exit_code == 2 and not out.exists() and conflict.stdout == ""
    assert conflict.stderr.count("\n") == 1 and "disagree on document 'd'" in conflict.stderr
    assert run(main, ["qrels", "merge", a, b, "--on-conflict", "last", "-o", str(out)]
               ).exit_code == 0
    assert out.read_text().splitlines()[:2] == ["1 0 a 2", "1 0 b 0"]
    assert "2 1 d 1" in out.read_text().splitlines()
    kept = run(main, ["qrels", "filter", a, "--topics", "2,10-12"])
    assert kept.stdout == "10 0 g 0\n2 0 d 0\n2 0 e 0\n2 0 f 1\n"
    assert "2 topic(s) not in" in kept.stderr
    bad = run(main, ["qrels", "filter", a, "--topics", "1,5-", "-o", str(tmp_path / "f.txt")])
    assert bad.exit_code == 2 and bad.stderr.count("\n") == 1 and "--topics: '5-'" in bad.stderr
    assert not (tmp_path / "f.txt").exists()
    summary = run(main, ["qrels", "diff", a, b]).stdout.splitlines()
    assert summary[0].split() == ["topic", "A.txt", "B.txt", "added", "removed", "changed"]
    assert summary[-1].split() == ["all", "8", "2", "1", "7", "1"]
    listing = run(main, ["qrels", "diff", a, b, "--list", "-f", "jsonl"]).stdout.splitlines()
    assert json.loads(listing[-3]) == {"topic": "2", "docno": "d", "change": "changed",
                                       "grade_a": 0, "grade_b": 1}


# Seed 003, Table 1: topic; Round 1 qrels: judged, partially relevant (1), relevant (2), % rel;
# Judgment Set 1.5 as the note counted it (judged, part rel, rel, % rel).
TABLE1 = """\
1 323 45 56 0.313  225 26 29 0.244 | 2 284 21 26 0.165  187 10 4 0.075
3 337 66 24 0.267  236 51 8 0.250 | 4 357 32 27 0.165  232 19 13 0.138
5 336 35 96 0.390  212 18 35 0.250 | 6 321 80 83 0.508  216 53 60 0.523
7 275 2 47 0.178  200 0 10 0.050 | 8 360 46 30 0.211  250 33 9 0.168
9 298 25 16 0.138  223 2 3 0.022 | 10 191 35 50 0.445  126 11 23 0.270
11 344 67 5 0.209  232 6 0 0.026 | 12 324 76 126 0.623  195 19 71 0.462
13 373 97 49 0.391  244 59 16 0.307 | 14 222 24 5 0.131  151 14 4 0.119
15 348 45 12 0.164  254 31 8 0.154 | 16 340 42 11 0.156  223 30 7 0.166
17 243 32 45 0.317  142 10 8 0.127 | 18 267 79 32 0.416  154 22 19 0.266
19 301 27 16 0.143  207 12 6 0.087 | 20 247 41 25 0.267  165 43 4 0.285
21 319 15 70 0.266  218 7 30 0.170 | 22 259 17 30 0.181  198 8 7 0.076
23 256 4 22 0.102  173 2 2 0.023 | 24 249 14 19 0.133  161 6 0 0.037
25 308 9 62 0.231  201 2 14 0.080 | 26 312 19 106 0.401  189 7 31 0.201
27 300 30 44 0.247  192 52 18 0.365 | 28 180 9 29 0.211  114 2 0 0.018
29 218 42 58 0.459  137 23 28 0.372 | 30 199 39 16 0.276  113 20 5 0.221
"""
TABLE1_ROWS = [row.split() for line in TABLE1.splitlines() for row in line.split("|")]
QRELS = DATA / "anserini-tools" / "qrels"


def test_round1_reproduces_table1_exactly():
    path = need(COVID1 / "qrels" / "qrels-rnd1.txt")
    result = CliRunner().invoke(main, ["qrels", "stats", str(path)])
    lines = [line.split() for line in result.stdout.splitlines()[2:]]
    shown = [[t, judged, g1, g2, frac] for t, judged, g0, g1, g2, frac, *flag in lines[:-1]]
    assert shown == [row[:5] for row in TABLE1_ROWS]
    flagged = [row[0] for row in lines if row[-1] == "!" and row[0] != "all"]
    assert flagged == ["5", "6", "10", "12", "13", "18", "26", "29"]  # "8/30" in the note
    assert result.stderr == ("unjudged: warning: 8 of 30 topics in qrels-rnd1.txt have more "
                             "than a third relevant: 5, 6, 10, 12, 13, 18, 26, 29\n")


def test_judgment_set_1_5_and_extended_qrels(tmp_path):
    round2 = need(QRELS / "qrels.covid-round2.txt")
    r1 = str(need(COVID1 / "qrels" / "qrels-rnd1.txt"))
    js15 = str(tmp_path / "js15.txt")
    assert CliRunner().invoke(main, ["qrels", "filter", str(round2), "--iteration", "1.5",
                                     "-o", js15]).exit_code == 0
    df = judgment_stats([r1, js15]).set_index(["qrels", "topic"])
    judged = {t: int(df.loc[("js15.txt", t), "judged"]) for t in df.loc["js15.txt"].index}
    note = {row[0]: int(row[5]) for row in TABLE1_ROWS}
    assert judged["all"] == 5734 and sum(note.values()) == 5770
    short = {t: judged[t] - note[t] for t in note if judged[t] != note[t]}
    assert short == {"1": -6, "3": -3, "4": -1, "7": -2, "8": -2, "11": -1, "12": -1, "13": -4,
                     "15": -1, "16": -1, "18": -3, "19": -4, "21": -1, "22": -1, "24": -2,
                     "25": -2, "27": -1}
    assert df.loc[("js15.txt", "6"), ["grade_1", "grade_2"]].tolist() == [53, 60]  # as the note
    union = df.loc["union"]
    assert union.loc["all", "judged"] == 14425 == 8691 + 5734  # JS 1.5 re-judges nothing
    assert (union.loc["1", "judged"], round(union.loc["1", "relevant_fraction"], 3)) == (542, 0.280)
    # the note says the same eight topics stay above a third; 26 falls to 0.325 (its Table 1 too)
    assert sorted(union.index[union.warn & (union.index != "all")], key=int) == \
        ["5", "6", "10", "12", "13", "18", "29"]
    merged = format_qrels(merge_qrels([r1, js15]))
    cumulative = need(QRELS / "qrels.covid-round2-cumulative.txt")
    assert merged == format_qrels(filter_qrels(str(cumulative), topics=parse_topics("1-30"),
                                               exclude_iterations=["2"]))


def test_diff_round1_against_cumulative_round2():
    cumulative = need(QRELS / "qrels.covid-round2-cumulative.txt")
    r1 = read_qrels(need(COVID1 / "qrels" / "qrels-rnd1.txt"))
    later = filter_qrels(str(cumulative), topics=parse_topics("1-30"))
    d = diff_qrels(r1, later)
    total = d.summary.set_index("topic").loc["all"].tolist()
    assert total == [8691, 18984, 10293, 0, 0]  # 5734 of JS 1.5 and 4559 of the round-2 pools
    round2 = filter_qrels(str(need(QRELS / "qrels.covid-round2.txt")),
                          topics=parse_topics("1-30"))
    assert len(round2) == 10293 and set(d.changes.change) == {"added"}
