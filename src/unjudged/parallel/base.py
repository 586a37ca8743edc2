"""What every executor shares: the Executor protocol, the serial executor, progress bars,
chunking and failure handling of the pool-based executors (see unjudged.parallel)."""

from __future__ import annotations

import pickle
import traceback
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, Protocol


class _Nothing:
    def __repr__(self) -> str:
        return "NOTHING"


#: Default of `shared`: call fn(item) rather than fn(shared, item).
NOTHING: Any = _Nothing()

# chunks per worker when `chunksize` is not given: enough to balance uneven tasks, few enough
# that thousands of tiny tasks do not each pay a round trip
_CHUNKS_PER_WORKER = 16


class Executor(Protocol):
    def map(self, fn: Callable[..., Any], items: Iterable[Any], *, desc: str | None = None,
            shared: Any = NOTHING, chunksize: int | None = None) -> list[Any]: ...

    def __enter__(self) -> Executor: ...

    def __exit__(self, *exc: Any) -> None: ...


#: Seconds between two progress lines when stderr is not a terminal (see ProgressLog).
PROGRESS_EVERY = 10.0


def progress_bar(total: int | None, desc: str | None, unit: str = ""):
    """Progress on stderr, only with a `desc`: a tqdm bar on a terminal (after two seconds),
    otherwise plain lines (ProgressLog), so that long work piped to a file or a log still
    shows that it moves."""
    import sys

    if desc is not None and not _is_terminal(sys.stderr):
        return ProgressLog(total, desc, unit=unit)
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, delay=2.0, leave=False,
                disable=None if desc is not None else True)


def _is_terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or closed
        return False


class ProgressLog:
    """Progress as plain lines on stderr, for when stderr is not a terminal: one line every
    `every` seconds (PROGRESS_EVERY by default) while work goes on and one at the end, as
    `unjudged: estimating: 40/143 runs (28%), 12 s`. Work that ends within `every` seconds
    prints nothing. It has the part of tqdm's interface the executors use (update, close, a
    context manager), and iterates over `items` when given.

    Example (a clock that moves 6 s at each call):
        >>> import io, itertools
        >>> out, ticks = io.StringIO(), itertools.count(0, 6)
        >>> with ProgressLog(3, "estimating", unit="runs", every=10, stream=out,
        ...                  clock=lambda: next(ticks)) as log:
        ...     for _ in range(3):
        ...         log.update()
        >>> print(out.getvalue(), end="")
        unjudged: estimating: 2/3 runs (67%), 12 s
        unjudged: estimating: 3/3 runs (100%), 24 s
    """

    def __init__(self, total: int | None, desc: str, *, unit: str = "", items: Any = None,
                 every: float | None = None, stream: Any = None, clock: Any = None) -> None:
        import time

        self.total, self.desc, self.unit, self.items = total, desc, unit, items
        self.every = PROGRESS_EVERY if every is None else every
        self.stream, self.clock = stream, clock or time.monotonic
        self.n, self.shown, self.closed = 0, 0, False
        self.start = self.clock()
        self.next = self.start + self.every

    def __iter__(self):
        for item in self.items:
            yield item
            self.update()
        self.close()

    def update(self, n: int = 1) -> None:
        self.n += n
        now = self.clock()
        if now >= self.next:
            self._line(now)
            self.next = now + self.every

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            if self.shown and self.shown != self.n:
                self._line(self.clock())

    def _line(self, now: float) -> None:
        import sys

        done = f"{self.n}/{self.total}" if self.total else f"{self.n}"
        unit = f" {self.unit}" if self.unit else ""
        share = f" ({100 * self.n / self.total:.0f}%)" if self.total else ""
        stream = self.stream or sys.stderr
        stream.write(f"unjudged: {self.desc}: {done}{unit}{share}, {now - self.start:.0f} s\n")
        stream.flush()
        self.shown = self.n

    def __enter__(self) -> ProgressLog:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class _Context:
    def __enter__(self):
        return self

    def __exit__(self, *exc: Any) -> None:
        pass


class SerialExecutor(_Context):
    """Runs every task in the calling process, one after the other.

    Example:
        >>> SerialExecutor().map(len, ["ab", "c"])
        [2, 1]
    """

    jobs = 1

    def map(self, fn: Callable[..., Any], items: Iterable[Any], *, desc: str | None = None,
            shared: Any = NOTHING, chunksize: int | None = None) -> list[Any]:
        items = list(items)
        args = () if shared is NOTHING else (shared,)
        out = []
        with progress_bar(len(items), desc) as bar:
            for item in items:
                out.append(fn(*args, item))
                bar.update()
        return out


