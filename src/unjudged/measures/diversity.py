"""Diversity measures (cascade and intent-aware) with ndeval's conventions (TREC Web track).

Conventions, all ndeval's (version 4.5) unless said otherwise:

- judgments are binary per subtopic: a grade > 0 is relevant (grades above 1 count as 1); a
  topic's subtopics are those with a relevant document; intents are uniform over them unless
  probabilities are given (then every sum over subtopics is weighted by them; ndeval has none);
- `rel=r` (ir_measures' parameter; pyndeval turns each judgment into 1 when its grade is >= r
  before ndeval reads it) makes grades of at least r relevant, so a subtopic without such a
  judgment drops out of its topic; rel=1 is ndeval's reading, and rel < 1 is refused;
- `judged_only=True` (trec_eval -J, ir_measures' judged_only): retrieved documents the qrels do
  not list are removed before ranking; the subtopic masks and grades follow (data/diversity.py).
  As in ir_measures, NRBP, nNRBP and S-recall do not take it;
- a subtopic's gain at a rank is (1 - alpha)^c, c = documents of that subtopic ranked above;
  alpha = 0.5, NRBP's beta = 0.5, default cutoff 20 (ndeval's DEPTH);
- "collection-independent" normalisation (alpha-DCG, ERR-IA, NRBP): divide by the "ideal ideal"
  ranking in which every document is relevant to every subtopic, so the values are in [0, 1]
  and depend on nothing but the ranking; ERR-IA@k's normaliser grows with k, so ERR-IA@5 can
  exceed ERR-IA@10;
- "collection-dependent" normalisation (alpha-nDCG, nERR-IA, nNRBP): divide by the same measure
  of ndeval's greedy ideal ranking of the judged documents (Subtopics.ideal), 0 when the run
  gains nothing;
- P-IA@k divides by k even when fewer documents were retrieved; S-recall (strec) counts
  subtopics, unweighted; MAP-IA averages each subtopic's AP (over its relevant documents);
- NRBP, nNRBP and MAP-IA read the whole ranking (as ndeval) unless a cutoff is given;
- one difference: ndeval leaves its @1 values unnormalised (a bug; it reports only 5, 10, 20);
  here every cutoff is normalised the same way.

A cutoff past every ranking reads no more columns than the other measures do (cut_width: the
rankings padded to PAD_UP_TO = 1,000 positions, or to the deepest ranking, and the greedy ideal
ranking likewise to its own length): past a ranking's end no document gains anything, so
alpha-nDCG@1000000000 is alpha-nDCG at that width. What reads the nominal k reads it as a
number: P-IA's divisor, and the ideal-ideal normalisers of alpha-DCG and ERR-IA (sums of
(1 - alpha)^r times the discount, summed in slices until the rest cannot change them).

ERR-IA and nERR-IA also take `form='paper'`: seed 004's eq. (2) (Chapelle et al., CIKM 2009),
sum_i p_i sum_r (1/r) R_i(r) prod_{j<r} (1 - R_i(j)) with graded R = (2^g - 1) / 2^gmax, g the
document's grade for subtopic i and gmax the qrels' highest subtopic grade; ERR-IA's paper form
is that sum unnormalised (an expected reciprocal rank, in [0, 1]), nERR-IA's divides it by that
of the greedy graded ideal ranking (Subtopics.ideal_grades). alpha plays no part in it.

Unjudged documents gain nothing (nonrel); the condensed strategy removes them first, and the
masks of the judged rankings follow (data/diversity.py).
"""

from __future__ import annotations

import numpy as np

from unjudged.data.diversity import MAX_GRADE, DiversityJudged, Subtopics, stop_probability, unpack
from unjudged.data.judged import Judged, cut_width
from unjudged.errors import InvalidOptionError, MeasureSpecError
from unjudged.measures._common import divide, ranks
from unjudged.measures._spec import JUDGED_ONLY, MeasureSpec, Param, register

DEPTH = 20  #: ndeval's default (and only) depth for the @k measures
ALPHA = Param("alpha", float, 0.5, "redundancy intolerance: a subtopic's gain shrinks by "
              "(1 - alpha) each time it is covered again", low=0, high=1)
BETA = Param("beta", float, 0.5, "patience: the chance of looking at the next document",
             low=0, high=1)
FORM = Param("form", str, "ndeval", "'ndeval' (binary subtopic judgments, alpha novelty gain, "
             "ndeval 4.5's values) or 'paper' (seed 004's eq. 2: graded R = (2^g - 1) / 2^gmax "
             "with ERR's cascade, no alpha)", choices=("ndeval", "paper"))
