"""`unjudged trec_eval`, in a module of its own: a shell loop calls it once per run file, so it
loads only what it needs (not eval's and estimate's options, strategies and judges). The work
is cli._fast.trec_eval, which `python -m unjudged trec_eval` runs without click for plain
command lines."""

from __future__ import annotations

import click

from unjudged.cli._base import main
from unjudged.cli._checks import below_2_63


def _say_version(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    """-v: trec_eval's line on standard error (scripts read the version from it), naming the
    drop-in too; exit 0 before the files are asked for, as trec_eval does."""
    if not value or ctx.resilient_parsing:
        return
    from unjudged import __version__

    click.echo(f"trec_eval version 10.0 (unjudged {__version__}, a drop-in)", err=True)
    ctx.exit(0)


def _debug_level(ctx: click.Context, param: click.Parameter, value: int) -> int:
    if value != 0:
        raise click.BadParameter("trec_eval's debug printing is not reproduced; only -D 0 "
                                 "(no debug output, the default) is accepted")
    return value


@main.command("trec_eval", context_settings={"ignore_unknown_options": False})
@click.argument("qrels")
@click.argument("run")
@click.option("-q", "--query_eval_wanted", "per_query",
              is_flag=True, help="Print per-query values too.")
@click.option("-c", "--complete_rel_info_wanted", "complete",
              is_flag=True, help="Average over all qrels queries.")
@click.option("-n", "--nosummary", "nosummary", is_flag=True, help="No summary ('all') lines.")
@click.option("-m", "--measure", "measures",
              multiple=True, help="Measure or set (official, all_trec, set), "
              "with trec_eval parameters: -m P.5,10  -mndcg.1=3,2=9.")
@click.option("-M", "--Max_retrieved_per_topic", "depth",
              type=int, default=None, callback=below_2_63,
              help="Max documents per query.")
@click.option("-l", "--level_for_rel", "rel_level",
              type=int, default=1, help="Relevance level (default 1).")
@click.option("-J", "--Judged_docs_only", "judged_only",
              is_flag=True, help="Judged documents only.")
@click.option("-v", "--version", "version", is_flag=True, is_eager=True, expose_value=False,
              callback=_say_version, help="Print trec_eval's version line and exit.")
@click.option("-T", "--Results_format", "results_format",
              type=click.Choice(["trec_results"]), default="trec_results",
              help="Format of RUN: trec_results, trec_eval's only one.")
@click.option("-D", "--Debug_level", "debug_level", type=int, default=0, callback=_debug_level,
              help="Debug level: 0 only (trec_eval's debug printing is not reproduced).")
@click.option("-N", "--Number_docs_in_coll", "collection_docs",
              type=click.IntRange(0, 2**62), default=0,
              help="Documents in the collection (utility's 4th weight counts the non-relevant "
              "ones not retrieved; default 0, as trec_eval's).")
@click.option("-Z", "--Zscore", "zscores",
              default=None, help="z-score file: qid measure mean stddev.")
@click.option("-R", "--Rel_info_format", "rel_format",
              type=click.Choice(["qrels", "prefs", "qrels_prefs", "qrels_jg"]),
              default="qrels", show_default=True, help="Format of QRELS: preferences "
              "(qid jg jsg docno level; -m all_prefs), a qrels read as preferences, or a qrels "
              "whose iter column names judgment groups (-m qrels_jg).")
@click.option("--ties", type=click.Choice(["trec_eval", "trec_eval9"]), default="trec_eval",
              show_default=True, help="Scores compared in double precision (trec_eval 10.0) "
              "or as C floats (trec_eval 9: scores equal to 7 digits tie and go by docno, as "
              "in the 2020 TREC-COVID leaderboards and pytrec_eval).")
def trec_eval_cmd(qrels, run, per_query, complete, nosummary, measures, depth, rel_level,
                  judged_only, results_format, debug_level, collection_docs, zscores,
                  rel_format, ties) -> None:
    """Drop-in replacement for trec_eval 10.0: byte-identical output (--ties trec_eval9 for
    trec_eval 9's rankings)."""
    from unjudged.cli._fast import trec_eval

    trec_eval(qrels, run, per_query, complete, nosummary, measures, depth, rel_level,
              judged_only, zscores, rel_format, ties, collection_docs)
