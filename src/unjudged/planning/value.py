"""The worth of judging a document: for minimal test collections, how much it can move the
comparisons still open; for the uncertainty planner, how much it is expected to reduce the
bootstrap's uncertainty about them.

The uncertainty planner's preposterior analysis, per measure. Under the bootstrap's coupled draws,
the difference of runs A and B has mean mu and variance s^2 (`PairMoments`). Judging document d
reveals its grade g, which under the prior has probability p_g; it moves the difference by
delta_g = Delta_g - sum_h p_h Delta_h (Delta_g: A's effect minus B's, unjudged.planning.effects)
and removes the variance v = sum_g p_g delta_g^2 that d contributed. Treating the difference as
the sum of d's move and an independent normal rest N(mu, s^2 - v), P(A > B) is the mixture
P = sum_g p_g P_g before, P_g = Phi((mu + delta_g) / sqrt(s^2 - v)), and P_g after. The
uncertainty about the pair's order is the binary entropy H(P); judging d is expected to leave
sum_g p_g H(P_g), never more than H(P) (H is concave), so the difference is the information d
gives about the order, in bits. (min(P, 1 - P), the chance of ordering the pair wrongly, is
piecewise linear: a document would be worth nothing unless it could flip the likelier order
on its own, and small documents that together settle a pair would never be chosen.)

A document's value is that information summed over all pairs of runs (the ranking), for one
pair, or, for the intervals, the fall of the runs' standard deviations sum_A (s_A -
sqrt(s_A^2 - v_A)).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr

from unjudged.planning.effects import Effects

_TINY = 1e-12
_CELLS = 1 << 20  # (entries x runs x levels) floats per chunk: its temporaries stay small


@dataclass
class PairMoments:
    """Mean and variance of every run and every pair difference under the coupled draws of one
    measure; the variances shrink as documents are chosen (the greedy batch).

    `run_share` and `pair_share` turn a document's own variance (its v) into the share of the
    bootstrap's variance it accounts for: the bootstrap's variance divided by the sum of v over
    all open documents (at most 1). The draws are not independent sums of documents (the pool
    caps what normalised measures draw; grown normalisers couple documents): without the
    shares, a handful of documents would appear to remove all of a pair's variance.
    """

    mean: np.ndarray  # (runs,)
    run_var: np.ndarray  # (runs,)
    pair_var: np.ndarray  # (runs, runs), var(A - B)
    run_share: np.ndarray | None = None
    pair_share: np.ndarray | None = None

    @classmethod
    def of(cls, draws: np.ndarray) -> PairMoments:
        """From (b, runs) run-level draws (NaN draws count as 0: a run without the measure)."""
        x = np.nan_to_num(np.asarray(draws, dtype=float))
        mean = x.mean(axis=0)
        c = x - mean
        cov = c.T @ c / max(x.shape[0], 1)
        d = np.diag(cov)
        return cls(mean, d.copy(), np.maximum(d[:, None] + d[None, :] - 2 * cov, 0.0))

    def copy(self) -> PairMoments:
        return PairMoments(self.mean, self.run_var.copy(), self.pair_var.copy(),
                           self.run_share, self.pair_share)

    def share_of(self, eff: Effects, cands: np.ndarray, prob: np.ndarray) -> None:
        """Set the shares from the documents `cands` (all open candidates)."""
        runs = self.mean.size
        cands = cands[_ranked(eff, cands)]  # the others move no run
        lin_run = np.zeros(runs)
        lin_pair = np.zeros((runs, runs))
        for start, stop, dense, er, ea, member, sel in _chunks(eff, cands, runs):
            p = prob[cands[start:stop]][er]
            np.add.at(lin_run, ea, _own_variance(eff.delta[sel], p))
            _, v, half = _pair_terms(dense, er, ea, member, p)
            np.add.at(lin_pair, ea, v * half)
        lin_pair += lin_pair.T
        self.run_share = _ratio(self.run_var, lin_run)
        self.pair_share = _ratio(self.pair_var, lin_pair)


def _ratio(var: np.ndarray, linear: np.ndarray) -> np.ndarray:
    return np.where(linear > _TINY, np.minimum(var / np.maximum(linear, _TINY), 1.0), 1.0)


def _own_variance(e: np.ndarray, p: np.ndarray) -> np.ndarray:
    """sum_g p_g (e_g - sum_h p_h e_h)^2 over the last axis."""
    delta = e - (p * e).sum(axis=-1, keepdims=True)
    return (p * delta ** 2).sum(axis=-1)


def _pair_terms(dense: np.ndarray, er: np.ndarray, ea: np.ndarray, member: np.ndarray,
                p: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per entry (document d, run A) and run B: the moves delta_g of A - B (entries, runs,
    levels), their variance v (entries, runs), and 1/2 where B ranks d too (the pair is then
    seen from both runs' entries), else 1."""
    big = dense[er, ea][:, None, :] - dense[er]
    delta = big - (p[:, None, :] * big).sum(axis=2, keepdims=True)
    v = (p[:, None, :] * delta ** 2).sum(axis=2)
    return delta, v, np.where(member[er], 0.5, 1.0)


