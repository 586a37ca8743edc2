"""unjudged matrix: the System Evaluation Decision Matrix (seed 001) over measures and depths."""

from __future__ import annotations

import click

from unjudged.cli._base import SEED, lean_arrow, main, policy_options, progress, write_output
from unjudged.cli._checks import measure_names, refuse_given
from unjudged.cli._runs import cli_runs, run_options

#: The tests of unjudged.stats.significance (TESTS for one pair, METHODS for every pair), listed
#: here so that --help needs no numpy.
PAIRED_TESTS = ("t", "wilcoxon", "sign", "randomisation", "bootstrap")
RANDOMISED = ("randomisation", "bootstrap")  #: the tests that read --seed
METHODS = ("anova-bonferroni", "anova-pooled-bonferroni", "anova-holm", "t-holm",
           "t-bonferroni", "tukey") + PAIRED_TESTS


def _depths(ctx, param, value: str) -> list[int]:
    try:
        depths = [int(x) for x in value.split(",") if x.strip()]
    except ValueError:
        depths = []
    if not depths or min(depths) < 1 or len(set(depths)) != len(depths):
        raise click.BadParameter(f"expected distinct positive integers separated by commas, "
                                 f"got {value!r}")
    return depths


def _significance(ctx, param, value: float) -> float:
    if not 0 < value < 1:
        raise click.BadParameter(f"expected a level between 0 and 1, got {value}")
    return value


#: Why --alpha is refused: the test level and the novelty parameter of the diversity measures
#: are both called alpha, and a diversity user's --alpha 0.3 used to change the test silently.
ALPHA_GONE = ("--alpha is not an option: give the significance level of the tests as "
              "--significance 0.05, and the novelty parameter of a diversity measure in the "
              "measure, as in -m 'alpha-nDCG(alpha=0.3)@20'")


def _no_alpha(ctx, param, value: str | None) -> None:
    if value is not None:
        from unjudged.errors import InvalidOptionError

        raise InvalidOptionError(ALPHA_GONE)


def SIGNIFICANCE(fn):
    """--significance LEVEL (the tests' level, passed on as `alpha`), and a hidden --alpha that
    fails with ALPHA_GONE."""
    fn = click.option("--alpha", "removed_alpha", default=None, hidden=True, expose_value=False,
                      callback=_no_alpha, help="Refused: see --significance.")(fn)
    return click.option("--significance", "alpha", type=float, default=0.05, show_default=True,
                        callback=_significance, metavar="LEVEL",
                        help="Significance level of the tests (for the novelty parameter of "
                        "a diversity measure write it in the measure: "
                        "'alpha-nDCG(alpha=0.3)').")(fn)


@main.command("matrix")
@click.argument("qrels")
@click.argument("runs", nargs=-1, required=True)
@click.option("-m", "--measure", "families", multiple=True, default=("P", "AP"),
              callback=measure_names,
              show_default=True, help="Measure family without a cutoff (P, AP, nDCG, "
              "'P(rel=2)'); evaluated at every depth. Repeatable.")
@click.option("--depths", default="10,30,100,500,1000", show_default=True, callback=_depths,
              help="Measurement depths d: each family at @d, tested beside A_p@d (Judged@d).")
@click.option("--test", type=click.Choice(METHODS), default="anova-bonferroni",
              show_default=True, help="Test applied to every pair of runs, for the measure and "
              "for A_p (adjusted for all pairs where the method adjusts). After a one-way "
              "ANOVA over the runs, anova-bonferroni follows up with paired t-tests, "
              "anova-pooled-bonferroni with t-tests on the ANOVA's pooled error (runs as "
              "independent groups); both Bonferroni-adjusted.")
@SIGNIFICANCE
@SEED
@click.option("--ap-denominator", type=click.Choice(["retrieved", "depth"]),
              default="retrieved", show_default=True, help="A_p@d: judged share of the top "
              "min(d, |run|) (Judged@d), or judged documents in the top d over d (trec_eval's "
              "P@d on all-judged qrels; short runs count as unjudged past their end).")
@click.option("--pairs", is_flag=True, help="Table format: also list every pair of runs.")
@click.option("--weak-only", is_flag=True, help="List only the weak pairs (cases 2 and 4).")
@click.option("--summary", is_flag=True, help="tsv/csv/jsonl: the share of pairs per case "
              "instead of the per-pair listing.")
@policy_options
@run_options
@click.option("-f", "--format", "fmt", type=click.Choice(["table", "tsv", "csv", "jsonl"]),
              default="table", show_default=True)
@click.option("-o", "--output", default=None, help="Write to this file instead of stdout.")
@click.option("--plot", "plot_path", default=None, help="Draw seed 001's figures. FILE.png "
              "names them, it is not written itself: FILE-<measure>.png per family and "
              "FILE-tau.png; a folder gets matrix-<measure>.png and matrix-tau.png. Each "
              "written path is printed on stderr.")
def matrix_cmd(qrels, runs, families, depths, test, alpha, seed, ap_denominator, pairs,
               weak_only, summary,
               complete, rel_level, depth, ties, negative, names, strict, fmt, output,
               plot_path) -> None:
    """Classify every pair of RUNS into the four cases of the System Evaluation Decision
    Matrix (Baillie et al. 2007) for each measure and depth: the measure and A_p@d (the
    fraction of the top d that is judged) are both tested; a difference, or its absence,
    that comes with significantly uneven judging is a weak comparison (cases 2 and 4).

    Every run is evaluated over all QRELS topics (as with -c: a missing topic scores 0)."""
    if fmt == "table":
        refuse_given(("summary",), "to -f table (--summary is tsv, csv and jsonl's)")
    else:
        refuse_given(("pairs",), f"to -f {fmt}, which lists every pair (--pairs is the "
                     "table's)")
    if test not in RANDOMISED:
        refuse_given(("seed",), f"to --test {test}, which draws nothing")
    lean_arrow()
    from unjudged.io.atomic import check_targets

    check_targets([output])  # before the figures are written
    from unjudged.analysis.matrix import decision_matrix
    from unjudged.io import read_qrels
    from unjudged.policies import Policies
    from unjudged.report.matrix import render_matrix, tau_said

    bad = [f for f in families if "@" in f]
    if bad:
        raise click.BadParameter(f"{bad[0]}: expected a measure family without a cutoff "
                                 "(the depths come from --depths)", param_hint="-m")
    pol = Policies(ties=ties, negative=negative, complete=True, rel_level=rel_level,
                   depth=depth)
    q = read_qrels(qrels)
    stream = progress(cli_runs(runs, q, policies=pol, names=names, strict=strict), "scoring")
    dm = decision_matrix(stream, q, list(families), depths, test=test, alpha=alpha, seed=seed,
                         policies=pol, denominator=ap_denominator, progress=progress)
    if len(dm.runs) < 2:
        raise click.BadParameter("the matrix compares runs: give at least two",
                                 param_hint="RUNS")
    text = render_matrix(dm, fmt, pairs=(pairs or None) if fmt == "table" else not summary,
                         weak_only=weak_only)
    if plot_path:
        from unjudged.report.matrix_plots import plot_matrix

        for path in plot_matrix(dm, plot_path):
            click.echo(f"unjudged: wrote {path}", err=True)
    if fmt != "table":
        tau = dm.ranking_tau()
        click.echo(f"unjudged: Kendall's tau-b between the rankings by {tau['measure']} and by "
                   f"{tau['assessment']}: {tau_said(tau)}", err=True)
    write_output(text, output)
