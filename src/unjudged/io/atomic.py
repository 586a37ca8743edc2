"""The one writer every output goes through (`-o`, side outputs, figures, caches).

    write_file(path, text_or_bytes)      the whole content at once
    with open_output(path) as fh: ...    a write-only binary file (np.savez, pyarrow accept it)
    write_figure(fig, path, dpi=...)     a matplotlib figure, rendered in memory first
    check_targets(files, folders)        every output of a command, before any is written
    make_folder(path)                    a side-output folder, created if missing

What happens depends on what the path is now:

- ``-``: standard output, streaming.
- ``/dev/stdout``, ``/dev/stderr``, ``/dev/fd/N``, ``/proc/self/fd/N``: that descriptor of this
  process, streaming (a shell's ``>>`` keeps appending).
- a character or block device, a FIFO: opened and written in place, streaming; never renamed
  over. A Unix socket: connected to and sent the bytes.
- a new path or a regular file: written completely to an anonymous file in the same folder
  (Linux ``O_TMPFILE``; elsewhere a temporary file named ``.unjudged-HOST-PID-XXXX.tmp``) and
  renamed into place only when complete and flushed to disk. A symlink is followed: its target
  is replaced and the link stays. An existing file keeps its mode (and owner where permitted).
- a regular file with other hard links (``st_nlink > 1``): renaming would split it from its
  other names, so the complete content is written into the same file instead. Space for it is
  reserved first (``posix_fallocate``), so a full disk is found before the old content is
  touched; only a crash in the middle of that write can leave it incomplete.
- a folder, an empty name, a path in a missing folder: refused.

Every failure is one :class:`~unjudged.errors.OutputError` naming the path and the reason;
the previous content stays intact and no temporary file is left behind. A temporary file whose
writer was killed (``kill -9``) is removed by the next process that writes into that folder.
"""

from __future__ import annotations

import errno
import io
import os
import re
import socket
import stat
import sys
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from typing import Any

from unjudged.errors import OutputError

_REASONS = {
    errno.ENOENT: "no such file or folder",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.EROFS: "read-only file system",
    errno.ENOSPC: "no space left on device",
    errno.EDQUOT: "disk quota exceeded",
    errno.EISDIR: "it is a folder",
    errno.ENOTDIR: "a part of the path is not a folder",
    errno.ENAMETOOLONG: "file name too long",
    errno.EFBIG: "file too large",
    errno.ENXIO: "no reader or device behind it",
}

_HOST = "".join(c if c.isascii() and c.isalnum() else "_" for c in socket.gethostname()) or "host"
# patterns compiled on first use (re caches them): each costs 1-3M instructions, and a call
# that writes to stdout uses none of them
_TEMP = r"\.unjudged-(?P<host>[A-Za-z0-9_]+)-(?P<pid>\d+)-[0-9a-f]+\.tmp\Z"
# Left by versions before this writer (no pid in the name): removed once clearly abandoned.
_OLD_TEMP = r"\.unjudged-[a-z0-9_]{8}(\.[A-Za-z0-9]+)?\Z"
_OLD_AGE = 3600.0
_FD_ALIAS = (r"/dev/(?:(?P<std>stdout|stderr)|fd/(?P<fd>\d+))"
             r"|/proc/(?P<pid>self|thread-self|\d+)/fd/(?P<pfd>\d+)")
#: Tests set this to False to exercise the fallback for file systems without O_TMPFILE.
USE_O_TMPFILE = hasattr(os, "O_TMPFILE") and os.path.isdir("/proc/self/fd")
_CHUNK = 1 << 20
_NO_LINK: set[int] = set()  # devices where an O_TMPFILE file cannot be linked into place
_SWEPT: set[str] = set()  # folders already cleared of dead writers' temporary files


def reason(exc: OSError) -> str:
    """A few words for an OS error, without the path (the message names it once).

    Example:
        >>> reason(OSError(28, "No space left on device"))
        'no space left on device'
    """
    return _REASONS.get(exc.errno or 0) or (exc.strerror or str(exc)).lower()


