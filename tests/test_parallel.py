"""Executors: same results in the same order everywhere, errors keep their type, shared objects
travel once, and estimates do not depend on where they were computed."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from unjudged.cli import main
from unjudged.engine.estimate import estimate_runs
from unjudged.errors import FormatError, UnjudgedError
from unjudged.io import read_qrels, read_run
from unjudged.measures import parse_measures
from unjudged.parallel import (
    DaskExecutor,
    ProcessExecutor,
    SerialExecutor,
    ThreadExecutor,
    make_executor,
)

sys.path.insert(0, str(Path(__file__).parent))
from collection import write_collection  # noqa: E402


@pytest.fixture(scope="module")
def dask_executor():
    """One real LocalCluster of two worker processes for the whole module."""
    pytest.importorskip("distributed")
    with DaskExecutor("local", jobs=2) as ex:
        yield ex


@pytest.fixture(params=["serial", "threads", "processes", "dask"])
def executor(request):
    if request.param == "dask":
        yield request.getfixturevalue("dask_executor")
        return
    make = {"serial": SerialExecutor, "threads": lambda: ThreadExecutor(2),
            "processes": lambda: ProcessExecutor(2)}[request.param]
    with make() as ex:
        yield ex


# task functions are top-level, so processes and Dask workers can unpickle them by reference

def cube(x: int) -> int:
    return x ** 3


def scaled(shared: dict, x: int) -> float:
    return float(shared["weights"][x] * shared["factor"])


def where_and_what(shared: np.ndarray, x: int) -> tuple[int, int, float]:
    time.sleep(0.002)  # give every worker a share of the tasks
    return os.getpid(), id(shared), float(shared[x])


def fail_on_multiples_of_7(x: int) -> int:
    if x and x % 7 == 0:
        raise FormatError("in.txt", x, f"task {x} is broken")
    return x


def sleepy(x: int) -> int:
    time.sleep(30 if x == 0 else 0)
    return x


def test_results_in_input_order(executor):
    items = list(range(103))
    assert executor.map(cube, items) == [x ** 3 for x in items]
    assert executor.map(cube, items, chunksize=10) == [x ** 3 for x in items]
    assert executor.map(cube, items[::-1], chunksize=1) == [x ** 3 for x in items[::-1]]
    assert executor.map(cube, []) == []
    assert executor.map(cube, iter([4])) == [64]


def test_shared_object_is_delivered(executor):
    shared = {"weights": np.arange(50) / 2, "factor": 3}
    assert executor.map(scaled, range(50), shared=shared) == [x * 1.5 for x in range(50)]
    # a second object replaces the first
    other = {"weights": np.ones(5), "factor": -1}
    assert executor.map(scaled, range(5), shared=other, chunksize=2) == [-1.0] * 5


def test_shared_object_travels_once_per_worker(executor):
    shared = np.linspace(0, 1, 200)
    out = executor.map(where_and_what, range(200), shared=shared, chunksize=5)
    assert [v for _, _, v in out] == shared.tolist()
    # within one process, every task saw the very same object: it was not unpickled per task
    ids_per_process: dict[int, set[int]] = {}
    for pid, ident, _ in out:
        ids_per_process.setdefault(pid, set()).add(ident)
    assert all(len(ids) == 1 for ids in ids_per_process.values())
    if isinstance(executor, (ProcessExecutor, DaskExecutor)):
        assert os.getpid() not in ids_per_process and len(ids_per_process) == 2


def test_errors_keep_their_type_and_the_first_in_order_wins(executor):
    with pytest.raises(FormatError) as info:
        executor.map(fail_on_multiples_of_7, range(60), chunksize=3)
    err = info.value
    assert (err.path, err.line, err.message) == ("in.txt", 7, "task 7 is broken")
    assert str(err) == "in.txt:7: task 7 is broken"
    assert isinstance(err, UnjudgedError)
    # the executor is still usable afterwards
    assert executor.map(cube, [2, 3]) == [8, 27]


def test_progress_bar_off_a_terminal_writes_nothing(executor, capfd):
    assert executor.map(cube, range(20), desc="cubing") == [x ** 3 for x in range(20)]
    assert capfd.readouterr().err == ""


def test_make_executor_picks_by_options(monkeypatch):
    assert isinstance(make_executor(jobs=1), SerialExecutor)
    with make_executor(jobs=3) as ex:
        assert isinstance(ex, ProcessExecutor) and ex.jobs == 3
    monkeypatch.setattr(os, "cpu_count", lambda: 5)
    assert make_executor().jobs == 5
    with pytest.raises(UnjudgedError, match="'local' or a scheduler address"):
        make_executor(dask="localhost")
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if not installed
    with pytest.raises(UnjudgedError, match=r"pip install 'unjudged\[dask\]'"):
        make_executor(dask="local")


@pytest.fixture
def ctrl_c():
    """Ctrl-C raises KeyboardInterrupt in this test even when the process was started with
    SIGINT ignored (a shell's background job, `make test &`), which Python leaves ignored."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_interrupt_stops_the_workers_at_once(ctrl_c):
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt), ProcessExecutor(2) as ex:
        # the pool is started (and its workers ignore Ctrl-C) before the timer runs, so the
        # interrupt cannot fall into the start of the workers on a busy machine
        assert ex.map(cube, range(4), chunksize=1) == [0, 1, 8, 27]
        timer.start()
        ex.map(sleepy, range(4), chunksize=1)
    assert time.monotonic() - start < 10  # the sleeping worker was stopped, not awaited
    assert ex._pool is None


