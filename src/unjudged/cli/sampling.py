"""Commands on sampled judgments: infer (inferred measures with confidence intervals), sample
(draw sampled judgments by a design) and `experiment sampling` (seed 002's experiment)."""

from __future__ import annotations

import click

from unjudged.cli._base import (
    SEED,
    executor_from_options,
    executor_options,
    lean_arrow,
    main,
    policy_options,
    progress,
    ties_option,
    write_output,
)
from unjudged.cli._checks import measure_names, refuse_given
from unjudged.cli._runs import cli_runs, run_options
from unjudged.cli.experiment import experiment_group

#: what `infer` reports without -m: the estimators of seed 002, as sample_eval prints them
DEFAULT_MEASURES = ("infAP", "xinfAP", "infNDCG", "iP@10", "iNumRelRet", "iNumRel")

#: what `infer --prels` reports without -m
PRELS_MEASURES = ("statAP", "statNDCG@10", "statNDCG")

_LEVELS = tuple(f"iIPrec(recall={x / 10})" for x in range(11))
#: --compat: what each sample_eval.pl copy prints, as the project's measures (its policies:
#: -M 1000 and the "sample_eval" tie order). infAP is xinfAP (the 2012 copy rescales by R/1000);
#: the ideal DCG rounds counts (TREC copy) or keeps them fractional (TRECVID copy), and both
#: copies let lower grades spill past rank 1000.
COMPAT_MEASURES = {
    "sample_eval": ("xinfAP", "infNDCG(ideal='rounded',spill=1)@1000", *_LEVELS, "iP@10",
                    "iP@50", "iP@1000", "iNumRelRet", "iNumRel"),
    "sample_eval-trecvid": ("xinfAP(cap=1000)", "infNDCG(spill=1)@1000", *_LEVELS, "iP@10",
                            "iP@100", "iP@1000", "iNumRelRet", "iNumRel"),
}


#: --compat: how each copy computes a measure the user names with -m: the family it is
#: (sample_eval.pl's "infAP" is xinfAP), the parameters the copy fixes and the cutoff it uses
#: without one. Parameters left free: the relevance level. Other families have no rule.
_COMPAT_RULES: dict[str, dict[str, tuple[str, dict[str, object], int | None]]] = {
    "sample_eval": {"infAP": ("xinfAP", {"cap": None}, None),
                    "xinfAP": ("xinfAP", {"cap": None}, None),
                    "infNDCG": ("infNDCG", {"ideal": "rounded", "spill": 1}, 1000)},
    "sample_eval-trecvid": {"infAP": ("xinfAP", {"cap": 1000}, None),
                            "xinfAP": ("xinfAP", {"cap": 1000}, None),
                            "infNDCG": ("infNDCG", {"ideal": "fractional", "spill": 1}, 1000)},
}
_COMPAT_SAME = ("iP", "iIPrec", "iNumRelRet", "iNumRel")  # the copies' own definitions


def compat_measures(measures, compat: str):
    """The measures named with -m as `compat`'s copy of sample_eval.pl computes them; an
    InvalidOptionError for a measure it has no rule for or a parameter it sets otherwise.

    Example:
        >>> from unjudged.measures import parse_measures
        >>> [m.name for m in compat_measures(parse_measures(["infNDCG", "infAP"]),
        ...                                  "sample_eval")]
        ["infNDCG(ideal='rounded',spill=1)@1000", 'xinfAP']
    """
    from unjudged.errors import InvalidOptionError
    from unjudged.measures._spec import REGISTRY, Measure

    rules = _COMPAT_RULES[compat]
    out = []
    for m in measures:
        family = m.spec.name
        if family not in rules and family not in _COMPAT_SAME:
            raise InvalidOptionError(
                f"--compat {compat} has no rule for {m.name}: sample_eval.pl computes "
                "infAP (xinfAP), infNDCG, iP@k, iIPrec, iNumRelRet and iNumRel; drop --compat "
                "to infer other measures")
        target, fixed, cutoff = rules.get(family, (family, {}, None))
        spec = REGISTRY[target]
        defaults = {p.name: p.default for p in spec.params}
        given = dict(m.params)
        for key, value in given.items():
            want = fixed[key] if key in fixed else defaults.get(key)
            if key != "rel" and value != want:
                raise InvalidOptionError(
                    f"--compat {compat} computes {family} with {key}={want!r}, not "
                    f"{key}={value!r} as -m asks; drop the parameter or --compat")
        params = {**fixed, **({"rel": given["rel"]} if "rel" in given else {})}
        out.append(Measure(spec, m.cutoff if m.cutoff is not None else cutoff,
                           tuple((p.name, params[p.name]) for p in spec.params
                                 if p.name in params and params[p.name] != p.default)))
    return out


