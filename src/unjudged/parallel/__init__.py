"""Executors: run one function over many items, in this process, in local processes or on Dask.

``ex.map(fn, items, desc=None, shared=NOTHING, chunksize=None)`` returns fn(item), or
fn(shared, item), for every item, in the order of `items`, whichever executor runs it. Tasks
must be top-level (picklable) functions that do not depend on the worker running them; the
executors add no randomness, so results never depend on the executor or the number of workers.
A task's exception reaches the caller with its original type; of several, the first in input
order. See docs/parallel.md.

Example:
    >>> with make_executor(jobs=1) as ex:
    ...     ex.map(abs, [-2, 3, -1])
    [2, 3, 1]
"""

from __future__ import annotations

import os
from typing import Any

from unjudged.errors import UnjudgedError
from unjudged.parallel.base import NOTHING, Executor, SerialExecutor, progress_bar
from unjudged.parallel.local import ProcessExecutor, ThreadExecutor

__all__ = ["make_executor", "Executor", "SerialExecutor", "ProcessExecutor", "ThreadExecutor",
           "DaskExecutor", "progress_bar", "NOTHING"]


def make_executor(jobs: int | None = None, dask: str | None = None) -> Executor:
    """The executor for `--jobs` and `--dask`.

    dask "local" starts a Dask cluster of `jobs` processes (default: one per CPU) on this
    machine, "tcp://HOST:PORT" connects to a running scheduler (`jobs` is then ignored);
    without dask, jobs=1 runs in this process and anything else in local processes (default:
    one per CPU).

    Example:
        >>> with make_executor(jobs=2) as ex:
        ...     ex.map(pow, [2, 3], shared=2)  # pow(2, 2), pow(2, 3)
        [4, 8]
    """
    if jobs is not None and jobs < 1:
        raise UnjudgedError(f"--jobs must be at least 1, not {jobs}")
    if dask is not None:
        from unjudged.parallel.distributed import DaskExecutor

        return DaskExecutor(dask, jobs)
    jobs = jobs or os.cpu_count() or 1
    return SerialExecutor() if jobs == 1 else ProcessExecutor(jobs)


def __getattr__(name: str) -> Any:
    # the Dask executor lives in its own module, loaded only when asked for
    if name == "DaskExecutor":
        from unjudged.parallel.distributed import DaskExecutor

        return DaskExecutor
    raise AttributeError(f"module 'unjudged.parallel' has no attribute {name!r}")
