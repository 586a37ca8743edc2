"""Turn a path, '-' or an open binary stream into the raw bytes of a text file.

Each source is opened exactly once and read in chunks, so stdin, pipes, FIFOs and process
substitution (`<(zcat run.gz)`) read exactly what a regular file reads. Compression is recognised
by magic bytes, not by the file name, so a renamed `.gz` still reads; it is inflated in bounded
chunks. No line may be longer than `max_line_length()` bytes: /dev/zero or a decompression bomb
of zeros (no line end) stops there with one clear line instead of filling memory.

Lines end at LF, CRLF or a lone CR (a CR-only file reads as lines, never as one long line).
"""

from __future__ import annotations

import io
import os
import stat
import sys
import zlib

# the C modules behind bz2 and lzma (the same classes): the Python modules cost a
# per-call command 4M instructions at import, for files that are rarely compressed
from _bz2 import BZ2Decompressor
from _lzma import LZMADecompressor, LZMAError
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, BinaryIO

from unjudged.errors import FormatError, InputError, InvalidOptionError

DEFAULT_MAX_LINE = 1 << 20
_CHUNK = 1 << 22
_max_line: int | None = None

_MAGIC = ((b"\x1f\x8b", "gzip"), (b"BZh", "bzip2"), (b"\xfd7zXZ\x00", "xz"))
# bzip2's three letters can start a run line (topic "BZh1"): a stream also has a block size
# digit and then the magic of its first block, or of its end when empty
_BZIP2_NEXT = (b"1AY&SY", b"\x17rE8P\x90")


def compression(head: bytes) -> str | None:
    """The compression format `head` starts with, or None for plain text.

    Example:
        >>> import bz2
        >>> compression(bz2.compress(b"x")), compression(b"BZh1 Q0 a 1 1 r")
        ('bzip2', None)
    """
    for magic, kind in _MAGIC:
        if head.startswith(magic) and (
                kind != "bzip2"
                or (len(head) >= 10 and head[3] in b"123456789" and head[4:10] in _BZIP2_NEXT)):
            return kind
    return None


def max_line_length() -> int:
    """The longest line, in bytes, that the readers accept.

    Set by `set_max_line_length`, else by the environment variable UNJUDGED_MAX_LINE, else
    1 MiB (DEFAULT_MAX_LINE).

    Example:
        >>> set_max_line_length(4096); max_line_length()
        4096
        >>> set_max_line_length(None); max_line_length() == DEFAULT_MAX_LINE
        True
    """
    if _max_line is not None:
        return _max_line
    env = os.environ.get("UNJUDGED_MAX_LINE", "").strip()
    if env:
        try:
            value = int(env)
        except ValueError:
            raise InputError("UNJUDGED_MAX_LINE", f"{env!r} is not a whole number of bytes"
                             ) from None
        if value > 0:
            return value
    return DEFAULT_MAX_LINE


def set_max_line_length(limit: int | None) -> None:
    """Set the longest accepted line in bytes for this process (None: back to the default)."""
    global _max_line
    if limit is not None and limit < 1:
        raise InvalidOptionError("the line length limit must be at least 1 byte")
    _max_line = limit


@contextmanager
def line_limit(limit: int | None) -> Iterator[None]:
    """`set_max_line_length(limit)` for the block only (None: leave the limit as it is).

    Example:
        >>> with line_limit(100):
        ...     max_line_length()
        100
        >>> max_line_length() == DEFAULT_MAX_LINE
        True
    """
    global _max_line
    before = _max_line
    if limit is not None:
        set_max_line_length(limit)
    try:
        yield
    finally:
        _max_line = before


def readable(source: Any, what: str, also: str = "") -> Any:
    """`source` as the file readers take it: a path, '-' or a stream (bytes as a stream); any
    other object is InvalidOptionError naming `what` is read and what it may be (`also`: the
    objects the caller takes besides files).

    Example:
        >>> try:
        ...     readable(5, "qrels", "a dict")
        ... except InvalidOptionError as exc:
        ...     print(exc)
        qrels: cannot read int 5; expected a path, '-', a binary stream or a dict
    """
    if isinstance(source, (str, os.PathLike)) or hasattr(source, "read"):
        return source
    if isinstance(source, (bytes, bytearray, memoryview)):
        return io.BytesIO(bytes(source))
    shown = repr(source)
    shown = shown if len(shown) <= 40 else shown[:37] + "..."
    raise InvalidOptionError(f"{what}: cannot read {type(source).__name__} {shown}; expected a "
                             f"path, '-', a binary stream{' or ' + also if also else ''}")


