"""Commands that score runs: eval, estimate, measures, demo (trec_eval: cli.trec_eval)."""

from __future__ import annotations

import os

import click

from unjudged.cli._base import (
    FORMATS,
    MEASURES,
    PLOT_SUFFIXES,
    POINT,
    PRIOR,
    SEED,
    B,
    check_suffix,
    draw_options,
    executor_from_options,
    executor_options,
    lean_arrow,
    main,
    policy_options,
    progress,
    say,
    write_output,
)
from unjudged.cli._checks import refuse_given
from unjudged.cli._judging import (
    JUDGE_OPTION,
    check_judge_options,
    judge_estimate_options,
)
from unjudged.cli._runs import (
    POOL_RUNS,
    baseline_name,
    run_options,
    runs_and_pool,
)
from unjudged.cli._strategies import StrategyColumn, all_methods, methods_help
from unjudged.cli.matrix import PAIRED_TESTS, RANDOMISED, SIGNIFICANCE
from unjudged.strategies.registry import BASELINE, STRATEGIES

#: The orders of Results.sorted_runs (unjudged.engine.results.RUN_ORDERS), listed here so
#: that --help needs no numpy.
RUN_ORDERS = ("input", "name", "score")
#: eval's comparison tables (unjudged.report.comparison.TABLE_FORMATS) and their corrections
#: (unjudged.analysis.comparison.CORRECTIONS), kept light as RUN_ORDERS.
TABLE_FORMATS = ("latex", "markdown")
CORRECTIONS = ("holm", "bonferroni", "none")

#: What `eval` reports without -m: trec_eval's default set (`-m official`, what `unjudged
#: trec_eval` prints without -m) but runid and num_q, which are not per-run scores.
OFFICIAL_HELP = ("Without -m: trec_eval's default measures (its 'official' set, as `unjudged "
                 "trec_eval` prints them): NumRet, NumRel, NumRelRet, AP, GMAP, Rprec, Bpref, "
                 "RR, IPrec at recall 0.0-1.0 and P@5-1000.")


def official_measures() -> list[str]:
    """The measures of trec_eval's default set (`-m official`) that are scores of a run, in
    its printing order: what `eval` reports without -m.

    Example:
        >>> m = official_measures()
        >>> m[:8], len(m), m[-1]
        (['NumRet', 'NumRel', 'NumRelRet', 'AP', 'GMAP', 'Rprec', 'Bpref', 'RR'], 28, 'P@1000')
    """
    from unjudged.measures import Measure
    from unjudged.trec_eval._run import _outputs, parse_requests

    return [str(what) for _fam, _name, what in _outputs(parse_requests(["official"]))
            if isinstance(what, Measure)]


@main.command("eval")
@click.argument("qrels")
@click.argument("runs", nargs=-1, required=True)
@click.option("-m", "--measure", "measures", multiple=True,
              help="Measure, e.g. nDCG@10, P@5, AP, 'P(rel=2)@10', ndcg_cut_10. Repeatable. "
              + OFFICIAL_HELP)
@click.option("-q", "--per-topic", is_flag=True, help="Also print per-topic values.")
@policy_options
@run_options
@click.option("-J", "--judged-only", is_flag=True,
              help="Drop unjudged documents before measuring (condensed lists).")
@click.option("--unjudged", "strategy", default=BASELINE, show_default=True,
              type=StrategyColumn(),
              help="What unjudged documents count as (see `unjudged estimate`). bootstrap "
              "reports its point estimate (--point).")
@PRIOR
@B
@SEED
@POINT
@click.option("-f", "--format", "fmt", type=click.Choice(FORMATS + TABLE_FORMATS),
              default="table", show_default=True,
              help="latex, markdown: a comparison table of the runs with significance marks "
              "(superscript letters: the runs a run is significantly better than, every pair "
              "or against --baseline, by --test with --correction; best in bold).")
