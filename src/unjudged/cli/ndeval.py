"""`unjudged ndeval`: a drop-in for ndeval 4.5 (TREC Web track diversity evaluation)."""

from __future__ import annotations

import click

from unjudged.cli._base import main, write_output


@main.command("ndeval", context_settings={"ignore_unknown_options": True,
                                          "allow_interspersed_args": False,
                                          "help_option_names": ["--help"]})
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def ndeval_cmd(args) -> None:
    """ndeval [options] QRELS RUN: ndeval 4.5's CSV, byte for byte.

    \b
    Options (ndeval's, before QRELS RUN):
      -alpha X        redundancy intolerance for alpha-nDCG, ERR-IA, NRBP (0.5)
      -beta X         patience for NRBP (0.5)
      -traditional    order runs by score (double precision), then docno, both
                      descending; by default runs are ordered by the rank column
      -M N            cut runs at N documents per topic
      -baseline RUN   risk-sensitive values: run minus baseline, losses
                      weighted by 1 + riskAlpha
      -riskAlpha X    risk sensitivity (>= 0; default 0)
      -c              average over every qrels topic
      -version        print ndeval's version line
    """
    from unjudged.io._source import read_bytes
    from unjudged.ndeval import parse_args, run_ndeval
    from unjudged.ndeval._args import VERSION

    opts = parse_args(list(args))
    if opts.version:
        write_output(f"ndeval: {VERSION}\n", None)
        return
    base = read_bytes(opts.baseline) if opts.baseline is not None else None
    out = run_ndeval(opts, read_bytes(opts.qrels), read_bytes(opts.run), base)
    _note_nan(out)
    try:  # as text when it is (a captured stdout then captures it); else the run id's bytes
        write_output(out.decode("utf-8"), None)
    except UnicodeDecodeError:
        write_output(out, None)


def _note_nan(out: bytes) -> None:
    """ndeval prints a 0/0 as glibc does (-nan), and so does the copy: one note says where and
    why, so that the CSV stays ndeval's byte for byte and the user is not left guessing."""
    lines = out.splitlines()
    if not lines or b"nan" not in out:
        return
    head = lines[0].split(b",")
    columns: dict[str, None] = {}
    topics: dict[str, None] = {}
    count = 0
    for line in lines[1:]:
        fields = line.rsplit(b",", len(head) - 1)  # the run id may hold commas
        bad = [i for i, f in enumerate(fields) if f in (b"-nan", b"nan")]
        count += len(bad)
        for i in bad:
            columns[head[i].decode("utf-8", "replace")] = None
        if bad:
            topics[fields[1].decode("utf-8", "replace")] = None
    if count:
        from unjudged.errors import note

        note(f"{count} values are 0/0, printed -nan as ndeval 4.5 prints them (columns "
             f"{_few(list(columns))}; topics {_few(list(topics))}): a topic without a relevant "
             "document has no ideal ranking to normalise by, and a run sharing no topic with "
             "the qrels no mean")


def _few(names: list[str], most: int = 5) -> str:
    return ", ".join(names) if len(names) <= most else \
        f"{', '.join(names[:most])} and {len(names) - most} more"
