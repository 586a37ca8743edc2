"""statAP and statNDCG: estimators from judgments sampled document by document with known
inclusion probabilities (Aslam, Pavlu & Yilmaz, SIGIR 2006; Pavlu & Aslam 2007; the TREC Million
Query 2007-2008 and Web 2009 tracks, whose prels files give each probability).

With pi_d the inclusion probability of sampled document d and x_d its relevance, every total
over the universe is estimated by the Horvitz-Thompson sum over the sample of x_d / pi_d:

* R^ = sum over the sampled documents of x_d / pi_d (the estimated number of relevant);
* statAP = 1/R^ * sum over the run's sampled relevant documents d of PC^(r_d) / pi_d, where
  the precision at d's rank r is estimated as PC^(r) = (1 + sum_{sampled j above r} x_j / pi_j)
  / r: given d (relevant) in the sample, d itself counts once ('conditional', the default),
  and the documents above count as estimated. With pc='ht' d counts 1/pi_d as well, as the
  SIGIR 2006 paper writes PC^ (that form over-counts d when pi_d < 1);
* statNDCG@k = (sum over the run's sampled documents in the top k of gain / (pi_d
  log2(r + 1))) / the DCG of an ideal ranking of R^_g = sum over the sampled documents of
  grade g of 1/pi_d documents per grade, a fractional document taking its fraction of a
  rank's discount (smooth_ideal_dcg).

Under complete judgments (every pi = 1) they equal AP and nDCG@k. The documents outside the
sample (pi = 0: not sampled, or chosen by another method) are not read. The variances
(unjudged.inference.statistical) linearise each ratio and take the sample as drawn document by
document (Poisson sampling).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from unjudged.data.sampled import as_sampled
from unjudged.measures._common import discount, divide, level, ranks
from unjudged.measures._spec import MeasureSpec, Param, register
from unjudged.measures.dcg import DCG, GAINS, gain_values
from unjudged.measures.inferred import ideal_dcg
from unjudged.measures.precision import REL

CITATION = ("Aslam, Pavlu & Yilmaz, SIGIR 2006; Pavlu & Aslam 2007; TREC Million Query "
            "2007-2008 and Web 2009 (prels)")
PC = Param("pc", str, "conditional", "'conditional': a sampled relevant document counts "
           "itself once in the precision at its rank; 'ht': 1/pi, as the SIGIR 2006 paper's "
           "PC estimate", choices=("conditional", "ht"))


def sample_view(j, cutoff=None):
    """(sampled view, its grades cut to k, each ranked document's pi cut alike (0 outside the
    sample), per topic and grade the HT counts sum 1/pi and the variance terms
    sum (1 - pi)/pi^2) of a judged batch."""
    s = as_sampled(j).head(cutoff)
    pi, counts, spread = s.design(cutoff)
    g = s.cut(cutoff)
    return s, g, np.broadcast_to(pi, g.shape), counts, spread


def relevant_weights(g: np.ndarray, pi: np.ndarray, lv: int) -> np.ndarray:
    """x/pi of each ranked document: 1/pi for sampled relevant ones, else 0."""
    return np.divide(1.0, pi, out=np.zeros(pi.shape), where=(g >= lv) & (pi > 0))


def stat_ap(j, rel=None, pc="conditional"):
    """statAP of each topic (see the module's docstring)."""
    s, g, pi, counts, _ = sample_view(j)
    lv = level(s, rel)
    w = relevant_weights(g, pi, lv)
    above = np.cumsum(w, axis=-1) - w
    own = (w > 0) if pc == "conditional" else w
    r_hat = counts[..., s.grade_values >= lv].sum(axis=-1)
    return divide((w * (own + above) / ranks(w.shape[-1])).sum(axis=-1), r_hat)


def discounted_gains(g: np.ndarray, pi: np.ndarray, dcg: str, gains: str | None) -> np.ndarray:
    """gain / (pi log2(r + 1)) of each sampled ranked document, else 0."""
    inv = np.divide(1.0, pi, out=np.zeros(pi.shape), where=pi > 0)
    return gain_values(g, dcg, gains) * inv / discount(g.shape[-1])


def stat_ndcg(j, cutoff=None, dcg="log2", gains=None):
    """statNDCG@k of each topic (see the module's docstring)."""
    s, g, pi, counts, _ = sample_view(j, cutoff)
    got = discounted_gains(g, pi, dcg, gains).sum(axis=-1)
    return divide(got, smooth_ideal_dcg(counts, gain_values(s.grade_values, dcg, gains),
                                        cutoff))


def smooth_ideal_dcg(per_grade: np.ndarray, gain: np.ndarray, cutoff: int | None
                     ) -> np.ndarray:
    """DCG@k of an ideal ranking of R_g documents per grade, best gain first, where a
    fractional document takes its fraction of the next rank's discount: the grades fill
    the line from 0 in turn, rank p covering [p - 1, p). For whole counts it is the ordinary
    ideal DCG; for estimated counts it moves continuously with them (placing floor(R_g)
    documents, as infNDCG does, loses half a document per grade on average: an upward bias
    of the ratio).

    Example:
        >>> round(float(smooth_ideal_dcg(np.array([[0.0, 1.5]]), np.array([0.0, 1.0]), None)[0]),
        ...       4)   # 1 + 0.5 / log2(3)
        1.3155
    """
    totals = per_grade.sum(axis=-1)
    top = float(totals.max(initial=0.0))
    limit = math.inf if cutoff is None else float(cutoff)
    # ranks past _EXACT_RANKS (an estimate from a tiny inclusion probability: 1e-30 gives
    # 10^30 documents) take the cumulative discount's integral instead of an array that long
    width = int(np.ceil(min(top, limit, _EXACT_RANKS)))
    knots = np.concatenate([[0.0], np.cumsum(1.0 / discount(width))]) if width else \
        np.zeros(1)
    line = np.arange(knots.size, dtype=np.float64)

    def reach(x: np.ndarray) -> np.ndarray:  # the cumulative discount up to position x
        x = np.minimum(x, limit)
        head = np.interp(np.minimum(x, width), line, knots)
        if width < _EXACT_RANKS or not np.any(x > width):
            return head
        return head + _discount_tail(width, np.maximum(x, width))

    total = np.zeros(per_grade.shape[:-1])
    start = np.zeros(per_grade.shape[:-1])
    for gi in np.argsort(-gain, kind="stable"):
        if gain[gi] <= 0:
            continue
        end = start + per_grade[..., gi]
        total = total + gain[gi] * (reach(end) - reach(start))
        start = end
    return total


_EXACT_RANKS = 1 << 20


def _discount_tail(start: int, x: np.ndarray) -> np.ndarray:
    """sum of 1/log2(r + 1) over the ranks start+1..x (x >= start, fractional allowed), by
    Euler-Maclaurin: ln 2 (li(x + 1) - li(start + 1)) plus half the end terms' difference;
    past 2^20 ranks the terms change by under 1e-8 per rank, so the error is far below
    float precision of the sum."""
    from scipy.special import expi

    def li(y: np.ndarray) -> np.ndarray:  # the logarithmic integral
        return expi(np.log(y))

    def term(r: np.ndarray) -> np.ndarray:
        return 1.0 / np.log2(r + 1.0)

    low = np.float64(start)
    return math.log(2.0) * (li(x + 1.0) - li(low + 1.0)) + (term(x) - term(low)) / 2.0


def ideal_slope(per_grade: np.ndarray, gain_of: np.ndarray, cutoff: int | None,
                step: Any, ideal: Callable[..., np.ndarray] = ideal_dcg) -> np.ndarray:
    """IDCG's central difference along each grade's count, over +- `step` (per grade);
    `ideal` computes IDCG from the counts (infNDCG's ideal_dcg by default)."""
    step = np.broadcast_to(np.asarray(step, dtype=np.float64), per_grade.shape)
    out = []
    for c in range(gain_of.size):
        move = step[..., c:c + 1] * _unit(per_grade, c)
        out.append((ideal(per_grade + move, gain_of, cutoff) -
                    ideal(np.maximum(per_grade - move, 0.0), gain_of, cutoff)) /
                   (2.0 * step[..., c]))
    return np.stack(out, axis=-1)


def smooth_ideal_slope(per_grade: np.ndarray, gain: np.ndarray, cutoff: int | None,
                       sd: np.ndarray) -> np.ndarray:
    """smooth_ideal_dcg's slope along each grade's count (+-1 document); where IDCG@k is
    flat (the count passes k), a difference of 0 would call it exact, and the secant over +-
    the count's standard deviation `sd` (at least 1) is taken instead."""
    slope = ideal_slope(per_grade, gain, cutoff, 1.0, smooth_ideal_dcg)
    wide = ideal_slope(per_grade, gain, cutoff, np.maximum(sd, 1.0), smooth_ideal_dcg)
    return np.where(slope == 0.0, wide, slope)


def _unit(a: np.ndarray, c: int) -> np.ndarray:
    out = np.zeros(a.shape[-1])
    out[c] = 1.0
    return out


register(MeasureSpec(
    "statAP", stat_ap, "AP estimated from judgments sampled with known inclusion "
    "probabilities (TREC's prels): Horvitz-Thompson estimates of R and of the precision at "
    "each sampled relevant document's rank, weighted by 1/pi. Equals AP when every pi is 1.",
    params=(REL, PC), aliases=("statap", "statMAP"), bounded=None, estimable=False,
    monotone=False, guaranteed=False, citation=CITATION))
register(MeasureSpec(
    "statNDCG", stat_ndcg, "nDCG estimated from judgments sampled with known inclusion "
    "probabilities: the sampled documents' discounted gains weighted by 1/pi, over the DCG of "
    "an ideal ranking of the estimated documents per grade. Equals nDCG when every pi is 1.",
    params=(DCG, GAINS), cutoff="optional", aliases=("statndcg", "statnDCG"), bounded=None,
    estimable=False, monotone=False, guaranteed=False, citation=CITATION))
