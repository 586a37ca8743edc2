"""Time and peak memory of `estimate` as the number of topics grows (MS MARCO-sized qrels):
N topics with three judged documents each (grades 0-2, seeded), 10 runs of 1-5 documents per
topic, nDCG@10, the bootstrap with the runs as --pool-runs.

    .venv/bin/python benchmarks/topics_scale.py 100000 1000      # topics, b (one process)
    .venv/bin/python benchmarks/topics_scale.py 100000 1000 2    # ... on 2 worker processes

The peak is this process's and, with workers, the largest worker's (each holds one run's
samples at a time).
"""

from __future__ import annotations

import resource
import sys
import time
import warnings

import numpy as np


def main(argv: list[str]) -> int:
    from unjudged.engine.estimate import estimate_runs
    from unjudged.errors import UnjudgedWarning
    from unjudged.io import read_qrels, read_run
    from unjudged.measures import parse_measures

    warnings.simplefilter("ignore", UnjudgedWarning)
    n, b = int(argv[0]), int(argv[1])
    workers = int(argv[2]) if len(argv) > 2 else 1
    rng = np.random.default_rng(0)
    t0 = time.perf_counter()
    q = read_qrels({str(t): {f"d{j}": int(rng.integers(0, 3)) for j in range(3)}
                    for t in range(n)})
    runs = [read_run({str(t): {f"d{j}": float(10 - j) for j in range(rng.integers(1, 6))}
                      for t in range(n)}, name=f"r{i}") for i in range(10)]
    t1 = time.perf_counter()
    est = estimate_runs(runs, q, parse_measures(["nDCG@10"]), methods=["bootstrap"], b=b,
                        pool_runs=runs, workers=workers)
    t2 = time.perf_counter()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    worker = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"topics {n} b {b}: inputs {t1 - t0:.1f} s, estimate {t2 - t1:.1f} s, "
          f"peak {peak:.0f} MB" + (f" (largest worker {worker:.0f} MB)" if workers > 1 else "")
          + f"; first run's nDCG@10 {float(est.runs[0].run_point[0]):.6f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
