"""`unjudged text`: build or inspect a corpus's cached term index, and score runs with the
language-model divergence measures (seed 004, section 4)."""

from __future__ import annotations

import click

from unjudged.cli._base import main, write_output

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
        click.option("--stopwords", default="none", show_default=True,
                     metavar="none|english|FILE",
                     help="Words to drop: none, a built-in English list, or a file of words."),
        click.option("--stem", default=None, metavar="LANGUAGE",
                     help="Snowball stemmer, e.g. english or porter (needs unjudged[text])."),
        click.option("--cache-dir", default=None, type=click.Path(file_okay=False),
                     help="Keep the index cache here instead of beside the corpus."),
        click.option("--no-cache", is_flag=True, help="Neither read nor write a cache."),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


def _index(corpus, fmt, fields, stopwords, stem, cache_dir, no_cache):
    from unjudged.text import ENGLISH_STOPWORDS, Tokeniser, corpus_index, read_stopwords

    words = {"none": frozenset(), "english": ENGLISH_STOPWORDS}.get(stopwords)
    if words is None:
        words = read_stopwords(stopwords)
    tok = Tokeniser(stopwords=words, stem=stem)
    return corpus_index(corpus, fmt, tok, fields=[f.strip() for f in fields.split(",")],
                        cache=not no_cache, cache_dir=cache_dir)


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
@click.option("-o", "--output", default=None, help="Write here (atomically) instead of stdout.")
def divergence_cmd(qrels, runs, corpus, measures, fmt, fields, stopwords, stem, cache_dir,
                   no_cache, per_topic, out_fmt, output):
    """Score RUNS against diversity QRELS (`topic subtopic docno grade`; grade > 0 is
    relevant) with the language-model divergence measures over the text of --corpus."""
    from unjudged.io.runs import expand_paths
    from unjudged.measures.divergence import divergence_scores, parse_divergence
    from unjudged.report.rows import render_rows

    names = list(measures) or ["ABS-NB@20", "ABS-RB@20", "DELTA-NB@20", "DELTA-RB@20"]
    parse_divergence(names)  # a bad name fails before the corpus is read
    ix = _index(corpus, fmt, fields, stopwords, stem, cache_dir, no_cache)
    frame = divergence_scores(expand_paths(runs), qrels, ix, names)
    if not per_topic:
        frame = frame[frame.topic == "all"]
    wide = frame.pivot_table(index=["run", "topic"], columns="measure", values="value",
                             sort=False).reset_index()
    columns = ["run"] + (["topic"] if per_topic else []) + [m for m in frame.measure.unique()]
    rows = wide.to_dict("records")
    write_output(render_rows(rows, columns, out_fmt, lead=2 if per_topic else 1), output)
