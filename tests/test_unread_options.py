"""An option either applies or is refused: options that `eval`, `estimate`, `plan`, `matrix`,
`infer` and `compare-qrels` would ignore under the other settings given fail with one line
naming them (exit 2), and the same options are taken where they apply."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from unjudged.cli import main

sys.path.insert(0, str(Path(__file__).parent))
from collection import write_collection  # noqa: E402

QRELS = "1 0 a 2\n1 0 b 0\n1 0 c 1\n2 0 d 1\n2 0 e 0\n"
RUN_A = "1 Q0 a 1 3.0 A\n1 Q0 x 2 2.0 A\n1 Q0 c 3 1.0 A\n2 Q0 d 1 1.0 A\n2 Q0 z 2 0.5 A\n"
RUN_B = "1 Q0 b 1 3.0 B\n1 Q0 a 2 2.0 B\n2 Q0 y 1 1.0 B\n2 Q0 e 2 0.5 B\n"
JUDGE = "1 0 x 1\n2 0 z 0\n2 0 y 1\n"


@pytest.fixture
def files(tmp_path):
    qrels, runs = write_collection(tmp_path, QRELS, {"a.run": RUN_A, "b.run": RUN_B})
    judge = tmp_path / "judge.txt"
    judge.write_text(JUDGE)
    (tmp_path / "groups.txt").write_text("A g1\nB g2\n")
    return qrels, str(runs), str(judge)


def _invoke(files, args: list[str], out: Path):
    """Run `args` (its first item the command, words split) on the fixture's files, writing
    to `out`; compare-qrels takes the qrels as options, the others as the first argument."""
    qrels, runs, judge = files
    cmd, *rest = [a.format(runs=runs, judge=judge, qrels=qrels,
                           groups=str(Path(judge).parent / "groups.txt")) for a in args]
    head = [cmd, runs] if cmd == "compare-qrels" else [*cmd.split(), qrels, runs]
    return CliRunner().invoke(main, [*head, "-o", str(out), *rest])


REFUSED = [
    # eval: trec_eval's scores read no prior and draw nothing
    (["eval", "-m", "P@2", "--prior", "pool", "-b", "50"],
     "--prior, --iterations do not apply to --unjudged nonrel"),
    (["eval", "-m", "P@2", "--pool-runs", "{runs}"], "--pool-runs does not apply to --unjudged"),
    (["eval", "-m", "P@2", "--unjudged", "upper", "--no-grow"],
     "--grow/--no-grow does not apply to --unjudged upper"),
    (["eval", "-m", "P@2", "--seed", "3"], "--seed does not apply here: nothing is drawn"),
    # eval prints values: an expectation draws nothing, intervals are estimate's
    (["eval", "-m", "P@2", "--unjudged", "expected", "-b", "50", "--spread", "1"],
     "--iterations, --spread do not apply to --unjudged expected"),
    (["eval", "-m", "P@2", "--unjudged", "bootstrap", "-b", "20", "--interval", "0.5"],
     "--interval does not apply to eval"),
    (["eval", "-m", "P@2", "--unjudged", "bootstrap", "-b", "20", "--prior", "pool",
      "--trust", "0.5"], "--trust does not apply without --prior estimates:FILE"),
    # eval's tests: only with --baseline or a comparison table
    (["eval", "-m", "P@2", "--test", "wilcoxon"], "--test does not apply without --baseline"),
    (["eval", "-m", "P@2", "--baseline", "A", "--correction", "bonferroni"],
     "--correction does not apply to --baseline's tests"),
    # estimate: the options of methods that are not asked for
    (["estimate", "-m", "P@2", "--methods", "nonrel,upper", "-b", "20", "--interval", "0.5"],
     "--iterations, --interval do not apply to --methods nonrel,upper"),
    (["estimate", "-m", "P@2", "--methods", "expected", "-b", "20"],
     "--iterations does not apply to --methods expected, which draw nothing"),
    (["estimate", "-m", "P@2", "-b", "20", "--queries", "{judge}"],
     "--queries does not apply without --prior text"),
    (["estimate", "-m", "P@2", "-b", "20", "--prior", "pool", "--trust", "0.5"],
     "--trust does not apply without --prior estimates:FILE (or text)"),
    # plan: a plan's options do not shape an audit sample, and the other way round
    (["plan", "--audit", "1", "--judge", "{judge}", "--strategy", "mtc", "-m", "P@2"],
     "--strategy, --measure do not apply to drawing an audit sample"),
    (["plan", "--audit", "1", "--judge", "{judge}", "-j", "2", "--details", "d.csv"],
     "--jobs, --details do not apply to drawing an audit sample"),
    (["plan", "--budget", "2", "--audit-design", "uniform"],
     "--audit-design does not apply without --audit N --judge FILE"),
    (["plan", "--budget", "2", "--design-out", "d.txt"],
     "--design-out does not apply without --audit N --judge FILE"),
    (["plan", "--budget", "2", "--strategy", "depth", "-b", "50"],
     "--iterations does not apply to --strategy depth"),
    # infer: the interval's options without --ci; sample_eval.pl's ties under --compat
    (["infer", "-m", "infAP", "-b", "50", "--ci-method", "bootstrap"],
     "--ci-method, --iterations do not apply without --ci"),
    (["infer", "--compat", "sample_eval", "--ties", "docno"],
     "--ties does not apply with --compat sample_eval"),
    # compare-qrels: the largest rank changes are the table's and jsonl's
    (["compare-qrels", "--orig", "{qrels}", "--new", "{qrels}", "-m", "P@2", "--top", "3",
      "-f", "tsv"], "--top does not apply to -f tsv"),
    # judge estimate: without an audit the scores are the judge's own
    (["judge estimate", "--judge", "{judge}", "--lam", "0.5", "--no-calibrate"],
     "--lam, --no-calibrate do not apply without --audit"),
    (["judge estimate", "--judge", "{judge}", "--design", "{judge}"],
     "--audit-qrels and --design go with --audit"),
    # leave-one-group-out: the draws' options without a strategy that draws
    (["experiment leave-one-group-out", "--groups", "{groups}", "-k", "1", "-m", "P@2",
      "--strategies", "upper", "-b", "50", "--point", "median"],
     "--iterations, --point do not apply to --strategies nonrel,upper, which draw nothing"),
    # matrix: the table's and the other formats' options; a seed only for a drawn test
    (["matrix", "--depths", "2", "--pairs", "-f", "tsv"], "--pairs does not apply to -f tsv"),
    (["matrix", "--depths", "2", "--summary"], "--summary does not apply to -f table"),
    (["matrix", "--depths", "2", "--seed", "2"],
     "--seed does not apply to --test anova-bonferroni"),
]


@pytest.mark.parametrize(("args", "message"), REFUSED, ids=lambda x: " ".join(x)
                         if isinstance(x, list) else None)
def test_an_option_that_does_not_apply_is_refused(files, tmp_path, args, message):
    out = tmp_path / "out.txt"
    result = _invoke(files, args, out)
    assert result.exit_code == 2, result.output
    assert f"Error: {message}" in result.output
    assert not out.exists()  # nothing half-written


TAKEN = [
    ["eval", "-m", "P@2", "--unjudged", "bootstrap", "-b", "20", "--seed", "3", "--prior",
     "pool", "--no-grow", "--spread", "1", "--point", "median"],
    ["eval", "-m", "P@2", "--unjudged", "expected", "--prior", "pool", "--no-grow"],
    ["eval", "-m", "P@2", "--baseline", "A", "--test", "randomisation", "--seed", "2",
     "--significance", "0.1"],
    ["estimate", "-m", "P@2", "--methods", "nonrel,expected", "--interval", "0.8",
     "--spread", "1"],
    ["estimate", "-m", "P@2", "--methods", "nonrel,bootstrap", "-b", "20", "--seed", "1",
     "--population", "topics"],
    ["plan", "--audit", "3", "--judge", "{judge}", "--seed", "3", "--audit-design",
     "uniform"],
    ["plan", "--budget", "2", "--strategy", "depth", "-m", "P@2", "--summary", "jsonl"],
    ["plan", "--budget", "2", "-b", "50", "--seed", "4"],
    ["matrix", "--depths", "2", "--test", "bootstrap", "--seed", "2", "--pairs"],
    ["matrix", "--depths", "2", "-f", "tsv", "--summary"],
    ["compare-qrels", "--orig", "{qrels}", "--new", "{qrels}", "-m", "P@2", "--top", "3",
     "-f", "jsonl"],
    ["infer", "-m", "infAP", "--ci", "0.9", "--ci-method", "bootstrap", "-b", "50", "--seed",
     "3"],
]


@pytest.mark.parametrize("args", TAKEN, ids=" ".join)
def test_options_that_apply_are_taken(files, tmp_path, args):
    out = tmp_path / "out.txt"
    result = _invoke(files, args, out)
    assert result.exit_code == 0, result.output
    assert out.read_text()


@pytest.mark.parametrize(("kw", "message"), [
    ({"methods": ["nonrel", "upper"], "interval": 0.5, "spread": 1.0},
     "interval, spread do not apply to methods nonrel,upper"),
    ({"methods": "nonrel,expected", "misfit": False}, "misfit does not apply to methods "
     "nonrel,expected, which draw nothing"),
    ({"methods": ["bootstrap"], "b": 10, "prior": "pool", "trust": 0.5},
     "trust does not apply without prior estimates:FILE"),
])
def test_the_api_refuses_draw_keywords_that_do_not_apply(kw, message):
    import unjudged
    from unjudged.errors import InvalidOptionError

    with pytest.raises(InvalidOptionError, match=message):
        unjudged.estimate({"q": {"a": 3, "x": 2}}, {"q": {"a": 1, "b": 0}}, "P@2", **kw)


def test_the_api_takes_draw_keywords_that_apply():
    import unjudged

    df = unjudged.estimate({"q": {"a": 3, "x": 2}}, {"q": {"a": 1, "b": 0}}, "P@2",
                           methods=["nonrel", "expected"], spread=1.0, interval=0.8)
    assert set(df.method) == {"nonrel", "expected"}


def test_plan_judgments_refuses_b_without_the_bootstrap():
    from unjudged.errors import InvalidOptionError
    from unjudged.planning import plan_judgments

    runs = {"a": {"t": {"d1": 4, "d3": 3}}, "b": {"t": {"d1": 4, "d4": 3}}}
    with pytest.raises(InvalidOptionError, match="b does not apply to strategy depth"):
        plan_judgments(runs, {"t": {"d1": 1}}, 1, "P@2", strategy="depth", b=50)
    assert plan_judgments(runs, {"t": {"d1": 1}}, 1, "P@2", strategy="depth").docnos == ["d3"]


def test_qrels_stats_and_text_index_refuse_what_they_would_ignore(files, tmp_path):
    qrels, _, _ = files
    corpus = tmp_path / "docs.jsonl"
    corpus.write_text('{"id": "a", "text": "alpha beta"}\n{"id": "b", "text": "beta"}\n')
    for args, message in (
            (["qrels", "stats", qrels, "--no-union"],
             "--no-union does not apply to one qrels file"),
            (["text", "index", str(corpus), "--no-cache", "--cache-dir", str(tmp_path)],
             "--cache-dir does not apply with --no-cache")):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 2, result.output
        assert f"Error: {message}" in result.output
    assert CliRunner().invoke(main, ["qrels", "stats", qrels, qrels, "--no-union"]).exit_code == 0
    assert CliRunner().invoke(main, ["text", "index", str(corpus), "--no-cache"]).exit_code == 0
