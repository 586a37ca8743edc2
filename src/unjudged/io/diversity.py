"""Read diversity qrels and intent probabilities.

Two layouts, both four whitespace-separated columns read exactly like ad hoc qrels:

- ``ndeval``: ``topic subtopic docno judgment`` (TREC Web track 2009-2014); a document judged for
  no subtopic appears with a judgment of 0.
- ``aspect``: the TREC 6-8 interactive track "aspect" qrels (``topic aspect docno judgment``,
  CRLF lines) where aspect ``0`` with judgment 0 says "judged, covers no aspect"; aspect 0 is
  never a subtopic.

Intent probabilities are optional lines ``topic subtopic probability`` (uniform by default).
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import fields
from typing import Any

import pyarrow as pa

from unjudged.data.diversity import DiversityQrels, Subtopics
from unjudged.data.qrels import Qrels
from unjudged.errors import FormatError, InputError, InvalidOptionError
from unjudged.io._source import display_name, read_bytes, read_stream, text_lines
from unjudged.io._validate import score_problem
from unjudged.io.qrels import build_qrels, read_qrels

LAYOUTS = ("ndeval", "aspect")
INTENTS_LAYOUT = "topic subtopic probability"


def read_diversity_qrels(source: Any, layout: str = "ndeval",
                         intents: Any = None) -> DiversityQrels:
    """Read diversity qrels (a path, '-', a DataFrame, or a list of (topic, subtopic, docno,
    grade) tuples) with their subtopic facts; `intents` is a path or a dict
    {(topic, subtopic): probability}.

    Example:
        >>> q = read_diversity_qrels([("1", "1", "a", 2), ("1", "2", "a", 0), ("1", "2", "b", 1)])
        >>> q.to_dict(), q.subtopics.labels, q.subtopics.prob.tolist()
        ({'1': {'a': 2, 'b': 1}}, [['1', '2']], [[0.5, 0.5]])
    """
    if layout not in LAYOUTS:
        raise InvalidOptionError(f"unknown layout {layout!r}; expected one of {', '.join(LAYOUTS)}")
    if isinstance(source, list):
        # the caller's rows: fields past the fourth are ignored, as before (not strict)
        cols: list[Sequence[Any]] = list(zip(*source, strict=False)) if source else [[], [], [], []]
        qid, group, docno = (pa.array([str(x) for x in c], pa.string()) for c in cols[:3])
        qrels = build_qrels(qid, group, docno, pa.array([int(g) for g in cols[3]], pa.int64()),
                            source="<list>")
    else:
        qrels = read_qrels(source)
    probs = read_intents(intents) if intents is not None and not isinstance(intents, dict) \
        else intents
    subtopics = Subtopics.build(qrels, probs, ignore=("0",) if layout == "aspect" else ())
    return as_diversity(qrels, subtopics)


def as_diversity(qrels: Qrels, subtopics: Subtopics) -> DiversityQrels:
    """`qrels` as DiversityQrels carrying `subtopics`."""
    return DiversityQrels(**{f.name: getattr(qrels, f.name) for f in fields(Qrels)},
                          subtopics=subtopics)


def read_intents(source: Any) -> dict[tuple[str, str], float]:
    """Intent probabilities ``topic subtopic probability`` per line (non-negative numbers;
    each topic's are renormalised to sum to 1 over its relevant subtopics).

    Example:
        >>> import io
        >>> read_intents(io.StringIO("1 1 0.75\\n1 2 0.25\\n"))
        {('1', '1'): 0.75, ('1', '2'): 0.25}
    """
    name = display_name(source)
    if hasattr(source, "read"):
        raw = source.read()
        # bytes from a stream are read as a file's are (compressed or not, line limit)
        text = raw.encode("utf-8") if isinstance(raw, str) else read_stream(io.BytesIO(raw), name)
    else:
        text = read_bytes(source)
    # a small file (a few lines per topic): parsed line by line, by the readers' rules for
    # lines, blanks and numbers, to name the bad line
    out: dict[tuple[str, str], float] = {}
    for i, row in text_lines(text, name):
        shown = b" ".join(row).decode("utf-8", "replace")
        if len(row) != 3 or score_problem(row[2]) or float(row[2]) < 0:
            raise FormatError(name, i, f"expected `{INTENTS_LAYOUT}` with a probability >= 0, "
                              f"got {shown!r}")
        try:
            topic, subtopic = row[0].decode("utf-8"), row[1].decode("utf-8")
        except UnicodeDecodeError:
            raise FormatError(name, i, "not UTF-8 text (binary data?)") from None
        out[(topic, subtopic)] = float(row[2])
    if not out:
        raise InputError(name, f"no intent probabilities, expected lines of `{INTENTS_LAYOUT}`")
    return out
