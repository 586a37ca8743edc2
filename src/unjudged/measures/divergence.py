"""Language-model divergence measures ABS-NB, ABS-RB, DELTA-NB, DELTA-RB (Hui et al. 2017, 4).

Per topic: a Dirichlet-smoothed unigram model of each subtopic from its relevant documents'
text, and one of the top-k results for every k; the per-subtopic gain
g(i, k) = max(0, 1 - KLD(q_i || R_k) / KLD(q_i || C)) then becomes a per-rank gain (ABS: the
best subtopic's g(i, j); DELTA: the best increase g(i, j) - g(i, j-1), at least 0) summed
over ranks (NB) or weighted by theta^(j-1) (RB).

The KL divergences run over the whole vocabulary, computed exactly on the terms U that occur in
the subtopics' or the ranking's documents: outside U every model is its collection model times
one factor (mu / (length + mu)), so the rest of the sum has a closed form. The top-k counts for
all k are one cumulative sum over ranks. Smoothing is the standard
(tf + mu P(v|C)) / (|d| + mu): the seed's equations 5 and 6 print mu and mu P(v|C) swapped.

The measures need document text, so they are not in the measure registry (whose kernels see
grades only); `divergence_scores` evaluates them given a corpus index.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from unjudged.errors import IncompatibleInputsError, MeasureSpecError

_NAME = re.compile(r"^(ABS|DELTA)-(NB|RB)(?:\(([^)]*)\))?@(\d+)$", re.I)
_PARAMS = {"mu": 2500.0, "theta": 0.8}


@dataclass(frozen=True)
class DivergenceMeasure:
    """One of ABS-NB, ABS-RB, DELTA-NB, DELTA-RB at a cutoff, with mu and theta.

    >>> parse_divergence(["DELTA-RB(theta=0.5)@10"])[0].name
    'DELTA-RB(theta=0.5)@10'
    """

    gain: str
    bias: str
    cutoff: int
    mu: float = 2500.0
    theta: float = 0.8

    @property
    def name(self) -> str:
        shown = [f"{k}={getattr(self, k):g}" for k, v in _PARAMS.items()
                 if getattr(self, k) != v and not (k == "theta" and self.bias == "NB")]
        return f"{self.gain}-{self.bias}" + (f"({','.join(shown)})" if shown else "") + \
            f"@{self.cutoff}"


def parse_divergence(names: Iterable[str]) -> list[DivergenceMeasure]:
    """Parse names like ``ABS-NB@20`` or ``DELTA-RB(theta=0.9,mu=1000)@20``; every bad name is
    reported at once (MeasureSpecError)."""
    out, bad = [], []
    for name in names:
        m = _NAME.match(name.strip())
        params = dict(_PARAMS)
        try:
            if m is None or int(m.group(4)) < 1:
                raise ValueError
            for item in filter(None, (m.group(3) or "").split(",")):
                k, _, v = item.partition("=")
                if k.strip() not in params:
                    raise ValueError
                params[k.strip()] = float(v)
            if params["mu"] <= 0 or not 0 < params["theta"] < 1:
                raise ValueError
        except ValueError:
            bad.append(name)
            continue
        out.append(DivergenceMeasure(m.group(1).upper(), m.group(2).upper(), int(m.group(4)),
                                     **params))
    if bad:
        raise MeasureSpecError(f"unknown divergence measure(s) {', '.join(map(repr, bad))}; "
                               "expected ABS-NB, ABS-RB, DELTA-NB or DELTA-RB with @k and "
                               "optional (mu=..., theta=...)")
    return out


def subtopic_gains(top: np.ndarray, sub: np.ndarray, pc: np.ndarray, rest: float,
                   mu: float) -> np.ndarray:
    """g(i, k) for every subtopic i and rank k = 1..K.

    Args:
        top: (K, U) term counts of the ranked documents on the terms U (rank order).
        sub: (m, U) term counts of each subtopic's relevant documents.
        pc: (U,) collection probabilities of the terms U (all > 0).
        rest: collection probability mass of the terms outside U.
        mu: Dirichlet prior.

    Toy check (two terms, mu = 2): a subtopic that saw "a" twice against a ranking whose first
    document is "a" and second "b":

    >>> g = subtopic_gains(np.array([[1., 0.], [0., 1.]]), np.array([[2., 0.]]),
    ...                    np.array([.5, .5]), 0.0, 2.0)
    >>> np.round(g, 4).tolist()
    [[0.8745, 0.0]]
    """
    cum = np.cumsum(top, axis=0)  # the top-k counts for every k at once
    r = (cum + mu * pc) / (cum.sum(axis=1, keepdims=True) + mu)
    lsub = sub.sum(axis=1, keepdims=True)
    p = (sub + mu * pc) / (lsub + mu)
    a = mu / (lsub[:, 0] + mu)  # outside U: p = a P(v|C), r_k = b_k P(v|C)
    b = mu / (cum.sum(axis=1) + mu)
    entropy = np.sum(p * np.log(p), axis=1)
    kld_r = entropy[:, None] - p @ np.log(r).T + rest * a[:, None] * np.log(a[:, None] / b)
    kld_c = entropy - p @ np.log(pc) + rest * a * np.log(a)
    with np.errstate(divide="ignore", invalid="ignore"):
        g = 1.0 - kld_r / kld_c[:, None]
    # a subtopic model equal to the collection's gains nothing (0/0)
    g[~(kld_c > 0)] = 0.0
    return np.maximum(g, 0.0)


def rank_values(g: np.ndarray, measure: DivergenceMeasure) -> float:
    """Aggregate g(i, k) (m, K) into the measure's value at its cutoff.

    >>> g = np.array([[0.5, 0.6], [0.1, 0.4]])
    >>> m = parse_divergence(["ABS-NB@2", "DELTA-NB@2", "DELTA-RB@2"])
    >>> [round(rank_values(g, x), 4) for x in m]
    [1.1, 0.8, 0.148]
    """
    g = g[:, :measure.cutoff]
    if g.size == 0:
        return 0.0
    if measure.gain == "ABS":
        per_rank = g.max(axis=0)
    else:  # g(i, 0) = 0: the empty ranking's model is the collection's
        steps = np.diff(g, axis=1, prepend=0.0)
        per_rank = np.maximum(steps.max(axis=0), 0.0)
    if measure.bias == "NB":
        return float(per_rank.sum())
    weights = measure.theta ** np.arange(per_rank.size)
    return float((1.0 - measure.theta) * per_rank @ weights)


def subtopics_from_qrels(qrels: Any) -> dict[str, dict[str, list[str]]]:
    """{topic: {subtopic: [relevant docnos]}} from a Qrels whose group column is the subtopic
    (diversity qrels), keeping grades > 0."""
    docs = np.asarray(qrels.docs.to_pylist(), dtype=object)
    groups = np.asarray(qrels.group.to_pylist(), dtype=object)
    keep = np.flatnonzero(qrels.grade > 0)
    out: dict[str, dict[str, list[str]]] = {}
    for t, s, d in zip(np.asarray(qrels.topics, dtype=object)[qrels.tcode[keep]].tolist(),
                       groups[keep].tolist(), docs[qrels.dcode[keep]].tolist(), strict=False):
        out.setdefault(t, {}).setdefault(s, []).append(d)
    return out


def topic_gains(ranked_rows: np.ndarray, subtopic_rows: Sequence[np.ndarray], index: Any,
                pc: np.ndarray, mu: float) -> np.ndarray:
    """g(i, k) (m, K) of one ranking (corpus rows, -1 = not in the corpus: an empty document)
    against subtopics given as arrays of corpus rows."""
    return _gains(ranked_rows, _subtopic_counts(subtopic_rows, index), index, pc, mu)


def _subtopic_counts(subtopic_rows: Sequence[np.ndarray], index: Any):
    """(m, V) sparse term counts of each subtopic's relevant documents."""
    from scipy import sparse

    return sparse.vstack([sparse.csr_matrix(index.tf[r].sum(axis=0)) for r in subtopic_rows],
                         format="csr")


