"""Turn a path, '-' or an open binary stream into the raw bytes of a text file.

Compression is recognised by magic bytes, not by the file name, so a renamed `.gz` still reads.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import sys
from typing import BinaryIO, Iterator

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


def iter_lines(data: bytes) -> Iterator[tuple[int, bytes]]:
    """(1-based number, line without its CR/LF) for each line, without copying the buffer."""
    start, number = 0, 1
    while start < len(data):
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        yield number, data[start:end].rstrip(b"\r")
        start, number = end + 1, number + 1


def data_lines(data: bytes) -> Iterator[tuple[int, list[bytes]]]:
    """(line number, fields) of every line that is neither blank nor a `#` comment."""
    for number, line in iter_lines(data):
        fields = line.split()
        if fields and not fields[0].startswith(b"#"):
            yield number, fields


def is_compressed(head: bytes) -> bool:
    """Whether bytes start with the magic of a compression format read_bytes understands."""
    return any(head.startswith(magic) for magic, _, _ in _MAGIC)


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
