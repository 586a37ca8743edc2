"""The estimates prior: each unjudged document draws from a distribution made elsewhere (an LLM
judge, a cross-encoder, autoqrels; read by unjudged.io.estimates), blended with the topic's.

A document with an estimate draws from ``trust * external + (1 - trust) * topic``, one without
from the topic prior (the grade distribution of the topic's judged documents, as the pool
prior). A probability of relevance (the `topic docno p` layout) is spread over the relevant
grades as the topic's judged relevant documents are (as the position prior does). ``trust`` is
fitted, unless given, on the user's own judgments: the judged documents
that have an estimate show how well the estimates predict their grades, and the trust is the
blend weight of highest likelihood for those grades (0 when the estimates say nothing the topic
prior does not, near 1 when they are sharp and right). The fit is reported
(`ExternalPrior.fit`): documents compared, log loss of the estimates, of the topic prior and of
the blend.

The prior depends on the document only (not on the run), so draws stay coupled across runs and
normalisers can grow, as with the position prior. It extends the position prior's model of the
runs (which documents they retrieve, for the grown normalisers) with the estimates.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from unjudged.data.judged import Pool
from unjudged.data.qrels import Qrels
from unjudged.errors import InvalidOptionError
from unjudged.io.estimates import ExternalEstimates
from unjudged.strategies.bootstrap import pool_prior
from unjudged.strategies.keys import combine, string_keys
from unjudged.strategies.position import PositionModel, _judged, topic_keys

_EPS = 1e-9  # a grade the blend gives probability 0 still costs a finite log loss


@dataclass(frozen=True)
class ExternalPrior(PositionModel):
    """A PositionModel whose probabilities come from external estimates (see the module)."""

    ext_keys: np.ndarray = field(default_factory=lambda: np.zeros(0, np.uint64))
    ext_dist: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    topic_prior: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    trust: float = 1.0
    fit: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, model: PositionModel, estimates: ExternalEstimates, qrels: Qrels,
           levels: int, trust: float | None = None) -> ExternalPrior:
        """The estimates prior over `model`'s topics; `trust` in [0, 1], or None to fit it on
        the judged documents of `qrels` that have an estimate."""
        if trust is not None and not 0.0 <= trust <= 1.0:
            raise InvalidOptionError(f"trust must lie in [0, 1], not {trust}")
        topics = model.topics
        index = {t: i for i, t in enumerate(topics)}
        tix = np.array([index.get(str(t), -1) for t in estimates.topic.to_pylist()],
                       dtype=np.int64)
        known = tix >= 0
        tk = topic_keys(topics)
        keys = combine(tk[np.maximum(tix, 0)], string_keys(estimates.docno))[known]
        dist = estimates.dist[known]
        if estimates.relevance_only:  # p of relevance: over the grades as the topic's are
            split = _levels(model.split, levels)[tix[known]]
            dist = np.concatenate([dist[:, :1], np.zeros((dist.shape[0], levels - 1))], axis=1)
            dist += estimates.dist[known][:, 1:2] * split
        dist = _levels(dist, levels)
        order = np.argsort(keys)
        keys, dist = keys[order], dist[order]
        prior = pool_prior(Pool.build(qrels, topics, "unjudged"), levels)  # the topic prior
        jk, jt, jg = _judged(qrels, topics, tk)
        at = np.minimum(np.searchsorted(keys, jk), max(keys.size - 1, 0))
        hit = (keys[at] == jk) if keys.size else np.zeros(jk.shape, bool)
        ext = dist[at[hit]][np.arange(int(hit.sum())), np.minimum(jg[hit], levels - 1)]
        top = prior[jt[hit], np.minimum(jg[hit], levels - 1)]
        w = _best_trust(ext, top) if trust is None else float(trust)
        report = {"estimates": len(estimates), "other_topics": int((~known).sum()),
                  "judged_compared": int(hit.sum()), "trust": w, "fitted": trust is None,
                  "log_loss_estimates": _loss(ext), "log_loss_topic": _loss(top),
                  "log_loss_blend": _loss(w * ext + (1 - w) * top)}
        base = {f.name: getattr(model, f.name) for f in fields(PositionModel)}
        return cls(**base, ext_keys=keys, ext_dist=dist, topic_prior=prior, trust=w,
                   fit=report)

    def probabilities(self, topic_index: np.ndarray, keys: np.ndarray,
                      levels: int) -> np.ndarray:
        """(cells, levels): the blend for documents with an estimate, the topic prior for the
        others, grade 0 for topics the model does not know."""
        known = topic_index >= 0
        ti = np.where(known, topic_index, 0)
        width = self.topic_prior.shape[1]
        out = np.zeros(keys.shape + (max(levels, width),))
        if self.topic_prior.size:
            out[:, :width] = self.topic_prior[ti]
        at = np.minimum(np.searchsorted(self.ext_keys, keys), max(self.ext_keys.size - 1, 0))
        hit = (self.ext_keys[at] == keys) & known if self.ext_keys.size else \
            np.zeros(keys.shape, bool)
        out[hit, :width] = self.trust * self.ext_dist[at[hit]] + \
            (1 - self.trust) * out[hit, :width]
        out[~known] = 0.0
        out[~known, 0] = 1.0
        return _levels(out, levels)


def _levels(dist: np.ndarray, levels: int) -> np.ndarray:
    """`dist` with exactly `levels` columns: grades above the top one count as the top one."""
    if dist.shape[1] == levels:
        return dist
    if dist.shape[1] < levels:
        return np.pad(dist, ((0, 0), (0, levels - dist.shape[1])))
    out = dist[:, :levels].copy()
    out[:, -1] += dist[:, levels:].sum(axis=1)
    return out


def _loss(p: np.ndarray) -> float:
    """Mean log loss (nats) of probabilities given to the observed grades; NaN for none."""
    if not p.size:
        return float("nan")
    # at least 0: probabilities summed to a hair above 1 gave -0.0000 in the note
    return max(0.0, float(-np.mean(np.log(np.clip(p, _EPS, 1.0)))))


def _best_trust(ext: np.ndarray, top: np.ndarray) -> float:
    """The blend weight in [0, 1] of highest likelihood of the observed grades (0 with no
    judged document to learn from: the topic prior alone)."""
    if ext.size == 0:
        return 0.0
    from scipy.optimize import minimize_scalar

    res = minimize_scalar(lambda w: _loss(w * ext + (1 - w) * top), bounds=(0.0, 1.0),
                          method="bounded", options={"xatol": 1e-4})
    return float(res.x)
