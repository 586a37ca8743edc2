"""A stratified bootstrap of sampled judgments: Rao and Wu's rescaling bootstrap (JASA 1988).

Within each (topic, stratum) with n_s sampled documents out of N_s, a replicate draws n_s - 1
documents with replacement from the n_s sampled ones; a document drawn m times gets the weight

    w = 1 - lambda + lambda * m * n_s / (n_s - 1),   lambda = sqrt(1 - n_s / N_s).

The weights are >= 0 and sum to n_s; for an estimator linear in the sample they reproduce the
textbook stratified variance, finite-population correction included, so a fully judged stratum
(n_s = N_s) adds no variance. The estimators then run on the weights as they run on the sample
(weighted counts instead of counts: see measures/inferred.py), so one mechanism covers every
inferred measure. It is what iIPrec's intervals use, and the others' with method 'bootstrap';
the formulas are the default because a resampling of one or two sampled documents that agree
shows no spread, which makes the bootstrap's intervals too narrow in the top ranks (see
docs/sampled-judgments.md). A stratum with one sampled document keeps weight 1, and strata
with nothing sampled add nothing.

Replicates are a property of the sampled qrels, not of a run: every run sees the same weights
for a topic (so differences between runs are resampled jointly). Each topic's weights come from
their own random stream, derived from the seed and the topic id, so they do not depend on which
or how many topics and runs are evaluated.
"""

from __future__ import annotations

import numpy as np

from unjudged.data.sampled import SampledJudged, SampledQrels
from unjudged.errors import InvalidOptionError
from unjudged.measures import Measure
from unjudged.strategies.bootstrap import stream

_STREAM = "sampled judgments"


class Replicates:
    """Rao-Wu replicate weights of a SampledQrels' sampled documents, built per topic on demand
    and kept (b x sampled documents float32 per topic).

    Example:
        >>> from unjudged.io.sampled import read_sampled_qrels
        >>> q = read_sampled_qrels({"t": {"a": ("1", 1), "b": ("1", 0), "c": ("1", -1)}})
        >>> pos, w, counts = Replicates(q, b=4, seed=1).topic(0)
        >>> pos.tolist(), w.shape, counts.sum(axis=(1, 2)).tolist()
        ([0, 1, -1], (4, 2), [2.0, 2.0, 2.0, 2.0])
    """

    def __init__(self, qrels: SampledQrels, b: int = 1000, seed: int = 0) -> None:
        if b < 2:
            raise InvalidOptionError("a bootstrap needs at least 2 replicates")
        self.qrels, self.b, self.seed = qrels, int(b), int(seed)
        self._topics: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}

    def topic(self, q: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For qrels topic q: each of its keys' column among the sampled ones (-1: unsampled),
        the weights (b, sampled) and the weighted counts (b, strata, grades)."""
        if q not in self._topics:
            self._topics[q] = self._build(q)
        return self._topics[q]

    def _build(self, q: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        sq = self.qrels
        a, e = sq.topic_offsets[q], sq.topic_offsets[q + 1]
        grades, strata = sq.key_grades[a:e], sq.key_strata[a:e]
        chosen = np.flatnonzero(grades >= 0)
        chosen = chosen[np.argsort(strata[chosen], kind="stable")]  # sampled, by stratum
        pos = np.full(e - a, -1, dtype=np.int64)
        pos[chosen] = np.arange(chosen.size)
        n = np.bincount(strata[chosen], minlength=len(sq.strata))
        group = np.repeat(np.arange(n.size), n)
        starts = np.cumsum(n) - n
        draws = np.maximum(n - 1, 0)
        of_draw = np.repeat(np.arange(n.size), draws)
        rng = stream(self.seed, _STREAM, sq.topics[q])
        # (b, draws) indices into the sampled documents, offset by replicate so one bincount
        # counts every replicate's multiplicities (arrays updated in place: they are large)
        u = rng.random((self.b, of_draw.size), dtype=np.float32)
        u *= n[of_draw].astype(np.float32)
        picked = np.minimum(u.astype(np.int64), n[of_draw] - 1)  # float32 may round up to n
        picked += starts[of_draw]
        picked += (np.arange(self.b, dtype=np.int64) * chosen.size)[:, None]
        m = np.bincount(picked.ravel(), minlength=self.b * chosen.size)
        size = sq.stratum_sizes[q].astype(np.float64)
        lam = np.sqrt(np.clip(1.0 - np.divide(n, size, out=np.ones(n.size), where=size > 0),
                              0.0, 1.0))
        scale = np.divide(lam * n, n - 1.0, out=np.zeros(n.size), where=n > 1)
        lam = np.where(n > 1, lam, 0.0)  # a lone sampled document keeps weight 1
        w = m.reshape(self.b, chosen.size).astype(np.float32)
        w *= scale[group].astype(np.float32)
        w += (1.0 - lam[group]).astype(np.float32)
        grade = np.searchsorted(sq.grade_values, grades[chosen])
        cell = group * sq.grade_values.size + grade
        onehot = np.zeros((chosen.size, n.size * sq.grade_values.size), dtype=np.float32)
        onehot[np.arange(chosen.size), cell] = 1.0
        counts = (w @ onehot).reshape(self.b, n.size, sq.grade_values.size)
        return pos, w, counts.astype(np.float64)


_CELLS = 1 << 21  # replicate x rank cells per kernel call, bounds the kernels' temporaries


def bootstrap_values(judged: SampledJudged, replicates: Replicates,
                     measures: list[Measure]) -> np.ndarray:
    """(b, topics, measures) values of `measures` under every replicate's weights.

    Example:
        >>> from unjudged.io.sampled import read_sampled_qrels
        >>> from unjudged.io import read_run
        >>> from unjudged.data.sampled import judge_sampled
        >>> from unjudged.measures import parse_measures
        >>> q = read_sampled_qrels({"t": {"a": ("1", 1), "b": ("1", 0), "c": ("1", 1)}})
        >>> j = judge_sampled(read_run({"t": {"a": 2.0, "b": 1.0}}), q)
        >>> bootstrap_values(j, Replicates(q, b=3), parse_measures(["xinfAP"])).shape
        (3, 1, 1)
    """
    if judged.key_index is None:
        raise ValueError("the judged batch does not come from judge_sampled")
    sq = replicates.qrels
    out = np.zeros((replicates.b, len(judged.topics), len(measures)))
    step = max(1, _CELLS // max(judged.depth, 1))
    for i, topic in enumerate(judged.topics):
        q = sq.topic_index[topic]
        pos, w, counts = replicates.topic(q)
        ki = judged.key_index[i]
        col = np.where(ki >= 0, pos[np.maximum(ki - sq.topic_offsets[q], 0)], -1)
        one = judged.topic_slice(i, i + 1)
        for lo in range(0, replicates.b, step):
            hi = min(lo + step, replicates.b)
            if w.shape[1] == 0:  # nothing sampled in this topic: no document has a weight
                weight = np.zeros((hi - lo, col.size))
            else:
                weight = np.where(col >= 0, w[lo:hi, np.maximum(col, 0)], 0.0).astype(
                    np.float64)
            rep = one.with_weights(weight[:, None, :], counts[lo:hi, None])
            for c, m in enumerate(measures):
                out[lo:hi, i, c] = m.compute(rep)[:, 0]
    return out
