"""A run's misfit: how far its unjudged documents may be more (or less) often relevant than the
prior says.

The prior gives every document one probability, whichever run retrieved it, so that runs draw
coupled grades. But runs differ: on TREC-COVID round 1 (143 runs, the complete qrels as the
truth of the documents round 1 left unjudged) the log-odds by which a run's unjudged documents
in its top 100 are more often relevant than the position prior predicts has a between-run
standard deviation of 0.65, their z-scores an sd of 4.6 where correct draws give 1. Every
interval of a run mean that draws each run from the same prior is then too narrow.

The run's judged documents show part of it: the misfit of its judged documents in its top
DEPTH, taken relative to the other pool runs' (the prior itself is biased on judged documents,
the same for every run), predicts the misfit of its unjudged ones: on round 1, against the
misfit of each run's unjudged top-10 documents that later rounds judged, correlation 0.58 and
regression slope 0.95 at DEPTH = 30 (1.32 at depth 100, where the deep judged documents damp
the run's shift; 0.73 at depth 10, where few documents make it noisy). So every run gets a
log-odds shift, drawn in every iteration from a normal:

* mean: the run's judged misfit less the pool runs' mean, shrunk by its own precision
  (tau^2 / (tau^2 + se^2): a run with few judged documents says little);
* standard deviation: sqrt(tau^2 se^2 / (tau^2 + se^2) + tau^2): the uncertainty of that
  estimate, plus tau again because the unjudged documents of a run may deviate from its
  judged ones as much as runs deviate from each other.

tau is the between-run standard deviation of the pool runs' judged misfits, their own noise
removed (DerSimonian and Laird's estimate, each run weighed by its precision), with
TAU_PRIOR_RUNS runs' worth of weight kept on DEFAULT_TAU: a dozen runs cannot tell a spread of 0
from one of 0.4; the pool's mean misfit is the random-effects mean under that tau. Without
pool runs (each run alone) nothing tells a run's misfit from the prior's, so the mean is 0 and
tau is DEFAULT_TAU.

The shift's variate is a function of the seed and the run's ranked documents only (not its
name or its companions): the same run gets the same draws in every call.

Example:
    >>> round(float(offset(np.array([1.0, 0.0]), np.array([0.5, 0.5]))[0]), 6)
    0.0
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from unjudged.strategies.keys import normals

#: the depth whose judged documents measure a run's misfit. Where a run ranks a judged
#: document deep, the document was pooled from another run's top and is about as relevant as
#: the prior says whichever run holds it: those documents tell little about this run and
#: pull its shift towards the pool's. On the run-level bench (docs/unjudged-documents.md,
#: "The misfit's depth") 30 was the one depth of 10, 30 and 100 with a run RMSE at or below
#: the former default's on every view: 10 was lower still on the old pool and the dense runs
#: but higher in leave-one-group-out, 100 higher on the old pool
DEPTH = 30
#: tau when no pool runs give it: the between-run sd of the judged misfit measured on TREC-COVID
#: round 1 (0.39) and of the unjudged one (0.65), rounded
DEFAULT_TAU = 0.5
#: fewer pool runs than this: tau and the pool's mean misfit are not estimated
MIN_RUNS = 5
#: how many runs' worth of weight DEFAULT_TAU keeps in the estimate of tau: a dozen pool runs
#: whose judged documents are the pool itself show no between-run spread (method of moments:
#: 0 on Cranfield, CISI and NPL with 12 runs) while a new kind of run (a dense retriever)
#: finds relevant unjudged documents the prior does not expect; 143 runs barely move
TAU_PRIOR_RUNS = 5
_STEPS = 50


def offset(y: np.ndarray, p: np.ndarray) -> tuple[float, float]:
    """(shift, standard error): the log-odds shift of probabilities `p` of highest likelihood
    for the 0/1 outcomes `y` (Newton's method; +-8 at most, 0 and inf for no outcome)."""
    if y.size == 0:
        return 0.0, float("inf")
    p = np.clip(p, 1e-9, 1 - 1e-9)
    eta = np.log(p) - np.log1p(-p)
    d = 0.0
    for _ in range(_STEPS):
        q = 1.0 / (1.0 + np.exp(-(eta + d)))
        h = float((q * (1 - q)).sum()) + 1e-12
        step = float((y - q).sum()) / h
        d = float(np.clip(d + step, -8.0, 8.0))
        if abs(step) < 1e-10:
            break
    q = 1.0 / (1.0 + np.exp(-(eta + d)))
    return d, 1.0 / np.sqrt(float((q * (1 - q)).sum()) + 1e-12)


@dataclass(frozen=True)
class Pool:
    """The pool runs' judged misfits: their mean and tau (see the module)."""

    centre: float = 0.0
    tau: float = DEFAULT_TAU
    runs: int = 0

    @classmethod
    def of(cls, shifts: np.ndarray, errors: np.ndarray) -> Pool:
        """DerSimonian and Laird's random-effects estimates: each run weighs by its precision,
        so that a run with a handful of judged documents (all relevant or none: a shift at
        +-8 with a standard error of 80) neither moves the centre nor, through an average of
        squared errors, cancels the spread of all the others (the unweighted moments gave
        tau = 0 on TREC-COVID round 1's 143 runs at depth 10 for one such run)."""
        ok = np.isfinite(errors) & (errors > 0)
        if ok.sum() < MIN_RUNS:
            return cls()
        s, e = shifts[ok], errors[ok]
        n = int(ok.sum())
        w = 1.0 / e ** 2
        fixed = float((w * s).sum() / w.sum())
        q = float((w * (s - fixed) ** 2).sum())
        scale = float(w.sum() - (w ** 2).sum() / w.sum())
        tau2 = max((q - (n - 1)) / scale, 0.0) if scale > 0 else 0.0
        tau2 = (n * tau2 + TAU_PRIOR_RUNS * DEFAULT_TAU ** 2) / (n + TAU_PRIOR_RUNS)
        v = 1.0 / (e ** 2 + tau2)
        return cls(float((v * s).sum() / v.sum()), float(np.sqrt(tau2)), n)


@dataclass(frozen=True)
class RunShift:
    """One run's log-odds shift: a normal of `mean` and `sd`, its variate keyed by `key`."""

    mean: float
    sd: float
    key: int

    @classmethod
    def of(cls, shift: float, error: float, pool: Pool, key: int) -> RunShift:
        tau2 = pool.tau ** 2
        if pool.runs == 0 or not np.isfinite(error):
            return cls(0.0, pool.tau, key)
        keep = tau2 / (tau2 + error ** 2) if tau2 > 0 else 0.0
        mean = keep * (shift - pool.centre)
        return cls(float(mean), float(np.sqrt(keep * error ** 2 + tau2)), key)

    def draws(self, seed: int, i0: int, i1: int) -> np.ndarray:
        """(i1 - i0,) the shift in iterations i0..i1-1."""
        if self.sd == 0.0:
            return np.full(i1 - i0, self.mean)
        z = normals(np.array([self.key], dtype=np.uint64), seed, i0, i1)[:, 0]
        return self.mean + self.sd * z


def judged_offset(grades: np.ndarray, keys: np.ndarray, topics: list[str], model,
                  rel_level: int) -> tuple[float, float]:
    """The misfit of a run's judged documents within DEPTH under `model` (a PositionModel):
    `grades` (topics, depth) as judged, `keys` their (topic, document) keys."""
    depth = min(grades.shape[-1], keys.shape[-1], DEPTH)
    g = grades[:, :depth]
    rows, cols = np.nonzero(g >= 0)
    if rows.size == 0:
        return 0.0, float("inf")
    levels = max(int(g.max(initial=0)) + 1, rel_level + 1, 2)
    codes = model.topic_codes(topics)[rows]
    known = codes >= 0
    p = model.probabilities(codes[known], keys[:, :depth][rows, cols][known], levels)
    y = (g[rows, cols][known] >= rel_level).astype(float)
    return offset(y, p[:, rel_level:].sum(axis=-1))
