"""Does an estimates prior help, and does the fitted trust protect against bad estimates?

    .venv/bin/python benchmarks/external_prior.py [-b 300] [--collections cranfield,...,covid]

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
(unjudged.text.prior on the collection's own text and queries, drawn as estimates).

TREC-COVID round 1 (`--collections covid`, collection "TREC-COVID r1"): the 143 round-1 runs
estimated on qrels-rnd1, the truth the complete qrels (all rounds) on the 30 round-1 topics;
the same judges (from that truth, over every document some run retrieves), and instead of the
text prior an estimates file made from round-1 information only (`round1_file`: the runs and
qrels-rnd1). Writes benchmarks/results/external_prior.json (the rows of the collections run)
and prints a table. Run from the repository root (reads ../shared/data).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from text_pools import covid_setting, text_setting
from unjudged.experiments.calibration import calibrate, summary_rows
from unjudged.parallel import ProcessExecutor

DATA = Path("../shared/data")
RESULTS = Path(__file__).parent / "results"
TEXT = ("cranfield", "cacm", "cisi", "npl")
RRF_K = 60  #: reciprocal rank fusion's constant: a document scores sum 1 / (RRF_K + rank)
ROUND1_FOLDS = 5
ROUND1_RIDGE = 1.0  #: a N(0, 1) prior on each standardised slope
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


def round1_features(runs: list, topics: list[str]) -> tuple[np.ndarray, np.ndarray,
                                                             pa.Array, np.ndarray]:
    """Per (topic, document) some run retrieves for a topic in `topics`: (topic index, document
    index into the returned vocabulary, vocabulary, features). The features, from the runs'
    rankings alone (rank = position in the run's ranking of the topic, from 1): the log of the
    reciprocal-rank-fusion score sum 1 / (60 + rank), log2 of the best rank, log(1 + the number
    of runs with it in their top 10), the same for the top 100, and the fraction of the runs
    having the topic that retrieve it."""
    tix = {t: i for i, t in enumerate(topics)}
    tcol, rcol, docs = [], [], []
    have = np.zeros(len(topics))  # runs that have each topic
    for r in runs:
        lengths = r.lengths()
        codes = np.array([tix.get(t, -1) for t in r.topics], dtype=np.int64)
        t = np.repeat(codes, lengths)
        rank = np.arange(len(r)) - np.repeat(r.offsets[:-1], lengths) + 1
        keep = t >= 0
        tcol.append(t[keep])
        rcol.append(rank[keep])
        docs.append(r.docno.filter(pa.array(keep)))
        have[codes[codes >= 0]] += 1
    topic, rank = np.concatenate(tcol), np.concatenate(rcol).astype(np.float64)
    enc = pa.concat_arrays(docs).dictionary_encode()
    vocab, doc = enc.dictionary, enc.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    key = topic * len(vocab) + doc
    pairs, inv = np.unique(key, return_inverse=True)
    n = pairs.size
    best = np.full(n, np.inf)
    np.minimum.at(best, inv, rank)
    rrf = np.bincount(inv, weights=1 / (RRF_K + rank), minlength=n)
    top10 = np.bincount(inv, weights=rank <= 10, minlength=n)
    top100 = np.bincount(inv, weights=rank <= 100, minlength=n)
    count = np.bincount(inv, minlength=n)
    ptopic, pdoc = pairs // len(vocab), pairs % len(vocab)
    feats = np.column_stack([np.log(rrf), np.log2(best), np.log1p(top10), np.log1p(top100),
                             count / have[ptopic]])
    return ptopic, pdoc, vocab, feats


def _logistic(x: np.ndarray, topic: np.ndarray, y: np.ndarray, topics: int) -> np.ndarray:
    """Coefficients (one intercept per topic, then the slopes) of a logistic regression of y on
    x (standardised columns), ridge ROUND1_RIDGE on the slopes (1e-3 on the intercepts, finite
    for a topic without relevant documents), by Newton's method."""
    a = np.column_stack([np.eye(topics)[topic], x])
    pen = np.r_[np.full(topics, 1e-3), np.full(x.shape[1], ROUND1_RIDGE)]
    w = np.zeros(a.shape[1])
    for _ in range(50):
        p = 1 / (1 + np.exp(-(a @ w)))
        grad = a.T @ (p - y) + pen * w
        hess = (a * (p * (1 - p))[:, None]).T @ a + np.diag(pen)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


def round1_file(runs: list, pool: Any, folder: Path) -> str:
    """An estimates file `topic docno p` made from round-1 information only: the rankings of
    `runs` (the 143 round-1 runs) and the judgments of `pool` (qrels-rnd1), never later
    judgments. For every (topic, document) some run retrieves on a topic of `pool`, the
    features of `round1_features` (reciprocal-rank fusion, best rank, top-10 and top-100 votes,
    fraction of runs); p = a logistic regression of relevance (grade >= 1 in `pool`) with one
    intercept per topic and shared slopes (standardised features, ridge ROUND1_RIDGE), fitted
    on the retrieved documents `pool` judges. The judged documents get out-of-fold
    probabilities (ROUND1_FOLDS folds, seed 0), the others the model fitted on all judged
    documents."""
    topics = list(pool.topics)
    ptopic, pdoc, vocab, feats = round1_features(runs, topics)
    grade = pool.lookup(pool.topic_codes(topics)[ptopic], pool.doc_codes(vocab)[pdoc])
    judged = grade >= 0
    x = (feats - feats[judged].mean(axis=0)) / feats[judged].std(axis=0)
    y = (grade[judged] >= 1).astype(np.float64)
    xj, tj = x[judged], ptopic[judged]

    def predict(w: np.ndarray, x: np.ndarray, t: np.ndarray) -> np.ndarray:
        return 1 / (1 + np.exp(-(w[t] + x @ w[len(topics):])))

    p = predict(_logistic(xj, tj, y, len(topics)), x, ptopic)
    fold = np.random.default_rng(0).permutation(y.size) % ROUND1_FOLDS
    pj = np.empty(y.size)
    for f in range(ROUND1_FOLDS):
        out = fold == f
        w = _logistic(xj[~out], tj[~out], y[~out], len(topics))
        pj[out] = predict(w, xj[out], tj[out])
    p[judged] = pj
    path = folder / "covid-round1.tsv"
    pd.DataFrame({"topic": np.array(topics, dtype=object)[ptopic],
                  "docno": vocab.take(pa.array(pdoc)).to_numpy(zero_copy_only=False),
                  "p": p}).to_csv(path, sep=" ", header=False, index=False,
                                  float_format="%.6f")
    return str(path)


def covid(b: int, ex: Any, folder: Path) -> list[dict[str, Any]]:
    """TREC-COVID round 1: the 143 runs on qrels-rnd1, the truth the complete qrels on its
    topics; the judges and the round-1 estimates file."""
    runs, q1, truth = covid_setting(DATA)
    full = truth.to_dict()
    methods: list[tuple[str, dict[str, Any]]] = [("default (position)", {}),
                                                  ("pool", {"prior": "pool"})]
    for i, (judge, acc) in enumerate(JUDGES.items()):
        path = judge_file(runs, full, acc, 1000 + i, folder, f"covid-{judge}")
        methods.append((f"estimates: {judge}", {"prior": f"estimates:{path}"}))
    methods.append(("estimates: round 1",
                    {"prior": f"estimates:{round1_file(runs, q1, folder)}"}))
    cal = calibrate(runs, q1, truth, ["nDCG@10"], methods, levels=[0.9], b=b, seed=0,
                    executor=ex, collection="TREC-COVID r1")
    return summary_rows(cal, "all")


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
    ap.add_argument("--collections", default=",".join((*TEXT, "covid")))
    args = ap.parse_args()
    RESULTS.mkdir(exist_ok=True)
    rows: list[dict[str, Any]] = []
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp, ProcessExecutor(args.jobs) as ex:
        for name in args.collections.split(","):
            run = covid if name == "covid" else partial(collection, name)
            rows += run(args.b, ex, Path(tmp))
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
