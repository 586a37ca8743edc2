"""Write a result file all at once: to a temporary file beside it, renamed into place only
when complete, so a failure never leaves a half-written output."""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from typing import Iterator


def _file_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


_FILE_MODE = _file_mode()


@contextmanager
def atomic_path(path: str | os.PathLike[str], suffix: str = "") -> Iterator[str]:
    """A temporary path beside `path` to write to; renamed to `path` when the block ends
    without an exception, removed otherwise. The file gets ordinary permissions (mkstemp's
    are private).

    Example:
        >>> import tempfile, os
        >>> target = os.path.join(tempfile.mkdtemp(), "out.txt")
        >>> with atomic_path(target) as tmp:
        ...     _ = open(tmp, "w").write("done")
        >>> open(target).read()
        'done'
    """
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".unjudged-", suffix=suffix, dir=folder)
    os.close(fd)
    try:
        os.chmod(tmp, _FILE_MODE)
        yield tmp
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
