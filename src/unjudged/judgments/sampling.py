"""Sampling designs (seed 002, sections 2, 3.1 and 5): which judgments of a complete pool to keep.

The universe is each topic's judged documents (grade >= 0); a design splits it into strata and
samples uniformly without replacement within each; the result is a `SampledQrels`. Grammar::

    DESIGN := [ "depth:" K "+" ] ( "uniform" | "strata:" W1 "," W2 ... ) [ ":" P ]

``uniform:0.2`` samples 20% of each topic (P a fraction in (0, 1] or a percentage); with
``depth:K+`` the depth-K pool of the runs is judged in full (stratum 1) and the rest sampled:
as many documents again as the depth pool holds (TREC Terabyte 2006, section 3.1), or P of the
rest. ``strata:3,1.5,1`` splits the rest into equally large strata by the documents' best rank
in the runs (never retrieved: last; ties by docno) sampled at rates in that ratio (section 5).
Per topic, rates follow the weights capped at 1 (the excess goes to the other strata), the
total is rounded half up and shared by largest remainders, and a non-empty stratum with a
positive budget gets at least one document. Randomness: one stream per (seed, trial, topic)
through numpy's SeedSequence; each document draws one uniform number (in docno order) and each
stratum keeps its smallest. Samples never depend on executors, line order or other topics, and
for a fixed (seed, trial) a smaller uniform sample lies inside a larger one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from unjudged.data.qrels import Qrels
from unjudged.data.run import Run
from unjudged.data.sampled import SampledQrels
from unjudged.errors import InvalidOptionError

#: best rank of a document that no run retrieved
NEVER = np.iinfo(np.int64).max
_NUMBER = r"(?:\d+(?:\.\d*)?|\.\d+)"
_GRAMMAR = re.compile(rf"(?:depth:(?P<depth>\d+)\+)?(?:(?P<uniform>uniform)|"
                      rf"strata:(?P<weights>{_NUMBER}(?:,{_NUMBER})*))(?::(?P<rate>{_NUMBER}%?))?")
GRAMMAR = "[depth:K+]uniform[:P] or [depth:K+]strata:W1,W2,...[:P]"


@dataclass(frozen=True)
class Design:
    """A parsed design: an optional fully judged depth-K pool, then the rest split into
    strata sampled at rates proportional to `weights`, P of it (`rate`) or, when None, as
    many documents as the depth pool holds."""

    depth: int | None
    weights: tuple[float, ...]
    rate: float | None
    text: str

    @property
    def kind(self) -> str:
        """'random', 'depth+random', 'depth+strata' or 'strata' (how reports label it)."""
        rest = "random" if len(self.weights) == 1 else "strata"
        return rest if self.depth is None else f"depth+{rest}"

    @property
    def needs_runs(self) -> bool:  # for the depth pool or the strata by best rank
        return self.depth is not None or len(self.weights) > 1

    @property
    def strata(self) -> list[str]:
        """Stratum labels: '1' the depth pool (if any), then the strata of the rest."""
        n = len(self.weights) + (self.depth is not None)
        return [str(i + 1) for i in range(n)]


def parse_design(text: str) -> Design:
    """Parse a design string (see the module docstring); ValueError naming what is wrong.

    Example:
        >>> d = parse_design("depth:10+strata:3,1.5,1")
        >>> d.depth, d.weights, d.rate, d.kind, d.strata
        (10, (3.0, 1.5, 1.0), None, 'depth+strata', ['1', '2', '3', '4'])
        >>> parse_design("uniform:20%").rate
        0.2
    """
    m = _GRAMMAR.fullmatch(text.strip().replace(" ", ""))
    if m is None:
        raise InvalidOptionError(f"{text!r} is not a design; expected {GRAMMAR} (e.g. uniform:0.2, "
                         "depth:10+uniform, depth:10+strata:3,1.5,1)")
    depth = None if m["depth"] is None else int(m["depth"])
    weights = (1.0,) if m["uniform"] else tuple(float(w) for w in m["weights"].split(","))
    raw = m["rate"] or ""
    rate = float(raw.rstrip("%")) / (100 if raw.endswith("%") else 1) if raw else None
    if depth is not None and depth < 1:
        raise InvalidOptionError(f"{text!r}: the depth must be at least 1")
    if any(w <= 0 for w in weights):
        raise InvalidOptionError(f"{text!r}: stratum weights must be positive")
    if rate is not None and not 0 < rate <= 1:
        raise InvalidOptionError(f"{text!r}: the sampled fraction must lie in (0, 1], not {raw}")
    if rate is None and depth is None:
        raise InvalidOptionError(f"{text!r}: without depth:K the sampled fraction P is needed "
                         "(e.g. uniform:0.2)")
    canonical = ("" if depth is None else f"depth:{depth}+") + (
        "uniform" if len(weights) == 1 else "strata:" + ",".join(f"{w:g}" for w in weights))
    return Design(depth, weights, rate, canonical + ("" if rate is None else f":{rate:g}"))


def judged_universe(qrels: Qrels) -> Qrels:
    """The qrels less negative grades (pooled, never judged): what a design samples from.

    Example:
        >>> from unjudged.io import read_qrels
        >>> judged_universe(read_qrels({"t": {"a": 1, "b": -1}})).to_dict()
        {'t': {'a': 1}}
    """
    return qrels.without(qrels.keys[qrels.key_grades < 0])


def best_ranks(qrels: Qrels, runs: Sequence[Run]) -> np.ndarray:
    """(keys,) the best rank at which any of `runs` retrieved each (topic, document) of
    `qrels`; NEVER for documents no run retrieved.

    Example:
        >>> from unjudged.io import read_qrels, read_run
        >>> q = read_qrels({"t": {"a": 1, "b": 0, "c": 0}})
        >>> r = read_run({"t": {"b": 3, "x": 2, "a": 1}})
        >>> best_ranks(q, [r]).tolist() == [3, 1, NEVER]
        True
    """
    from unjudged.judgments.pools import build_pool

    out = np.full(qrels.keys.size, NEVER, dtype=np.int64)
    deepest = max((int(r.lengths().max(initial=0)) for r in runs), default=0)
    if deepest == 0:
        return out
    pool = build_pool(runs, deepest)
    keys = pool.qrels_keys(qrels)
    pos = np.searchsorted(qrels.keys, keys)
    hit = (keys >= 0) & (pos < qrels.keys.size)
    hit[hit] = qrels.keys[pos[hit]] == keys[hit]
    out[pos[hit]] = pool.best_rank[hit]
    return out


def design_strata(qrels: Qrels, design: Design, best_rank: np.ndarray | None = None
                  ) -> np.ndarray:
    """(keys,) stratum code of each (topic, document): 0 the depth pool (best rank <= K), then
    the rest in equally large strata by best rank (ties: docno order).

    Example:
        >>> from unjudged.io import read_qrels
        >>> q = read_qrels({"t": {d: 0 for d in "abcde"}})
        >>> design_strata(q, parse_design("depth:1+strata:1,1"), np.array([1, 2, 5, 3, 4])
        ...               ).tolist()
        [0, 1, 2, 1, 2]
    """
    k = qrels.keys.size
    if not design.needs_runs:
        return np.zeros(k, dtype=np.int32)
    if best_rank is None or best_rank.shape != (k,):
        raise InvalidOptionError(f"design {design.text} needs each document's best rank in the "
                                 "runs")
    topic = qrels.key_topic
    top = best_rank <= design.depth if design.depth is not None else np.zeros(k, bool)
    # rest documents of a topic in (best rank, docno) order; position -> stratum (document
    # codes are positions in byte order of the docnos)
    order = np.lexsort((qrels.keys % max(len(qrels.docs), 1), best_rank, ~top, topic))
    size = np.bincount(topic[~top], minlength=len(qrels.topics))
    first = qrels.topic_offsets[1:] - size  # where a topic's rest starts, the depth pool first
    pos = np.empty(k, dtype=np.int64)
    pos[order] = np.arange(k) - first[topic[order]]
    rest = (pos * len(design.weights)) // np.maximum(size[topic], 1)
    return np.where(top, 0, rest + (design.depth is not None)).astype(np.int32)


def allocate(sizes: np.ndarray, design: Design) -> np.ndarray:
    """(topics, strata) documents to sample from each stratum of the sizes (topics, strata).

    Example:
        >>> allocate(np.array([[4, 5, 5, 5]]), parse_design("depth:1+strata:3,1.5,1")).tolist()
        [[4, 2, 1, 1]]
        >>> allocate(np.array([[3, 9]]), parse_design("depth:1+uniform")).tolist()
        [[3, 3]]
    """
    sizes = np.asarray(sizes, dtype=np.int64)
    depth = design.depth is not None
    rest = sizes[:, 1:] if depth else sizes
    total = rest.sum(axis=1)
    if design.rate is None:
        budget = np.minimum(sizes[:, 0], total)
    else:
        budget = np.minimum(np.floor(design.rate * total + 0.5).astype(np.int64), total)
    share = _water_fill(rest, np.asarray(design.weights), budget)
    counts = np.floor(share).astype(np.int64)
    short = np.clip(budget - counts.sum(axis=1), 0, rest.shape[1])
    place = np.argsort(np.argsort(-(share - counts), axis=1, kind="stable"), axis=1)
    counts += (place < short[:, None]) & (counts < rest)
    counts = np.where((rest > 0) & (budget[:, None] > 0), np.maximum(counts, 1), counts)
    return np.concatenate([sizes[:, :1], counts], axis=1) if depth else counts


def _water_fill(size: np.ndarray, weight: np.ndarray, budget: np.ndarray) -> np.ndarray:
    """Per topic, size_s min(1, c w_s) with c such that the total is the budget: rates in the
    ratio of the weights, a stratum sampled in full passing its excess on to the others."""
    full = np.zeros(size.shape, dtype=bool)
    for _ in range(size.shape[1]):  # each round fills at least one more stratum, or is final
        left = budget - (size * full).sum(axis=1)
        room = (size * weight * ~full).sum(axis=1)
        c = np.divide(left, room, out=np.zeros(left.shape), where=room > 0)
        more = ~full & (c[:, None] * weight >= 1) & (size > 0)
        full |= more
        if not more.any():
            break
    return np.where(full, size, c[:, None] * weight * size)


def draw(qrels: Qrels, key_strata: np.ndarray, counts: np.ndarray, *, seed: int = 0,
         trial: int = 0, stream: str = "design") -> np.ndarray:
    """(keys,) sampled flags: per (topic, stratum) the counts[t, s] documents with the
    smallest uniform numbers of the (seed, trial, stream, topic) random stream.

    Example:
        >>> from unjudged.io import read_qrels
        >>> q = read_qrels({"t": {d: 0 for d in "abcd"}})
        >>> int(draw(q, np.zeros(4, np.int32), np.array([[2]]), seed=3).sum())
        2
    """
    from unjudged.strategies.bootstrap import stream as random_stream

    topic = qrels.key_topic
    u = np.empty(qrels.keys.size)
    for t, name in enumerate(qrels.topics):  # keys are in (topic, docno byte order) order
        a, b = qrels.topic_offsets[t], qrels.topic_offsets[t + 1]
        u[a:b] = random_stream(seed, f"sampling {stream} trial {trial}",
                                               name).random(b - a)
    group = topic * counts.shape[1] + key_strata
    order = np.lexsort((u, group))
    start = np.searchsorted(group[order], group[order])
    rank = np.empty(u.size, dtype=np.int64)
    rank[order] = np.arange(u.size) - start
    return rank < counts.reshape(-1)[group]


def sample_qrels(qrels: Qrels, design: Design | str, runs: Sequence[Run] = (), *,
                 seed: int = 0, trial: int = 0, best_rank: np.ndarray | None = None
                 ) -> SampledQrels:
    """Sampled qrels of one trial of `design` over the judged documents of `qrels`; `runs`
    (or the precomputed `best_rank` of `judged_universe(qrels)`'s keys) give the depth pool
    and the strata.

    Example:
        >>> from unjudged.io import read_qrels, read_run
        >>> q = read_qrels({"t": {d: i % 2 for i, d in enumerate("abcdefgh")}})
        >>> r = read_run({"t": {"a": 3, "b": 2, "c": 1}})
        >>> s = sample_qrels(q, "depth:2+uniform", [r], seed=1)
        >>> s.stratum_sizes.tolist(), s.sampled_counts.tolist()
        ([[2, 6]], [[2, 2]])
    """
    design = parse_design(design) if isinstance(design, str) else design
    universe = judged_universe(qrels)
    if best_rank is None and design.needs_runs:
        if not runs:
            raise InvalidOptionError(f"design {design.text} needs runs (the depth pool and strata)")
        best_rank = best_ranks(universe, runs)
    strata = design_strata(universe, design, best_rank)
    n = len(design.strata)
    sizes = np.bincount(universe.key_topic * n + strata,
                        minlength=len(universe.topics) * n).reshape(-1, n)
    sampled = draw(universe, strata, allocate(sizes, design), seed=seed, trial=trial)
    return SampledQrels.from_qrels(universe, strata, design.strata, sampled)


def uniform_twin(qrels: Qrels, sampled: SampledQrels, *, seed: int = 0, trial: int = 0
                 ) -> SampledQrels:
    """A uniform sample of the judged documents of `qrels`, as many per topic as `sampled`
    (drawn from them) holds, in one stratum: "equally many random judgments", the paper's
    comparison for a stratified design. Its own random stream, independent of the design's.

    Example:
        >>> from unjudged.io import read_qrels, read_run
        >>> q = read_qrels({"t": {d: 0 for d in "abcdef"}})
        >>> s = sample_qrels(q, "depth:1+uniform", [read_run({"t": {"a": 1}})])
        >>> uniform_twin(q, s).sampled_counts.tolist()
        [[2]]
    """
    universe = judged_universe(qrels)
    if not np.array_equal(universe.keys, sampled.keys):
        raise InvalidOptionError("the sampled qrels were not drawn from these qrels")
    n = np.bincount(sampled.key_topic[sampled.key_grades >= 0], minlength=len(sampled.topics))
    one = np.zeros(universe.keys.size, dtype=np.int32)
    pick = draw(universe, one, n[:, None], seed=seed, trial=trial, stream="random")
    return SampledQrels.from_qrels(universe, one, ["1"], pick)
