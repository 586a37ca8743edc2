"""What every command does around its work, without click: Arrow's allocator, one line on
stderr for the library's errors and notes, and the exit codes. cli._base's group uses it, and
so does `python -m unjudged trec_eval`'s parse by hand (cli._fast), which skips click's import
(about 30M instructions a call)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from contextlib import suppress
from typing import Any


def lean_arrow() -> None:
    """Give Arrow the C library's allocator for this process, unless the user chose one.

    Arrow's default (mimalloc) keeps freed blocks per thread; reading many runs one after the
    other then costs up to a third more peak memory, at no measurable gain in speed. A library
    user's process is left alone: only the commands set this.
    """
    if "ARROW_DEFAULT_MEMORY_POOL" not in os.environ:
        _one_malloc_arena()
        import pyarrow as pa

        pa.set_memory_pool(pa.system_memory_pool())


def _one_malloc_arena() -> None:
    """Let every thread share glibc's main malloc arena, unless the user set MALLOC_ARENA_MAX.

    Arrow's reader threads and the qrels-lookup thread otherwise each get an arena of their own,
    and memory freed in one is not reused by the others: a third more peak memory on small
    inputs (179 MB against 150 MB for 10 runs of 250k lines), at no measurable cost in speed.
    Must run before those threads start; a no-op where the C library is not glibc.
    """
    if "MALLOC_ARENA_MAX" in os.environ or not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(-8, 1)  # M_ARENA_MAX
    except (OSError, AttributeError):
        pass


def say(line: str) -> None:
    """One line on stderr, with control and bidi characters (from run names, ids, paths)
    shown as escapes: a name can neither break the line nor rewrite the terminal."""
    import codecs

    from unjudged.report.rows import terminal_text

    text = terminal_text(line)
    stream = sys.stderr
    if "click" in sys.modules or stream is None or \
            codecs.lookup(getattr(stream, "encoding", None) or "ascii").name == "ascii":
        import click  # as every command wrote it (click re-encodes an ASCII stream)

        click.echo(text, err=True)
        return
    # what click.echo wrote to a UTF-8 (or other non-ASCII) stream: the text, a newline, a
    # flush; terminal_text leaves no escape code for it to strip
    stream.write(text + "\n")
    stream.flush()


def fail(message: str) -> None:
    say(f"unjudged: error: {message}")
    sys.exit(2)


def guarded(work: Callable[[], Any]) -> Any:
    """work(), with the library's errors as one line and exit code 2, its notes as
    `unjudged: note:` lines, SIGTERM and SIGHUP unwinding it, and a closed pipe on stdout
    ending the process quietly (output_failed: click would make it exit 1)."""
    import warnings

    from unjudged.cli._signals import Signalled, stopped_by_signals
    from unjudged.errors import UnjudgedError, UnjudgedWarning

    try:
        with warnings.catch_warnings(), stopped_by_signals():
            warnings.simplefilter("always", UnjudgedWarning)
            warnings.showwarning = show_note
            return work()
    except UnjudgedError as exc:
        fail(str(exc))
    except Signalled as stop:
        say(f"unjudged: stopped by {stop.name}")
        _exit_now(128 + stop.signum)  # as a shell reports a process the signal killed
    except BrokenPipeError as exc:
        output_failed(exc)


def output_failed(exc: OSError) -> None:
    """End a command whose writing failed below the library (which names the files it
    opens): standard output on a full disk or a device that refuses it, one line and exit
    code 2 instead of a traceback; a closed pipe (a reader such as `head` done) quietly, 0."""
    from unjudged.io.atomic import reason

    # what stays in stdout's buffer goes nowhere: the interpreter's exit would try it again
    # and print its own "Exception ignored" lines
    with suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    if isinstance(exc, BrokenPipeError):
        sys.exit(0)
    where = "standard output" if exc.filename is None else os.fsdecode(exc.filename)
    say(f"unjudged: error: cannot write {where}: {reason(exc)}")
    sys.exit(2)


def _exit_now(code: int) -> None:
    """End the process with `code` once the command has unwound (its workers stopped, its
    scratch files removed): without the interpreter's own exit, which joins every thread and
    so would wait for ever on one blocked in a read (a FIFO nobody writes to)."""
    for stream in (sys.stdout, sys.stderr):
        with suppress(OSError, ValueError):  # closed, or a pipe nobody reads any more
            stream.flush()
    os._exit(code)


def show_note(message, category, filename, lineno, file=None, line=None) -> None:
    """The library's notes as one `unjudged: note:` line; other warnings as Python shows them."""
    from unjudged.errors import UnjudgedWarning

    if issubclass(category, UnjudgedWarning):
        say(f"unjudged: note: {message}")
    else:
        import warnings

        sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))
