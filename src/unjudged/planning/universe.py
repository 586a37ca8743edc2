"""What a plan chooses from: every unjudged (topic, document) some run retrieved, and where each
run ranks it.

Built once per set of runs. The runs are judged against the qrels over every qrels topic (a
common topic axis; a topic a run lacks is an empty ranking), and each ranked position that the
qrels do not judge points to its candidate. Judging more documents re-judges the runs
(`with_qrels`) and closes the candidates the new qrels judge, so the positions stay put.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import pyarrow as pa

from unjudged.data._strings import arrow_of
from unjudged.data.judged import PAD, Judged, Pool, judge
from unjudged.data.qrels import MISSING, Qrels
from unjudged.data.run import Run
from unjudged.errors import IncompatibleInputsError
from unjudged.policies import Policies
from unjudged.strategies.keys import combine, distinct, string_keys
from unjudged.strategies.position import run_keys, topic_keys


@dataclass(eq=False)
class Universe:
    """Candidates and the runs' rankings over them.

    Attributes:
        topics: the qrels' topics (the topic axis of every array).
        runs: run names; `judged[r]` is run r judged over all `topics` (trec_eval -c layout).
        topic, docno, keys: one entry per candidate (its topic index, id and key).
        best: the best (1-based) rank any run gave each candidate; `hits` how many runs
            retrieved it.
        at: (runs, topics, depth) the candidate at each ranked position, -1 for judged
            positions, positions past a ranking's end and documents outside the candidates.
        open: (candidates,) not judged yet.
        evaluated: (runs, topics) whether the run is scored on the topic (run ∩ qrels).
    """

    topics: list[str]
    runs: list[str]
    judged: list[Judged]
    topic: np.ndarray
    docno: pa.Array
    keys: np.ndarray
    best: np.ndarray
    hits: np.ndarray
    at: np.ndarray
    open: np.ndarray
    evaluated: np.ndarray
    qrels: Qrels
    policies: Policies

    def __len__(self) -> int:
        return int(self.keys.size)

    @property
    def pool(self) -> Pool:
        return self.judged[0].pool

    def levels(self) -> int:
        """Grade levels (0 .. max grade of the qrels), at least 2."""
        return max(int(self.qrels.key_grades.max(initial=0)) + 1, 2)

    @classmethod
    def build(cls, runs: Sequence[Run], qrels: Qrels, policies: Policies = Policies(),
              candidates: Qrels | None = None) -> Universe:
        """The candidates of `runs` under `qrels`: documents they retrieve (within
        policies.depth) that the qrels do not judge (a negative grade, pooled but not judged,
        counts as not judged), restricted to the (topic, document) pairs of `candidates`
        when given (their grades are ignored)."""
        if not runs:
            raise IncompatibleInputsError("a plan needs at least one run")
        pol = policies.but(complete=True, judged_only=False)
        topics = list(qrels.topics)
        judged = [judge(r, qrels, pol) for r in runs]
        depth = max(j.depth for j in judged)
        keys = np.zeros((len(runs), len(topics), depth), dtype=np.uint64)
        open_pos = np.zeros(keys.shape, dtype=bool)
        for i, (r, j) in enumerate(zip(runs, judged, strict=True)):
            keys[i, :, :j.depth] = run_keys(r, topics, j.depth)
            open_pos[i, :, :j.depth] = (j.grades < 0) & (j.grades != PAD)
        if candidates is not None:
            open_pos &= np.isin(keys, _pair_keys(candidates))
        where = np.nonzero(open_pos)
        flat = keys[where]
        ukeys, first, inverse = distinct(flat)
        at = np.full(keys.shape, -1, dtype=np.int32)
        at[where] = inverse
        rank = where[2] + 1
        best = np.full(ukeys.size, np.iinfo(np.int32).max, dtype=np.int64)
        np.minimum.at(best, inverse, rank)
        hits = np.bincount(inverse, minlength=ukeys.size)
        topic = where[1][first]
        docno = _docnos(runs, topics, where[0][first], topic, where[2][first])
        evaluated = np.stack([j.retrieved for j in judged])
        return cls(topics, [r.name for r in runs], judged, topic.astype(np.int64), docno,
                   ukeys, best, hits, at, np.ones(ukeys.size, dtype=bool), evaluated, qrels,
                   pol)

    def with_qrels(self, runs: Sequence[Run], qrels: Qrels) -> Universe:
        """The same candidates after more judging: `qrels` (which must keep the topics)
        re-judges the runs, and candidates it judges close."""
        if list(qrels.topics) != self.topics:
            raise IncompatibleInputsError("judging more documents must keep the qrels' topics")
        judged = [judge(r, qrels, self.policies) for r in runs]
        grades = qrels.lookup(qrels.topic_codes(self.topics)[self.topic],
                              qrels.doc_codes(self.docno))
        still = (grades == MISSING) | (grades < 0)
        return replace(self, judged=judged, open=self.open & still, qrels=qrels)

    def entries(self, depth: int | None = None, runs: np.ndarray | None = None
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(run, topic, rank0, candidate) of every open candidate position within `depth`
        (all ranks when None), only of `runs` (indices) when given."""
        at = self.at if depth is None else self.at[:, :, :depth]
        mask = at >= 0
        mask[mask] = self.open[at[mask]]
        if runs is not None:
            keep = np.zeros(len(self.runs), dtype=bool)
            keep[runs] = True
            mask &= keep[:, None, None]
        r, t, k = np.nonzero(mask)
        return r, t, k, at[r, t, k].astype(np.int64)


def distinct_pairs(qrels: Qrels) -> int:
    """How many distinct (topic, document) pairs the lines of `qrels` name."""
    return int(_pair_keys(qrels).size)


def _pair_keys(qrels: Qrels) -> np.ndarray:
    """Keys (as in run_keys) of every (topic, document) line of `qrels`."""
    tk = topic_keys(qrels.topics)[qrels.tcode]
    return np.unique(combine(tk, string_keys(qrels.docs)[qrels.dcode]))


def _docnos(runs: Sequence[Run], topics: list[str], run: np.ndarray, topic: np.ndarray,
            rank: np.ndarray) -> pa.Array:
    """The document id at (run, topic, rank) for each candidate's first sighting."""
    out = np.empty(run.size, dtype=object)
    for i in np.unique(run):
        sel = np.flatnonzero(run == i)
        r = runs[int(i)]
        rows = r.offsets[r.topic_codes([topics[t] for t in topic[sel]])] + rank[sel]
        out[sel] = r.docno.take(arrow_of(rows.astype(np.int64))).to_numpy(zero_copy_only=False)
    return pa.array(out, type=pa.string())
