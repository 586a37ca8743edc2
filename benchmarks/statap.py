"""statAP and statNDCG on TREC's prels: against AP and nDCG on the same judgments treated as
complete, and the coverage of their intervals when the sample is drawn again.

    .venv/bin/python benchmarks/statap.py [--runs 20] [--trials 200] [--shares 0.2,0.5]
        [--prels web,mq07,mq08,mq09] [--ht]

Per prels file (../shared/data/anserini-tools/qrels/prels.*: Web 2009 category B, and the
Million Query 2007 / 2008 / 2009 files, their first 50 topics), runs are built from its own
documents: for each topic every document of the file is ranked by grade + noise, run r with
noise sd 0.25 * 1.25^r (seed 0), so the runs range from near-perfect to near-random.

1. statAP (and statNDCG@10) with the file's probability sample (method 0 rows, MTC's, are
   outside it) against AP (nDCG@10) with every line of the file read as complete qrels: the
   runs' means, Kendall's tau between the two orders of the runs, and the mean width of
   statAP's 90% interval. The two target different things (statAP the collection's AP: R^ counts
   the relevant documents of the whole collection, which the sample stands for), so the
   values differ and the order is what should agree.
2. Coverage: every line of the file, with its grade, is a population, sampled `--trials`
   times by statAP's own design (Aslam, Pavlu & Yilmaz 2006): each document's weight is its
   AP prior averaged over the runs, and 20% and 50% (`--shares`, at least 10) of each
   topic's documents are drawn with replacement, so pi = 1 - (1 - p)^m, each document then
   kept independently with its pi. Each trial's 90% intervals are checked against AP
   (nDCG@10) on the population, per (run, topic) and for the runs' means. (The file's own
   probabilities cannot be reused here: they were made for a universe of documents far
   larger than the file.)

Writes benchmarks/results/statap.json and prints a table. Run from the repository root.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import kendalltau

from unjudged.data.sampled import SampledQrels
from unjudged.inference.infer import infer_runs
from unjudged.io import read_run
from unjudged.io.sampled import read_prels
from unjudged.measures import parse_measures

PRELS = Path("../shared/data/anserini-tools/qrels")
FILES = {"web": "prels.web.1-50.txt", "mq07": "prels.mq.1-10000.txt",
         "mq08": "prels.mq.10001-20000.txt", "mq09": "prels.mq.20001-60000.txt"}
RESULTS = Path(__file__).parent / "results"
PAIRS = (("statAP", "AP"), ("statNDCG@10", "nDCG@10"))
#: with --ht: the SIGIR 2006 form of statAP too (docs/sampled-judgments.md, the default)
HT = (("statAP(pc='ht')", "AP"),)
LEVEL = 0.9
MIN_DRAWS = 10  #: draws per topic at least (Million Query topics have a handful of lines)


def first_topics(q: SampledQrels, n: int) -> SampledQrels:
    """The first n topics (in file order) of the prels, with their probabilities."""
    keep = set(q.topics[:n])
    drop = q.keys[~np.isin(q.key_topic, [i for i, t in enumerate(q.topics) if t in keep])]
    return q.without(drop)


def build_runs(q: SampledQrels, count: int, seed: int = 0) -> list:
    """`count` runs ranking every document of each topic by grade + normal noise."""
    rng = np.random.default_rng(seed)
    full = q.to_dict()
    runs = []
    for r in range(count):
        sd = 0.25 * 1.25 ** r
        ranking = {t: {d: float(max(g, 0) + rng.normal(0, sd)) for d, g in sorted(docs.items())}
                   for t, docs in full.items()}
        runs.append(read_run(ranking, name=f"run{r:02d}"))
    return runs


def complete_of(q: SampledQrels, sample_only: bool = False) -> SampledQrels:
    """Every line (or the probability sample only) as complete judgments: every pi = 1."""
    if sample_only:
        assert q.key_inclusion is not None
        q = q.without(q.keys[q.key_inclusion <= 0])
    return SampledQrels.from_qrels(q, inclusion=np.ones(q.keys.size))


def scores(runs: list, q: SampledQrels, names: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(runs, topics, len(names)) values and variances (a name may repeat)."""
    unique = list(dict.fromkeys(names))
    ms = parse_measures(unique)
    vals, var = [], []
    for inf in infer_runs(runs, q, ms, level=LEVEL):
        vals.append(inf.values)
        var.append(inf.variance)
    cols = [unique.index(n) for n in names]
    return np.array(vals)[..., cols], np.array(var)[..., cols]


def agreement(name: str, runs: list, q: SampledQrels, pairs: tuple = PAIRS
              ) -> list[dict[str, Any]]:
    est, var = scores(runs, q, [p[0] for p in pairs])
    target, _ = scores(runs, complete_of(q), [p[1] for p in pairs])
    rows = []
    z = 1.6448536269514722
    for i, (stat, plain) in enumerate(pairs):
        a, b = est[..., i].mean(axis=1), target[..., i].mean(axis=1)
        run_sd = np.sqrt(var[..., i].sum(axis=1)) / var.shape[1]
        rows.append({"prels": name, "estimator": stat, "target": plain + " (lines as complete)",
                     "runs": len(runs), "topics": est.shape[1],
                     "mean_estimate": float(a.mean()), "mean_target": float(b.mean()),
                     "tau": float(kendalltau(a, b).statistic),
                     "topic_width90": float(np.nanmean(2 * z * np.sqrt(var[..., i]))),
                     "run_width90": float(np.mean(2 * z * run_sd))})
    return rows


