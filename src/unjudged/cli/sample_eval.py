"""`unjudged sample_eval`: a drop-in for sample_eval.pl (NIST's TREC copy or the TRECVID copy)."""

from __future__ import annotations

import click

from unjudged.cli._base import main, write_output


def _cutoffs(ctx, param, value):
    if value is None:
        return None
    try:
        cuts = tuple(int(v) for v in value.split(","))
    except ValueError:
        raise click.BadParameter(f"{value!r} is not a comma-separated list of ranks") from None
    if not cuts or min(cuts) < 1:
        raise click.BadParameter(f"{value!r}: ranks must be positive")
    return cuts


@main.command("sample_eval")
@click.argument("qrels")
@click.argument("run")
@click.option("-q", "per_topic", is_flag=True, help="Print per-topic values too.")
@click.option("--lineage", type=click.Choice(["trec", "trecvid"]), default="trec",
              show_default=True, help="trec: NIST's TREC copy (change log to 10 Oct 2011); "
              "trecvid: the TRECVID copy (to 5 Sep 2012).")
@click.option("--max-result-size", type=click.IntRange(1), default=1000, show_default=True,
              help="Documents read per topic (the TRECVID copy's third argument; the TREC "
              "copy fixes 1000).")
@click.option("--cutoffs", callback=_cutoffs, default=None, metavar="RANKS",
              help="iP cut-offs, e.g. 10,15,50,100 (default: the copy's: trec 10,50,M; "
              "trecvid 10,100,1000,M with M the max result size).")
@click.option("-o", "--output", default=None, help="Write to this file instead of stdout.")
def sample_eval_cmd(qrels, run, per_topic, lineage, max_result_size, cutoffs, output) -> None:
    """Inferred measures of RUN on the sampled QRELS (`topic iter docno stratum grade`,
    grade -1 = not sampled), printed as sample_eval.pl prints them, byte for byte."""
    from unjudged.sample_eval import run_sample_eval

    write_output(run_sample_eval(qrels, run, lineage=lineage, per_topic=per_topic,
                                 max_result_size=max_result_size, cutoffs=cutoffs), output)
