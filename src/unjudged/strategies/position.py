"""The position-aware prior: how likely an unjudged document is relevant, from where the runs
put it.

Pools are built from the top of the pooled runs, so the documents nobody judged are mostly
documents that no run ranked high, and they are far less often relevant than the pool's average
document. Two facts about every (topic, document) that some run retrieved say where it sits:

* ``best``: the best (smallest) rank any of the given runs gave it;
* ``votes``: how many of the runs retrieved it within their top ``VOTE_DEPTH``.

The judged documents show how the relevance rate falls with these two: a logistic model with one
intercept per topic and slopes shared by all topics, fitted on every judged document that some
run retrieved, is extrapolated to the unjudged ones (whose ranks lie below the pool's depth).
Relevant grades split as the topic's judged relevant documents do.

Two limits keep the extrapolation to what the judged documents support (measured on the text
views of benchmarks/run_level.py, where a depth-10 pool of 3 of 12 runs judges ~18 documents a
topic; docs/unjudged-documents.md):

* the topics' intercepts are drawn from one normal whose spread is estimated from the data
  (empirical Bayes): fitted alone, a topic with 1-2 relevant among its judged documents
  predicted 2-7 relevant among its unjudged retrieved ones where the full qrels have 10;
* votes count at least the VOTE_SUPPORT quantile of the judged documents' votes: judged
  documents are nearly all retrieved by most runs, so the votes slope comes from a narrow range
  (7-12 of 12 runs), and extrapolated to documents one run retrieves it predicted ~0.1% where
  2-6% are relevant.

The model sees only the runs it is given: scoring many runs together, documents that only one
run retrieved are told apart from documents that many runs agree on. With fewer than MIN_RUNS
runs there is nothing to tell them apart by, and a run's own relevance rate by depth overestimates
its unjudged documents (its judged ones are those other systems found too): the prior is then
the topic's relevance rate among its judged documents, as with the pool prior.

Example:
    >>> from unjudged.io import read_qrels, read_run
    >>> q = read_qrels({"t": {"a": 1, "b": 1, "c": 0, "d": 0}})
    >>> ranking = {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0, "x": 0.5}
    >>> runs = [read_run({"t": ranking}, name=f"r{i}") for i in range(5)]
    >>> m = PositionModel.build(runs, q)
    >>> p = m.grade_probabilities(["t", "t"], run_keys(runs[0], ["t"])[0, [0, 4]], levels=2)
    >>> bool(p[0, 1] > p[1, 1])  # the top document is likelier relevant than the one at rank 5
    True
    >>> alone = PositionModel.build(runs[:1], q)  # one run: the pool's rate, 1/2
    >>> alone.grade_probabilities(["t"], run_keys(runs[0], ["t"])[0, [4]], levels=2).round(2)
    array([[0.5, 0.5]])
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from unjudged.data._strings import index_codes
from unjudged.data.judged import _ramp
from unjudged.data.qrels import Qrels
from unjudged.data.run import Run
from unjudged.strategies.keys import combine, name_key, string_keys

VOTE_DEPTH = 100  #: a run "votes" for the documents in its top 100
#: the votes slope is extrapolated down to this quantile of the judged documents' votes only
#: (PositionModel.probabilities; the features stay as they are)
VOTE_SUPPORT = 0.01
MIN_RUNS = 5  #: with fewer runs the prior is the pool's relevance rate (see PositionModel.build)
#: documents whose best rank lies past this quantile of the judged documents' best ranks are
#: "deep": the model extrapolates there (PositionModel.deep; the bootstrap's depth shift)
BEST_SUPPORT = 0.99
_NEWTON_STEPS = 30
_MIN_TOPIC_VAR = 0.01  # the topics' intercepts' variance at least (their prior stays finite)
_RIDGE = 1.0  # a N(0, 1) prior on each slope: finite when a feature does not vary (one run:
#   votes = 1) or separates a handful of judged documents; negligible with thousands of them


def topic_keys(topics: Sequence[str]) -> np.ndarray:
    return np.array([_topic_key(t) for t in topics], dtype=np.uint64)


@lru_cache(maxsize=1 << 20)
def _topic_key(topic: str) -> np.uint64:
    # every run asks again for each batch of topics (a hash each: 25 s at 100,000 topics)
    return name_key("topic", topic)


def run_keys(run: Run, topics: Sequence[str], depth: int | None = None) -> np.ndarray:
    """(len(topics), depth) key of each ranked (topic, document) of `run`, 0 past a ranking's
    end or for topics the run lacks; `depth` defaults to the run's longest ranking."""
    width = int(run.lengths().max(initial=0)) if depth is None else depth
    out = np.zeros((len(topics), max(width, 1)), dtype=np.uint64)
    keys, topic, rank = _row_keys(run, _index(topics), topic_keys(topics), width)
    out[topic, rank] = keys
    return out


