"""CSV records of small side files (leaderboards, groups), by one set of rules.

Lines may end in LF, CRLF or a lone CR; a record the csv module cannot read (a field over its
128 KiB limit, a stray quote at the end) is a FormatError naming the file and the line, never a
`_csv.Error`.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from typing import Any

from unjudged.errors import FormatError


def csv_records(text: str, name: str, expected: str) -> Iterator[tuple[int, list[str]]]:
    """(line number, cells) of every record of CSV `text` read from the file `name`.

    Example:
        >>> list(csv_records("run,team\\rbm25,anserini\\r", "board.csv", "a leaderboard"))
        [(1, ['run', 'team']), (2, ['bm25', 'anserini'])]
    """
    reader = csv.reader(io.StringIO(text.replace("\r\n", "\n").replace("\r", "\n")))
    try:
        for row in reader:
            yield reader.line_num, row
    except csv.Error as exc:
        raise FormatError(name, reader.line_num, f"not CSV: {exc}; expected {expected}"
                          ) from None


# Tables with a header: runs and qrels as ir_measures and PyTerrier write them (CSV, TSV,
# JSONL, Parquet). The header names the columns; DataFrames take the same names.
QUERY_COLUMNS = ("query_id", "qid", "topic")
DOC_COLUMNS = ("doc_id", "docno", "doc")
TABLE_FORMATS = ("csv", "tsv", "jsonl", "parquet")
TABULAR_HINT = ("CSV, TSV, JSONL or Parquet with a header naming query_id, doc_id and score "
                "(qrels: relevance), or PyTerrier's qid, docno and score (qrels: label)")


def table_format(head: bytes, path: str = "") -> str | None:
    """Which table format a file is, from its first bytes (decompressed) and its name: "csv",
    "tsv", "jsonl", "parquet", or None (not a table with a header: e.g. a TREC file).

    Example:
        >>> table_format(b"qid,docno,score\\n1,d1,2.5\\n"), table_format(b"1 Q0 d1 1 2.5 r\\n")
        ('csv', None)
        >>> table_format(b'{"query_id": "1", "doc_id": "d1", "score": 2.5}\\n')
        'jsonl'
        >>> table_format(b"PAR1...", "run.parquet"), table_format(b"query_id\\tdoc_id\\n")
        ('parquet', 'tsv')
    """
    # a Parquet file holds its magic at both ends and a footer: 12 bytes at least (a shorter
    # file that starts with the magic is text, and read as such)
    if (head.startswith(b"PAR1") and len(head) >= 12) or \
            path.lower().endswith((".parquet", ".pq")):
        return "parquet"
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text.startswith(b"#"):  # a comment naming the columns: TREC text, where it is skipped
        return None
    line = text.split(b"\n", 1)[0].rstrip(b"\r").decode("utf-8", "replace")
    if text.startswith(b"{") and (_json_object(line) or (
            b"\n" not in text and text[1:].lstrip().startswith(b'"'))):
        # a JSON object (or the start of one longer than the head), not merely a "{": a TREC
        # line's topic id may be "{"
        return "jsonl"
    for delimiter, kind in (("\t", "tsv"), (",", "csv"), (None, "csv")):
        if delimiter is not None and delimiter not in line:
            continue
        cells = [c.strip().strip('"').lower() for c in line.split(delimiter)]
        if any(c in cells for c in QUERY_COLUMNS) and any(c in cells for c in DOC_COLUMNS):
            return kind if delimiter is not None else "ssv"
    return None


def _json_object(line: str) -> bool:
    import json

    try:
        return isinstance(json.loads(line), dict)
    except (ValueError, RecursionError):
        return False


def read_frame(source: Any, kind: str, ids: tuple[str, ...] = ()) -> Any:
    """A table file as a pandas DataFrame whose values are read by the TREC text rules.

    CSV, TSV and space-separated cells, and JSON numbers, come back as their text, so that
    a score or grade is checked by unjudged.io._validate exactly as a TREC file's field is
    ("0x10", "true" and a grade "1.0" are refused there too); Parquet keeps its column types,
    which the frame readers check (an id must be text or an integer). A header that names a
    column twice is refused. (`ids` is kept for callers; every cell is text now.)

    Example:
        >>> import tempfile
        >>> with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as fh:
        ...     _ = fh.write("qid,docno,score\\n001,d1,2.5\\n")
        >>> read_frame(fh.name, "csv").values.tolist()
        [['001', 'd1', '2.5']]
    """
    import pyarrow as pa

    from unjudged.io._source import display_name, read_bytes

    name = display_name(source)
    try:
        if kind == "parquet":
            import pyarrow.parquet as pq

            table = pq.read_table(source)
            _unique_header(table.column_names, name)
        elif kind == "jsonl":
            return _jsonl_frame(read_bytes(source), name)
        else:
            import pyarrow.csv as pcsv

            data = read_bytes(source)
            delimiter = {"tsv": "\t", "csv": ","}.get(kind, " ")
            names = _header(data, delimiter)
            _unique_header(names, name)
            table = pcsv.read_csv(
                io.BytesIO(data),
                parse_options=pcsv.ParseOptions(delimiter=delimiter,
                                                ignore_empty_lines=True),
                convert_options=pcsv.ConvertOptions(
                    column_types=dict.fromkeys(names, pa.string())))
    except (pa.ArrowInvalid, OSError) as exc:
        raise FormatError(name, None, f"cannot read as {kind.upper()}: {exc}".strip()
                          ) from None
    return table.to_pandas()


def _header(data: bytes, delimiter: str) -> list[str]:
    """The column names of a CSV/TSV/space-separated header (its first non-blank line)."""
    text = data.lstrip(b"\xef\xbb\xbf \t\r\n").split(b"\n", 1)[0].rstrip(b"\r")
    line = text.decode("utf-8", "replace")
    if delimiter == " ":
        return line.split(" ")
    return next(csv.reader([line], delimiter=delimiter), [])


def _unique_header(names: list[str], path: str) -> None:
    seen: set[str] = set()
    for n in names:
        if n in seen:
            raise FormatError(path, 1, f"column {n!r} appears twice in the header; expected "
                              "each column named once")
        seen.add(n)


def _jsonl_frame(data: bytes, name: str) -> Any:
    import json

    import pandas as pd

    rows = []
    for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
        if not line.strip():
            continue
        try:
            # numbers as their text: read by the rules of a TREC field (1.0 is no grade)
            row = json.loads(line, parse_int=str, parse_float=str, parse_constant=str)
        except json.JSONDecodeError as exc:
            raise FormatError(name, number, f"not JSON ({exc.msg}); expected one object "
                              "per line") from None
        except RecursionError:
            raise FormatError(name, number, "JSON nested too deeply; expected one flat "
                              "object per line") from None
        if not isinstance(row, dict):
            raise FormatError(name, number, "expected one JSON object per line")
        rows.append(row)
    return pd.DataFrame(rows)
