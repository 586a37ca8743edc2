"""ndeval's per-topic measures, with its order of floating-point operations.

Each run topic's ranking is a list of relevant-subtopic columns per rank (None: not in the qrels).
The arithmetic is ndeval's, step by step: a rank's score is summed over subtopics in ascending
order, a subtopic's gain shrinks by repeated multiplication by (1 - alpha), the @k values are
divided by the "ideal ideal" ones and the collection-dependent ones divide those quotients again.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from unjudged.ndeval._read import QrelsTopic

DEPTH = 20
NEG_NAN = -math.nan  # what 0.0 / 0.0 gives on x86-64 (printed "-nan" by glibc)


def c_div(a: float, b: float) -> float:
    """a / b with C's IEEE semantics (0/0 is x86's negative NaN, x/0 infinite).

    Example:
        >>> c_div(1.0, 4.0), c_div(1.0, 0.0), math.copysign(1, c_div(0.0, 0.0))
        (0.25, inf, -1.0)
    """
    if b != 0.0 or math.isnan(b):
        return a / b
    if a == 0.0 or math.isnan(a):
        return NEG_NAN if not math.isnan(a) else a
    return math.copysign(math.inf, a) * math.copysign(1.0, b)


_DISCOUNT = [1.0] + [math.log(2.0) / math.log(r + 2.0) for r in range(1, DEPTH)]


@dataclass
class TopicScores:
    """One topic's values, ndeval's rList fields (zero for a run topic the qrels lack)."""

    err: list[float] = field(default_factory=lambda: [0.0] * DEPTH)
    nerr: list[float] = field(default_factory=lambda: [0.0] * DEPTH)
    dcg: list[float] = field(default_factory=lambda: [0.0] * DEPTH)
    ndcg: list[float] = field(default_factory=lambda: [0.0] * DEPTH)
    nrbp: float = 0.0
    nnrbp: float = 0.0
    map_ia: float = 0.0
    precision: list[float] = field(default_factory=lambda: [0.0] * DEPTH)
    strec: list[float] = field(default_factory=lambda: [0.0] * DEPTH)

    def row(self) -> list[float]:
        """The 21 values in ndeval's column order."""
        at = (4, 9, 19)
        return [self.err[i] for i in at] + [self.nerr[i] for i in at] + \
            [self.dcg[i] for i in at] + [self.ndcg[i] for i in at] + \
            [self.nrbp, self.nnrbp, self.map_ia] + [self.precision[i] for i in at] + \
            [self.strec[i] for i in at]


Ranking = list[tuple[int, ...] | None]


def cascade(ranking: Ranking, width: int, actual: int, alpha: float, beta: float,
            out: TopicScores) -> None:
    """ndeval's computeDCG, computeERR and computeNRBP into `out`."""
    if actual == 0:
        return
    keep = 1.0 - alpha
    gain = [1.0] * width
    decay = 1.0
    for i, cols in enumerate(ranking):
        score = 0.0
        for j in cols or ():
            score += gain[j]
            gain[j] *= keep
        if i < DEPTH:
            out.dcg[i] = score * _DISCOUNT[i]
            out.err[i] = score / float(i + 1)
        out.nrbp += score * decay
        decay *= beta
    ideal_dcg, ideal_err, g = [0.0] * DEPTH, [0.0] * DEPTH, float(actual)
    for i in range(DEPTH):
        ideal_dcg[i], ideal_err[i] = g * _DISCOUNT[i], g / float(i + 1)
        g *= keep
    for i in range(1, DEPTH):
        out.dcg[i] += out.dcg[i - 1]
        out.err[i] += out.err[i - 1]
        ideal_dcg[i] += ideal_dcg[i - 1]
        ideal_err[i] += ideal_err[i - 1]
    for i in range(1, DEPTH):  # rank 1 stays unnormalised, as in ndeval (it never prints it)
        out.dcg[i] /= ideal_dcg[i]
        out.err[i] /= ideal_err[i]
    out.nrbp *= (1 - keep * beta) / actual


