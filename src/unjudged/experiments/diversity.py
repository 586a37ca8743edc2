"""The diversity-sampling experiment of seed 004 (section 5.2, Figure 1): how well cascade
measures on raw and condensed lists, and the language-model divergence measures, rank systems
when only p% of the judgments survive.

For each level p and repetition, the diversity qrels are sampled (`sample_judgments`). The
paper's protocol ("per-query", the default): per topic max(1, ceil(p n)) of the n documents
relevant to some subtopic are kept with all their labels, and ceil(p m) of the topic's m
documents relevant to no subtopic. "per-subtopic" draws max(1, ceil(p n)) per subtopic
instead, so a document relevant to several subtopics may keep only some of its labels. The
runs are scored on the sample with the reference measures on raw lists (unsampled documents
count as non-relevant) and on condensed lists (trec_eval -J), and with the divergence measures,
whose subtopic models come from the sampled relevant documents only. Kendall's tau-b between
each estimator's system ranking and each reference measure's on the full judgments is averaged
over repetitions.

One task per (level, repetition) runs on any executor of unjudged.parallel; each topic's sample
depends only on SeedSequence((seed, repetition, level index, topic index)), so the results do
not depend on the executor or the number of workers.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from unjudged.data.qrels import Qrels
from unjudged.data.run import Run
from unjudged.errors import IncompatibleInputsError, InvalidOptionError

if TYPE_CHECKING:
    from unjudged.measures import Measure

#: How relevant documents are drawn: per topic (seed 004's "Given a query, we randomly shuffle
#: the relevant documents"), or per subtopic (this project's first reading).
SAMPLINGS = ("per-query", "per-subtopic")
LEVELS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5)
REFERENCES = ("alpha-nDCG@20", "ERR-IA@20", "NRBP")
DIVERGENCE = ("ABS-NB@20", "ABS-RB@20", "DELTA-NB@20", "DELTA-RB@20")
#: ceil(p n) must not turn 0.1 * 10 = 1.0000000000000002 into 2
_EPS = 1e-9


@dataclass(frozen=True)
class JudgmentRows:
    """The diversity qrels as flat rows, with what sampling needs precomputed.

    Attributes:
        qrels: the full qrels (its `group` column is the subtopic).
        key: (rows,) topic code * documents + document code of each row.
        relevant: (rows,) the row's grade is > 0.
        subtopic_rows: per topic, the row indices of each subtopic's relevant documents
            (subtopics in label order).
        nonrel_keys: per topic, the keys of its documents relevant to no subtopic.
        relevant_keys: per topic, the keys of its documents relevant to some subtopic, in the
            order of their first relevant row (with one subtopic, the order of subtopic_rows,
            so both samplings draw the same documents).
    """

    qrels: Qrels
    key: np.ndarray
    relevant: np.ndarray
    subtopic_rows: list[list[np.ndarray]]
    nonrel_keys: list[np.ndarray]
    relevant_keys: list[np.ndarray]

    @classmethod
    def build(cls, qrels: Qrels) -> JudgmentRows:
        """Index `qrels` for sampling.

        Example:
            >>> from unjudged.io.diversity import read_diversity_qrels
            >>> q = read_diversity_qrels([("t", "1", "a", 1), ("t", "2", "b", 1),
            ...                           ("t", "2", "c", 0)])
            >>> j = JudgmentRows.build(q)
            >>> [r.tolist() for r in j.subtopic_rows[0]], j.nonrel_keys[0].tolist()
            ([[0], [1]], [2])
            >>> j.relevant_keys[0].tolist()
            [0, 1]
        """
        key = qrels.tcode.astype(np.int64) * len(qrels.docs) + qrels.dcode
        relevant = qrels.grade > 0
        subs = np.asarray(qrels.group.to_pylist(), dtype=object)
        rel_keys = np.unique(key[relevant])
        subtopic_rows, nonrel, rel = [], [], []
        for t in range(len(qrels.topics)):
            rows = np.flatnonzero((qrels.tcode == t) & relevant)
            labels = subs[rows].astype(str)
            subtopic_rows.append([rows[labels == s] for s in np.unique(labels)])
            mine = np.unique(key[qrels.tcode == t])
            nonrel.append(mine[~np.isin(mine, rel_keys)])
            keys, first = np.unique(key[rows], return_index=True)
            rel.append(keys[np.argsort(first, kind="stable")])
        return cls(qrels, key, relevant, subtopic_rows, nonrel, rel)


def sample_judgments(rows: JudgmentRows, level: float, seed: int, repetition: int,
                     level_index: int, sample: str = "per-query") -> np.ndarray:
    """Which qrels rows a sample at `level` keeps.

    "per-query" (seed 004): per topic max(1, ceil(p n)) of its n relevant documents, each with
    all its rows. "per-subtopic": per subtopic max(1, ceil(p n)) relevant rows. Either way, per
    topic ceil(p m) of the m documents relevant to nothing (all their rows), and the other rows
    (grade 0 for one subtopic) of every document kept as relevant somewhere.

    Example (b is relevant to both subtopics: per query it keeps both labels or neither):
        >>> from unjudged.io.diversity import read_diversity_qrels
        >>> q = read_diversity_qrels([("t", "1", "a", 1), ("t", "1", "b", 1),
        ...                           ("t", "2", "b", 1), ("t", "2", "c", 1)])
        >>> j = JudgmentRows.build(q)
        >>> [sample_judgments(j, 0.3, 0, r, 0).astype(int).tolist() for r in (0, 5, 12)]
        [[0, 0, 0, 1], [1, 0, 0, 0], [0, 1, 1, 0]]
        >>> sample_judgments(j, 0.3, 0, 0, 0, "per-subtopic").astype(int).tolist()
        [1, 0, 1, 0]
    """
    if sample not in SAMPLINGS:
        raise InvalidOptionError(f"unknown sampling {sample!r}; expected one of "
                                 + ", ".join(SAMPLINGS))
    keep = np.zeros(len(rows.key), dtype=bool)
    chosen = []
    for t, subtopics in enumerate(rows.subtopic_rows):
        rng = np.random.default_rng(np.random.SeedSequence((seed, repetition, level_index, t)))
        if sample == "per-subtopic":
            for group in subtopics:
                k = max(1, math.ceil(level * group.size - _EPS))
                keep[group[rng.permutation(group.size)[:k]]] = True
        elif subtopics:  # a topic with no relevant document draws nothing, as per subtopic
            docs = rows.relevant_keys[t]
            k = max(1, math.ceil(level * docs.size - _EPS))
            chosen.append(docs[rng.permutation(docs.size)[:k]])
        nonrel = rows.nonrel_keys[t]
        k = math.ceil(level * nonrel.size - _EPS)
        chosen.append(nonrel[rng.permutation(nonrel.size)[:k]])
    kept_rel = np.unique(rows.key[keep])
    keys = np.concatenate([kept_rel, *chosen])
    # per query, a kept relevant document keeps its relevant rows too
    keep |= np.isin(rows.key, keys) & (~rows.relevant | (sample == "per-query"))
    return keep


def subset_qrels(qrels: Qrels, keep: np.ndarray):
    """The diversity qrels made of the kept rows."""
    from unjudged.data.diversity import Subtopics
    from unjudged.io.diversity import as_diversity
    from unjudged.judgments.edit import select_lines

    kept = select_lines(qrels, keep)
    return as_diversity(kept, Subtopics.build(kept))


@dataclass
class DiversitySweep:
    """Kendall's tau-b of every estimator against every reference measure.

    Attributes:
        levels: the sampling levels p (fractions).
        estimators: estimator names ("<reference> raw", "<reference> condensed", divergence).
        references: reference measure names (scored on the full judgments).
        tau: (levels, repetitions, estimators, references).
        runs: run names.
        reference_scores: (runs, references) on the full judgments.
        seconds: wall time of the sweep.
    """

    levels: list[float]
    estimators: list[str]
    references: list[str]
    tau: np.ndarray
    runs: list[str]
    reference_scores: np.ndarray
    seconds: float = 0.0
    settings: dict[str, Any] = field(default_factory=dict)

    def table(self) -> list[dict[str, Any]]:
        """Rows p (percent), estimator, reference, tau (mean over repetitions), sd."""
        mean, sd = self.tau.mean(axis=1), self.tau.std(axis=1, ddof=1) \
            if self.tau.shape[1] > 1 else np.zeros_like(self.tau[:, 0])
        return [{"p": 100 * p, "estimator": e, "reference": r, "tau": float(mean[i, j, k]),
                 "sd": float(sd[i, j, k])}
                for i, p in enumerate(self.levels) for j, e in enumerate(self.estimators)
                for k, r in enumerate(self.references)]

    def details(self) -> list[dict[str, Any]]:
        """Rows p, repetition, estimator, reference, tau: every repetition's value."""
        return [{"p": 100 * p, "repetition": rep, "estimator": e, "reference": r,
                 "tau": float(self.tau[i, rep, j, k])}
                for i, p in enumerate(self.levels) for rep in range(self.tau.shape[1])
                for j, e in enumerate(self.estimators) for k, r in enumerate(self.references)]


