"""The `unjudged` commands: output formats, several runs, the catalogue, the demo."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from unjudged.cli import main

sys.path.insert(0, str(Path(__file__).parent))
from collection import write_collection  # noqa: E402

QRELS = "1 0 a 2\n1 0 b 0\n1 0 c 1\n2 0 d 1\n"
RUN_A = "1 Q0 a 1 3.0 A\n1 Q0 x 2 2.0 A\n1 Q0 c 3 1.0 A\n2 Q0 d 1 1.0 A\n"
RUN_B = "1 Q0 b 1 3.0 B\n1 Q0 a 2 2.0 B\n2 Q0 y 1 1.0 B\n"


def _files(tmp_path):
    return write_collection(tmp_path, QRELS, {"a.run": RUN_A, "b.run": RUN_B})


def test_table_of_several_runs_from_a_directory(tmp_path):
    qrels, runs = _files(tmp_path)
    result = CliRunner().invoke(main, ["eval", qrels, str(runs), "-m", "P@2", "-m", "num_ret"])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "run     P@2  NumRet",
        "A    0.5000       4",
        "B    0.2500       3",
    ]


def test_jsonl_per_topic(tmp_path):
    qrels, runs = _files(tmp_path)
    result = CliRunner().invoke(main, ["eval", qrels, str(runs / "a.run"), "-m", "RR", "-q",
                                       "-f", "jsonl"])
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert rows == [
        {"run": "A", "topic": "1", "measure": "RR", "value": 1.0},
        {"run": "A", "topic": "2", "measure": "RR", "value": 1.0},
        {"run": "A", "topic": "all", "measure": "RR", "value": 1.0},
    ]


def test_csv_tsv_and_trec_layouts(tmp_path):
    qrels, runs = _files(tmp_path)
    base = ["eval", qrels, str(runs / "b.run"), "-m", "ndcg_cut_2"]
    csv_out = CliRunner().invoke(main, base + ["-f", "csv"]).stdout
    tsv_out = CliRunner().invoke(main, base + ["-f", "tsv"]).stdout
    trec_out = CliRunner().invoke(main, base + ["-f", "trec"]).stdout
    # csv and tsv in full (Python's repr); trec_eval's layout in its 4 decimals
    assert csv_out.splitlines() == ["run,topic,measure,value", "B,all,nDCG@2,0.23981246656813146"]
    assert tsv_out.splitlines()[1] == "B\tall\tnDCG@2\t0.23981246656813146"
    assert trec_out == "nDCG@2                \tall\t0.2398\n"


def test_glob_and_output_file(tmp_path):
    qrels, runs = _files(tmp_path)
    out = tmp_path / "res.tsv"
    result = CliRunner().invoke(main, ["eval", qrels, str(runs / "*.run"), "-m", "AP",
                                       "-f", "tsv", "-o", str(out)])
    assert result.exit_code == 0 and result.stdout == ""
    assert out.read_text().splitlines()[1:] == ["A\tall\tAP\t0.9166666666666666",
                                                      "B\tall\tAP\t0.125"]


def test_measures_catalogue():
    listing = CliRunner().invoke(main, ["measures"]).stdout
    assert "nDCG(dcg='log2',gains=None,judged_only=False)[@k]" in listing
    assert "Judged[@k]" in listing
    one = CliRunner().invoke(main, ["measures", "ndcg_cut_10"]).stdout
    assert one.startswith("nDCG   usage:") and "aliases: ndcg, ndcg_cut" in one


def test_demo_runs_on_shipped_data(tmp_path, monkeypatch):
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    # another user's symlink at the name older versions wrote to: never written through
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    (tmp_path / "unjudged-demo-report.html").symlink_to(victim)
    result = CliRunner().invoke(main, ["demo"])
    assert result.exit_code == 0, result.output
    assert victim.read_text() == "precious\n"
    page = Path(result.stdout.splitlines()[-1])
    assert page.parent == tmp_path and re.fullmatch(r"unjudged-demo-\w+-report\.html", page.name)
    assert page.is_file() and not page.is_symlink() and page.stat().st_mode & 0o777 == 0o600
    assert page.read_text().startswith("<!DOCTYPE html>")
    # headings and tables together on stdout, in order; stderr only progress lines (when slow)
    assert all(re.fullmatch(r"unjudged: \w[\w ]*: \d+(/\d+)?( \w+)?( \(\d+%\))?, \d+ s", x)
               for x in result.stderr.splitlines()), result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == ("unjudged demo: TREC-COVID round 1, qrels-rnd1 and 5 runs (shipped "
                        "inside the package; see unjudged/data/example/SOURCE.md)")
    assert lines[2].split() == ["run", "nDCG@10", "P@5", "Bpref", "AP", "Judged@10"]
    assert lines[5].split() == ["run1", "0.6844", "0.7933", "0.4159", "0.2663", "0.9167"]
    assert lines[9] == ("How far can nDCG@10 be trusted? The same runs under each strategy for "
                        "unjudged documents (unjudged estimate, b=10000):")
    # the legend of the estimate's jargon, with where it is explained
    assert lines[10] == (
        "nonrel: unjudged counted non-relevant (trec_eval); condensed: unjudged removed; "
        "upper: the comparable upper bound; bootstrap: mean and 90% interval of b draws "
        "of the unjudged grades, the drawn relevant ones also growing the ideal ranking "
        "(an estimate of the fully judged score, not comparable); guaranteed_*: bounds "
        "whatever the true grades (not comparable). See docs/unjudged-documents.md and "
        "docs/calibration.md.")
    assert lines[12].split()[:5] == ["run", "topic", "measure", "nonrel", "condensed"]
    heading = lines.index("How much of each run is judged? (unjudged coverage; round 1 pooled "
                          "the top 7 of one run per team)")
    planned = lines.index("Which documents to judge next? The 10 whose grades tell most about "
                          "the order of these runs by nDCG@10 (unjudged plan --budget 10; "
                          "docs/planning.md):")
    assert 12 < heading < planned < lines.index("The whole picture as one self-contained page "
                                                "(unjudged report):")
    assert lines[planned + 1].startswith("score: the bits of information")
    assert lines[planned + 3].split() == ["priority", "topic", "docno", "best_rank", "runs",
                                          "p_relevant", "score"]
    assert [x.split()[0] for x in lines[planned + 4:planned + 14]] == [str(i) for i in
                                                                       range(1, 11)]


def test_help_is_fast_and_lazy():
    code = ("import sys, unjudged.cli as c; "
            "print(int(any(m in sys.modules for m in ('numpy', 'pyarrow', 'pandas'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "0"
    helped = subprocess.run([sys.executable, "-m", "unjudged", "--help"], capture_output=True,
                            text=True)
    assert helped.returncode == 0 and "trec_eval" in helped.stdout


def test_eval_never_imports_pandas(tmp_path):
    """pyarrow's to_numpy/pa.array/pa.scalar pull in pandas (time and memory on every run);
    the command-line path must avoid them."""
    qrels, runs = _files(tmp_path)
    code = ("import sys; from unjudged.cli import main; sys.argv = ['unjudged', 'eval', "
            f"{qrels!r}, {str(runs)!r}, '-m', 'nDCG@10', '-m', 'Bpref']\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "print('pandas' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.splitlines()[-1] == "False", out.stderr


def test_policy_choices_in_help_come_from_the_policies():
    """--ties and --negative list unjudged.policies' choices, in the order help always showed
    them (pool: its default, file, first)."""
    from unjudged.policies import NEGATIVES, TIE_BREAKS

    def option_line(command: list[str], option: str) -> str:
        out = CliRunner().invoke(main, [*command, "--help"], terminal_width=100).output
        return next(line.strip() for line in out.splitlines() if line.strip().startswith(option))

    assert TIE_BREAKS == ("trec_eval", "trec_eval9", "docno", "rank", "file", "sample_eval")
    for command in (["eval"], ["estimate"], ["infer"], ["matrix"], ["coverage"], ["sample"],
                    ["report"], ["compare-qrels"], ["experiment", "sampling"],
                    ["experiment", "leave-one-group-out"]):
        assert option_line(command, "--ties").startswith(
            "--ties [trec_eval|trec_eval9|docno|rank|file|sample_eval]")
    assert option_line(["pool"], "--ties").startswith(
        "--ties [file|trec_eval|trec_eval9|docno|rank|sample_eval]")
    assert NEGATIVES == ("unjudged", "nonrel")
    assert option_line(["eval"], "--negative").startswith("--negative [unjudged|nonrel]")
    assert option_line(["eval"], "--names").startswith("--names [tag|file]")


def test_ties_reach_the_reader_through_the_one_policies(tmp_path):
    """Two documents tie on score: trec_eval ranks b (docno descending) first, docno a."""
    qrels = tmp_path / "qrels.txt"
    run = tmp_path / "run.txt"
    qrels.write_text("1 0 a 1\n1 0 b 0\n")
    run.write_text("1 Q0 a 1 1.0 r\n1 Q0 b 2 1.0 r\n")
    p_at_1 = {}
    for ties in ("trec_eval", "docno", "rank", "file"):
        result = CliRunner().invoke(main, ["eval", str(qrels), str(run), "-m", "P@1",
                                           "--ties", ties, "-f", "tsv"])
        assert result.exit_code == 0, result.output
        p_at_1[ties] = result.stdout.splitlines()[-1].split("\t")[-1]
    assert p_at_1 == {"trec_eval": "0.0", "docno": "1.0", "rank": "1.0", "file": "1.0"}
    pool = CliRunner().invoke(main, ["pool", str(run), "-k", "1", "--format", "pairs"])
    assert pool.stdout == "1 a\n"  # file order, the pool's default
    pool = CliRunner().invoke(main, ["pool", str(run), "-k", "1", "--format", "pairs",
                                     "--ties", "trec_eval"])
    assert pool.stdout == "1 b\n"