def ideal_ranking(topic: QrelsTopic, alpha: float) -> Ranking:
    """ndeval's greedy ideal ranking of the relevant documents (idealResult): at each rank the
    document whose subtopic gains sum highest (summed in subtopic order, in double precision)
    comes next, ties to the largest docno. Documents that would add 0 are left out: they add
    nothing to any measure and change no later gain.

    Example:
        >>> t = QrelsTopic([b"a", b"b", b"c"], {b"a": (0,), b"b": (0, 1), b"c": (1,)}, [2, 2])
        >>> ideal_ranking(t, 0.5)
        [(0, 1), (1,), (0,)]
    """
    docs = [d for d in topic.docs if topic.cols[d]]  # byte order: the last maximum wins
    width = len(topic.nrel_sub)
    if not docs:
        return []
    bits = np.zeros((len(docs), width))
    for r, d in enumerate(docs):
        bits[r, list(topic.cols[d])] = 1.0
    gain = np.ones(width)
    taken = np.zeros(len(docs), bool)
    out: Ranking = []
    for _ in range(len(docs)):
        # cumsum adds left to right, as ndeval's loop over subtopics does
        score = np.cumsum(bits * gain, axis=1)[:, -1]
        score[taken] = -1.0
        pick = len(docs) - 1 - int(np.argmax(score[::-1]))
        if score[pick] <= 0.0:
            break
        taken[pick] = True
        out.append(topic.cols[docs[pick]])
        gain = np.where(bits[pick] > 0, gain * (1.0 - alpha), gain)
    return out


def score_topic(ranked: list[bytes], topic: QrelsTopic, ideal: TopicScores, alpha: float,
                beta: float) -> TopicScores:
    """All of ndeval's values for one run topic against its qrels topic (applyQrels)."""
    width, actual = len(topic.nrel_sub), sum(1 for n in topic.nrel_sub if n)
    ranking: Ranking = [topic.cols.get(d) for d in ranked]
    out = TopicScores()
    cascade(ranking, width, actual, alpha, beta, out)
    for i in range(DEPTH):  # renormalize
        if out.dcg[i]:
            out.ndcg[i] = c_div(out.dcg[i], ideal.dcg[i])
            out.nerr[i] = c_div(out.err[i], ideal.err[i])
    out.nnrbp = c_div(out.nrbp, ideal.nrbp)
    if actual:
        _recall_precision(ranking, width, actual, out)
        out.map_ia = _map_ia(ranking, topic.nrel_sub, actual)
    return out


def ideal_scores(topic: QrelsTopic, alpha: float, beta: float) -> TopicScores:
    """The ideal ranking's DCG, ERR and NRBP (the collection-dependent normalisers)."""
    out = TopicScores()
    actual = sum(1 for n in topic.nrel_sub if n)
    cascade(ideal_ranking(topic, alpha), len(topic.nrel_sub), actual, alpha, beta, out)
    return out


def _recall_precision(ranking: Ranking, width: int, actual: int, out: TopicScores) -> None:
    seen = [False] * width
    covered = count = 0
    for i in range(DEPTH):
        cols = (ranking[i] or ()) if i < len(ranking) else ()
        for j in cols:
            count += 1
            if not seen[j]:
                seen[j] = True
                covered += 1
        out.strec[i] = float(covered) / float(actual)
        out.precision[i] = float(count) / float((i + 1) * actual)


def _map_ia(ranking: Ranking, nrel_sub: list[int], actual: int) -> float:
    found = [0] * len(nrel_sub)
    total = [0.0] * len(nrel_sub)
    for i, cols in enumerate(ranking):
        for j in cols or ():
            found[j] += 1
            total[j] += found[j] / float(i + 1)
    value = 0.0
    for j, n in enumerate(nrel_sub):
        if n:
            value += total[j] / n
    return value / actual
