"""Issue 32, item 5: no numpy, pandas or pyarrow warning reaches a user, on any command.

Every command runs in this process on tiny edge inputs (one topic, no relevant judgment, only
relevant judgments, a run of unjudged documents, zero and tied scores, topics the qrels lack,
cutoffs past every ranking, -b 1) with every warning but the project's notes made an error,
as `python -W error` would. A command ends with exit 0 or with one `unjudged: error:` line and
exit 2; whatever else it writes on stderr is a note, a warning or a line it means to write.
"""

from __future__ import annotations

import re
import warnings

import pytest
from click.testing import CliRunner

from unjudged.cli import main

GRADED = "".join(f"{t} 0 d{i} {(0, 1, 2, 0)[i % 4]}\n" for t in (1, 2, 3) for i in range(12))
QRELS = {
    "graded": GRADED,
    "one-topic": "".join(f"1 0 d{i} {i % 2}\n" for i in range(12)),
    "no-relevant": "".join(f"{t} 0 d{i} 0\n" for t in (1, 2, 3) for i in range(12)),
    "all-relevant": "".join(f"{t} 0 d{i} 1\n" for t in (1, 2, 3) for i in range(12)),
    # a topic of relevant documents only, one of both, one of non-relevant only
    "mixed": "".join(f"{t} 0 d{i} {g}\n" for t, grades in ((1, (1,)), (2, (0, 1)), (3, (0,)))
                     for i in range(12) for g in [grades[i % len(grades)]]),
}


def _run(tag: str, topics, docs) -> str:
    return "".join(f"{t} Q0 {d} {r + 1} {s} {tag}\n" for t in topics
                   for r, (d, s) in enumerate(docs))


RUNS = {
    "a": _run("A", (1, 2, 3), [(f"d{i}", 20 - i) for i in range(20)]),
    "b": _run("B", (1, 2, 3), [(f"d{i * 7 % 20}", 20 - i) for i in range(20)]),
    "zero": _run("Z", (1, 2, 3), [(f"d{i}", 0) for i in range(20)]),
    "ties": _run("T", (1, 2, 3), [(f"d{i}", 5) for i in range(20)]),
    "unjudged": _run("U", (1, 2, 3), [(f"x{i}", 20 - i) for i in range(20)]),
    "one-topic": _run("O", (1,), [(f"d{i}", 20 - i) for i in range(20)]),
    "elsewhere": _run("X", (7, 8), [(f"d{i}", 20 - i) for i in range(20)]),
    "one-doc": _run("D", (1, 2, 3), [("d1", 1.0)]),
}
# a single run, and every edge run at once (a warning of any of them fails the command)
SETS = {"single": ["a"], "all": list(RUNS)}
# QRELS and RUNS stand for the files; a command of one RUN runs on each run in turn
COMMANDS = {
    "eval": ["eval", "QRELS", "RUNS", "-m", "nDCG@10", "-m", "AP", "-m", "P@1000000", "-m",
             "Bpref", "-m", "GMAP", "-m", "Rprec", "-m", "RR", "-m", "ERR@20", "-q"],
    "eval-bootstrap": ["eval", "QRELS", "RUNS", "-m", "nDCG@10", "--unjudged", "bootstrap",
                       "-b", "1"],
    "estimate": ["estimate", "QRELS", "RUNS", "-m", "nDCG@10", "-m", "AP", "-b", "8",
                 "--methods", "nonrel,condensed,upper,bootstrap,expected,guaranteed", "--pairs",
                 "-j", "1"],
    "estimate-topics": ["estimate", "QRELS", "RUNS", "-m", "nDCG@10", "-b", "1", "--population",
                        "topics", "-q", "-j", "1"],
    "matrix": ["matrix", "QRELS", "RUNS", "--depths", "5,1000000"],
    "plan": ["plan", "QRELS", "RUNS", "--budget", "3", "-b", "4", "-j", "1"],
    "coverage": ["coverage", "QRELS", "RUNS"],
    "infer": ["infer", "QRELS", "RUNS", "--ci", "0.9", "-q"],
    "pool": ["pool", "RUNS", "-k", "5", "--exclude", "QRELS"],
    "compare-qrels": ["compare-qrels", "--orig", "QRELS", "--new", "GRADED", "RUNS", "-m",
                      "nDCG@10", "-m", "AP"],
    "qrels-stats": ["qrels", "stats", "QRELS"],
    "trec_eval": ["trec_eval", "-q", "-m", "all_trec", "QRELS", "RUN"],
}
# the project's own lines (notes, warnings, the error, progress); Python's warnings and stray
# prints start otherwise
OURS = ("unjudged: ",)
# plan's and pool's summaries go to stderr on purpose (stdout is the plan, the pool): from the
# line that starts them on, the lines are theirs
SUMMARY = {"plan": "plan:", "pool": "pool of"}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("edges")
    for name, text in [*((f"qrels-{k}", v) for k, v in QRELS.items()),
                       *((f"run-{k}", v) for k, v in RUNS.items())]:
        (folder / name).write_text(text)
    return folder


