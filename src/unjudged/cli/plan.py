"""`unjudged plan` (which documents to judge next) and `unjudged experiment planning` (how fast
each planning strategy makes the ranking trustworthy on a collection with a fuller truth)."""

from __future__ import annotations

import click

from unjudged.cli._base import (
    OUTPUT,
    PLOT_SUFFIXES,
    SEED,
    TABLE_FORMAT,
    check_suffix,
    executor_from_options,
    executor_options,
    lean_arrow,
    main,
    say,
    ties_option,
    write_output,
)
from unjudged.cli._checks import measure_names, refuse_given
from unjudged.cli._judging import JUDGE_OPTION
from unjudged.cli._runs import cli_runs, run_options
from unjudged.cli.experiment import experiment_group

_STRATEGIES = ("depth", "rbp", "mtf", "maxmean", "mtc", "uncertainty")  # planning.STRATEGIES
_OBJECTIVES = ("ranking", "pair", "intervals")


def _plan_options(fn):
    """What `plan` and `experiment planning` share: what the plan is for and how it draws."""
    for option in reversed([
        click.option("-m", "--measure", "measures", multiple=True, default=("nDCG@10",),
                     callback=measure_names,
                     show_default=True, help="Measure the plan is for (repeatable)."),
        click.option("--objective", type=click.Choice(_OBJECTIVES), default=None,
                     help="What judging should make trustworthy: the ranking of all runs "
                     "(default), one pair (--pair), or the runs' intervals."),
        click.option("--pair", nargs=2, default=None, metavar="RUN_A RUN_B",
                     help="The two runs of the pair objective (by name)."),
        click.option("-b", "--iterations", "b", type=click.IntRange(2), default=1000,
                     show_default=True, help="Bootstrap iterations of the uncertainty "
                     "planner."),
        SEED,
        click.option("--prior", default="position", show_default=True,
                     metavar="position|pool|estimates:FILE",
                     help="How likely an unjudged document is of each grade (as in `unjudged "
                     "estimate`; estimates:FILE blends estimates made elsewhere with the "
                     "topic's, by a trust fitted on the judged documents)."),
        click.option("--plan-depth", type=click.IntRange(1), default=None,
                     help="Ranks considered for measures without a cutoff (AP, bpref) [default: "
                     "100]."),
        ties_option(),
    ]):
        fn = option(fn)
    return fn


def _settings(strategy, objective, pair, b, seed, prior, plan_depth, ties):
    from unjudged.planning import PlanSettings
    from unjudged.policies import Policies

    if pair and objective not in (None, "pair"):
        raise click.BadParameter(f"--pair goes with --objective pair, not {objective}",
                                 param_hint="--pair")
    if objective == "pair" and not pair:
        raise click.BadParameter("--objective pair needs --pair RUN_A RUN_B",
                                 param_hint="--objective")
    obj = "pair" if pair else (objective or "ranking")
    return PlanSettings(strategy, obj, tuple(pair) if pair else None, b, seed, prior,
                        plan_depth, Policies(ties=ties))


#: plan's options that shape a plan, which drawing an audit sample ignores
_PLAN_ONLY = ("strategy", "measures", "objective", "pair", "b", "prior", "plan_depth",
              "candidates_path", "jobs", "dask", "summary_fmt", "details_path")


@main.command("plan")
@click.argument("qrels")
@click.argument("runs", nargs=-1, required=True)
@click.option("--budget", type=click.IntRange(1), default=None,
              help="Number of documents to judge (required but with --audit).")
@click.option("--strategy", type=click.Choice(_STRATEGIES), default="uncertainty",
              show_default=True, help="How to choose (docs/planning.md).")
@_plan_options
@click.option("--candidates", "candidates_path", default=None,
              help="Choose only among these (topic, document) pairs: a qrels-like file, "
              "labels ignored.")
@run_options
@executor_options
@click.option("-o", "--output", default=None,
              help="Write the documents to judge here, `topic 0 docno -1` in priority order "
              "(stdout otherwise).")
