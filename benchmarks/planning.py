"""Judging-budget planners replayed on TREC-COVID (docs/planning.md), and the planner's speed.

    .venv/bin/python benchmarks/planning.py [--collections r1,cranfield,...] [-b 200]
                                            [--speed-only]

Round 1: the 143 round-1 runs, qrels-rnd1 as the start, the complete TREC-COVID qrels (anserini
qrels.covid-complete.txt, the 30 round-1 topics) as the truth, candidates = documents the truth
judges and qrels-rnd1 does not; the reference is Judgment Set 1.5 (the iteration-1.5 lines of
qrels.covid-round2.txt: the depth 8-14 extension, 5,734 judgments).

The text collections (Cranfield, CACM, CISI, NPL; the calibration bench's setting): the 11 runs
of unjudged's retrieval models (depth 100), a depth-10 pool of BM25, QL and TF-IDF as the start,
the full qrels as the truth; their qrels list relevant documents only, so the candidates are all
unjudged documents the runs retrieve and a document the qrels do not list is non-relevant.
Budgets there are judgments per topic (1, 2, 3, 5, 8, 12, 20, 30) times the topics.

Every strategy plans for nDCG@10; the rankings are compared for nDCG@10, P@5, AP and bpref.
Speed: one plan of 1,000 documents for the 143 round-1 runs x 30 topics with two processes
(`unjudged plan ... --budget 1000 -j 2`), per strategy, wall time in this process.

Writes benchmarks/results/planning.json and planning_<collection>.png. Run from the repository
root (reads ../shared/data).
"""

from __future__ import annotations

import argparse
import glob
import json
import time
from pathlib import Path

from text_pools import text_setting
from unjudged.experiments.planning import DEFAULT_MEASURES, planning_experiment
from unjudged.io import read_qrels, read_runs
from unjudged.judgments.edit import filter_qrels
from unjudged.measures import parse_measures
from unjudged.parallel import ProcessExecutor
from unjudged.planning import STRATEGIES, PlanSettings, plan
from unjudged.report.planning import plot_planning

DATA = Path("../shared/data")
COVID = DATA / "castorini-TREC-COVID"
QRELS = DATA / "anserini-tools" / "qrels"
RESULTS = Path(__file__).parent / "results"
BUDGETS = [250, 500, 750, 1000, 1250, 1500, 2000, 2500, 3000, 4000, 5000, 6000]


TEXT = ("cranfield", "cacm", "cisi", "npl")
PER_TOPIC = [1, 2, 3, 5, 8, 12, 20, 30]


def covid_round1() -> tuple[list, object, object, dict, list[int], str]:
    start = read_qrels(COVID / "round1" / "qrels" / "qrels-rnd1.txt")
    truth = read_qrels(QRELS / "qrels.covid-complete.txt")
    js15 = filter_qrels(read_qrels(QRELS / "qrels.covid-round2.txt"), iterations=["1.5"])
    runs = list(read_runs(sorted(glob.glob(str(COVID / "round1" / "runs" / "*"))),
                          qrels=start))
    return runs, start, truth, {"Judgment Set 1.5 (depth 8-14)": js15}, BUDGETS, "truth"


def text_collection(name: str) -> tuple[list, object, object, dict, list[int], str]:
    c, runs, start = text_setting(name, DATA)
    budgets = [k * len(start.topics) for k in PER_TOPIC]
    return runs, start, c.qrels, {}, budgets, "runs"


def experiment(name: str, b: int, jobs: int) -> dict:
    runs, start, truth, refs, budgets, cands = (covid_round1() if name == "r1"
                                                else text_collection(name))
    evaluated = parse_measures(list(DEFAULT_MEASURES))
    planned = parse_measures(["nDCG@10"])
    with ProcessExecutor(jobs) as ex:
        sweep = planning_experiment(runs, start, truth, budgets, list(STRATEGIES), evaluated,
                                    planned, settings=PlanSettings(b=b), b=b, references=refs,
                                    executor=ex, desc=f"planning {name}", candidates=cands)
    curves = sweep.mean_rows()
    plot_planning(curves, sweep.references, str(RESULTS / f"planning_{name}.png"))
    print(f"{name}: {len(runs)} runs x {len(sweep.topics)} topics, {sweep.candidates} "
          f"candidates, {sweep.seconds:.0f} s")
    for m in DEFAULT_MEASURES:
        mname = parse_measures([m])[0].name
        print(f"  {mname}: tau by judgments")
        print("    " + " " * 12 + "".join(f"{j:>7}" for j in [0] + budgets))
        for s in STRATEGIES:
            taus = [r["tau"] for r in sorted(curves, key=lambda r: r["judgments"])
                    if r["strategy"] == s and r["measure"] == mname]
            print(f"    {s:<12}" + "".join(f"{t:7.4f}" for t in taus))
    for n in sweep.needed():
        print(f"  {n['measure']}: {n['strategy']} reaches {n['reference']}'s tau "
              f"{n['reference_tau']:.4f} ({n['reference_judgments']} judgments) with "
              f"{n['judgments']} judgments")
    return {"runs": len(runs), "topics": len(sweep.topics), "candidates": sweep.candidates,
            "budgets": budgets, "b": b, "seconds": sweep.seconds, "curves": curves,
            "references": sweep.references, "needed": sweep.needed()}


def speed(jobs: int, b: int) -> dict:
    runs, q, _, _, _, _ = covid_round1()
    ms = parse_measures(["nDCG@10"])
    out = {}
    with ProcessExecutor(jobs) as ex:
        for s in STRATEGIES:
            t = time.perf_counter()
            p = plan(runs, q, 1000, ms, PlanSettings(s, b=b), executor=ex)
            out[s] = time.perf_counter() - t
            print(f"speed: {s}: {len(p)} documents for {len(runs)} runs in {out[s]:.1f} s "
                  f"(-j {jobs}, b = {b})")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--collections", default="r1," + ",".join(TEXT))
    ap.add_argument("-b", type=int, default=200, help="bootstrap iterations (planner and "
                    "the decided-pairs columns)")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--speed-only", action="store_true")
    args = ap.parse_args()
    RESULTS.mkdir(exist_ok=True)
    out: dict = {"speed": speed(args.jobs, 1000)}
    if not args.speed_only:
        for name in args.collections.split(","):
            out[name] = experiment(name, args.b, args.jobs)
    path = RESULTS / ("planning_speed.json" if args.speed_only else "planning.json")
    path.write_text(json.dumps(out, indent=1, default=float) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