def invoke(args: list[str]):
    """The command as `python -W error` runs it (the CLI itself shows the project's notes)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return CliRunner().invoke(main, args)


def check(result, command: str = "") -> None:
    crashed = result.exception is not None and not isinstance(result.exception, SystemExit)
    assert not crashed, repr(result.exception)
    assert result.exit_code in (0, 2), result.output
    lines = result.stderr.splitlines()
    if result.exit_code == 2:
        assert sum(line.startswith("unjudged: error:") for line in lines) == 1, lines
    starts = [i for i, line in enumerate(lines) if command in SUMMARY
              and line.startswith(SUMMARY[command])]
    stray = [line for line in lines[:starts[0] if starts else None] if not line.startswith(OURS)]
    assert not stray, stray
    # a NaN printed without a word is a silent surprise: say what is undefined and why
    assert not re.search(r"\bnan\b", result.output, re.IGNORECASE), result.output


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_no_warning_on_edge_inputs(files, command):
    template = COMMANDS[command]
    sets = [[r] for r in RUNS] if "RUN" in template else SETS.values()
    for qrels in QRELS:
        for runs in sets:
            if command == "matrix" and len(runs) < 2:
                continue
            args = []
            for word in template:
                args += {"QRELS": [str(files / f"qrels-{qrels}")],
                         "GRADED": [str(files / "qrels-graded")],
                         "RUNS": [str(files / f"run-{r}") for r in runs],
                         "RUN": [str(files / f"run-{runs[0]}")]}.get(word, [word])
            check(invoke(args), command)


def test_expected_values_of_a_run_sharing_no_topic_with_the_qrels(files):
    """The expected method of a run with no topic of the qrels once failed a strict zip (a
    traceback); it now scores 0, as the bootstrap does, with the run's warning."""
    result = invoke(["estimate", str(files / "qrels-graded"), str(files / "run-elsewhere"),
                     "-m", "nDCG@10", "-m", "RBP", "--methods", "expected,bootstrap", "-b", "4",
                     "-f", "tsv", "-j", "1"])
    check(result)
    rows = [line.split("\t") for line in result.stdout.splitlines()]
    head = rows[0]
    values = {(r[head.index("method")], r[head.index("measure")]): float(r[head.index("value")])
              for r in rows[1:]}
    assert values == {(m, x): 0.0 for m in ("expected", "bootstrap") for x in ("nDCG@10", "RBP")}
    assert "shares no topic with the qrels" in result.stderr


def test_a_topic_bootstrap_of_a_run_without_topics(files):
    """--population topics averaged an empty slice for a run sharing no topic with the qrels
    (numpy's 'Mean of empty slice'); its run mean is now 0, as without the topic bootstrap."""
    result = invoke(["estimate", str(files / "qrels-graded"), str(files / "run-elsewhere"),
                     str(files / "run-a"), "-m", "nDCG@10", "-b", "4", "--population", "topics",
                     "--methods", "bootstrap", "-f", "tsv", "-j", "1"])
    check(result)
    rows = [line.split("\t") for line in result.stdout.splitlines()]
    head = rows[0]
    lost = [r for r in rows[1:] if r[head.index("run")] == "X"]
    assert [float(r[head.index("value")]) for r in lost] == [0.0]