@dataclass(frozen=True)
class _Shared:
    runs: list[Run]
    rows: JudgmentRows
    index: Any
    references: list[Measure]
    divergence: list[str]
    truth: np.ndarray  # (runs, references)
    seed: int
    sample: str = "per-query"


def diversity_sampling(runs: Sequence[Run], qrels: Qrels, corpus_index: Any, *,
                       levels: Sequence[float] = LEVELS, repetitions: int = 30, seed: int = 0,
                       references: Sequence[str] = REFERENCES,
                       divergence: Sequence[str] = DIVERGENCE, executor: Any = None,
                       sample: str = "per-query") -> DiversitySweep:
    """Run the sweep: for every level and repetition, sample `qrels` (`sample`: "per-query",
    the paper's, or "per-subtopic"; see sample_judgments), score `runs` with the raw and
    condensed reference measures and the divergence measures over `corpus_index`, and
    correlate each with each reference measure on the full `qrels`.

    Example (a two-document corpus, two runs in opposite order; at any level the one relevant
    document stays judged, so every estimator agrees with the full judgments):
        >>> from unjudged.io import read_run
        >>> from unjudged.io.diversity import read_diversity_qrels
        >>> from unjudged.text import build_index
        >>> ix = build_index(["a", "b"], ["apple pie", "rust bolt"])
        >>> q = read_diversity_qrels([("t", "1", "a", 1), ("t", "1", "b", 0)])
        >>> runs = [read_run({"t": {"a": 2, "b": 1}}, name="good"),
        ...         read_run({"t": {"b": 2, "a": 1}}, name="bad")]
        >>> s = diversity_sampling(runs, q, ix, levels=[0.5], repetitions=2)
        >>> sorted(set(s.tau.ravel().tolist()))
        [1.0]
    """
    from unjudged.engine.score import score
    from unjudged.measures import parse_measures
    from unjudged.measures.divergence import parse_divergence
    from unjudged.parallel import make_executor

    names = [r.name for r in runs]
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise IncompatibleInputsError("run names must be unique to be ranked; repeated: "
                                      + ", ".join(dup))
    if len(runs) < 2:
        raise IncompatibleInputsError("Kendall's tau needs at least two runs")
    if sample not in SAMPLINGS:
        raise InvalidOptionError(f"unknown sampling {sample!r}; expected one of "
                                 + ", ".join(SAMPLINGS))
    refs = parse_measures(list(references))
    parse_divergence(divergence)  # a bad name fails before any work
    t0 = time.perf_counter()
    truth = np.array([r.summary for r in score(runs, qrels, refs).runs])
    shared = _Shared(list(runs), JudgmentRows.build(qrels), corpus_index, refs, list(divergence),
                     truth, seed, sample)
    items = [(i, float(p), rep) for i, p in enumerate(levels) for rep in range(repetitions)]
    if executor is None:
        with make_executor(jobs=1) as ex:
            parts = ex.map(_task, items, desc="diversity sampling", shared=shared)
    else:
        parts = executor.map(_task, items, desc="diversity sampling", shared=shared)
    tau = np.array(parts).reshape(len(levels), repetitions, *parts[0].shape)
    estimators = [f"{m.name} {kind}" for kind in ("raw", "condensed") for m in refs] + \
        list(divergence)
    return DiversitySweep([float(p) for p in levels], estimators, [m.name for m in refs], tau,
                          names, truth, time.perf_counter() - t0,
                          {"repetitions": repetitions, "seed": seed, "sample": sample})


