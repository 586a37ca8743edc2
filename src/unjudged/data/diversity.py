"""Subtopic judgments (diversity qrels) and judged rankings that carry them.

Diversity qrels are ad hoc qrels whose second column is the subtopic (ndeval's `topic subtopic
docno judgment`); ad hoc measures see a document's highest grade over its subtopics, diversity
measures read the subtopics from here. Following ndeval, a judgment is binary (grades above 1
count as 1, 0 and negative grades as not relevant) and a topic's subtopics are those with at
least one relevant document. Each judged document's relevant subtopics are a bit mask (at most
64 subtopics per topic), so a ranking's subtopic gains are one uint64 per position.

`DiversityJudged` extends a judged batch with those masks, aligned with the grades: slicing to a
cutoff, condensing (dropping unjudged positions) and filling keep them in step. The graded form
of ERR-IA (seed 004's eq. 2) needs each document's grade per subtopic: qrels with a subtopic
grade above 1 make the judged batch carry those too (`sgrade`, (topics, depth, S) int8), in
step with the masks; binary qrels never pay for them (their grades are the mask bits).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from unjudged.data.judged import PAD, Judged, Pool, _ramp, check_cutoff, condense
from unjudged.data.qrels import Qrels
from unjudged.data.run import Run
from unjudged.data.sampled import SampledQrels, judge_sampled
from unjudged.errors import InputError
from unjudged.policies import Policies

MAX_SUBTOPICS = 64  #: relevant subtopics per topic (one bit each in a uint64 mask)
#: the highest subtopic grade graded ERR-IA reads (2^g must stay exact, and grades are int8);
#: higher grades are read as any grade is, and only the paper form refuses them
MAX_GRADE = 62


@dataclass(eq=False)
class Subtopics:
    """Per qrels topic: its relevant subtopics, each judged document's subtopic mask, the
    intent probabilities and (per alpha, cached) ndeval's greedy ideal ranking.

    Attributes:
        topics: the qrels' topics.
        labels: per topic the subtopic labels with a relevant document (bit j = labels[t][j]).
        key_mask: (len(qrels.keys),) uint64 relevant subtopics of each judged document.
        prob: (topics, S) intent probabilities (0 past a topic's subtopics).
        uniform: the probabilities are ndeval's uniform ones.
        nrel: (topics, S) relevant documents per subtopic.
        docs: per qrels key its docno (for ndeval's tie-breaking in the ideal ranking).
        gmax: the highest subtopic grade in the qrels (1 for binary ones): the grade scale's
            top that the graded ERR-IA's R = (2^g - 1) / 2^gmax divides by.
        lines: (qrels key, subtopic, grade) of each relevant line, for `key_grade`.

    Example:
        >>> from unjudged.io.diversity import read_diversity_qrels
        >>> q = read_diversity_qrels([("t", "1", "a", 1), ("t", "2", "a", 2), ("t", "2", "b", 1),
        ...                           ("t", "3", "c", 0)])
        >>> s = Subtopics.build(q)
        >>> s.labels, s.key_mask.tolist(), s.nrel.tolist()
        ([['1', '2']], [3, 2, 0], [[1, 2]])
        >>> s.ideal(0.5).tolist()  # a covers both, then b
        [[3, 2]]
    """

    topics: list[str]
    labels: list[list[str]]
    key_mask: np.ndarray
    prob: np.ndarray
    uniform: bool
    nrel: np.ndarray
    keys: np.ndarray
    docnames: np.ndarray
    topic_offsets: np.ndarray
    gmax: int = 1
    lines: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
    _ideal: dict[float, np.ndarray] = field(default_factory=dict, repr=False)
    _key_grade: np.ndarray | None = field(default=None, repr=False)
    _ideal_grades: np.ndarray | None = field(default=None, repr=False)
    _levels: dict[int, Subtopics] = field(default_factory=dict, repr=False)

    @classmethod
    def build(cls, qrels: Qrels, intents: dict[tuple[str, str], float] | None = None,
              ignore: tuple[str, ...] = ()) -> Subtopics:
        """Subtopic masks of `qrels` (second column = subtopic; labels in `ignore`, such as the
        aspect layout's "0" = no aspect, are not subtopics); `intents` maps (topic, subtopic)
        to a probability (missing ones 0, renormalised per topic; uniform when None)."""
        groups = qrels.group.to_numpy(zero_copy_only=False).astype(str)
        rel = qrels.grade > 0
        if ignore:
            rel &= ~np.isin(groups, list(ignore))
        nt = len(qrels.topics)
        tcode = qrels.tcode.astype(np.int64)
        pairs = np.unique(np.rec.fromarrays([tcode[rel], groups[rel]]))
        ptopic = pairs["f0"].astype(np.int64)
        per_topic = np.bincount(ptopic, minlength=nt)
        labels = [[str(x) for x in pairs["f1"][ptopic == t]] for t in range(nt)]
        width = int(per_topic.max(initial=0))
        if width > MAX_SUBTOPICS:
            t = int(np.argmax(per_topic))
            raise InputError(qrels.source, f"topic {qrels.topics[t]!r} has {width} subtopics "
                             f"with relevant documents, at most {MAX_SUBTOPICS} are supported")
        # subtopic index of each relevant line: its pair's position within its topic
        pidx = np.searchsorted(np.rec.fromarrays([ptopic, pairs["f1"]]),
                               np.rec.fromarrays([tcode[rel], groups[rel]]))
        first = np.cumsum(per_topic) - per_topic
        sub = pidx - first[tcode[rel]]
        line_key = np.searchsorted(qrels.keys, tcode[rel] * len(qrels.docs) +
                                   qrels.dcode[rel].astype(np.int64))
        mask = np.zeros(qrels.keys.size, dtype=np.uint64)
        np.bitwise_or.at(mask, line_key, np.left_shift(np.uint64(1), sub.astype(np.uint64)))
        nrel = np.zeros((nt, max(width, 1)), dtype=np.int64)
        np.add.at(nrel, (tcode[rel], sub), 1)
        prob = _probabilities(qrels.topics, labels, intents, max(width, 1))
        import pyarrow.compute as pc  # diversity qrels only: see unjudged.data._strings

        docnames = np.asarray(qrels.docs.take(pc.cast(  # type: ignore[call-overload]  # stubs: takes numpy
            qrels.keys % max(len(qrels.docs), 1), "int64")).to_numpy(zero_copy_only=False))
        grade = np.clip(qrels.grade[rel].astype(np.int64), 0, None)
        gmax = int(grade.max(initial=1))
        return cls(list(qrels.topics), labels, mask, prob, intents is None, nrel, qrels.keys,
                   docnames.astype(str), qrels.topic_offsets, gmax,
                   (line_key, sub.astype(np.int64), grade))

    @property
    def graded(self) -> bool:
        """Some subtopic judgment has a grade above 1 (only then do grades differ from the
        masks' bits)."""
        return self.gmax > 1

    def key_grade(self) -> np.ndarray:
        """(len(keys), S) int8 grade of each judged document for each subtopic (0 = not
        relevant), built on first use. Without the lines (a hand-built Subtopics) the masks'
        bits are the grades."""
        if self._key_grade is None:
            s = self.prob.shape[-1]
            if self.lines is None:
                self._key_grade = unpack(self.key_mask, s).astype(np.int8)
            else:
                key, sub, grade = self.lines
                out = np.zeros((self.key_mask.size, s), dtype=np.int8)
                np.maximum.at(out, (key, sub), grade.astype(np.int8))
                self._key_grade = out
        return self._key_grade

    def ideal_grades(self) -> np.ndarray:
        """(topics, R, S) subtopic grades of the greedy ideal ranking of graded ERR-IA.

        At each rank the document with the largest gain sum_j w_j R_j(d) prod_i (1 - R_j(i))
        (i over the documents already placed, R = (2^g - 1) / 2^gmax, w_j = 1 under uniform
        intents, else the intent probability) comes next; ties go to the largest docno, as
        in `ideal`. On binary grades (R = 1/2) the gains are half of ndeval's at alpha = 0.5,
        so the ranking is `ideal(0.5)`'s.
        """
        if self._ideal_grades is None:
            self._ideal_grades = self._greedy_graded()
        return self._ideal_grades

    def at_level(self, rel: int) -> Subtopics:
        """The subtopic facts when only subtopic grades of at least `rel` are relevant (ir_measures'
        `rel=`, read as pyndeval reads it: a judgment is 1 when its grade is >= rel, else 0).

        Subtopics keep their bits; one left without a relevant document stops being a subtopic
        of its topic (probability 0, as ndeval counts only subtopics with a positive judgment),
        and the others' probabilities are renormalised. `rel` <= 1 is this object (grades are
        integers, and grade-0 judgments are never kept). Built once per level.

        Example:
            >>> from unjudged.io.diversity import read_diversity_qrels
            >>> q = read_diversity_qrels([("t", "1", "a", 1), ("t", "2", "a", 2),
            ...                           ("t", "2", "b", 3), ("t", "3", "c", 1)])
            >>> s = Subtopics.build(q).at_level(2)
            >>> s.key_mask.tolist(), s.nrel.tolist(), s.prob.tolist()
            ([2, 2, 0], [[0, 2, 0]], [[0.0, 1.0, 0.0]])
        """
        if rel <= 1:
            return self
        if rel not in self._levels:
            hit = self.key_grade() >= rel  # (keys, S)
            nt, s = self.prob.shape
            ktopic = np.searchsorted(self.topic_offsets, np.arange(self.key_mask.size),
                                     side="right") - 1
            nrel = np.zeros((nt, s), dtype=np.int64)
            np.add.at(nrel, ktopic, hit.astype(np.int64))
            live = nrel > 0
            prob = np.where(live, self.prob, 0.0)
            total = prob.sum(axis=1, keepdims=True)
            uniform = live / np.maximum(live.sum(axis=1, keepdims=True), 1)
            prob = np.where(total > 0, prob / np.where(total > 0, total, 1.0), uniform)
            lines = None
            if self.lines is not None:
                key, sub, grade = self.lines
                keep = grade >= rel
                lines = (key[keep], sub[keep], grade[keep])
            self._levels[rel] = Subtopics(self.topics, self.labels, pack(hit), prob,
                                          self.uniform, nrel, self.keys, self.docnames,
                                          self.topic_offsets, self.gmax, lines)
        return self._levels[rel]

    def ideal(self, alpha: float) -> np.ndarray:
        """(topics, R) masks of ndeval's greedy ideal ranking of the relevant documents.

        At each rank the document with the largest current gain sum_j w_j (1 - alpha)^c_j
        (c_j = documents of subtopic j already placed, w_j = 1 under uniform intents as in
        ndeval, else the intent probability) comes next; ties go to the largest docno in byte
        order, as ndeval's strcmp loop does. Non-relevant documents follow and gain nothing.
        """
        alpha = float(alpha)
        if alpha not in self._ideal:
            self._ideal[alpha] = self._greedy(alpha)
        return self._ideal[alpha]

    def _candidates(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
        """The relevant documents' keys, their topics and per-topic counts, each topic's by
        docno descending (argmax's first hit = largest docno), and the largest count."""
        nt = self.prob.shape[0]
        cand_key = np.flatnonzero(self.key_mask != 0)
        ktopic = np.searchsorted(self.topic_offsets, cand_key, side="right") - 1
        order = np.lexsort((self.docnames[cand_key], ktopic))[::-1]
        order = order[np.argsort(ktopic[order], kind="stable")]
        cand_key, ktopic = cand_key[order], ktopic[order]
        counts = np.bincount(ktopic, minlength=nt)
        return cand_key, ktopic, counts, int(counts.max(initial=0))

    def _greedy(self, alpha: float) -> np.ndarray:
        nt, s = self.prob.shape
        cand_key, ktopic, counts, width = self._candidates()
        masks = np.zeros((nt, max(width, 1)), dtype=np.uint64)
        masks[ktopic, _ramp(counts)] = self.key_mask[cand_key]
        bits = unpack(masks, s)  # (topics, docs, S)
        weight = np.ones((nt, s)) if self.uniform else self.prob.copy()
        taken = masks == 0
        out = np.zeros((nt, max(width, 1)), dtype=np.uint64)
        rows = np.arange(nt)
        for r in range(width):  # sequential by nature; vectorised over topics and documents
            score = (bits * weight[:, None, :]).sum(axis=-1)
            score[taken] = -1.0
            pick = np.argmax(score, axis=1)
            live = r < counts
            out[live, r] = masks[rows[live], pick[live]]
            taken[rows[live], pick[live]] = True
            weight[live] *= np.where(bits[rows[live], pick[live]] > 0, 1.0 - alpha, 1.0)
        return out

    def _greedy_graded(self) -> np.ndarray:
        nt, s = self.prob.shape
        cand_key, ktopic, counts, width = self._candidates()
        grades = np.zeros((nt, max(width, 1), s), dtype=np.int8)
        grades[ktopic, _ramp(counts)] = self.key_grade()[cand_key]
        r = stop_probability(grades, self.gmax)  # (topics, docs, S)
        weight = np.ones((nt, s)) if self.uniform else self.prob.copy()
        taken = r.sum(axis=-1) == 0
        out = np.zeros_like(grades)
        rows = np.arange(nt)
        for k in range(width):  # sequential by nature; vectorised over topics and documents
            score = (r * weight[:, None, :]).sum(axis=-1)
            score[taken] = -1.0
            pick = np.argmax(score, axis=1)
            live = rows[k < counts]
            out[live, k] = grades[live, pick[live]]
            taken[live, pick[live]] = True
            weight[live] *= 1.0 - r[live, pick[live]]
        return out


def stop_probability(grade: np.ndarray, gmax: int) -> np.ndarray:
    """ERR's R = (2^g - 1) / 2^gmax of subtopic grades (0 and below: 0).

    Example:
        >>> stop_probability(np.array([0, 1, 2, 3]), 3).tolist()
        [0.0, 0.125, 0.375, 0.875]
    """
    g = np.clip(grade.astype(np.int64), 0, None)
    return (np.left_shift(1, g) - 1) / float(2 ** gmax)


def _probabilities(topics, labels, intents, width) -> np.ndarray:
    """(topics, S) intent probabilities: uniform over each topic's subtopics, or the given ones
    renormalised (a topic whose given probabilities are all 0 falls back to uniform)."""
    prob = np.zeros((len(topics), width))
    # per topic: a handful of labels
    for t, (topic, labs) in enumerate(zip(topics, labels, strict=True)):
        if not labs:
            continue
        p = np.array([intents.get((topic, lab), 0.0) for lab in labs]) if intents else \
            np.ones(len(labs))
        prob[t, :len(labs)] = p / p.sum() if p.sum() > 0 else 1.0 / len(labs)
    return prob


def pack(bits: np.ndarray) -> np.ndarray:
    """uint64 subtopic masks from (..., S) relevance (nonzero = relevant): `unpack`'s inverse.

    Example:
        >>> pack(np.array([[1, 0, 1], [0, 0, 0]])).tolist()
        [5, 0]
    """
    shifts = np.arange(bits.shape[-1], dtype=np.uint64)
    return ((bits != 0).astype(np.uint64) << shifts).sum(axis=-1, dtype=np.uint64)


def unpack(mask: np.ndarray, s: int) -> np.ndarray:
    """(..., S) float 0/1 subtopic relevance from uint64 masks.

    Example:
        >>> unpack(np.array([5], dtype=np.uint64), 3).tolist()
        [[1.0, 0.0, 1.0]]
    """
    shifts = np.arange(s, dtype=np.uint64)
    return ((mask[..., None] >> shifts) & np.uint64(1)).astype(np.float64)


@dataclass(eq=False)
class DiversityQrels(Qrels):
    """Qrels read as diversity qrels: they carry their subtopic facts (layout, intents)."""

    subtopics: Subtopics | None = None


@dataclass(eq=False)
class DiversityJudged(Judged):
    """A judged batch plus, per ranked position, the document's relevant-subtopic mask.

    Attributes (besides Judged's):
        mask: (n, depth) uint64, 0 for unjudged, non-relevant and padding positions.
        subtopics: the qrels' subtopic facts.
        qidx: (n,) each evaluated topic's index in `subtopics`.
        sgrade: (n, depth, S) int8 grade per subtopic of each position, aligned like `mask`;
            None unless the qrels are graded per subtopic (see the module docstring).
    """

    mask: np.ndarray = field(default_factory=lambda: np.zeros((0, 1), np.uint64))
    subtopics: Subtopics | None = None
    qidx: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    sgrade: np.ndarray | None = None

    def topic_slice(self, a: int, b: int) -> DiversityJudged:
        sg = None if self.sgrade is None else self.sgrade[a:b]
        return self._with(Judged.topic_slice(self, a, b), self.mask[..., a:b, :], self.qidx[a:b],
                          sg)

    def with_grades(self, grades: np.ndarray, length: np.ndarray | None = None
                    ) -> DiversityJudged:
        """Other grades; the masks follow when the positions were cut, padded or condensed
        (the strategies' only reorderings), and stay put when grades were filled in place."""
        old, k = self.grades, grades.shape[-1]
        mask, sg = self.mask, self.sgrade
        if not _same_judged(grades, old):
            if k <= old.shape[-1] and np.array_equal(grades, old[..., :k]):
                mask = mask[..., :k]
                sg = None if sg is None else sg[:, :k]
            elif k > old.shape[-1] and np.array_equal(grades[..., :old.shape[-1]], old):
                mask = _pad_positions(mask, k, -1)
                sg = None if sg is None else _pad_positions(sg, k, 1)
            else:
                mask = _follow_condense(old, grades, mask)
                sg = None if sg is None else _follow_condense(old, grades, sg)
        return self._with(Judged.with_grades(self, grades, length), mask, self.qidx, sg)

    def cut_mask(self, k: int | None) -> np.ndarray:
        """Masks of the top k, zero-padded like Judged.cut."""
        m = self.mask
        if k is None or k <= m.shape[-1]:
            return m if k is None else m[..., :k]
        # the kernels unpack the masks into float64 (n, k, subtopics) arrays
        subtopics = 1 if self.subtopics is None else self.subtopics.prob.shape[-1]
        check_cutoff(int(np.prod(m.shape[:-1])), m.shape[-1], k, 8 + 32 * max(subtopics, 1))
        return np.concatenate([m, np.zeros(m.shape[:-1] + (k - m.shape[-1],), np.uint64)], -1)

    def cut_sgrade(self, k: int | None) -> np.ndarray | None:
        """(n, k, S) subtopic grades of the top k, zero-padded; None without them. The masks'
        width counts (a stream batch may widen the masks and leave the grades as they were)."""
        sg = self.sgrade
        if sg is None:
            return None
        k = self.mask.shape[-1] if k is None else k
        return sg[:, :k] if k <= sg.shape[1] else _pad_positions(sg, k, 1)

    def at_level(self, rel: int) -> DiversityJudged:
        """This batch when only subtopic grades of at least `rel` are relevant (see
        `Subtopics.at_level`): the masks are rebuilt from the subtopic grades, which only
        graded qrels carry; binary qrels have no relevant document above 1. `rel` <= 1 is this
        batch.

        Example:
            >>> from unjudged.io import read_run
            >>> from unjudged.io.diversity import read_diversity_qrels
            >>> q = read_diversity_qrels([("t", "1", "a", 1), ("t", "2", "a", 2),
            ...                           ("t", "2", "b", 3)])
            >>> j = judge_diversity(read_run({"t": {"b": 2.0, "a": 1.0}}), q)
            >>> j.mask.tolist(), j.at_level(2).mask.tolist(), j.at_level(3).mask.tolist()
            ([[2, 3]], [[2, 2]], [[2, 0]])
        """
        sub = self.subtopics
        if rel <= 1 or sub is None:
            return self
        if self.sgrade is not None:
            grades = self.cut_sgrade(self.mask.shape[-1])
            assert grades is not None
            mask = pack(np.asarray(grades >= rel))
        elif not sub.graded:
            mask = np.zeros_like(self.mask)
        else:
            raise ValueError("subtopic grades were not kept for this judged batch")
        return DiversityJudged(self.run_name, self.topics, self.grades, self.length, self.pool,
                               self.retrieved, self.policies, mask, sub.at_level(rel),
                               self.qidx, self.sgrade)

    def _with(self, base: Judged, mask: np.ndarray, qidx: np.ndarray,
              sgrade: np.ndarray | None = None) -> DiversityJudged:
        return DiversityJudged(base.run_name, base.topics, base.grades, base.length, base.pool,
                               base.retrieved, base.policies, mask, self.subtopics, qidx, sgrade)


def _pad_positions(a: np.ndarray, k: int, axis: int) -> np.ndarray:
    """`a` zero-padded to k positions along `axis` (the rank axis)."""
    widths = [(0, 0)] * a.ndim
    widths[axis] = (0, k - a.shape[axis])
    return np.pad(a, widths)


def _same_judged(new: np.ndarray, old: np.ndarray) -> bool:
    """Every judged position unchanged, positions in place (a fill of unknown positions,
    possibly with a leading sample axis as the bootstrap makes)."""
    if new.shape[-2:] != old.shape:
        return False
    judged = np.broadcast_to(old >= 0, new.shape)
    return bool(np.array_equal(new[judged], np.broadcast_to(old, new.shape)[judged]))


def _follow_condense(old: np.ndarray, new: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The masks (or (n, depth, S) subtopic grades) of `old`'s positions that `new` keeps, when
    `new` condenses `old` to its judged documents (grade >= 0)."""
    order, length = _condense_order(old >= 0)
    got = np.where(np.arange(order.shape[1]) >= length[:, None], PAD,
                   np.take_along_axis(old, order, axis=1))
    if got.shape == new.shape and np.array_equal(got, new):
        idx = order.reshape(order.shape + (1,) * (mask.ndim - 2))
        out = np.take_along_axis(mask, idx, axis=1)
        out[np.arange(order.shape[1])[None, :] >= length[:, None]] = 0
        return out
    raise ValueError("diversity rankings can only be cut, padded, filled or condensed")


def _condense_order(keep: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    length = keep.sum(axis=1).astype(np.int64)
    order = np.argsort(~keep, axis=1, kind="stable")
    return order[:, :max(int(length.max(initial=0)), 1)], length


def judge_diversity(run: Run, qrels: Qrels, policies: Policies = Policies(),
                    pool: Pool | None = None, subtopics: Subtopics | None = None,
                    grades: bool | None = None) -> DiversityJudged:
    """Judge a run and attach each ranked document's relevant subtopics, and (`grades`; by
    default when the qrels are graded per subtopic) its grade for each subtopic.

    Example:
        >>> from unjudged.io.diversity import read_diversity_qrels
        >>> from unjudged.io import read_run
        >>> q = read_diversity_qrels([("t", "1", "a", 1), ("t", "2", "b", 1), ("t", "2", "c", -1)])
        >>> j = judge_diversity(read_run({"t": {"c": 3.0, "b": 2.0, "x": 1.0, "a": 0.5}}), q)
        >>> j.grades.tolist(), j.mask.tolist()
        ([[-1, 1, -2, 1]], [[0, 2, 0, 1]])
    """
    subtopics = subtopics or subtopics_of(qrels)
    sq = qrels if isinstance(qrels, SampledQrels) else SampledQrels.from_qrels(qrels)
    base = judge_sampled(run, sq, policies.but(judged_only=False), pool)
    assert base.key_index is not None
    mask = np.where(base.key_index >= 0, subtopics.key_mask[np.maximum(base.key_index, 0)],
                    np.uint64(0)).astype(np.uint64)
    qidx = qrels.topic_codes(base.topics)
    sgrade = None
    if (subtopics.graded and subtopics.gmax <= MAX_GRADE) if grades is None else grades:
        kg = subtopics.key_grade()
        sgrade = np.where((base.key_index >= 0)[..., None], kg[np.maximum(base.key_index, 0)],
                          np.int8(0)).astype(np.int8)
    out = DiversityJudged(base.run_name, base.topics, base.grades, base.length, base.pool,
                          base.retrieved, policies, mask, subtopics, qidx, sgrade)
    if policies.judged_only:  # trec_eval -J: keeps the judged documents (grade >= 0) only
        out = out.with_grades(*condense(out.grades))
    return out


_CACHE: dict[int, tuple[Qrels, Subtopics]] = {}


def subtopics_of(qrels: Qrels) -> Subtopics:
    """The subtopic facts of `qrels` (uniform intents), built once per qrels object; qrels read
    by `read_diversity_qrels` carry their own (with the layout's and the intents' choices)."""
    if isinstance(qrels, DiversityQrels) and qrels.subtopics is not None:
        return qrels.subtopics
    hit = _CACHE.get(id(qrels))
    if hit is None or hit[0] is not qrels:
        hit = (qrels, Subtopics.build(qrels))
        _CACHE.clear()  # one qrels at a time is what a run of the CLI or a test needs
        _CACHE[id(qrels)] = hit
    return hit[1]


def needs_subtopics(measures) -> bool:
    """Whether any of the measures is a diversity measure (then runs are judged with
    `judge_diversity`)."""
    return any(m.spec.kernel.__module__.startswith("unjudged.measures.diversity")
               for m in measures)
