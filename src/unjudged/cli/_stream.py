"""`eval --stream`: runs grouped by topic scored a batch of topics at a time, with progress."""

from __future__ import annotations

import contextlib
import os
import sys
import time
from typing import Any

import click

from unjudged.policies import NameMode
from unjudged.strategies.registry import BASELINE

#: seconds between progress lines when stderr is not a terminal
EVERY = 10.0


class StreamProgress:
    """Progress of a long stream on stderr: a bar on a terminal, else a plain line every
    EVERY seconds (a log then shows the work is moving)."""

    def __init__(self, every: float = EVERY) -> None:
        self.every, self.done = every, 0
        self.bar: Any = None  # a tqdm bar once the first progress arrives on a terminal
        self.terminal = sys.stderr.isatty()
        self.next = time.monotonic() + every

    def __call__(self, lines: int, topics: int) -> None:
        if self.terminal:
            from tqdm import tqdm

            if self.bar is None:
                self.bar = tqdm(desc="streaming", unit=" lines", unit_scale=True, delay=2.0,
                                leave=False, disable=None)
            self.bar.update(lines - self.done)
            self.bar.set_postfix_str(f"{topics:,} topics", refresh=False)
        elif time.monotonic() >= self.next:
            click.echo(f"unjudged: streamed {lines / 1e6:.1f}M lines, {topics:,} topics",
                       err=True)
            self.next = time.monotonic() + self.every
        self.done = lines

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        self.bar, self.done = None, 0


def _map_big_blocks() -> None:
    """Have glibc map blocks of a MiB or more from the system and give them back when freed,
    unless the user set MALLOC_MMAP_THRESHOLD_.

    By default glibc raises that threshold to the largest block freed so far, so the blocks of
    a stream then come from the heap, where the small arrays kept between blocks pin them:
    peak memory grew by about 4 bytes a line (1,077 MB for 100M lines, against a flat 490 MB
    with this), for about 5% more time. A no-op where the C library is not glibc.
    """
    if "MALLOC_MMAP_THRESHOLD_" in os.environ or not sys.platform.startswith("linux"):
        return
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").mallopt(-3, 1 << 20)  # M_MMAP_THRESHOLD


def refuse_options(strategy: str, baseline: str | None) -> None:
    if strategy != BASELINE:
        raise click.BadParameter("--stream scores trec_eval's way only (--unjudged nonrel)",
                                 param_hint="--unjudged")
    if baseline is not None:
        raise click.BadParameter("--stream cannot compare with a baseline; leave out --stream",
                                 param_hint="--baseline")


def stream_results(qrels_path, runs, measures, policies, *, names: NameMode, strict: bool,
                   block_size: int | None = None):
    """Read the qrels, then score `runs` streamed, one after the other, with the notes `eval`
    gives."""
    from unjudged.cli._runs import Notes, check_topics
    from unjudged.engine.stream import score_stream
    from unjudged.io import read_qrels
    from unjudged.io.stream import BLOCK_SIZE

    _map_big_blocks()
    qrels = read_qrels(qrels_path)
    notes = Notes(strict)
    shown = StreamProgress()

    def check(name: str, topics: list[str], source: str) -> None:
        shown.close()
        check_topics(name, topics, source, qrels, notes)

    return score_stream(runs, qrels, measures, policies, block_size=block_size or BLOCK_SIZE,
                        progress=shown, checked=check, names=names, notify=notes.note)
