"""Turn a path, '-' or an open binary stream into the raw bytes of a text file.

Compression is recognised by magic bytes, not by the file name, so a renamed `.gz` still reads.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import sys
from typing import BinaryIO

from unjudged.errors import InputError

_MAGIC = (
    (b"\x1f\x8b", gzip.decompress, "gzip"),
    (b"BZh", bz2.decompress, "bzip2"),
    (b"\xfd7zXZ\x00", lzma.decompress, "xz"),
)


def display_name(source: str | os.PathLike[str] | BinaryIO) -> str:
    """The name used in error messages and as the default run name."""
    if isinstance(source, (str, os.PathLike)):
        return "<stdin>" if str(source) == "-" else os.fspath(source)
    return getattr(source, "name", "<stream>")


def read_bytes(source: str | os.PathLike[str] | BinaryIO) -> bytes:
    """Read and decompress a whole input; raises InputError naming the file."""
    name = display_name(source)
    try:
        if isinstance(source, (str, os.PathLike)):
            if str(source) == "-":
                raw = sys.stdin.buffer.read()
            else:
                with open(source, "rb") as fh:
                    raw = fh.read()
        else:
            raw = source.read()
    except FileNotFoundError:
        raise InputError(name, "no such file") from None
    except IsADirectoryError:
        raise InputError(name, "is a directory, expected a file") from None
    except OSError as exc:
        raise InputError(name, f"cannot read: {exc.strerror or exc}") from None
    for magic, decompress, kind in _MAGIC:
        if raw.startswith(magic):
            try:
                return decompress(raw)
            except (OSError, EOFError, lzma.LZMAError, ValueError) as exc:
                raise InputError(name, f"corrupt {kind} data: {exc}") from None
    return raw
