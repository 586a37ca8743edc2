"""Executors of this machine: local worker processes and threads (see unjudged.parallel)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from unjudged.parallel.base import NOTHING, _Failure, _PoolExecutor, _run_chunk

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

_WORKER_ARGS: tuple = ()  # (shared,) in a process worker, set by its pool's initializer


def _run_in_worker(fn: Callable[..., Any], chunk: list[Any]) -> list[Any] | _Failure:
    return _run_chunk(fn, chunk, _WORKER_ARGS)


def _init_worker(args: tuple) -> None:
    global _WORKER_ARGS
    import signal

    # Ctrl-C reaches the whole process group: only the parent handles it (and stops us)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _WORKER_ARGS = args


class ProcessExecutor(_PoolExecutor):
    """Local worker processes (concurrent.futures).

    The shared object reaches each worker once, through the pool's initializer (inherited
    without pickling where processes fork); the pool starts at the first `map` and again when
    a later `map` shares another object.

    Example:
        >>> with ProcessExecutor(2) as ex:
        ...     ex.map(divmod, [7, 9], shared=100)  # divmod(100, 7), divmod(100, 9)
        [(14, 2), (11, 1)]
    """

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs
        self._pool: ProcessPoolExecutor | None = None
        self._shared: Any = NOTHING

    def _prepare(self, shared: Any) -> Callable[..., Any]:
        from concurrent.futures import ProcessPoolExecutor

        if self._pool is not None and shared is not NOTHING and shared is not self._shared:
            self._pool.shutdown(wait=True)
            self._pool = None
        if self._pool is None:
            self._shared = shared
            args = () if shared is NOTHING else (shared,)
            self._pool = ProcessPoolExecutor(self.jobs, initializer=_init_worker,
                                             initargs=(args,))
        task = _run_chunk if shared is NOTHING else _run_in_worker
        pool = self._pool
        return lambda fn, chunk: pool.submit(task, fn, chunk)

    def __exit__(self, kind: Any, *exc: Any) -> None:
        pool, self._pool, self._shared = self._pool, None, NOTHING
        if pool is None:
            return
        if kind is not None:
            # after an error or Ctrl-C nobody wants the running tasks: stop them now rather
            # than wait (the pool keeps its processes only in a private attribute)
            for process in list((getattr(pool, "_processes", None) or {}).values()):
                process.terminate()
        pool.shutdown(wait=kind is None, cancel_futures=True)


class ThreadExecutor(_PoolExecutor):
    """Threads of this process, for tasks that release the GIL; nothing is copied.

    Example:
        >>> with ThreadExecutor(2) as ex:
        ...     ex.map(len, ["a", "bc", "def"])
        [1, 2, 3]
    """

    def __init__(self, jobs: int) -> None:
        from concurrent.futures import ThreadPoolExecutor

        self.jobs = jobs
        self._pool = ThreadPoolExecutor(jobs)

    def _prepare(self, shared: Any) -> Callable[..., Any]:
        args = () if shared is NOTHING else (shared,)
        return lambda fn, chunk: self._pool.submit(_run_chunk, fn, chunk, args, False)

    def __exit__(self, kind: Any, *exc: Any) -> None:
        self._pool.shutdown(wait=kind is None, cancel_futures=True)