def write_file(path: str | os.PathLike[str], data: bytes | memoryview | str, *,
               follow_symlinks: bool = True) -> None:
    """Write all of `data` (text is UTF-8) to `path` by the rules of this module
    (`follow_symlinks` as for open_output).

    Example:
        >>> import tempfile, os
        >>> target = os.path.join(tempfile.mkdtemp(), "out.txt")
        >>> write_file(target, "done\\n")
        >>> open(target).read()
        'done\\n'
        >>> write_file(os.path.dirname(target), "x")
        Traceback (most recent call last):
        unjudged.errors.OutputError: cannot write ...: it is a folder
    """
    if os.fspath(path) == "-" and isinstance(data, str):
        sys.stdout.write(data)  # through sys.stdout, so that a captured stdout captures it
        sys.stdout.flush()
        return
    with open_output(path, follow_symlinks=follow_symlinks) as fh:
        if isinstance(data, str):
            for start in range(0, len(data), _CHUNK):  # never a second copy of a large text
                fh.write(data[start:start + _CHUNK].encode("utf-8"))
        else:
            fh.write(data)


def fresh_file(prefix: str, suffix: str, folder: str | None = None) -> str:
    """A new empty file of this user's (O_EXCL, mode 0600) with a unique name in `folder` (the
    system's temporary folder by default), for an output whose name the program chooses in a
    folder others write to: never another user's file or symlink, never another run's.

    Example:
        >>> import tempfile, os
        >>> where = tempfile.mkdtemp()
        >>> a, b = fresh_file("x-", ".html", where), fresh_file("x-", ".html", where)
        >>> a != b, os.path.getsize(a), oct(os.stat(a).st_mode & 0o777)
        (True, 0, '0o600')
    """
    import tempfile

    try:
        fd, path = tempfile.mkstemp(suffix, prefix, folder)
    except OSError as exc:
        raise OutputError(os.path.join(folder or tempfile.gettempdir(), prefix + "*" + suffix),
                          reason(exc)) from None
    os.close(fd)
    return path


@contextmanager
def open_output(path: str | os.PathLike[str], *, follow_symlinks: bool = True
                ) -> Iterator[Any]:
    """A binary file to write `path`'s new content to; it takes effect when the block ends
    without an exception and is discarded otherwise. OS errors become an OutputError.

    `follow_symlinks=False` is for names the program chooses itself in folders others may
    write to (caches, the demo's page): `path` must be absent or a regular file, never a
    symlink, device or FIFO (an OutputError otherwise); a new file is created beside it with
    O_EXCL and renamed over the name itself, so no other file is ever written through it, and
    an existing file's owner and mode are not carried over.

    Example:
        >>> import tempfile, os
        >>> target = os.path.join(tempfile.mkdtemp(), "out.bin")
        >>> with open_output(target) as fh:
        ...     _ = fh.write(b"abc")
        >>> open(target, "rb").read()
        b'abc'
    """
    name = os.fspath(path)
    sink = _sink(name) if follow_symlinks else _own_sink(name)
    try:
        sink.open()
        yield sink.fh
        sink.commit()
    except OSError as exc:
        sink.abort()
        if isinstance(exc, BrokenPipeError):
            raise
        raise OutputError(name, reason(exc)) from None
    except BaseException:
        sink.abort()
        raise


def write_figure(fig, path: str | os.PathLike[str], **savefig: object) -> None:
    """Render a matplotlib figure in memory (format from the file name's ending) and write it
    with `write_file`, so that a failure never leaves a truncated image."""
    ext = os.path.splitext(os.fspath(path))[1].lower().lstrip(".") or "png"
    buf = io.BytesIO()
    fig.savefig(buf, format=ext, **savefig)
    write_file(path, buf.getbuffer())


def check_targets(files: Iterable[str | None] = (), folders: Iterable[str | None] = ()) -> None:
    """Raise an OutputError unless every file (to be written by `write_file`) and every folder
    (to be created if missing and filled) can be written. Call it for all the outputs of a
    command before writing any of them; None entries are skipped.

    Example:
        >>> import tempfile, os
        >>> where = tempfile.mkdtemp()
        >>> check_targets([os.path.join(where, "a.tsv")], [os.path.join(where, "figs")])
        >>> check_targets([os.path.join(where, "no", "a.tsv")])
        Traceback (most recent call last):
        unjudged.errors.OutputError: cannot write .../no/a.tsv: folder .../no does not exist
    """
    for f in files:
        if f is not None:
            sink = _sink(os.fspath(f))
            if isinstance(sink, _Replace):
                _check_access(sink.name, sink.folder)
            elif not isinstance(sink, _Descriptor):
                _check_access(sink.name, sink.name)
    for d in folders:
        if d is not None:
            _check_folder(os.fspath(d))


def make_folder(path: str | os.PathLike[str]) -> str:
    """Create the folder `path` (and its parents) unless it exists; an OutputError if it is
    something else or cannot be created. Returns `path`."""
    name = os.fspath(path)
    _check_folder(name)
    with _as_output_error(name):
        os.makedirs(name, exist_ok=True)
    return name


