"""`--jobs` counts only the processors other work leaves free: on a busy machine more worker
processes than free processors only wait for each other (estimate -j 2 on a loaded 2-core
machine: 13.6 s against 10.6 s for -j 1, and 140 MB more)."""

from __future__ import annotations

import os
import time

import pytest

from unjudged import parallel
from unjudged.cli._base import executor_from_options
from unjudged.parallel import ProcessExecutor, SerialExecutor, local_jobs


@pytest.fixture
def machine(monkeypatch):
    """A 2-core machine with a given 1-minute load and this process's CPU seconds so far,
    whose kernel does not count busy time per processor (the load average decides)."""
    def set_(load: float, cpu_seconds: float = 0.0, cores: int = 2) -> None:
        monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(cores)),
                            raising=False)
        monkeypatch.setattr(os, "getloadavg", lambda: (load, load, load))
        monkeypatch.setattr(time, "process_time", lambda: cpu_seconds)
        monkeypatch.setattr(parallel, "busy_elsewhere", lambda mask: None)
    return set_


@pytest.fixture
def measured(monkeypatch):
    """A 2-core machine whose other work keeps `busy` cores busy (per-processor busy ticks
    over the sampling window), with a misleading load average of 2 (this process's threads)
    and this process using `own` CPU seconds during the window."""
    def set_(busy: float, own: float = 0.0) -> None:
        monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
        monkeypatch.setattr(os, "getloadavg", lambda: (2.0, 2.0, 2.0))
        ticks = iter([1000, 1000 + round((busy + own) * 0.1 * 100)])
        monkeypatch.setattr(parallel, "_busy_ticks", lambda mask: next(ticks))
        monkeypatch.setattr(os, "sysconf", lambda name: 100)
        clock = iter([5.0, 5.1])
        monkeypatch.setattr(time, "monotonic", lambda: next(clock))
        cpu = iter([1.0, 1.0 + own * 0.1])
        monkeypatch.setattr(time, "process_time", lambda: next(cpu))
        monkeypatch.setattr(time, "sleep", lambda s: None)
    return set_


@pytest.mark.parametrize(("busy", "own", "jobs"), [
    (0.0, 0.0, 2), (0.0, 2.0, 2), (0.3, 1.0, 2), (0.7, 0.0, 1), (1.0, 1.0, 1), (2.0, 0.0, 1),
])
def test_jobs_count_the_cores_other_work_keeps_busy(measured, busy, own, jobs):
    # this process's own threads (reading runs ahead) are not other work, whatever the load
    # average says: two idle cores run two processes
    measured(busy, own)
    assert local_jobs() == jobs


@pytest.mark.skipif(not os.path.exists("/proc/stat"), reason="no /proc/stat")
def test_the_kernel_per_processor_times_are_read():
    busy = parallel.busy_elsewhere(None, window=0.01)
    assert busy is None or busy >= 0.0
    assert parallel._busy_ticks(None) >= parallel._busy_ticks({0}) >= 0


@pytest.mark.parametrize(("load", "asked", "jobs"), [
    (0.0, None, 2), (0.3, None, 2), (0.6, None, 1), (1.0, None, 1), (14.0, None, 1),
    (0.0, 2, 2), (0.0, 8, 2), (0.0, 1, 1), (1.2, 2, 1), (3.0, 2, 1),
])
def test_jobs_are_the_free_processors(machine, load, asked, jobs):
    machine(load)
    assert local_jobs(asked) == jobs


def test_this_process_does_not_count_as_other_work(machine):
    # a command busy for a minute before its pool starts has about 0.63 of the average itself
    machine(1.0, cpu_seconds=60.0)
    assert local_jobs(2) == 2
    machine(1.0, cpu_seconds=0.0)
    assert local_jobs(2) == 1


def test_the_affinity_mask_bounds_the_count(machine):
    machine(0.0, cores=3)
    assert local_jobs() == 3 and local_jobs(8) == 3


def test_no_load_average_means_free_cores(machine, monkeypatch):
    machine(0.0)

    def missing():
        raise OSError("no load average")
    monkeypatch.setattr(os, "getloadavg", missing)
    assert local_jobs() == 2


def test_command_line_executor_runs_serially_on_a_busy_machine(machine):
    machine(5.0)
    with executor_from_options(2, None) as ex:
        assert isinstance(ex, SerialExecutor)
    machine(0.0)
    with executor_from_options(2, None) as ex:
        assert isinstance(ex, ProcessExecutor) and ex.jobs == 2
        assert ex.map(abs, [-1, 2]) == [1, 2]
