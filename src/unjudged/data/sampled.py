"""Sampled judgments (seed 002): per topic and stratum, the stratum size N_s, the documents
sampled from it and their grades; and judged rankings that carry each ranked document's stratum.

A `SampledQrels` is a `Qrels` whose unsampled documents have grade -1, so every trec_eval-style
measure runs on it unchanged (-1 = pooled but unjudged, trec_eval's infAP convention). Besides it
holds each judged (topic, document)'s stratum. Documents absent from it lie outside the sampled
universe and count as non-relevant.

`SampledJudged` adds to a judged batch, per ranked document, its stratum code and its weight as a
sampled unit (1 when sampled, 0 otherwise; a bootstrap replicate puts its resampling weights
there), and per topic the stratum sizes and the (weighted) sampled counts per grade. The inferred
measures read only these, so the same kernels give point estimates and bootstrap replicates.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from functools import cached_property
from typing import Any

import numpy as np

from unjudged.data.judged import NONPOOL, PAD, Judged, Pool, cut_width, judge
from unjudged.data.qrels import Qrels
from unjudged.data.run import Run
from unjudged.errors import InvalidOptionError
from unjudged.policies import Policies

OUTSIDE = -1  #: stratum code of a ranked document outside the sampled universe (or padding)


@dataclass(eq=False)
class SampledQrels(Qrels):
    """Qrels with a stratum per judged (topic, document); grade -1 = in the stratum, not sampled.

    Attributes (besides Qrels'):
        strata: stratum labels; a stratum's code is its position.
        key_strata: (len(keys),) int32 stratum code of each (topic, document) of the ad hoc view.

    Example:
        >>> from unjudged.io import read_qrels
        >>> q = read_qrels({"t": {"a": 1, "b": 0, "c": -1}})
        >>> s = SampledQrels.from_qrels(q)
        >>> s.stratum_sizes.tolist(), s.sampled_counts.tolist(), s.estimated_relevant().tolist()
        ([[3]], [[2]], [1.5])
    """

    strata: list[str] = field(default_factory=lambda: ["1"])
    key_strata: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))
    #: (len(keys),) each key's inclusion probability in a sample drawn with known
    #: per-document probabilities (TREC's prels), 0 for keys outside that sample; None: the
    #: strata's, n_s / N_s for every sampled key of stratum s
    key_inclusion: np.ndarray | None = None

    @classmethod
    def from_qrels(cls, qrels: Qrels, key_strata: np.ndarray | None = None,
                   strata: list[str] | None = None,
                   sampled: np.ndarray | None = None,
                   inclusion: np.ndarray | None = None) -> SampledQrels:
        """Qrels plus a design: each key's stratum code (default: one stratum) and whether it
        was sampled (default: it has a grade >= 0). Unsampled keys get grade -1.

        This is how a sampling design turns complete judgments into sampled ones: pick the
        strata and the sample over `qrels.keys`, then call this. `inclusion` gives each key's
        inclusion probability in a sample drawn document by document (0: not in it), which
        statAP and statNDCG read (see key_inclusion).
        """
        k = qrels.keys.size
        codes = np.zeros(k, np.int32) if key_strata is None else \
            np.asarray(key_strata, dtype=np.int32)
        names = list(strata) if strata is not None else \
            [str(i + 1) for i in range(int(codes.max(initial=0)) + 1)]
        if codes.shape != (k,) or (k and (codes.min() < 0 or codes.max() >= len(names))):
            raise InvalidOptionError("key_strata needs one code in 0..len(strata)-1 per qrels key")
        grades = qrels.key_grades
        line_grades = qrels.grade
        if sampled is not None:
            sampled = np.asarray(sampled, dtype=bool)
            if sampled.shape != (k,) or np.any(grades[sampled] < 0):
                raise InvalidOptionError("sampled needs one flag per qrels key, and only judged "
                                         "documents (grade >= 0) can be sampled")
            grades = np.where(sampled, grades, -1).astype(np.int32)
            line_key = np.searchsorted(qrels.keys, qrels.tcode.astype(np.int64) *
                                       len(qrels.docs) + qrels.dcode)
            line_grades = np.where(sampled[line_key], line_grades, -1)
        base = {f.name: getattr(qrels, f.name) for f in fields(Qrels)}
        base.update(key_grades=grades, grade=line_grades)
        if inclusion is not None:
            inclusion = np.asarray(inclusion, dtype=np.float64)
            if inclusion.shape != (k,) or np.any((inclusion < 0) | (inclusion > 1)):
                raise InvalidOptionError("inclusion needs one probability in [0, 1] per "
                                         "qrels key")
        return cls(**base, strata=names, key_strata=codes, key_inclusion=inclusion)

    @cached_property
    def grade_values(self) -> np.ndarray:
        """The distinct grades >= 0 of sampled documents, ascending (at least [0])."""
        g = np.unique(self.key_grades[self.key_grades >= 0])
        return g if g.size else np.zeros(1, dtype=self.key_grades.dtype)

    @cached_property
    def stratum_sizes(self) -> np.ndarray:
        """(topics, strata) N_s: documents of each topic in each stratum."""
        s = len(self.strata)
        flat = self.key_topic * s + self.key_strata
        return np.bincount(flat, minlength=len(self.topics) * s).reshape(-1, s)

    @cached_property
    def grade_counts(self) -> np.ndarray:
        """(topics, strata, grades) sampled documents per grade (grades as `grade_values`)."""
        s, gv = len(self.strata), self.grade_values
        ok = self.key_grades >= 0
        g = np.searchsorted(gv, self.key_grades[ok])
        flat = (self.key_topic[ok] * s + self.key_strata[ok]) * gv.size + g
        return np.bincount(flat, minlength=len(self.topics) * s * gv.size).reshape(
            len(self.topics), s, gv.size)

    @property
    def sampled_counts(self) -> np.ndarray:
        """(topics, strata) n_s: sampled documents of each topic in each stratum."""
        return self.grade_counts.sum(axis=-1)

    def estimated_relevant(self, rel_level: int = 1) -> np.ndarray:
        """Per topic, sum over strata of N_s * r_s / n_s (strata with n_s = 0 count 0)."""
        per_grade = stratified_totals(self.stratum_sizes, self.grade_counts)
        return per_grade[..., self.grade_values >= rel_level].sum(axis=-1)

    @cached_property
    def inclusion_totals(self) -> np.ndarray | None:
        """(topics, 2, grades) per grade (as `grade_values`) of the keys with an inclusion
        probability pi: the Horvitz-Thompson count sum 1/pi and its variance term
        sum (1 - pi)/pi^2; None without per-key probabilities."""
        if self.key_inclusion is None:
            return None
        pi = self.key_inclusion
        ok = (pi > 0) & (self.key_grades >= 0)
        gv = self.grade_values
        flat = self.key_topic[ok] * gv.size + np.searchsorted(gv, self.key_grades[ok])
        size = len(self.topics) * gv.size
        p = pi[ok]
        out = np.stack([np.bincount(flat, weights=1.0 / p, minlength=size),
                        np.bincount(flat, weights=(1.0 - p) / p ** 2, minlength=size)])
        return out.reshape(2, len(self.topics), gv.size).transpose(1, 0, 2)

    def without(self, keys: np.ndarray) -> SampledQrels:
        """These sampled qrels less some keys (see Qrels.without); strata follow."""
        smaller = Qrels.without(self, keys)
        if smaller is self:
            return self
        keep = ~np.isin(self.keys, keys)
        return SampledQrels(**{f.name: getattr(smaller, f.name) for f in fields(Qrels)},
                            strata=self.strata, key_strata=self.key_strata[keep],
                            key_inclusion=None if self.key_inclusion is None
                            else self.key_inclusion[keep])


def stratified_totals(size: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Estimated documents per grade in the whole universe: sum_s N_s * count_s(g) / n_s.

    `size` is (..., strata), `counts` (..., strata, grades) (weighted counts work too); strata
    from which nothing was sampled contribute 0, as in sample_eval.

    Example:
        >>> stratified_totals(np.array([10, 4]), np.array([[1, 1], [2, 0]])).tolist()
        [9.0, 5.0]
    """
    n = counts.sum(axis=-1)
    scale = np.divide(size, n, out=np.zeros(np.broadcast(size, n).shape), where=n > 0)
    return (scale[..., None] * counts).sum(axis=-2)


@dataclass(eq=False)
class SampledJudged(Judged):
    """A judged batch with the strata of the sampled judgments.

    Attributes (besides Judged's):
        stratum: (..., n, depth) int16 stratum code of each ranked document, OUTSIDE when it
            is outside the sampled universe or past the ranking's end.
        weight: (..., n, depth) float64 weight of each ranked document as a sampled unit: 1 if
            sampled, 0 if not; resampling weights in a bootstrap replicate.
        size: (n, strata) float64 N_s of each evaluated topic.
        counts: (..., n, strata, grades) float64 (weighted) sampled documents per grade.
        grade_values: (grades,) the grades `counts` counts.
        key_index: (n, depth) int64 position of each ranked document in the qrels' keys, -1
            where it has none (what a bootstrap needs to find the document's weight).
        inclusion: (n, depth) float64 inclusion probability of each ranked document in a
            sample with per-document probabilities (prels), 0 outside it; None: the strata's.
        totals: (n, 2, grades) the qrels' inclusion_totals for these topics (with inclusion).
    """

    stratum: np.ndarray
    weight: np.ndarray
    size: np.ndarray
    counts: np.ndarray
    grade_values: np.ndarray
    key_index: np.ndarray | None = None
    inclusion: np.ndarray | None = None
    totals: np.ndarray | None = None

    def topic_slice(self, a: int, b: int) -> SampledJudged:
        base = Judged.topic_slice(self, a, b)
        return self._with(base, self.stratum[..., a:b, :], self.weight[..., a:b, :],
                          self.size[a:b], self.counts[..., a:b, :, :],
                          None if self.key_index is None else self.key_index[a:b],
                          _rows(self.inclusion, a, b), _rows(self.totals, a, b))

    def design(self, k: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(pi, counts, spread): each ranked document's inclusion probability (n, depth;
        cut or padded to the top k like Judged.cut), 0 when it is not in the sample; per
        topic and grade the Horvitz-Thompson count
        sum 1/pi over the sampled documents (n, grades) and sum (1 - pi)/pi^2 (what the
        variance of a Horvitz-Thompson total needs). Without per-document probabilities,
        a sampled document of stratum s has pi = n_s / N_s (sampling within strata).

        Example:
            >>> from unjudged.io import read_qrels, read_run
            >>> q = read_qrels({"t": {"a": 1, "b": -1}})
            >>> s = as_sampled(judge(read_run({"t": {"a": 2.0, "b": 1.0}}), q))
            >>> [a.tolist() for a in s.design()]
            [[[0.5, 0.0]], [[2.0]], [[2.0]]]
        """
        if self.inclusion is not None and self.totals is not None:
            pi = self.inclusion if k is None else _cut(self.inclusion, k, 0.0)
            return pi, self.totals[:, 0], self.totals[:, 1]
        n = self.counts.sum(axis=-1)
        p = np.divide(n, self.size, out=np.zeros(n.shape), where=self.size > 0)  # (n, S)
        stratum, weight = self.cut_strata(k)
        rows = np.arange(stratum.shape[-2])[:, None]
        pi = np.where((stratum >= 0) & (weight > 0), p[rows, np.maximum(stratum, 0)], 0.0)
        spread = np.divide(1.0 - p, p ** 2, out=np.zeros(p.shape), where=p > 0)
        return (pi, stratified_totals(self.size, self.counts),
                (spread[..., None] * self.counts).sum(axis=-2))

    def with_grades(self, grades: np.ndarray, length: np.ndarray | None = None
                    ) -> SampledJudged:
        return self._with(Judged.with_grades(self, grades, length), self.stratum, self.weight,
                          self.size, self.counts, self.key_index, self.inclusion, self.totals)

    def with_weights(self, weight: np.ndarray, counts: np.ndarray) -> SampledJudged:
        """The same rankings with other sampling weights and counts (a bootstrap replicate)."""
        return self._with(self, self.stratum, weight, self.size, counts, self.key_index,
                          self.inclusion, self.totals)

    def head(self, k: int | None) -> SampledJudged:
        """The top k of every ranking (all a measure at cutoff k reads), or itself."""
        if k is None or k >= self.depth:
            return self
        base = Judged.with_grades(self, self.grades[..., :k], np.minimum(self.length, k))
        return self._with(base, self.stratum[..., :k], self.weight[..., :k], self.size,
                          self.counts, None if self.key_index is None else self.key_index[:, :k],
                          None if self.inclusion is None else self.inclusion[..., :k],
                          self.totals)

    def cut_strata(self, k: int | None) -> tuple[np.ndarray, np.ndarray]:
        """(stratum, weight) of the top k, padded like Judged.cut."""
        if k is None:
            return self.stratum, self.weight
        return _cut(self.stratum, k, OUTSIDE), _cut(self.weight, k, 0.0)

    def _with(self, base: Judged, stratum, weight, size, counts, key_index, inclusion=None,
              totals=None) -> SampledJudged:
        return SampledJudged(base.run_name, base.topics, base.grades, base.length, base.pool,
                             base.retrieved, base.policies, stratum, weight, size, counts,
                             self.grade_values, key_index, inclusion, totals)


def _rows(a: np.ndarray | None, i: int, j: int) -> np.ndarray | None:
    return None if a is None else a[i:j]


def _cut(a: np.ndarray, k: int, fill) -> np.ndarray:
    """The top k positions of `a`, padded with `fill` as Judged.cut pads (cut_width)."""
    k = cut_width(k, a.shape[-1])
    if k <= a.shape[-1]:
        return a[..., :k]
    return np.concatenate([a, np.full(a.shape[:-1] + (k - a.shape[-1],), fill, a.dtype)], -1)


def as_sampled(j: Judged) -> SampledJudged:
    """`j` itself when it carries strata; otherwise its qrels read as one stratum in which the
    judged documents are the sample and negative grades (pooled, unjudged) the rest.

    Example:
        >>> from unjudged.io import read_qrels, read_run
        >>> q = read_qrels({"t": {"a": 1, "b": -1}})
        >>> s = as_sampled(judge(read_run({"t": {"a": 2.0, "b": 1.0, "x": 0.5}}), q))
        >>> s.stratum.tolist(), s.weight.tolist(), s.size.tolist(), s.counts.tolist()
        ([[0, 0, -1]], [[1.0, 0.0, 0.0]], [[2.0]], [[[1.0]]])
    """
    if isinstance(j, SampledJudged):
        return j
    g = j.grades
    pooled = (g != NONPOOL) & (g != PAD)
    stratum = np.where(pooled, 0, OUTSIDE).astype(np.int16)
    sg = j.pool.sorted_grades
    values = np.unique(sg[sg >= 0])
    values = values if values.size else np.zeros(1, dtype=sg.dtype)
    counts = (sg[..., None] == values).sum(axis=-2).astype(np.float64)[:, None, :]
    size = (j.pool.num_judged + j.pool.num_unjudged).astype(np.float64)[:, None]
    return SampledJudged(j.run_name, j.topics, g, j.length, j.pool, j.retrieved, j.policies,
                         stratum, (g >= 0).astype(np.float64), size, counts, values)


def judge_sampled(run: Run, qrels: SampledQrels, policies: Policies = Policies(),
                  pool: Pool | None = None) -> SampledJudged:
    """Judge a run against sampled qrels: grades as `judge` gives them (unsampled documents are
    pooled-but-unjudged, so trec_eval-style measures still run) plus the strata.

    Example:
        >>> from unjudged.io.sampled import read_sampled_qrels
        >>> from unjudged.io import read_run
        >>> q = read_sampled_qrels({"t": {"a": ("1", 1), "b": ("2", -1), "c": ("2", 0)}})
        >>> j = judge_sampled(read_run({"t": {"b": 3.0, "a": 2.0, "x": 1.0}}), q)
        >>> j.grades.tolist(), j.stratum.tolist(), j.weight.tolist(), j.size.tolist()
        ([[-1, 1, -2]], [[1, 0, -1]], [[0.0, 1.0, 0.0]], [[1.0, 2.0]])
    """
    base = judge(run, qrels, policies.but(judged_only=False), pool)
    n, depth = base.grades.shape
    cols = np.arange(depth)
    inside = cols < base.length[:, None]
    run_idx = run.topic_codes(base.topics)
    q_idx = qrels.topic_codes(base.topics)
    rows = (run.offsets[np.maximum(run_idx, 0)][:, None] + cols)[inside]
    key_index = np.full((n, depth), -1, dtype=np.int64)
    pairs = run.judged_pairs(qrels)  # each row's position in qrels.keys, when the reader
    if pairs is not None:            # found them for these qrels
        key_index[inside] = pairs[rows]
    else:
        codes = run.doc_codes(qrels)[rows] if rows.size else np.zeros(0, np.int32)
        key = np.broadcast_to(q_idx[:, None], inside.shape)[inside] * len(qrels.docs) + codes
        pos = np.minimum(np.searchsorted(qrels.keys, key), max(qrels.keys.size - 1, 0))
        hit = (codes >= 0) & (qrels.keys[pos] == key)  # qrels are never empty (read_qrels)
        key_index[inside] = np.where(hit, pos, -1)
    known = key_index >= 0
    stratum = np.where(known, qrels.key_strata[key_index], OUTSIDE).astype(np.int16)
    weight = (known & (qrels.key_grades[key_index] >= 0)).astype(np.float64)
    totals = qrels.inclusion_totals
    inclusion = None
    if qrels.key_inclusion is not None and totals is not None:
        inclusion = np.where(known, qrels.key_inclusion[np.maximum(key_index, 0)], 0.0)
        totals = totals[q_idx]
    grades, length = base.grades, base.length
    if policies.judged_only:  # condensed lists: every array keeps the judged documents only
        keep = grades >= 0
        length = keep.sum(axis=1).astype(np.int64)
        order = np.argsort(~keep, axis=1, kind="stable")[:, :max(int(length.max(initial=0)), 1)]
        past = np.arange(order.shape[1]) >= length[:, None]

        def condense(a: np.ndarray, fill: Any) -> np.ndarray:
            return np.where(past, fill, np.take_along_axis(a, order, axis=1)).astype(a.dtype)

        grades, stratum, weight, key_index = (condense(a, fill) for a, fill in (
            (grades, PAD), (stratum, OUTSIDE), (weight, 0.0), (key_index, -1)))
        inclusion = None if inclusion is None else condense(inclusion, 0.0)
    return SampledJudged(base.run_name, base.topics, grades, length, base.pool, base.retrieved,
                         policies, stratum, weight,
                         qrels.stratum_sizes[q_idx].astype(np.float64),
                         qrels.grade_counts[q_idx].astype(np.float64), qrels.grade_values,
                         key_index, inclusion, totals if inclusion is not None else None)
