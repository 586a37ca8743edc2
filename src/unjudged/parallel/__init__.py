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
    cores other work keeps busy, rounded.

    Other work is measured over a tenth of a second where the kernel counts each processor's
    busy time (Linux /proc/stat), less this process's own CPU time; elsewhere it is the
    1-minute load average without this process's estimated share. The load average also
    counts this process's own threads, runnable or waiting: after reading 143 compressed runs
    four at a time on two idle cores it stood near 1, and `estimate -j 2` ran in one process
    (16 s instead of 9).

    On a busy machine more processes than free processors only wait for each other and copy
    the inputs: `estimate -j 2` on a loaded 2-core machine took 13.6 s against 10.6 s for
    `-j 1`, and 140 MB more. Results never depend on the count.
    """
    mask = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    cpus = len(mask) if mask is not None else os.cpu_count() or 1
    if jobs == 1 or cpus == 1:
        return 1
    others = busy_elsewhere(mask)
    if others is None:
        try:
            load = os.getloadavg()[0]
        except (AttributeError, OSError):  # no load average (Windows): assume cores free
            load = 0.0
        # this process's own share of the average, if it has been busy until now (the
        # kernel's average decays with a 60 s time constant)
        own = 1.0 - math.exp(-time.process_time() / 60.0)
        others = max(0.0, load - own)
    free = max(1, min(cpus, int(cpus - others + 0.5)))
    return free if jobs is None else max(1, min(jobs, free))


def busy_elsewhere(mask: set[int] | None, window: float = 0.1) -> float | None:
    """How many of the processors `mask` (None: all) work other than this process kept busy
    over the next `window` seconds, from the kernel's per-processor busy times (Linux
    /proc/stat) less this process's CPU time; None where the kernel does not say."""
    try:
        before, own, start = _busy_ticks(mask), time.process_time(), time.monotonic()
        time.sleep(window)
        after, own, span = _busy_ticks(mask), time.process_time() - own, \
            time.monotonic() - start
        tick = os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, AttributeError):
        return None
    if span <= 0 or tick <= 0:
        return None
    return max(0.0, ((after - before) / tick - own) / span)


def _busy_ticks(mask: set[int] | None) -> int:
    """Clock ticks the processors `mask` (None: all) spent busy since boot (/proc/stat: all
    but idle and iowait; guest time is already in user time)."""
    total = 0
    with open("/proc/stat", encoding="ascii") as f:
        for line in f:
            name, _, rest = line.partition(" ")
            if not name.startswith("cpu"):
                break  # the processors' lines come first
            if name == "cpu" or (mask is not None and int(name[3:]) not in mask):
                continue  # the sum of all, or a processor this process may not use
            ticks = [int(x) for x in rest.split()]
            total += sum(ticks[:8]) - ticks[3] - ticks[4]  # user..steal less idle, iowait
    return total


def __getattr__(name: str) -> Any:
    # the Dask executor lives in its own module, loaded only when asked for
    if name == "DaskExecutor":
        from unjudged.parallel.distributed import DaskExecutor

        return DaskExecutor
    raise AttributeError(f"module 'unjudged.parallel' has no attribute {name!r}")