def display_name(source: str | os.PathLike[str] | BinaryIO) -> str:
    """The name used in error messages and as the default run name."""
    if isinstance(source, (str, os.PathLike)):
        return "<stdin>" if str(source) == "-" else os.fspath(source)
    return getattr(source, "name", "<stream>")


BOM = b"\xef\xbb\xbf"


def unify_line_ends(data: bytes, start: bool = True) -> bytes:
    """CRLF and lone CR as LF (the same lines, so line numbers stay the same), and without a
    UTF-8 byte order mark at the very start (the first line is then read like any other) when
    `data` is the `start` of its file (a later piece keeps it: it is part of a topic id)."""
    if start and data.startswith(BOM):
        data = data[len(BOM):]
    if b"\r" not in data:
        return data
    return data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")


def iter_lines(data: bytes) -> Iterator[tuple[int, bytes]]:
    """(1-based number, line without its line end) for each line.

    >>> list(iter_lines(b"a\\r\\nb\\rc\\n"))
    [(1, b'a'), (2, b'b'), (3, b'c')]
    """
    data = unify_line_ends(data)
    start, number = 0, 1
    while start < len(data):
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        yield number, data[start:end]
        start, number = end + 1, number + 1


def data_lines(data: bytes) -> Iterator[tuple[int, list[bytes]]]:
    """(line number, fields) of every line that is neither blank nor a `#` comment."""
    for number, line in iter_lines(data):
        fields = line.split()
        if fields and not fields[0].startswith(b"#"):
            yield number, fields


def text_lines(data: bytes, name: str) -> Iterator[tuple[int, list[bytes]]]:
    """`data_lines` of a small file read line by line, refusing a NUL byte (even in a comment)
    at its own line: the caller's checks of the lines before it come first, so the first bad
    line in file order is the one named.

    Example:
        >>> list(text_lines(b"# note\\n1 a 1\\n", "f"))
        [(2, [b'1', b'a', b'1'])]
        >>> list(text_lines(b"1 a 1\\n#\\x00\\n", "f"))
        Traceback (most recent call last):
        ...
        unjudged.errors.FormatError: f:2: binary data (NUL byte), expected a text file
    """
    nul = data.find(b"\x00")
    at = line_number_at(data, nul) if nul >= 0 else None
    for number, fields in data_lines(data):
        if at is not None and number >= at:
            break
        yield number, fields
    if at is not None:
        raise FormatError(name, at, "binary data (NUL byte), expected a text file")


def first_data_line(head: bytes, complete: bool) -> tuple[int | None, list[bytes]]:
    """(number, fields) of the first line of `head` that is neither blank nor a comment, or
    (None, []). Unless `complete` (`head` is the whole text), a last line without its line end
    may be cut short, and is not taken.

    Example:
        >>> first_data_line(b"# runs\\n1 Q0 d 1 2 tag\\n1 Q0 e", False)
        (2, [b'1', b'Q0', b'd', b'1', b'2', b'tag'])
        >>> first_data_line(b"1 Q0 d 1 2 ta", False)
        (None, [])
    """
    if not complete:
        head = head[: max(head.rfind(b"\n"), head.rfind(b"\r")) + 1]
    return next(data_lines(head), (None, []))


def is_compressed(head: bytes) -> bool:
    """Whether bytes start with the magic of a compression format read_bytes understands."""
    return compression(head) is not None


def line_number_at(data: bytes, pos: int) -> int:
    """1-based number of the line holding byte `pos` (error path only)."""
    head = data[:pos]
    return head.count(b"\n") + head.count(b"\r") - head.count(b"\r\n") + 1


