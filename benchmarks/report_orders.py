"""How well the report's order flags and rank intervals hold on TREC-COVID round 1.

    .venv/bin/python benchmarks/report_orders.py [-b 10000] [-m nDCG@10 -m P@10]

Builds the report's numbers (unjudged.analysis.report_data.build_report) for the 143 round-1
runs with qrels-rnd1, and compares them with the truth: the same runs scored with the complete
TREC-COVID qrels (anserini-tools qrels.covid-complete.txt) on the 30 round-1 topics. Prints,
per measure: the pairs adjacent on the leaderboard whose true order is the other way round and
how many of them the old flag (neighbouring 90% intervals overlap) and the new one (order
uncertain or reversed by P(A > B), unjudged.engine.pairs) catch; the same over all pairs; the
share of pairs with P(A > B) >= 0.95 whose true order agrees; and how often the 90% rank
interval holds the true rank. Run from the repository root (reads ../shared/data).
"""

from __future__ import annotations

import argparse
import glob
import time

import numpy as np

from unjudged.analysis.report_data import build_report
from unjudged.engine.pairs import pair_probabilities
from unjudged.engine.score import score
from unjudged.io import read_qrels, read_runs
from unjudged.measures import parse_measures

DATA = "../shared/data/"
ROUND1 = DATA + "castorini-TREC-COVID/round1/"
COMPLETE = DATA + "anserini-tools/qrels/qrels.covid-complete.txt"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-b", type=int, default=10_000)
    ap.add_argument("-m", action="append", dest="measures")
    args = ap.parse_args()
    ms = args.measures or ["nDCG@10", "P@10"]
    q = read_qrels(ROUND1 + "qrels/qrels-rnd1.txt")
    runs = read_runs(sorted(glob.glob(ROUND1 + "runs/*")), qrels=q)
    start = time.time()
    d = build_report(runs, q, ms, b=args.b, seed=0, topic_panels=0)
    print(f"build_report: {len(runs)} runs, b={args.b}: {time.time() - start:.1f} s")
    truth_scores = {r.run: r for r in score(runs, read_qrels(COMPLETE), parse_measures(ms)).runs}
    topics = set(q.topics)
    for i, m in enumerate(ms):
        board = d.leaderboards[m]
        n = len(board)
        names = [r["run"] for r in board]

        def true_mean(name: str, i: int = i) -> float:
            r = truth_scores[name]
            return float(np.mean([r.values[j, i] for j, t in enumerate(r.topics) if t in topics]))

        truth = np.array([true_mean(x) for x in names])
        lo, hi = np.array([r["lo"] for r in board]), np.array([r["hi"] for r in board])
        overlap = (lo[:-1] <= hi[1:]) & (lo[1:] <= hi[:-1])
        swapped = truth[:-1] < truth[1:] - 1e-12
        flagged = np.zeros((n, n), dtype=bool)
        for o in d.orders[m]:
            flagged[o["rank_a"] - 1, o["rank_b"] - 1] = True
        near = np.diagonal(flagged, offset=1)
        print(f"{m}: adjacent pairs {n - 1}, truly swapped {swapped.sum()}; caught by the "
              f"overlap flag {np.sum(swapped & overlap)} (flags {overlap.sum()}), by "
              f"P(A > B) {np.sum(swapped & near)} (flags {near.sum()})")
        above = np.triu(np.ones((n, n), dtype=bool), k=1)
        wrong = above & (truth[:, None] < truth[None, :] - 1e-12)
        kinds = [o["order"] for o in d.orders[m]]
        print(f"  all pairs {above.sum()}, truly swapped {wrong.sum()}; flagged "
              f"{flagged.sum()} (uncertain {kinds.count('uncertain')}, reversed "
              f"{kinds.count('reversed')}), of them truly swapped {np.sum(flagged & wrong)}")
        index = {r.run: j for j, r in enumerate(d.est.runs)}
        s = np.stack([d.est.runs[index[x]].run_samples[:, i] for x in names], axis=1)
        p = pair_probabilities(s)
        sure = p >= 0.95
        agree = truth[:, None] > truth[None, :]
        print(f"  pairs with P(A > B) >= 0.95: {sure.sum()}, true order agrees "
              f"{np.sum(sure & agree)} ({np.sum(sure & agree) / max(1, sure.sum()):.3f})")
        true_rank = 1 + (truth[None, :] > truth[:, None] + 1e-12).sum(axis=1)
        ranks = np.array([(r["rank_lo"], r["rank_hi"]) for r in board])
        held = (ranks[:, 0] <= true_rank) & (true_rank <= ranks[:, 1])
        print(f"  90% rank interval holds the true rank for {held.sum()} of {n} runs "
              f"({held.mean():.3f}), mean width {np.mean(ranks[:, 1] - ranks[:, 0]):.1f}; "
              f"rows highlighted {sum(r['unsettled'] for r in board)}")


if __name__ == "__main__":
    main()