@click.option("--sort-runs", "sort_runs", type=click.Choice(RUN_ORDERS), default="input",
              show_default=True, help="Order of the runs: as given, by name (natural order: "
              "run2 before run10), or by score (the first -m measure's run value, best "
              "first).")
@click.option("-o", "--output", default=None, help="Write to this file instead of stdout.")
@click.option("--baseline", default=None, metavar="RUN",
              help="Compare every other run with this one (run name or file): difference, "
              "p-value, the same for A_p (Judged at the measure's cutoff) and the decision-"
              "matrix case; weak cases mean a win or tie rests on uneven judging.")
@click.option("--test", type=click.Choice(PAIRED_TESTS), default="t", show_default=True,
              help="Paired test of --baseline and of -f latex/markdown's marks.")
@click.option("--correction", type=click.Choice(CORRECTIONS), default="holm",
              show_default=True, help="Multiple-comparison correction of -f latex/markdown's "
              "marks, over each measure's tests (every pair, or each run against --baseline).")
@SIGNIFICANCE
@click.option("--stream", is_flag=True, help="Read each run a block of topics at a time: "
              "memory bounded by the largest topic, not the file. Needs runs grouped by topic.")
@click.option("--stream-block", type=click.IntRange(1), default=None, hidden=True,
              help="Bytes read at a time with --stream.")
@draw_options
@POOL_RUNS
@JUDGE_OPTION
def eval_cmd(qrels, runs, measures, per_topic, complete, rel_level, depth, ties, negative,
             names, strict, judged_only, strategy, prior, b, seed, point, fmt, sort_runs, output,
             baseline, test, correction, alpha, stream, stream_block, pool_runs, judges,
             **draw) -> None:
    """Evaluate one or more RUNS (files, directories or globs) against QRELS (without -m,
    with trec_eval's default measures). With --judge: an automatic judge's labels grade the
    pairs QRELS leave unjudged (its errors are not covered: see `estimate --judge --audit`)."""
    lean_arrow()
    from unjudged.engine.score import score
    from unjudged.io import read_qrels
    from unjudged.measures import parse_measures
    from unjudged.policies import Policies
    from unjudged.report.tables import render

    if fmt in TABLE_FORMATS and per_topic:
        raise click.BadParameter(f"-f {fmt} prints one row per run; per-topic values (-q) "
                                 "need table, tsv, csv, jsonl or trec", param_hint="-q")
    _refuse_unread(strategy, prior, baseline, fmt, test)
    ms = parse_measures(list(measures) or official_measures())
    pol = Policies(ties=ties, negative=negative, complete=complete, rel_level=rel_level,
                   depth=depth, judged_only=judged_only)
    if stream and judges:
        raise click.BadParameter("--judge fills the qrels in memory; it does not go with "
                                 "--stream", param_hint="--judge")
    if stream:
        from unjudged.cli._stream import refuse_options, stream_results

        refuse_options(strategy, baseline)
        results = stream_results(qrels, runs, ms, pol, names=names, strict=strict,
                                 block_size=stream_block).sorted_runs(sort_runs)
        if fmt in TABLE_FORMATS:
            return write_output(_comparison(results, fmt, None, test, correction, alpha, seed),
                                output)
        return write_output(render(results, fmt, per_topic=per_topic), output)
    q = read_qrels(qrels)
    if judges:
        from unjudged.judges.options import judge_qrels

        q = judge_qrels(q, list(judges))
    runs, pool = runs_and_pool(runs, pool_runs, q, policies=pol, names=names, strict=strict)
    if baseline is not None:
        runs = list(runs)  # read once, scored twice: the measures and their A_p
        baseline = baseline_name(runs, baseline)
    if strategy == BASELINE:
        results = score(runs, q, ms, pol)
    else:
        from unjudged.engine.estimate import estimate_runs, strategy_results

        method = STRATEGIES.owner(strategy).name
        est = estimate_runs(progress(runs, "estimating"), q, ms, methods=[method],
                            prior=prior, b=b, seed=seed, point=point, policies=pol,
                            pool_runs=pool, **draw)
        results = strategy_results(est, strategy)
    results = results.sorted_runs(sort_runs)
    if fmt in TABLE_FORMATS:  # --baseline sets the table's comparisons
        return write_output(_comparison(results, fmt, baseline, test, correction, alpha, seed),
                            output)
    text = render(results, fmt, per_topic=per_topic)
    if baseline is not None:
        from unjudged.analysis.baseline import assessment_measures, baseline_comparison
        from unjudged.report.matrix import render_baseline

        judged = score(runs, q, assessment_measures(ms), pol.but(judged_only=False))
        rows = baseline_comparison(results, judged, baseline, test=test, alpha=alpha,
                                   seed=seed)
        text += render_baseline(rows, fmt, test=test, alpha=alpha)
    write_output(text, output)


