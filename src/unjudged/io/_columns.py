"""Split whitespace-separated text into string columns without a Python loop per line.

Fields are separated by any run of blanks (space, tab, VT, FF) and lines end at LF, CRLF or a
lone CR, whichever path reads the file. The fast path hands the text to Arrow's CSV reader with a
single-space (or tab) delimiter, which is what nearly every run file uses; it is taken only when
the text is proven to hold no other blank (checked with memchr-speed finds as the bytes stream
past) and the parsed columns hold no empty field. Other files are first normalised with numpy
(one pass, vectorised). Only when parsing fails is the file walked line by line, and only to
find and name the first bad line.

Two delimiters in a row (`1 Q0 d1  3.0 r`) would give Arrow an empty field; in a column the
reader drops (Q0, rank, tag) that could not be seen afterwards, so such text also takes the
careful path, where the line reads as the 5 fields it has (and is refused).
"""

from __future__ import annotations

import io
import os
import re
from typing import Any, cast

import numpy as np
import pyarrow as pa
import pyarrow.csv as pcsv

from unjudged.errors import FormatError, InputError
from unjudged.io._source import (
    BOM,
    LineLimit,
    display_name,
    is_compressed,
    iter_lines,
    line_number_at,
    max_line_length,
    open_input,
    read_bytes,
    read_stream,
    too_long,
    unify_line_ends,
)
from unjudged.io._validate import Layout, first_bad_line

# topic ids come from Arrow's CSV parser dictionary-encoded: a topic has many lines, and the
# dictionaries intern them without Arrow's compute functions (see unjudged.data._strings)
TOPIC_TYPE = pa.dictionary(pa.int32(), pa.string())

_COMMENT = rb"(?m)^[ \t\v\f]*#[^\n]*(\n|$)"  # compiled on first use (files with comments)
_BLANKS = b" \t\r\v\f"
# with a space delimiter no other blank may occur, with a tab delimiter no other either
_FOREIGN = {" ": (b"\t", b"\v", b"\f"), "\t": (b" ", b"\v", b"\f")}


