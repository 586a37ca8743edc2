"""`unjudged trec_eval` must print exactly what trec_eval 10 prints (EXPECTED.md's cases)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from shared_data import TREC_EVAL, need
from unjudged.cli import main

MEAS_PARAMS = ["-q", "-miprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3",
               "-m", "recall.20,2000", "-m", "Rprec_mult.5.0,0.2,0.35", "-mutility.2,-1,0,0",
               "-m", "11pt_avg..25,.5,.75", "-mndcg.1=3,2=9,4=4.5", "-mndcg_cut.10,20,23.4",
               "-msuccess.2,5,20"]

CASES = [
    ("out.test", ["qrels.test", "results.test"]),
    ("out.test", ["qrels.test.with-comments", "results.test"]),
    ("out.comment.test", ["qrels.comment.test", "results.comment.test"]),
    ("out.test.a", ["-m", "all_trec", "qrels.test", "results.test"]),
    ("out.test.aq", ["-m", "all_trec", "-q", "qrels.test", "results.test"]),
    ("out.test.aqc", ["-m", "all_trec", "-q", "-c", "qrels.test", "results.trunc"]),
    ("out.test.aqcM", ["-m", "all_trec", "-q", "-c", "-M100", "qrels.test", "results.trunc"]),
    ("out.test.aql", ["-m", "all_trec", "-mrelstring.20", "-q", "-l2", "qrels.rel_level",
                      "results.test"]),
    ("out.test.meas_params", MEAS_PARAMS + ["qrels.test", "results.test"]),
    ("out.test.aqZ", ["-q", "-m", "all_trec", "-Z", "zscores_file", "qrels.test",
                      "results.test"]),
    ("out.test.prefs", ["-m", "all_prefs", "-q", "-R", "prefs", "prefs.test",
                        "prefs.results.test"]),
    ("out.test.prefs", ["-m", "all_prefs", "-q", "-R", "prefs", "prefs.comment.test",
                        "prefs.results.test"]),
    ("out.test.qrels_prefs", ["-m", "all_prefs", "-q", "-R", "qrels_prefs", "qrels.test",
                              "results.test"]),
    ("out.test.qrels_jg", ["-m", "qrels_jg", "-q", "-R", "qrels_jg", "qrels.123",
                           "results.test"]),
    ("out.test.qrels_jg", ["-m", "qrels_jg", "-q", "-R", "qrels_jg", "qrels.comments.123",
                           "results.test"]),
]


def test_all_fifteen_cases_of_expected_md():
    """Every case EXPECTED.md lists is one of CASES (15 runs of trec_eval 10's test suite)."""
    folder = need(TREC_EVAL)
    rows = [line for line in (folder.parent / "EXPECTED.md").read_text().splitlines()
            if line.startswith("| test/out")]
    assert len(rows) == len(CASES) == 15
    listed = sorted((r.split("|")[1].strip()[len("test/"):],
                     r.split("|")[2].strip().strip("`").replace("test/", "")) for r in rows)
    ours = sorted((e, " ".join(a)) for e, a in CASES)
    assert [e for e, _ in listed] == [e for e, _ in ours]


@pytest.mark.parametrize("expected,args", CASES, ids=[f"{c[0]}:{c[1][-2]}" for c in CASES])
def test_byte_identical(expected, args, monkeypatch):
    folder = need(TREC_EVAL)
    monkeypatch.chdir(folder)
    result = CliRunner().invoke(main, ["trec_eval", *args])
    assert result.exit_code == 0, result.output
    assert result.stdout_bytes == (folder / expected).read_bytes()


def test_nosummary_drops_all_lines(monkeypatch):
    folder = need(TREC_EVAL)
    monkeypatch.chdir(folder)
    result = CliRunner().invoke(main, ["trec_eval", "-q", "-n", "qrels.test", "results.test"])
    lines = result.stdout.splitlines()
    assert lines and all("\tall\t" not in line for line in lines)
    assert lines[0] == "num_ret               \t301\t500"


def test_judged_only_removes_unjudged(monkeypatch, tmp_path):
    qrels = tmp_path / "q"
    qrels.write_text("1 0 a 1\n1 0 b 0\n")
    run = tmp_path / "r"
    run.write_text("1 Q0 x 1 3 t\n1 Q0 a 2 2 t\n1 Q0 b 3 1 t\n")
    plain = CliRunner().invoke(main, ["trec_eval", "-m", "P.1", str(qrels), str(run)])
    judged = CliRunner().invoke(main, ["trec_eval", "-J", "-m", "P.1", str(qrels), str(run)])
    assert plain.stdout.splitlines()[-1].endswith("\t0.0000")
    assert judged.stdout.splitlines()[-1].endswith("\t1.0000")


NAN_QRELS = "1 0 a 1\n1 0 b 0\n2 0 c 1\n2 0 d 1\n2 0 e 0\n"
NAN_RUN = "1 Q0 a 1 0.9 r\n1 Q0 x 2 0.5 r\n2 Q0 y 1 0.8 r\n2 Q0 z 2 0.7 r\n"


def test_judged_only_with_nothing_left_prints_nan(tmp_path):
    """-J leaves topic 2 no document: trec_eval 10.0 (built from source, f425365) starts
    iprec_at_recall from 0/0 and prints -nan at each level whose count lround(level * 2) is 0
    (0.2, not 0.25: lround rounds 0.5 up), in 11pt_avg (level 0 is 0) and in their means."""
    (tmp_path / "q").write_text(NAN_QRELS)
    (tmp_path / "r").write_text(NAN_RUN)
    got = CliRunner().invoke(main, ["trec_eval", "-q", "-J", "-m", "iprec_at_recall.0.2,0.25",
                                    "-m", "11pt_avg", str(tmp_path / "q"), str(tmp_path / "r")])
    assert got.stdout == (
        "iprec_at_recall_0.20  \t1\t1.0000\niprec_at_recall_0.25  \t1\t1.0000\n"
        "11pt_avg              \t1\t1.0000\niprec_at_recall_0.20  \t2\t  -nan\n"
        "iprec_at_recall_0.25  \t2\t0.0000\n11pt_avg              \t2\t  -nan\n"
        "iprec_at_recall_0.20  \tall\t  -nan\niprec_at_recall_0.25  \tall\t0.5000\n"
        "11pt_avg              \tall\t  -nan\n")


def test_complete_and_judged_only_nan_on_a_missing_topic(tmp_path):
    """With -c -J trec_eval's stand-in document for topic 3 (not in the run) is dropped as
    unjudged, so topic 3 divides 0 by 0 as topic 2 does; without -J it is 0 (trec_eval 10.0)."""
    (tmp_path / "q").write_text(NAN_QRELS + "3 0 f 1\n")
    (tmp_path / "r").write_text(NAN_RUN)
    files = [str(tmp_path / "q"), str(tmp_path / "r")]
    got = CliRunner().invoke(main, ["trec_eval", "-q", "-c", "-J", "-m",
                                    "iprec_at_recall.0,0.5,1", "-m", "11pt_avg.0.5,1", *files])
    lines = got.stdout.splitlines()
    assert lines[4:8] == ["iprec_at_recall_0.00  \t2\t  -nan", "iprec_at_recall_0.50  \t2\t0.0000",
                          "iprec_at_recall_1.00  \t2\t0.0000", "11pt_avg_0.5,1        \t2\t0.0000"]
    assert lines[8] == "iprec_at_recall_0.00  \t3\t  -nan"
    assert lines[12:] == ["iprec_at_recall_0.00  \tall\t  -nan",
                          "iprec_at_recall_0.50  \tall\t0.3333",
                          "iprec_at_recall_1.00  \tall\t0.3333",
                          "11pt_avg_0.5,1        \tall\t0.3333"]
    plain = CliRunner().invoke(main, ["trec_eval", "-q", "-c", "-m", "iprec_at_recall.0", *files])
    assert plain.stdout.splitlines()[1:] == ["iprec_at_recall_0.00  \t2\t0.0000",
                                             "iprec_at_recall_0.00  \t3\t0.0000",
                                             "iprec_at_recall_0.00  \tall\t0.3333"]


def test_bpref_adds_its_terms_in_rank_order(tmp_path):
    """bpref's terms (sixths: 16 relevant, 6 non-relevant judged) added rank after rank as
    trec_eval 10.0 adds them sum to 12.500000000000002 and print 0.7813; numpy's pairwise sum
    gives 12.5 exactly, printed 0.7812 (half to even). trec_eval 10.0 prints 0.7813."""
    labels = [1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 0, 1, 0, 1, 0]
    docs = [f"r{sum(labels[:k + 1]):02d}" if rel else f"n{k + 1 - sum(labels[:k + 1])}"
            for k, rel in enumerate(labels)]
    (tmp_path / "q").write_text("".join([f"1 0 r{i:02d} 1\n" for i in range(1, 17)]
                                        + [f"1 0 n{i} 0\n" for i in range(1, 7)]))
    (tmp_path / "r").write_text("".join(f"1 Q0 {d} {k + 1} {100 - k} t\n"
                                        for k, d in enumerate(docs)))
    got = CliRunner().invoke(main, ["trec_eval", "-m", "bpref", "-m", "gm_bpref",
                                    str(tmp_path / "q"), str(tmp_path / "r")])
    assert got.stdout == ("bpref                 \tall\t0.7813\n"
                          "gm_bpref              \tall\t0.7813\n")


def test_ap_adds_its_terms_in_rank_order(tmp_path):
    """AP's precisions at ranks 3, 4, 5, 8, 12, 20 of 28 (8 relevant) added in rank order, as
    m_map.c and m_map_cut.c add them, give 0.33124999999999993 (printed 0.3312, as trec_eval
    10.0 prints it); numpy's pairwise sum gives 0.33125000000000004 (0.3313)."""
    relevant = {3, 4, 5, 8, 12, 20}
    (tmp_path / "q").write_text("".join(f"1 0 d{k:02d} {int(k in relevant)}\n"
                                        for k in range(1, 29)) + "1 0 x1 1\n1 0 x2 1\n")
    (tmp_path / "r").write_text("".join(f"1 Q0 d{k:02d} {k} {101 - k} t\n" for k in range(1, 29)))
    got = CliRunner().invoke(main, ["trec_eval", "-m", "map", "-m", "map_cut.30",
                                    str(tmp_path / "q"), str(tmp_path / "r")])
    assert got.stdout == ("map                   \tall\t0.3312\n"
                          "map_cut_30            \tall\t0.3312\n")


def test_all_is_the_topics_added_in_order(tmp_path):
    """16 topics' P_10 added one after the other, as trec_eval 10.0 accumulates them, then
    divided by 16 give 0.45625000000000004 (printed 0.4563); numpy's mean gives 0.45625 (0.4562)."""
    tens = [4, 7, 7, 1, 8, 2, 6, 6, 2, 6, 2, 4, 1, 5, 4, 8]
    qrels, run = [], []
    for i, k in enumerate(tens, 1):
        qrels += [f"t{i:02d} 0 t{i:02d}d{d} {int(d < k)}\n" for d in range(10)]
        run += [f"t{i:02d} Q0 t{i:02d}d{d} {d + 1} {10 - d} t\n" for d in range(10)]
    (tmp_path / "q").write_text("".join(qrels))
    (tmp_path / "r").write_text("".join(run))
    got = CliRunner().invoke(main, ["trec_eval", "-m", "P.10", str(tmp_path / "q"),
                                    str(tmp_path / "r")])
    assert got.stdout == "P_10                  \tall\t0.4563\n"


def test_eleven_point_adds_its_levels_downwards(tmp_path):
    """m_11pt_avg.c adds the 11 interpolated precisions from recall 1.0 down to 0.0. Cranfield's
    topic 211 under unjudged's QL run, top 100 (relevant at ranks 12, 14, 20, 21, 30-32 and 50 of
    11): trec_eval 10.0 prints 0.1538, the levels added upwards 0.1537."""
    grades = {12: 3, 14: 1, 15: 0, 20: 1, 21: 3, 30: 2, 31: 2, 32: 2, 50: 1}
    (tmp_path / "q").write_text("".join(f"1 0 d{k} {g}\n" for k, g in grades.items())
                                + "1 0 x1 1\n1 0 x2 2\n1 0 x3 1\n")
    (tmp_path / "r").write_text("".join(f"1 Q0 d{k} {k} {101 - k} t\n" for k in range(1, 101)))
    got = CliRunner().invoke(main, ["trec_eval", "-m", "11pt_avg", str(tmp_path / "q"),
                                    str(tmp_path / "r")])
    assert got.stdout == "11pt_avg              \tall\t0.1538\n"
