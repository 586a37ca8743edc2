"""Retrieval models that generate runs on a text collection (for calibration benches).

Every model scores the whole collection at once with sparse matrix products (queries x terms
times terms x documents); only pseudo-relevance feedback selects per query, and that too is
done with array operations. A run keeps each query's top `depth` documents, ordered as
trec_eval orders them (score descending as C floats, i.e. compared in single precision, then
docno descending), so the documents kept are those trec_eval would rank first.

Models (``MODELS``; ``lexical`` says whether a model ranks by the query's own terms: a
calibration bench pools from lexical runs and scores the others as systems unlike the pool).
Notation: tf = count of term t in document d, |d| = document length, avgdl = mean length,
N = number of documents, df = documents containing t, qtf = count of t in the query,
P(t|C) = collection frequency / total tokens.

Lexical (a document is retrieved only if it contains a (expanded) query term, as in
Lucene-based systems):

- ``bm25``: sum over query terms of qtf * idf * tf (k1 + 1) / (tf + k1 (1 - b + b |d|/avgdl)),
  idf = ln(1 + (N - df + 0.5) / (df + 0.5)); k1 = 0.9, b = 0.4 (Anserini's defaults).
- ``bm25-classic``: the same with k1 = 1.2, b = 0.75.
- ``idf``: sum of qtf * idf over the query terms a document contains (BM25 with k1 = 0:
  coordination-level matching weighted by idf).
- ``tfidf``: SMART lnc.ltc cosine: document weights 1 + ln tf, cosine-normalised; query
  weights (1 + ln qtf) ln(N / df).
- ``ql-dir``: query likelihood, Dirichlet smoothing: sum qtf ln((tf + mu P(t|C)) / (|d| + mu)),
  mu = 500.
- ``ql-jm``: query likelihood, Jelinek-Mercer: sum qtf ln((1 - l) tf / |d| + l P(t|C)),
  l = 0.5.
- ``bm25-rm3``, ``ql-rm3``: RM3 expansion: the relevance model of the top 10 documents of
  the first pass (each document weighted by its normalised BM25 score, resp. its query
  likelihood, i.e. its Dirichlet log score exponentiated and normalised), P(w|R) =
  sum_d weight(d) tf(w,d) / |d|; its 20 strongest terms, normalised to sum 1, are mixed half
  and half with the original query (qtf normalised to sum 1); the mixed weights replace qtf in
  a second pass of the same model.

Not lexical:

- ``lsi``: latent semantic indexing: truncated SVD (k = 100; fewer for tiny collections)
  of the documents' tf-idf matrix ((1 + ln tf) ln(N/df), rows cosine-normalised); queries
  are folded in (tf-idf vector times V_k) and documents ranked by cosine with U_k S_k. Terms
  that co-occur share dimensions: documents without any query term rank high.
- ``docsim``: document similarity: each document scored by its mean cosine, in the LSI space,
  with the top 10 BM25 documents, weighted by their normalised BM25 scores ("more like these").
- ``walk``: random walk with restart on the bipartite document-term graph (edge weights =
  the cosine-normalised tf-idf weights; a step goes from a document to one of its terms and
  from that term to one of its documents, each chosen in proportion to the edge weights):
  documents linked through shared, specific terms, as co-citation links papers. Restart
  distribution = the top 20 BM25 documents weighted by normalised BM25 score, restart
  probability 0.3, 20 iterations from the restart distribution; a document's score is the
  probability of arriving at it by a step (the walk's distribution times one more step, so
  the restart jump itself does not keep BM25's top documents on top); documents the walk
  never reaches are not retrieved.

Determinism: nothing is random but the SVD's start vector, which is fixed: ARPACK
(``scipy.sparse.linalg.svds``) starts from a pseudo-random vector drawn by numpy's PCG64 with
seed 0, so one machine gives the same runs every time (checked: two computations from scratch
give identical runs). What may still vary is floating-point summation order: with OpenBLAS on
1 thread vs 2 threads, LSI and docsim scores on Cranfield and NPL differed by at most 1e-14
and every ranking was identical; another BLAS/LAPACK can move the last bits of those two
models' scores, which could swap documents whose scores tie in single precision but for them.
The other models are sparse products and element-wise ``log``: the same on any machine but for
a libm's last bit. Speed: ARPACK does many small BLAS calls; on a machine whose cores are all
busy, a multi-threaded BLAS can make the SVD ten times slower (OPENBLAS_NUM_THREADS=1 helps).

>>> from unjudged.text.index import build_index
>>> ix = build_index(["d1", "d2", "d3"], ["wing lift", "wing wing drag", "shock wave"])
>>> s = score_queries(ix, query_matrix(ix, ["wing lift"]), "bm25")
>>> [round(float(x), 4) for x in s[0]]
[1.4912, 0.5948, -inf]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from unjudged.data.run import Run
from unjudged.errors import InvalidOptionError
from unjudged.text.index import CorpusIndex
from unjudged.text.tokenise import Tokeniser

DEFAULT_DEPTH = 1000


@dataclass(frozen=True)
class Model:
    """A retrieval model of ``MODELS``: its name, whether it is lexical, and what it does."""

    name: str
    lexical: bool
    description: str


MODELS: dict[str, Model] = {m.name: m for m in (
    Model("bm25", True, "BM25, k1=0.9, b=0.4"),
    Model("bm25-classic", True, "BM25, k1=1.2, b=0.75"),
    Model("idf", True, "sum of idf of the matched query terms (BM25 with k1=0)"),
    Model("tfidf", True, "lnc.ltc cosine"),
    Model("ql-dir", True, "query likelihood, Dirichlet mu=500"),
    Model("ql-jm", True, "query likelihood, Jelinek-Mercer lambda=0.5"),
    Model("bm25-rm3", True, "BM25 + RM3 (10 docs, 20 terms, original weight 0.5)"),
    Model("ql-rm3", True, "QL Dirichlet + RM3 (10 docs, 20 terms, original weight 0.5)"),
    Model("lsi", False, "LSI: cosine in a 100-dim truncated SVD of the tf-idf matrix"),
    Model("docsim", False, "LSI cosine with the top 10 BM25 documents"),
    Model("walk", False, "random walk with restart from the top 20 BM25 documents on the "
          "document-term graph"),
)}
LEXICAL_MODELS = tuple(n for n, m in MODELS.items() if m.lexical)
NON_LEXICAL_MODELS = tuple(n for n, m in MODELS.items() if not m.lexical)

_LSI_DIMS = 100
_FB_DOCS, _FB_TERMS, _FB_ORIGINAL = 10, 20, 0.5
_SEEDS_DOCSIM, _SEEDS_WALK = 10, 20
_RESTART, _STEPS = 0.3, 20


def query_matrix(index: CorpusIndex, texts: Sequence[str],
                 tokeniser: Tokeniser | None = None) -> Any:
    """Queries as a scipy.sparse CSR matrix (queries x the index's terms) of term counts;
    query words not in the index's vocabulary are dropped. Tokenise with the index's own
    tokeniser.

    >>> from unjudged.text.index import build_index
    >>> ix = build_index(["d1"], ["wing lift"])
    >>> query_matrix(ix, ["lift lift", "wing drag"]).toarray().tolist()
    [[2, 0], [0, 1]]
    """
    from scipy import sparse

    terms, codes, doc = (tokeniser or Tokeniser()).encode(list(texts))
    vocab = index.terms
    col = np.searchsorted(vocab, terms) if vocab.size else np.zeros(terms.size, dtype=np.int64)
    known = col < vocab.size
    known[known] = vocab[col[known]] == terms[known]
    keep = known[codes]
    matrix = sparse.csr_matrix(
        (np.ones(int(keep.sum()), dtype=np.int32), (doc[keep], col[codes[keep]])),
        shape=(len(texts), vocab.size))
    matrix.sum_duplicates()
    return matrix


@dataclass(eq=False)
class _Stats:
    """Collection statistics shared by the models, computed once per index."""

    index: CorpusIndex
    _memo: dict[str, Any] = field(default_factory=dict)

    def get(self, key: str, make):
        if key not in self._memo:
            self._memo[key] = make()
        return self._memo[key]

    @property
    def n_docs(self) -> int:
        return int(self.index.tf.shape[0])

    @property
    def lengths(self) -> np.ndarray:
        return self.get("lengths", lambda: self.index.lengths.astype(np.float64))

    @property
    def df(self) -> np.ndarray:
        return self.get("df", lambda: np.bincount(self.index.tf.indices,
                                                  minlength=self.index.tf.shape[1]
                                                  ).astype(np.float64))

    @property
    def doc_of_entry(self) -> np.ndarray:
        """The row (document) of each stored entry of tf."""
        tf = self.index.tf
        return self.get("rows", lambda: np.repeat(np.arange(tf.shape[0]), np.diff(tf.indptr)))

    def weights(self, values: np.ndarray) -> Any:
        """A documents x terms matrix with tf's sparsity and the given entries."""
        from scipy import sparse

        tf = self.index.tf
        return sparse.csr_matrix((values, tf.indices, tf.indptr), shape=tf.shape)

    def bm25(self, k1: float, b: float) -> Any:
        def make():
            tf = self.index.tf.data.astype(np.float64)
            n, df = self.n_docs, self.df
            idf = np.log1p((n - df + 0.5) / (df + 0.5))
            lengths = self.lengths
            avgdl = lengths.mean() if lengths.size else 1.0
            norm = k1 * (1 - b + b * lengths / max(avgdl, 1e-12))
            # k1 = 0 is the limit tf (k1 + 1) / (tf + 0) = 1 of every stored tf >= 1
            part = np.ones_like(tf) if k1 == 0 else \
                tf * (k1 + 1) / (tf + norm[self.doc_of_entry])
            return self.weights(idf[self.index.tf.indices] * part).T.tocsr()
        return self.get(f"bm25:{k1}:{b}", make)

    @property
    def idf_log(self) -> np.ndarray:
        """ln(N / df), 0 for terms in no document."""
        df = self.df
        return np.log(self.n_docs / np.maximum(df, 1)) * (df > 0)

    @property
    def lnc(self) -> Any:
        """Documents x terms: 1 + ln tf, rows cosine-normalised."""
        def make():
            w = 1 + np.log(self.index.tf.data.astype(np.float64))
            return _normalise_rows(self.weights(w))
        return self.get("lnc", make)

    @property
    def tfidf(self) -> Any:
        """Documents x terms: (1 + ln tf) ln(N/df), rows cosine-normalised."""
        def make():
            tf = self.index.tf
            w = (1 + np.log(tf.data.astype(np.float64))) * self.idf_log[tf.indices]
            return _normalise_rows(self.weights(w))
        return self.get("tfidf", make)

    @property
    def collection(self) -> np.ndarray:
        return self.index.collection_model

    def ql_dir(self, mu: float) -> Any:
        """Terms x documents: ln(1 + tf / (mu P(t|C)))."""
        def make():
            tf = self.index.tf
            pc = self.collection[tf.indices]
            return self.weights(np.log1p(tf.data / (mu * pc))).T.tocsr()
        return self.get(f"dir:{mu}", make)

    def ql_jm(self, lam: float) -> Any:
        """Terms x documents: ln(1 + (1 - l) tf / (|d| l P(t|C)))."""
        def make():
            tf = self.index.tf
            pc = self.collection[tf.indices]
            dl = np.maximum(self.lengths, 1)[self.doc_of_entry]
            return self.weights(np.log1p((1 - lam) * tf.data / (dl * lam * pc))).T.tocsr()
        return self.get(f"jm:{lam}", make)

    @property
    def p_term_doc(self) -> Any:
        """Documents x terms: tf / |d|."""
        def make():
            tf = self.index.tf
            return self.weights(tf.data / np.maximum(self.lengths, 1)[self.doc_of_entry])
        return self.get("ptd", make)

    @property
    def lsi(self) -> tuple[np.ndarray, np.ndarray]:
        """(document vectors U_k S_k cosine-normalised, term matrix V_k: terms x k)."""
        def make():
            from scipy.sparse.linalg import svds

            x = self.tfidf
            if min(x.shape) < 2:  # one document (or term): ARPACK needs k < min(shape)
                u, s, vt = np.linalg.svd(x.toarray(), full_matrices=False)
                return _normalise_dense(u * s), np.ascontiguousarray(vt.T)
            k = max(1, min(_LSI_DIMS, min(x.shape) - 1))
            # ARPACK from a fixed start vector: the same triplets on every run
            v0 = np.random.default_rng(0).standard_normal(min(x.shape))
            u, s, vt = svds(x, k=k, v0=v0, solver="arpack")
            # q V_k S_k U_k^T is the same whatever sign ARPACK gives each triplet
            return _normalise_dense(u * s), np.ascontiguousarray(vt.T)
        return self.get("lsi", make)

    @property
    def walk_steps(self) -> tuple[Any, Any]:
        """(documents -> terms, terms -> documents) transition matrices of the bipartite
        graph whose edges are the tf-idf weights, rows normalised to sum 1."""
        def make():
            x = self.tfidf
            return _stochastic(x), _stochastic(x.T.tocsr())
        return self.get("walk", make)


def _stochastic(matrix: Any) -> Any:
    """Rows normalised to sum 1 (empty rows stay empty)."""
    from scipy import sparse

    sums = np.asarray(matrix.sum(axis=1)).ravel()
    inv = np.divide(1.0, sums, out=np.zeros_like(sums), where=sums > 0)
    return (sparse.diags(inv) @ matrix).tocsr()


_STATS: dict[int, tuple[CorpusIndex, _Stats]] = {}


def _stats(index: CorpusIndex) -> _Stats:
    """The statistics of `index`, remembered while the index lives (a few at once)."""
    held = _STATS.get(id(index))
    if held is not None and held[0] is index:
        return held[1]
    stats = _Stats(index)
    if len(_STATS) >= 4:
        _STATS.pop(next(iter(_STATS)))
    _STATS[id(index)] = (index, stats)
    return stats


def _normalise_rows(matrix: Any) -> Any:
    from scipy import sparse

    norms = np.sqrt(np.asarray(matrix.multiply(matrix).sum(axis=1)).ravel())
    inv = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
    return (sparse.diags(inv) @ matrix).tocsr()


def _normalise_dense(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)


def _dense(matrix: Any) -> np.ndarray:
    return np.asarray(matrix.toarray() if hasattr(matrix, "toarray") else matrix,
                      dtype=np.float64)


def _matched(stats: _Stats, queries: Any) -> np.ndarray:
    """Queries x documents: True where the document holds a query term of positive weight."""
    from scipy import sparse

    q = sparse.csr_matrix(queries)
    qb = sparse.csr_matrix((np.ones(q.nnz), q.indices, q.indptr), shape=q.shape)
    qb.data[q.data <= 0] = 0
    tb = stats.weights(np.ones(stats.index.tf.nnz))
    return _dense(qb @ tb.T) > 0


def _lexical(stats: _Stats, queries: Any, model: str) -> np.ndarray:
    """Scores (queries x documents) of a lexical model for weighted queries (counts or
    RM3 weights), -inf where a document holds no query term."""
    from scipy import sparse

    q = sparse.csr_matrix(queries, dtype=np.float64)
    if model in ("bm25", "bm25-classic", "idf"):
        k1, b = {"bm25": (0.9, 0.4), "bm25-classic": (1.2, 0.75), "idf": (0.0, 0.0)}[model]
        scores = _dense(q @ stats.bm25(k1, b))
    elif model == "tfidf":
        qw = q.copy()
        qw.data = (1 + np.log(np.maximum(qw.data, 1e-300))) * stats.idf_log[qw.indices]
        scores = _dense(_normalise_rows(qw) @ stats.lnc.T)
    elif model == "ql-dir":
        mu = 500.0
        qlen = np.asarray(q.sum(axis=1)).ravel()
        pc = stats.collection
        const = q @ np.log(np.maximum(pc, 1e-300))
        scores = _dense(q @ stats.ql_dir(mu))
        scores += np.outer(qlen, np.log(mu / (stats.lengths + mu)))
        scores += const[:, None]
    elif model == "ql-jm":
        lam = 0.5
        const = q @ np.log(lam * np.maximum(stats.collection, 1e-300))
        scores = _dense(q @ stats.ql_jm(lam)) + const[:, None]
    else:  # pragma: no cover - callers check the name
        raise InvalidOptionError(f"unknown lexical model {model!r}")
    scores[~_matched(stats, q)] = -np.inf
    return scores


def _top(scores: np.ndarray, k: int, order: np.ndarray) -> np.ndarray:
    """Per query, the columns of the k best documents (trec_eval order; -inf never kept:
    -1 marks an empty place). `order` = document rows in descending docno byte order.

    trec_eval 10.0 compares scores as C doubles, equal ones going by docno: the cut is made
    on the scores as they are (as unjudged's readers rank by default)."""
    keys = scores[:, order].astype(np.float64)
    ranked = order[np.argsort(-keys, axis=1, kind="stable")[:, :k]]
    ok = np.isfinite(np.take_along_axis(scores, ranked, axis=1))
    return np.where(ok, ranked, -1)


def _docno_order(index: CorpusIndex) -> np.ndarray:
    """Document rows sorted by docno, descending in byte order (trec_eval's tie-break)."""
    keys = np.asarray([d.encode("utf-8") for d in index.docnos.tolist()], dtype=object)
    return np.asarray(sorted(range(len(keys)), key=lambda i: keys[i], reverse=True),
                      dtype=np.int64)


def _seed_weights(scores: np.ndarray, k: int, order: np.ndarray, *, likelihood: bool = False
                  ) -> Any:
    """Queries x documents (sparse): the top k documents of each query, weighted by their
    scores normalised to sum 1 (likelihood: exp(score - max), normalised)."""
    from scipy import sparse

    top = _top(scores, k, order)
    rows = np.repeat(np.arange(top.shape[0]), top.shape[1])
    cols = top.ravel()
    ok = cols >= 0
    vals = scores[rows[ok], cols[ok]]
    rows, cols = rows[ok], cols[ok]
    if likelihood:
        best = np.full(scores.shape[0], -np.inf)
        np.maximum.at(best, rows, vals)
        vals = np.exp(vals - best[rows])
    vals = np.maximum(vals, 0.0)
    sums = np.bincount(rows, vals, minlength=scores.shape[0])
    vals = np.divide(vals, sums[rows], out=np.zeros_like(vals), where=sums[rows] > 0)
    return sparse.csr_matrix((vals, (rows, cols)), shape=scores.shape)


def _rm3(stats: _Stats, queries: Any, base: str, order: np.ndarray) -> np.ndarray:
    from scipy import sparse

    first = _lexical(stats, queries, base)
    weights = _seed_weights(first, _FB_DOCS, order, likelihood=base == "ql-dir")
    model = _dense(weights @ stats.p_term_doc)  # queries x terms: P(w | R)
    k = min(_FB_TERMS, model.shape[1])
    top = np.argsort(-model, axis=1, kind="stable")[:, :k]
    kept = np.zeros_like(model)
    np.put_along_axis(kept, top, np.take_along_axis(model, top, axis=1), axis=1)
    kept = _normalise_sum(kept)
    original = _normalise_sum(_dense(queries))
    mixed = _FB_ORIGINAL * original + (1 - _FB_ORIGINAL) * kept
    return _lexical(stats, sparse.csr_matrix(mixed), base)


def _normalise_sum(matrix: np.ndarray) -> np.ndarray:
    sums = matrix.sum(axis=1, keepdims=True)
    return np.divide(matrix, sums, out=np.zeros_like(matrix), where=sums > 0)


def score_queries(index: CorpusIndex, queries: Any, model: str) -> np.ndarray:
    """Scores of every document for every query: a dense (queries x documents) float64 array,
    -inf for a document the model does not retrieve.

    Args:
        index: the collection's CorpusIndex.
        queries: query_matrix(index, texts, tokeniser) (queries x terms, counts).
        model: a name of MODELS.

    >>> from unjudged.text.index import build_index
    >>> ix = build_index(["d1", "d2"], ["wing lift", "shock wave"])
    >>> score_queries(ix, query_matrix(ix, ["wing"]), "tfidf").round(4).tolist()
    [[0.7071, -inf]]
    """
    if model not in MODELS:
        raise InvalidOptionError(f"unknown retrieval model {model!r}; expected one of "
                                 f"{', '.join(MODELS)}")
    stats = _stats(index)
    order = stats.get("order", lambda: _docno_order(index))
    if model in ("bm25-rm3", "ql-rm3"):
        return _rm3(stats, queries, "bm25" if model == "bm25-rm3" else "ql-dir", order)
    if MODELS[model].lexical:
        return _lexical(stats, queries, model)
    from scipy import sparse

    q = sparse.csr_matrix(queries, dtype=np.float64)
    if model == "lsi":
        docs, terms = stats.lsi
        qw = q.copy()
        qw.data = (1 + np.log(np.maximum(qw.data, 1e-300))) * stats.idf_log[qw.indices]
        folded = _normalise_dense(np.asarray(qw @ terms))
        scores = folded @ docs.T
        scores[~folded.any(axis=1)] = -np.inf  # a query with no known term retrieves nothing
        return scores
    seeds = _seed_weights(_lexical(stats, q, "bm25"),
                          _SEEDS_DOCSIM if model == "docsim" else _SEEDS_WALK, order)
    if model == "docsim":
        docs, _ = stats.lsi
        scores = np.asarray(seeds @ docs) @ docs.T
        scores[np.diff(seeds.indptr) == 0] = -np.inf  # no BM25 match, no seed: nothing
        return scores
    # walk: p <- restart * seeds + (1 - restart) * p @ (documents -> terms -> documents)
    to_terms, to_docs = stats.walk_steps
    restart = _dense(seeds)
    p = restart.copy()
    for _ in range(_STEPS):
        p = _RESTART * restart + (1 - _RESTART) * np.asarray((p @ to_terms) @ to_docs)
    # score: the probability of arriving by a step, not by the restart jump, so that the
    # seeds do not simply keep BM25's top ranks
    p = np.asarray((p @ to_terms) @ to_docs)
    p[p <= 0] = -np.inf
    return p


def rank(scores: np.ndarray, index: CorpusIndex, topics: Sequence[str], *, name: str,
         depth: int = DEFAULT_DEPTH) -> Run:
    """A Run of each query's top `depth` documents by `scores` (queries x documents, rows in
    the order of `topics`), in trec_eval order (score descending, docno descending); -inf
    scores are left out.

    >>> from unjudged.text.index import build_index
    >>> ix = build_index(["d1", "d2", "d3"], ["a", "b", "c"])
    >>> run = rank(np.array([[1.0, 2.0, 1.0]]), ix, ["q1"], name="toy", depth=2)
    >>> run.to_dict()
    {'q1': {'d2': 2.0, 'd3': 1.0}}
    """
    import pyarrow as pa

    from unjudged.io.runs import build_run

    if depth < 1:
        raise InvalidOptionError(f"depth {depth} must be at least 1")
    if scores.shape != (len(topics), len(index.docnos)):
        raise InvalidOptionError(f"scores of shape {scores.shape} for {len(topics)} topics "
                                 f"and {len(index.docnos)} documents")
    stats = _stats(index)
    order = stats.get("order", lambda: _docno_order(index))
    top = _top(scores, min(depth, scores.shape[1]), order)
    rows = np.repeat(np.arange(top.shape[0]), top.shape[1])
    cols = top.ravel()
    ok = cols >= 0
    rows, cols = rows[ok], cols[ok]
    qid = pa.array(np.asarray(topics, dtype=object)[rows].tolist(), pa.string())
    docno = pa.array(index.docnos[cols].tolist(), pa.string())
    return build_run(qid, docno, pa.array(scores[rows, cols], pa.float64()), name=name,
                     source=f"<{name}>")


def generate_runs(collection: Any, models: Sequence[str] | None = None,
                  depth: int = DEFAULT_DEPTH) -> list[Run]:
    """One Run per model on a TextCollection (``unjudged.text.collections``), named by model.

    Args:
        collection: a TextCollection (index, topics, texts, tokeniser).
        models: names of MODELS (default: all, lexical first).
        depth: documents kept per query.

    >>> from unjudged.text.collections import TextCollection
    >>> from unjudged.text.index import build_index
    >>> from unjudged.io import read_qrels
    >>> ix = build_index(["d1", "d2"], ["wing lift", "shock wave"])
    >>> c = TextCollection("toy", ix, ["q1"], ["lift"], read_qrels({"q1": {"d1": 1}}),
    ...                    Tokeniser())
    >>> [(r.name, r.to_dict()) for r in generate_runs(c, ["bm25", "tfidf"])]  # ln 2, 2**-0.5
    [('bm25', {'q1': {'d1': 0.6931471805599453}}), ('tfidf', {'q1': {'d1': 0.7071067811865475}})]
    """
    names = list(MODELS) if models is None else list(models)
    unknown = [m for m in names if m not in MODELS]
    if unknown:
        raise InvalidOptionError(f"unknown retrieval model {unknown[0]!r}; expected one of "
                                 f"{', '.join(MODELS)}")
    queries = query_matrix(collection.index, collection.texts, collection.tokeniser)
    return [rank(score_queries(collection.index, queries, m), collection.index,
                 collection.topics, name=m, depth=depth) for m in names]