def entropy(p: np.ndarray) -> np.ndarray:
    """Binary entropy in bits of the order of a pair that one run wins with probability p."""
    q = np.clip(p, 1e-300, 1.0)
    r = np.clip(1.0 - p, 1e-300, 1.0)
    return -(p * np.log2(q) + (1.0 - p) * np.log2(r))


def above(x: np.ndarray, var: np.ndarray) -> np.ndarray:
    """P(X > 0) for X normal with mean x and variance var (a point mass where var is 0: 1
    above 0, 0 below, 1/2 at 0)."""
    s = np.sqrt(np.maximum(var, 0.0))
    point = (x > 0) + 0.5 * (x == 0)
    return np.where(s > _TINY, ndtr(x / np.maximum(s, _TINY)), point)


def _ranked(eff: Effects, cands: np.ndarray) -> np.ndarray:
    """Which of `cands` some run ranks within the measure's depth (has effects): the others
    are worth nothing to judge under it. Of TREC-COVID round 1's 462,711 candidates, nDCG@10
    has effects of 9,268; the chunks built rows of zeros for all of them."""
    if not eff.candidate.size:
        return np.zeros(cands.size, dtype=bool)
    seen = np.zeros(int(max(cands.max(initial=-1), eff.candidate.max())) + 1, dtype=bool)
    seen[eff.candidate] = True
    return seen[cands]


def _only_ranked(fn):
    """Run a per-candidate value on the candidates with effects only; the others get 0."""
    @functools.wraps(fn)
    def wrapped(eff: Effects, cands: np.ndarray, *args, **kwargs) -> np.ndarray:
        has = _ranked(eff, cands)
        if has.all():
            return fn(eff, cands, *args, **kwargs)
        out = np.zeros(cands.size)
        out[has] = fn(eff, cands[has], *args, **kwargs)
        return out
    return wrapped


def _chunks(eff: Effects, cands: np.ndarray, runs: int):
    """Per chunk cands[start:stop]: (start, stop, dense, er, ea, member, sel): the effects of
    the chunk's candidates on every run (dense, (rows, runs, levels)), and the chunk's entries
    (their row in the chunk, run, membership of (row, run), index into `eff`)."""
    row_of = np.full(int(max(cands.max(initial=-1), eff.candidate.max(initial=-1))) + 1, -1,
                     dtype=np.int64)
    levels = eff.delta.shape[1]
    counts = np.bincount(eff.candidate, minlength=row_of.size)[cands] if eff.candidate.size \
        else np.zeros(cands.size, np.int64)
    # as many candidates per chunk as keep (entries x runs x levels) under _CELLS; a candidate
    # without entries (ranked below the measure's depth) still takes a row of `dense`
    total = np.cumsum(np.maximum(counts, 1)) * (runs * levels)
    start = 0
    while start < cands.size:
        done = int(total[start - 1]) if start else 0
        stop = start + max(1, int(np.searchsorted(total[start:], done + _CELLS,
                                                  side="right")))
        rows = cands[start:stop]
        row_of[rows] = np.arange(rows.size)
        sel = np.flatnonzero(row_of[eff.candidate] >= 0)
        er, ea = row_of[eff.candidate[sel]], eff.run[sel]
        dense = np.zeros((rows.size, runs, levels))
        dense[er, ea] = eff.delta[sel]
        member = np.zeros((rows.size, runs), dtype=bool)
        member[er, ea] = True
        yield start, stop, dense, er, ea, member, sel
        row_of[rows] = -1
        start = stop