def test_an_undefined_tau_is_said(files):
    """No relevant judgment: every run's AP@5 is 0, so the rankings by AP and by A_p have no
    Kendall's tau; the matrix printed 'nan' and now says why."""
    args = ["matrix", str(files / "qrels-no-relevant"), str(files / "run-a"), str(files / "run-b"),
            "--depths", "5"]
    table = invoke(args)
    check(table)
    assert table.stdout.splitlines()[-1] == (
        "Kendall's tau-b between the rankings by AP@5 and by Judged@5 (2 runs): undefined "
        "(every run ties in one of the two rankings)")
    tsv = invoke([*args, "-f", "tsv"])
    check(tsv)
    assert tsv.stderr.splitlines()[-1] == (
        "unjudged: Kendall's tau-b between the rankings by AP@5 and by Judged@5: undefined "
        "(every run ties in one of the two rankings)")


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_prior_note_is_said_once_on_any_executor(files, tmp_path, jobs):
    """Each run's context fitted the estimates prior again and, in this process, said its
    note once per run (three times here; once from workers): now once, whatever -j. With no
    judged document to fit the trust on, the note says so instead of 'log loss nan'."""
    estimates = tmp_path / "estimates.txt"
    estimates.write_text("1 x1 0.5\n2 x3 0.9\n")
    result = invoke(["estimate", str(files / "qrels-graded"), str(files / "run-a"),
                     str(files / "run-b"), str(files / "run-unjudged"), "-m", "nDCG@10",
                     "-b", "4", "--prior", f"estimates:{estimates}", "-j", jobs])
    check(result)
    assert result.stderr.splitlines() == [
        f"unjudged: note: estimates {estimates}: 2 estimates; trust 0.000 (no judged document "
        "has an estimate, so the topic prior alone)"]


def test_a_certain_topic_prior_has_no_negative_log_loss(files, tmp_path):
    """Only relevant judgments: the topic prior gives the judged grades probability 1, a log
    loss of 0 (printed -0.0000 before)."""
    estimates = tmp_path / "estimates.txt"
    estimates.write_text("1 d1 0.5\n1 d15 0.2\n")
    result = invoke(["estimate", str(files / "qrels-all-relevant"), str(files / "run-a"),
                     "-m", "nDCG@10", "-b", "4", "--prior", f"estimates:{estimates}", "-j", "1"])
    check(result)
    assert (f"unjudged: note: estimates {estimates}: 2 estimates; trust 0.000 (fitted on 1 "
            "judged documents with an estimate: log loss 0.6931 estimates, 0.0000 topic prior, "
            "0.0000 blend)") in result.stderr.splitlines()


def test_one_draw_is_said(files):
    """-b 1 gives a bootstrap 'interval' of one value and P(A > B) of 0 or 1: a note says so."""
    result = invoke(["estimate", str(files / "qrels-graded"), str(files / "run-a"),
                     str(files / "run-b"), "-m", "nDCG@10", "-b", "1", "--pairs", "-j", "1"])
    check(result)
    assert ("unjudged: note: -b 1: one bootstrap draw: its value is one possible outcome, its "
            "interval that value alone (no spread) and each P(A > B) 0 or 1; the intervals need "
            "many draws (the default is 10000)") in result.stderr.splitlines()


def test_report_says_each_note_once(files, tmp_path):
    """The report estimates its topic panels' runs a second time; their notes were said twice."""
    result = invoke(["report", str(files / "qrels-all-relevant"), str(files / "run-a"),
                     str(files / "run-b"), "-m", "nDCG@10", "-b", "2", "-o",
                     str(tmp_path / "report.html")])
    check(result)
    notes = [line for line in result.stderr.splitlines() if line.startswith("unjudged: note:")]
    assert len(notes) == len(set(notes)) == 2, notes  # the position prior's and this
    assert any("the qrels hold no non-relevant judgment" in line for line in notes)


def test_ndeval_says_where_it_prints_nan(files):
    """ndeval's CSV keeps its -nan (0/0: nNRBP of a topic without a relevant document), byte
    for byte, and a note says where and why instead of leaving it unexplained."""
    result = invoke(["ndeval", str(files / "qrels-no-relevant"), str(files / "run-a")])
    assert result.exit_code == 0, result.output
    rows = [line.split(",") for line in result.stdout.splitlines()]
    column = rows[0].index("nNRBP")
    assert [row[column] for row in rows[1:]] == ["-nan"] * 4
    assert result.stderr.splitlines() == [
        "unjudged: note: 4 values are 0/0, printed -nan as ndeval 4.5 prints them (columns "
        "nNRBP; topics 1, 2, 3, amean): a topic without a relevant document has no ideal "
        "ranking to normalise by, and a run sharing no topic with the qrels no mean"]
    lost = invoke(["ndeval", str(files / "qrels-graded"), str(files / "run-elsewhere")])
    assert lost.exit_code == 0
    assert lost.stderr.startswith("unjudged: note: 21 values are 0/0, printed -nan as ndeval "
                                  "4.5 prints them (columns ERR-IA@5, ERR-IA@10, ERR-IA@20, "
                                  "nERR-IA@5, nERR-IA@10 and 16 more; topics amean)")
    assert "nan" not in invoke(["ndeval", str(files / "qrels-graded"),
                                str(files / "run-a")]).stderr