@contextmanager
def _as_output_error(path: str) -> Iterator[None]:
    try:
        yield
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise OutputError(path, reason(exc)) from None


def _check_access(path: str, where: str) -> None:
    if os.access(where, os.W_OK):
        return
    try:
        read_only = os.statvfs(where).f_flag & os.ST_RDONLY
    except OSError:
        read_only = False
    raise OutputError(path, "read-only file system" if read_only else "permission denied")


def _check_folder(path: str) -> None:
    if path == "":
        raise OutputError(path, "empty folder name")
    probe = os.path.abspath(path)
    while not os.path.exists(probe):
        parent = os.path.dirname(probe)
        if parent == probe:
            break
        probe = parent
    if not os.path.isdir(probe):
        shown = path if probe == os.path.abspath(path) else probe
        raise OutputError(path, f"{shown} exists and is not a folder")
    _check_access(path, probe)


def _sink(path: str) -> _Sink:
    """How to write `path`, decided from what it is now (see the module docstring)."""
    if path == "":
        raise OutputError(path, "empty file name")
    if path == "-":
        return _Descriptor(path, -1)
    alias = re.fullmatch(_FD_ALIAS, path)
    if alias and alias["pid"] not in (None, "self", "thread-self", str(os.getpid())):
        alias = None  # another process's descriptor: an ordinary (special) file
    if alias:
        return _Descriptor(path, {"stdout": 1, "stderr": 2}[alias["std"]] if alias["std"]
                           else int(alias["fd"] or alias["pfd"]))
    try:
        st = os.stat(path)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise OutputError(path, reason(exc)) from None
    if st is None and path.endswith(("/", os.sep)):
        raise OutputError(path, "a folder name, not a file name")
    if st is None:
        real = os.path.realpath(path)  # a dangling symlink: create its target
        folder = os.path.dirname(real)
        if not os.path.isdir(folder):
            shown = os.path.dirname(path) or "."
            what = "is not a folder" if os.path.exists(folder) else "does not exist"
            raise OutputError(path, f"folder {shown} {what}")
        return _Replace(path, real, None)
    if stat.S_ISDIR(st.st_mode):
        raise OutputError(path, "it is a folder")
    if stat.S_ISREG(st.st_mode):
        real = os.path.realpath(path)
        return _InPlace(path, real) if st.st_nlink > 1 else _Replace(path, real, st)
    if stat.S_ISSOCK(st.st_mode):
        return _Socket(path)
    return _Stream(path)


def _own_sink(path: str) -> _Sink:
    """The sink of open_output(follow_symlinks=False): a new file renamed over `path`."""
    if path == "" or path.endswith(("/", os.sep)):
        raise OutputError(path, "not a file name")
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise OutputError(path, reason(exc)) from None
    if st is not None and stat.S_ISLNK(st.st_mode):
        raise OutputError(path, "it is a symbolic link (not followed)")
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise OutputError(path, "it is not a regular file")
    full = os.path.abspath(path)
    if not os.path.isdir(os.path.dirname(full)):
        raise OutputError(path, f"folder {os.path.dirname(path) or '.'} does not exist")
    return _Replace(path, full, None)


class _Sink:
    """Where the bytes go: `open()` makes `fh`, then `commit()` or `abort()`."""

    fh: Any

    def __init__(self, name: str) -> None:
        self.name = name

    def open(self) -> None:
        self.fh = io.BytesIO()

    def commit(self) -> None:
        raise NotImplementedError

    def abort(self) -> None:
        """Drop what was written and not yet sent; nothing more reaches the target."""
        fh = getattr(self, "fh", None)
        if isinstance(fh, _FdWriter):
            fh.close()


class _Descriptor(_Sink):
    """Standard output (fd -1 means sys.stdout) or an already open descriptor, streaming."""

    def __init__(self, name: str, fd: int) -> None:
        super().__init__(name)
        self.fd = fd

    def open(self) -> None:
        sys.stdout.flush()
        sys.stderr.flush()
        if self.fd != -1:
            self.fh = _FdWriter(os.dup(self.fd))
        elif hasattr(sys.stdout, "buffer"):
            self.fh = sys.stdout.buffer
        else:
            self.fh = io.BytesIO()  # a test's capture without a binary buffer

    def commit(self) -> None:
        if isinstance(self.fh, io.BytesIO):
            sys.stdout.write(self.fh.getvalue().decode("utf-8", "replace"))
            sys.stdout.flush()
            return
        self.fh.flush()
        if isinstance(self.fh, _FdWriter):
            self.fh.close()


