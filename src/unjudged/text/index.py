"""Term statistics of a corpus: a sparse docs x vocabulary count matrix, cached on disk.

The cache is one ``.npz`` file beside the corpus, ``<corpus>.<options>.unjudged-index.npz``
(``<options>`` = a short hash of the format, fields and tokeniser, so differently tokenised
indexes of one corpus coexist). It stores the corpus file's size and modification time: a
changed corpus is re-tokenised, an unchanged one is loaded without reading its text. Where the
corpus's folder is not writable the cache goes to ``$XDG_CACHE_HOME/unjudged`` (or
``~/.cache/unjudged``), or to the folder given as ``cache_dir``.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from unjudged.errors import note
from unjudged.text.readers import SMART_FIELDS, read_docs
from unjudged.text.tokenise import Tokeniser

_VERSION = "1"


@dataclass
class CorpusIndex:
    """Term counts of a corpus.

    Attributes:
        docnos: document ids (str array), row order of `tf`.
        terms: the vocabulary (sorted str array), column order of `tf`.
        tf: scipy.sparse CSR matrix (documents x terms) of term frequencies (int32).
        cache: the cache file used, if any; `reused` says whether it was loaded from it.

    >>> ix = build_index(["d1", "d2"], ["wing lift lift", "shock wave"])
    >>> ix.terms.tolist(), ix.tf.toarray().tolist()
    (['lift', 'shock', 'wave', 'wing'], [[2, 0, 0, 1], [0, 1, 1, 0]])
    >>> ix.rows(["d2", "nope"]).tolist()
    [1, -1]
    """

    docnos: np.ndarray
    terms: np.ndarray
    tf: Any
    cache: Path | None = None
    reused: bool = False
    _row: Any = field(default=None, repr=False)

    @property
    def lengths(self) -> np.ndarray:
        """Each document's length |d| (number of kept tokens)."""
        return np.asarray(self.tf.sum(axis=1)).ravel()

    @cached_property
    def collection_model(self) -> np.ndarray:
        """P(v | collection) = total count of v / total tokens (the seed's eq. 4)."""
        counts = np.asarray(self.tf.sum(axis=0), dtype=np.float64).ravel()
        return counts / max(counts.sum(), 1.0)

    def rows(self, docnos: Sequence[str] | Any) -> np.ndarray:
        """Row of each docno in `tf`, -1 for documents not in the corpus (vectorised)."""
        import pyarrow as pa
        import pyarrow.compute as pc

        if self._row is None:
            self._row = pa.array(self.docnos.tolist(), pa.string())
        values = docnos if isinstance(docnos, (pa.Array, pa.ChunkedArray)) else pa.array(
            list(docnos), pa.string())
        found = pc.index_in(values, value_set=self._row)
        return np.asarray(found.fill_null(-1), dtype=np.int64)


def build_index(docnos: Sequence[str], texts: Sequence[str],
                tokeniser: Tokeniser | None = None) -> CorpusIndex:
    """Tokenise texts into a CorpusIndex (no cache)."""
    from scipy import sparse

    terms, codes, doc = (tokeniser or Tokeniser()).encode(texts)
    tf = sparse.csr_matrix((np.ones(codes.size, dtype=np.int32), (doc, codes)),
                           shape=(len(texts), terms.size))
    tf.sum_duplicates()  # repeated (doc, term) pairs become counts
    return CorpusIndex(np.asarray(docnos, dtype=str), terms, tf)


