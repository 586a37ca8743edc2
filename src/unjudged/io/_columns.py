"""Split whitespace-separated text into string columns without a Python loop per line.

The fast path hands the bytes to Arrow's multi-threaded CSV reader with a single-space (or tab)
delimiter, which is what nearly every run file uses. Files with runs of blanks, mixed tabs or
trailing blanks are first normalised with numpy (one pass, vectorised). Only when parsing fails is
the file walked line by line, and only to find and name the first bad line.
"""

from __future__ import annotations

import os
import re
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.csv as pcsv

from unjudged.errors import FormatError, InputError
from unjudged.io._source import data_lines, display_name, is_compressed, iter_lines, read_bytes

# topic ids come from Arrow's CSV parser dictionary-encoded: a topic has many lines, and the
# dictionaries intern them without Arrow's compute functions (see unjudged.data._strings)
TOPIC_TYPE = pa.dictionary(pa.int32(), pa.string())

_COMMENT = re.compile(rb"^[ \t]*#[^\n]*(\n|$)", re.M)
_BLANKS = b" \t\r\v\f"


def _has_comments(data: bytes) -> bool:
    if b"#" not in data:  # one memchr over the buffer; the regex only runs when needed
        return False
    return data.lstrip(_BLANKS).startswith(b"#") or re.search(rb"\n[ \t]*#", data) is not None


