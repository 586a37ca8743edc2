"""The text prior: how likely an unjudged document is relevant, from its text and the topic's
judged documents (`--prior text --corpus CORPUS`; the estimates prior's machinery draws it).

Features of a (topic, document) pair, from the corpus index (no network, no model download):

* the highest and the mean tf-idf cosine similarity to the topic's judged relevant documents,
  and the same to its judged non-relevant ones (a judged document is never compared with
  itself);
* the BM25 score of the topic's query text, when given (k1 = 0.9, b = 0.4);
* the log of the document's length;
* where the runs put it: log2 of its best rank and of 1 + the runs retrieving it in their top
  100 (the position prior's features: pools leave the deep documents unjudged).

A logistic model with one intercept per topic and slopes shared by all topics (ridge 1 on the
standardised slopes) is fitted on the judged documents. The judged documents' own
probabilities are cross-validated (folds of documents within each topic, each predicted by a
model fitted without its fold), so the estimates prior fits its trust on honest predictions;
the unjudged documents are predicted by the model fitted on all of them. The result is an
ExternalEstimates of probabilities of relevance.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa

from unjudged.data.qrels import Qrels
from unjudged.data.run import Run
from unjudged.io.estimates import ExternalEstimates
from unjudged.text.index import CorpusIndex

FOLDS = 5
_RIDGE = 1.0
_BM25 = (0.9, 0.4)


def text_estimates(index: CorpusIndex, qrels: Qrels, runs: Sequence[Run], *,
                   queries: dict[str, str] | None = None, tokeniser: Any = None,
                   rel_level: int = 1, depth: int | None = None,
                   folds: int = FOLDS) -> tuple[ExternalEstimates, dict[str, int]]:
    """Probabilities of relevance for every document the runs retrieve (within `depth`) and
    every judged document of the qrels' topics, with counts: documents estimated, and
    documents the corpus lacks (no estimate: they keep the topic prior)."""
    pairs = _pairs(qrels, runs, depth, rel_level)
    topics = list(qrels.topics)
    rows = index.rows(pairs["docno"])
    have = rows >= 0
    missing = int((~have).sum())
    t, docs, rows = pairs["topic"][have], pairs["docno"].filter(pa.array(have)), rows[have]
    position = pairs["position"][have]
    grades = qrels.lookup(qrels.topic_codes(topics)[t], qrels.doc_codes(docs))
    judged = grades >= 0
    label = grades >= rel_level
    x = _features(index, topics, t, rows, judged, label, queries, tokeniser, position)
    p = np.zeros(t.size)
    fold = rows % max(folds, 1)
    for f in range(max(folds, 1)):  # the judged documents of fold f, predicted without it
        train = judged & (fold != f)
        test = judged & (fold == f)
        if test.any():
            p[test] = _predict(*_fit(x[train], t[train], label[train], len(topics)),
                               x[test], t[test])
    p[~judged] = _predict(*_fit(x[judged], t[judged], label[judged], len(topics)),
                          x[~judged], t[~judged])
    topic_ids = pa.array([topics[i] for i in t], pa.string())
    dist = np.stack([1.0 - p, p], axis=1)
    return (ExternalEstimates(topic_ids, docs, dist, "<text prior>", relevance_only=True),
            {"estimated": int(t.size), "missing": missing})


def _pairs(qrels: Qrels, runs: Sequence[Run], depth: int | None,
           rel_level: int) -> dict[str, Any]:
    """Distinct (topic index, docno) of the runs' rankings (within `depth`) and of the qrels'
    judged lines, in order of first appearance, with the position prior's features of each
    (unjudged.strategies.position: log2 of the best rank and of 1 + the votes; a judged
    document no run retrieved sits one past the deepest rank, with no vote)."""
    from unjudged.data._strings import index_codes
    from unjudged.data.judged import _ramp
    from unjudged.strategies.keys import combine, string_keys
    from unjudged.strategies.position import PositionModel, topic_keys

    topics = list(qrels.topics)
    index = {q: i for i, q in enumerate(topics)}
    parts_t, parts_d = [], []
    for r in runs:  # vectorised over each run's rows
        lengths = r.lengths()
        row_topic = np.repeat(index_codes(index, r.topics), lengths)
        keep = row_topic >= 0
        if depth is not None:
            keep &= _ramp(lengths) < depth
        parts_t.append(row_topic[keep])
        parts_d.append(r.docno.filter(pa.array(keep)))
    ok = qrels.key_grades >= 0
    parts_t.append(qrels.key_topic[ok])  # the qrels' topics are `topics`, in that order
    parts_d.append(qrels.docs.take(pa.array(qrels.keys[ok] % len(qrels.docs))))
    t = np.concatenate(parts_t).astype(np.int64)
    docs = pa.concat_arrays([d.cast(pa.string()) for d in parts_d])
    keys = combine(topic_keys(topics)[t], string_keys(docs))
    first = np.sort(np.unique(keys, return_index=True)[1])
    model = PositionModel.build(runs, qrels, rel_level, depth)
    return {"topic": t[first], "docno": docs.take(first),
            "position": model.features(keys[first])}


def _features(index: CorpusIndex, topics: list[str], t: np.ndarray, rows: np.ndarray,
              judged: np.ndarray, label: np.ndarray, queries: dict[str, str] | None,
              tokeniser: Any, position: np.ndarray) -> np.ndarray:
    from unjudged.text.retrieval import _stats, query_matrix

    stats = _stats(index)
    vec = stats.tfidf  # documents x terms, rows of unit length
    cols = [np.zeros(t.size) for _ in range(4)]
    for ti in np.unique(t):
        sel = np.flatnonzero(t == ti)
        for k, group in enumerate((judged & label, judged & ~label)):
            ref = np.flatnonzero(group & (t == ti))
            if ref.size == 0:
                continue
            sim = (vec[rows[sel]] @ vec[rows[ref]].T).toarray()  # (sel, ref)
            sim[sel[:, None] == ref[None, :]] = np.nan  # never itself
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # a row of itself only
                cols[2 * k][sel] = np.nan_to_num(np.nanmax(sim, axis=1))
                cols[2 * k + 1][sel] = np.nan_to_num(np.nanmean(sim, axis=1))
    feats = cols + [np.log1p(index.lengths[rows].astype(float)), position[:, 0], position[:, 1]]
    if queries:
        texts = [queries.get(q, "") for q in topics]
        scores = (query_matrix(index, texts, tokeniser) @ stats.bm25(*_BM25))
        bm25 = np.asarray(scores[t, rows]).ravel()
        feats.append(bm25)
    x = np.stack(feats, axis=1)
    sd = x.std(axis=0)
    return (x - x.mean(axis=0)) / np.where(sd > 0, sd, 1.0)


def _fit(x: np.ndarray, t: np.ndarray, y: np.ndarray, n_topics: int
         ) -> tuple[np.ndarray, np.ndarray]:
    """(intercepts per topic, slopes) of the ridge logistic model; a topic without judged
    documents gets the mean intercept."""
    from scipy.optimize import minimize

    k = x.shape[1]
    yf = y.astype(float)

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        a, w = theta[:n_topics], theta[n_topics:]
        eta = a[t] + x @ w
        p = 1.0 / (1.0 + np.exp(-eta))
        nll = np.sum(np.logaddexp(0.0, eta) - yf * eta) + 0.5 * _RIDGE * (w @ w) \
            + 0.5 * 1e-3 * (a @ a)
        r = p - yf
        grad = np.concatenate([np.bincount(t, weights=r, minlength=n_topics) + 1e-3 * a,
                               x.T @ r + _RIDGE * w])
        return float(nll), grad

    res = minimize(loss, np.zeros(n_topics + k), jac=True, method="L-BFGS-B")
    a, w = res.x[:n_topics], res.x[n_topics:]
    seen = np.bincount(t, minlength=n_topics) > 0
    a = np.where(seen, a, a[seen].mean() if seen.any() else 0.0)
    return a, w


def _predict(a: np.ndarray, w: np.ndarray, x: np.ndarray, t: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-(a[t] + x @ w)))