REL = Param("rel", int, 1, "the smallest subtopic grade that is relevant (ir_measures' rel=, "
            "as pyndeval reads it: a judgment counts when its grade is at least rel); a "
            "subtopic with no judgment that high is not one of the topic's subtopics")


def _parts(j, cutoff: int | None, alpha: float, ideal: bool = False, rel: int = 1
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(score, bits, prob): per rank the intent-weighted novelty gain sum_j p_j (1-alpha)^c_j
    rel_j (..., n, k), the 0/1 subtopic relevance (..., n, k, S) and the intents (n, S), for the
    run's ranking or (ideal=True) the greedy ideal one, cut (and padded) to `cutoff`, with
    subtopic grades of at least `rel` relevant; past PAD_UP_TO and every ranking's end, cut to
    `cut_width` columns (what lies further gains nothing)."""
    j = _view(j, rel)
    prob = j.subtopics.prob[j.qidx]
    if ideal:
        mask = j.subtopics.ideal(alpha)[j.qidx]
        if cutoff is not None:
            k = cut_width(cutoff, mask.shape[1])
            mask = mask[:, :k] if k <= mask.shape[1] else np.pad(
                mask, ((0, 0), (0, k - mask.shape[1])))
    else:
        mask = j.cut_mask(None if cutoff is None else cut_width(cutoff, j.mask.shape[-1]))
    bits = unpack(mask, prob.shape[-1])
    seen = np.cumsum(bits, axis=-2) - bits
    score = (bits * np.power(1.0 - alpha, seen) * prob[:, None, :]).sum(axis=-1)
    return score, bits, prob


def _view(j: Judged, rel: int = 1) -> DiversityJudged:
    """The batch as subtopic judgments with grades of at least `rel` relevant."""
    if rel < 1:
        raise MeasureSpecError(f"rel={rel}: diversity measures read grades of at least 1 as "
                               "relevant at most (grade-0 judgments never make a subtopic)")
    if not (isinstance(j, DiversityJudged) and j.subtopics is not None):
        return single_subtopic(j, rel)
    if rel > 1 and j.subtopics.graded and (j.sgrade is None or j.subtopics.gmax > MAX_GRADE):
        raise MeasureSpecError(f"rel={rel} needs each document's grade per subtopic, which "
                               "this judged batch does not carry (subtopic grades above "
                               f"{MAX_GRADE}, or grades not kept)")
    return j.at_level(rel)


def single_subtopic(j: Judged, rel: int = 1) -> DiversityJudged:
    """A batch judged without subtopics read as one subtopic per topic (grade >= rel relevant):
    what the diversity reading of ad hoc qrels with a constant second column gives.

    Example:
        >>> from unjudged.io import read_qrels, read_run
        >>> from unjudged.data.judged import judge
        >>> j = judge(read_run({"t": {"a": 2.0, "b": 1.0}}), read_qrels({"t": {"b": 1}}))
        >>> single_subtopic(j).mask.tolist()
        [[0, 1]]
    """
    level = max(rel, 1)
    nrel = (j.pool.sorted_grades >= level).sum(axis=-1)
    n = len(j.topics)
    sub = Subtopics(list(j.topics), [["0"] if r else [] for r in nrel.tolist()],
                    np.ones(int(nrel.sum()), np.uint64), (nrel > 0).astype(float)[:, None],
                    True, nrel[:, None], np.arange(int(nrel.sum())),
                    np.zeros(int(nrel.sum()), str), np.concatenate([[0], np.cumsum(nrel)]))
    mask = (j.grades >= level).astype(np.uint64)
    return DiversityJudged(j.run_name, j.topics, j.grades, j.length, j.pool, j.retrieved,
                           j.policies, mask, sub, np.arange(n))


def _dcg_discount(k: int) -> np.ndarray:
    return _dcg_at(np.arange(k, dtype=np.float64))


def _dcg_at(at: np.ndarray) -> np.ndarray:
    """The log2 discount at 0-based positions `at` (floats)."""
    return 1.0 / np.log2(at + 2.0)


def _cascade(j, cutoff, alpha, discount, ideal=False, rel=1) -> np.ndarray:
    score, _, _ = _parts(j, cutoff, alpha, ideal, rel)
    return (score * discount(score.shape[-1])).sum(axis=-1)


#: positions of the ideal-ideal sum computed at a time, and at most (a cutoff whose terms still
#: count after this many is refused: 2^26 positions take about a second)
_SLICE, _MOST = 1 << 20, 1 << 26


def _ideal_ideal(k: int, alpha: float, discount) -> float:
    """The measure of a ranking whose every document is relevant to every subtopic:
    sum_{r<k} (1 - alpha)^r discount(r). Up to _SLICE positions in one sum (as always); past
    it in slices of _SLICE, until k or until what is left, at most (1 - alpha)^r discount(r) /
    alpha from position r on (both factors shrink), cannot change the sum. A cutoff whose
    terms still count after _MOST positions (alpha below about 6e-7) is refused in one line.

    Example:
        >>> a = _ideal_ideal(10 ** 9, 0.5, _reciprocal)  # the terms vanish after ~1,100
        >>> a == _ideal_ideal(2000, 0.5, _reciprocal), round(a, 10)  # 2 ln 2
        (True, 1.3862943611)
    """
    if k <= _SLICE:
        return float((np.power(1.0 - alpha, np.arange(k)) * discount(k)).sum())
    at = _DISCOUNTS[discount]
    q, total = 1.0 - alpha, 0.0

    def rest(r: int) -> float:  # at most what the positions from r on add
        return q ** r * float(at(np.array([float(r)]))[0]) / max(alpha, 1e-300)

    # the sum is at most min(k, 1 / alpha): if even that leaves the rest counting at _MOST,
    # say so now rather than after a second of sums (alpha = 0 never ends)
    if k > _MOST and rest(_MOST) > min(k, 1.0 / max(alpha, 1e-300)) * 2.0 ** -54:
        raise InvalidOptionError(
            f"a cutoff of {k} with alpha={alpha}: the ideal-ideal normaliser's terms "
            f"(1 - alpha)^r still count past {_MOST} positions; use a cutoff up to {_MOST} or "
            "a larger alpha")
    for start in range(0, k, _SLICE):
        r = np.arange(start, min(start + _SLICE, k), dtype=np.float64)
        total += float((np.power(q, r) * at(r)).sum())
        end = start + r.size
        if end == k or rest(end) <= total * 2.0 ** -54:  # below half a unit in the last place
            break
    return total


def _reciprocal(k: int) -> np.ndarray:
    return 1.0 / ranks(k)


def _reciprocal_at(at: np.ndarray) -> np.ndarray:
    return 1.0 / (at + 1.0)


#: each discount of k positions as a function of 0-based positions (for sums in slices)
_DISCOUNTS = {_dcg_discount: _dcg_at, _reciprocal: _reciprocal_at}


class _Cascade:
    """A cascade measure @k over the ideal-ideal value (ndeval's collection-independent
    normalisation) or, dependent=True, over that of the greedy ideal ranking. A class rather
    than a closure, so that measures travel to worker processes (pickle finds it by name)."""

    def __init__(self, discount, dependent: bool, what: str) -> None:
        self.discount, self.dependent = discount, dependent
        self.__doc__ = f"{what}@k over " + ("that of the greedy ideal ranking." if dependent
                                            else "the ideal-ideal value.")

    def __call__(self, j, cutoff=None, alpha=0.5, rel=1):
        k = cutoff or DEPTH
        value = _cascade(j, k, alpha, self.discount, rel=rel)
        if self.dependent:
            return divide(value, _cascade(j, k, alpha, self.discount, True, rel))
        return value / _ideal_ideal(k, alpha, self.discount)


_DCG = "alpha-DCG: sum_r gain_r / log2(r + 1)"
_ERR = "ERR-IA: sum_r gain_r / r"
alpha_dcg, alpha_ndcg = _Cascade(_dcg_discount, False, _DCG), _Cascade(_dcg_discount, True, _DCG)
_err_ia, _nerr_ia = _Cascade(_reciprocal, False, _ERR), _Cascade(_reciprocal, True, _ERR)


def err_ia(j, cutoff=None, alpha=0.5, form="ndeval", rel=1):
    """ERR-IA@k: ndeval's (sum_r gain_r / r over the ideal-ideal value) or, form='paper',
    seed 004's eq. (2) unnormalised (see `graded_err`)."""
    if form == "paper":
        _no_alpha(alpha, rel)
        return graded_err(j, cutoff or DEPTH)
    return _err_ia(j, cutoff, alpha, rel)


def nerr_ia(j, cutoff=None, alpha=0.5, form="ndeval", rel=1):
    """ERR-IA@k over that of the greedy ideal ranking, in either form."""
    if form == "paper":
        _no_alpha(alpha, rel)
        k = cutoff or DEPTH
        return divide(graded_err(j, k), graded_err(j, k, ideal=True))
    return _nerr_ia(j, cutoff, alpha, rel)


def _no_alpha(alpha: float, rel: int = 1) -> None:
    if alpha != 0.5:
        raise MeasureSpecError("ERR-IA(form='paper') has no alpha: its redundancy discount is "
                               "prod (1 - R) over the documents above; drop alpha or use "
                               "form='ndeval'")
    if rel != 1:
        raise MeasureSpecError("ERR-IA(form='paper') has no rel: it reads every subtopic "
                               "grade through R = (2^g - 1) / 2^gmax; drop rel or use "
                               "form='ndeval'")


def graded_err(j, k: int, ideal: bool = False) -> np.ndarray:
    """Seed 004's eq. (2): sum_i p_i sum_{r<=k} (1/r) R_i(r) prod_{j<r} (1 - R_i(j)), R =
    (2^g - 1) / 2^gmax, of the run's top k or (ideal=True) of the greedy graded ideal ranking.

    Example (one subtopic, grades 2 then 1 with gmax 2: R = 3/4, 1/4):
        >>> from unjudged.io import read_run
        >>> from unjudged.io.diversity import read_diversity_qrels
        >>> from unjudged.data.diversity import judge_diversity
        >>> q = read_diversity_qrels([("t", "1", "a", 2), ("t", "1", "b", 1)])
        >>> j = judge_diversity(read_run({"t": {"b": 2.0, "a": 1.0}}), q)
        >>> float(graded_err(j, 2)[0]), 1/4 + (3/4) * (3/4) / 2
        (0.53125, 0.53125)
    """
    j = _view(j)
    sub = j.subtopics
    prob = sub.prob[j.qidx]
    if sub.gmax > MAX_GRADE:
        raise MeasureSpecError(f"ERR-IA(form='paper'): subtopic grade {sub.gmax} is too large "
                               f"(at most {MAX_GRADE})")
    if ideal:
        grades = sub.ideal_grades()[j.qidx]
        k = cut_width(k, grades.shape[1])  # past the ideal ranking's end nothing gains
        grades = grades[:, :k] if k <= grades.shape[1] else np.pad(
            grades, ((0, 0), (0, k - grades.shape[1]), (0, 0)))
    else:
        k = cut_width(k, j.mask.shape[-1])
        grades = j.cut_sgrade(k)
        if grades is None:
            if sub.graded:  # e.g. a stream batch scored again: its grades were not kept
                raise MeasureSpecError("ERR-IA(form='paper') needs the subtopic grades, which "
                                       "this judged batch does not carry")
            grades = unpack(j.cut_mask(k), prob.shape[-1])  # binary: the bits are the grades
    r = stop_probability(grades, sub.gmax)  # (n, k, S)
    survive = np.cumprod(1.0 - r, axis=-2)
    above = np.concatenate([np.ones_like(survive[:, :1]), survive[:, :-1]], axis=-2)
    gain = (r * above * prob[:, None, :]).sum(axis=-1)  # (n, k)
    return (gain / ranks(k)).sum(axis=-1)


def _rbp(beta: float):
    return lambda k: np.power(float(beta), np.arange(k, dtype=np.float64))


def nrbp(j, cutoff=None, alpha=0.5, beta=0.5, rel=1):
    """(1 - (1 - alpha) beta) sum_r beta^(r-1) gain_r: novelty- and rank-biased precision."""
    return (1.0 - (1.0 - alpha) * beta) * _cascade(j, cutoff, alpha, _rbp(beta), rel=rel)


def nnrbp(j, cutoff=None, alpha=0.5, beta=0.5, rel=1):
    """NRBP over that of the greedy ideal ranking."""
    return divide(_cascade(j, cutoff, alpha, _rbp(beta), rel=rel),
                  _cascade(j, cutoff, alpha, _rbp(beta), True, rel))


def precision_ia(j, cutoff=None, rel=1):
    """sum_j p_j (relevant documents of subtopic j in the top k) / k."""
    k = cutoff or DEPTH
    _, bits, prob = _parts(j, k, 0.5, rel=rel)
    return (bits.sum(axis=-2) * prob).sum(axis=-1) / k


def subtopic_recall(j, cutoff=None, rel=1):
    """Subtopics covered by the top k over the topic's subtopics; with intent probabilities
    only subtopics of positive probability count, above and below the line (a covered
    zero-weight subtopic once made the value exceed 1)."""
    k = cutoff or DEPTH
    _, bits, prob = _parts(j, k, 0.5, rel=rel)
    live = prob > 0
    covered = (bits.max(axis=-2, initial=0.0) > 0) & live  # (..., n, S)
    return divide(covered.sum(axis=-1), live.sum(axis=-1))


def map_ia(j, cutoff=None, rel=1):
    """sum_j p_j AP_j, AP_j over the documents relevant to subtopic j in the qrels."""
    j = _view(j, rel)
    _, bits, prob = _parts(j, cutoff, 0.5)
    found = np.cumsum(bits, axis=-2) * bits / ranks(bits.shape[-2])[:, None]
    ap = divide(found.sum(axis=-2), j.subtopics.nrel[j.qidx])
    return (ap * prob).sum(axis=-1)


_NDEVAL = "ndeval 4.5 (TREC Web track 2009-2014); "
_SPECS = [
    ("alpha-nDCG", alpha_ndcg, ("alpha_nDCG", "alpha-ndcg"), (ALPHA, REL, JUDGED_ONLY),
     "alpha-DCG@k (novelty gain sum_j p_j (1-alpha)^c_j, log2 discount) over that of ndeval's "
     "greedy ideal ranking; default cutoff 20", "Clarke et al., SIGIR 2008"),
    ("alpha-DCG", alpha_dcg, ("alpha_DCG",), (ALPHA, REL, JUDGED_ONLY),
     "alpha-DCG@k over the ideal-ideal ranking (every document relevant to every subtopic), "
     "ndeval's collection-independent normalisation; default cutoff 20",
     "Clarke et al., SIGIR 2008"),
    ("ERR-IA", err_ia, ("ERR_IA",), (ALPHA, FORM, REL, JUDGED_ONLY),
     "Intent-aware ERR as ndeval: sum_r gain_r / r with the alpha novelty gain, over the "
     "ideal-ideal value (so ERR-IA@5 may exceed ERR-IA@10); form='paper' is seed 004's eq. 2, "
     "sum_i p_i sum_r (1/r) R_i(r) prod_{j<r} (1 - R_i(j)) with graded R = (2^g - 1) / 2^gmax, "
     "unnormalised; default cutoff 20",
     "Chapelle et al., CIKM 2009"),
    ("nERR-IA", nerr_ia, ("nERR_IA",), (ALPHA, FORM, REL, JUDGED_ONLY),
     "ERR-IA@k over that of ndeval's greedy ideal ranking (form='paper': the graded form over "
     "that of the greedy graded ideal ranking); default cutoff 20",
     "Chapelle et al., CIKM 2009"),
    ("NRBP", nrbp, (), (ALPHA, BETA, REL),
     "Novelty- and rank-biased precision: (1-(1-alpha) beta) sum_r beta^(r-1) gain_r over "
     "the whole ranking (ideal-ideal normalised)", "Clarke, Kolla & Vechtomova, ICTIR 2009"),
    ("nNRBP", nnrbp, (), (ALPHA, BETA, REL),
     "NRBP over that of ndeval's greedy ideal ranking", "Clarke, Kolla & Vechtomova, ICTIR 2009"),
    ("P-IA", precision_ia, ("P_IA",), (REL, JUDGED_ONLY),
     "Intent-aware precision: sum_j p_j (documents relevant to j in the top k) / k; default "
     "cutoff 20", "Agrawal et al., WSDM 2009"),
    ("MAP-IA", map_ia, ("AP_IA", "AP-IA"), (REL, JUDGED_ONLY),
     "Intent-aware AP: sum_j p_j AP_j with AP_j over the qrels' documents relevant to "
     "subtopic j; whole ranking", "Agrawal et al., WSDM 2009"),
    ("S-recall", subtopic_recall, ("strec", "St_recall", "S_recall"), (REL,),
     "Subtopic recall: subtopics with a relevant document in the top k over the topic's "
     "subtopics (unweighted); default cutoff 20", "Zhai, Cohen & Lafferty, SIGIR 2003"),
]



class _PerSample:
    """The kernel's (n,) values broadcast to the batch's leading axes: filled-in grades (the
    bootstrap's samples) carry no subtopics, so every sample scores as the judged ranking.
    A class rather than a closure, so that measures travel to worker processes."""

    def __init__(self, kernel) -> None:
        self.kernel = kernel
        self.__doc__ = kernel.__doc__

    def __call__(self, j, **kw):
        return np.broadcast_to(self.kernel(j, **kw), j.grades.shape[:-1])


for _name, _kernel, _aliases, _params, _text, _cite in _SPECS:
    register(MeasureSpec(_name, _PerSample(_kernel),
                         _NDEVAL + _text + ". Binary subtopic judgments"
                         + (" (form='ndeval')" if FORM in _params else "")
                         + "; unjudged documents gain nothing.", params=_params, aliases=_aliases,
                         citation=_cite, cutoff="optional", monotone=False, guaranteed=False))
