"""The strategies that choose which documents to judge next: one registry, which the planner,
the command line, the planning experiment and the docs read.

Each strategy maps a planning context and a number k to k open candidates in priority order,
with a score per choice (what the strategy ranked by). The budget is global over topics:

* ``depth``: pool extension by rank: every document some run ranks at 8 before any ranked
  at 9 (ties: more runs, then topic and document id), as TREC-COVID's Judgment Set 1.5 did.
* ``rbp``: rank-biased pooling (Moffat, Webber and Zobel, SIGIR 2007): a document's score is
  the summed RBP weight (1 - p) p^(rank - 1) the runs give it, p = 0.8.
* ``mtf``: move-to-front pooling (Cormack, Palmer and Clarke, SIGIR 1998) per topic: the run
  that has produced the fewest non-relevant judged documents gives its next unjudged one.
* ``maxmean``: Losada, Parapar and Barreiro's MaxMean bandit (SAC 2016, IPM 2017) per topic:
  the run with the highest posterior mean relevance (rel + 1) / (judged + 2) of its ranking so
  far gives its next unjudged document.
* ``mtc``: minimal test collections (Carterette, Allan and Sitaraman, SIGIR 2006): the document
  whose judgment can change the comparisons still open (not settled by [nonrel, upper]) most.
* ``uncertainty``: the expected fall of the bootstrap's uncertainty about the ranking (or the
  pair, or the intervals), documents chosen greedily in steps (unjudged.planning.value).

The bandits split the budget evenly over topics (a topic with fewer candidates gives the rest
to the others) and, choosing several documents without their judgments, count each pending
document as relevant with the topic's rate among its judged documents. They choose one document
at a time by nature: a Python loop per chosen document, over numpy vectors of the runs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from unjudged.planning.plan import Context

Choose = Callable[["Context", int], tuple[np.ndarray, np.ndarray]]
RBP_P = 0.8  #: rbp's persistence
_STEPS = 25  #: the uncertainty planner re-evaluates the documents this many times per batch
_LAZY = 4  #: ... each time the best _LAZY x step of them by their last value


@dataclass(frozen=True)
class Strategy:
    name: str
    source: str
    description: str
    choose: Choose
    #: needs the bootstrap (slow): only the uncertainty planner
    bootstrap: bool = False


def _by_depth(ctx: Context, k: int) -> tuple[np.ndarray, np.ndarray]:
    c = ctx.open_candidates()
    best, hits = ctx.best_and_hits()
    order = np.lexsort((ctx.doc_order[c], ctx.u.topic[c], -hits[c], best[c]))
    chosen = c[order[:k]]
    return chosen, best[chosen].astype(float)


def _by_rbp(ctx: Context, k: int) -> tuple[np.ndarray, np.ndarray]:
    _, _, rank, cand = ctx.entries()
    w = np.bincount(cand, weights=(1 - RBP_P) * RBP_P ** rank.astype(float),
                    minlength=len(ctx.u))
    c = ctx.open_candidates()
    return _top(ctx, c, w[c], k)


def _by_mtc(ctx: Context, k: int) -> tuple[np.ndarray, np.ndarray]:
    from unjudged.planning.value import mtc_values

    c = ctx.open_candidates()
    total = np.zeros(c.size)
    weights = ctx.open_pairs()
    for eff in ctx.effects():
        total += mtc_values(eff, c, weights)
    return _top(ctx, c, total, k)


def _by_uncertainty(ctx: Context, k: int) -> tuple[np.ndarray, np.ndarray]:
    from unjudged.planning.value import uncertainty_values

    c = ctx.open_candidates()
    prob = ctx.prior()
    effs = ctx.effects()
    moments = [m.copy() for m in ctx.moments()]
    for e, m in zip(effs, moments, strict=True):
        m.share_of(e, c, prob)
    weights = ctx.pair_weights()

    def value(idx: np.ndarray, update: bool = False) -> np.ndarray:
        return sum((uncertainty_values(e, idx, prob, m, weights, update)
                    for e, m in zip(effs, moments, strict=True)), np.zeros(idx.size))

    stale = value(c)
    left = np.ones(c.size, dtype=bool)
    chosen: list[np.ndarray] = []
    scores: list[np.ndarray] = []
    step = max(1, -(-k // _STEPS))
    taken = 0
    while taken < k and left.any():
        s = min(step, k - taken)
        idx = np.flatnonzero(left)
        look = idx[_first(ctx, c[idx], -stale[idx], _LAZY * s)]
        if taken:
            stale[look] = value(c[look])
        pick = look[_first(ctx, c[look], -stale[look], s)]
        if stale[pick].max(initial=0.0) <= 0.0:
            break  # nothing left moves the objective: the rest by likely relevance
        value(c[pick], update=True)
        chosen.append(c[pick])
        scores.append(stale[pick])
        left[pick] = False
        taken += pick.size
    done = np.concatenate(chosen) if chosen else np.zeros(0, np.int64)
    vals = np.concatenate(scores) if scores else np.zeros(0)
    if taken < k:
        rest = c[left]
        p_rel = ctx.p_relevant()
        more = rest[_first(ctx, rest, -p_rel[rest], k - taken)]
        done = np.concatenate([done, more])
        vals = np.concatenate([vals, np.zeros(more.size)])
    return done, vals


def _order(ctx: Context, c: np.ndarray, key: np.ndarray) -> np.ndarray:
    """Stable order of candidates `c` by `key`, ties by best rank, topic and document id."""
    best, _ = ctx.best_and_hits()
    return np.lexsort((ctx.doc_order[c], ctx.u.topic[c], best[c], key))


def _first(ctx: Context, c: np.ndarray, key: np.ndarray, n: int) -> np.ndarray:
    """_order(ctx, c, key)[:n] without ordering all of `c`: only the candidates whose key is
    at most the n-th smallest (ties at it included, so the tie-breaks are the same) are
    ordered. The uncertainty planner asks for its next few dozen among 462,711 candidates 50
    times (TREC-COVID round 1, 1,000 documents: 6.4 s of 20 s in the full orders)."""
    if n <= 0:
        return np.zeros(0, dtype=np.intp)
    if n >= c.size:
        return _order(ctx, c, key)[:n]
    kth = np.partition(key, n - 1)[n - 1]
    if np.isnan(kth):  # NaN keys order last: the few before them, in full
        return _order(ctx, c, key)[:n]
    sub = np.flatnonzero(key <= kth)
    return sub[_order(ctx, c[sub], key[sub])[:n]]


def _top(ctx: Context, c: np.ndarray, value: np.ndarray, k: int
         ) -> tuple[np.ndarray, np.ndarray]:
    order = _first(ctx, c, -value, k)
    return c[order], value[order]


def _bandit(rule: str) -> Choose:
    def choose(ctx: Context, k: int) -> tuple[np.ndarray, np.ndarray]:
        return _bandits(ctx, k, rule)
    return choose


def _bandits(ctx: Context, k: int, rule: str) -> tuple[np.ndarray, np.ndarray]:
    """The per-topic bandit `rule` (mtf or maxmean), picks interleaved over topics."""
    u = ctx.u
    runs = ctx.focus
    open_now = ctx.open_candidates()
    per_topic = np.bincount(u.topic[open_now], minlength=len(u.topics))
    quota = split_budget(per_topic, k)
    rate = ctx.topic_rate()
    picks: list[tuple[int, int, int]] = []  # (pick number, topic, candidate)
    taken = np.zeros(len(u), dtype=bool)
    for t in np.flatnonzero(quota):
        for i, cand in enumerate(_topic_bandit(ctx, int(t), runs, int(quota[t]), rule,
                                               float(rate[t]), taken)):
            picks.append((i, int(t), cand))
    picks.sort()
    chosen = np.array([p[2] for p in picks], dtype=np.int64)
    return chosen, np.array([p[0] + 1 for p in picks], dtype=float)


def _topic_bandit(ctx: Context, t: int, runs: np.ndarray, quota: int, rule: str, rate: float,
                  taken: np.ndarray) -> list[int]:
    u = ctx.u
    at = u.at[runs, t]  # (runs, depth)
    grades = np.stack([_pad(u.judged[r].grades[t], at.shape[1]) for r in runs])
    level = u.policies.rel_level
    judged_cum = np.cumsum(grades >= 0, axis=1)
    rel_cum = np.cumsum(grades >= level, axis=1)
    live = (at >= 0) & u.open[np.maximum(at, 0)]
    front = np.array([_next(live[i], 0, at[i], taken) for i in range(runs.size)])
    pend = np.zeros(runs.size)
    pend_rel = np.zeros(runs.size)
    out: list[int] = []
    width = at.shape[1]
    while len(out) < quota:
        ok = front < width
        if not ok.any():
            break
        f = np.minimum(front, width - 1)
        before = np.maximum(f - 1, 0)
        n = np.where(f > 0, judged_cum[np.arange(runs.size), before], 0) + pend
        rel = np.where(f > 0, rel_cum[np.arange(runs.size), before], 0) + pend_rel
        # mtf: fewest non-relevant documents produced, then most relevant ones
        score = (rel + 1.0) / (n + 2.0) if rule == "maxmean" else -(n - rel) + 1e-6 * rel
        score = np.where(ok, score, -np.inf)
        i = int(np.argmax(score))  # ties: the first run given
        cand = int(at[i, front[i]])
        out.append(cand)
        taken[cand] = True
        pend[i] += 1
        pend_rel[i] += rate
        for j in range(runs.size):  # the document leaves every run's frontier
            if front[j] < width and at[j, front[j]] == cand:
                front[j] = _next(live[j], front[j] + 1, at[j], taken)
    return out


def _pad(g: np.ndarray, width: int) -> np.ndarray:
    return g if g.size >= width else np.concatenate([g, np.full(width - g.size, -3, g.dtype)])


def _next(live: np.ndarray, start: int, at: np.ndarray, taken: np.ndarray) -> int:
    """The first position >= start holding an open candidate not yet chosen."""
    rest = np.flatnonzero(live[start:] & ~taken[np.maximum(at[start:], 0)])
    return start + int(rest[0]) if rest.size else live.size


def split_budget(sizes: np.ndarray, k: int) -> np.ndarray:
    """k split evenly over topics with candidates (the first topics take the remainder); a
    topic with fewer candidates than its share gives the rest to the others.

    Example:
        >>> split_budget(np.array([1, 10, 10, 0]), 9).tolist()
        [1, 4, 4, 0]
    """
    quota = np.zeros(sizes.size, dtype=np.int64)
    left = min(int(k), int(sizes.sum()))
    while left > 0:
        room = np.flatnonzero(quota < sizes)
        share, extra = divmod(left, room.size)
        add = np.full(room.size, share)
        add[:extra] += 1
        add = np.minimum(add, sizes[room] - quota[room])
        quota[room] += add
        left -= int(add.sum())
    return quota


STRATEGIES: dict[str, Strategy] = {s.name: s for s in [
    Strategy("depth", "TREC-COVID Judgment Set 1.5 (Voorhees 2020, seed 003)",
             "pool extension by rank: every document at the next rank of some run first",
             _by_depth),
    Strategy("rbp", "Moffat, Webber and Zobel, SIGIR 2007",
             f"rank-biased pooling: summed RBP weight (p = {RBP_P}) over the runs", _by_rbp),
    Strategy("mtf", "Cormack, Palmer and Clarke, SIGIR 1998",
             "move-to-front pooling per topic: the run with the fewest non-relevant documents",
             _bandit("mtf")),
    Strategy("maxmean", "Losada, Parapar and Barreiro, SAC 2016 / IPM 2017",
             "MaxMean bandit per topic: the run with the highest posterior mean relevance",
             _bandit("maxmean")),
    Strategy("mtc", "Carterette, Allan and Sitaraman, SIGIR 2006",
             "minimal test collections: the largest change of the comparisons still open",
             _by_mtc),
    Strategy("uncertainty", "unjudged (docs/planning.md)",
             "expected fall of the bootstrap's uncertainty about the ranking, pair or intervals",
             _by_uncertainty, bootstrap=True),
]}