#: eval's options of the prior and the draws, by what reads them: the draws alone; any use of
#: the prior (the pool context included); the prior's spreads, which move the draws but only
#: the variance of an expectation (which eval does not print); intervals, which eval never
#: prints (`unjudged estimate` does)
_DRAWS = ("b", "point", "misfit")
_PRIOR = ("prior", "empty_run", "grow", "trust", "cap", "pool_runs")
_SPREADS = ("spread", "shared_spread")
_INTERVALS = ("interval", "population")


def _refuse_unread(strategy: str, prior: str, baseline: str | None, fmt: str, test: str
                   ) -> None:
    """Refuse the options eval would ignore under these settings (one line, exit 2): an
    option either applies or is refused."""
    from unjudged.strategies.priors import split_prior

    owner = STRATEGIES.owner(strategy)
    if owner.uses_prior and split_prior(prior)[0] != "estimates":
        refuse_given(("trust",), "without --prior estimates:FILE")
    if not owner.uses_prior:
        refuse_given(_DRAWS + _PRIOR + _SPREADS,
                     f"to --unjudged {strategy}, which neither draws nor reads a prior "
                     "(--unjudged bootstrap or expected do)")
    elif not owner.random:
        refuse_given(_DRAWS + _SPREADS, f"to --unjudged {strategy}: eval prints its "
                     "expectation, which draws nothing (the spreads widen only the variance "
                     "`unjudged estimate` reports)")
    refuse_given(_INTERVALS, "to eval, which prints one value per run and measure (intervals: "
                 "`unjudged estimate`)")
    compares = baseline is not None or fmt in TABLE_FORMATS
    if not compares:
        refuse_given(("test", "alpha", "correction"),
                     "without --baseline or -f latex/markdown (no test is made)")
    elif fmt not in TABLE_FORMATS:
        refuse_given(("correction",), "to --baseline's tests (only -f latex/markdown's marks "
                     "are corrected)")
    if not owner.random and not (compares and test in RANDOMISED):
        refuse_given(("seed",), f"here: nothing is drawn (--unjudged {strategy}, "
                     f"{'--test ' + test if compares else 'no test'})")


def _refuse_unread_estimate(chosen: tuple[str, ...], prior: str, judged: bool) -> None:
    """Refuse the options estimate would ignore with these --methods (engine.estimate.
    unread_options; the text prior's --corpus and --queries with them) and --prior."""
    from unjudged.engine.estimate import unread_options
    from unjudged.strategies.priors import split_prior

    names, why = unread_options(chosen, judged)
    if names:
        extra = ("corpus_path", "queries_path") if "prior" in names else ()
        refuse_given(names + extra, f"to --methods {','.join(chosen)}, which {why}")
    if prior != "text":
        refuse_given(("queries_path",), "without --prior text")
    if prior != "text" and split_prior(prior)[0] != "estimates":
        refuse_given(("trust",), "without --prior estimates:FILE (or text)")


def _comparison(results, fmt: str, baseline: str | None, test: str, correction: str,
                alpha: float, seed: int) -> str:
    from unjudged.report.comparison import compare_table

    return compare_table(results, fmt, baseline=baseline, test=test, correction=correction,
                         alpha=alpha, seed=seed)


