"""CSV records of small side files (leaderboards, groups), by one set of rules.

Lines may end in LF, CRLF or a lone CR; a record the csv module cannot read (a field over its
128 KiB limit, a stray quote at the end) is a FormatError naming the file and the line, never a
`_csv.Error`.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator

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