class _Stream(_Sink):
    """A device or FIFO: written where it is; there is nothing to rename or fsync."""

    def open(self) -> None:
        self.fh = _FdWriter(os.open(self.name, os.O_WRONLY | os.O_CLOEXEC))

    def commit(self) -> None:
        self.fh.flush()
        self.fh.close()


class _FdWriter(io.RawIOBase):
    """Buffered, write-only, unseekable file on a descriptor (numpy and zipfile accept it).
    Closing it drops what was not flushed: a failed output must never reach its target later
    (a BufferedWriter would flush on garbage collection, to whatever file then holds the
    descriptor's number). Commits flush first."""

    def __init__(self, fd: int, owned: bool = True) -> None:
        super().__init__()
        self.fd = fd
        self.owned = owned
        self.buf = bytearray()

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        with memoryview(data) as view, view.cast("B") as flat:
            if len(flat) >= _CHUNK:  # large pieces go straight out, without a copy
                self.flush()
                self._write_all(flat)
            else:
                self.buf += flat
                if len(self.buf) >= _CHUNK:
                    self.flush()
            return len(flat)

    def flush(self) -> None:
        if self.buf and self.fd >= 0:
            with memoryview(self.buf) as view:
                self._write_all(view)
        self.buf = bytearray()

    def _write_all(self, view: memoryview) -> None:
        done = 0
        while done < len(view):
            done += os.write(self.fd, view[done:done + _CHUNK])

    def close(self) -> None:
        self.buf = bytearray()
        if self.owned and self.fd >= 0:
            os.close(self.fd)
        self.fd = -1
        super().close()


class _Socket(_Sink):
    """A Unix socket: connected to once the content is complete."""

    def commit(self) -> None:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.connect(self.name)
            s.sendall(self.fh.getvalue())


class _InPlace(_Sink):
    """A hard-linked regular file: the complete content goes into the same inode, after its
    space is reserved, so that every name of the file sees the new content."""

    def __init__(self, name: str, real: str) -> None:
        super().__init__(name)
        self.real = real

    def commit(self) -> None:
        data = self.fh.getvalue()
        fd = os.open(self.real, os.O_WRONLY | os.O_CLOEXEC)
        try:
            size = os.fstat(fd).st_size
            try:
                if data and hasattr(os, "posix_fallocate"):  # not on macOS
                    os.posix_fallocate(fd, 0, len(data))
            except OSError as exc:
                if os.fstat(fd).st_size != size:
                    os.ftruncate(fd, size)
                if exc.errno not in (errno.EOPNOTSUPP, errno.EINVAL):
                    raise
            view = memoryview(data)
            done = 0
            while done < len(data):
                done += os.pwrite(fd, view[done:done + _CHUNK], done)
            os.ftruncate(fd, len(data))
            os.fsync(fd)
        finally:
            os.close(fd)