def _gains(ranked_rows: np.ndarray, sub: Any, index: Any, pc: np.ndarray, mu: float
           ) -> np.ndarray:
    from scipy import sparse

    top = index.tf[np.where(ranked_rows >= 0, ranked_rows, 0)]
    top = sparse.diags((ranked_rows >= 0).astype(np.float64)) @ top  # blank absent documents
    terms = np.union1d(top.indices, sub.indices)
    pcu = pc[terms]
    top_u = np.asarray(top[:, terms].todense(), dtype=np.float64)
    sub_u = np.asarray(sub[:, terms].todense(), dtype=np.float64)
    rest = max(0.0, 1.0 - float(pcu.sum()))
    return subtopic_gains(top_u, sub_u, pcu, rest, mu)


def divergence_scores(runs: Any, diversity_qrels: Any, corpus_index: Any,
                      measures: Sequence[str] = ("ABS-NB@20", "ABS-RB@20", "DELTA-NB@20",
                                                 "DELTA-RB@20"), notify: Any = None):
    """Evaluate runs with the divergence measures.

    Args:
        runs: run files, Run objects, dicts {topic: {docno: score}} (one or a list).
        diversity_qrels: {topic: {subtopic: [relevant docnos]}}, a Qrels or a qrels file
            whose second column is the subtopic (grades > 0 are relevant).
        corpus_index: a CorpusIndex or a corpus file (indexed with the default tokeniser and
            the on-disk cache).
        measures: names, e.g. ``ABS-NB@20``, ``DELTA-RB(theta=0.9)@20``.

        notify: called with a message when documents are missing from the corpus (relevant
            ones, or retrieved ones in the top k: a document without text scores nothing),
            e.g. `warnings.warn`; then no relevant document in the corpus at all is an error.
            None (the default) says nothing, as on sampled qrels, where it is expected.

    Returns a DataFrame run, topic, measure, value over the topics of each run that have at
    least one subtopic with a relevant document in the corpus, plus topic "all" (their mean).
    """
    return _score(runs, diversity_qrels, corpus_index, parse_divergence(measures), notify)


