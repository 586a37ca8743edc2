"""Tokenisation: lower case, alphanumeric tokens, optional stop words and stemming.

A corpus is tokenised as one string: the texts joined by a separator, one regular-expression
pass over all of it, tokens dictionary-encoded by Arrow. Stop words and stemming then act on
the vocabulary (tens of thousands of distinct words), never on each token.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from unjudged.errors import FormatError, InputError

_TOKEN = re.compile(r"[a-z0-9]+|\x1e")
_SEP = "\x1e"  # between documents (ASCII record separator); never part of a token

# A short English function-word list (articles, pronouns, auxiliaries, prepositions,
# conjunctions), written for this project; give a file for a collection's own list.
ENGLISH_STOPWORDS = frozenset([
    "a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any",
    "are", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both",
    "but", "by", "can", "could", "did", "do", "does", "doing", "down", "during", "each", "few",
    "for", "from", "further", "had", "has", "have", "having", "he", "her", "here", "hers",
    "herself", "him", "himself", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself",
    "just", "me", "more", "most", "my", "myself", "no", "nor", "not", "now", "of", "off", "on",
    "once", "only", "or", "other", "our", "ours", "ourselves", "out", "over", "own", "same", "she",
    "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them", "themselves",
    "then", "there", "these", "they", "this", "those", "through", "to", "too", "under", "until",
    "up", "very", "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom",
    "why", "will", "with", "would", "you", "your", "yours", "yourself", "yourselves",
])


@dataclass(frozen=True)
class Tokeniser:
    """How text becomes terms.

    Attributes:
        stopwords: words dropped after lower-casing (before stemming); empty keeps all.
        stem: a Snowball stemmer language ("english", "porter", ...) or None.

    >>> Tokeniser().tokens("Shock-waves at Mach 2, shock WAVES!")
    ['shock', 'waves', 'at', 'mach', '2', 'shock', 'waves']
    >>> Tokeniser(stopwords=ENGLISH_STOPWORDS).tokens("the waves at sea")
    ['waves', 'sea']
    """

    stopwords: frozenset[str] = frozenset()
    stem: str | None = None

    @property
    def key(self) -> str:
        """A short text identifying the options (part of the on-disk cache key)."""
        digest = hashlib.sha1(" ".join(sorted(self.stopwords)).encode()).hexdigest()[:12]
        return f"alnum-lower;stop={len(self.stopwords)}:{digest};stem={self.stem}"

    def tokens(self, text: str) -> list[str]:
        """The terms of one text, in order."""
        terms, codes, _ = self.encode([text])
        return [str(t) for t in terms[codes]]

    def encode(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Tokenise many texts at once.

        Returns (terms, codes, doc): the vocabulary (sorted str array), and per kept token its
        term code and the index of its text, in reading order.

        >>> terms, codes, doc = Tokeniser().encode(["b a b", "a"])
        >>> terms.tolist(), codes.tolist(), doc.tolist()
        (['a', 'b'], [1, 0, 1, 0], [0, 0, 0, 1])
        """
        import pyarrow as pa

        joined = _SEP.join(texts)
        if joined.count(_SEP) != max(len(texts) - 1, 0):  # a text holds the separator itself
            joined = _SEP.join(t.replace(_SEP, " ") for t in texts)
        words = _TOKEN.findall(joined.lower())
        enc = pa.array(words, pa.string()).dictionary_encode()
        raw = np.asarray(enc.indices, dtype=np.int64)
        vocab = np.asarray(enc.dictionary.to_pylist(), dtype=object)
        sep = vocab == _SEP
        # a token's text is the number of separators before it
        doc = np.cumsum(sep[raw]) if raw.size else raw
        keep = ~sep
        if self.stopwords:
            keep &= ~np.isin(vocab, np.asarray(sorted(self.stopwords), dtype=object))
        mapped = vocab.copy()
        if self.stem:
            mapped[keep] = _stemmer(self.stem)(vocab[keep].tolist())
        terms, inverse = np.unique(mapped[keep].astype(str), return_inverse=True)
        code_of = np.full(vocab.size, -1, dtype=np.int64)
        code_of[keep] = inverse
        codes = code_of[raw]
        kept = codes >= 0
        return terms, codes[kept], doc[kept]


def read_stopwords(path: str) -> frozenset[str]:
    """Stop words from a file (whitespace-separated, lower-cased), e.g. CACM's common_words.

    A binary file or one that is not UTF-8 is a FormatError: its "words" would silently drop
    nothing, or the wrong things.
    """
    from unjudged.io._source import line_number_at, read_bytes

    data = read_bytes(path)
    bad = data.find(b"\x00")
    if bad < 0:
        try:
            return frozenset(data.decode("utf-8").lower().split())
        except UnicodeDecodeError as exc:
            bad = exc.start
    raise FormatError(path, line_number_at(data, bad), "not UTF-8 text, expected stop words "
                      "separated by blanks")


def _stemmer(language: str):
    """A function stemming a list of words with the Snowball stemmer for `language`."""
    try:
        import Stemmer
    except ImportError:
        raise InputError("stemming", "needs PyStemmer: pip install 'unjudged[text]'") from None
    try:
        stemmer = Stemmer.Stemmer(language)
    except KeyError:
        raise InputError("stemming", f"no stemmer for {language!r}; expected one of "
                         f"{', '.join(Stemmer.algorithms())}") from None
    return stemmer.stemWords
