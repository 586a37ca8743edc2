"""SIGTERM and SIGHUP stop a command as Ctrl-C does: by unwinding it, so that every `with`
block on the way out stops its worker processes, its Dask cluster and its temporary files. By
default these signals end the process at once and orphan its workers, which then run on for
minutes (a `kill`, `timeout` or a batch scheduler's stop)."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

#: The signals that stop a command cleanly (Ctrl-C's SIGINT already does, as KeyboardInterrupt).
SIGNALS = (signal.SIGTERM, signal.SIGHUP)


class Signalled(BaseException):
    """One of SIGNALS arrived. A BaseException, as KeyboardInterrupt, so that no `except
    Exception` on the way out swallows it."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum, self.name = signum, signal.Signals(signum).name


@contextmanager
def stopped_by_signals() -> Iterator[None]:
    """Within the block, SIGTERM and SIGHUP raise Signalled in the main thread; outside it,
    the handlers are what they were. Outside the main thread it changes nothing.

    Example:
        >>> try:
        ...     with stopped_by_signals():
        ...         os.kill(os.getpid(), signal.SIGTERM)
        ... except Signalled as stop:
        ...     print(stop.name, 128 + stop.signum)
        SIGTERM 143
    """
    owner = os.getpid()

    def stop(signum: int, frame: Any) -> None:
        # a second signal while the first one's cleanup runs, or one reaching a forked worker
        # that inherited this handler, ends the process at once, as the signal's default does
        for sig in SIGNALS:
            signal.signal(sig, signal.SIG_DFL)
        if os.getpid() != owner:
            os.kill(os.getpid(), signum)
            return
        raise Signalled(signum)

    try:
        previous = {sig: signal.signal(sig, stop) for sig in SIGNALS}
    except ValueError:  # not the main thread (a command invoked from a thread): not ours
        yield
        return
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