class _Replace(_Sink):
    """A new path or a regular file: an anonymous (or pid-named) file in the same folder,
    linked and renamed over `real` once complete."""

    def __init__(self, name: str, real: str, st: os.stat_result | None) -> None:
        super().__init__(name)
        self.real = real
        self.folder = os.path.dirname(real)
        self.st = st
        self.temp: str | None = None
        self.fd = -1

    def open(self) -> None:
        _sweep(self.folder)
        self.fd = self._anonymous() if USE_O_TMPFILE else -1
        if self.fd < 0:
            self.temp = _temp_name(self.folder)
            self.fd = os.open(self.temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC,
                              0o666)  # the umask applies, as to any new file
        if self.st is not None:
            self._keep_owner_and_mode(self.st)
        self.fh = _FdWriter(self.fd, owned=False)

    def _anonymous(self) -> int:
        try:
            if os.stat(self.folder).st_dev in _NO_LINK:
                return -1
            # read-write, so that it can be copied out where linking it is refused
            return os.open(self.folder, os.O_TMPFILE | os.O_RDWR | os.O_CLOEXEC, 0o666)
        except OSError as exc:
            if exc.errno in (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL):
                return -1  # this file system has no O_TMPFILE
            raise

    def _keep_owner_and_mode(self, st: os.stat_result) -> None:
        _give(self.fd, st)
        os.fchmod(self.fd, stat.S_IMODE(st.st_mode))

    def commit(self) -> None:
        self.fh.flush()
        os.fsync(self.fd)
        temp = self._name_anonymous() if self.temp is None else self.temp
        os.replace(temp, self.real)
        self.temp = None
        self._close()
        try:
            dir_fd = os.open(self.folder, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            return
        try:
            os.fsync(dir_fd)  # the rename itself survives a crash
        except OSError:
            pass
        finally:
            os.close(dir_fd)

    def _name_anonymous(self) -> str:
        """Give the anonymous file a (temporary) name, and return it. Where the kernel refuses
        to link it (a /proc of another mount namespace answers EXDEV), copy it to a named file
        instead and use named files on this device from then on."""
        temp = _temp_name(self.folder)
        for link in (_link_empty_path, _link_proc):
            try:
                link(self.fd, temp)
                self.temp = temp
                return temp
            except OSError as exc:
                if exc.errno not in (errno.EXDEV, errno.ENOENT, errno.EPERM, errno.EACCES,
                                     errno.EOPNOTSUPP, errno.EINVAL, errno.ENOSYS):
                    raise
        _NO_LINK.add(os.fstat(self.fd).st_dev)
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        self.temp = temp
        try:
            os.fchmod(fd, stat.S_IMODE(os.fstat(self.fd).st_mode))
            if self.st is not None:
                _give(fd, self.st)
            _copy(self.fd, fd, os.fstat(self.fd).st_size)
            os.fsync(fd)
        finally:
            os.close(fd)
        return temp

    def abort(self) -> None:
        self._close()  # drops the writer's buffer as _Sink.abort does, and the descriptor
        if self.temp is not None:
            with suppress(OSError):
                os.unlink(self.temp)
            self.temp = None

    def _close(self) -> None:
        if isinstance(getattr(self, "fh", None), _FdWriter):
            self.fh.close()  # not owned: this only drops its buffer and number
        if self.fd >= 0:
            fd, self.fd = self.fd, -1
            with suppress(OSError):
                os.close(fd)


def _link_empty_path(fd: int, name: str) -> None:
    """linkat(fd, "", AT_FDCWD, name, AT_EMPTY_PATH): needs no /proc, but root (or Linux
    6.10+) and a C library to call."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.linkat(fd, b"", -100, os.fsencode(name), 0x1000) != 0:  # AT_FDCWD, AT_EMPTY_PATH
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))


def _link_proc(fd: int, name: str) -> None:
    """The same through /proc/self/fd, for anyone (but /proc must be this process's)."""
    os.link(f"/proc/self/fd/{fd}", name, follow_symlinks=True)


def _give(fd: int, st: os.stat_result) -> None:
    """The owner of the file replaced, where permitted (before fchmod: chown clears setuid)."""
    if (st.st_uid, st.st_gid) != (os.geteuid(), os.getegid()):
        with suppress(OSError):  # only root may give a file away; the mode is still kept
            os.fchown(fd, st.st_uid, st.st_gid)


def _copy(src: int, dst: int, size: int) -> None:
    """The first `size` bytes of `src` to `dst`: in the kernel where it can, else read and
    written in chunks."""
    done = 0
    try:
        while done < size and hasattr(os, "copy_file_range"):
            n = os.copy_file_range(src, dst, size - done, done, done)
            if n == 0:
                break
            done += n
    except OSError as exc:
        if exc.errno not in (errno.ENOSYS, errno.EXDEV, errno.EINVAL, errno.EOPNOTSUPP):
            raise
    while done < size:
        chunk = os.pread(src, min(_CHUNK, size - done), done)
        if not chunk:
            raise OSError(errno.EIO, "the temporary file ended early")
        done += os.pwrite(dst, chunk, done)


def _temp_name(folder: str) -> str:
    return os.path.join(folder, f".unjudged-{_HOST}-{os.getpid()}-{os.urandom(4).hex()}.tmp")


def _sweep(folder: str) -> None:
    """Remove temporary files of this host's writers that died (kill -9) before renaming;
    once per folder and process."""
    if folder in _SWEPT:
        return
    _SWEPT.add(folder)
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    now = time.time()
    for entry in entries:
        if not entry.name.startswith(".unjudged-"):
            continue
        m = re.match(_TEMP, entry.name)
        try:
            if m:
                stale = m["host"] == _HOST and not _alive(int(m["pid"]))
            else:
                stale = bool(re.match(_OLD_TEMP, entry.name)) and \
                    now - entry.stat(follow_symlinks=False).st_mtime > _OLD_AGE
            if stale and entry.is_file(follow_symlinks=False):
                os.unlink(entry.path)
        except OSError:
            pass


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True
