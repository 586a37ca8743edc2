"""compare-qrels: the same runs scored under two qrels, and how the rankings agree."""

from __future__ import annotations

import click

from unjudged.cli._base import (
    MEASURES,
    PLOT_SUFFIXES,
    check_suffix,
    lean_arrow,
    main,
    policy_options,
    progress,
    write_output,
)
from unjudged.cli._checks import below_2_63, refuse_given
from unjudged.cli._runs import cli_runs, run_options


@main.command("compare-qrels")
@click.option("--orig", "orig_path", required=True, help="The original qrels (the reference).")
@click.option("--new", "new_path", required=True, help="The new qrels (e.g. extended pools).")
@click.argument("runs", nargs=-1, required=True)
@MEASURES
@policy_options
@run_options
@click.option("--top", type=click.IntRange(0), default=5, show_default=True,
              help="Largest rank changes listed per measure.")
@click.option("--per-run", is_flag=True,
              help="List every run's two scores and ranks (tsv/csv/jsonl: instead of the "
              "correlations).")
@click.option("--plot", "plot_path", default=None,
              help="Draw each run's score under both qrels, runs sorted by the original score "
              "(FILE.png, .pdf or .svg).")
@click.option("--decimals", type=click.IntRange(0), default=10, show_default=True,
              callback=below_2_63,
              help="Scores equal to this many decimals tie (4: as in trec_eval's output).")
@click.option("-f", "--format", "fmt", type=click.Choice(["table", "tsv", "csv", "jsonl"]),
              default="table", show_default=True)
@click.option("-o", "--output", default=None, help="Write to this file instead of stdout.")
def compare_qrels_cmd(orig_path, new_path, runs, measures, complete, rel_level, depth, ties,
                      negative, names, strict, top, per_run, plot_path, decimals, fmt,
                      output) -> None:
    """How the ranking of RUNS changes from the --orig to the --new qrels.

    RUNS (files, directories or globs) are scored under both qrels; for each measure Kendall's
    tau (tau-b and tau-a), tau_AP (the original ranking as reference), Spearman's rho and the
    largest rank changes.

    \b
    unjudged compare-qrels --orig qrels-rnd1.txt --new qrels-extended.txt runs/ \\
        -m P@5 -m nDCG@10 -m Bpref -m AP --plot ranks.png
    """
    check_suffix(plot_path, PLOT_SUFFIXES, "--plot", any_case=True)
    if fmt in ("tsv", "csv") or (per_run and fmt != "table"):
        refuse_given(("top",), f"to -f {fmt}{' --per-run' if per_run else ''}, which lists no "
                     "largest rank changes (-f table and jsonl do)")
    lean_arrow()
    from unjudged.analysis.compare import compare_qrels
    from unjudged.io import read_qrels
    from unjudged.measures import parse_measures
    from unjudged.policies import Policies
    from unjudged.report.compare import plot_comparison, render_comparison

    ms = parse_measures(list(measures))
    pol = Policies(ties=ties, negative=negative, complete=complete, rel_level=rel_level,
                   depth=depth)
    q_orig, q_new = read_qrels(orig_path), read_qrels(new_path)
    _note_topic_sets(q_orig, q_new, complete)
    stream = cli_runs(runs, q_orig, policies=pol, names=names, strict=strict)
    cmp = compare_qrels(progress(stream, "scoring"), q_orig, q_new, ms, pol, decimals=decimals)
    text = render_comparison(cmp, fmt, top=top, per_run=per_run)
    if plot_path:
        click.echo(f"unjudged: wrote {plot_comparison(cmp, plot_path)}", err=True)
    write_output(text, output)


def _note_topic_sets(q_orig, q_new, complete: bool) -> None:
    """Averages over different topic sets are not comparable; say so rather than guess."""
    only_orig = sorted(set(q_orig.topics) - set(q_new.topics))
    only_new = sorted(set(q_new.topics) - set(q_orig.topics))
    for where, topics in (("--orig", only_orig), ("--new", only_new)):
        if topics:
            shown = ", ".join(topics[:5]) + (" ..." if len(topics) > 5 else "")
            effect = "scored 0 there (-c)" if complete else "averaged where runs have them"
            click.echo(f"unjudged: note: {len(topics)} topic(s) only in {where} qrels are "
                       f"{effect} ({shown})", err=True)
