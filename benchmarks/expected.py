"""The expected strategy beside the bootstrap: coverage and width of their 90% intervals and
RMSE of their point estimates, on five collections, and their speed.

    .venv/bin/python benchmarks/expected.py [-b 1000] [-j 2] [--collections cranfield,...,covid]

Settings (those of benchmarks/external_prior.py and the calibration bench): on Cranfield, CACM,
CISI and NPL the 11 runs of unjudged's retrieval models, a depth-10 pool of BM25 / QL / TF-IDF,
the full qrels as the truth; on TREC-COVID round 1 the 143 runs on qrels-rnd1, the complete
qrels on its 30 topics as the truth. Measures nDCG@10, P@10, AP@100 and RBP(p=0.8)@25; (run,
topic) pairs with an unjudged document within the measure's depth ("all" truth mode). Methods:
the default bootstrap (position prior), the expected strategy with the same prior (its
intervals normal, with the prior's uncertainty), and both with the pool prior. Writes
benchmarks/results/expected.json and prints a table; the speed rows time `estimate` of the
143 round-1 runs on the four measures with each method alone.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from text_pools import covid_setting, text_setting
from unjudged.experiments.calibration import calibrate, summary_rows
from unjudged.parallel import ProcessExecutor

DATA = Path("../shared/data")
RESULTS = Path(__file__).parent / "results"
TEXT = ("cranfield", "cacm", "cisi", "npl")
MEASURES = ("nDCG@10", "P@10", "AP@100", "RBP(p=0.8)@25")
METHODS: list[tuple[str, dict[str, Any]]] = [
    ("bootstrap (position)", {}), ("expected (position)", {"methods": "expected"}),
    ("bootstrap (pool)", {"prior": "pool"}),
    ("expected (pool)", {"methods": "expected", "prior": "pool"})]


def collection(name: str, b: int, ex: Any) -> list[dict[str, Any]]:
    if name == "covid":
        runs, pool, truth = covid_setting(DATA)
        label = "TREC-COVID r1"
    else:
        c, runs, pool = text_setting(name, DATA)
        truth, label = c.qrels, f"{name} depth-10 pool"
    cal = calibrate(runs, pool, truth, list(MEASURES), METHODS, levels=[0.9], b=b, seed=0,
                    executor=ex, collection=label)
    return summary_rows(cal, "all")


def speed(b: int, jobs: int) -> list[dict[str, Any]]:
    from unjudged.engine.estimate import estimate_runs
    from unjudged.measures import parse_measures

    runs, pool, _ = covid_setting(DATA)
    ms = parse_measures(list(MEASURES))
    rows = []
    for method in ("bootstrap", "expected"):
        start = time.perf_counter()
        estimate_runs(runs, pool, ms, methods=[method], b=b, workers=jobs)
        rows.append({"method": method, "runs": len(runs), "b": b, "jobs": jobs,
                     "seconds": round(time.perf_counter() - start, 2)})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-b", type=int, default=1000)
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--collections", default=",".join((*TEXT, "covid")))
    args = ap.parse_args()
    RESULTS.mkdir(exist_ok=True)
    rows: list[dict[str, Any]] = []
    start = time.perf_counter()
    with ProcessExecutor(args.jobs) as ex:
        for name in args.collections.split(","):
            rows += collection(name, args.b, ex)
            print(f"{name}: {time.perf_counter() - start:.0f} s", flush=True)
    timing = speed(args.b, args.jobs)
    print(f"{'collection':<26}{'measure':<15}{'method':<22}{'pairs':>7}{'cover90':>9}"
          f"{'width90':>9}{'rmse':>8}")
    for r in rows:
        print(f"{r['collection']:<26}{r['measure']:<15}{r['method']:<22}{r['pairs']:>7}"
              f"{r['cover90']:>9.3f}{r['width90']:>9.3f}{r['rmse']:>8.4f}")
    for t in timing:
        print(f"speed: {t['method']} {t['runs']} runs, b={t['b']}, -j {t['jobs']}: "
              f"{t['seconds']} s")
    out = RESULTS / "expected.json"
    out.write_text(json.dumps({"b": args.b, "seconds": time.perf_counter() - start,
                               "rows": rows, "speed": timing}, indent=1, default=float) + "\n")
    print(f"wrote {out} ({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