def _score(runs, qrels, index, measures, notify):
    import pandas as pd

    from unjudged.io import read_qrels, read_runs
    from unjudged.text.index import CorpusIndex, corpus_index

    if not isinstance(index, CorpusIndex):
        index = corpus_index(index)
    if not isinstance(qrels, Mapping):
        qrels = subtopics_from_qrels(qrels if hasattr(qrels, "grade") else read_qrels(qrels))
    # each topic's subtopic counts are summed once, for every run
    subs = {t: _subtopic_counts(r, index)
            for t, r in _subtopic_rows(qrels, index, notify).items()}
    runs = read_runs(runs if isinstance(runs, (list, tuple)) else [runs])
    pc = index.collection_model
    depth = max(m.cutoff for m in measures)
    rows = []
    for run in runs:
        all_rows = index.rows(run.docno)
        absent = retrieved = 0
        for i, topic in enumerate(run.topics):
            if topic not in subs:
                continue
            a = int(run.offsets[i])
            ranked = all_rows[a:min(int(run.offsets[i + 1]), a + depth)]
            absent, retrieved = absent + int((ranked < 0).sum()), retrieved + ranked.size
            by_mu: dict[float, np.ndarray] = {}
            for m in measures:
                if m.mu not in by_mu:
                    by_mu[m.mu] = _gains(ranked, subs[topic], index, pc, m.mu)
                rows.append((run.name, topic, m.name, rank_values(by_mu[m.mu], m)))
        if notify is not None:
            _note_retrieved(run.name, absent, retrieved, depth, notify)
    frame = pd.DataFrame(rows, columns=["run", "topic", "measure", "value"])
    means = frame.groupby(["run", "measure"], sort=False, as_index=False)["value"].mean()
    return pd.concat([frame, means.assign(topic="all")[frame.columns]], ignore_index=True)


def _note_retrieved(run: str, absent: int, retrieved: int, depth: int, notify) -> None:
    if not retrieved:
        notify(f"run {run}: no topic with a relevant document in the corpus; not scored")
    elif absent:
        notify(f"run {run}: {absent} of {retrieved} retrieved documents in the top {depth} "
               "are not in the corpus" + ("; all its scores are 0" if absent == retrieved
                                          else ""))


def _subtopic_rows(qrels: Mapping, index: Any, notify=None) -> dict[str, list[np.ndarray]]:
    """Corpus rows of each subtopic's relevant documents; subtopics with none are dropped.

    How many of the relevant documents (per topic) have no text in the corpus goes to
    `notify`; none at all is an error.
    """
    out: dict[str, list[np.ndarray]] = {}
    in_corpus: dict[tuple[str, str], bool] = {}
    for topic, subtopics in qrels.items():
        rows = [index.rows(list(d)) for d in subtopics.values()]
        for docs, r in zip(subtopics.values(), rows if notify is not None else (), strict=False):
            in_corpus.update(((str(topic), d), k >= 0) for d, k in zip(docs, r.tolist(), strict=False))
        found = [r[r >= 0] for r in rows]
        found = [r for r in found if r.size]
        if found:
            out[str(topic)] = found
    absent = sum(not v for v in in_corpus.values())
    if notify is None:
        return out
    if not in_corpus:
        raise IncompatibleInputsError("the qrels have no relevant document (grade > 0): "
                                      "nothing to score the divergence measures against")
    if absent == len(in_corpus):
        raise IncompatibleInputsError(f"none of the {absent} relevant documents of the qrels "
                                      "is in the corpus: nothing to score against")
    if absent:
        notify(f"{absent} of {len(in_corpus)} relevant documents are not in the corpus")
    return out