def ap_prior_design(runs: list, q: SampledQrels, share: float) -> np.ndarray:
    """Each key's inclusion probability under statAP's own design (Aslam, Pavlu & Yilmaz
    2006): per topic, a document's sampling weight is its AP prior averaged over the runs,
    (1 + 1/r + ... + 1/N) / 2N at rank r of a ranking of N documents, and `share` of the
    topic's documents (at least MIN_DRAWS) are drawn with replacement: pi = 1 - (1 - p)^m."""
    weight = np.zeros(q.keys.size)
    topic_of = {t: i for i, t in enumerate(q.topics)}
    docs = q.docs.to_pylist()
    index = {d: i for i, d in enumerate(docs)}
    for run in runs:
        for t, ranking in run.to_dict().items():
            ordered = sorted(ranking, key=lambda d: (-ranking[d], d))
            n = len(ordered)
            tail = np.cumsum(1.0 / np.arange(n, 0, -1))[::-1]  # 1/r + ... + 1/N at rank r
            keys = topic_of[t] * len(docs) + np.array([index[d] for d in ordered])
            at = np.searchsorted(q.keys, keys)
            weight[at] += (1.0 + tail) / (2.0 * n) / len(runs)
    out = np.zeros(q.keys.size)
    for i in range(len(q.topics)):
        a, b = q.topic_offsets[i], q.topic_offsets[i + 1]
        p = weight[a:b] / weight[a:b].sum()
        out[a:b] = 1.0 - (1.0 - p) ** max(MIN_DRAWS, round(share * (b - a)))
    return out


def coverage(name: str, runs: list, q: SampledQrels, trials: int, seed: int, share: float,
             pairs: tuple = PAIRS) -> list[dict[str, Any]]:
    population = complete_of(q)
    target, _ = scores(runs, population, [p[1] for p in pairs])
    pi = ap_prior_design(runs, population, share)
    rng = np.random.default_rng(seed)
    z = 1.6448536269514722
    hit = np.zeros((len(pairs),))
    run_hit = np.zeros((len(pairs),))
    cells = 0
    bias = np.zeros(len(pairs))
    sampled = 0.0
    for _ in range(trials):
        drawn = rng.random(pi.size) < pi
        sampled += drawn.sum() / trials
        sample = SampledQrels.from_qrels(population, inclusion=np.where(drawn, pi, 0.0))
        est, var = scores(runs, sample, [p[0] for p in pairs])
        inside = np.abs(est - target) <= z * np.sqrt(var)
        hit += inside.reshape(-1, len(pairs)).sum(axis=0)
        cells += inside.shape[0] * inside.shape[1]
        run_est, run_t = est.mean(axis=1), target.mean(axis=1)
        run_sd = np.sqrt(var.sum(axis=1)) / var.shape[1]
        run_hit += (np.abs(run_est - run_t) <= z * run_sd).mean(axis=0)
        bias += (run_est - run_t).mean(axis=0)
    return [{"prels": name, "estimator": stat, "target": plain + " (every line of the file)",
             "share": share, "trials": trials, "documents": int(pi.size),
             "mean_sampled": float(sampled), "certain": int((pi >= 1).sum()),
             "cover90_topic": float(hit[i] / cells), "cover90_run": float(run_hit[i] / trials),
             "bias_run_mean": float(bias[i] / trials)}
            for i, (stat, plain) in enumerate(pairs)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--topics", type=int, default=50)
    ap.add_argument("--trials", type=int, default=200)
    ap.add_argument("--shares", default="0.2,0.5",
                    help="sample sizes of the simulated design, shares of each topic's lines")
    ap.add_argument("--prels", default=",".join(FILES))
    ap.add_argument("--ht", action="store_true",
                    help="also statAP(pc='ht'), the SIGIR 2006 form (writes statap_ht.json)")
    args = ap.parse_args()
    start = time.perf_counter()
    agree, cover = [], []
    for name in args.prels.split(","):
        q = first_topics(read_prels(PRELS / FILES[name]), args.topics)
        runs = build_runs(q, args.runs)
        pairs = PAIRS + HT if args.ht else PAIRS
        agree += agreement(name, runs, q, pairs)
        for share in (float(x) for x in args.shares.split(",")):
            cover += coverage(name, runs, q, args.trials, seed=1, share=share, pairs=pairs)
        print(f"{name}: {time.perf_counter() - start:.0f} s", flush=True)
    print(f"{'prels':<6}{'estimator':<13}{'mean est':>9}{'mean tgt':>9}{'tau':>7}"
          f"{'w90 run':>9}")
    for a in agree:
        print(f"{a['prels']:<6}{a['estimator']:<13}{a['mean_estimate']:>9.4f}"
              f"{a['mean_target']:>9.4f}{a['tau']:>7.3f}{a['run_width90']:>9.4f}")
    print(f"{'prels':<6}{'estimator':<13}{'share':>6}{'sampled':>9}{'cov topic':>10}"
          f"{'cov run':>9}{'bias':>8}")
    for c in cover:
        print(f"{c['prels']:<6}{c['estimator']:<13}{c['share']:>6}{c['mean_sampled']:>9.0f}"
              f"{c['cover90_topic']:>10.3f}{c['cover90_run']:>9.3f}{c['bias_run_mean']:>8.4f}")
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / ("statap_ht.json" if args.ht else "statap.json")
    out.write_text(json.dumps({"runs": args.runs, "topics": args.topics, "trials": args.trials,
                               "seconds": time.perf_counter() - start, "agreement": agree,
                               "coverage": cover}, indent=1) + "\n")
    print(f"wrote {out} ({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
