"""Inputs of the divergence measures from document text, and runs scored with them.

The kernels (`unjudged.measures.divergence`) see term-count arrays only. This module builds
those arrays from a corpus index: each subtopic's counts (its relevant documents' rows summed),
each ranking's counts on the terms U that occur in the subtopics' or the ranking's documents,
the collection probabilities of U and the mass outside it, and which documents have text at all
(a retrieved document without text is an empty document; a relevant one is left out of its
subtopic). Reading run and qrels files, when paths are given, happens here too.

>>> from unjudged.text import build_index
>>> ix = build_index(["d1", "d2"], ["wing lift", "shock wave"])
>>> frame = divergence_scores({"q1": {"d1": 2.0, "d2": 1.0}}, {"q1": {"s": ["d1"]}}, ix,
...                           ["ABS-NB(mu=2)@2"])
>>> frame.topic.tolist(), round(float(frame.value[0]), 4)
(['q1', 'all'], 1.0)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from unjudged.errors import IncompatibleInputsError
from unjudged.measures.divergence import (
    DivergenceMeasure,
    parse_divergence,
    rank_values,
    subtopic_gains,
)


def subtopics_from_qrels(qrels: Any) -> dict[str, dict[str, list[str]]]:
    """{topic: {subtopic: [relevant docnos]}} from a Qrels whose group column is the subtopic
    (diversity qrels), keeping grades > 0.

    >>> import io
    >>> from unjudged.io import read_qrels
    >>> q = read_qrels(io.BytesIO(b"q1 s1 d1 1\\nq1 s2 d2 1\\nq1 s2 d3 0\\n"))
    >>> subtopics_from_qrels(q)
    {'q1': {'s1': ['d1'], 's2': ['d2']}}
    """
    docs = np.asarray(qrels.docs.to_pylist(), dtype=object)
    groups = np.asarray(qrels.group.to_pylist(), dtype=object)
    keep = np.flatnonzero(qrels.grade > 0)
    out: dict[str, dict[str, list[str]]] = {}
    for t, s, d in zip(np.asarray(qrels.topics, dtype=object)[qrels.tcode[keep]].tolist(),
                       groups[keep].tolist(), docs[qrels.dcode[keep]].tolist(), strict=True):
        out.setdefault(t, {}).setdefault(s, []).append(d)
    return out


def topic_gains(ranked_rows: np.ndarray, subtopic_rows: Sequence[np.ndarray], index: Any,
                pc: np.ndarray, mu: float) -> np.ndarray:
    """g(i, k) (m, K) of one ranking (corpus rows, -1 = not in the corpus: an empty document)
    against subtopics given as arrays of corpus rows.

    >>> from unjudged.text import build_index
    >>> ix = build_index(["d1", "d2"], ["a a", "b"])
    >>> g = topic_gains(ix.rows(["d1"]), [ix.rows(["d1"])], ix, ix.collection_model, 2.0)
    >>> g.round(4).tolist()
    [[1.0]]
    """
    return _gains(ranked_rows, subtopic_counts(subtopic_rows, index), index, pc, mu)


def subtopic_counts(subtopic_rows: Sequence[np.ndarray], index: Any) -> Any:
    """(m, V) sparse term counts of each subtopic's relevant documents (rows of `index`).

    >>> from unjudged.text import build_index
    >>> ix = build_index(["d1", "d2"], ["a a", "b"])
    >>> subtopic_counts([ix.rows(["d1", "d2"])], ix).toarray().tolist()
    [[2, 1]]
    """
    from scipy import sparse

    return sparse.vstack([sparse.csr_matrix(index.tf[r].sum(axis=0)) for r in subtopic_rows],
                         format="csr")


def kernel_inputs(ranked_rows: np.ndarray, sub: Any, index: Any, pc: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """The arrays `subtopic_gains` takes for one ranking: (top, sub, pc, rest) on the terms U
    that occur in the ranked or the subtopics' documents; absent documents (row -1) are empty.

    >>> from unjudged.text import build_index
    >>> ix = build_index(["d1", "d2", "d3"], ["a a", "b", "c"])
    >>> top, sub, pc, rest = kernel_inputs(ix.rows(["d2", "zz"]), subtopic_counts(
    ...     [ix.rows(["d1"])], ix), ix, ix.collection_model)
    >>> top.tolist(), sub.tolist(), pc.tolist(), rest
    ([[0.0, 1.0], [0.0, 0.0]], [[2.0, 0.0]], [0.5, 0.25], 0.25)
    """
    from scipy import sparse

    top = index.tf[np.where(ranked_rows >= 0, ranked_rows, 0)]
    top = sparse.diags((ranked_rows >= 0).astype(np.float64)) @ top  # blank absent documents
    terms = np.union1d(top.indices, sub.indices)
    pcu = pc[terms]
    top_u = np.asarray(top[:, terms].todense(), dtype=np.float64)
    sub_u = np.asarray(sub[:, terms].todense(), dtype=np.float64)
    rest = max(0.0, 1.0 - float(pcu.sum()))
    return top_u, sub_u, pcu, rest


def _gains(ranked_rows: np.ndarray, sub: Any, index: Any, pc: np.ndarray, mu: float
           ) -> np.ndarray:
    top_u, sub_u, pcu, rest = kernel_inputs(ranked_rows, sub, index, pc)
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

    >>> from unjudged.text import build_index
    >>> ix = build_index(["d1"], ["wing"])
    >>> divergence_scores({"q1": {"d1": 1.0}}, {"q1": {"s": ["d1"]}}, ix,
    ...                   ["ABS-NB@1"]).value.tolist()
    [0.0, 0.0]
    """
    return _score(runs, diversity_qrels, corpus_index, parse_divergence(measures), notify)