class _Failure:
    """An exception raised by a task, sent back as a value.

    Returning it instead of raising keeps its type through pickling (exceptions whose
    __init__ takes other arguments than their message, such as FormatError, do not unpickle
    by themselves) and lets the caller pick the failure first in input order.
    """

    def __init__(self, exc: BaseException, trace: str = "") -> None:
        self.exc, self.trace = exc, trace

    def __reduce__(self):
        exc = self.exc
        return _rebuild, (type(exc), exc.args, dict(vars(exc)), self.trace)

    @classmethod
    def capture(cls, exc: BaseException, remote: bool) -> _Failure:
        if not remote:  # the caller's process: the exception object itself, traceback included
            return cls(exc)
        failure = cls(exc, traceback.format_exc())
        try:
            pickle.dumps(failure)
        except Exception:  # an exception that cannot travel: keep its text
            failure = cls(RuntimeError(f"{type(exc).__name__}: {exc}"), failure.trace)
        return failure

    def raise_(self) -> None:
        if self.trace:
            raise self.exc from _RemoteTraceback(self.trace)
        raise self.exc


class _RemoteTraceback(Exception):
    """The traceback of a task that failed in another process, shown as the cause."""

    def __str__(self) -> str:
        return "\n" + self.args[0]


def _rebuild(kind: type, args: tuple, state: dict, trace: str) -> _Failure:
    exc = kind.__new__(kind, *args)
    exc.args = args
    exc.__dict__.update(state)
    return _Failure(exc, trace)


def _run_chunk(fn: Callable[..., Any], chunk: list[Any], args: tuple = (),
               remote: bool = True) -> list[Any] | _Failure:
    """fn(*args, item) over one chunk; the first failure is returned, not raised."""
    try:
        return [fn(*args, item) for item in chunk]
    except Exception as exc:
        return _Failure.capture(exc, remote)


class _PoolExecutor(_Context):
    """Chunking, progress and failure handling shared by the pool-based executors.

    Subclasses provide _prepare(shared) -> submit(fn, chunk) -> future, _completed(futures)
    -> the futures as they finish, and _cancel(futures).
    """

    jobs: int
    inline_single = True  # a single chunk runs in the calling process

    def _prepare(self, shared: Any) -> Callable[..., Any]:
        """submit(fn, chunk) -> a future, with `shared` passed to fn in the workers."""
        raise NotImplementedError

    def map(self, fn: Callable[..., Any], items: Iterable[Any], *, desc: str | None = None,
            shared: Any = NOTHING, chunksize: int | None = None) -> list[Any]:
        items = list(items)
        size = chunksize or max(1, len(items) // (self.jobs * _CHUNKS_PER_WORKER))
        chunks = [items[i:i + size] for i in range(0, len(items), size)]
        if len(chunks) <= 1 and self.inline_single:
            # one chunk cannot run in parallel: spare the pool's start and the round trip
            return SerialExecutor().map(fn, items, desc=desc, shared=shared)
        submit = self._prepare(shared)
        futures = [submit(fn, chunk) for chunk in chunks]
        with progress_bar(len(items), desc) as bar:
            results = self._collect(futures, bar)
        return [value for chunk in results for value in chunk]

    def _collect(self, futures: list[Any], bar: Any) -> list[list[Any]]:
        index = {self._key(f): i for i, f in enumerate(futures)}
        results: list[Any] = [None] * len(futures)
        first_failure = len(futures)  # chunks after a failure are not needed
        waiting = len(futures)  # unfinished chunks before first_failure
        failure: _Failure | None = None
        for future in self._completed(futures):
            i = index[self._key(future)]
            if i >= first_failure:
                continue
            waiting -= 1
            value = future.result()
            if isinstance(value, _Failure):
                first_failure, failure = i, value
                self._cancel(futures[i + 1:])
                waiting = sum(r is None for r in results[:i])
            else:
                results[i] = value
                bar.update(len(value))
            if waiting == 0:
                break
        if failure is not None:
            failure.raise_()
        return results

    def _key(self, future: Any) -> Any:
        return future

    def _completed(self, futures: list[Any]) -> Iterable[Any]:
        from concurrent.futures import as_completed

        return as_completed(futures)

    def _cancel(self, futures: list[Any]) -> None:
        for f in futures:
            f.cancel()


@contextmanager
def _sigint_ignored():
    """Processes started inside inherit an ignored Ctrl-C (it survives exec): the terminal
    sends it to the whole group, and only this process should handle it, by closing them."""
    import signal

    try:
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread: signals are not ours to change
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@contextmanager
def _signals_deferred() -> Iterator[None]:
    """SIGTERM and SIGHUP that arrive inside are delivered on leaving it, to the handler in
    place outside: a stop while a cluster starts then finds the cluster whole, and can close
    it (interrupted, Dask goes on starting it in its own thread, out of reach)."""
    import os
    import signal

    got: list[int] = []
    try:
        previous = {sig: signal.signal(sig, lambda signum, frame: got.append(signum))
                    for sig in (signal.SIGTERM, signal.SIGHUP)}
    except ValueError:  # not the main thread: signals are not ours to change
        yield
        return
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        for signum in got[:1]:
            os.kill(os.getpid(), signum)
