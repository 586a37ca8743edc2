"""SIGTERM and SIGHUP stop a command as Ctrl-C does: every worker process ends with it and no
scratch folder is left (issue 34, item 3). Before, `kill` of `estimate -j 2` left both workers
running for minutes, and `--dask local` left its scratch space in $TMPDIR."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(),
                                reason="reads the process table from /proc")

# -j 2 means two workers even on a loaded machine (--jobs counts only free processors)
LAUNCH = ("import os, sys; os.getloadavg = lambda: (0.0, 0.0, 0.0); "
          "os.sched_getaffinity = lambda pid: {0, 1}; "
          "import unjudged.parallel as p; p.busy_elsewhere = lambda mask, window=0.1: 0.0; "
          "from unjudged.cli import main; sys.argv[0] = 'unjudged'; main()")


def _descendants(pid: int) -> set[int]:
    """Live processes below `pid` (zombies not counted), from /proc."""
    parent: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:  # ended meanwhile
                continue
            fields = stat[stat.rindex(")") + 2:].split()
            if fields[0] != "Z":
                parent[int(entry.name)] = int(fields[1])
    found, todo = set(), [pid]
    while todo:
        p = todo.pop()
        kids = {c for c, pp in parent.items() if pp == p}
        todo += list(kids - found)
        found |= kids
    return found


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    """Enough work that the workers are busy when the signal comes: 4 runs of 30 topics x 400
    documents, b = 3000."""
    folder = tmp_path_factory.mktemp("signals")
    lines = [f"{t} 0 d{d} {(t * d) % 3}\n" for t in range(30) for d in range(0, 400, 2)]
    (folder / "qrels").write_text("".join(lines))
    runs = []
    for r in range(4):
        path = folder / f"r{r}.run"
        order = [(d * (3, 7, 9, 11)[r] + r) % 400 for d in range(400)]  # a permutation
        path.write_text("".join(f"{t} Q0 d{doc} {i + 1} {400 - i} r{r}\n"
                                for t in range(30) for i, doc in enumerate(order)))
        runs.append(str(path))
    return [str(folder / "qrels"), *runs]


def _stop(work, tmp_path, signum: int, *how: str, workers: int = 2) -> tuple[int, set[int], str]:
    """Start estimate, wait for `workers` processes below it, send `signum` to it alone; (exit
    status, the processes below it that are still alive 2 s after it ended, stderr)."""
    env = dict(os.environ, TMPDIR=str(tmp_path))
    args = [sys.executable, "-c", LAUNCH, "estimate", *work, "-m", "nDCG@400", "-m", "AP",
            "-b", "3000", "--prior", "pool", "-q", "-f", "tsv", *how]
    proc = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        seen: set[int] = set()
        while len(seen) < workers and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.2)
            seen = _descendants(proc.pid)
        assert len(seen) >= workers, "the workers did not start"
        time.sleep(1.0)
        seen |= _descendants(proc.pid)
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=60)  # orphans holding stderr would make this hang
        time.sleep(2.0)
        return proc.returncode, {p for p in seen if _alive(p)}, err.decode()
    finally:
        if proc.poll() is None:
            proc.kill()


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2:].split()[0] != "Z"


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["TERM", "HUP"])
def test_signal_ends_every_worker_process(work, tmp_path, signum):
    status, alive, err = _stop(work, tmp_path, signum, "-j", "2")
    assert not alive, f"workers left running: {sorted(alive)}"
    assert status == 128 + signum  # 143 for SIGTERM, 129 for SIGHUP, as a shell reports them
    assert err.splitlines()[-1] == f"unjudged: stopped by {signal.Signals(signum).name}"
    assert "Traceback" not in err


def test_signal_ends_the_dask_cluster_and_its_scratch_space(work, tmp_path):
    pytest.importorskip("distributed")
    # two workers and multiprocessing's resource tracker (the nannies run in the parent)
    status, alive, err = _stop(work, tmp_path, signal.SIGTERM, "--dask", "local", "-j", "2",
                               workers=3)
    assert not alive, f"Dask processes left running: {sorted(alive)}"
    assert status == 143, err
    assert list(tmp_path.iterdir()) == []  # no dask-scratch-space, no worker folders


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_signal_ends_a_command_waiting_on_a_fifo(tmp_path):
    """A run named as a FIFO nobody writes to is read in a reader thread that waits for ever;
    SIGTERM unwound the command but its exit then joined that thread and never ended (a lone
    `timeout` could not stop it). Now it ends at once with 143."""
    (tmp_path / "qrels").write_text("1 0 a 1\n")
    (tmp_path / "other.run").write_text("1 Q0 a 1 1 other\n")
    os.mkfifo(tmp_path / "pipe")
    proc = subprocess.Popen([sys.executable, "-m", "unjudged", "eval", str(tmp_path / "qrels"),
                             str(tmp_path / "pipe"), str(tmp_path / "other.run"), "-m", "P@1"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        time.sleep(3.0)  # imported, and waiting in open()
        assert proc.poll() is None
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 143, err
        assert err.decode().splitlines()[-1] == "unjudged: stopped by SIGTERM"
    finally:
        if proc.poll() is None:
            proc.kill()
