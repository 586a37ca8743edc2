"""Read a run grouped by topic in blocks of bytes, one batch of complete topics at a time.

A block is cut at the last line end it holds and parsed with the same reader as a whole file
(`read_columns`), so every check on lines carries over; its last topic is held back and parsed
again with the next block, because its lines may go on there. A topic is complete when the next
topic starts, the last one at the end of the input. Memory is then bounded by a block plus the
largest topic, whatever the length of the file. Line numbers in errors are the file's.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from unjudged.data._strings import topic_blocks
from unjudged.errors import FormatError, InputError
from unjudged.io._columns import read_columns
from unjudged.io._source import BOM, display_name, open_input, text_chunks
from unjudged.io._validate import Layout

BLOCK_SIZE = 16 << 20  # bytes read at a time (a batch of topics is about this much text)


@dataclass
class TopicBatch:
    """Complete topics of a run: their text, where it starts in the file, and its rows.

    Attributes:
        data: the lines of these topics (what `table` was parsed from).
        first_line: the file's line number of data's first line (1-based).
        table: the parsed columns of these topics' rows only.
        blocks: topic_blocks of the table's topic column.
        lines: the input's lines up to the end of these topics (for progress).
        path: the input's name in messages.
    """

    data: bytes
    first_line: int
    table: pa.Table
    blocks: tuple
    lines: int
    path: str

    def file_error(self, error: FormatError) -> FormatError:
        """The same error with the line counted from the start of the file."""
        return _shifted(error, self.first_line)


def iter_topic_batches(source: Any, names: list[str], layout: Layout | str, include: list[str],
                       types: dict[str, pa.DataType] | None = None,
                       block_size: int = BLOCK_SIZE) -> Iterator[TopicBatch]:
    """Batches of complete topics of a run grouped by topic, read once and in order.

    `source` is a path, '-' (stdin) or a binary stream; compressed input is recognised by its
    first bytes. A topic that comes back after another topic started is a FormatError naming
    the line, since its rows could not be gathered without holding the whole file.

    Example:
        >>> import io
        >>> text = io.BytesIO(b"1 Q0 a 1 2.0 r\\n1 Q0 b 2 1.0 r\\n2 Q0 a 1 5.0 r\\n")
        >>> names = ["qid", "q0", "docno", "rank", "score", "tag"]
        >>> batches = iter_topic_batches(text, names, "run", ["qid", "docno"], block_size=16)
        >>> [(b.first_line, b.table.num_rows, b.blocks[0]) for b in batches]
        [(1, 2, ['1']), (3, 1, ['2'])]
    """
    path = display_name(source)
    seen: dict[str, int] = {}  # topic -> line of its first row
    buf, first_line, eof, want = b"", 1, False, block_size
    empty: InputError | None = None
    with closing(_Reader(_text(source, path))) as text:
        while not (eof and not buf):
            if not eof:
                more = text.take(want)
                eof = not more
                buf += more
            cut = len(buf) if eof else buf.rfind(b"\n") + 1
            if cut == 0:  # no complete line yet (its length is bounded by the line limit)
                want = max(block_size, len(buf))
                continue
            piece = buf[:cut]
            try:
                table = read_columns(piece, path, names, layout, include, True, types, start=False)
            except FormatError as exc:
                raise _shifted(exc, first_line) from None
            except InputError as exc:  # blank or comment lines only: fine unless all are
                empty, table = empty or exc, None
            if table is None or table.num_rows == 0:
                first_line += piece.count(b"\n")
                buf = buf[cut:]
                continue
            blocks = topic_blocks(table["qid"])
            starts = blocks[2]
            held = table.num_rows if eof else int(starts[-1])
            if held == 0:  # one topic fills the buffer: read on, doubling (linear time)
                want = max(block_size, len(buf))
                continue
            rows = _Rows(piece, table.num_rows, first_line, path)
            back, error = _comes_back(blocks, rows, seen, path)
            if error is not None:  # the lines before it first, so the first bad line is named
                held = int(starts[back])
                if held:
                    yield TopicBatch(piece[:rows.offset(held)], first_line, table.slice(0, held),
                                     _first_blocks(blocks, back, held), first_line - 1, path)
                raise error
            end = rows.offset(held)
            if held < table.num_rows:
                table, blocks = table.slice(0, held), _first_blocks(blocks, len(starts) - 1, held)
            topics = blocks[0]
            for code, start in zip(blocks[3].tolist(), blocks[2].tolist(), strict=True):
                seen[topics[code]] = rows.line(start)
            done = piece.count(b"\n", 0, end)
            yield TopicBatch(piece[:end], first_line, table, blocks, first_line - 1 + done,
                             path)
            first_line += done
            buf, want = buf[end:], block_size
    if not seen:
        raise empty or InputError(path, "empty file")


def _first_blocks(blocks: tuple, count: int, rows: int) -> tuple:
    """topic_blocks of the first `count` blocks (`rows` rows), whose topics are distinct. Not
    computed again from the sliced column: its dictionary still holds the later topics, which
    would then look like topics without lines."""
    topics, tcode, starts, codes = blocks
    kept = np.sort(codes[:count])  # old codes in the topics' byte order
    new = np.zeros(len(topics), dtype=codes.dtype)
    new[kept] = np.arange(kept.size, dtype=codes.dtype)
    return [topics[c] for c in kept.tolist()], new[tcode[:rows]], starts[:count], new[codes[:count]]


def _shifted(error: FormatError, first_line: int) -> FormatError:
    if error.line is None:
        return error
    return FormatError(error.path, error.line + first_line - 1, error.message)


class _Rows:
    """Where each parsed row of a piece is: its byte offset and its line in the file."""

    def __init__(self, piece: bytes, nrows: int, first_line: int, path: str) -> None:
        ends = np.flatnonzero(np.frombuffer(piece, dtype=np.uint8) == 10)
        self._first_line = first_line
        starts = np.concatenate(([0], ends + 1))
        if starts[-1] == len(piece):
            starts = starts[:-1]
        self._end = len(piece)
        if starts.size == nrows:  # the usual file: every line is a data line
            self._starts, self._numbers = starts, None
            return
        # blank or comment lines (rare): find the data lines one by one
        kept = [i for i, s in enumerate(starts.tolist()) if _is_data(piece, s)]
        if len(kept) != nrows:  # never expected: read_columns and data_lines disagree
            raise FormatError(path, None, "--stream cannot match its rows to lines; leave out "
                              "--stream")
        self._starts, self._numbers = starts[kept], np.asarray(kept, dtype=np.int64)

    def offset(self, row: int) -> int:
        return self._end if row >= self._starts.size else int(self._starts[row])

    def line(self, row: int) -> int:
        index = row if self._numbers is None else int(self._numbers[row])
        return self._first_line + index


def _is_data(piece: bytes, start: int) -> bool:
    end = piece.find(b"\n", start)
    fields = piece[start:len(piece) if end < 0 else end].split()
    return bool(fields) and not fields[0].startswith(b"#")


def _comes_back(blocks: tuple, rows: _Rows, seen: dict[str, int], path: str
                ) -> tuple[int, FormatError | None]:
    """(block, error) for the first block whose topic came before another topic (a topic's
    rows must be together), or (-1, None)."""
    topics, _, starts, codes = blocks
    again = np.ones(codes.size, dtype=bool)
    again[np.unique(codes, return_index=True)[1]] = False
    if seen:
        again |= np.array([t in seen for t in topics], dtype=bool)[codes]
    if not again.any():
        return -1, None
    block = int(np.flatnonzero(again)[0])
    topic, line = topics[codes[block]], rows.line(int(starts[block]))
    first = seen.get(topic)
    if first is None:
        first = rows.line(int(starts[np.flatnonzero(codes == codes[block])[0]]))
    return block, FormatError(path, line, f"topic {topic} reappears at line {line} after other "
                              f"topics (its first line is {first}); --stream needs runs grouped "
                              "by topic (sort -s -k1,1)")


def _text(source: Any, path: str) -> Iterator[bytes]:
    """The input's text in chunks (decompressed, no line over the limit: text_chunks), every
    line ending in LF (CRLF and a lone CR become LF, so line numbers stay) and without a byte
    order mark at its start."""
    fh, _, close = open_input(source)
    try:
        cr, first = b"", True
        for chunk in text_chunks(fh, path):
            if first and chunk.startswith(BOM):
                chunk = chunk[len(BOM):]
            first = False
            chunk = cr + chunk
            cr = b"\r" if chunk.endswith(b"\r") else b""  # a CRLF may go on in the next chunk
            if cr:
                chunk = chunk[:-1]
            if b"\r" in chunk:
                chunk = chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
            yield chunk
        if cr:
            yield b"\n"
    finally:
        if close:
            fh.close()


class _Reader:
    """Reads `want` bytes at a time from a chunk iterator (the rest of a chunk waits)."""

    def __init__(self, chunks: Iterator[bytes]) -> None:
        self._chunks, self._rest = chunks, b""

    def take(self, want: int) -> bytes:
        """`want` bytes of the text (fewer at its end, b"" past it)."""
        parts, size = [self._rest], len(self._rest)
        while size < want:
            chunk = next(self._chunks, b"")
            if not chunk:
                break
            parts.append(chunk)
            size += len(chunk)
        data = b"".join(parts)
        self._rest = data[want:]
        return data[:want]

    def close(self) -> None:
        self._chunks.close()  # type: ignore[attr-defined]
