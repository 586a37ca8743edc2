"""Does an estimates prior help, and does the fitted trust protect against bad estimates?

    .venv/bin/python benchmarks/external_prior.py [-b 300] [--collections cranfield,...]

The setting of the calibration bench's text collections (docs/calibration.md): on Cranfield,
CACM, CISI and NPL, the 11 runs of unjudged's retrieval models (depth 100), a depth-10 pool of
BM25, QL and TF-IDF, the full qrels as the truth (a document they do not list is
non-relevant). Every run is estimated on the pool, and its nDCG@10 per (run, topic) with an
unjudged document in the top 10 is compared with the truth: coverage and width of the 90%
interval and RMSE of the mean.

Simulated outside judges, for every (topic, document) some run retrieves (judged or not), from
the truth with a fixed seed:

- good: a judge whose verdict is right 90% of the time, reporting the calibrated probability
  of relevance given its verdict and the topic's rate of relevant documents among those the
  runs retrieve (a well-calibrated LLM judge);
- noisy: the same, right 65% of the time;
- everything: p = 0.9 for every document (biased towards relevance);
- inverted: right 10% of the time, and calibrated as if right 90% (adversarial).

Methods: the default (position prior), the pool prior (the topic-level prior), the estimates
prior with each file (trust fitted on the pool's judged documents), and the text prior
(unjudged.text.prior on the collection's own text and queries, drawn as estimates). Writes
benchmarks/results/external_prior.json and prints a table. Run from the repository root (reads
../shared/data).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from text_pools import text_setting
from unjudged.experiments.calibration import calibrate, summary_rows
from unjudged.parallel import ProcessExecutor

DATA = Path("../shared/data")
RESULTS = Path(__file__).parent / "results"
TEXT = ("cranfield", "cacm", "cisi", "npl")
JUDGES = {"good": 0.9, "noisy": 0.65, "everything": None, "inverted": -0.9}


def judge_file(runs: list, truth: dict[str, dict[str, int]], accuracy: float | None,
               seed: int, folder: Path, name: str) -> str:
    """An estimates file `topic docno p` for every document some run retrieves: a judge whose
    verdict is right with probability `accuracy`, reporting the calibrated probability of
    relevance given its verdict and the topic's base rate among the retrieved documents (what a
    well-calibrated LLM judge would say); `accuracy` None: p = 0.9 for every document."""
    rng = np.random.default_rng(seed)
    pairs = sorted({(t, d) for r in runs for t, docs in r.to_dict().items() for d in docs})
    topics = np.array([t for t, _ in pairs])
    rel = np.array([truth.get(t, {}).get(d, 0) > 0 for t, d in pairs])
    if accuracy is None:
        p = np.full(rel.size, 0.9)
    else:
        inverted = accuracy < 0
        accuracy = abs(accuracy)
        _, tix = np.unique(topics, return_inverse=True)
        base = (np.bincount(tix, weights=rel) / np.bincount(tix))[tix]
        says = np.where(rng.random(rel.size) < accuracy, rel, ~rel)
        says = ~says if inverted else says
        a = accuracy
        yes = a * base / (a * base + (1 - a) * (1 - base))
        no = (1 - a) * base / ((1 - a) * base + a * (1 - base))
        p = np.where(says, yes, no)
    path = folder / f"{name}.tsv"
    path.write_text("".join(f"{t} {d} {x:.6f}\n" for (t, d), x in zip(pairs, p, strict=True)))
    return str(path)


def text_file(c: Any, runs: list, pool: Any, folder: Path) -> str:
    """The text prior's estimates (unjudged.text.prior) as a `topic docno p` file."""
    from unjudged.text.prior import text_estimates

    est, _ = text_estimates(c.index, pool, runs, queries=dict(zip(c.topics, c.texts,
                                                                  strict=True)),
                            tokeniser=c.tokeniser)
    path = folder / f"{c.name}-text.tsv"
    path.write_text("".join(f"{t} {d} {p:.6f}\n" for t, d, p in zip(
        est.topic.to_pylist(), est.docno.to_pylist(), est.dist[:, 1], strict=True)))
    return str(path)


def collection(name: str, b: int, ex: Any, folder: Path) -> list[dict[str, Any]]:
    c, runs, pool = text_setting(name, DATA)
    full = c.qrels.to_dict()
    methods: list[tuple[str, dict[str, Any]]] = [("default (position)", {}),
                                                  ("pool", {"prior": "pool"})]
    for i, (judge, acc) in enumerate(JUDGES.items()):
        path = judge_file(runs, full, acc, 1000 + i, folder, f"{name}-{judge}")
        methods.append((f"estimates: {judge}", {"prior": f"estimates:{path}"}))
    methods.append(("text prior", {"prior": f"estimates:{text_file(c, runs, pool, folder)}"}))
    cal = calibrate(runs, pool, c.qrels, ["nDCG@10"], methods, levels=[0.9], b=b, seed=0,
                    executor=ex, collection=f"{name} depth-10 pool")
    return [r for r in summary_rows(cal, "all")]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-b", type=int, default=300)
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--collections", default=",".join(TEXT))
    args = ap.parse_args()
    RESULTS.mkdir(exist_ok=True)
    rows: list[dict[str, Any]] = []
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp, ProcessExecutor(args.jobs) as ex:
        for name in args.collections.split(","):
            rows += collection(name, args.b, ex, Path(tmp))
    print(f"{'collection':<26}{'method':<22}{'pairs':>7}{'cover90':>9}{'width90':>9}"
          f"{'rmse':>8}")
    for r in rows:
        print(f"{r['collection']:<26}{r['method']:<22}{r['pairs']:>7}{r['cover90']:>9.3f}"
              f"{r['width90']:>9.3f}{r['rmse']:>8.4f}")
    out = RESULTS / "external_prior.json"
    out.write_text(json.dumps({"b": args.b, "seconds": time.perf_counter() - start,
                               "rows": rows}, indent=1, default=float) + "\n")
    print(f"wrote {out} ({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
