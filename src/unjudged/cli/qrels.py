"""`unjudged qrels ...`: judgment statistics, and merging, comparing and filtering qrels."""

from __future__ import annotations

import click

from unjudged.cli._base import fail, lean_arrow, main, write_output
from unjudged.cli._checks import refuse_given

_FORMAT = click.option("-f", "--format", "fmt", default="table", show_default=True,
                       type=click.Choice(["table", "tsv", "csv", "jsonl"]))
_OUTPUT = click.option("-o", "--output", default=None,
                       help="Write to this file (atomically) instead of stdout.")


@main.group("qrels")
def qrels_group() -> None:
    """Judgment statistics, and merging, comparing and filtering qrels."""


@qrels_group.command("stats")
@click.argument("qrels", nargs=-1, required=True)
@click.option("-l", "--rel-level", type=int, default=1, show_default=True,
              help="Smallest grade counted as relevant.")
@click.option("--no-union", is_flag=True, help="With several qrels, leave out their union.")
@_FORMAT
@_OUTPUT
def stats_cmd(qrels, rel_level, no_union, fmt, output) -> None:
    """Per topic: documents judged, a count per grade and the fraction relevant, for one or
    more QRELS side by side (and their union). Topics where more than a third of the judged
    documents are relevant are flagged `!` and listed on stderr: many relevant documents
    probably remain unfound. Negative grades are counted as unjudged, not as judged."""
    if len(qrels) < 2:
        refuse_given(("no_union",), "to one qrels file (a union needs several)")
    lean_arrow()
    from unjudged.io import read_qrels
    from unjudged.judgments.stats import judgment_stats
    from unjudged.report.qrels import render_stats, stats_warnings

    stats = judgment_stats([read_qrels(q) for q in qrels], rel_level=rel_level,
                           union=not no_union)
    write_output(render_stats(stats, fmt), output)
    for line in stats_warnings(stats):
        click.echo(f"unjudged: warning: {line}", err=True)


@qrels_group.command("merge")
@click.argument("qrels", nargs=-1, required=True)
@click.option("--on-conflict", type=click.Choice(["error", "max", "min", "first", "last"]),
              default="error", show_default=True,
              help="Which grade wins where the inputs grade a document differently: none "
              "(an error), the highest, the lowest, the first or the last file's.")
@click.option("--by-iteration", is_flag=True,
              help="A judgment is a (topic, iteration, document) line, as in subtopic qrels.")
@_OUTPUT
def merge_cmd(qrels, on_conflict, by_iteration, output) -> None:
    """The union of QRELS as one qrels file, sorted by topic and docno."""
    lean_arrow()
    from unjudged.io import read_qrels
    from unjudged.io.write import format_qrels
    from unjudged.judgments.stats import merge_qrels

    merged = merge_qrels([read_qrels(q) for q in qrels], on_conflict=on_conflict,
                         by_iteration=by_iteration)
    write_output(format_qrels(merged), output)


@qrels_group.command("diff")
@click.argument("a")
@click.argument("b")
@click.option("--list", "listing", is_flag=True,
              help="List each added, removed or changed judgment instead of the per-topic "
              "summary.")
@_FORMAT
@_OUTPUT
def diff_cmd(a, b, listing, fmt, output) -> None:
    """Judgments added, removed and changed (regraded) going from qrels A to qrels B, per
    topic. The iteration column is ignored: a document's grade is its highest."""
    lean_arrow()
    from unjudged.judgments.stats import diff_qrels
    from unjudged.report.qrels import render_diff

    write_output(render_diff(diff_qrels(a, b), fmt, listing=listing), output)


@qrels_group.command("filter")
@click.argument("qrels")
@click.option("--topics", "topic_spec", default=None,
              help="Topics to keep: ids and ranges, e.g. 1,2,5-9.")
@click.option("--topics-file", default=None,
              help="Topics to keep, listed in a file (ids or ranges; # comments).")
@click.option("--iteration", "iterations", multiple=True,
              help="Keep lines with this value in column 2, e.g. 1.5. Repeatable; commas "
              "separate several.")
@click.option("--exclude-iteration", "excluded", multiple=True,
              help="Drop lines with this value in column 2. Repeatable.")
@_OUTPUT
def filter_cmd(qrels, topic_spec, topics_file, iterations, excluded, output) -> None:
    """The lines of QRELS for some topics or iterations, sorted by topic and docno."""
    if topic_spec is not None and topics_file is not None:
        fail("give --topics or --topics-file, not both")
    if topic_spec is None and topics_file is None and not iterations and not excluded:
        fail("nothing to filter by: give --topics, --topics-file, --iteration or "
             "--exclude-iteration")
    lean_arrow()
    from unjudged.errors import InvalidOptionError
    from unjudged.io import read_qrels
    from unjudged.io.topics import parse_topics, read_topics_file
    from unjudged.io.write import format_qrels
    from unjudged.judgments.stats import filter_qrels

    topics = None
    if topic_spec is not None:
        try:
            topics = parse_topics(topic_spec)
        except InvalidOptionError as exc:
            fail(f"--topics: {exc}")
    elif topics_file is not None:
        topics = read_topics_file(topics_file)
    q = read_qrels(qrels)
    absent = [t for t in dict.fromkeys(topics or []) if t not in q.topic_index]
    if absent:  # a range may well reach past the qrels' topics: a note, not an error
        shown = ", ".join(absent[:10]) + (" ..." if len(absent) > 10 else "")
        click.echo(f"unjudged: note: {len(absent)} topic(s) not in {q.source}: {shown}",
                   err=True)
    kept = filter_qrels(q, topics=topics, iterations=_split(iterations),
                        exclude_iterations=_split(excluded))
    write_output(format_qrels(kept), output)


def _split(values: tuple[str, ...]) -> list[str] | None:
    """Repeated options, each possibly comma-separated; None when the option is not given."""
    if not values:
        return None
    return [v.strip() for value in values for v in value.split(",") if v.strip()]
