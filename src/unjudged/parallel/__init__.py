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

import math
import os
import time
from typing import Any

from unjudged.errors import UnjudgedError
from unjudged.parallel.base import NOTHING, Executor, SerialExecutor, progress_bar
from unjudged.parallel.local import ProcessExecutor, ThreadExecutor

__all__ = ["make_executor", "local_jobs", "Executor", "SerialExecutor", "ProcessExecutor",
           "ThreadExecutor", "DaskExecutor", "progress_bar", "NOTHING"]


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


def local_jobs(jobs: int | None = None) -> int:
    """Worker processes for the command line's `--jobs` (None: as many as help): never more
    than the processors free now, those this process may run on (its affinity mask) less the
    load of other work (1-minute load average, without this process's own share), rounded.

    On a busy machine more processes than free processors only wait for each other and copy
    the inputs: `estimate -j 2` on a loaded 2-core machine took 13.6 s against 10.6 s for
    `-j 1`, and 140 MB more. Results never depend on the count.
    """
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") \
        else os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):  # no load average (Windows): assume the cores are free
        load = 0.0
    # this process's own share of the average, if it has been busy until now (the kernel's
    # average decays with a 60 s time constant)
    own = 1.0 - math.exp(-time.process_time() / 60.0)
    free = max(1, min(cpus, int(cpus - max(0.0, load - own) + 0.5)))
    return free if jobs is None else max(1, min(jobs, free))


def __getattr__(name: str) -> Any:
    # the Dask executor lives in its own module, loaded only when asked for
    if name == "DaskExecutor":
        from unjudged.parallel.distributed import DaskExecutor

        return DaskExecutor
    raise AttributeError(f"module 'unjudged.parallel' has no attribute {name!r}")
