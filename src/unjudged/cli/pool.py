"""Commands about pools: which documents to judge, and how well runs are judged."""

from __future__ import annotations

import click

from unjudged.cli._base import (
    PLOT_SUFFIXES,
    check_suffix,
    lean_arrow,
    main,
    ties_option,
    write_output,
)
from unjudged.cli._checks import below_2_63
from unjudged.cli._runs import cli_runs, run_options
from unjudged.policies import Policies

_TIES = ties_option(
    "file", help="Order of each topic's documents. NIST pools the first lines of each topic as "
    "they stand in the submitted file (file); trec_eval re-sorts by score.")


@main.command("pool")
@click.argument("runs", nargs=-1, required=True)
@click.option("-k", "--depth", type=click.IntRange(1), required=True, callback=below_2_63,
              help="Deepest rank pooled.")
@click.option("--from-rank", type=click.IntRange(1), default=1, show_default=True,
              help="Shallowest rank pooled (8 with --depth 14 pools ranks 8-14).")
@click.option("--exclude", "exclude_path", default=None,
              help="Qrels whose judged documents stay out of the pool.")
@click.option("--groups", "groups_path", default=None,
              help="Which group submitted each run: `run group` lines or a CSV with run and "
              "group/team columns.")
@click.option("--runs-per-group", type=click.IntRange(1), default=None,
              help="Pool only each group's first N runs (in the order of --groups).")
@_TIES
@run_options
@click.option("-o", "--output", default=None, help="Write the pool here (stdout otherwise).")
@click.option("--format", "fmt", type=click.Choice(["qrels", "pairs", "tsv"]), default="qrels",
              show_default=True, help="qrels: `topic 0 docno -1` (trec_eval's pooled but "
              "unjudged); pairs: `topic docno`; tsv: with best rank, runs and groups.")
@click.option("--summary", "summary_fmt", type=click.Choice(["table", "tsv", "csv", "jsonl"]),
              default="table", show_default=True,
              help="Format of the per-topic sizes and per-run contributions (on stdout with "
              "-o, else on stderr).")
def pool_cmd(runs, depth, from_rank, exclude_path, groups_path, runs_per_group, ties, names,
             strict, output, fmt, summary_fmt) -> None:
    """The documents assessors must judge: the depth-K pool of RUNS (or ranks J..K, leaving
    out what QRELS already judge), with pool sizes and each run's unique contribution."""
    lean_arrow()
    from unjudged.io import read_qrels
    from unjudged.io.groups import read_groups
    from unjudged.judgments.pools import build_pool, pool_lines
    from unjudged.report.pools import pool_summary

    if from_rank > depth:
        raise click.BadParameter(f"{from_rank} is deeper than --depth {depth}",
                                 param_hint="--from-rank")
    if runs_per_group and not groups_path:
        raise click.BadParameter("needs --groups", param_hint="--runs-per-group")
    exclude = read_qrels(exclude_path) if exclude_path else None
    groups = read_groups(groups_path) if groups_path else None
    loaded = cli_runs(runs, policies=Policies(ties=ties), names=names, strict=strict)
    pool = build_pool(loaded, depth, from_rank=from_rank, exclude=exclude, groups=groups,
                      runs_per_group=runs_per_group,
                      groups_source=groups_path or "groups")
    text = pool_lines(pool, fmt)
    summary = pool_summary(pool, summary_fmt)
    if output is None or output == "-":
        write_output(text, None)
        click.echo(summary, err=True, nl=False)
    else:
        write_output(text, output)
        write_output(summary, None)


def _bands(ctx, param, value: str):
    bad = click.BadParameter(f"{value!r}: expected rank bands such as 1-5,6-10,11-20")
    out = []
    for part in value.split(","):
        a, _, b = part.strip().partition("-")
        try:
            out.append((int(a), int(b or a)))
        except ValueError:  # not whole numbers
            raise bad from None
    if any(a < 1 or b < a for a, b in out):
        raise bad
    return out


@main.command("coverage")
@click.argument("qrels")
@click.argument("runs", nargs=-1, required=True)
@click.option("--bands", default="1-5,6-10,11-20,21-50,51-100", show_default=True,
              callback=_bands, help="Rank bands to report the judged fraction of.")
@click.option("--pool-depth", type=click.IntRange(1), default=None,
              help="A run judged to this depth on every topic looks pooled (default: the end "
              "of the first band; 7 for TREC-COVID round 1).")
@click.option("--unjudged-out", default=None,
              help="Write the unjudged documents of every run's top ranks (down to the deepest "
              "band) to FILE as a pool (`topic 0 docno -1`).")
@click.option("--plot", "plot_path", default=None, help="Draw the judged fraction by rank "
              "(FILE.png, .pdf or .svg).")
@ties_option()
@run_options
@click.option("-f", "--format", "fmt", type=click.Choice(["table", "tsv", "csv", "jsonl"]),
              default="table", show_default=True)
@click.option("-o", "--output", default=None, help="Write to this file instead of stdout.")
def coverage_cmd(qrels, runs, bands, pool_depth, unjudged_out, plot_path, ties, names, strict,
                 fmt, output) -> None:
    """How much of each run QRELS judge: the judged fraction per rank band, the depth to which
    every topic is judged, which runs look pooled, and the unjudged documents each would add."""
    lean_arrow()
    from unjudged.io import read_qrels
    from unjudged.judgments.coverage import coverage
    from unjudged.judgments.pools import pool_lines
    from unjudged.report.pools import coverage_table

    check_suffix(plot_path, PLOT_SUFFIXES, "--plot")
    q = read_qrels(qrels)
    loaded = cli_runs(runs, q, policies=Policies(ties=ties), names=names, strict=strict)
    cov = coverage(list(loaded), q, bands)
    depth = pool_depth or bands[0][1]
    text = coverage_table(cov, fmt, depth)
    if unjudged_out:
        write_output(pool_lines(cov.pool, "qrels"), unjudged_out)
    if plot_path:
        from unjudged.report.plots import plot_coverage

        click.echo(f"unjudged: wrote {plot_coverage(cov, plot_path, depth)}", err=True)
    write_output(text, output)
