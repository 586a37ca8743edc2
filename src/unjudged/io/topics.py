"""Topic lists: "1,2,5-9" on the command line, or the same in a file (one reader for both).

Moved here from judgments/edit.py: reading a file belongs to io/, and judgments/ works on the
parsed list of topic ids.
"""

from __future__ import annotations

import re

from unjudged.data._memory import check_fits
from unjudged.errors import FormatError, InputError, InvalidOptionError
from unjudged.io._source import data_lines, read_bytes

_RANGE = re.compile(r"(\d+)-(\d+)")
#: Memory per topic id of a range: the string, its place in lists, sets and dicts after it.
ID_BYTES = 200
MAX_IDS = 10_000_000  #: topic ids a list may name


def parse_topics(spec: str) -> list[str]:
    """Topic ids from a list such as "1,2,5-9": ids and ranges of whole numbers, comma- or
    space-separated. A range's ends are written without leading zeros ("5", not "05").

    Raises InvalidOptionError naming the first item that is neither.

    Example:
        >>> parse_topics("1,2,5-7 q9")
        ['1', '2', '5', '6', '7', 'q9']
    """
    items = re.split(r"[,\s]+", spec.strip(", \t\r\n"))
    if items == [""]:
        raise InvalidOptionError("no topic given, expected ids or ranges such as 1,2,5-9")
    out: list[str] = []
    for item in items:
        match = _RANGE.fullmatch(item)
        if match:
            lo, hi = int(match[1]), int(match[2])
            if lo > hi:
                raise InvalidOptionError(f"range {item!r} runs backwards, expected a range "
                                         f"such as {hi}-{lo}")
            # every id of a range becomes a string (1-100000000 once took 3.8 GB)
            if hi - lo + 1 + len(out) > MAX_IDS:
                raise InvalidOptionError(f"range {item!r} names {hi - lo + 1} topics, expected "
                                         f"at most {MAX_IDS:,} in all (ten times MS MARCO's "
                                         "largest query set)")
            check_fits(float(hi - lo + 1 + len(out)) * ID_BYTES, f"topic range {item!r}")
            out.extend(str(t) for t in range(lo, hi + 1))
        elif not item or item.startswith("-") or item.endswith("-"):
            raise InvalidOptionError(f"{item!r} is neither a topic id nor a range, expected "
                                     "ids or ranges such as 1,2,5-9")
        else:
            out.append(item)
    return out


def read_topics_file(path: str) -> list[str]:
    """Topic ids listed in a file: ids or ranges (as `parse_topics`) separated by commas,
    spaces or lines; blank lines and `#` comments are skipped.

    Example:
        >>> import tempfile
        >>> with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        ...     _ = f.write("# round 1\\n1-3\\n7\\n")
        >>> read_topics_file(f.name)
        ['1', '2', '3', '7']
    """
    out: list[str] = []
    for number, fields in data_lines(read_bytes(path)):
        try:
            out.extend(parse_topics(b" ".join(fields).decode("utf-8", "replace")))
        except InvalidOptionError as exc:
            raise FormatError(path, number, str(exc)) from None
    if not out:
        raise InputError(path, "no topic ids, expected ids or ranges such as 1,2,5-9")
    return out


def read_query_texts(path: str) -> dict[str, str]:
    """Query texts, one topic per line: `topic text...` (the first field is the topic id, the
    rest of the line its text); blank lines and `#` comments are skipped.

    Example:
        >>> import tempfile
        >>> with tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False) as f:
        ...     _ = f.write("1\\tcoronavirus origin\\n2 covid  masks\\n")
        >>> read_query_texts(f.name)
        {'1': 'coronavirus origin', '2': 'covid masks'}
    """
    out: dict[str, str] = {}
    for number, fields in data_lines(read_bytes(path)):
        if len(fields) < 2:
            raise FormatError(path, number, "expected `topic text...`, found a topic id alone")
        topic = fields[0].decode("utf-8", "replace")
        if topic in out:
            raise FormatError(path, number, f"topic {topic} has a second query text")
        out[topic] = b" ".join(fields[1:]).decode("utf-8", "replace")
    if not out:
        raise InputError(path, "no queries, expected lines of `topic text...`")
    return out
