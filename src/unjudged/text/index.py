"""Term statistics of a corpus: a sparse docs x vocabulary count matrix, cached on disk.

The cache is one ``.npz`` file beside the corpus, ``<corpus>.<options>.unjudged-index.npz``
(``<options>`` = a short hash of the format, fields and tokeniser, so differently tokenised
indexes of one corpus coexist). Where the corpus's folder is not writable the cache goes to
``$XDG_CACHE_HOME/unjudged`` (or ``~/.cache/unjudged``), or to the folder given as
``cache_dir``.

A corpus folder may be shared, so the cache is not trusted for its name alone. It stores the
sha256 of the corpus's bytes (hashing is far cheaper than tokenising; size and modification
time can be forged or kept by an edit) and the sha256 of its own arrays; it is used only when
both match, when it is a regular file (a symlink is never followed, neither to read nor to
write) and when it belongs to this user or to the corpus's owner. Anything else is rebuilt,
with a note, and written as a new file renamed over the name (io.atomic, follow_symlinks=False).
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

_VERSION = "2"  # 2: the key holds the corpus's sha256, the file its arrays' sha256
#: the arrays of a cache file, in the order their digest covers them
_ARRAYS = ("data", "indices", "indptr", "shape", "docnos", "terms")


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
    options = f"v{_VERSION};{fmt};{','.join(fields)};{tokeniser.key}"
    target = _cache_path(path, options, cache_dir) if cache else None
    key = f"{_sha256(path)};{options}" if target is not None else ""
    # an unwritable corpus folder sends the cache to the user's cache folder: look there too
    places = [] if target is None else \
        [target] + ([_user_cache(path, options)] if cache_dir is None else [])
    owner = path.stat().st_uid
    for place in places:
        loaded = _load(place, key, owner)
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


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _digest(arrays: dict[str, np.ndarray]) -> str:
    """sha256 of the cache's arrays (dtype, shape and bytes of each)."""
    h = hashlib.sha256()
    for name in _ARRAYS:
        a = np.ascontiguousarray(arrays[name])
        h.update(f"{name};{a.dtype.str};{a.shape};".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def _open_cache(target: Path, owner: int):
    """A binary file of the cache at `target`, or None: absent, or not to be trusted (a note
    says why)."""
    import stat

    try:
        fd = os.open(target, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as exc:
        why = "a symbolic link" if target.is_symlink() else f"unreadable ({exc.strerror})"
        note(f"the index cache {target} is {why}; not used")
        return None
    st = os.fstat(fd)
    why = ("not a regular file" if not stat.S_ISREG(st.st_mode)
           else "another user's file" if st.st_uid not in (os.geteuid(), owner) else "")
    if why:
        os.close(fd)
        note(f"the index cache {target} is {why}; not used")
        return None
    return os.fdopen(fd, "rb")


def _load(target: Path, key: str, owner: int) -> CorpusIndex | None:
    """The cached index, or None: absent, of another corpus content or version, unreadable,
    or not to be trusted (see the module docstring).

    A damaged cache (truncated, empty, not an .npz, arrays that do not fit together or do not
    match their digest) is rebuilt, with a note: it must never stop the command.
    """
    from scipy import sparse

    fh = _open_cache(target, owner)
    if fh is None:
        return None
    try:
        with fh, np.load(fh, allow_pickle=False) as z:
            if "digest" not in z or str(z["key"]) != key:
                return None  # an older version's cache, or of another corpus content
            arrays = {name: z[name] for name in _ARRAYS}
            if _digest(arrays) != str(z["digest"]):
                raise ValueError("its arrays do not match their sha256")
            shape = tuple(int(n) for n in arrays["shape"])
            docnos, terms = arrays["docnos"], arrays["terms"]
            if (len(docnos), len(terms)) != shape:
                raise ValueError(f"{len(docnos)} documents and {len(terms)} terms for a "
                                 f"{shape[0]} x {shape[1]} matrix")
            tf = sparse.csr_matrix((arrays["data"], arrays["indices"], arrays["indptr"]),
                                   shape=shape)
            tf.check_format(full_check=True)
            return CorpusIndex(docnos, terms, tf, cache=target, reused=True)
    except Exception as exc:  # any damage at all (zipfile, zlib, numpy, scipy errors)
        note(f"the index cache {target} is damaged ({type(exc).__name__}: {exc}); "
             "rebuilding it")
        return None


def _save(index: CorpusIndex, target: Path, key: str, corpus: Path, options: str
          ) -> Path | None:
    """Write through the project's one writer (complete or not at all, never through a
    symlink); beside the corpus, else the user cache. A cache that cannot be written anywhere
    is only a lost speed-up; a name held by a symlink or other non-file is left alone."""
    from unjudged.errors import OutputError
    from unjudged.io.atomic import open_output

    fallback = _user_cache(corpus, options)
    for where in (target, fallback) if target != fallback else (target,):
        try:
            where.parent.mkdir(parents=True, exist_ok=True)
            arrays = {"data": index.tf.data, "indices": index.tf.indices,
                      "indptr": index.tf.indptr, "shape": np.array(index.tf.shape),
                      "docnos": index.docnos, "terms": index.terms}
            with open_output(where, follow_symlinks=False) as fh:
                np.savez(fh, key=np.array(key), digest=np.array(_digest(arrays)), **arrays)
            return where
        except (OSError, OutputError) as exc:
            if isinstance(exc, OutputError) and "not followed" in str(exc):
                note(f"the index cache {where} is a symbolic link; not replaced")
            continue
    return None