def test_dask_connects_to_a_running_scheduler(dask_executor):
    address = dask_executor._cluster.scheduler_address
    assert address.startswith("tcp://")
    with make_executor(dask=address) as ex:
        assert isinstance(ex, DaskExecutor) and ex.jobs == 2
        assert ex.map(scaled, [1, 3], shared={"weights": [0, 5, 0, 7], "factor": 2}) == [10, 14]
    # closing a client leaves the cluster it connected to running
    assert dask_executor.map(cube, [3]) == [27]


# ----------------------------------------------------------------------------- estimates

def _collection():
    qrels = read_qrels({"1": {"a": 2, "b": 0, "c": 1, "d": 1}, "2": {"a": 0, "e": 1, "f": 2},
                        "3": {"g": 1}})
    runs = [read_run({"1": {"a": 3, "x": 2, "y": 1, "c": 0.5}, "2": {"z": 2, "e": 1},
                      "3": {"h": 1, "g": 0}}, name=f"r{i}") for i in range(5)]
    return qrels, runs


def test_estimates_identical_on_every_executor(executor):
    qrels, runs = _collection()
    ms = parse_measures(["nDCG@3", "P@2", "AP"])
    serial = estimate_runs(runs, qrels, ms, b=300, seed=3, keep_samples=True)
    other = estimate_runs(runs, qrels, ms, b=300, seed=3, keep_samples=True, executor=executor)
    assert [r.run for r in other.runs] == [f"r{i}" for i in range(5)]
    for a, b in zip(serial.runs, other.runs, strict=True):
        np.testing.assert_array_equal(a.samples, b.samples)
        np.testing.assert_array_equal(a.stats, b.stats)
        for method, values in a.points.items():
            np.testing.assert_array_equal(values, b.points[method])
    # the draws are real: topic 1 has unjudged documents in the top 2; with the pool's
    # normalisers, in topic 3 the pool has nothing left for h (g is retrieved), so every draw is
    # g at rank 2: 1/log2(3)
    assert np.std(serial.runs[0].samples[:, 0, 1]) > 0
    fixed = estimate_runs(runs[:1], qrels, ms, b=300, seed=3, keep_samples=True, grow=False)
    np.testing.assert_allclose(fixed.runs[0].samples[:, 2, 0], 1 / np.log2(3))


# ----------------------------------------------------------------------------- command line

QRELS = "1 0 a 2\n1 0 b 0\n1 0 c 1\n2 0 d 1\n2 0 e 0\n"
RUNS = {f"{name}.run": f"1 Q0 a 1 3.0 {name}\n1 Q0 x 2 2.0 {name}\n1 Q0 {doc} 3 1.0 {name}\n"
        f"2 Q0 y 1 1.0 {name}\n" for name, doc in zip("ABCD", "bcdz", strict=True)}


def test_cli_output_same_for_jobs_and_dask(tmp_path):
    pytest.importorskip("distributed")
    qrels, runs = write_collection(tmp_path, QRELS, RUNS)
    args = ["estimate", qrels, str(runs), "-m", "nDCG@10", "-b", "500", "-q", "-f", "tsv"]
    outputs = {}
    for how in (["--jobs", "1"], ["--jobs", "2"], ["--dask", "local", "-j", "2"],
                ["--workers", "2"]):
        result = CliRunner().invoke(main, args + how)
        assert result.exit_code == 0, result.output
        outputs[" ".join(how)] = result.stdout
    serial = outputs.pop("--jobs 1")
    assert len(serial.splitlines()) == 1 + 4 * 3 * 6  # header; 4 runs x 3 topics x methods
    # run A, topic 1: a (2), x (unjudged), b (0); ideal 2, 1: 2 / (2 + 1/log2(3)) = 0.7602
    assert serial.splitlines()[1].split("\t")[:5] == ["A", "1", "nDCG@10", "nonrel",
                                                      "0.7601875334318685"]
    assert all(out == serial for out in outputs.values())


def test_cli_bad_dask_address_is_one_line(tmp_path):
    qrels, runs = write_collection(tmp_path, QRELS, RUNS)
    result = CliRunner().invoke(main, ["estimate", qrels, str(runs), "-m", "P@2", "--dask",
                                       "nowhere"])
    assert result.exit_code == 2
    assert result.stderr == ("unjudged: error: --dask expects 'local' or a scheduler address "
                             "tcp://HOST:PORT or tls://HOST:PORT, not 'nowhere'\n")


def test_dask_close_is_quiet_and_a_failed_close_is_one_note(monkeypatch):
    """Under load a worker's heartbeat raced the closing scheduler and logged a traceback after
    every result was in: closing silences Dask's loggers first (and restores the caller's), and
    a close that fails is one UnjudgedWarning, not an exception."""
    import logging

    from unjudged.errors import UnjudgedWarning

    pytest.importorskip("distributed")
    logging.getLogger("distributed").setLevel(logging.INFO)
    ex = DaskExecutor("local", jobs=1)
    assert ex.map(cube, [2, 3]) == [8, 27]
    seen = ex._client.run(lambda: logging.getLogger("distributed").level)
    assert set(seen.values()) != {logging.CRITICAL}

    def broken() -> None:
        raise OSError("Stream is closed")

    real_close = ex._client.close
    monkeypatch.setattr(ex._client, "close", broken)
    with pytest.warns(UnjudgedWarning, match=r"did not close cleanly \('OSError: Stream is "):
        ex.__exit__(None, None, None)
    real_close()
    assert logging.getLogger("distributed").level == logging.INFO
    assert ex._scratch is not None and not os.path.exists(ex._scratch)