def _score(runs: Any, qrels: Any, index: Any, measures: Sequence[DivergenceMeasure],
           notify: Any) -> Any:
    import pandas as pd

    from unjudged.io import read_qrels, read_runs
    from unjudged.text.index import CorpusIndex, corpus_index

    if not isinstance(index, CorpusIndex):
        index = corpus_index(index)
    if not isinstance(qrels, Mapping):
        qrels = subtopics_from_qrels(qrels if hasattr(qrels, "grade") else read_qrels(qrels))
    # each topic's subtopic counts are summed once, for every run
    subs = {t: subtopic_counts(r, index)
            for t, r in _subtopic_rows(qrels, index, notify).items()}
    runs = read_runs(runs if isinstance(runs, (list, tuple)) else [runs])
    pc = index.collection_model
    depth = max(m.cutoff for m in measures)
    rows: list[tuple[str, str, str, float]] = []
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


def _note_retrieved(run: str, absent: int, retrieved: int, depth: int, notify: Any) -> None:
    if not retrieved:
        notify(f"run {run}: no topic with a relevant document in the corpus; not scored")
    elif absent:
        notify(f"run {run}: {absent} of {retrieved} retrieved documents in the top {depth} "
               "are not in the corpus" + ("; all its scores are 0" if absent == retrieved
                                          else ""))


def _subtopic_rows(qrels: Mapping, index: Any, notify: Any = None
                   ) -> dict[str, list[np.ndarray]]:
    """Corpus rows of each subtopic's relevant documents; subtopics with none are dropped.

    How many of the relevant documents (per topic) have no text in the corpus goes to
    `notify`; none at all is an error.
    """
    out: dict[str, list[np.ndarray]] = {}
    in_corpus: dict[tuple[str, str], bool] = {}
    for topic, subtopics in qrels.items():
        rows = [index.rows(list(d)) for d in subtopics.values()]
        # rows only when the missing documents are counted for notify: () zips to nothing
        for docs, r in zip(subtopics.values(), rows if notify is not None else (), strict=False):
            in_corpus.update(((str(topic), d), k >= 0)
                             for d, k in zip(docs, r.tolist(), strict=True))
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
