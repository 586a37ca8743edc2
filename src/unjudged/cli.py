"""The `unjudged` command line. Presentation only: every number comes from the library.

User mistakes (bad files, unknown measures) become one line on stderr and exit code 2; output is
assembled completely before anything is written, so a failure leaves nothing half-written.
"""

from __future__ import annotations

import os
import sys
import tempfile

import click

from unjudged import __version__

FORMATS = ("table", "tsv", "csv", "jsonl", "trec")


def _lean_arrow() -> None:
    """Give Arrow the C library's allocator for this process, unless the user chose one.

    Arrow's default (mimalloc) keeps freed blocks per thread; reading many runs one after the
    other then costs up to a third more peak memory, at no measurable gain in speed. A library
    user's process is left alone: only the commands set this.
    """
    if "ARROW_DEFAULT_MEMORY_POOL" not in os.environ:
        import pyarrow as pa

        pa.set_memory_pool(pa.system_memory_pool())


def _fail(message: str) -> None:
    click.echo(f"unjudged: error: {message}", err=True)
    sys.exit(2)


def write_output(text: str, path: str | None) -> None:
    """Write all of `text` to stdout or atomically to `path` (temp file + rename)."""
    if path is None or path == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".unjudged-", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


class _Group(click.Group):
    """Turns the library's errors into one clear line and exit code 2."""

    def invoke(self, ctx: click.Context):
        from unjudged.errors import UnjudgedError

        try:
            return super().invoke(ctx)
        except UnjudgedError as exc:
            _fail(str(exc))
        except BrokenPipeError:
            sys.stderr.close()
            sys.exit(0)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="unjudged")
def main() -> None:
    """Evaluate rankings honestly when relevance judgments are incomplete."""


@main.command("eval")
@click.argument("qrels")
@click.argument("runs", nargs=-1, required=True)
@click.option("-m", "--measure", "measures", multiple=True, required=True,
              help="Measure, e.g. nDCG@10, P@5, AP, 'P(rel=2)@10', ndcg_cut_10. Repeatable.")
@click.option("-q", "--per-topic", is_flag=True, help="Also print per-topic values.")
@click.option("-c", "--complete", is_flag=True,
              help="Average over all qrels topics; topics a run lacks score 0 (trec_eval -c).")
@click.option("-l", "--rel-level", type=int, default=1, show_default=True,
              help="Smallest grade counted as relevant.")
@click.option("-M", "--depth", type=int, default=None, help="Keep only the top N per topic.")
@click.option("--ties", type=click.Choice(["trec_eval", "docno", "rank", "file"]),
              default="trec_eval", show_default=True, help="Tie-breaking policy.")
@click.option("--negative", type=click.Choice(["unjudged", "nonrel"]), default="unjudged",
              show_default=True, help="Meaning of negative grades in the qrels.")
@click.option("-J", "--judged-only", is_flag=True,
              help="Drop unjudged documents before measuring (condensed lists).")
@click.option("-f", "--format", "fmt", type=click.Choice(FORMATS), default="table",
              show_default=True)
@click.option("-o", "--output", default=None, help="Write to this file instead of stdout.")
def eval_cmd(qrels, runs, measures, per_topic, complete, rel_level, depth, ties, negative,
             judged_only, fmt, output) -> None:
    """Evaluate one or more RUNS (files, directories or globs) against QRELS."""
    _lean_arrow()
    from unjudged._evaluate import score
    from unjudged.io import read_qrels
    from unjudged.io.runs import iter_runs
    from unjudged.measures import parse_measures
    from unjudged.policies import Policies
    from unjudged.report.tables import render

    ms = parse_measures(list(measures))
    pol = Policies(ties=ties, negative=negative, complete=complete, rel_level=rel_level,
                   depth=depth, judged_only=judged_only)
    q = read_qrels(qrels)
    results = score(_noting_missing_topics(iter_runs(runs, ties=ties, qrels=q), q), q, ms, pol)
    write_output(render(results, fmt, per_topic=per_topic), output)


def _noting_missing_topics(runs, qrels):
    """Pass runs through one at a time, noting topics the qrels lack (trec_eval ignores them)."""
    for run in runs:
        extra = [t for t in run.topics if t not in qrels.topic_index]
        if extra:
            shown = ", ".join(extra[:5]) + (" ..." if len(extra) > 5 else "")
            click.echo(f"unjudged: note: run {run.name}: {len(extra)} topic(s) not in the qrels "
                       f"are ignored ({shown})", err=True)
        yield run


@main.command("trec_eval", context_settings={"ignore_unknown_options": False})
@click.argument("qrels")
@click.argument("run")
@click.option("-q", "per_query", is_flag=True, help="Print per-query values too.")
@click.option("-c", "complete", is_flag=True, help="Average over all qrels queries.")
@click.option("-n", "nosummary", is_flag=True, help="No summary ('all') lines.")
@click.option("-m", "measures", multiple=True, help="Measure or set (official, all_trec, set), "
              "with trec_eval parameters: -m P.5,10  -mndcg.1=3,2=9.")
@click.option("-M", "depth", type=int, default=None, help="Max documents per query.")
@click.option("-l", "rel_level", type=int, default=1, help="Relevance level (default 1).")
@click.option("-J", "judged_only", is_flag=True, help="Judged documents only.")
@click.option("-Z", "zscores", default=None, help="z-score file: qid measure mean stddev.")
def trec_eval_cmd(qrels, run, per_query, complete, nosummary, measures, depth, rel_level,
                  judged_only, zscores) -> None:
    """Drop-in replacement for trec_eval 10 on standard qrels: byte-identical output."""
    _lean_arrow()
    from unjudged.io import read_qrels, read_run
    from unjudged.policies import Policies
    from unjudged.trec_eval._run import read_zscores, run_trec_eval

    pol = Policies(complete=complete, rel_level=rel_level, depth=depth, judged_only=judged_only)
    z = read_zscores(zscores) if zscores else None
    q = read_qrels(qrels)
    text = run_trec_eval(read_run(run, qrels=q), q, list(measures), pol,
                         per_query=per_query, summary=not nosummary, zscores=z)
    write_output(text, None)


@main.command("measures")
@click.argument("name", required=False)
def measures_cmd(name) -> None:
    """List every registered measure, or describe NAME."""
    from unjudged.report.catalogue import describe, listing

    write_output(describe(name) if name else listing(), None)


@main.command("demo")
@click.option("-m", "--measure", "measures", multiple=True,
              default=("nDCG@10", "P@5", "Bpref", "AP", "Judged@10"), show_default=True)
def demo_cmd(measures) -> None:
    """Evaluate the TREC-COVID round-1 example shipped with the package."""
    from unjudged._evaluate import score
    from unjudged.data.examples import example_paths
    from unjudged.io import read_qrels, read_runs
    from unjudged.measures import parse_measures
    from unjudged.report.tables import render

    qrels, runs = example_paths()
    click.echo(f"unjudged demo: TREC-COVID round 1, qrels-rnd1 and {len(runs)} runs "
               "(shipped inside the package; see unjudged/data/example/SOURCE.md)\n", err=True)
    sys.stderr.flush()
    results = score(read_runs(runs), read_qrels(qrels), parse_measures(list(measures)))
    write_output(render(results, "table"), None)


if __name__ == "__main__":
    main()
