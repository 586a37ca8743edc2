"""Document text: corpus readers, tokenisation and cached term statistics.

>>> from unjudged.text import build_index
>>> build_index(["d1"], ["Wing lift"]).terms.tolist()
['lift', 'wing']
"""

from unjudged.text.collections import COLLECTIONS, TextCollection, load_collection
from unjudged.text.index import CorpusIndex, build_index, corpus_index
from unjudged.text.readers import FORMATS, detect_format, read_docs, read_ir_datasets
from unjudged.text.retrieval import (
    LEXICAL_MODELS,
    MODELS,
    NON_LEXICAL_MODELS,
    generate_runs,
    query_matrix,
    score_queries,
)
from unjudged.text.tokenise import ENGLISH_STOPWORDS, Tokeniser, read_stopwords

__all__ = ["ENGLISH_STOPWORDS", "FORMATS", "CorpusIndex", "Tokeniser", "build_index",
           "corpus_index", "detect_format", "read_docs", "read_ir_datasets", "read_stopwords",
           "COLLECTIONS", "TextCollection", "load_collection", "MODELS", "LEXICAL_MODELS",
           "NON_LEXICAL_MODELS", "generate_runs", "query_matrix", "score_queries"]