def _doubled(chunk: bytes, delimiter: bytes, before: bytes = b"") -> bool:
    """Whether the delimiter occurs twice in a row in `chunk` (or across `before`, the byte that
    preceded it). Two vectorised 16-bit compares (even and odd offsets): bytes.find with a
    two-byte needle is about seven times slower on run text, which is mostly delimiters.

    Example:
        >>> _doubled(b"1 Q0 d1  3 r", b" "), _doubled(b"1 Q0 d1 3 r", b" ")
        (True, False)
        >>> _doubled(b" 1 Q0 d1 3 r", b" ", before=b" ")  # across two blocks
        True
    """
    if before == delimiter and chunk[:1] == delimiter:
        return True
    pair = ord(delimiter) * 0x101  # the same byte in both halves: endianness does not matter
    even = np.frombuffer(chunk, dtype=np.uint16, count=len(chunk) // 2)
    odd = np.frombuffer(chunk, dtype=np.uint16, count=(len(chunk) - 1) // 2, offset=1) \
        if len(chunk) > 2 else even[:0]
    return bool((even == pair).any() or (odd == pair).any())


def _has_comments(data: bytes) -> bool:
    if b"#" not in data:  # one memchr over the buffer; the regex only runs when needed
        return False
    return data.lstrip(_BLANKS).startswith(b"#") or re.search(rb"\n[ \t\v\f]*#", data) is not None


def _normalise(data: bytes) -> bytes:
    """Collapse every run of blanks to one space and drop blanks at line starts and ends.

    A blank run survives (as one space) only when a non-blank byte precedes it on the same line
    and the next non-blank byte is not a newline. `data` has LF line ends only.
    """
    buf = np.frombuffer(data, dtype=np.uint8)
    blank = np.isin(buf, np.frombuffer(_BLANKS, dtype=np.uint8))
    after_text = np.empty_like(blank)
    after_text[0] = False
    after_text[1:] = ~blank[:-1] & (buf[:-1] != 10)
    keep = ~blank
    starts = np.flatnonzero(blank & after_text)
    if starts.size:
        solid = np.flatnonzero(~blank)
        nxt = np.searchsorted(solid, starts)
        inside = nxt < solid.size
        follows_text = np.zeros(starts.shape, dtype=bool)
        follows_text[inside] = buf[solid[nxt[inside]]] != 10
        keep[starts[follows_text]] = True
    out = buf[keep].copy()
    out[blank[keep]] = 32
    return out.tobytes()


def _read(data: Any, names: list[str], delimiter: str, include: list[str],
          types: dict[str, pa.DataType] | None = None, block_size: int = 1 << 24,
          threads: bool | None = None) -> pa.Table:
    size = len(data) if isinstance(data, bytes) else 0
    if isinstance(data, bytes) and data.startswith(BOM):
        # the caller dropped the file's own mark; Arrow would drop this second one too, and a
        # topic "\ufeff" would read as "" (an empty first line is skipped like any other)
        data = b"\n" + data
    return pcsv.read_csv(
        # (pyarrow-stubs: read_csv takes an Arrow buffer too)
        pa.py_buffer(data) if isinstance(data, bytes) else data,  # type: ignore[arg-type]
        read_options=pcsv.ReadOptions(
            column_names=names, use_threads=size > _THREADED if threads is None else threads,
            # a line must fit in a block: the bytes path reads any line up to the limit
            block_size=max(block_size, 2 * max_line_length() + 2) if size else block_size),
        parse_options=pcsv.ParseOptions(
            delimiter=delimiter, quote_char=False, escape_char=False, ignore_empty_lines=True
        ),
        convert_options=pcsv.ConvertOptions(
            column_types={n: (types or {}).get(n, pa.string()) for n in names},
            include_columns=include
        ),
    )


_HEAD = HEAD_BYTES = 1 << 16  # the start of a file that load_table hands back
# Below this many bytes Arrow parses in the calling thread: as fast for files of a few MB, and
# without each reader thread's own buffers (10 robust runs: 154 MB -> 145 MB peak).
_THREADED = 1 << 26


def _delimiter(text: bytes) -> str:
    """A tab when the first non-blank line is tab-separated (and has no spaces), else a space."""
    first = next((line for _, line in iter_lines(text[:_HEAD]) if line.strip()), b"")
    return "\t" if b"\t" in first and b" " not in first else " "


class _Scanner(io.RawIOBase):
    """A regular file as Arrow reads it, checked block by block as it passes: no NUL byte, no
    blank other than the delimiter, no line over the limit. On the first doubt it ends the
    stream early (`doubt` set), and the caller reads the file the careful way."""

    def __init__(self, fh, delimiter: str, block: int):
        self.fh = fh
        self.foreign = (b"\x00", *_FOREIGN[delimiter])
        self.delimiter = delimiter.encode()
        self.last = b""  # the last byte read, for a doubled delimiter across two blocks
        # Arrow refuses a line longer than its block (the careful path then reads the file):
        # only a limit below the block size needs checking here
        limit = max_line_length()
        self.limit = LineLimit(limit) if limit < block else None
        self.doubt = False
        self.tail = b""  # the last bytes read, to check the file's end

    def readable(self) -> bool:
        return True

    def read(self, n: int = -1) -> bytes:
        if self.doubt:
            return b""
        chunk = self.fh.read(n)
        if any(chunk.find(b) >= 0 for b in self.foreign) or (
                self.limit is not None and self.limit.check(chunk) >= 0) or (
                _doubled(chunk, self.delimiter, self.last)):
            self.doubt = True
            return b""
        self.last = chunk[-1:] or self.last
        if len(chunk) >= _HEAD:
            self.tail = chunk[-_HEAD:]
        elif chunk:
            self.tail = (self.tail + chunk)[-_HEAD:]
        return chunk


def _read_regular(fh, size: int, head: bytes, names: list[str], include: list[str],
                  types: dict[str, pa.DataType] | None) -> pa.Table | None:
    """Let Arrow read a plain regular file itself, or None when it needs the careful path.

    Arrow then streams the file in small blocks instead of holding all of its bytes next to the
    parsed columns, which halves peak memory (and the page faults that dominate wall time) on a
    7-million-line run. Any file this path cannot take as-is (comments, blanks to normalise, bad
    values, NUL bytes) makes it return None; read_columns then names the problem.
    """
    if not head.strip() or is_compressed(head) or b"\x00" in head or head.startswith(BOM):
        return None
    fh.seek(0)
    delimiter = _delimiter(head)
    # small blocks for small files: Arrow's per-block buffers then leave smaller holes in the
    # C heap (10 runs of 250k lines: 8 MB less at peak), at the same speed
    block = 1 << 20 if size > _THREADED else 1 << 18
    scanner = _Scanner(fh, delimiter, block)
    try:
        table = _read(pa.PythonFile(scanner, mode="r"), names, delimiter, include,
                      types, block_size=block, threads=size > _THREADED)
    except (pa.ArrowInvalid, UnicodeDecodeError, OSError):
        return None
    if (scanner.doubt or not _trustworthy(table, names, include)
            or not _no_empty_edges(head, scanner.tail, delimiter)):
        return None
    return table


def _trustworthy(table: pa.Table, names: list[str], include: list[str]) -> bool:
    """Rows were read, and no string column holds an empty field or (the first) a value that
    starts a `#` comment line. (NUL bytes and foreign blanks were ruled out before parsing.)"""
    return table.num_rows > 0 and not any(
        _suspicious(table[c], comment=(c == names[0])) for c in include
        if table[c].type in (pa.string(), TOPIC_TYPE))


def _suspicious(column: pa.ChunkedArray, comment: bool) -> bool:
    for chunk in column.chunks:
        if pa.types.is_dictionary(chunk.type):
            chunk = cast(pa.DictionaryArray, chunk).dictionary
        offsets, values = chunk.buffers()[1:3]
        if len(chunk) == 0:
            continue
        ends = np.frombuffer(offsets, dtype=np.int32,  # type: ignore[call-overload]  # numpy's stubs take no pa.Buffer before 3.12
                             count=len(chunk) + 1, offset=chunk.offset * 4)
        if values is None or (ends[1:] == ends[:-1]).any():  # an empty field
            return True
        text = np.frombuffer(values, dtype=np.uint8)[ends[0]:ends[-1]]  # type: ignore[call-overload]  # numpy's stubs take no pa.Buffer before 3.12
        if comment and (text[ends[:-1] - ends[0]] == ord("#")).any():
            return True
    return False


def load_table(source: Any, names: list[str], layout: Layout | str,
               include: list[str] | None = None, extra_ok: bool = False,
               types: dict[str, pa.DataType] | None = None) -> tuple[pa.Table, Any, bytes]:
    """Read a path, '-' or a binary stream into a table: (table, text, head).

    `text` is the file's bytes, or for a regular file a function that reads them again, so
    that the bytes need not stay in memory just in case a later check has to name a bad line.
    `head` is the start of the text (enough to find the first data line). The source is opened
    once; only a regular file is read by Arrow itself (a pipe could not be read twice).
    """
    include = include or names
    path = display_name(source)
    fh, regular, close = open_input(source)
    try:
        head = b""
        if regular:
            head = _take(fh, path)
            size = os.fstat(fh.fileno()).st_size
            table = _read_regular(fh, size, head, names, include, types)
            if table is not None:
                return table, _reread(source), head
            fh.seek(0)
            head = b""
        data = read_stream(fh, path, head=head, text_only=True)
    finally:
        if close:
            fh.close()
    table = read_columns(data, path, names, layout, include, extra_ok, types)
    return table, (_reread(source) if regular else data), data[:_HEAD]


def _take(fh, path: str) -> bytes:
    try:
        return fh.read(_HEAD)
    except OSError as exc:
        raise InputError(path, f"cannot read: {exc.strerror or exc}") from None


def _reread(source: Any):
    return lambda: read_bytes(source)


def read_columns(data: bytes, path: str, names: list[str], layout: Layout | str,
                 include: list[str] | None = None, extra_ok: bool = False,
                 types: dict[str, pa.DataType] | None = None, start: bool = True) -> pa.Table:
    """Parse `data` into a table of string columns named `names` (only `include` kept).

    Raises FormatError naming the first line that does not have len(names) fields, with
    `layout` (e.g. "qid Q0 docno rank score tag", or a Layout, which also names bad numbers and
    repeats when they come first) as what was expected. With `extra_ok`, fields beyond
    len(names) are ignored, as trec_eval ignores text after a run line's tag. `types` lets
    Arrow convert columns while parsing (first attempt only: if a value does not convert,
    every column comes back as strings so the caller can name the bad line). `start`: `data`
    begins its file (a byte order mark there is dropped); a stream's later pieces are not.
    """
    include = include or names
    text = layout.text if isinstance(layout, Layout) else layout
    # the error path reads the lines again, dropping a mark at the start: a later piece's own
    # first bytes are kept by giving it one to drop
    original = data if start else BOM + data
    if b"\x00" in data:
        line = line_number_at(data, data.index(b"\x00"))
        raise _first_error(original, path, layout, len(names), extra_ok) or FormatError(
            path, line, "binary data (NUL byte), expected a text file")
    over = LineLimit(max_line_length()).check(data)
    if over >= 0:
        raise too_long(path, line_number_at(data, over), max_line_length())
    data = unify_line_ends(data, start)
    if _has_comments(data):
        data = re.sub(_COMMENT, lambda m: b"\n" if m.group(1) else b"", data)
    if not data or data.isspace():
        raise InputError(path, f"empty file, expected lines of `{text}`")
    delimiter = _delimiter(data)
    if not any(b in data for b in _FOREIGN[delimiter]) and not _doubled(data,
                                                                        delimiter.encode()):
        for attempt in (types, None) if types else (None,):
            try:
                table = _read(data, names, delimiter, include, attempt)
            except (pa.ArrowInvalid, UnicodeDecodeError):
                continue
            if (_trustworthy(table, names, include)
                    and _no_empty_edges(data[:_HEAD], data[-_HEAD:], delimiter)):
                return table
            break
    data = _normalise(data)
    # typed first here too (trec_eval's own test runs are tab- and space-aligned): converting
    # afterwards would import pyarrow.compute, a tenth of a second on every such call
    for attempt in (types, None) if types else (None,):
        try:
            table = _read(data, names, " ", include, attempt)
        except (pa.ArrowInvalid, UnicodeDecodeError):
            continue
        if table.num_rows:
            return table
        break
    if extra_ok:  # rare: cut every line to its first fields (slow path, only for such files)
        error = _first_error(original, path, layout, len(names), extra_ok=True)
        if error is not None:
            raise error
        n = len(names)
        lines = (b" ".join(line.split(b" ", n)[:n]) for line in data.split(b"\n"))
        table = _read(b"\n".join(lines), names, " ", include)
        if table.num_rows:
            return table
    if not data.strip():
        raise InputError(path, f"empty file, expected lines of `{text}`")
    raise (_first_error(original, path, layout, len(names), extra_ok)
           or FormatError(path, None, f"cannot parse as `{text}`"))


def _no_empty_edges(head: bytes, tail: bytes, delimiter: str) -> bool:
    """No empty field made by a delimiter at a line's start or end near the text's start or
    end (a truncated last line, say): `head` and `tail` are its first and last bytes."""
    d = delimiter.encode()
    return not (head.startswith(d) or b"\n" + d in head or b"\r" + d in head
                or tail.rstrip(b"\r\n").endswith(d) or d + b"\n" in tail or d + b"\r" in tail)


def _first_error(data: bytes, path: str, layout: Layout | str, ncols: int,
                 extra_ok: bool = False) -> FormatError | None:
    """The first bad line (error path only): by every rule of a Layout, else by the number of
    fields and UTF-8 alone."""
    if isinstance(layout, Layout):
        return first_bad_line(data, path, layout)
    return first_bad_line(data, path, Layout(layout, ncols, extra_ok, tuple(range(ncols))))