class LineLimit:
    """Checks chunk after chunk that no line is longer than `limit` bytes.

    Costs two memrchr passes over the text (a jump of about `limit` bytes per step), not a
    Python step per line. `check` returns the offset of the first byte past the limit in the
    chunk, or -1."""

    def __init__(self, limit: int):
        self.limit = limit
        self.carry = 0  # bytes of the current, unfinished line seen in earlier chunks

    def check(self, chunk: bytes | memoryview, n: int | None = None) -> int:
        n = len(chunk) if n is None else n
        pos, limit = 0, self.limit
        while True:
            stop = pos + limit - self.carry + 1  # the current line must end before this
            if stop > n:
                end = _last_end(chunk, pos, n)
                self.carry = n - end - 1 if end >= 0 else self.carry + n - pos
                return -1
            end = _last_end(chunk, pos, stop)
            if end < 0:
                return stop - 1
            pos, self.carry = end + 1, 0


def _last_end(chunk, start: int, stop: int) -> int:
    return max(chunk.rfind(b"\n", start, stop), chunk.rfind(b"\r", start, stop))


def too_long(path: str, line: int, limit: int) -> FormatError:
    return FormatError(path, line, f"line longer than {limit} bytes; a longer line is refused "
                       "(raise the limit with --max-line-length or UNJUDGED_MAX_LINE)")


def open_input(source: Any) -> tuple[BinaryIO, bool, bool]:
    """(binary stream, whether it is a regular file, whether the caller must close it).

    A path is opened once; whether Arrow may read it itself is decided on that descriptor."""
    name = display_name(source)
    if isinstance(source, io.TextIOBase):
        # a text stream: its bytes when it has them (an open file, stdin), else its text as
        # UTF-8 (a StringIO is already in memory)
        buffer = getattr(source, "buffer", None)
        return (buffer if buffer is not None else io.BytesIO(source.read().encode())), False, False
    if not isinstance(source, (str, os.PathLike)):
        return source, False, False
    if str(source) == "-":
        if sys.stdin is None:  # started with descriptor 0 closed (`<&-`)
            raise InputError(name, "standard input is closed, expected lines to read")
        return sys.stdin.buffer, False, False
    try:
        fh = open(source, "rb")  # noqa: SIM115 -- returned open; the caller closes it
    except FileNotFoundError:
        raise InputError(name, "no such file") from None
    except IsADirectoryError:
        raise InputError(name, "is a directory, expected a file") from None
    except OSError as exc:
        raise InputError(name, f"cannot read: {exc.strerror or exc}") from None
    try:
        mode = os.fstat(fh.fileno()).st_mode
    except OSError:
        mode = 0
    if stat.S_ISDIR(mode):
        fh.close()
        raise InputError(name, "is a directory, expected a file")
    return fh, stat.S_ISREG(mode), True


def read_bytes(source: str | os.PathLike[str] | BinaryIO, limit: int | None = None) -> bytes:
    """Read and decompress a whole input, checking the line length as it comes in.

    Raises InputError naming the file (FormatError with the line for a line over `limit`,
    by default max_line_length())."""
    fh, _, close = open_input(source)
    try:
        return read_stream(fh, display_name(source), limit)
    finally:
        if close:
            fh.close()


def read_stream(fh: BinaryIO, name: str, limit: int | None = None, head: bytes = b"",
                text_only: bool = False) -> bytes:
    """All the (decompressed) bytes of an open stream, `head` being bytes already taken.
    With `text_only`, reading stops at the end of the first line holding a NUL byte (binary
    data: the parser refuses it, naming that line or an earlier bad one), so that a device
    of endless bytes (/dev/urandom) is refused, not read until memory runs out."""
    chunks = text_chunks(fh, name, limit, head)
    parts = list(_to_binary_line(chunks) if text_only else chunks)
    return parts[0] if len(parts) == 1 else b"".join(parts)


def _to_binary_line(chunks: Iterator[bytes]) -> Iterator[bytes]:
    """`chunks` up to the line end after their first NUL byte (or all of them)."""
    nul = False
    for chunk in chunks:
        at = 0
        if not nul and b"\x00" in chunk:
            nul, at = True, chunk.index(b"\x00")
        if nul:
            end = chunk.find(b"\n", at)
            if end >= 0:
                yield chunk[:end + 1]
                return
        yield chunk


