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

This module holds the pure part: the names, and the kernels over term-count arrays. The
measures need document text, so they are not in the measure registry (whose kernels see grades
only); `unjudged.text.divergence` builds the kernels' inputs from a corpus index (term arrays,
collection probabilities, which documents are in the corpus) and `divergence_scores` there
evaluates runs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from unjudged.errors import MeasureSpecError

_NAME = re.compile(r"^(ABS|DELTA)-(NB|RB)(?:\(([^)]*)\))?@(\d+)$", re.I)
_PARAMS = {"mu": 2500.0, "theta": 0.8}

#: The four families for `unjudged measures` (they are not in the measure registry, whose
#: kernels see grades only): usage, what each is, and what they share.
FAMILIES = {
    "ABS-NB": ("ABS-NB(mu=2500.0)@k", "Language-model divergence: the sum over ranks 1..k of "
               "the best subtopic's gain g(i, j), how close the top-j documents' text comes to "
               "the text judged relevant to subtopic i (reads document text)."),
    "ABS-RB": ("ABS-RB(mu=2500.0,theta=0.8)@k", "Language-model divergence: the best "
               "subtopic's gain g(i, j) at each rank j, weighted by (1 - theta) theta^(j-1) "
               "(reads document text)."),
    "DELTA-NB": ("DELTA-NB(mu=2500.0)@k", "Language-model divergence: the sum over ranks 1..k "
                 "of the largest increase g(i, j) - g(i, j-1) of a subtopic's gain, at least 0 "
                 "(reads document text)."),
    "DELTA-RB": ("DELTA-RB(mu=2500.0,theta=0.8)@k", "Language-model divergence: the largest "
                 "increase of a subtopic's gain at each rank j, weighted by (1 - theta) "
                 "theta^(j-1) (reads document text)."),
}
SHARED = ("g(i, k) = max(0, 1 - KLD(q_i || R_k) / KLD(q_i || C)), with Dirichlet-smoothed "
          "unigram models of subtopic i's relevant documents (q_i), of the top k documents "
          "(R_k) and of the collection (C). These measures need the documents' text, so they "
          "are scored by `unjudged text divergence QRELS RUN... --corpus CORPUS -m NAME@k` on "
          "diversity qrels (topic subtopic docno grade), not by -m of the other commands; "
          "docs/divergence.md has every convention.")
PARAM_DOCS = {"mu": "the Dirichlet prior of every language model (> 0)",
              "theta": "the rank bias of the RB forms, in (0, 1)"}
CITATION = ("Hui, Berberich and Mele (2017), section 4 (equations 4-12; the misprinted "
            "equations 5 and 6 read as the standard Dirichlet smoothing)")


def family(name: str) -> str | None:
    """The family a name spells (any case, with or without parameters and @k), or None.

    >>> family("abs-nb"), family("DELTA-RB(theta=0.9)@20"), family("nDCG@10")
    ('ABS-NB', 'DELTA-RB', None)
    """
    base = re.split(r"[(@]", name.strip(), maxsplit=1)[0].upper()
    return base if base in FAMILIES else None


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
