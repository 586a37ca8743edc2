"""`unjudged report`: one self-contained HTML page showing how far a set of runs can be trusted."""

from __future__ import annotations

import os
import sys
import time

import click

from unjudged.cli._base import (
    MEASURES,
    SEED,
    B,
    executor_from_options,
    executor_options,
    lean_arrow,
    main,
    policy_options,
    write_output,
)
from unjudged.cli._judging import check_judge_options, judge_estimate_options
from unjudged.cli._runs import POOL_RUNS, baseline_name, run_options, runs_and_pool
from unjudged.policies import NameMode


@main.command("report")
@click.argument("qrels")
@click.argument("runs", nargs=-1, required=True)
@MEASURES
@click.option("-o", "--output", required=True, help="The HTML file to write.")
@click.option("--png", "png_dir", default=None, metavar="DIR",
              help="Also write every figure as a PNG file into DIR.")
@click.option("--tables", "tables_dir", default=None, metavar="DIR",
              help="Also write every table as TSV and JSON lines into DIR.")
@click.option("--baseline", default=None, metavar="RUN",
              help="Compare every run with this one (run name or file) instead of each run "
              "with the next one down the leaderboard.")
@click.option("--topic-panels", type=click.IntRange(0), default=3, show_default=True,
              help="Per-topic bootstrap panels for this many of the best runs (by the first "
              "measure); each is a large figure, so the default keeps the page small.")
@click.option("--top-topics", type=click.IntRange(1), default=10, show_default=True,
              help="Topics listed in the table of the most unjudged documents.")
@B
@SEED
@policy_options
@run_options
@executor_options
@POOL_RUNS
@judge_estimate_options
def report_cmd(qrels, runs, measures, output, png_dir, tables_dir, baseline, topic_panels,
               top_topics, b, seed, complete, rel_level, depth, ties, negative, names, strict,
               jobs, dask, pool_runs, judges, audit, audit_qrels, design) -> None:
    """Write one self-contained HTML report on RUNS against QRELS: leaderboard with bounds
    and bootstrap intervals, pairwise tests, per-topic uncertainty, judgment statistics and
    coverage, and a reproducibility footer. With --judge (and --audit): a section on the
    automatic judges (prediction-powered estimates, rank intervals, judge lift, agreement)."""
    check_judge_options(judges, audit, audit_qrels, design)
    lean_arrow()
    from unjudged.policies import Policies

    pol = Policies(ties=ties, negative=negative, complete=complete, rel_level=rel_level,
                   depth=depth)
    command = " ".join(["unjudged"] + [_quote(a) for a in sys.argv[1:]])
    with executor_from_options(jobs, dask) as ex:
        path = write_report(qrels, list(runs), list(measures), output, b=b, seed=seed,
                            baseline=baseline, topic_panels=topic_panels,
                            top_topics=top_topics, policies=pol, executor=ex,
                            png_dir=png_dir, tables_dir=tables_dir, command=command,
                            names=names, strict=strict, pool_runs=list(pool_runs),
                            judge={"judges": list(judges), "audit": audit,
                                   "audit_qrels": audit_qrels, "design": design}
                            if judges else None)
    click.echo(f"unjudged: wrote {path}", err=True)


def _quote(arg: str) -> str:
    import shlex

    return shlex.quote(arg)


def write_report(qrels: str, runs: list[str], measures: list[str], output: str, *,
                 b: int = 10_000, seed: int = 0, baseline: str | None = None,
                 topic_panels: int = 3, top_topics: int = 10, policies=None, executor=None,
                 png_dir: str | None = None, tables_dir: str | None = None,
                 command: str = "", names: NameMode = "tag", strict: bool = False,
                 pool_runs: list[str] | None = None,
                 judge: dict | None = None) -> str:
    """Read the inputs, compute and write the report to `output` (atomically, after all else
    succeeded); the PNG and table folders are written only then too. Returns `output`."""
    from unjudged import __version__
    from unjudged.analysis.report_data import build_report, said_notes
    from unjudged.io import read_qrels
    from unjudged.parallel import progress_bar
    from unjudged.policies import Policies
    from unjudged.report.html import render_report

    start = time.perf_counter()
    from unjudged.io.atomic import check_targets

    check_targets([output], folders=[png_dir, tables_dir])  # before any work or writing
    pol = policies or Policies()
    # the notes said while reading (and by the judges) go into the page with the bootstrap's
    with said_notes() as read_notes:
        q = read_qrels(qrels)
        stream, pool = runs_and_pool(runs, pool_runs, q, policies=pol, names=names,
                                     strict=strict)
        loaded = list(stream)
        if baseline is not None:
            baseline = baseline_name(loaded, baseline)
        # the judges first: their inputs are refused before the bootstrap's work
        judges = _judge_section(loaded, q, measures, judge, b, seed) if judge else None
    # only regular files are hashed: stdin and pipes cannot be read a second time
    inputs = [p for p in [qrels] + [r.source for r in loaded] if os.path.isfile(p)]
    data = build_report(loaded, q, measures, b=b, seed=seed, baseline=baseline,
                        topic_panels=topic_panels, top_topics=top_topics, policies=pol,
                        executor=executor, inputs=inputs, pool_runs=pool, notes=read_notes)
    meta = {"command": command, "version": __version__, "seed": seed, "b": b,
            "inputs": data.inputs}
    figures = len(data.measures) + 2 + (len(data.panels.runs) if data.panels else 0)
    with progress_bar(figures, "figures") as bar:
        page = render_report(data, meta, progress=bar, judges=judges)
    # The footer's time covers everything but writing; render again only the cheap footer.
    from unjudged.report.html.page import footer_html

    meta["elapsed"] = time.perf_counter() - start
    text = page.html.replace(footer_html({**meta, "elapsed": None}), footer_html(meta))
    write_output(text, output)
    if png_dir:
        page.write_pngs(png_dir)
    if tables_dir:
        page.write_tables(tables_dir)
    return output


def _judge_section(runs, qrels, measures, judge: dict, b: int, seed: int) -> dict:
    """The tables of the report's judge section and its one-line note."""
    from unjudged.judges.options import judge_tables

    tables = judge_tables(runs, qrels, judge["judges"], measures or ["nDCG@10"],
                          audit=judge["audit"], audit_qrels=judge["audit_qrels"],
                          design=judge["design"], level=0.9, b=b, seed=seed)
    names = ", ".join(judge["judges"])
    if judge["audit"]:
        note = (f"Judge {names}, corrected by the human audit sample {judge['audit']}: "
                "prediction-powered estimates (PPI++) of each run's mean with their 90% "
                "intervals, which cover the judge's errors, and the 90% interval of each run's "
                f"rank over {b} coupled normal draws of the runs' means. Judge lift: the "
                "judge's score minus the estimate; highlighted where its interval excludes 0, "
                "a run that looks better (or worse) only to the judge. Human qrels stay the "
                "truth wherever they exist (docs/judges.md).")
    else:
        note = (f"Judge {names} WITHOUT an audit sample: the scores are the judge's, and its "
                "errors are not covered (the intervals are points). Draw an audit with "
                "`unjudged plan QRELS RUNS --audit N --judge FILE`, have it judged and pass it "
                "with --audit.")
    return {"tables": tables, "note": note}
