"""A straightforward pure-Python reference of bootstrapped nDCG@k (seed paper 000, Fröbe et al.,
ECIR 2023, section 3.2), used by bootstrap_bench.py as a speed baseline and as an independent
check of the package's results. It shares no code with `unjudged`.

For one (run, topic) pair and each of b iterations, every unjudged document in the top k (no
judgment in the qrels; negative grades count as unjudged) draws a grade from the prior. Walking
the unjudged documents from the top, the drawn grade takes one still-available pool document of
that grade (available = the topic's judged documents that the run does not have in its top k,
minus those taken earlier in this iteration); when none of that grade is left, the highest
available lower grade; 0 as the last resort. nDCG@k uses the original pool's ideal ranking
(linear gain = grade, discount log2(rank + 1), trec_eval's ndcg_cut_k).

The loops are the paper's "tabulated" variant: the discounts, the DCG of the judged part of the
ranking and the ideal DCG are computed once per pair; each iteration only loops over the
unjudged positions. Random numbers come from Python's `random` module, so the draws are not the
package's; only the distributions should agree.
"""

from __future__ import annotations

import bisect
import lzma
import math
import os
import random
import statistics
import struct
from dataclasses import dataclass

PRIORS = ("pool", "run", "pool+run")


# ---------------------------------------------------------------------------- reading (TREC)

def _open_text(path: str) -> str:
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] == b"\xfd7zXZ\x00":
        data = lzma.decompress(data)
    return data.decode("utf-8")


def read_qrels(path: str) -> dict[str, dict[str, int]]:
    """{topic: {docno: grade}} with every line, negative grades included."""
    out: dict[str, dict[str, int]] = {}
    for line in _open_text(path).splitlines():
        f = line.split()
        if len(f) < 4 or f[0].startswith("#"):
            continue
        out.setdefault(f[0], {})[f[2]] = int(f[3])
    return out


def _f32(x: float) -> float:
    return struct.unpack("f", struct.pack("f", x))[0]


def read_run_top(path: str, k: int = 10) -> tuple[str, dict[str, list[str]]]:
    """(run tag, {topic: docnos of the top k}) in trec_eval's order: score descending (compared
    in single precision), then docno descending."""
    per_topic: dict[str, list[tuple[float, bytes, str]]] = {}
    tag = None
    for line in _open_text(path).splitlines():
        f = line.split()
        if len(f) < 6:
            continue
        if tag is None:
            tag = f[5]
        per_topic.setdefault(f[0], []).append((_f32(float(f[4])), f[2].encode("utf-8"), f[2]))
    top = {}
    for t, rows in per_topic.items():
        rows.sort(key=lambda r: (r[0], r[1]), reverse=True)
        top[t] = [r[2] for r in rows[:k]]
    return tag or os.path.basename(path), top


# ---------------------------------------------------------------------------- one pair

@dataclass
class Pair:
    """What one (run, topic) pair needs, computed once: the fixed part of nDCG@k and the
    bootstrap's inputs."""

    run: str
    topic: str
    judged_dcg: float  # DCG of the judged documents in the top k
    ideal_dcg: float  # DCG@k of the pool's ideal ranking
    unjudged_discount: list[float]  # 1/log2(rank+1) of each unjudged position, top first
    cdf: list[float]  # cumulative prior over grades 0..max
    available: list[int]  # judged pool documents per grade not in the run's top k


def prepare(run: str, topic: str, top: list[str], judgments: dict[str, int], k: int = 10,
            prior: str = "pool+run") -> Pair:
    if prior not in PRIORS:
        raise ValueError(prior)
    pool = [g for g in judgments.values() if g >= 0]
    levels = max(pool, default=0) + 1
    pool_count = [0] * levels
    for g in pool:
        pool_count[g] += 1
    run_count = [0] * levels
    judged_dcg = 0.0
    unjudged_discount = []
    for i, doc in enumerate(top[:k]):
        g = judgments.get(doc, -1)
        d = 1.0 / math.log2(i + 2)
        if g >= 0:
            run_count[g] += 1
            judged_dcg += g * d
        else:
            unjudged_discount.append(d)
    ideal = sorted(pool, reverse=True)[:k]
    ideal_dcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))

    def dist(counts: list[int]) -> list[float] | None:
        n = sum(counts)
        return [c / n for c in counts] if n else None

    p_pool = dist(pool_count) or [1.0] + [0.0] * (levels - 1)
    p_run = dist(run_count) or p_pool
    p = {"pool": p_pool, "run": p_run,
         "pool+run": [(a + b) / 2 for a, b in zip(p_pool, p_run, strict=True)]}[prior]
    cdf, acc = [], 0.0
    for x in p:
        acc += x
        cdf.append(acc)
    available = [pc - rc for pc, rc in zip(pool_count, run_count, strict=True)]
    return Pair(run, topic, judged_dcg, ideal_dcg, unjudged_discount, cdf, available)


def bootstrap(pair: Pair, b: int, rng: random.Random) -> list[float]:
    """b samples of nDCG@k, one iteration and one unjudged document at a time."""
    if pair.ideal_dcg <= 0:
        return [0.0] * b
    cdf = pair.cdf[:-1]  # u >= cdf[r-1] ... : grade r = number of cdf entries <= u
    out = []
    for _ in range(b):
        avail = list(pair.available)
        dcg = pair.judged_dcg
        for d in pair.unjudged_discount:
            want = bisect.bisect_right(cdf, rng.random())
            g = want
            while g > 0 and avail[g] <= 0:
                g -= 1
            if g > 0:
                avail[g] -= 1
                dcg += g * d
        out.append(dcg / pair.ideal_dcg)
    return out


STATS = ("mean", "std", "p5", "p95")


def summarise(samples: list[float]) -> dict[str, float]:
    """mean, std (n-1) and the 5th/95th percentiles (linear interpolation, as numpy's)."""
    q = statistics.quantiles(samples, n=20, method="inclusive")
    return {"mean": statistics.fmean(samples),
            "std": statistics.stdev(samples) if len(samples) > 1 else 0.0,
            "p5": q[0], "p95": q[-1]}


def estimate(pairs: list[Pair], b: int, seed: int = 0) -> dict[tuple[str, str], dict[str, float]]:
    """Bootstrap every pair, each with its own Random(seed, run, topic) stream."""
    out = {}
    for p in pairs:
        rng = random.Random(f"{seed}\x00{p.run}\x00{p.topic}")
        out[(p.run, p.topic)] = summarise(bootstrap(p, b, rng))
    return out
