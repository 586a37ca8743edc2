"""Which tokenisation a corpus was already indexed with, so that a command given none reuses it.

`unjudged text index CORPUS --stopwords english --stem english` caches an index beside the
corpus; a later `unjudged text divergence ... --corpus CORPUS` without those options would
otherwise tokenise the corpus again with the defaults and cache a second index. The cache files
record their options (``key``: ``...;v<version>;<format>;<fields>;<tokeniser key>``), so the
tokeniser of the index built last can be read back; `unjudged.text.index.corpus_index` then
loads (and verifies) that cache as it loads any other.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from unjudged.text.tokenise import ENGLISH_STOPWORDS, Tokeniser

#: the stop-word lists a tokeniser key can be read back to, by the option that names them
STOPWORD_LISTS = {"none": frozenset(), "english": ENGLISH_STOPWORDS}
_PROBE = "options"  # any options string: its tag in a cache name is replaced by a wildcard


def _patterns(corpus: Path, cache_dir: str | os.PathLike[str] | None) -> list[Path]:
    """Glob patterns of the corpus's cache files, where corpus_index writes them."""
    from unjudged.text.index import _cache_path, _user_cache

    tag = hashlib.sha1(_PROBE.encode()).hexdigest()[:8]
    places = [_cache_path(corpus, _PROBE, cache_dir)]
    if cache_dir is None:
        places.append(_user_cache(corpus, _PROBE))
    return [p.with_name(p.name.replace(f".{tag}.", ".*.")) for p in places]


def _recorded_key(path: Path, owner: int) -> str | None:
    """The options a cache file records; None for what corpus_index would not trust anyway
    (a symbolic link, a file of neither this user nor the corpus's owner) or cannot read."""
    import numpy as np

    try:
        if path.is_symlink() or path.stat().st_uid not in (os.geteuid(), owner):
            return None
        with np.load(path, allow_pickle=False) as z:
            return str(z["key"])
    except Exception:  # a damaged cache is corpus_index's to report and rebuild
        return None


def built_tokeniser(corpus: str | os.PathLike[str], fmt: str | None = None,
                    fields: list[str] | tuple[str, ...] = (),
                    cache_dir: str | os.PathLike[str] | None = None
                    ) -> tuple[Tokeniser, str] | None:
    """(tokeniser, its options as command-line flags) of the index of `corpus` cached last
    with the same format and fields, or None when there is none (or its stop words came from a
    file, which the cache does not name).

    Example:
        >>> import tempfile, pathlib
        >>> from unjudged.text.index import corpus_index
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "c.tsv"
        >>> _ = p.write_text("d1\\twings of the plane\\n")
        >>> built_tokeniser(p, fields=["T", "W"]) is None
        True
        >>> _ = corpus_index(p, tokeniser=Tokeniser(ENGLISH_STOPWORDS), fields=["T", "W"])
        >>> built_tokeniser(p, fields=["T", "W"])[1]
        '--stopwords english'
    """
    from unjudged.text.index import _VERSION

    corpus = Path(corpus)
    head = f";v{_VERSION};{fmt};{','.join(fields)};"
    found = []
    owner = corpus.stat().st_uid
    for pattern in _patterns(corpus, cache_dir):
        for path in pattern.parent.glob(pattern.name) if pattern.parent.is_dir() else ():
            key = _recorded_key(path, owner)
            if key is None or head not in key:
                continue
            built = _tokeniser(key[key.index(head) + len(head):])
            if built is not None:
                found.append((path.stat().st_mtime_ns, built))
    return max(found, key=lambda x: x[0])[1] if found else None


def _tokeniser(key: str) -> tuple[Tokeniser, str] | None:
    stem = key.rpartition(";stem=")[2]
    stem_value = None if stem == "None" else stem
    for name, words in STOPWORD_LISTS.items():
        tok = Tokeniser(stopwords=words, stem=stem_value)
        if tok.key == key:
            flags = [f"--stopwords {name}"] if words else []
            flags += [f"--stem {stem_value}"] if stem_value else []
            return tok, " ".join(flags) or "the default options"
    return None
