"""Readers of document text: (docnos, texts) from the common corpus layouts.

Formats (``detect_format`` picks one from the first bytes when none is given):

- ``trectext``: TREC SGML, ``<DOC><DOCNO>id</DOCNO> ... </DOC>``; the text is everything inside
  the DOC element but the DOCNO, with tags removed.
- ``jsonl``: one JSON object a line with ``docno`` (or ``doc_id``/``id``) and ``text``.
- ``tsv``: ``docno<TAB>text`` lines.
- ``smart``: the SMART layout of Cranfield, CACM and CISI: ``.I id`` starts a record and
  ``.T``/``.W``/``.A``/``.B``/... start fields; titles and abstracts (``.T``, ``.W``) are read.
- ``npl``: the NPL collection: a line with the number, the text, a line with ``/``.
- ``ir_datasets``: ``read_ir_datasets(name)`` reads ``docs_iter()`` of an ir_datasets dataset.

Whole files are parsed with regular expressions (one C-level pass each), not line by line.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from typing import Any

from unjudged.errors import FormatError, InputError
from unjudged.io._source import display_name, max_line_length, read_bytes

#: The longest line of a corpus file, in bytes (a JSONL document is one line), unless the
#: readers' limit (--max-line-length) is set higher.
CORPUS_MAX_LINE = 256 << 20

FORMATS = ("trectext", "jsonl", "tsv", "smart", "npl")
SMART_FIELDS = ("T", "W")

_DOC = re.compile(rb"<DOC>(.*?)</DOC>", re.S | re.I)
_DOCNO = re.compile(rb"<DOCNO>\s*(.*?)\s*</DOCNO>", re.S | re.I)
_TAG = re.compile(rb"<[^>]*>")
_SMART_RECORD = re.compile(rb"^\.I[ \t]+(\S+)[ \t]*\r?$", re.M)
_SMART_FIELD = re.compile(rb"^\.([A-Z])[ \t]*\r?$", re.M)
_NPL_RECORD = re.compile(rb"^[ \t]*(\d+)[ \t]*\r?\n(.*?)^[ \t]*/[ \t]*\r?$", re.M | re.S)


def detect_format(head: bytes) -> str | None:
    """The corpus format that `head` (the first bytes of a file) looks like, or None.

    >>> detect_format(b".I 1\\n.T\\nexperimental investigation")
    'smart'
    >>> detect_format(b'{"docno": "d1", "text": "a b"}')
    'jsonl'
    """
    text = head.lstrip()
    if text.startswith(b".I"):
        return "smart"
    if text[:5].upper() == b"<DOC>":
        return "trectext"
    if text.startswith(b"{"):
        return "jsonl"
    first = text.split(b"\n", 1)[0]
    if first.strip().isdigit() and re.search(rb"^[ \t]*/[ \t]*\r?$", text, re.M):
        return "npl"
    if b"\t" in first:
        return "tsv"
    return None


def read_docs(source: str | os.PathLike[str], fmt: str | None = None,
              fields: Iterable[str] = SMART_FIELDS) -> tuple[list[str], list[str]]:
    """Read a corpus file (plain, .gz, .bz2 or .xz) into parallel lists of docnos and texts.

    Args:
        source: the corpus file.
        fmt: one of FORMATS; None detects it from the content.
        fields: the SMART fields read as text (titles and abstracts by default).

    Raises FormatError naming the file and line for a malformed record, InputError for an
    unknown format or a repeated docno.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "c.tsv"
    >>> _ = p.write_text("d1\\tWind tunnel\\nd2\\tShock waves\\n")
    >>> read_docs(p)
    (['d1', 'd2'], ['Wind tunnel', 'Shock waves'])
    """
    path = display_name(source)
    # a document of a JSONL or TSV corpus is one line and may be long: the run/qrels limit
    # does not fit corpora, but a bound still stops /dev/zero or a bomb
    data = read_bytes(source, max(max_line_length(), CORPUS_MAX_LINE))
    fmt = fmt or detect_format(data[:4096])
    if fmt is None:
        raise InputError(path, "cannot tell the corpus format from its first line; expected "
                         f"one of {', '.join(FORMATS)} (give it with --format)")
    parse = {"trectext": _trectext, "jsonl": _jsonl, "tsv": _tsv, "npl": _npl}.get(fmt)
    if fmt == "smart":
        docnos, texts = _smart(data, path, tuple(fields))
    elif parse is None:
        raise InputError(path, f"unknown corpus format {fmt!r}; expected one of "
                         f"{', '.join(FORMATS)}")
    else:
        docnos, texts = parse(data, path)
    _unique(docnos, path)
    return docnos, texts


def read_ir_datasets(dataset: Any) -> tuple[list[str], list[str]]:
    """Docnos and texts from ir_datasets: a dataset name (needs the package) or any object with
    ``docs_iter()`` yielding records with ``doc_id`` and ``text`` (or ``title``/``body``...).

    >>> from collections import namedtuple
    >>> Doc = namedtuple("Doc", "doc_id title text")
    >>> class Toy:
    ...     def docs_iter(self):
    ...         return iter([Doc("1", "Wings", "lift")])
    >>> read_ir_datasets(Toy())
    (['1'], ['Wings lift'])
    """
    if isinstance(dataset, str):
        try:
            import ir_datasets
        except ImportError:
            raise InputError(dataset, "reading an ir_datasets corpus needs the ir_datasets "
                             "package (pip install ir_datasets)") from None
        dataset = ir_datasets.load(dataset)
    docnos: list[str] = []
    texts: list[str] = []
    for doc in dataset.docs_iter():
        # every string field but the id is text: title + body keeps what a reader sees
        parts = [v for k, v in zip(doc._fields, doc, strict=True)
                 if k != "doc_id" and isinstance(v, str)]
        docnos.append(doc.doc_id)
        texts.append(" ".join(parts))
    _unique(docnos, "ir_datasets")
    return docnos, texts


def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def _trectext(data: bytes, path: str) -> tuple[list[str], list[str]]:
    docnos, texts = [], []
    for m in _DOC.finditer(data):
        body = m.group(1)
        no = _DOCNO.search(body)
        if no is None or not no.group(1):
            raise FormatError(path, _line_of(data, m.start()),
                              "expected <DOCNO>id</DOCNO> inside <DOC>")
        docnos.append(no.group(1).decode("utf-8", "replace"))
        rest = body[:no.start()] + b" " + body[no.end():]
        texts.append(_TAG.sub(b" ", rest).decode("utf-8", "replace"))
    if not docnos:
        raise FormatError(path, 1, "expected <DOC> ... </DOC> records (trectext)")
    return docnos, texts


def _jsonl(data: bytes, path: str) -> tuple[list[str], list[str]]:
    docnos, texts = [], []
    for number, line in enumerate(data.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError):  # not JSON, or nested too deeply to read
            obj = None
        key = next((k for k in ("docno", "doc_id", "id") if isinstance(obj, dict) and k in obj),
                   None)
        if key is None or not isinstance(obj.get("text"), str):
            raise FormatError(path, number, 'expected a JSON object {"docno": ..., "text": ...}')
        docnos.append(str(obj[key]))
        texts.append(obj["text"])
    return docnos, texts


def _tsv(data: bytes, path: str) -> tuple[list[str], list[str]]:
    docnos, texts = [], []
    for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
        if not line.strip():
            continue
        docno, tab, text = line.partition("\t")
        if not tab or not docno.strip():
            raise FormatError(path, number, "expected `docno<TAB>text`")
        docnos.append(docno.strip())
        texts.append(text)
    return docnos, texts


def _smart(data: bytes, path: str, fields: tuple[str, ...]) -> tuple[list[str], list[str]]:
    starts = list(_SMART_RECORD.finditer(data))
    if not starts or data[:starts[0].start()].strip():
        raise FormatError(path, 1, "expected `.I id` records (SMART layout)")
    wanted = {f.encode() for f in fields}
    docnos, texts = [], []
    for m, nxt in zip(starts, starts[1:] + [None], strict=True):
        body = data[m.end():nxt.start() if nxt is not None else len(data)]
        # split keeps the field letters: ['', 'T', text, 'W', text, ...]
        parts = _SMART_FIELD.split(body)
        if parts[0].strip():
            raise FormatError(path, _line_of(data, m.end()) + 1,
                              "expected a field marker (.T, .W, ...) after `.I`")
        text = b" ".join(parts[i + 1] for i in range(1, len(parts) - 1, 2) if parts[i] in wanted)
        docnos.append(m.group(1).decode())
        texts.append(text.decode("utf-8", "replace"))
    return docnos, texts


def _npl(data: bytes, path: str) -> tuple[list[str], list[str]]:
    docnos, texts, end = [], [], 0
    for m in _NPL_RECORD.finditer(data):
        gap = data[end:m.start()]
        if gap.strip():
            raise FormatError(path, _line_of(data, end + len(gap) - len(gap.lstrip())),
                              "expected a document number on its own line (NPL layout)")
        docnos.append(m.group(1).decode())
        texts.append(m.group(2).decode("utf-8", "replace"))
        end = m.end()
    rest = data[end:]
    if rest.strip() or not docnos:
        # point at the first line of the unclosed record
        start = end + len(rest) - len(rest.lstrip())
        raise FormatError(path, _line_of(data, start), "expected a record closed by a `/` line "
                          "(NPL layout)")
    return docnos, texts


def _unique(docnos: list[str], path: str) -> None:
    if len(set(docnos)) != len(docnos):
        seen: set[str] = set()
        for dup in docnos:  # the first docno seen twice
            if dup in seen:
                break
            seen.add(dup)
        raise InputError(path, f"docno {dup!r} occurs more than once; expected unique docnos")