def estimator_scores(shared: _Shared, sampled: Qrels) -> np.ndarray:
    """(runs, estimators) summaries of every run on the sampled qrels."""
    from unjudged.engine.score import score
    from unjudged.policies import Policies
    from unjudged.text.divergence import divergence_scores, subtopics_from_qrels

    raw = [r.summary for r in score(shared.runs, sampled, shared.references).runs]
    condensed = [r.summary for r in score(shared.runs, sampled, shared.references,
                                          Policies(judged_only=True)).runs]
    frame = divergence_scores(shared.runs, subtopics_from_qrels(sampled), shared.index,
                              shared.divergence)
    means = frame[frame.topic == "all"].pivot(index="run", columns="measure", values="value")
    # a run with no topic scored by the divergence measures has nothing: it scores 0
    means = means.reindex(index=[r.name for r in shared.runs], columns=shared.divergence)
    return np.hstack([np.array(raw), np.array(condensed), means.fillna(0.0).to_numpy()])


def _task(shared: _Shared, item: tuple[int, float, int]) -> np.ndarray:
    from unjudged.stats.correlation import kendall_tau

    i, level, rep = item
    keep = sample_judgments(shared.rows, level, shared.seed, rep, i, shared.sample)
    est = estimator_scores(shared, subset_qrels(shared.rows.qrels, keep))
    return np.array([[kendall_tau(est[:, e], shared.truth[:, r])
                      for r in range(shared.truth.shape[1])] for e in range(est.shape[1])])
