"""Document text: corpus readers, tokenisation and cached term statistics.

>>> from unjudged.text import build_index
>>> build_index(["d1"], ["Wing lift"]).terms.tolist()
['lift', 'wing']
"""

from unjudged.text.index import CorpusIndex, build_index, corpus_index
from unjudged.text.readers import FORMATS, detect_format, read_docs, read_ir_datasets
from unjudged.text.tokenise import ENGLISH_STOPWORDS, Tokeniser, read_stopwords

__all__ = ["ENGLISH_STOPWORDS", "FORMATS", "CorpusIndex", "Tokeniser", "build_index",
           "corpus_index", "detect_format", "read_docs", "read_ir_datasets", "read_stopwords"]
