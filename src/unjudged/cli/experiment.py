"""Experiments on collections: `unjudged experiment leave-one-group-out`."""

from __future__ import annotations

import click

from unjudged.cli._base import (
    MEASURES,
    OUTPUT,
    PLOT_SUFFIXES,
    POINT,
    SEED,
    TABLE_FORMAT,
    B,
    check_suffix,
    executor_from_options,
    executor_options,
    lean_arrow,
    main,
    ties_option,
    write_output,
)
from unjudged.cli._checks import refuse_given
from unjudged.cli._runs import cli_runs, run_options
from unjudged.cli._strategies import all_comparable
from unjudged.policies import NEGATIVES


@main.group("experiment")
def experiment_group() -> None:
    """Replay the papers' experiments on a collection."""


@experiment_group.command("leave-one-group-out")
@click.argument("qrels")
@click.argument("runs", nargs=-1, required=True)
@click.option("--groups", "groups_path", required=True,
              help="Which group submitted each run: `run group` lines or a CSV with run and "
              "group/team columns (and, optionally, which runs contributed: a `contributed "
              "judgments` column of yes/no).")
@click.option("-k", "--depth", type=click.IntRange(1), required=True,
              help="Depth of the pool the groups contributed to.")
@MEASURES
@click.option("--strategies", default=all_comparable,
              help="Comma-separated strategies for unjudged documents (a random one as "
              f"NAME:PRIOR).  [default: {all_comparable()}]")
@click.option("--top-fraction", type=click.FloatRange(0, 1, min_open=True), default=0.75,
              show_default=True, help="Score only this fraction of the runs, the best by the "
              "first measure on the full qrels (seed 000 keeps 75%).")
@B
@SEED
@POINT
@ties_option()
@click.option("--negative", type=click.Choice(NEGATIVES), default="unjudged", show_default=True,
              help="Meaning of negative grades in the qrels.")
@run_options
@executor_options
@TABLE_FORMAT
@OUTPUT
@click.option("--details", "details_path", default=None,
              help="Also write every (run, topic, measure, strategy) estimate with its truth "
              "to FILE (.csv, .tsv, .jsonl or .parquet).")
@click.option("--plot", "plot_path", default=None,
              help="Draw each strategy's estimates against the truth (FILE.png, .pdf, .svg; "
              "first measure).")
def logo_cmd(qrels, runs, groups_path, depth, measures, strategies, top_fraction, b, seed,
             point, ties, negative, names, strict, jobs, dask, fmt, output, details_path,
             plot_path) -> None:
    """For each group, remove the judgments only its runs brought into the depth-K pool of
    RUNS, score its runs on the reduced QRELS with each strategy and compare with their scores
    on the full QRELS (seed 000, Tables 4-6). RUNS should be the runs that contributed to the
    pool: others are noted (refused with --strict), as the groups file's contributing column
    or, without one, the QRELS show (a contributing run's top K documents are all judged)."""
    lean_arrow()
    from unjudged.errors import InvalidOptionError
    from unjudged.experiments.accuracy import prediction_table, preference_table
    from unjudged.experiments.logo import check_strategies, leave_one_group_out
    from unjudged.experiments.logo_summary import logo_counts, logo_panels
    from unjudged.io import read_qrels
    from unjudged.io.groups import read_contributors, read_groups
    from unjudged.measures import parse_measures
    from unjudged.report.experiment import render_logo

    try:
        chosen = check_strategies([s.strip() for s in strategies.split(",") if s.strip()])
    except InvalidOptionError as exc:
        raise click.BadParameter(str(exc), param_hint="--strategies") from None
    from unjudged.strategies.registry import STRATEGIES

    if not any(STRATEGIES[s.partition(":")[0]].random for s in chosen):
        refuse_given(("b", "seed", "point"), f"to --strategies {','.join(chosen)}, which draw "
                     "nothing")
    from unjudged.report.rows import TABLE_SUFFIXES

    check_suffix(details_path, TABLE_SUFFIXES, "--details")
    check_suffix(plot_path, PLOT_SUFFIXES, "--plot")
    ms = parse_measures(list(measures))
    groups = read_groups(groups_path)
    contributors = read_contributors(groups_path)
    q = read_qrels(qrels)
    from unjudged.policies import Policies

    policies = Policies(ties=ties, negative=negative)
    loaded = list(cli_runs(runs, q, policies=policies, names=names, strict=strict))
    with executor_from_options(jobs, dask) as ex:
        sweep = leave_one_group_out(loaded, q, groups, depth, ms, strategies=chosen,
                                    top_fraction=top_fraction, b=b, seed=seed, point=point,
                                    policies=policies, executor=ex, groups_source=groups_path,
                                    contributors=contributors, strict=strict)
    tables = {m.name: (prediction_table(sweep, i), preference_table(sweep, i))
              for i, m in enumerate(ms)}
    text = render_logo(sweep, tables, fmt, counts=logo_counts(sweep))
    if details_path:
        _write_details(sweep, details_path)
    if plot_path:
        from unjudged.report.plots import plot_logo

        click.echo(f"unjudged: wrote {plot_logo(logo_panels(sweep), plot_path)}", err=True)
    click.echo(f"unjudged: {len(sweep.runs)} runs x {len(sweep.topics)} topics x "
               f"{len(chosen)} strategies in {sweep.seconds:.1f} s", err=True)
    write_output(text, output)


