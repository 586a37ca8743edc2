"""The four classic test collections with text: Cranfield, CACM, CISI and NPL.

A small registry (``COLLECTIONS``: name -> where each part lies inside the collection's folder
and in which layout) and ``load_collection(name, folder)``, which reads the documents into a
CorpusIndex, the queries into texts and the relevance assessments into a Qrels. The folder is
always an argument: this module never looks for data by itself.

Layouts of the relevance files and how they become grades (unjudged's convention: grade >= 1 is
relevant, 0 judged not relevant):

- Cranfield ``cranqrel``: ``query doc code``. Cleverdon's codes 1 (a complete answer) to 4
  (minimum interest) become grades ``5 - code``: 4 (complete answer), 3, 2, 1 (minimum
  interest), so that a higher grade is more relevant and every coded reference counts as
  relevant at the default relevance level 1. Code -1 (ir_datasets: "references of no
  interest", Cleverdon's 5) becomes grade 0, judged not relevant. Queries are numbered
  1..225 in the order of ``cran.qry`` (its ``.I`` numbers run 001..365 with gaps; the
  judgments use the sequential numbers).
- CACM ``qrels.text`` and CISI ``CISI.REL``: ``query doc 0 0`` (resp. ``0.000000``), relevant
  pairs only: grade 1.
- NPL ``rlv-ass``: a query number on its own line, then its relevant documents, then ``/``:
  grade 1.

Query and document numbers are written without leading zeros (CACM's qrels write ``01``).
Documents are titles and abstracts (SMART fields ``.T`` and ``.W``); queries are ``.W`` (and
``.T`` for CISI's long queries). Only the judged queries (with at least one judgment) are kept
unless ``judged_only=False``: the others are not evaluated by trec_eval's convention.

>>> sorted(COLLECTIONS)
['cacm', 'cisi', 'cranfield', 'npl']
>>> COLLECTIONS["cranfield"].folder
'cranfield-noramtboraas'
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa

from unjudged.data.qrels import Qrels
from unjudged.errors import FormatError, InputError, InvalidOptionError
from unjudged.io._source import display_name, read_bytes
from unjudged.io.qrels import build_qrels
from unjudged.text.index import CorpusIndex, corpus_index
from unjudged.text.readers import read_docs
from unjudged.text.tokenise import ENGLISH_STOPWORDS, Tokeniser

QRELS_LAYOUTS = ("cranfield", "pairs", "npl")


@dataclass(frozen=True)
class CollectionSpec:
    """Where a collection's parts lie inside its folder, and their layouts.

    Attributes:
        name: the registry name.
        folder: the folder's usual name under a data directory (``../shared/data``).
        docs, queries, qrels: paths relative to the folder.
        docs_format, queries_format: formats of ``read_docs`` ("smart", "npl").
        qrels_format: one of QRELS_LAYOUTS.
        query_fields: the SMART fields read as query text.
        renumber_queries: number queries 1, 2, ... in file order (Cranfield).
    """

    name: str
    folder: str
    docs: str
    queries: str
    qrels: str
    docs_format: str
    queries_format: str
    qrels_format: str
    query_fields: tuple[str, ...] = ("W",)
    renumber_queries: bool = False


COLLECTIONS: dict[str, CollectionSpec] = {
    "cranfield": CollectionSpec("cranfield", "cranfield-noramtboraas", "cran.all.1400",
                                "cran.qry", "cranqrel", "smart", "smart", "cranfield",
                                renumber_queries=True),
    "cacm": CollectionSpec("cacm", "cacm-atcherepanov", "cacm.all", "query.text", "qrels.text",
                           "smart", "smart", "pairs"),
    "cisi": CollectionSpec("cisi", "cisi-shakiba-alipour", "CISI.ALL", "CISI.QRY", "CISI.REL",
                           "smart", "smart", "pairs", query_fields=("T", "W")),
    "npl": CollectionSpec("npl", "npl-vaswani-stefreschke", "npl/doc-text", "npl/query-text",
                          "npl/rlv-ass", "npl", "npl", "npl"),
}

#: The tokeniser of load_collection unless one is given: English stop words, Snowball stemmer.
DEFAULT_TOKENISER = Tokeniser(stopwords=ENGLISH_STOPWORDS, stem="english")


@dataclass
class TextCollection:
    """A test collection read into memory.

    Attributes:
        name: the registry name.
        index: the documents' CorpusIndex.
        topics: query ids (str), in the order of `texts`.
        texts: query texts.
        qrels: the relevance assessments.
        tokeniser: the tokeniser of the index (queries must be tokenised the same way).
    """

    name: str
    index: CorpusIndex
    topics: list[str]
    texts: list[str]
    qrels: Qrels
    tokeniser: Tokeniser

    @property
    def queries(self) -> dict[str, str]:
        """{topic: text}."""
        return dict(zip(self.topics, self.texts, strict=True))


def collection_spec(name: str) -> CollectionSpec:
    """The registry entry of `name` (InvalidOptionError for an unknown one).

    >>> collection_spec("npl").qrels
    'npl/rlv-ass'
    """
    spec = COLLECTIONS.get(name.lower())
    if spec is None:
        raise InvalidOptionError(f"unknown collection {name!r}; expected one of "
                                 f"{', '.join(sorted(COLLECTIONS))}")
    return spec


def collection_folder(name: str, data_dir: str | os.PathLike[str]) -> Path:
    """The collection's folder: `data_dir` itself when it holds the collection's files,
    else ``data_dir / spec.folder``.

    >>> collection_folder("cacm", "/data").as_posix()
    '/data/cacm-atcherepanov'
    """
    spec = collection_spec(name)
    base = Path(data_dir)
    return base if (base / spec.docs).is_file() else base / spec.folder


def load_collection(name: str, data_dir: str | os.PathLike[str], *,
                    tokeniser: Tokeniser | None = None, judged_only: bool = True,
                    cache: bool = False, cache_dir: str | os.PathLike[str] | None = None
                    ) -> TextCollection:
    """Read collection `name` from `data_dir` (the folder holding the collection's folder, or
    the collection's folder itself).

    Args:
        name: one of COLLECTIONS.
        data_dir: e.g. ``../shared/data``.
        tokeniser: DEFAULT_TOKENISER (stop words and Snowball stemming) unless given.
        judged_only: keep only queries that have at least one judgment.
        cache, cache_dir: the index cache of ``corpus_index`` (off by default: reading any of
            these collections takes well under a second).

    Raises InputError when a file is missing, FormatError for a malformed line.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "cacm.all").write_text(".I 1\\n.T\\nWing lift\\n.I 2\\n.T\\nShock waves\\n")
    >>> _ = (d / "query.text").write_text(".I 1\\n.W\\nlifting wings\\n.I 2\\n.W\\nwaves\\n")
    >>> _ = (d / "qrels.text").write_text("01 1 0 0\\n")
    >>> c = load_collection("cacm", d, tokeniser=Tokeniser())
    >>> c.topics, c.texts, c.qrels.to_dict(), c.index.docnos.tolist()
    (['1'], ['\\nlifting wings\\n'], {'1': {'1': 1}}, ['1', '2'])
    """
    spec = collection_spec(name)
    folder = collection_folder(name, data_dir)
    tokeniser = tokeniser or DEFAULT_TOKENISER
    paths = {part: folder / getattr(spec, part) for part in ("docs", "queries", "qrels")}
    for part, path in paths.items():
        if not path.is_file():
            raise InputError(str(path), f"the {spec.name} {part} file is missing (expected "
                             f"{getattr(spec, part)} in {folder})")
    index = corpus_index(paths["docs"], spec.docs_format, tokeniser, cache=cache,
                         cache_dir=cache_dir)
    # document numbers without leading zeros, as the judgments write them
    index.docnos = np.asarray([_number(d) for d in index.docnos.tolist()], dtype=str)
    qids, texts = read_docs(paths["queries"], spec.queries_format, spec.query_fields)
    if spec.renumber_queries:
        qids = [str(i) for i in range(1, len(qids) + 1)]
    else:
        qids = [_number(q) for q in qids]
    qrels = read_collection_qrels(paths["qrels"], spec.qrels_format)
    keep = [i for i, t in enumerate(texts) if t.strip()]
    if judged_only:
        judged = set(qrels.topics)
        keep = [i for i in keep if qids[i] in judged]
    return TextCollection(spec.name, index, [qids[i] for i in keep], [texts[i] for i in keep],
                          qrels, tokeniser)


def read_collection_qrels(path: str | os.PathLike[str], layout: str) -> Qrels:
    """Relevance assessments in one of QRELS_LAYOUTS as a Qrels (grades as in the module doc).

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "cranqrel"
    >>> _ = p.write_text("1 184 2\\n1 29 4 \\n2 12 -1\\n")
    >>> read_collection_qrels(p, "cranfield").to_dict()
    {'1': {'184': 3, '29': 1}, '2': {'12': 0}}
    >>> _ = p.write_text("1\\n 12  7\\n 3\\n   /\\n2\\n 5\\n   /\\n")
    >>> read_collection_qrels(p, "npl").to_dict()
    {'1': {'12': 1, '3': 1, '7': 1}, '2': {'5': 1}}
    """
    if layout not in QRELS_LAYOUTS:
        raise InvalidOptionError(f"unknown relevance file layout {layout!r}; expected one of "
                                 f"{', '.join(QRELS_LAYOUTS)}")
    name = display_name(path)
    text = read_bytes(path).decode("utf-8", "replace")
    if layout == "npl":
        qids, docs, grades = _npl_pairs(text, name)
    else:
        qids, docs, grades = _column_pairs(text, name, layout)
    if not qids:
        raise InputError(name, "no judgments found")
    return build_qrels(pa.array(qids, pa.string()), pa.array(["0"] * len(qids), pa.string()),
                       pa.array(docs, pa.string()), pa.array(grades, pa.int64()), source=name)


def _number(text: str) -> str:
    """A query or document number without leading zeros ('007' -> '7'); other ids unchanged."""
    return str(int(text)) if text.isdigit() else text


def _column_pairs(text: str, path: str, layout: str
                  ) -> tuple[list[str], list[str], list[int]]:
    qids: list[str] = []
    docs: list[str] = []
    grades: list[int] = []
    want = 3 if layout == "cranfield" else 2
    for number, line in enumerate(text.splitlines(), 1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) < want or not (fields[0].isdigit() and fields[1].isdigit()):
            shape = "`query doc code`" if layout == "cranfield" else "`query doc ...`"
            raise FormatError(path, number, f"expected {shape} with numeric ids")
        grade = 1
        if layout == "cranfield":
            code = fields[2]
            if code == "-1":
                grade = 0
            elif code in ("1", "2", "3", "4"):
                grade = 5 - int(code)
            else:
                raise FormatError(path, number, f"relevance code {code!r}, expected 1-4 or -1")
        qids.append(_number(fields[0]))
        docs.append(_number(fields[1]))
        grades.append(grade)
    return qids, docs, grades


_NPL_BLOCK = re.compile(r"^\s*(\d+)[ \t]*\r?\n(.*?)^[ \t]*/[ \t]*\r?$", re.M | re.S)


def _npl_pairs(text: str, path: str) -> tuple[list[str], list[str], list[int]]:
    qids: list[str] = []
    docs: list[str] = []
    end = 0
    for m in _NPL_BLOCK.finditer(text):
        if text[end:m.start()].strip():
            line = text.count("\n", 0, end) + 1
            raise FormatError(path, line, "expected a query number on its own line (NPL "
                              "relevance assessments)")
        found = m.group(2).split()
        if not all(d.isdigit() for d in found):
            line = text.count("\n", 0, m.start(2)) + 1
            raise FormatError(path, line, "expected document numbers")
        qids.extend([_number(m.group(1))] * len(found))
        docs.extend(_number(d) for d in found)
        end = m.end()
    if text[end:].strip():
        raise FormatError(path, text.count("\n", 0, end) + 1,
                          "expected a block closed by a `/` line (NPL relevance assessments)")
    return qids, docs, [1] * len(qids)