@click.option("--summary", "summary_fmt", type=click.Choice(["table", "tsv", "csv", "jsonl"]),
              default="table", show_default=True,
              help="Format of the per-topic summary (on stdout with -o, else on stderr).")
@click.option("--details", "details_path", default=None,
              help="Also write every chosen document with its best rank, runs, probability "
              "of relevance and the strategy's score (.csv, .tsv, .jsonl or .parquet).")
@click.option("--audit", "audit_n", type=click.FloatRange(0, min_open=True), default=None,
              metavar="N", help="Instead of a plan: draw about N documents only --judge "
              "labelled for people to judge, an audit sample with known inclusion "
              "probabilities (`topic docno pi` lines, for `estimate --judge --audit`).")
@JUDGE_OPTION
@click.option("--audit-design", type=click.Choice(["weighted", "uniform"]), default="weighted",
              show_default=True, help="With --audit: weighted draws more where the judge is "
              "unsure and where documents weigh most in the runs' measures (every document "
              "keeps pi > 0); uniform gives each pi = N / (documents only the judge labelled).")
@click.option("--design-out", default=None, metavar="FILE",
              help="With --audit: also write every document that could be drawn with its pi "
              "(for `estimate --design`).")
def plan_cmd(qrels, runs, budget, strategy, measures, objective, pair, b, seed, prior,
             plan_depth, ties, candidates_path, names, strict, jobs, dask, output, summary_fmt,
             details_path, audit_n, judges, audit_design, design_out) -> None:
    """The BUDGET documents to judge next so that the evaluation of RUNS on QRELS becomes
    trustworthy fastest, in priority order, among the documents the runs retrieve that QRELS
    do not judge. Same seed, same plan, on any executor. With --audit N --judge FILE: the
    audit sample of an automatic judge instead (docs/judges.md)."""
    if audit_n is not None or judges:
        refuse_given(_PLAN_ONLY, "to drawing an audit sample (--audit N --judge FILE)")
        return _audit_plan(qrels, runs, audit_n, judges, audit_design, design_out, budget,
                           seed, ties, names, strict, output)
    refuse_given(("audit_design", "design_out"), "without --audit N --judge FILE")
    from unjudged.planning import STRATEGIES

    if not STRATEGIES[strategy].bootstrap:
        refuse_given(("b",), f"to --strategy {strategy} (the uncertainty planner's bootstrap)")
    if budget is None:
        raise click.UsageError("Missing option '--budget' (or --audit N --judge FILE)")
    lean_arrow()
    from unjudged.io import read_qrels
    from unjudged.measures import parse_measures
    from unjudged.planning import plan
    from unjudged.policies import Policies
    from unjudged.report.planning import render_plan
    from unjudged.report.rows import TABLE_SUFFIXES

    check_suffix(details_path, TABLE_SUFFIXES, "--details")
    settings = _settings(strategy, objective, pair, b, seed, prior, plan_depth, ties)
    ms = parse_measures(list(measures))
    q = read_qrels(qrels)
    cands = read_qrels(candidates_path) if candidates_path else None
    loaded = list(cli_runs(runs, q, policies=Policies(ties=ties), names=names, strict=strict))
    with executor_from_options(jobs, dask) as ex:
        p = plan(loaded, q, budget, ms, settings, candidates=cands, executor=ex,
                 desc="plan: bootstrap")
    if p.open_before == 0:
        say("unjudged: note: no candidate: no document the runs retrieve is unjudged"
            + (" and among --candidates" if cands is not None else "") + "; the plan is empty")
    if p.given is not None and p.open_before < p.given:
        say(f"unjudged: note: --candidates: {p.given - p.open_before} of its {p.given} "
            "(topic, document) pairs are not open candidates (no run retrieves them"
            + (", or not --pair's runs" if pair else "") + ", or the qrels judge them)")
    if p.note is not None:  # about the pair: settled (an empty plan), or all but settled
        say(f"unjudged: note: {p.note}")
    if p.open_before and len(p) < budget and not (p.note is not None and not len(p)):
        say(f"unjudged: note: only {p.open_before} documents can be chosen; the plan holds "
            f"{len(p)}, not {budget}")
    head = (f"plan: {len(p)} documents by {strategy} ({settings.objective}"
            + (f" {pair[0]} vs {pair[1]}" if pair else "") + f"; "
            f"{', '.join(m.name for m in ms)}) for {len(loaded)} runs; "
            f"expected relevant under the {prior} prior")
    summary = render_plan(p.topic_rows(), summary_fmt, head)
    if details_path:
        from unjudged.report.rows import write_table

        write_table(p.rows(), details_path)
    if output is None or output == "-":
        write_output(p.lines(), None)
        click.echo(summary, err=True, nl=False)
    else:
        write_output(p.lines(), output)
        write_output(summary, None)