def text_chunks(fh: BinaryIO, name: str, limit: int | None = None, head: bytes = b""
                ) -> Iterator[bytes]:
    """The text of an open stream in chunks as they come: decompressed (the format known by
    its first bytes) and checked against the line length limit (max_line_length() unless
    given), a longer line being a FormatError that names it before anything past it is read.
    `head` holds bytes already taken from the stream.

    Example:
        >>> import gzip, io
        >>> b"".join(text_chunks(io.BytesIO(gzip.compress(b"1 0 a 1\\n")), "q"))
        b'1 0 a 1\\n'
    """
    limit = max_line_length() if limit is None else limit
    chunks = _raw_chunks(fh, name, head)
    first = next(chunks, b"")
    kind = compression(first)
    if kind is not None:
        chunks = _inflate(_chain(first, chunks), kind, name)
        first = next(chunks, b"")
    check, lines, last = LineLimit(limit), 0, b""
    for chunk in _chain(first, chunks):
        over = check.check(chunk)
        if over >= 0:
            # `lines` already counts the line end `last` may be
            line = lines + line_number_at(last + chunk, len(last) + over) - (last in (b"\r", b"\n"))
            raise too_long(name, line, limit)
        lines += _line_ends(chunk) - (last == b"\r" and chunk.startswith(b"\n"))
        last = chunk[-1:]
        yield chunk


def _line_ends(chunk: bytes) -> int:
    """LF, CRLF and lone CR line ends in `chunk` (as line_number_at counts them)."""
    ends = chunk.count(b"\n")
    return ends + chunk.count(b"\r") - chunk.count(b"\r\n") if b"\r" in chunk else ends


def _chain(first: bytes, rest: Iterator[bytes]) -> Iterator[bytes]:
    if first:
        yield first
    yield from rest


def _raw_chunks(fh: BinaryIO, name: str, head: bytes) -> Iterator[bytes]:
    if head:
        yield head
    while True:
        try:
            chunk = fh.read(_CHUNK)
        except IsADirectoryError:
            raise InputError(name, "is a directory, expected a file") from None
        except OSError as exc:
            raise InputError(name, f"cannot read: {exc.strerror or exc}") from None
        if not chunk:
            return
        yield chunk


#: What a decompressor raises on damaged or cut-short data.
DECOMPRESS_ERRORS = (OSError, EOFError, ValueError, LZMAError, zlib.error)


def _inflate(chunks: Iterator[bytes], kind: str, name: str) -> Iterator[bytes]:
    """Decompressed output in pieces of at most _CHUNK bytes (a bomb is never inflated whole);
    concatenated members (as `cat a.gz b.gz` makes) follow each other, zero padding after the
    last one is ignored."""
    try:
        if kind == "gzip":
            yield from _gunzip(chunks)
        else:
            yield from _unpack(chunks, lambda: decompressor(kind))
    except DECOMPRESS_ERRORS as exc:
        raise InputError(name, f"corrupt {kind} data: {exc}") from None


def decompressor(kind: str) -> Any:
    """A new incremental decompressor for one gzip member, bzip2 or xz stream (`kind` as
    `compression` names it)."""
    if kind == "gzip":
        return zlib.decompressobj(16 + zlib.MAX_WBITS)
    return BZ2Decompressor() if kind == "bzip2" else LZMADecompressor()


def _gunzip(chunks: Iterator[bytes]) -> Iterator[bytes]:
    unit = decompressor("gzip")
    for data in chunks:
        while data:
            if unit.eof:
                if not data.strip(b"\x00"):
                    break
                unit = decompressor("gzip")
            out = unit.decompress(data, _CHUNK)
            data = unit.unused_data if unit.eof else unit.unconsumed_tail
            if out:
                yield out
    if not unit.eof:
        raise EOFError("the stream ends early (truncated?)")


def _unpack(chunks: Iterator[bytes], make) -> Iterator[bytes]:
    unit = make()
    for data in chunks:
        while True:
            if unit.eof:
                if not data.strip(b"\x00"):
                    break
                unit = make()
            out = unit.decompress(data, _CHUNK)
            if out:
                yield out
            if unit.eof:
                data = unit.unused_data
            elif unit.needs_input:
                break
            else:  # output held back by the size cap
                data = b""
    if not unit.eof:
        raise EOFError("the stream ends early (truncated?)")