@main.command("estimate")
@click.argument("qrels")
@click.argument("runs", nargs=-1, required=True)
@MEASURES
@click.option("--methods", default=all_methods, help=methods_help())
@PRIOR
@B
@SEED
@POINT
@click.option("-q", "--per-topic", is_flag=True, help="Also print per-topic values.")
@policy_options
@run_options
@click.option("-f", "--format", "fmt", type=click.Choice(["table", "tsv", "csv", "jsonl"]),
              default="table", show_default=True)
@click.option("-o", "--output", default=None, help="Write to this file instead of stdout.")
@click.option("--samples", "samples_path", default=None,
              help="Also write every bootstrap sample to FILE (.parquet or .npz).")
@click.option("--plot", "plot_path", default=None,
              help="Draw the bootstrap distributions, one panel per topic (FILE.png; one file "
              "per run when there are several).")
@executor_options
@click.option("--workers", type=click.IntRange(1), default=None, hidden=True,
              help="Older name of --jobs.")
@click.option("--fit-truth", "truth_path", default=None,
              help="Qrels that fully judge some (run, topic) pairs: fit, per measure, the "
              "bootstrap quantile that best predicts their scores (5-fold by topic) and use it "
              "as the point estimate.")
@draw_options
@click.option("--corpus", "corpus_path", default=None,
              help="The documents' text, for --prior text (any format of `unjudged text "
              "index`; its index is cached beside it).")
@click.option("--queries", "queries_path", default=None,
              help="With --prior text: the topics' query texts (`topic<TAB>text` lines, TREC "
              "topic files), for a BM25 feature.")
@click.option("--pairs", is_flag=True, help="Print P(A > B) for every pair of runs and measure "
              "instead (run_a, run_b, measure, p_a_better), from the coupled bootstrap draws.")
@POOL_RUNS
@judge_estimate_options
def estimate_cmd(qrels, runs, measures, methods, prior, b, seed, point, per_topic, complete,
                 rel_level, depth, ties, negative, names, strict, fmt, output, samples_path,
                 plot_path, jobs, dask, workers, truth_path, corpus_path, queries_path, pairs,
                 pool_runs, judges, audit, audit_qrels, design, **draw) -> None:
    """Scores of RUNS under each strategy for unjudged documents: trec_eval's (nonrel),
    condensed lists, the comparable upper bound, bootstrapped distributions and guaranteed
    (not comparable) bounds. With --judge (and --audit): also the prediction-powered
    estimate `ppi` from an automatic judge's labels corrected by a human audit sample."""
    check_judge_options(judges, audit, audit_qrels, design)
    lean_arrow()
    from unjudged.engine.estimate import check_methods
    from unjudged.errors import InvalidOptionError
    from unjudged.io import read_qrels
    from unjudged.judges.runs import estimate_runs
    from unjudged.measures import parse_measures
    from unjudged.policies import Policies
    from unjudged.report.estimates import render_estimates

    try:
        chosen = check_methods(m.strip() for m in methods.split(",") if m.strip())
    except InvalidOptionError as exc:
        raise click.BadParameter(str(exc), param_hint="--methods") from None
    _refuse_unread_estimate(chosen, prior, bool(judges))
    check_suffix(samples_path, (".parquet", ".npz"), "--samples")
    check_suffix(plot_path, PLOT_SUFFIXES, "--plot")
    if (samples_path or plot_path or truth_path or pairs) and not any(STRATEGIES[m].random
                                                                      for m in chosen):
        raise click.BadParameter("--samples, --plot, --fit-truth and --pairs need the bootstrap "
                                 "method", param_hint="--methods")
    ms = parse_measures(list(measures))
    pol = Policies(ties=ties, negative=negative, complete=complete, rel_level=rel_level,
                   depth=depth)
    q = read_qrels(qrels)
    truth = read_qrels(truth_path) if truth_path else None
    if (prior == "text") != (corpus_path is not None):
        raise click.BadParameter("--prior text and --corpus go together", param_hint="--corpus")
    stream, pool = runs_and_pool(runs, pool_runs, q, policies=pol, names=names, strict=strict)
    if truth is not None or prior == "text" or judges:
        stream = kept = list(stream)  # used again: the truth, the text prior, the judges
    if prior == "text":
        prior, draw["estimates"] = "estimates", _text_prior(corpus_path, queries_path, q,
                                                            kept, pol)
    judged = {"judge": list(judges), "audit": audit, "audit_qrels": audit_qrels,
              "design": design} if judges else {}
    with executor_from_options(jobs or workers, dask) as ex:
        est = estimate_runs(stream, q, ms, methods=chosen, prior=prior, b=b, seed=seed,
                            point=point, policies=pol, executor=ex, desc="estimating",
                            pool_runs=pool,
                            keep_samples=bool(samples_path or plot_path or truth_path),
                            **judged, **draw)
    if truth is not None:
        from unjudged.engine.estimate import fit_quantiles

        for name, fit in fit_quantiles(est, kept, truth, pol).items():
            click.echo(f"unjudged: {name}: quantile {fit['level']:.2f} fitted on "
                       f"{fit['pairs']} fully judged (run, topic) pairs; cross-validated "
                       f"RMSE {fit['cv_rmse']:.4f}", err=True)
    if pairs:
        from unjudged.report.estimates import render_pairs

        ppi_pairs = None
        if est.judged is not None:
            ppi_pairs = (est.judged.pair_rows(),
                         [f"# ppi: P(A > B) over {b} coupled normal draws of the runs' "
                          "prediction-powered means, correlated as the judge's grade model "
                          "says (shared documents, shared ideal DCG; docs/judges.md)"])
        text = render_pairs(est, fmt, extra=ppi_pairs)
    else:
        text = render_estimates(est, fmt, per_topic=per_topic)
    if samples_path:
        from unjudged.report.estimates import write_samples

        write_samples(est, samples_path)
    if plot_path:
        from unjudged.report.plots import plot_estimates

        for path in plot_estimates(est, plot_path):
            click.echo(f"unjudged: wrote {path}", err=True)
    write_output(text, output)