def _audit_plan(qrels, runs, n, judges, how, design_out, budget, seed, ties, names, strict,
                output) -> None:
    """plan --audit N --judge FILE: `unjudged judge audit`'s draw, QRELS' documents excluded."""
    if n is None or len(judges) != 1:
        raise click.UsageError("plan draws an audit sample with --audit N and one --judge FILE")
    if budget is not None:
        raise click.UsageError("--budget plans judgments; --audit draws an audit sample: one "
                               "or the other")
    lean_arrow()
    from unjudged.io import read_qrels
    from unjudged.judges.audit import draw_audit, format_audit
    from unjudged.policies import Policies

    q = read_qrels(qrels)
    loaded = list(cli_runs(runs, q, policies=Policies(ties=ties), names=names, strict=strict))
    sample = draw_audit(loaded, q, judges[0], n, design=how, seed=seed)
    assert sample.design is not None
    say(f"unjudged: audit: drew {len(sample)} of the {len(sample.design)} documents only "
        f"judge {judges[0]} labelled (expected {n:g}, {how} design, seed {seed}); have people "
        "judge them, merge their grades into the qrels (or keep them apart: --audit-qrels) "
        "and run `unjudged estimate QRELS RUNS --judge FILE --audit SAMPLE`")
    if not len(sample):
        say("unjudged: note: the audit sample is empty (Poisson sampling: its size is random "
            "with mean N); draw again with a larger N or another --seed")
    if design_out:
        write_output(format_audit(sample.design), design_out)
    write_output(format_audit(sample), output)


def _references(values: tuple[str, ...]) -> dict[str, str]:
    out: dict[str, str] = {}
    for v in values:
        name, sep, path = v.partition("=")
        if not sep or not name or not path:
            raise click.BadParameter(f"{v!r}: expected NAME=QRELS", param_hint="--reference")
        out[name] = path
    return out


def _budgets(value: str) -> list[int]:
    try:
        return [int(x) for x in value.split(",") if x.strip()]
    except ValueError:
        raise click.BadParameter(f"{value!r}: expected numbers such as 250,500,1000",
                                 param_hint="--budgets") from None


@experiment_group.command("planning")
@click.argument("qrels")
@click.argument("runs", nargs=-1, required=True)
@click.option("--truth", "truth_path", required=True,
              help="The fuller qrels that 'judge' what a strategy chooses (candidates are the "
              "documents they judge and QRELS do not).")
@click.option("--budgets", required=True,
              help="Cumulative judgments after each batch, e.g. 500,1000,2000,4000.")
@click.option("--strategies", default=",".join(_STRATEGIES), show_default=True,
              help="Comma-separated strategies to compare.")
@click.option("--trials", type=click.IntRange(1), default=1, show_default=True,
              help="Repeat with seeds SEED, SEED+1, ... (only bootstrap draws differ).")
@click.option("--evaluate", "eval_measures", default="nDCG@10,P@5,AP,bpref", show_default=True,
              help="Comma-separated measures whose rankings are compared with the truth's.")
@click.option("--reference", "references", multiple=True, metavar="NAME=QRELS",
              help="Judgments made otherwise (e.g. a deeper pool), added to QRELS and scored "
              "the same way; the summary says how many judgments each strategy needed to "
              "reach its tau. Repeatable.")
