"""Issue 32 item 13: a comparison table of many runs with significance marks (every pair or
against a baseline, corrected for the number of comparisons) as LaTeX and Markdown:
`unjudged eval -f latex|markdown` and `unjudged.compare_table`."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

import unjudged
from unjudged.cli import main
from unjudged.data.examples import example_paths

QRELS, ALL_RUNS = example_paths()
# BBGhelani1, run1, sab20.1.meta.docs, udel_fang_run1: BERT (a short run) is left out, as its
# near-tied scores rank differently under trec_eval 9's and 10's rules
RUNS = [p for p in ALL_RUNS if "BERT" not in p]
NOTE = ("Superscripts name the runs a run is significantly better than: paired t-test over "
        "the 30 topics every run has, Holm's correction over the 6 pairs of runs per measure, "
        "p < 0.05. Bold: the best value of each measure.")


def _score(runs, qrels, measures, **policies):
    from unjudged.engine.score import score

    return score(runs, qrels, unjudged.parse_measures(measures), unjudged.Policies(**policies))


def invoke(*args: str):
    return CliRunner().invoke(main, ["eval", "-c", QRELS, *RUNS, *args])


def test_markdown_every_pair_sorted_by_score():
    result = invoke("-m", "nDCG@10", "-m", "P@5", "-m", "Bpref", "-f", "markdown",
                    "--sort-runs", "score")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "|  | run | nDCG@10 | P@5 | Bpref |",
        "|:--|:--|--:|--:|--:|",
        "| a | run1 | **0.6844**<sup>d</sup> | 0.7933<sup>d</sup> | 0.4159 |",
        "| b | BBGhelani1 | 0.6689<sup>d</sup> | **0.8200**<sup>d</sup> | "
        "**0.5294**<sup>ad</sup> |",
        "| c | sab20.1.meta.docs | 0.6080<sup>d</sup> | 0.7800 | 0.4832 |",
        "| d | udel\\_fang\\_run1 | 0.4838 | 0.6133 | 0.4161 |",
        "",
        NOTE]


def test_latex_against_a_baseline():
    result = invoke("-m", "nDCG@10", "-m", "P@5", "-f", "latex", "--baseline",
                    "udel_fang_run1")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        r"\begin{table}[t]",
        r"\centering",
        r"\caption{Superscripts name the runs a run is significantly better than, each run "
        r"tested against the baseline udel\_fang\_run1 only: paired t-test over the 30 topics "
        r"every run has, Holm's correction over the 3 comparisons with the baseline per "
        r"measure, p < 0.05. Bold: the best value of each measure.}",
        r"\begin{tabular}{llrr}",
        r"\toprule",
        r" & Run & nDCG@10 & P@5 \\",
        r"\midrule",
        r"a & BBGhelani1 & 0.6689$^{d}$ & \textbf{0.8200}$^{d}$ \\",
        r"b & run1 & \textbf{0.6844}$^{d}$ & 0.7933$^{d}$ \\",
        r"c & sab20.1.meta.docs & 0.6080$^{d}$ & 0.7800$^{d}$ \\",
        r"d & udel\_fang\_run1 & 0.4838 & 0.6133 \\",
        r"\bottomrule",
        r"\end{tabular}",
        r"\end{table}"]


def test_marks_agree_with_scipy_and_statsmodels():
    """The marks are Holm-corrected paired t-tests as scipy and statsmodels compute them."""
    from itertools import combinations

    from scipy.stats import ttest_rel
    from statsmodels.stats.multitest import multipletests

    from unjudged.analysis.comparison import compare_runs

    res = _score(unjudged.read_runs(RUNS), unjudged.read_qrels(QRELS), ["P@5"],
                         complete=True)
    c = compare_runs(res)
    frame = res.to_pandas(summary=False).pivot(index="topic", columns="run", values="value")
    pairs = list(combinations(range(len(c.runs)), 2))
    p = [ttest_rel(frame[c.runs[i]], frame[c.runs[j]]).pvalue for i, j in pairs]
    reject, p_holm, _, _ = multipletests(p, alpha=0.05, method="holm")
    expected: list[list[int]] = [[] for _ in c.runs]
    for (i, j), rej, pij in zip(pairs, reject, p_holm, strict=True):
        assert c.p[0, i, j] == pytest.approx(pij, rel=1e-9)
        if rej:
            win, lose = (i, j) if frame[c.runs[i]].mean() > frame[c.runs[j]].mean() else (j, i)
            expected[win].append(lose)
    assert [row[0] for row in c.better] == [sorted(x) for x in expected]
    assert sum(map(len, expected)) == 2  # 2 of the 6 pairs settled on P@5


def test_correction_changes_the_marks():
    """Uncorrected tests settle the most pairs, Holm's correction fewer, Bonferroni's (the
    more conservative) fewest."""
    from unjudged.analysis.comparison import compare_runs

    res = _score(unjudged.read_runs(RUNS), unjudged.read_qrels(QRELS),
                         ["Bpref", "nDCG@10"], complete=True)
    marks = {how: sum(len(m) for row in compare_runs(res, correction=how).better for m in row)
             for how in ("none", "holm", "bonferroni")}
    assert marks == {"none": 7, "holm": 5, "bonferroni": 4}


def _toy():
    q = unjudged.read_qrels({t: {"a": 1, "b": 1} for t in "123456"})
    runs = [unjudged.read_run({t: {"a": 2, "b": 1} for t in "123456"}, name="both_docs"),
            unjudged.read_run({t: {"a": 1} for t in "123456"}, name="one|doc")]
    return _score(runs, q, ["NumRet", "P@2"])


def test_python_api_markdown_escapes_and_integers():
    text = unjudged.compare_table(_toy(), "markdown")
    assert text.splitlines()[:4] == [
        "|  | run | NumRet | P@2 |",
        "|:--|:--|--:|--:|",
        "| a | both\\_docs | **12**<sup>b</sup> | **1.0000**<sup>b</sup> |",
        "| b | one\\|doc | 6 | 0.5000 |"]


def test_lower_is_better_counts_the_lower_value_best():
    from unjudged.analysis.comparison import compare_runs

    q = unjudged.read_qrels({t: {"a": 1} for t in "123456"})
    runs = [unjudged.read_run({t: {"x": 2, "a": 1} for t in "123456"}, name="late"),
            unjudged.read_run({t: {"a": 1} for t in "123456"}, name="early")]
    res = _score(runs, q, ["RR", "Unj@2"])
    c = compare_runs(res)
    assert c.values.tolist() == [[0.5, 0.5], [1.0, 0.0]]
    assert c.best.tolist() == [[False, False], [True, True]]  # Unj: the lower the better
    assert c.better == [[[], []], [[0], [0]]]  # early beats late on both


def test_many_runs_get_two_letter_labels_separated():
    from unjudged.analysis.comparison import compare_runs, run_labels
    from unjudged.report.comparison import render_comparison

    assert run_labels(53)[25:28] + run_labels(53)[-1:] == ["z", "aa", "ab", "ba"]
    q = unjudged.read_qrels({t: {"a": 1} for t in "123456"})
    runs = [unjudged.read_run({t: {"a": 1} for t in "123456"}, name="best")]
    runs += [unjudged.read_run({t: {"b": 1} for t in "123456"}, name=f"r{i}")
             for i in range(27)]
    text = render_comparison(compare_runs(_score(runs, q, ["P@1"])), "markdown")
    assert text.splitlines()[2].startswith("| a | best | **1.0000**<sup>b,c,d,")
    assert text.splitlines()[2].endswith(",z,aa,ab</sup> |")


def test_refusals_are_one_line_exit_2():
    result = invoke("-m", "P@5", "-f", "latex", "-q")
    assert result.exit_code == 2
    assert "-f latex prints one row per run" in result.output
    one = CliRunner().invoke(main, ["eval", QRELS, RUNS[0], "-m", "P@5", "-f", "markdown"])
    assert one.exit_code == 2
    assert one.output.strip().splitlines() == [
        "unjudged: error: a comparison table needs at least two runs"]
    from unjudged.errors import InvalidOptionError

    with pytest.raises(InvalidOptionError, match="correction: expected one of"):
        unjudged.compare_table(_toy(), "latex", correction="sidak")
    with pytest.raises(InvalidOptionError, match="format: expected one of latex, markdown"):
        unjudged.compare_table(_toy(), "html")
    with pytest.raises(InvalidOptionError, match="baseline 'nope' is not one of the runs"):
        unjudged.compare_table(_toy(), baseline="nope")


def test_no_numpy_warning_on_constant_scores(recwarn):
    q = unjudged.read_qrels({t: {"a": 1} for t in "123"})
    runs = [unjudged.read_run({t: {"a": 1} for t in "123"}, name=n) for n in ("x", "y")]
    text = unjudged.compare_table(_score(runs, q, ["P@1"]), "markdown")
    assert text.splitlines()[2:4] == ["| a | x | **1.0000** |", "| b | y | **1.0000** |"]
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]
