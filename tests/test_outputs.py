"""Outputs: every file goes through one writer (unjudged.io.atomic). What the target is decides
how it is written (symlink, FIFO, device, hard link, regular file), a failure is one line naming
the path with exit 2 and leaves the old content and no temporary file, and a killed writer
leaves nothing behind for long."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from unjudged.cli import main
from unjudged.errors import OutputError, UnjudgedError
from unjudged.io import atomic
from unjudged.io.atomic import check_targets, open_output, write_file

QRELS = "1 0 a 1\n1 0 b 0\n2 0 c 1\n"
RUN = "1 Q0 a 1 2.0 r\n1 Q0 b 2 1.0 r\n2 Q0 c 1 1.0 r\n"
EXPECTED = "run\ttopic\tmeasure\tvalue\nr\tall\tP@2\t0.5\n"
SRC = str(Path(__file__).resolve().parents[1] / "src")


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    return str(tmp_path / "qrels"), str(tmp_path / "run")


def _eval(files, *extra: str):
    return CliRunner().invoke(main, ["eval", *files, "-m", "P@2", "-f", "tsv", *extra])


def _one_line_error(result, *needles: str) -> str:
    assert result.exit_code == 2, result.output
    err = result.stderr.strip()
    assert "\n" not in err and "Traceback" not in err, err
    assert err.startswith("unjudged: error: cannot write "), err
    for n in needles:
        assert n in err, err
    return err


def _strays(folder) -> list[str]:
    return sorted(n for n in os.listdir(folder) if n.startswith(".unjudged-"))


def test_eval_output_to_a_new_file_and_stdout(files, tmp_path):
    out = tmp_path / "out.tsv"
    assert _eval(files, "-o", str(out)).exit_code == 0
    assert out.read_text() == EXPECTED
    assert _eval(files, "-o", "-").stdout == EXPECTED
    assert _strays(tmp_path) == []


def test_symlink_stays_a_link_and_its_target_is_replaced(files, tmp_path):
    (tmp_path / "data").mkdir()
    target = tmp_path / "data" / "real.tsv"
    target.write_text("old\n")
    link = tmp_path / "link.tsv"
    link.symlink_to(os.path.join("data", "real.tsv"))
    assert _eval(files, "-o", str(link)).exit_code == 0
    assert link.is_symlink() and os.readlink(link) == os.path.join("data", "real.tsv")
    assert target.read_text() == EXPECTED
    # a dangling link: its target is created
    dangling = tmp_path / "dangling.tsv"
    dangling.symlink_to("data/new.tsv")
    assert _eval(files, "-o", str(dangling)).exit_code == 0
    assert dangling.is_symlink() and (tmp_path / "data" / "new.tsv").read_text() == EXPECTED


@pytest.mark.parametrize("anonymous", [True, False])
def test_names_the_program_chooses_never_follow_a_symlink(tmp_path, monkeypatch, anonymous):
    """follow_symlinks=False (caches, the demo's page): a planted symlink, dangling or not,
    is refused and its target left alone; a FIFO is refused; a regular file is replaced by a
    new file (not written into, so another name of it keeps its content)."""
    monkeypatch.setattr(atomic, "USE_O_TMPFILE", anonymous)
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    link = tmp_path / "cache"
    link.symlink_to(victim)
    with pytest.raises(OutputError, match=r"cache: it is a symbolic link \(not followed\)$"):
        write_file(link, "x", follow_symlinks=False)
    link.unlink()
    link.symlink_to(tmp_path / "new")
    with pytest.raises(OutputError, match="not followed"):
        write_file(link, "x", follow_symlinks=False)
    assert victim.read_text() == "precious\n" and not (tmp_path / "new").exists()
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(OutputError, match="it is not a regular file"):
        write_file(tmp_path / "fifo", "x", follow_symlinks=False)
    plain = tmp_path / "plain"
    plain.write_text("old\n")
    os.link(plain, tmp_path / "other-name")
    write_file(plain, "new\n", follow_symlinks=False)
    assert plain.read_text() == "new\n" and (tmp_path / "other-name").read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache", "fifo", "other-name",
                                                          "plain", "victim"]


def test_fifo_reader_gets_every_byte(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    data = bytes(range(256)) * 12_000  # 3 MB: more than any pipe buffer
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    write_file(str(fifo), data)
    reader.join(10)
    assert got == [data]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_fifo_from_the_command_line(files, tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()))
    reader.start()
    result = _eval(files, "-o", str(fifo))
    reader.join(10)
    assert result.exit_code == 0 and got == [EXPECTED]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


@pytest.mark.skipif(os.geteuid() != 0, reason="mknod of a character device needs root")
def test_private_device_nodes_are_written_in_place(files, tmp_path):
    null = tmp_path / "null"
    full = tmp_path / "full"
    os.mknod(null, 0o600 | stat.S_IFCHR, os.makedev(1, 3))  # as /dev/null
    os.mknod(full, 0o600 | stat.S_IFCHR, os.makedev(1, 7))  # as /dev/full
    assert _eval(files, "-o", str(null)).exit_code == 0
    _one_line_error(_eval(files, "-o", str(full)), str(full), "no space left on device")
    for node in (null, full):
        st = os.lstat(node)
        assert stat.S_ISCHR(st.st_mode) and st.st_rdev in (os.makedev(1, 3), os.makedev(1, 7))
    assert _strays(tmp_path) == []


def test_dev_stdout_is_this_process_stdout(files):
    before = os.lstat("/dev/stdout")
    result = subprocess.run([sys.executable, "-m", "unjudged", "eval", *files, "-m", "P@2",
                             "-f", "tsv", "-o", "/dev/stdout"], capture_output=True, text=True,
                            env={**os.environ, "PYTHONPATH": SRC}, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout == EXPECTED
    after = os.lstat("/dev/stdout")  # the system's entry is untouched (not renamed over)
    assert (after.st_ino, after.st_mode, after.st_mtime_ns) == \
        (before.st_ino, before.st_mode, before.st_mtime_ns)


def test_dev_stdout_appends_where_the_shell_appends(files, tmp_path):
    log = tmp_path / "log.tsv"
    log.write_text("before\n")
    with open(log, "a") as fh:
        subprocess.run([sys.executable, "-m", "unjudged", "eval", *files, "-m", "P@2", "-f",
                        "tsv", "-o", "/dev/stdout"], stdout=fh, check=True, timeout=60,
                       env={**os.environ, "PYTHONPATH": SRC})
    assert log.read_text() == "before\n" + EXPECTED


def test_mode_is_kept_and_new_files_follow_the_umask(files, tmp_path):
    private = tmp_path / "private.tsv"
    private.write_text("old\n")
    private.chmod(0o600)
    assert _eval(files, "-o", str(private)).exit_code == 0
    assert stat.S_IMODE(private.stat().st_mode) == 0o600 and private.read_text() == EXPECTED
    mask = os.umask(0o027)
    try:
        write_file(str(tmp_path / "new.tsv"), "x")
    finally:
        os.umask(mask)
    assert stat.S_IMODE((tmp_path / "new.tsv").stat().st_mode) == 0o640


def test_hard_link_is_written_into_the_same_file(files, tmp_path):
    a, b = tmp_path / "a.tsv", tmp_path / "b.tsv"
    a.write_text("old content, longer than the new one " * 10)
    os.link(a, b)
    inode = a.stat().st_ino
    assert _eval(files, "-o", str(a)).exit_code == 0
    assert a.stat().st_ino == inode and a.stat().st_nlink == 2
    assert b.read_text() == EXPECTED == a.read_text()


@pytest.mark.parametrize("target,needles", [
    ("", ["cannot write '': empty file name"]),
    ("missing/dir/x.tsv", ["missing/dir/x.tsv", "folder missing/dir does not exist"]),
    ("somedir", ["somedir: it is a folder"]),
    ("somedir/", ["somedir/: it is a folder"]),
    ("afile/x.tsv", ["afile/x.tsv", "not a folder"]),
])
def test_impossible_targets_are_one_line(files, tmp_path, monkeypatch, target, needles):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "somedir").mkdir()
    (tmp_path / "afile").write_text("keep\n")
    _one_line_error(_eval(files, "-o", target), *needles)
    assert (tmp_path / "afile").read_text() == "keep\n"
    assert _strays(tmp_path) == [] and _strays(tmp_path / "somedir") == []


@pytest.fixture
def small_tmpfs(tmp_path):
    """A 64 KiB tmpfs, where this test may mount one."""
    where = tmp_path / "fs"
    where.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(where)],
                          capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", str(where)], check=False)


def test_full_disk_keeps_the_old_content_and_leaves_nothing(files, small_tmpfs):
    out = small_tmpfs / "out.tsv"
    out.write_text("old\n")
    big = "x" * 200_000
    with pytest.raises(OutputError, match="no space left on device"):
        write_file(str(out), big)
    assert out.read_text() == "old\n" and os.listdir(small_tmpfs) == ["out.tsv"]
    atomic.USE_O_TMPFILE, saved = False, atomic.USE_O_TMPFILE
    try:
        with pytest.raises(OutputError, match="no space left on device"):
            write_file(str(out), big)
    finally:
        atomic.USE_O_TMPFILE = saved
    assert out.read_text() == "old\n" and os.listdir(small_tmpfs) == ["out.tsv"]
    # the hard-linked case reserves the space before touching the old content
    os.link(out, small_tmpfs / "other.tsv")
    with pytest.raises(OutputError, match="no space left on device"):
        write_file(str(out), big)
    assert out.read_text() == "old\n" == (small_tmpfs / "other.tsv").read_text()
    # and from the command line: one line, exit 2
    (small_tmpfs / "other.tsv").unlink()
    (small_tmpfs / "filler").write_bytes(b"\0" * (64 * 1024 - 4096))
    _one_line_error(_eval(files, "-o", str(out)), str(out), "no space left on device")
    assert out.read_text() == "old\n"


def test_read_only_file_system(files, small_tmpfs):
    out = small_tmpfs / "out.tsv"
    out.write_text("old\n")
    subprocess.run(["mount", "-o", "remount,ro", str(small_tmpfs)], check=True)
    _one_line_error(_eval(files, "-o", str(out)), str(out), "read-only file system")
    _one_line_error(_eval(files, "-o", str(small_tmpfs / "new.tsv")), "read-only file system")
    with pytest.raises(OutputError, match="read-only file system"):
        check_targets([str(out)])
    assert out.read_text() == "old\n"


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores folder permissions")
def test_permission_denied(files, tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        _one_line_error(_eval(files, "-o", str(locked / "x.tsv")), "permission denied")
    finally:
        locked.chmod(0o700)


_KILLED = """
import os, sys
from unjudged.io import atomic
atomic.USE_O_TMPFILE = {anonymous}
with atomic.open_output(sys.argv[1]) as fh:
    fh.write(b"partial " * 300_000)
    fh.flush()
    os.kill(os.getpid(), 9)
"""


@pytest.mark.parametrize("anonymous", [True, False])
def test_kill_9_in_the_write_window(tmp_path, anonymous):
    out = tmp_path / "out.tsv"
    out.write_text("old\n")
    done = subprocess.run([sys.executable, "-c", _KILLED.format(anonymous=anonymous),
                           str(out)], env={**os.environ, "PYTHONPATH": SRC}, timeout=60)
    assert done.returncode == -9
    assert out.read_text() == "old\n"
    if anonymous and atomic.USE_O_TMPFILE:
        assert _strays(tmp_path) == []  # an O_TMPFILE file has no name to leave behind
    else:
        assert len(_strays(tmp_path)) == 1  # named after the dead writer's pid ...
    write_file(str(tmp_path / "next.tsv"), "next\n")
    assert _strays(tmp_path) == []  # ... and removed by the next write into the folder
    assert sorted(os.listdir(tmp_path)) == ["next.tsv", "out.tsv"]


def test_a_live_writers_temporary_file_is_left_alone(tmp_path):
    live = tmp_path / f".unjudged-{atomic._HOST}-{os.getpid()}-0123abcd.tmp"
    live.write_text("busy")
    other_host = tmp_path / ".unjudged-elsewhere-999999999-0123abcd.tmp"
    other_host.write_text("busy")
    write_file(str(tmp_path / "x"), "x")
    assert live.exists() and other_host.exists()


def test_failure_inside_the_block_leaves_the_old_content(tmp_path):
    out = tmp_path / "out.tsv"
    out.write_text("old\n")
    for anonymous in (True, False):
        atomic.USE_O_TMPFILE, saved = anonymous and atomic.USE_O_TMPFILE, atomic.USE_O_TMPFILE
        try:
            with pytest.raises(ZeroDivisionError), open_output(str(out)) as fh:
                fh.write(b"new" * 1_000_000)
                raise ZeroDivisionError  # any failure while writing
        finally:
            atomic.USE_O_TMPFILE = saved
    assert out.read_text() == "old\n" and os.listdir(tmp_path) == ["out.tsv"]


def test_unix_socket_receives_the_bytes(tmp_path):
    import socket

    path = str(tmp_path / "sock")
    got = []
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind(path)
        server.listen(1)

        def serve():
            conn, _ = server.accept()
            with conn:
                chunks = iter(lambda: conn.recv(65536), b"")
                got.append(b"".join(chunks))

        t = threading.Thread(target=serve)
        t.start()
        write_file(path, b"hello\n")
        t.join(10)
    assert got == [b"hello\n"]


def test_output_error_is_an_unjudged_error():
    err = OutputError("x", "it is a folder")
    assert isinstance(err, UnjudgedError) and err.path == "x" and err.reason == "it is a folder"


def test_check_targets_folders(tmp_path):
    (tmp_path / "f").write_text("")
    check_targets(folders=[str(tmp_path / "new" / "deeper"), str(tmp_path)])
    with pytest.raises(OutputError, match="exists and is not a folder"):
        check_targets(folders=[str(tmp_path / "f")])
    with pytest.raises(OutputError, match="is not a folder"):
        check_targets(folders=[str(tmp_path / "f" / "sub")])
    with pytest.raises(OutputError, match="it is a folder"):
        check_targets([str(tmp_path)])


def test_every_output_is_checked_before_any_is_written(tmp_path):
    (tmp_path / "qrels").write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n")
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "x").write_text("1 Q0 a 1 2.0 x\n1 Q0 b 2 1.0 x\n2 Q0 c 1 1.0 x\n")
    (runs / "y").write_text("1 Q0 b 1 2.0 y\n1 Q0 a 2 1.0 y\n2 Q0 z 1 1.0 y\n")
    bad = str(tmp_path / "missing" / "out.tsv")
    for args in (["matrix", "-m", "P", "--depths", "1", "--plot", str(tmp_path / "figs")],
                 ["coverage", "--plot", str(tmp_path / "figs.png"), "--unjudged-out",
                  str(tmp_path / "unjudged.txt")]):
        r = CliRunner().invoke(main, [args[0], str(tmp_path / "qrels"), str(runs), *args[1:],
                                      "-o", bad])
        _one_line_error(r, bad, "does not exist")
        assert sorted(os.listdir(tmp_path)) == ["qrels", "runs"], args


def test_copy_falls_back_to_reading_and_writing(tmp_path, monkeypatch):
    src, dst = tmp_path / "src", tmp_path / "dst"
    src.write_bytes(bytes(range(256)) * 9000)
    monkeypatch.setattr(os, "copy_file_range", lambda *a: (_ for _ in ()).throw(
        OSError(38, "Function not implemented")))
    with open(src, "rb") as a, open(dst, "wb") as b:
        atomic._copy(a.fileno(), b.fileno(), src.stat().st_size)
    assert dst.read_bytes() == src.read_bytes()


def test_anonymous_file_copied_out_where_it_cannot_be_linked(tmp_path, monkeypatch):
    def refuse(fd, name):
        raise OSError(18, "Invalid cross-device link")

    monkeypatch.setattr(atomic, "_link_empty_path", refuse)
    monkeypatch.setattr(atomic, "_link_proc", refuse)
    monkeypatch.setattr(atomic, "_NO_LINK", set())
    out = tmp_path / "out.tsv"
    out.write_text("old\n")
    out.chmod(0o640)
    write_file(str(out), "new\n" * 100_000)
    assert out.read_text() == "new\n" * 100_000 and stat.S_IMODE(out.stat().st_mode) == 0o640
    assert {out.stat().st_dev} == atomic._NO_LINK and os.listdir(tmp_path) == ["out.tsv"]
    write_file(str(out), "again\n")  # named temporary files on this device from now on
    assert out.read_text() == "again\n" and os.listdir(tmp_path) == ["out.tsv"]


# Files that may write on their own; every other module goes through unjudged.io.atomic
# (`np.savez(fh, ...)` writes into a handle from its open_output).
_OWN_WRITERS = {"io/atomic.py"}
_WRITES = re.compile(r"\.savefig\(|\.to_parquet\(|\.to_csv\([^)]*(path|file)|np\.savez?\((?!fh\b)|"
                     r"open\([^)]*[\"'][wax]b?[\"']|os\.replace\(|mkstemp\(|write_(text|bytes)\(")


def test_no_module_writes_files_past_the_writer():
    src = Path(SRC) / "unjudged"
    found = []
    for path in sorted(src.rglob("*.py")):
        rel = path.relative_to(src).as_posix()
        if rel in _OWN_WRITERS:
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#")[0] if not line.lstrip().startswith(">>>") else ""
            if _WRITES.search(code) and "buf" not in code:
                found.append(f"{rel}:{number}: {line.strip()}")
    assert found == []


def test_numpy_writes_through_open_output(tmp_path):
    import numpy as np

    out = tmp_path / "cache.npz"
    with open_output(str(out)) as fh:
        np.savez(fh, key=np.array("k"), data=np.arange(300_000))
    with np.load(out) as z:
        assert str(z["key"]) == "k" and z["data"].sum() == 300_000 * 299_999 // 2
    assert os.listdir(tmp_path) == ["cache.npz"]


@pytest.mark.skipif(os.geteuid() != 0, reason="only root may give a file to another owner")
def test_owner_is_kept_where_permitted(tmp_path):
    out = tmp_path / "theirs.tsv"
    out.write_text("old\n")
    os.chown(out, 4321, 4321)
    out.chmod(0o604)
    write_file(str(out), "new\n")
    st = out.stat()
    assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (4321, 4321, 0o604)
    assert out.read_text() == "new\n"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
@pytest.mark.parametrize("args", [
    ["trec_eval", "{q}", "{r}"],  # the plain trec_eval call (without click)
    ["eval", "{q}", "{r}", "-m", "P@2"],
    ["eval", "{q}", "{r}", "-m", "P@2", "--stream"],
    ["estimate", "{q}", "{r}", "-m", "P@2", "-b", "20", "-f", "jsonl"],
    ["--help"],
], ids=["trec_eval", "eval", "stream", "estimate", "help"])
def test_standard_output_on_a_full_disk_is_one_line(tmp_path, args):
    """Standard output that refuses the bytes (here /dev/full: no space left on device) gave
    a traceback in every command, --help too: now one line and exit code 2."""
    (tmp_path / "q").write_text(QRELS)
    (tmp_path / "r").write_text(RUN)
    argv = [a.format(q=tmp_path / "q", r=tmp_path / "r") for a in args]
    with open("/dev/full", "w") as full:
        r = subprocess.run([sys.executable, "-m", "unjudged", *argv], stdout=full,
                           stderr=subprocess.PIPE, text=True, timeout=120,
                           env=dict(os.environ, PYTHONPATH=SRC))
    assert r.returncode == 2, r.stderr
    assert [line for line in r.stderr.splitlines() if "note:" not in line] == [
        "unjudged: error: cannot write standard output: no space left on device"]


@pytest.mark.parametrize("command", ["eval", "trec_eval"])
def test_a_reader_that_stops_early_ends_the_command_quietly(tmp_path, command):
    """`unjudged ... | head -1`: the closed pipe ends the command with exit 0 and nothing on
    stderr (no traceback, no "Exception ignored"), in click's commands and the plain
    trec_eval call alike (click alone would exit 1)."""
    (tmp_path / "q").write_text("".join(f"{t} 0 d{t} 1\n" for t in range(3000)))
    (tmp_path / "r").write_text("".join(f"{t} Q0 d{t} 1 1 r\n" for t in range(3000)))
    extra = ["-m", "P@5", "-m", "AP", "-m", "nDCG"] if command == "eval" else []
    proc = subprocess.Popen([sys.executable, "-m", "unjudged", command, "-q",
                             str(tmp_path / "q"), str(tmp_path / "r"), *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=dict(os.environ, PYTHONPATH=SRC))
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline()  # more than a pipe's buffer follows
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 0, err
    assert err == ""