def _normalise(data: bytes) -> bytes:
    """Collapse every run of blanks to one space and drop blanks at line starts and ends.

    A blank run survives (as one space) only when a non-blank byte precedes it on the same line
    and the next non-blank byte is not a newline.
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


def _read(data: bytes | str, names: list[str], delimiter: str, include: list[str],
          types: dict[str, pa.DataType] | None = None, block_size: int = 1 << 24) -> pa.Table:
    return pcsv.read_csv(
        pa.py_buffer(data) if isinstance(data, bytes) else data,
        read_options=pcsv.ReadOptions(column_names=names, block_size=block_size,
                                      use_threads=_size(data) > _THREADED),
        parse_options=pcsv.ParseOptions(
            delimiter=delimiter, quote_char=False, escape_char=False, ignore_empty_lines=True
        ),
        convert_options=pcsv.ConvertOptions(
            column_types={n: (types or {}).get(n, pa.string()) for n in names},
            include_columns=include
        ),
    )


_HEAD = 1 << 16
# Below this many bytes Arrow parses in the calling thread: as fast for files of a few MB, and
# without each reader thread's own buffers (10 robust runs: 154 MB -> 145 MB peak).
_THREADED = 1 << 26


def _size(data: bytes | str) -> int:
    if isinstance(data, bytes):
        return len(data)
    try:
        return os.path.getsize(data)
    except OSError:
        return _THREADED + 1


def _delimiter(text: bytes) -> str:
    """A tab when the first non-blank line is tab-separated (and has no spaces), else a space."""
    first = next((line for _, line in iter_lines(text) if line.strip()), b"")
    return "\t" if b"\t" in first and b" " not in first else " "


def read_plain_file(path: str, names: list[str], include: list[str],
                    types: dict[str, pa.DataType] | None = None) -> tuple[pa.Table, bytes] | None:
    """Let Arrow read a plain file itself, or None when the file needs the careful path.

    Arrow then streams the file in small blocks instead of holding all of its bytes next to the
    parsed columns, which halves peak memory (and the page faults that dominate wall time) on a
    7-million-line run. Any file this path cannot take as-is (compressed, comments, blanks to
    normalise, bad values, NUL bytes) makes it return None; read_columns then names the problem.
    Returns the table and the file's first bytes (for sniffing the run tag).
    """
    try:
        with open(path, "rb") as fh:
            head = fh.read(_HEAD)
    except OSError:
        return None
    if not head.strip() or is_compressed(head) or b"\x00" in head:
        return None
    try:
        # small blocks for small files: Arrow's per-block buffers then leave smaller holes in
        # the C heap (10 runs of 250k lines: 8 MB less at peak), at the same speed
        block = 1 << 20 if _size(path) > _THREADED else 1 << 18
        table = _read(path, names, _delimiter(head), include, types, block_size=block)
    except (pa.ArrowInvalid, UnicodeDecodeError, OSError):
        return None
    if table.num_rows == 0 or any(_suspicious(table[c], comment=(c == names[0])) for c in include
                                  if table[c].type in (pa.string(), TOPIC_TYPE)):
        return None
    return table, head


def _suspicious(column: pa.ChunkedArray, comment: bool) -> bool:
    """A NUL byte in a string column, or (`comment`) a value that starts a `#` comment line."""
    for chunk in column.chunks:
        if pa.types.is_dictionary(chunk.type):
            chunk = chunk.dictionary
        offsets, values = chunk.buffers()[1:3]
        if values is None:
            continue
        ends = np.frombuffer(offsets, dtype=np.int32, count=len(chunk) + 1, offset=chunk.offset * 4)
        text = np.frombuffer(values, dtype=np.uint8)[ends[0]:ends[-1]]
        if (text == 0).any():
            return True
        starts = ends[:-1][ends[:-1] < ends[1:]] - ends[0]
        if comment and (text[starts] == ord("#")).any():
            return True
    return False


def load_table(source: Any, names: list[str], layout: str, include: list[str] | None = None,
               extra_ok: bool = False, types: dict[str, pa.DataType] | None = None
               ) -> tuple[pa.Table, Any, bytes]:
    """Read a path, '-' or a binary stream into a table: (table, text, head).

    `text` is the file's bytes, or for a named file a function that reads them again, so that
    the bytes need not stay in memory just in case a later check has to name a bad line. `head`
    is the start of the text (enough to find the first data line).
    """
    include = include or names
    path = display_name(source)
    if isinstance(source, (str, os.PathLike)) and str(source) != "-":
        fast = read_plain_file(os.fspath(source), names, include, types)
        text: Any = lambda: read_bytes(source)  # noqa: E731
        if fast is not None:
            return fast[0], text, fast[1]
        data = read_bytes(source)
        table = read_columns(data, path, names, layout, include, extra_ok, types)
        return table, text, data[:_HEAD]
    data = read_bytes(source)
    return read_columns(data, path, names, layout, include, extra_ok, types), data, data[:_HEAD]


def read_columns(data: bytes, path: str, names: list[str], layout: str,
                 include: list[str] | None = None, extra_ok: bool = False,
                 types: dict[str, pa.DataType] | None = None) -> pa.Table:
    """Parse `data` into a table of string columns named `names` (only `include` kept).

    Raises FormatError naming the first line that does not have len(names) fields, with
    `layout` (e.g. "qid Q0 docno rank score tag") as what was expected. With `extra_ok`, fields
    beyond len(names) are ignored, as trec_eval ignores text after a run line's tag. `types`
    lets Arrow convert columns while parsing (first attempt only: if a value does not convert,
    every column comes back as strings so the caller can name the bad line).
    """
    include = include or names
    if b"\x00" in data:
        line = data.count(b"\n", 0, data.index(b"\x00")) + 1
        raise FormatError(path, line, "binary data (NUL byte), expected a text file")
    if _has_comments(data):
        data = _COMMENT.sub(lambda m: b"\n" if m.group(1) else b"", data)
    if not data or data.isspace():
        raise InputError(path, f"empty file, expected lines of `{layout}`")
    delimiter = _delimiter(data)
    for attempt in (types, None) if types else (None,):
        try:
            return _read(data, names, delimiter, include, attempt)
        except (pa.ArrowInvalid, UnicodeDecodeError):
            pass
    data = _normalise(data)
    try:
        return _read(data, names, " ", include)
    except (pa.ArrowInvalid, UnicodeDecodeError):
        pass
    if extra_ok:  # rare: cut every line to its first fields (slow path, only for such files)
        error = _diagnose(data, path, len(names), layout, extra_ok=True)
        if error is not None:
            raise error
        n = len(names)
        lines = (b" ".join(line.split(b" ", n)[:n]) for line in data.split(b"\n"))
        return _read(b"\n".join(lines), names, " ", include)
    raise _diagnose(data, path, len(names), layout) or FormatError(path, None, "cannot parse")


def _diagnose(data: bytes, path: str, ncols: int, layout: str,
              extra_ok: bool = False) -> FormatError | None:
    """Walk the lines to name the first bad one (only on the error path)."""
    for number, fields in data_lines(data):
        try:
            b" ".join(fields).decode("utf-8")
        except UnicodeDecodeError:
            return FormatError(path, number, "not UTF-8 text (binary data?)")
        if len(fields) < ncols or (len(fields) > ncols and not extra_ok):
            return FormatError(
                path, number, f"expected {ncols} columns `{layout}`, found {len(fields)}"
            )
    return None if extra_ok else FormatError(path, None, f"cannot parse as `{layout}`")