def _write_details(sweep, path: str) -> None:
    from unjudged.experiments.logo import sweep_details
    from unjudged.report.rows import write_table

    write_table(sweep_details(sweep), path)


@experiment_group.command("calibration")
@click.argument("pool_qrels")
@click.argument("truth_qrels")
@click.argument("runs", nargs=-1, required=True)
@MEASURES
@click.option("--methods", "methods", multiple=True,
              help="A method to compare: 'default' (what `unjudged estimate` does), a prior's "
              "name (pool, run, pool+run, position), 'estimates:FILE', 'expected' (the "
              "expected strategy's normal intervals instead of the bootstrap's) or "
              "[LABEL:]key=value,... of estimate settings (e.g. "
              "'seed:prior=pool+run,spread=0,shared_spread=0', 'e:methods=expected,prior=pool')"
              ". Repeatable.")
@click.option("--priors", default=None,
              help="Comma-separated priors, one method each (with --methods: added to them). "
              "[default when neither is given: the method 'default']")
@click.option("--levels", default="0.8,0.9,0.95", show_default=True,
              help="Comma-separated nominal levels of the equal-tailed intervals.")
@click.option("-b", "--iterations", "b", type=click.IntRange(1), default=1000,
              show_default=True, help="Bootstrap iterations per method.")
@SEED
@click.option("--only-complete/--all-pairs", "only_complete", default=True, show_default=True,
              help="Evaluate only (run, topic) pairs the truth qrels judge fully down to each "
              "measure's depth, or every pair (documents the truth lacks non-relevant).")
@ties_option()
@run_options
@executor_options
@TABLE_FORMAT
@OUTPUT
@click.option("--plot", "plot_path", default=None,
              help="Draw coverage against nominal level per method (FILE.png, .pdf, .svg).")
def calibration_cmd(pool_qrels, truth_qrels, runs, measures, methods, priors, levels, b, seed,
                    only_complete, ties, names, strict, jobs, dask, fmt, output,
                    plot_path) -> None:
    """Estimate RUNS on POOL_QRELS with each method and check against TRUTH_QRELS: coverage
    and mean width of the bootstrap's nominal intervals per (run, topic) with unjudged
    documents and per run mean, RMSE of the point estimates, and the width of [nonrel,
    upper] beside them (docs/calibration.md)."""
    lean_arrow()
    from pathlib import Path

    from unjudged.errors import InvalidOptionError
    from unjudged.experiments.calibration import (
        calibrate,
        columns,
        coverage_curves,
        parse_method,
        summary_rows,
    )
    from unjudged.io import read_qrels
    from unjudged.measures import parse_measures
    from unjudged.policies import Policies
    from unjudged.report.calibration import render_calibration

    # bad options are one line (exit 2), like every other input error
    chosen = [parse_method(m) for m in methods]
    chosen += [parse_method(p) for p in (priors or "").split(",") if p.strip()]
    if not chosen:
        chosen = [parse_method("default")]
    try:
        levels_ = [float(x) for x in levels.split(",") if x.strip()]
    except ValueError:
        raise InvalidOptionError(f"--levels: {levels!r} is not a list of numbers") from None
    if not levels_ or any(not 0 < c < 1 for c in levels_):
        raise InvalidOptionError(f"--levels: {levels!r}: levels must lie strictly between 0 "
                                 "and 1")
    check_suffix(plot_path, PLOT_SUFFIXES, "--plot")
    ms = parse_measures(list(measures))
    policies = Policies(ties=ties)
    pool = read_qrels(pool_qrels)
    truth = read_qrels(truth_qrels)
    loaded = list(cli_runs(runs, pool, policies=policies, names=names, strict=strict))
    with executor_from_options(jobs, dask) as ex:
        cal = calibrate(loaded, pool, truth, ms, chosen, levels=levels_, b=b, seed=seed,
                        policies=policies, executor=ex, collection=Path(pool_qrels).name)
    mode = "complete" if only_complete else "all"
    rows = summary_rows(cal, mode)
    kept = "pairs it judges fully" if only_complete else "every pair"
    head = (f"calibration: {len(cal.runs)} runs x {len(cal.topics)} topics, b = {b}, seed "
            f"{seed}; truth: {truth_qrels} ({kept})\n")
    text = render_calibration(rows, columns(levels_), levels_, fmt, head)
    if plot_path:
        from unjudged.report.calibration import plot_calibration

        plot_calibration(coverage_curves(rows, levels_), levels_, plot_path)
        click.echo(f"unjudged: wrote {plot_path}", err=True)
    click.echo(f"unjudged: {len(cal.runs)} runs x {len(chosen)} methods in {cal.seconds:.1f} s",
               err=True)
    write_output(text, output)
