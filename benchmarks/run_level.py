"""The run-level bench: do the intervals a paper reports (a run's mean, the order of two runs,
a run's rank) hold the truth, on views where new systems meet an old pool?

Views (all from ../shared/data; truth = the deeper judgments, unjudged there = non-relevant):

1. ``covid``: TREC-COVID round 1, the 143 runs on qrels-rnd1, truth = the complete qrels.
2. ``logo``: leave-one-group-out on round 1 (the 56 contributing runs, depth-7 pool, each
   group's runs on the qrels without what only they brought in), truth = the complete qrels.
3. ``oldpool``: an old pool of weaker systems: the depth-5 pool of the weaker half of the 143
   runs (by nDCG@10 on qrels-rnd1), judged with the complete qrels; the stronger half are
   scored as new systems; truth = the complete qrels.
4. ``dense``: Cranfield, CACM, CISI, NPL: the real all-MiniLM-L6-v2 dense run and the
   project's non-pooled lexical runs scored against a depth-10 pool of BM25, QL and TF-IDF;
   truth = the full qrels.

Methods: ``before`` (no per-run misfit: the default until now), ``after`` (the default), and on
round 1 ``alone`` (the default without --pool-runs: each run its own pool context). The pool
context is every run of the view (--pool-runs) unless said otherwise.

Per view, measure and method: per (run, topic) pair coverage of the 90% interval (closed and
randomised), width and RMSE; per run the coverage (closed, randomised), width, RMSE and bias of
the run mean, Kendall's tau of the run means against the truth, the pairs with P(A > B) >= 0.95
and the share of them the truth orders alike, and the share of runs whose true rank lies in
their 90% rank interval. The ``trec_eval`` row is the nonrel score (and its bounds).

    .venv/bin/python benchmarks/run_level.py [--b 200] [--only covid,logo,oldpool,dense]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from calibration import DATA, QRELS_RND1, logo_blocks  # noqa: E402
from text_pools import POOL_MODELS, covid_setting, shallow_pool  # noqa: E402

MEASURES = ("nDCG@10", "P@10", "AP@100", "RBP(p=0.8)@25")
METHODS: list[tuple[str, dict[str, Any]]] = [
    ("before", {"misfit": False}),
    ("after", {}),
]
ALONE = ("alone", {"alone": True})
TEXT = ("cranfield", "cacm", "cisi", "npl")
COLUMNS = ["view", "truth", "measure", "method", "pairs", "cover90", "rcover90", "width90",
           "rmse", "runs", "run_cover90", "run_rcover90", "run_width90", "run_rmse",
           "run_bias", "tau", "decided", "decided_agree", "rank_cover90"]


def _rows(cal: Any, modes: tuple[str, ...]) -> list[dict[str, Any]]:
    from unjudged.experiments.calibration import BOUND, summary_rows

    out = []
    for mode in modes:
        for r in summary_rows(cal, mode):
            r = dict(r)
            r["view"] = r.pop("collection")
            if r["method"] == BOUND:
                r["method"] = "trec_eval"
            out.append(r)
    return out


def covid(ex: Any, b: int, seed: int) -> list[dict[str, Any]]:
    from unjudged.experiments.calibration import calibrate

    runs, q1, truth = covid_setting(DATA)
    cal = calibrate(runs, q1, truth, list(MEASURES), [*METHODS, ALONE], levels=(0.9,), b=b,
                    seed=seed, executor=ex, collection="TREC-COVID r1")
    return _rows(cal, ("complete", "all"))


def logo(ex: Any, b: int, seed: int) -> list[dict[str, Any]]:
    from unjudged.experiments.calibration import calibrate_blocks

    _, _, truth = covid_setting(DATA)
    blocks, runs, _ = logo_blocks()
    cal = calibrate_blocks(blocks, truth, list(MEASURES), METHODS, levels=(0.9,), b=b,
                           seed=seed, executor=ex, collection="COVID r1 leave-one-group-out",
                           model_runs=runs)
    return _rows(cal, ("complete", "all"))


def oldpool(ex: Any, b: int, seed: int) -> list[dict[str, Any]]:
    import numpy as np

    from unjudged.engine.score import score
    from unjudged.experiments.calibration import calibrate
    from unjudged.io import read_qrels
    from unjudged.measures import parse_measures

    runs, q1, truth = covid_setting(DATA)
    res = score(runs, q1, parse_measures(["nDCG@10"]))
    order = np.argsort([r.summary[0] for r in res.runs])
    weak = {res.runs[i].run for i in order[: len(order) // 2]}
    full = truth.to_dict()
    pooled: dict[str, dict[str, int]] = {}
    for r in runs:
        if r.name in weak:
            for t, docs in r.to_dict().items():
                top = sorted(docs.items(), key=lambda x: (x[1], x[0]), reverse=True)[:5]
                for d, _ in top:
                    pooled.setdefault(t, {})[d] = max(full.get(t, {}).get(d, 0), 0)
    pool = read_qrels(pooled)
    new = [r.name for r in runs if r.name not in weak]
    cal = calibrate(runs, pool, truth, list(MEASURES), METHODS, levels=(0.9,), b=b, seed=seed,
                    scored=new, executor=ex,
                    collection=f"COVID r1 old pool (depth 5 of the {len(weak)} weaker runs)")
    return _rows(cal, ("complete", "all"))


def dense(ex: Any, b: int, seed: int) -> list[dict[str, Any]]:
    from unjudged.experiments.calibration import calibrate
    from unjudged.io import read_run
    from unjudged.text.collections import load_collection
    from unjudged.text.retrieval import generate_runs

    rows: list[dict[str, Any]] = []
    for name in TEXT:
        c = load_collection(name, DATA)
        runs = generate_runs(c, depth=100)
        runs.append(read_run(DATA / "minilm-dense-runs" / f"{name}.minilm.run.xz",
                             name="minilm", qrels=c.qrels))
        pool = shallow_pool(c, runs, 10, POOL_MODELS)
        new = [r.name for r in runs if r.name not in POOL_MODELS]
        label = f"{name} depth-10 lexical pool"
        cal = calibrate(runs, pool, c.qrels, list(MEASURES), METHODS, levels=(0.9,), b=b,
                        seed=seed, scored=new, executor=ex, collection=label)
        rows += _rows(cal, ("all",))
        rows += _rows(cal.only(["minilm"], f"{name}: the dense run alone"), ("all",))
    return rows


def markdown(rows: list[dict[str, Any]]) -> str:
    head = COLUMNS
    out = ["| " + " | ".join(head) + " |", "|" + "|".join(["---"] * len(head)) + "|"]
    for r in rows:
        cells = []
        for k in head:
            v = r.get(k)
            if isinstance(v, float):
                cells.append("-" if v != v else f"{v:.3f}")
            else:
                cells.append("-" if v is None else str(v))
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    from unjudged.errors import UnjudgedWarning
    from unjudged.parallel import ProcessExecutor

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--b", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--only", default="covid,logo,oldpool,dense")
    ap.add_argument("--out-json", default=str(HERE / "results" / "run_level.json"))
    ap.add_argument("--methods", default=",".join(n for n, _ in METHODS),
                    help="which of before, after to run (default both; alone runs on covid)")
    args = ap.parse_args(argv)
    wanted = args.methods.split(",")
    METHODS[:] = [m for m in METHODS if m[0] in wanted]
    if not QRELS_RND1.exists():
        print(f"shared data not found at {DATA}", file=sys.stderr)
        return 2
    parts = {"covid": covid, "logo": logo, "oldpool": oldpool, "dense": dense}
    rows: list[dict[str, Any]] = []
    timing = {}
    start = time.perf_counter()
    with warnings.catch_warnings(), ProcessExecutor(args.workers) as ex:
        warnings.simplefilter("ignore", UnjudgedWarning)
        for name in args.only.split(","):
            t0 = time.perf_counter()
            rows += parts[name](ex, args.b, args.seed)
            timing[name] = round(time.perf_counter() - t0, 1)
            print(f"{name}: {timing[name]} s", file=sys.stderr)
    command = "python benchmarks/run_level.py " + " ".join(argv if argv is not None
                                                            else sys.argv[1:])
    Path(args.out_json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out_json).write_text(json.dumps(
        {"command": command.strip(), "b": args.b, "seed": args.seed,
         "seconds": time.perf_counter() - start, "timing": timing,
         "methods": [*METHODS, ALONE], "rows": [{k: r.get(k) for k in COLUMNS} for r in rows]},
        indent=1, default=float) + "\n")
    print(markdown(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