def corpus_index(path: str | os.PathLike[str], fmt: str | None = None,
                 tokeniser: Tokeniser | None = None, *, fields: Sequence[str] = SMART_FIELDS,
                 cache: bool = True, cache_dir: str | os.PathLike[str] | None = None
                 ) -> CorpusIndex:
    """The CorpusIndex of a corpus file, from its cache when the file has not changed.

    Args:
        path: the corpus file (any format of `read_docs`).
        fmt: its format, None to detect it.
        tokeniser: tokenisation options (default: lower case, alphanumeric, all words kept).
        fields: SMART fields read as text.
        cache: False never reads nor writes a cache file.
        cache_dir: where the cache goes instead of beside the corpus.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "c.tsv"
    >>> _ = p.write_text("d1\\twing lift\\n")
    >>> corpus_index(p).reused, corpus_index(p).reused
    (False, True)
    """
    tokeniser = tokeniser or Tokeniser()
    path = Path(path)
    stat = path.stat()
    options = f"v{_VERSION};{fmt};{','.join(fields)};{tokeniser.key}"
    key = f"{stat.st_size};{stat.st_mtime_ns};{options}"
    target = _cache_path(path, options, cache_dir) if cache else None
    # an unwritable corpus folder sends the cache to the user's cache folder: look there too
    places = [] if target is None else \
        [target] + ([_user_cache(path, options)] if cache_dir is None else [])
    for place in places:
        loaded = _load(place, key)
        if loaded is not None:
            return loaded
    docnos, texts = read_docs(path, fmt, fields)
    index = build_index(docnos, texts, tokeniser)
    if target is not None:
        index.cache = _save(index, target, key, path, options)
    return index


def _cache_path(corpus: Path, options: str, cache_dir) -> Path:
    tag = hashlib.sha1(options.encode()).hexdigest()[:8]
    name = f"{corpus.name}.{tag}.unjudged-index.npz"
    if cache_dir is not None:
        # the corpus's full path keeps two corpora of one name apart in a shared folder
        where = hashlib.sha1(str(corpus.resolve()).encode()).hexdigest()[:8]
        return Path(cache_dir) / f"{where}-{name}"
    return corpus.parent / name


def _user_cache(corpus: Path, options: str) -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "unjudged"
    return _cache_path(corpus, options, base)


def _load(target: Path, key: str) -> CorpusIndex | None:
    """The cached index, or None: absent, of another corpus state or version, or unreadable.

    A damaged cache (truncated, empty, not an .npz, arrays that do not fit together) is
    rebuilt, with a note: it must never stop the command.
    """
    from scipy import sparse

    if not target.is_file():
        return None
    try:
        with np.load(target, allow_pickle=False) as z:
            if str(z["key"]) != key:
                return None
            shape = tuple(int(n) for n in z["shape"])
            docnos, terms = z["docnos"], z["terms"]
            if (len(docnos), len(terms)) != shape:
                raise ValueError(f"{len(docnos)} documents and {len(terms)} terms for a "
                                 f"{shape[0]} x {shape[1]} matrix")
            tf = sparse.csr_matrix((z["data"], z["indices"], z["indptr"]), shape=shape)
            tf.check_format(full_check=True)
            return CorpusIndex(docnos, terms, tf, cache=target, reused=True)
    except Exception as exc:  # any damage at all (zipfile, zlib, numpy, scipy errors)
        note(f"the index cache {target} is damaged ({type(exc).__name__}: {exc}); "
             "rebuilding it")
        return None


def _save(index: CorpusIndex, target: Path, key: str, corpus: Path, options: str
          ) -> Path | None:
    """Write through the project's one writer (complete or not at all); beside the corpus,
    else the user cache. A cache that cannot be written anywhere is only a lost speed-up."""
    from unjudged.errors import OutputError
    from unjudged.io.atomic import open_output

    fallback = _user_cache(corpus, options)
    for where in (target, fallback) if target != fallback else (target,):
        try:
            where.parent.mkdir(parents=True, exist_ok=True)
            with open_output(where) as fh:
                np.savez(fh, key=np.array(key), data=index.tf.data, indices=index.tf.indices,
                         indptr=index.tf.indptr, shape=np.array(index.tf.shape),
                         docnos=index.docnos, terms=index.terms)
            return where
        except (OSError, OutputError):
            continue
    return None
