"""One run scored as sample_eval.pl scores it, in its order of operations (so that every sum
rounds as the program's does and the printed digits agree byte for byte)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from unjudged.sample_eval._lineage import Lineage
from unjudged.sample_eval._perl import fields, number, records, strip_zeros
from unjudged.sample_eval._qrels import Topic

# sample_eval's smoothing of the precision above a rank: (r + 1e-5) / (n + 3e-5)
_EPS_REL, _EPS_SAMPLED = 0.00001, 0.00003


@dataclass
class TopicScore:
    """What sample_eval prints for one topic, plus the estimated relevant count at each rank
    (its interpolated precision walks them)."""

    topic: str
    inf_ap: float
    inf_ndcg: float
    precision: dict[int, float]
    num_rel_ret: float
    num_rel: float
    num_ret: int
    ranked: int
    rel_at_rank: list[float]


def read_run(data: bytes, lineage: Lineage) -> tuple[dict[str, dict[str, str]], dict[str, int]]:
    """{topic: {docno: score string}} and the lines per topic, as sample_eval keeps them: a
    repeated docno keeps its last score but every line counts in num_ret.

    >>> from unjudged.sample_eval._lineage import LINEAGES
    >>> read_run(b"01 Q0 a 1 2.0 r\\n01 Q0 a 2 1.0 r\\n", LINEAGES["trec"])
    ({'1': {'a': '1.0'}}, {'1': 2})
    """
    run: dict[str, dict[str, str]] = {}
    lines: dict[str, int] = {}
    for topic, _, docno, _, score, _ in records(fields(data), 6):
        if lineage.strip_zeros:
            topic = strip_zeros(topic)
        run.setdefault(topic, {})[docno] = score
        lines[topic] = lines.get(topic, 0) + 1
    return run, lines


def ranking(docs: dict[str, str]) -> list[str]:
    """Score descending compared as numbers (double precision), then docno descending by bytes.

    >>> ranking({"a": "1", "b": "1.0", "c": "2e0", "d": "0.5"})
    ['c', 'b', 'a', 'd']
    """
    return sorted(docs, key=lambda d: (number(docs[d]), d), reverse=True)


def score_topic(topic: str, q: Topic, docs: dict[str, str], num_ret: int, *,
                lineage: Lineage, max_result_size: int, cutoffs: tuple[int, ...],
                ideal: float, num_rel: float) -> TopicScore:
    """sample_eval's infAP, infNDCG, iP and inum_rel_ret of one topic."""
    strata = q.strata()
    seen = dict.fromkeys(strata, 0)      # num_docs: universe documents so far, per stratum
    sampled = dict.fromkeys(strata, 0)   # num_sampled
    relevant = dict.fromkeys(strata, 0)  # num_relevant
    gain = dict.fromkeys(strata, 0.0)
    sap = dict.fromkeys(strata, 0.0)
    depth = 0                            # num_depth100: universe documents so far
    precision: dict[int, float] = {}
    rel_at_rank: list[float] = []
    rank = 0
    for docno in ranking(docs):
        rank += 1
        in_universe = docno in q.grade
        grade = number(q.grade[docno]) if in_universe else -1.0
        stratum = q.stratum[docno] if in_universe else ""
        if grade > 0:
            above = 0.0
            for s in strata:
                if depth != 0:
                    p = seen[s] / depth
                    if p != 0:
                        above += p * (relevant[s] + _EPS_REL) / (sampled[s] + _EPS_SAMPLED)
            sap[stratum] += 1 / rank + (depth / rank) * above
            relevant[stratum] += 1
            gain[stratum] += grade / (math.log(rank + 1) / math.log(2))
        if in_universe:
            depth += 1
            seen[stratum] += 1
            if grade >= 0:
                sampled[stratum] += 1
        at_rank = 0.0
        for s in strata:
            at_rank += seen[s] * (relevant[s] + _EPS_REL) / (sampled[s] + _EPS_SAMPLED)
        rel_at_rank.append(at_rank)
        for c in cutoffs:
            if rank == c:
                precision[c] = at_rank / c
        if rank >= max_result_size:
            break
    num_rel_ret = rel_at_rank[-1] if rel_at_rank else 0.0
    for c in cutoffs:
        precision.setdefault(c, num_rel_ret / c)

    ap = 0.0
    for s in strata:
        if q.sampled.get(s, 0) != 0 and num_rel != 0:
            share = q.relevant.get(s, 0) * q.size[s] / q.sampled[s] / num_rel
            within = sap[s] / q.relevant[s] if q.relevant.get(s, 0) != 0 else 0.0
            ap += share * within
    if lineage.rescale_ap and num_rel > max_result_size:
        ap = ap * num_rel / max_result_size

    dcg = 0.0
    for s in strata:
        if depth != 0 and sampled[s] != 0:
            dcg += seen[s] / depth * gain[s] / sampled[s]
    ndcg = depth * dcg / ideal if ideal != 0 else 0.0
    return TopicScore(topic, ap, ndcg, precision, num_rel_ret, num_rel, num_ret, rank,
                      rel_at_rank)


def interpolated(scores: list[TopicScore]) -> list[float]:
    """The eleven iprec@rec sums over topics (topics in byte order, as the program adds them).

    Going up the ranking, the next recall level down is passed at the first rank whose
    estimated relevant count falls below level x R, one level per rank, and gets the highest
    precision at or below that rank; the levels left at the top get the highest of all.
    """
    levels = ["0", ".1", ".2", ".3", ".4", ".5", ".6", ".7", ".8", ".9", "1"]
    sums = [0.0] * 11
    for t in sorted(scores, key=lambda t: t.topic):
        cuts = [float(x) * t.num_rel for x in levels]
        best = 0.0
        cut = 10
        while cut >= 0 and cuts[cut] > t.num_rel_ret:
            cut -= 1
        for rank in range(len(t.rel_at_rank), 0, -1):
            prec = t.rel_at_rank[rank - 1] / rank
            if best < prec:
                best = prec
            if cut >= 0 and cuts[cut] > t.rel_at_rank[rank - 1]:
                sums[cut] += best
                cut -= 1
        while cut >= 0:
            sums[cut] += best
            cut -= 1
    return sums