def _text_prior(corpus_path: str, queries_path: str | None, qrels, runs, pol):
    """The text prior's estimates (unjudged.text.prior) for the estimate command, with a note
    on the documents the corpus lacks."""
    from unjudged.text.index import corpus_index
    from unjudged.text.prior import text_estimates

    queries = None
    if queries_path:
        from unjudged.io.topics import read_query_texts

        queries = read_query_texts(queries_path)
    est, counts = text_estimates(corpus_index(corpus_path), qrels, runs, queries=queries,
                                 rel_level=pol.rel_level, depth=pol.depth)
    est.source = f"the text of {corpus_path}"
    if counts["missing"]:
        say(f"unjudged: note: --corpus {corpus_path} lacks {counts['missing']} of the "
            f"{counts['missing'] + counts['estimated']} documents retrieved or judged; they "
            "keep the topic prior")
    return est


@main.command("measures")
@click.argument("name", required=False)
@click.option("--width", type=click.IntRange(min=40), default=None,
              help="Wrap at this many columns [default: the terminal's width, or $COLUMNS].")
def measures_cmd(name, width) -> None:
    """List every registered measure (usage, first sentence, aliases), or describe NAME."""
    from unjudged.report.catalogue import describe, listing

    write_output(describe(name, width) if name else listing(width), None)


#: The demo's bootstrap iterations: the commands' default (the report on the shipped example
#: took 9.7 s with 2,000 and 9.9 s with 10,000 on 2 cores, so the demo need not cut it).
DEMO_B = 10_000
#: One line on the demo's estimate columns, with where they are explained.
DEMO_LEGEND = ("nonrel: unjudged counted non-relevant (trec_eval); condensed: unjudged removed; "
               "upper: the comparable upper bound; bootstrap: mean and 90% interval of b draws "
               "of the unjudged grades, the drawn relevant ones also growing the ideal ranking "
               "(an estimate of the fully judged score, not comparable); guaranteed_*: bounds "
               "whatever the true grades (not comparable). See docs/unjudged-documents.md and "
               "docs/calibration.md.")