def _row_keys(run: Run, index: dict[str, int], tk: np.ndarray, depth: int | None
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(key, topic, 0-based rank) of each of `run`'s rows within `depth` whose topic is in
    `index` (topic -> its position in `tk`), vectorised over the rows."""
    lengths = run.lengths()
    row_topic = np.repeat(index_codes(index, run.topics), lengths)
    rank = _ramp(lengths)
    keep = row_topic >= 0
    if depth is not None:
        keep &= rank < depth
    topic = row_topic[keep]
    return combine(tk[topic], doc_keys(run)[keep]), topic, rank[keep]


def _sorted(keys: np.ndarray, *rest: np.ndarray) -> tuple[np.ndarray, ...]:
    """`keys` sorted, and `rest` in the same order."""
    order = np.argsort(keys)
    return (keys[order], *(r[order] for r in rest))


def doc_keys(run: Run) -> np.ndarray:
    """The 64-bit hash of each of `run`'s docnos in rank order (strategies.keys), computed
    once per run: the prior's model, each run's draws and its misfit all read them."""
    held = run.__dict__.get("_doc_keys")
    if held is None:
        held = string_keys(run.docno)
        held.setflags(write=False)
        run.__dict__["_doc_keys"] = held
    return held


def _index(topics: Sequence[str]) -> dict[str, int]:
    return {t: i for i, t in enumerate(topics)}


@dataclass(frozen=True)
class PositionModel:
    """Where each retrieved (topic, document) sits among the runs, and the fitted relevance
    model (see the module's docstring)."""

    keys: np.ndarray  # sorted unique (topic, document) keys retrieved by some run
    topic: np.ndarray  # the index in `topics` of each key's topic
    best: np.ndarray  # their best rank (1-based)
    votes: np.ndarray  # runs retrieving them within VOTE_DEPTH
    topics: list[str]
    intercept: np.ndarray  # (topics,) logit of relevance at the features' origin
    slope: np.ndarray  # (2,) on log2(best) and log2(1 + votes)
    split: np.ndarray  # (topics, levels) share of each grade among judged relevant documents
    rel_level: int
    #: too few runs (MIN_RUNS) to tell documents apart: the pool's relevance rate is used
    fallback: bool = False
    #: the fewest votes the fit has support for (VOTE_SUPPORT); fewer count as this many
    vote_floor: float = 0.0
    #: the deepest best rank the fit has support for (BEST_SUPPORT); deeper is extrapolated
    support: float = float("inf")

    @classmethod
    def build(cls, runs: Sequence[Run], qrels: Qrels, rel_level: int = 1,
              depth: int | None = None) -> PositionModel:
        """Features from `runs` (cut to `depth` if given), model fitted on `qrels`' judged
        documents that some run retrieved."""
        topics = list(qrels.topics)
        tk = topic_keys(topics)
        index = _index(topics)
        parts_k, parts_r, parts_t = [], [], []
        # vectorised over each run's rows, two runs at once (hashing mostly releases the GIL:
        # 143 TREC-COVID runs 0.65 s alone, 0.30 s in two threads), each run's rows sorted by
        # key: a stable sort of the sorted runs side by side merges them (4.3M keys: 0.2 s
        # where a sort of them all took 0.9 s)
        with ThreadPoolExecutor(max_workers=2) as pool:
            for keys, topic, rank in pool.map(lambda r: _sorted(*_row_keys(r, index, tk, depth)),
                                              runs):
                parts_k.append(keys)
                parts_r.append((rank + 1).astype(np.int32))
                parts_t.append(topic.astype(np.int32))
        keys = np.concatenate(parts_k) if parts_k else np.zeros(0, np.uint64)
        ranks = np.concatenate(parts_r) if parts_r else np.zeros(0, np.int32)
        owner = np.concatenate(parts_t) if parts_t else np.zeros(0, np.int32)
        # any order of equal keys gives the same model (a key's topic is its own, its best
        # rank a minimum and its votes a count)
        order = np.argsort(keys, kind="stable")
        keys, ranks, owner = keys[order], ranks[order], owner[order]
        first = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]]) if keys.size else \
            np.zeros(0, np.int64)
        ukeys = keys[first]
        best = np.minimum.reduceat(ranks, first) if keys.size else np.zeros(0, np.int32)
        votes = (np.add.reduceat(ranks <= VOTE_DEPTH, first, dtype=np.int32) if keys.size
                 else np.zeros(0, np.int32))
        levels = max(int(qrels.key_grades.max(initial=0)) + 1, rel_level + 1, 2)
        intercept, slope, split, floor, support = _fit(qrels, topics, tk, ukeys, best, votes,
                                                       rel_level, levels)
        fallback = len(runs) < MIN_RUNS
        if fallback:
            # too few runs to tell the documents they agree on from the rest: a run's own judged
            # documents are the ones other systems also found (pooled), so its rate by depth
            # overestimates its unjudged ones (leave-one-group-out, docs/calibration.md); use
            # the pool's rate, as the pool prior does
            intercept, slope = _pool_rate(qrels, topics, rel_level), np.zeros(2)
        return cls(ukeys, owner[first], best, votes, topics, intercept, slope, split, rel_level,
                   fallback, floor, support)

    def judged_keys(self, qrels: Qrels) -> np.ndarray:
        """Sorted keys of `qrels`' judged (grade >= 0) documents of this model's topics."""
        keys, _, _ = _judged(qrels, self.topics, topic_keys(self.topics))
        return np.sort(keys)

    def features(self, keys: np.ndarray) -> np.ndarray:
        """(cells, 2) features of documents by key; documents no run retrieved sit one past
        the deepest rank seen, with no votes."""
        return _design(*self._best_votes(keys))

    def deep(self, keys: np.ndarray) -> np.ndarray:
        """(cells,) whether each document's best rank lies past the judged documents'
        support (BEST_SUPPORT): where the model extrapolates."""
        return self._best_votes(keys)[0] > self.support

    def _best_votes(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        at = np.searchsorted(self.keys, keys)
        at = np.minimum(at, max(self.keys.size - 1, 0))
        found = (self.keys[at] == keys) if self.keys.size else np.zeros(keys.shape, bool)
        deepest = int(self.best.max(initial=0)) + 1
        best = np.where(found, self.best[at] if self.keys.size else deepest, deepest)
        votes = np.where(found, self.votes[at] if self.keys.size else 0, 0)
        return best, votes

    @cached_property
    def _topic_index(self) -> dict[str, int]:
        return _index(self.topics)

    def topic_codes(self, topics: Sequence[str]) -> np.ndarray:
        """Each topic's index in `self.topics`, -1 for topics the model does not know."""
        return index_codes(self._topic_index, topics)

    def grade_probabilities(self, topics: Sequence[str], keys: np.ndarray,
                            levels: int) -> np.ndarray:
        """(cells, levels) probability of each grade for documents `keys` of `topics`
        (one topic per cell)."""
        return self.probabilities(self.topic_codes(topics), keys, levels)

    def probabilities(self, topic_index: np.ndarray, keys: np.ndarray,
                      levels: int) -> np.ndarray:
        """grade_probabilities with topics given by index into `self.topics` (-1: unknown
        topic, which draws grade 0)."""
        x = self.features(keys)
        # the votes slope holds down to the judged documents' support only (VOTE_SUPPORT)
        x[:, 1] = np.maximum(x[:, 1], np.log2(1.0 + self.vote_floor))
        known = topic_index >= 0
        ti = np.where(known, topic_index, 0)
        eta = self.intercept[ti] + x @ self.slope if self.intercept.size else \
            np.full(keys.shape, -np.inf)
        p_rel = np.where(known, 1.0 / (1.0 + np.exp(-eta)), 0.0)
        out = np.zeros(keys.shape + (levels,))
        split = self.split[ti] if self.split.size else np.zeros(keys.shape + (levels,))
        width = min(levels, split.shape[-1])
        out[:, :width] = p_rel[:, None] * split[:, :width]
        out[:, 0] += 1.0 - p_rel
        return out


def _judged(qrels: Qrels, topics: list[str], tk: np.ndarray
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(key, topic index, grade) of every judged (grade >= 0) document of `topics`."""
    if len(qrels) == 0:
        return np.zeros(0, np.uint64), np.zeros(0, np.int64), np.zeros(0, np.int64)
    ndocs = len(qrels.docs)
    doc_hash = string_keys(qrels.docs)
    ours = qrels.topic_codes(topics)  # qrels topic code of each of our topics
    mine = np.full(len(qrels.topics), -1, dtype=np.int64)
    mine[ours[ours >= 0]] = np.flatnonzero(ours >= 0)
    t = mine[qrels.key_topic]
    g = qrels.key_grades.astype(np.int64)
    ok = (t >= 0) & (g >= 0)
    t, g = t[ok], g[ok]
    return combine(tk[t], doc_hash[qrels.keys[ok] % ndocs]), t, g


def _pool_rate(qrels: Qrels, topics: list[str], rel_level: int) -> np.ndarray:
    """(topics,) log-odds of relevance among each topic's judged documents (Laplace)."""
    _, t, g = _judged(qrels, topics, topic_keys(topics))
    rel = np.bincount(t, weights=(g >= rel_level).astype(float), minlength=len(topics))
    total = np.bincount(t, minlength=len(topics)).astype(float)
    return np.log((rel + 0.5) / (total - rel + 0.5))


def _design(best: np.ndarray, votes: np.ndarray) -> np.ndarray:
    return np.stack([np.log2(np.maximum(best, 1)), np.log2(1.0 + votes)], axis=-1)


def _fit(qrels: Qrels, topics: list[str], tk: np.ndarray, ukeys: np.ndarray, best: np.ndarray,
         votes: np.ndarray, rel_level: int, levels: int
         ) -> tuple[np.ndarray, np.ndarray, np.ndarray, float, float]:
    """Per-topic intercepts and shared slopes by Newton's method on the judged documents
    that some run retrieved; one pseudo-relevant and one pseudo-non-relevant document per
    topic at the topic's mean features (weight 1/2 each) keep every intercept finite. Also
    where the fit has support: the VOTE_SUPPORT quantile of those documents' votes (the vote
    floor) and the BEST_SUPPORT quantile of their best ranks (past it, documents are deep)."""
    if len(topics) == 0 or len(qrels) == 0:
        split = np.zeros((len(topics), levels))
        split[:, -1] = 1.0
        return np.zeros(len(topics)), np.zeros(2), split, 0.0, float("inf")
    return _fit_judged(*_judged(qrels, topics, tk), len(topics), ukeys, best, votes, rel_level,
                       levels)


def _fit_judged(k: np.ndarray, t: np.ndarray, g: np.ndarray, n_t: int, ukeys: np.ndarray,
                best: np.ndarray, votes: np.ndarray, rel_level: int, levels: int
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, float, float]:
    """_fit on the judged documents given as (key, topic index, grade) (benchmarks/
    prior_holdout.py fits it on qrels less a run's unique judgments)."""
    split = np.zeros((n_t, levels))
    split[:, -1] = 1.0
    # every topic's relevant grades counted at once (a loop over topics read every judgment
    # once per topic: quadratic, minutes at 100,000 topics)
    rel = g >= rel_level
    counts = np.bincount(t[rel] * levels + np.minimum(g[rel], levels - 1),
                         minlength=n_t * levels).reshape(n_t, levels).astype(float)
    counts[:, :rel_level] = 0.0
    counts[:, rel_level:] += 0.5 / (levels - rel_level)  # Laplace over the relevant grades
    split[:] = counts / counts.sum(axis=1, keepdims=True)
    at = np.minimum(np.searchsorted(ukeys, k), max(ukeys.size - 1, 0))
    seen = (ukeys[at] == k) if ukeys.size else np.zeros(k.shape, bool)
    t, g, at = t[seen], g[seen], at[seen]
    floor = float(np.quantile(votes[at], VOTE_SUPPORT, method="lower")) if at.size else 0.0
    support = float(np.quantile(best[at], BEST_SUPPORT, method="higher")) if at.size else \
        float("inf")
    x = _design(best[at], votes[at]) if at.size else np.zeros((0, 2))
    y = (g >= rel_level).astype(float)
    centre = x.mean(axis=0) if x.size else np.zeros(2)
    x = x - centre  # centred slopes: the intercepts stay near the topics' rates while fitting
    cnt = np.bincount(t, minlength=n_t).astype(float)
    mean_x = np.stack([np.bincount(t, weights=x[:, j], minlength=n_t) / np.maximum(cnt, 1)
                       for j in range(2)], axis=1)
    t = np.concatenate([t, np.arange(n_t), np.arange(n_t)])
    x = np.concatenate([x, mean_x, mean_x])
    y = np.concatenate([y, np.ones(n_t), np.zeros(n_t)])
    w = np.concatenate([np.ones(at.size), np.full(2 * n_t, 0.5)])
    beta, d = _newton(t, x, y, w, n_t, np.zeros(n_t + 2))
    # the topics' intercepts as draws of one normal (empirical Bayes): fitted alone, a topic's
    # intercept from its ~20 judged documents regresses to the mean on the documents it did
    # not judge (text views: topics with 1-2 judged relevant documents have 10 more among the
    # unjudged retrieved ones, the separate fits grew 2-7); its spread less the fits' own noise
    # (method of moments), then each intercept refitted with that normal as its prior
    mine = cnt > 0
    a = beta[:n_t][mine]
    if a.size:
        mu = float(a.mean())
        tau2 = max(float(a.var()) - float(np.mean(1.0 / d[mine])), _MIN_TOPIC_VAR)
        beta, _ = _newton(t, x, y, w, n_t, beta, mu, 1.0 / tau2)
    slope = beta[n_t:]
    # undo the centring: eta = a_t + (x - c) . s = (a_t - c . s) + x . s
    return beta[:n_t] - centre @ slope, slope, split, floor, support


def _newton(t: np.ndarray, x: np.ndarray, y: np.ndarray, w: np.ndarray, n_t: int,
            beta: np.ndarray, mu: float = 0.0, precision: float = 0.0
            ) -> tuple[np.ndarray, np.ndarray]:
    """(intercepts and slopes, the intercepts' Hessian diagonal) of the weighted logistic fit
    from `beta`, each intercept with a normal prior N(mu, 1 / precision) (none at 0)."""
    d: np.ndarray = np.zeros(n_t)
    for _ in range(_NEWTON_STEPS):
        p = 1.0 / (1.0 + np.exp(-(beta[t] + x @ beta[n_t:])))
        r = w * (y - p)
        v = w * p * (1.0 - p)
        grad = np.concatenate([np.bincount(t, weights=r, minlength=n_t), x.T @ r])
        grad[:n_t] -= precision * (beta[:n_t] - mu)
        grad[n_t:] -= _RIDGE * beta[n_t:]
        # the Hessian is an arrow: diagonal in the intercepts, dense only in their two
        # columns with the slopes; solved by its Schur complement in O(topics) (a dense
        # topics x topics matrix took 1.67 GB and 2 minutes at 10,000 topics)
        d = np.bincount(t, weights=v, minlength=n_t) + precision
        h_ts = np.stack([np.bincount(t, weights=v * x[:, j], minlength=n_t) for j in range(2)],
                        axis=1)
        h_ss = (x * v[:, None]).T @ x + _RIDGE * np.eye(2)
        step = _arrow_solve(d, h_ts, h_ss, grad[:n_t], grad[n_t:])
        beta = beta + step
        if np.abs(step).max() < 1e-9:
            break
    return beta, d


def _arrow_solve(d: np.ndarray, b: np.ndarray, c: np.ndarray, g1: np.ndarray, g2: np.ndarray
                 ) -> np.ndarray:
    """Solve [[diag(d), b], [b.T, c]] [x1; x2] = [g1; g2] for a positive diagonal `d` (n,),
    `b` (n, k) and `c` (k, k), through the Schur complement c - b.T diag(d)^-1 b."""
    bd = b / d[:, None]
    x2 = np.linalg.solve(c - b.T @ bd, g2 - bd.T @ g1)
    return np.concatenate([(g1 - b @ x2) / d, x2])
