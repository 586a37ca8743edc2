"""Commands on sampled judgments: infer (inferred measures with confidence intervals)."""

from __future__ import annotations

import click

from unjudged.cli._base import (SEED, lean_arrow, main, noting_missing_topics, policy_options,
                                progress, write_output)

#: what `infer` reports without -m: the estimators of seed 002, as sample_eval prints them
DEFAULT_MEASURES = ("infAP", "xinfAP", "infNDCG", "iP@10", "iNumRelRet", "iNumRel")


def _level(ctx, param, value):
    if value is not None and not 0.0 < value < 1.0:
        raise click.BadParameter(f"{value} is not strictly between 0 and 1")
    return value


@main.command("infer")
@click.argument("qrels")
@click.argument("runs", nargs=-1, required=True)
@click.option("-m", "--measure", "measures", multiple=True,
              help="Measure, e.g. infAP, xinfAP, infNDCG@10, iP@10, 'iIPrec(recall=0.5)', "
              "iNumRel; any other measure too. Repeatable. Default: "
              + ", ".join(DEFAULT_MEASURES) + ".")
@click.option("--ci", "level", type=float, default=None, callback=_level, metavar="LEVEL",
              help="Add lo/hi columns: normal confidence intervals at this level, e.g. 0.95 "
              "(see docs/sampled-judgments.md).")
@click.option("--ci-method", "method", type=click.Choice(["auto", "bootstrap"]), default="auto",
              show_default=True, help="auto: the variance formulas (calibrated; iIPrec is "
              "bootstrapped); bootstrap: a stratified bootstrap for every inferred measure but "
              "infAP.")
@click.option("-b", "--iterations", "b", type=click.IntRange(2), default=1000, show_default=True,
              help="Bootstrap replicates for the intervals.")
@SEED
@click.option("-q", "--per-topic", is_flag=True, help="Also print per-topic values.")
@policy_options
@click.option("-J", "--judged-only", is_flag=True,
              help="Drop unjudged documents before measuring (condensed lists).")
@click.option("-f", "--format", "fmt", type=click.Choice(["table", "tsv", "csv", "jsonl"]),
              default="table", show_default=True)
@click.option("-o", "--output", default=None, help="Write to this file instead of stdout.")
def infer_cmd(qrels, runs, measures, level, method, b, seed, per_topic, complete, rel_level,
              depth, ties, negative, judged_only, fmt, output) -> None:
    """Inferred measures of RUNS from sampled judgments QRELS: sample_eval's 5-column
    `topic iter docno stratum grade` (-1 = not sampled) or trec_eval's 4 columns (one
    stratum; -1 = pooled, unjudged). Topic 'all' is the mean over topics (iNumRel and
    iNumRelRet: the sum)."""
    lean_arrow()
    from unjudged.inference import infer_runs
    from unjudged.io.runs import iter_runs
    from unjudged.io.sampled import read_sampled_qrels
    from unjudged.measures import parse_measures
    from unjudged.policies import Policies
    from unjudged.report.rows import render_rows

    ms = parse_measures(list(measures or DEFAULT_MEASURES))
    pol = Policies(ties=ties, negative=negative, complete=complete, rel_level=rel_level,
                   depth=depth, judged_only=judged_only)
    q = read_sampled_qrels(qrels)
    stream = noting_missing_topics(iter_runs(runs, ties=ties, qrels=q), q)
    rows = [row for inf in infer_runs(progress(stream, "inferring"), q, ms, level=level, b=b,
                                      seed=seed, policies=pol, method=method)
            for row in inf.rows(per_topic)]
    columns = ["run", "topic", "measure", "value"] + (["lo", "hi"] if level is not None else [])
    write_output(render_rows(rows, columns, fmt, lead=3), output)