def _level(ctx, param, value):
    if value is not None and not 0.0 < value < 1.0:
        raise click.BadParameter(f"{value} is not strictly between 0 and 1")
    return value


@main.command("infer")
@click.argument("qrels")
@click.argument("runs", nargs=-1, required=True)
@click.option("-m", "--measure", "measures", multiple=True, callback=measure_names,
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
@click.option("--compat", type=click.Choice(sorted(COMPAT_MEASURES)), default=None,
              help="sample_eval.pl's values: NIST's TREC copy (sample_eval) or the TRECVID "
              "copy (sample_eval-trecvid): its measures unless -m is given (measures named with "
              "-m follow the copy's rules: infAP is xinfAP, infNDCG takes the copy's ideal "
              "DCG; a measure it has no rule for is refused), -M 1000 unless -M is given, and "
              "--ties sample_eval.")
@click.option("--prels", is_flag=True,
              help="QRELS is TREC's prels (Million Query 2007-2008, Web 2009): `topic docno "
              "grade method probability`; measures default to " + ", ".join(PRELS_MEASURES)
              + " (see docs/sampled-judgments.md).")
@policy_options
@run_options
@click.option("-J", "--judged-only", is_flag=True,
              help="Drop unjudged documents before measuring (condensed lists).")
@click.option("-f", "--format", "fmt", type=click.Choice(["table", "tsv", "csv", "jsonl"]),
              default="table", show_default=True)
@click.option("-o", "--output", default=None, help="Write to this file instead of stdout.")
def infer_cmd(qrels, runs, measures, level, method, b, seed, per_topic, compat, prels,
              complete, rel_level, depth, ties, negative, names, strict, judged_only, fmt,
              output) -> None:
    """Inferred measures of RUNS from sampled judgments QRELS: sample_eval's 5-column
    `topic iter docno stratum grade` (-1 = not sampled), trec_eval's 4 columns (one
    stratum; -1 = pooled, unjudged) or, with --prels, TREC's prels with inclusion
    probabilities (statAP, statNDCG). Topic 'all' is the mean over topics (iNumRel and
    iNumRelRet: the sum)."""
    if level is None:
        refuse_given(("method", "b", "seed"), "without --ci (they shape the intervals)")
    if compat is not None:
        refuse_given(("ties",), f"with --compat {compat}, which breaks ties as sample_eval.pl "
                     "does")
    lean_arrow()
    from unjudged.inference.infer import infer_runs
    from unjudged.io.sampled import read_prels, read_sampled_qrels
    from unjudged.measures import parse_measures
    from unjudged.policies import Policies
    from unjudged.report.rows import render_rows

    if compat is not None:
        if prels:
            raise click.BadParameter("sample_eval.pl does not read prels", param_hint="--compat")
        depth = 1000 if depth is None else depth
        ties = "sample_eval"
    ms = parse_measures(list(measures or (PRELS_MEASURES if prels else DEFAULT_MEASURES)))
    if compat is not None:  # the copy's rules for the measures named, or a refusal
        ms = compat_measures(ms, compat) if measures else parse_measures(
            list(COMPAT_MEASURES[compat]))
    pol = Policies(ties=ties, negative=negative, complete=complete, rel_level=rel_level,
                   depth=depth, judged_only=judged_only)
    q = read_prels(qrels) if prels else read_sampled_qrels(qrels)
    stream = cli_runs(runs, q, policies=pol, names=names, strict=strict)
    rows = [row for inf in infer_runs(progress(stream, "inferring"), q, ms, level=level, b=b,
                                      seed=seed, policies=pol, method=method)
            for row in inf.rows(per_topic)]
    columns = ["run", "topic", "measure", "value"] + (["lo", "hi"] if level is not None else [])
    write_output(render_rows(rows, columns, fmt, lead=3), output)


def _design(ctx, param, value):
    from unjudged.errors import InvalidOptionError
    from unjudged.judgments.sampling import parse_design

    try:
        return [parse_design(v) for v in value] if param.multiple else parse_design(value)
    except InvalidOptionError as exc:
        raise click.BadParameter(str(exc)) from None


def _needs_runs(designs, runs) -> None:
    need = next((d for d in designs if d.needs_runs), None)
    if need is not None and not runs:
        raise click.BadParameter(f"{need.text} needs RUNs (the depth pool and the strata "
                                 "follow the runs' rankings)", param_hint="--design")


DESIGN_HELP = ("Sampling design: uniform:P (P of each topic's judgments, e.g. 0.2 or 20%), "
               "depth:K+uniform (the depth-K pool of the runs judged, plus as many sampled from "
               "the rest), depth:K+uniform:P (P of the rest), depth:K+strata:3,1.5,1[:P] (the "
               "rest in strata by best rank, rates in that ratio). See "
               "docs/sampling-experiment.md.")


@main.command("sample")
@click.argument("qrels")
@click.argument("runs", nargs=-1)
@click.option("--design", required=True, callback=_design, help=DESIGN_HELP)
@SEED
@click.option("--trial", type=click.IntRange(0), default=0, show_default=True,
              help="Trial number: each trial is another sample for the same seed (trial T is "
              "the sample `experiment sampling` scores in its trial T).")
@ties_option(help="Tie-breaking policy of the runs.")
@run_options
@click.option("-o", "--output", default=None, help="Write to this file instead of stdout.")
def sample_cmd(qrels, runs, design, seed, trial, ties, names, strict, output) -> None:
    """Sample the judged documents of QRELS by a design (seed 002); RUNS give the depth pool
    and the strata. Writes sample_eval's 5 columns `topic iter docno stratum grade` (-1 = not
    sampled), ready for `unjudged infer`."""
    _needs_runs([design], runs)
    _check_seed(seed)
    lean_arrow()
    from unjudged.io import read_qrels
    from unjudged.io.sampled import format_sampled_qrels
    from unjudged.judgments.sampling import sample_qrels
    from unjudged.policies import Policies

    q = read_qrels(qrels)
    pol = Policies(ties=ties)
    loaded = list(cli_runs(runs, q, policies=pol, names=names, strict=strict)) \
        if design.needs_runs else []
    sq = sample_qrels(q, design, loaded, seed=seed, trial=trial)
    text = format_sampled_qrels(sq)
    n, size = sq.sampled_counts.sum(axis=0), sq.stratum_sizes.sum(axis=0)
    strata = ", ".join(f"{s}: {a} of {b}" for s, a, b in zip(sq.strata, n, size, strict=True))
    click.echo(f"unjudged: {design.text}: sampled {n.sum()} of {size.sum()} judgments "
               f"({n.sum() / max(size.sum(), 1):.1%}); strata {strata}", err=True)
    if size.sum() and n.sum() == size.sum():  # e.g. a depth pool as deep as the judging
        from unjudged.errors import note

        note(f"{design.text} samples every judgment, so inferred measures will equal the "
             "full qrels' values; a shallower depth or a rate samples (depth:1+strata:3,1.5,1, "
             "depth:10+strata:3,1.5,1:0.2, uniform:0.2)")
    write_output(text, output)


@experiment_group.command("sampling")
@click.argument("qrels")
@click.argument("runs", nargs=-1, required=True)
@click.option("--design", "designs", multiple=True, required=True, callback=_design,
              help=DESIGN_HELP + " Repeatable: one level of incompleteness each.")
@click.option("--trials", type=click.IntRange(1), default=10, show_default=True,
              help="Samples per design.")
@click.option("-m", "--measure", "measures", multiple=True, callback=measure_names,
              help="Estimator, scored against its target on the complete QRELS (infAP, xinfAP "
              "-> AP; infNDCG -> nDCG; iP@k -> P@k; any other measure -> itself). Default: "
              "xinfAP, infAP, infNDCG, nDCG.")
@click.option("--contributing", "contributing_path", default=None,
              help="The runs that built the pool (one name per line, or a CSV with run and "
              "'contributed judgments' yes/no columns): the depth pools come from them alone "
              "and the statistics are also given for them and the other runs apart.")
@click.option("--ci", "level", type=float, default=0.95, show_default=True, callback=_level,
              help="Confidence level of the intervals whose coverage is reported.")
@SEED
@policy_options
@run_options
@executor_options
@click.option("-f", "--format", "fmt", type=click.Choice(["table", "tsv", "csv", "jsonl"]),
              default="table", show_default=True)
@click.option("-o", "--output", default=None, help="Write to this file instead of stdout.")
@click.option("--details", "details_path", default=None,
              help="Also write every (design, trial, estimator, run) estimate with its standard "
              "error and truth to FILE (.csv, .tsv, .jsonl or .parquet).")
@click.option("--plot", "plot_path", default=None,
              help="Draw tau, rho and RMSE against the percentage judged (FILE.png, .pdf, .svg).")
@click.option("--scatter", "scatter_path", default=None,
              help="Draw each run's estimate against its actual value with its interval, per "
              "design (first estimator, trial 0; FILE.png, .pdf, .svg).")
def sampling_experiment_cmd(qrels, runs, designs, trials, measures, contributing_path, level,
                            seed, complete, rel_level, depth, ties, negative, names, strict, jobs,
                            dask, fmt, output, details_path, plot_path, scatter_path) -> None:
    """Seed 002's experiment: sample the judgments of QRELS (taken as complete) by each
    design TRIALS times, score RUNS with each estimator on every sample and compare with the
    target measure on QRELS: RMSE, Kendall's tau and Pearson's rho of the runs' means, the
    coverage of the intervals and a KS test of the standardised deviations. A stratified
    design is also compared with a uniform sample of equally many judgments ('random')."""
    _check_suffix(details_path, (".csv", ".tsv", ".jsonl", ".parquet"), "--details")
    _check_suffix(plot_path, (".png", ".pdf", ".svg"), "--plot")
    _check_suffix(scatter_path, (".png", ".pdf", ".svg"), "--scatter")
    _check_seed(seed)
    lean_arrow()
    from unjudged.experiments.sampling import ESTIMATORS, read_contributing, sampling_experiment
    from unjudged.experiments.sampling_stats import COLUMNS, sampling_table
    from unjudged.io import read_qrels
    from unjudged.measures import parse_measures
    from unjudged.policies import Policies
    from unjudged.report.sampling import render_sampling

    ms = parse_measures(list(measures or ESTIMATORS))
    pol = Policies(ties=ties, negative=negative, complete=complete, rel_level=rel_level,
                   depth=depth)
    q = read_qrels(qrels)
    loaded = list(cli_runs(runs, q, policies=pol, names=names, strict=strict))
    contributing = None
    if contributing_path:
        contributing = read_contributing(contributing_path)
        names = {r.name for r in loaded}
        unknown = [n for n in contributing if n not in names]
        if unknown:
            more = " ..." if len(unknown) > 5 else ""
            click.echo(f"unjudged: note: {len(unknown)} contributing run(s) not among the RUNs "
                       f"are ignored ({', '.join(unknown[:5])}{more})", err=True)
    with executor_from_options(jobs, dask) as ex:
        sweep = sampling_experiment(loaded, q, designs, estimators=ms, trials=trials, seed=seed,
                                    contributing=contributing, level=level, policies=pol,
                                    executor=ex)
    rows = sampling_table(sweep)
    text = render_sampling(sweep, rows, COLUMNS, fmt)
    if details_path:
        _write_details(sweep, details_path)
    for path, draw in ((plot_path, "rows"), (scatter_path, "scatter")):
        if path:
            from unjudged.experiments.sampling_stats import scatter_panels
            from unjudged.report.sampling_plots import plot_sampling, plot_scatter

            done = (plot_sampling(rows, path) if draw == "rows"
                    else plot_scatter(scatter_panels(sweep), path))
            click.echo(f"unjudged: wrote {done}", err=True)
    click.echo(f"unjudged: {len(designs)} designs x {trials} trials x {len(loaded)} runs in "
               f"{sweep.seconds:.1f} s", err=True)
    write_output(text, output)


def _check_seed(seed: int) -> None:  # numpy's SeedSequence takes no negative entropy
    if seed < 0:
        raise click.BadParameter(f"{seed} is negative; expected 0 or more", param_hint="--seed")


def _check_suffix(path, suffixes, option) -> None:
    if path and not path.endswith(suffixes):
        raise click.BadParameter(f"{path}: expected {', '.join(suffixes)}", param_hint=option)
    from unjudged.io.atomic import check_targets

    check_targets([path, click.get_current_context().params.get("output")])  # before writing


def _write_details(sweep, path: str) -> None:
    from unjudged.experiments.sampling_stats import sampling_details
    from unjudged.report.rows import write_table

    write_table(sampling_details(sweep), path)
