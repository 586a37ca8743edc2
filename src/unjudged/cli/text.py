"""`unjudged text`: build or inspect a corpus's cached term index, and score runs with the
language-model divergence measures (seed 004, section 4)."""

from __future__ import annotations

import click

from unjudged.cli._base import PLOT_SUFFIXES, check_suffix, main, write_output
from unjudged.cli._checks import refuse_given
from unjudged.cli._checks import seed as seed_check
from unjudged.cli._runs import Notes, cli_runs, run_options

_FORMATS = ("trectext", "jsonl", "tsv", "smart", "npl")  # unjudged.text.FORMATS, kept light
_ROW_FORMATS = ("table", "tsv", "csv", "jsonl")


def _text_options(flag: str):
    """How the corpus is read and tokenised, and where its cache lives."""
    return lambda fn: _add(fn, flag)


def _add(fn, flag: str):
    options = [
        click.option(flag, "fmt", type=click.Choice(_FORMATS), default=None,
                     help="Corpus layout (default: detected from the first bytes)."),
        click.option("--fields", default="T,W", show_default=True,
                     help="SMART fields read as text (Cranfield, CACM, CISI)."),
        click.option("--stopwords", default=None, metavar="none|english|FILE",
                     help="Words to drop: none, a built-in English list, or a file of words "
                     "[default: none; for `text divergence` and the sweep, where neither this "
                     "nor --stem is given, the options of the index built last for the "
                     "corpus]."),
        click.option("--stem", default=None, metavar="LANGUAGE",
                     help="Snowball stemmer, e.g. english or porter (needs unjudged[text]); "
                     "none for no stemming."),
        click.option("--cache-dir", default=None, type=click.Path(file_okay=False),
                     help="Keep the index cache here instead of beside the corpus."),
        click.option("--no-cache", is_flag=True, help="Neither read nor write a cache."),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


def _index(corpus, fmt, fields, stopwords, stem, cache_dir, no_cache, reuse=False):
    """The corpus's index. With `reuse` and no tokenisation option given, the one built last
    for the corpus (so the README's `text index --stem english` then `text divergence`
    tokenise once), with a note naming its options."""
    from unjudged.errors import note
    from unjudged.text import ENGLISH_STOPWORDS, Tokeniser, corpus_index, read_stopwords
    from unjudged.text.reuse import built_tokeniser

    if no_cache:
        refuse_given(("cache_dir",), "with --no-cache (no cache is read or written)")
    parts = [f.strip() for f in fields.split(",")]
    built = None
    if reuse and stopwords is None and stem is None and not no_cache:
        built = built_tokeniser(corpus, fmt, parts, cache_dir)
    if built is not None:
        tok, flags = built
        note(f"reusing the index of {corpus} built with {flags}; give --stopwords or --stem "
             "to tokenise otherwise")
    else:
        stopwords = "none" if stopwords is None else stopwords
        words = {"none": frozenset(), "english": ENGLISH_STOPWORDS}.get(stopwords)
        if words is None:
            words = read_stopwords(stopwords)
        tok = Tokeniser(stopwords=words, stem=None if stem == "none" else stem)
    return corpus_index(corpus, fmt, tok, fields=parts, cache=not no_cache,
                        cache_dir=cache_dir)


@main.group("text")
def text_group() -> None:
    """Document text: corpus indexes and the divergence measures."""


@text_group.command("index")
@click.argument("corpus", type=click.Path(exists=True, dir_okay=False))
@_text_options("--format")
@click.option("--top", type=click.IntRange(0), default=10, show_default=True,
              help="Show the N most frequent terms.")
def index_cmd(corpus, fmt, fields, stopwords, stem, cache_dir, no_cache, top):
    """Tokenise CORPUS into a sparse term-count index cached beside it (a second run loads the
    cache), and describe it."""
    import time

    import numpy as np

    t0 = time.perf_counter()
    ix = _index(corpus, fmt, fields, stopwords, stem, cache_dir, no_cache)
    took = time.perf_counter() - t0
    counts = np.asarray(ix.tf.sum(axis=0)).ravel()
    state = "none" if ix.cache is None else f"{ix.cache} ({'loaded' if ix.reused else 'written'})"
    lines = [f"corpus      {corpus}", f"documents   {ix.tf.shape[0]}",
             f"terms       {ix.tf.shape[1]}", f"tokens      {int(counts.sum())}",
             f"nonzeros    {ix.tf.nnz}", f"cache       {state}", f"seconds     {took:.3f}"]
    order = np.argsort(-counts, kind="stable")[:top]
    if top:
        lines.append("top terms   " + " ".join(f"{ix.terms[i]}:{counts[i]}" for i in order))
    write_output("\n".join(lines) + "\n", None)


@text_group.command("divergence")
@click.argument("qrels")
@click.argument("runs", nargs=-1, required=True)
@click.option("--corpus", required=True, type=click.Path(exists=True, dir_okay=False),
              help="The documents' text.")
@click.option("-m", "--measure", "measures", multiple=True,
              help="ABS-NB@k, ABS-RB@k, DELTA-NB@k, DELTA-RB@k, optionally (mu=..., "
              "theta=...); repeatable (default: all four @20).")
@_text_options("--corpus-format")
@click.option("-q", "--per-topic", is_flag=True, help="Per-topic values too.")
@click.option("-f", "--format", "out_fmt", type=click.Choice(_ROW_FORMATS), default="table",
              show_default=True)
@run_options
@click.option("-o", "--output", default=None, help="Write here (atomically) instead of stdout.")
def divergence_cmd(qrels, runs, corpus, measures, fmt, fields, stopwords, stem, cache_dir,
                   no_cache, per_topic, out_fmt, names, strict, output):
    """Score RUNS against diversity QRELS (`topic subtopic docno grade`; grade > 0 is
    relevant) with the language-model divergence measures over the text of --corpus."""
    from unjudged.io import read_qrels
    from unjudged.measures.divergence import parse_divergence
    from unjudged.report.rows import render_rows
    from unjudged.text.divergence import divergence_scores

    wanted = list(measures) or ["ABS-NB@20", "ABS-RB@20", "DELTA-NB@20", "DELTA-RB@20"]
    parse_divergence(wanted)  # a bad name fails before the corpus is read
    q = read_qrels(qrels)
    loaded = list(cli_runs(runs, q, names=names, strict=strict))
    ix = _index(corpus, fmt, fields, stopwords, stem, cache_dir, no_cache, reuse=True)
    frame = divergence_scores(loaded, q, ix, wanted, notify=Notes(strict).warning)
    if not per_topic:
        frame = frame[frame.topic == "all"]
    wide = frame.pivot_table(index=["run", "topic"], columns="measure", values="value",
                             sort=False).reset_index()
    columns = ["run"] + (["topic"] if per_topic else []) + [m for m in frame.measure.unique()]
    rows = wide.to_dict("records")
    write_output(render_rows(rows, columns, out_fmt, lead=2 if per_topic else 1), output)


# The sweep lives here, beside the divergence measures it needs, on the experiment group.
from unjudged.cli._base import executor_from_options, executor_options  # noqa: E402
from unjudged.cli.experiment import experiment_group  # noqa: E402


def _fractions(ctx, param, value: str) -> list[float]:
    try:
        levels = [float(x) for x in value.split(",") if x.strip()]
    except ValueError:
        levels = []
    if not levels or not all(0 < p <= 1 for p in levels):
        raise click.BadParameter(f"{value!r}: expected comma-separated fractions in (0, 1], "
                                 "e.g. 0.01,0.1,0.5")
    return levels


@experiment_group.command("diversity-sampling")
@click.argument("qrels")
@click.argument("runs", nargs=-1, required=True)
@click.option("--corpus", required=True, type=click.Path(exists=True, dir_okay=False),
              help="The documents' text (for the divergence measures).")
@click.option("--levels", default="0.01,0.02,0.05,0.1,0.2,0.3,0.5", show_default=True,
              callback=_fractions, help="Fractions p of the judgments kept.")
@click.option("--repetitions", type=click.IntRange(1), default=30, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True, callback=seed_check,
              help="Every sample depends only on this seed and the inputs.")
@click.option("--reference", default="alpha-nDCG@20,ERR-IA@20,NRBP", show_default=True,
              help="Cascade measures on the full judgments (also scored raw and condensed).")
@click.option("--divergence", default="ABS-NB@20,ABS-RB@20,DELTA-NB@20,DELTA-RB@20",
              show_default=True, help="Divergence measures scored on the samples.")
@click.option("--sample", type=click.Choice(["per-query", "per-subtopic"]), default="per-query",
              show_default=True, help="Draw p% of each topic's relevant documents, each with "
              "all its labels (seed 004), or p% of each subtopic's relevant lines.")
@_text_options("--corpus-format")
@executor_options
@run_options
@click.option("-f", "--format", "out_fmt", type=click.Choice(_ROW_FORMATS), default="table",
              show_default=True)
@click.option("-o", "--output", default=None, help="Write here (atomically) instead of stdout.")
@click.option("--plot", "plot_path", default=None,
              help="Tau against p, a panel per reference measure (FILE.png, .pdf, .svg).")
@click.option("--details", "details_path", default=None,
              help="Every repetition's tau to FILE (.csv, .tsv or .jsonl).")
def diversity_sampling_cmd(qrels, runs, corpus, levels, repetitions, seed, reference,
                           divergence, sample, fmt, fields, stopwords, stem, cache_dir,
                           no_cache, jobs, dask, names, strict, out_fmt, output, plot_path,
                           details_path):
    """Keep p% of the relevant documents of each topic (at least one; --sample) and p% of the
    non-relevant ones of diversity QRELS, score RUNS with the reference measures on raw and
    condensed lists and with the divergence measures, and report Kendall's tau against the
    references on the full judgments, mean and sd over repetitions (seed 004, Figure 1)."""
    from unjudged.experiments.diversity import diversity_sampling
    from unjudged.io.diversity import read_diversity_qrels
    from unjudged.measures import parse_measures
    from unjudged.measures.divergence import parse_divergence
    from unjudged.report.rows import render_rows

    check_suffix(plot_path, PLOT_SUFFIXES, "--plot")
    check_suffix(details_path, (".csv", ".tsv", ".jsonl"), "--details")
    details_fmt = details_path[details_path.rfind(".") + 1:] if details_path else None
    refs = [m.strip() for m in reference.split(",") if m.strip()]
    divs = [m.strip() for m in divergence.split(",") if m.strip()]
    parse_measures(refs)  # bad names fail before the corpus is read
    parse_divergence(divs)
    q = read_diversity_qrels(qrels)
    loaded = list(cli_runs(runs, q, names=names, strict=strict))
    ix = _index(corpus, fmt, fields, stopwords, stem, cache_dir, no_cache, reuse=True)
    with executor_from_options(jobs, dask) as ex:
        sweep = diversity_sampling(loaded, q, ix, levels=levels, repetitions=repetitions,
                                   seed=seed, references=refs, divergence=divs, executor=ex,
                                   sample=sample)
    text = render_rows(sweep.table(), ["p", "estimator", "reference", "tau", "sd"], out_fmt,
                       lead=3, title=f"{len(loaded)} runs, {repetitions} repetitions, seed "
                       f"{seed}, {sweep.seconds:.1f} s" if out_fmt == "table" else None)
    if details_path:
        write_output(render_rows(sweep.details(), ["p", "repetition", "estimator", "reference",
                                                   "tau"], details_fmt, lead=4), details_path)
    if plot_path:
        from unjudged.report.diversity_plots import plot_diversity_sampling

        plot_diversity_sampling(sweep.table(), plot_path)
    write_output(text, output)