@click.option("--candidates-from", "candidates", type=click.Choice(("truth", "runs")),
              default="truth", show_default=True,
              help="Choose among the documents TRUTH judges, or among every document the runs "
              "retrieve, those TRUTH does not list being non-relevant (for qrels that list only "
              "relevant documents).")
@_plan_options
@run_options
@executor_options
@TABLE_FORMAT
@OUTPUT
@click.option("--plot", "plot_path", default=None,
              help="Draw tau against judgments per measure (FILE.png, .pdf, .svg).")
@click.option("--details", "details_path", default=None,
              help="Also write every trial's rows and every chosen document (FILE.csv/.tsv/"
              ".jsonl/.parquet; the documents go to FILE with '.documents' before the "
              "ending).")
def planning_cmd(qrels, runs, truth_path, budgets, strategies, trials, eval_measures,
                 references, candidates, measures, objective, pair, b, seed, prior, plan_depth,
                 ties, names, strict, jobs, dask, fmt, output, plot_path, details_path) -> None:
    """Simulate rounds of judging from QRELS: each strategy chooses documents among those
    TRUTH judges, TRUTH judges them, and after every batch the ranking of RUNS is compared with
    their ranking on TRUTH (Kendall's tau, tau_AP, RMSE, pairs the bootstrap settles rightly
    and wrongly, interval width; docs/planning.md)."""
    lean_arrow()
    from unjudged.experiments.planning import planning_experiment
    from unjudged.io import read_qrels
    from unjudged.measures import parse_measures
    from unjudged.policies import Policies
    from unjudged.report.planning import plot_planning, render_planning
    from unjudged.report.rows import TABLE_SUFFIXES

    check_suffix(details_path, TABLE_SUFFIXES, "--details")
    check_suffix(plot_path, PLOT_SUFFIXES, "--plot")
    chosen = [s.strip() for s in strategies.split(",") if s.strip()]
    bad = [s for s in chosen if s not in _STRATEGIES]
    if bad or not chosen:
        raise click.BadParameter(f"{', '.join(bad) or 'none'}: expected some of "
                                 f"{', '.join(_STRATEGIES)}", param_hint="--strategies")
    settings = _settings("depth", objective, pair, b, seed, prior, plan_depth, ties)
    evaluated = parse_measures([m for m in eval_measures.split(",") if m.strip()])
    planned = parse_measures(list(measures))
    refs = {n: read_qrels(p) for n, p in _references(references).items()}
    start = read_qrels(qrels)
    truth = read_qrels(truth_path)
    loaded = list(cli_runs(runs, start, policies=Policies(ties=ties), names=names,
                           strict=strict))
    with executor_from_options(jobs, dask) as ex:
        sweep = planning_experiment(loaded, start, truth, _budgets(budgets), chosen, evaluated,
                                    planned, settings=settings, trials=trials, b=b,
                                    references=refs, executor=ex, desc="planning",
                                    details=bool(details_path), candidates=candidates)
    curves = sweep.mean_rows()
    head = (f"planning: {len(sweep.runs)} runs x {len(sweep.topics)} topics, "
            f"{sweep.candidates} candidates ("
            + (f"judged by {truth_path}, " if candidates == "truth" else "retrieved, ")
            + f"not judged by {qrels}); planned "
            f"for {', '.join(m.name for m in planned)} ({settings.objective}), b = {b}, seed "
            f"{seed}, {trials} trial(s)")
    text = render_planning(curves, sweep.references, sweep.needed(), fmt, head)
    if details_path:
        import os

        from unjudged.report.rows import write_table

        stem, ending = os.path.splitext(details_path)
        write_table(sweep.rows, details_path)
        write_table(sweep.details, f"{stem}.documents{ending}")
    if plot_path:
        click.echo(f"unjudged: wrote {plot_planning(curves, sweep.references, plot_path)}",
                   err=True)
    click.echo(f"unjudged: {len(chosen)} strategies x {len(sweep.budgets)} batches x {trials} "
               f"trial(s) in {sweep.seconds:.1f} s", err=True)
    write_output(text, output)