@_only_ranked
def uncertainty_values(eff: Effects, cands: np.ndarray, prob: np.ndarray,
                       moments: PairMoments, weights: np.ndarray | None,
                       update: bool = False) -> np.ndarray:
    """Expected fall of the weighted pairs' ambiguity (or, with `weights` None, of the summed
    run interval widths, in sd units) when each of `cands` is judged; `prob` (all candidates,
    levels) the prior; `moments` with their shares set. With `update`, `cands` are taken as
    chosen: their variance leaves `moments`."""
    assert moments.run_share is not None and moments.pair_share is not None  # share_of
    runs = moments.mean.size
    out = np.zeros(cands.size)
    for start, stop, dense, er, ea, member, sel in _chunks(eff, cands, runs):
        p = prob[cands[start:stop]][er]  # (entries, levels)
        if weights is None:
            v = _own_variance(eff.delta[sel], p) * moments.run_share[ea]
            var = moments.run_var[ea]
            gain = np.sqrt(np.maximum(var, 0)) - np.sqrt(np.maximum(var - v, 0))
            if update:
                np.subtract.at(moments.run_var, ea, v)
        else:
            delta, v, half = _pair_terms(dense, er, ea, member, p)
            v *= moments.pair_share[ea]
            mu = moments.mean[ea][:, None] - moments.mean[None, :]
            var = moments.pair_var[ea]
            w = weights[ea] * half
            # the difference is d's move plus an independent normal rest: P(A > B) before is
            # the mixture's, after it is one component's (so the gain is never negative)
            pg = above(mu[..., None] + delta, np.maximum(var - v, 0.0)[..., None])
            before = (p[:, None, :] * pg).sum(axis=2)
            after = (p[:, None, :] * entropy(pg)).sum(axis=2)
            gain = (w * np.maximum(entropy(before) - after, 0.0)).sum(axis=1)
            if update:
                shrink = np.where(w > 0, v * half, 0.0)
                np.subtract.at(moments.pair_var, ea, shrink)
                np.subtract.at(moments.pair_var.T, ea, shrink)
                np.maximum(moments.pair_var, 0.0, out=moments.pair_var)
        out[start:stop] = np.bincount(er, weights=gain, minlength=stop - start)
    return out


@_only_ranked
def mtc_values(eff: Effects, cands: np.ndarray, weights: np.ndarray | None) -> np.ndarray:
    """Minimal test collections' weight of each of `cands`: the summed |change| of the
    weighted pair differences (or, with `weights` None, of the run means) if the document
    turned out of the top grade rather than 0."""
    runs = int(eff.run.max(initial=-1)) + 1 if weights is None else weights.shape[0]
    out = np.zeros(cands.size)
    for start, stop, dense, er, ea, member, _ in _chunks(eff, cands, runs):
        n = stop - start
        flip = dense[..., -1] - dense[..., 0]  # (rows, runs)
        if weights is None:
            part = np.bincount(er, weights=np.abs(flip[er, ea]), minlength=n)
        else:
            w = weights[ea] * np.where(member[er], 0.5, 1.0)
            diff = np.abs(flip[er, ea][:, None] - flip[er])
            part = np.bincount(er, weights=(w * diff).sum(axis=1), minlength=n)
        out[start:stop] = part
    return out