DEMO_PLAN = 10  #: documents the demo's plan proposes


@main.command("demo")
@click.option("-m", "--measure", "measures", multiple=True,
              default=("nDCG@10", "P@5", "Bpref", "AP", "Judged@10"), show_default=True)
@click.option("--report", "report_path", default=None,
              help="Where the demo's HTML report is written [default: a new file "
              "unjudged-demo-XXXXXXXX-report.html in the system's temporary folder, its "
              "path printed].")
def demo_cmd(measures, report_path) -> None:
    """Evaluate the TREC-COVID round-1 example shipped with the package."""
    from unjudged.data.examples import example_paths
    from unjudged.engine.score import score
    from unjudged.io import read_qrels, read_runs
    from unjudged.measures import parse_measures
    from unjudged.report.tables import render

    qrels, runs = example_paths()
    # headings and tables both on stdout, in order; notes and progress stay on stderr
    click.echo(f"unjudged demo: TREC-COVID round 1, qrels-rnd1 and {len(runs)} runs "
               "(shipped inside the package; see unjudged/data/example/SOURCE.md)\n")
    q = read_qrels(qrels)
    loaded = read_runs(runs, qrels=q)
    results = score(loaded, q, parse_measures(list(measures)))
    write_output(render(results, "table"), None)
    from unjudged.engine.estimate import estimate_runs
    from unjudged.report.estimates import render_estimates

    click.echo(f"\nHow far can nDCG@10 be trusted? The same runs under each strategy for "
               f"unjudged documents (unjudged estimate, b={DEMO_B}):\n{DEMO_LEGEND}\n")
    # the demo's runs are TREC-COVID round 1's pool: they define the prior's context
    est = estimate_runs(loaded, q, parse_measures(["nDCG@10"]), b=DEMO_B, seed=0,
                        pool_runs=loaded)
    write_output(render_estimates(est, "table"), None)
    from unjudged.judgments.coverage import coverage
    from unjudged.report.pools import coverage_table

    click.echo("\nHow much of each run is judged? (unjudged coverage; round 1 pooled the top 7 "
               "of one run per team)\n")
    cov = coverage(loaded, q, bands=[(1, 7), (8, 10), (11, 20), (21, 100)])
    write_output(coverage_table(cov, "table", pool_depth=7), None)
    from unjudged.planning import PlanSettings, plan
    from unjudged.report.planning import render_documents

    click.echo(f"\nWhich documents to judge next? The {DEMO_PLAN} whose grades tell most about the "
               f"order of these runs by nDCG@10 (unjudged plan --budget {DEMO_PLAN}; "
               "docs/planning.md):\nscore: the bits of information about the order of the "
               "runs its grade is expected to give; p_relevant: its probability of being "
               "relevant (position prior).\n")
    chosen = plan(loaded, q, DEMO_PLAN, parse_measures(["nDCG@10"]), PlanSettings(b=DEMO_B))
    write_output(render_documents(chosen.rows(), "table"), None)
    from unjudged.cli.report import write_report

    # the same example as one page (unjudged report). By default a new file of this user's
    # in the temporary folder (the checkout stays clean): a fixed name there could be another
    # user's symlink, or another clone's page
    if report_path is None:
        from unjudged.io.atomic import fresh_file

        report_path = fresh_file("unjudged-demo-", "-report.html")  # written over below
    path = os.path.abspath(report_path)
    write_report(qrels, runs, ["nDCG@10", "P@5"], path, b=DEMO_B, seed=0, pool_runs=runs,
                 command=f"unjudged report {qrels} {' '.join(runs)} -m nDCG@10 -m P@5 "
                 f"-b {DEMO_B} -o {path} --pool-runs " + " --pool-runs ".join(runs))
    click.echo(f"\nThe whole picture as one self-contained page (unjudged report):\n{path}")

