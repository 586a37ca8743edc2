"""Prediction-powered judge estimates with simulated judges: coverage per (run, topic), per run
mean, per pair of runs and per rank, on the text collections and TREC-COVID round 1.

    .venv/bin/python benchmarks/judges_sim.py [--reps 100] [--collections cranfield,...,covid]
        [--fractions 0.05,0.1,0.2] [--jobs 2] [--table]

Settings (benchmarks/text_pools.py): on Cranfield, CACM, CISI and NPL, unjudged's 11 retrieval
models (depth 100) as runs and a depth-10 pool of BM25, QL and TF-IDF as the human qrels; on
TREC-COVID round 1 the 143 round-1 runs (cut at depth 100 here) and qrels-rnd1. The truth is
the complete qrels (a document they do not list is non-relevant). The judge labels every
retrieved document the human qrels leave open (the set U the audit samples); the estimand is
the measure with U graded by the truth (documents nobody retrieved are not PPI's business:
docs/judges.md).

Simulated judges, from the truth with seed 0:

- confusion: a known confusion matrix on grades: a non-relevant document is labelled 0 with
  probability 0.9 (else a relevant grade, uniformly); a relevant one keeps its grade with 0.6,
  is labelled 0 with 0.2 and another relevant grade with the rest (binary: 0.8 / 0.2);
- topic-biased: probabilities of relevance p = sigmoid(-2 + 4 rel + b_t + e), b_t ~ N(0, 1.5)
  per topic, e ~ N(0, 0.5) per document: informative, but over- or under-confident topic by
  topic (the grade model bins p over all topics and cannot see it).

Per collection, judge and audit fraction (5%, 10%, 20% of U; weighted design), `--reps`
audits (seed = the repetition) give 90% intervals of nDCG@10 and P@10 per (run, topic) and per
run mean, and from 2,000 coupled draws (unjudged.judges.estimate.coupled_draws) the 90%
interval of every difference of two run means and every run's rank interval. Coverage is
closed (the truth in [lo, hi]) and, where the estimate's distribution puts mass on single
values (per-topic values at 0 or 1 after clipping, ranks), also randomised: the truth's
randomised PIT u = F(truth-) + V (F(truth) - F(truth-)), V uniform, covered when u lies in
[0.05, 0.95] (its expectation over V), which is exactly 0.9 for a calibrated distribution,
discrete or not.

Writes benchmarks/results/judges_sim.json and prints a table. Run from the repository root.
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from text_pools import covid_setting, text_setting

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
OUT = Path(__file__).resolve().parent / "results" / "judges_sim.json"
TEXT = ("cranfield", "cacm", "cisi", "npl")
JUDGES = ("confusion", "topic-biased")
MEASURES = ("nDCG@10", "P@10")
LEVEL = 0.90
DRAWS = 2000
DEPTH = 100  #: TREC-COVID's runs are cut here (the text runs are retrieved to it)
TAIL = (1.0 - LEVEL) / 2.0


def setting(name: str) -> tuple[list, Any, dict[str, dict[str, int]]]:
    """(runs, human qrels, truth as a dict) of a collection."""
    from unjudged.io import read_run

    if name == "covid":
        runs, q1, truth = covid_setting(DATA)
        runs = [read_run({t: dict(sorted(d.items(), key=lambda x: (-x[1], x[0]))[:DEPTH])
                          for t, d in r.to_dict().items()}, name=r.name) for r in runs]
        return runs, q1, truth.to_dict()
    c, runs, pool = text_setting(name, DATA)
    return runs, pool, c.qrels.to_dict()


def judge_text(kind: str, pairs: pd.DataFrame, levels: int, seed: int = 0) -> bytes:
    """The simulated judge's lines for `pairs` (topic, docno, grade: the truth)."""
    rng = np.random.default_rng(seed)
    g = pairs.grade.to_numpy()
    if kind == "confusion":
        m = confusion(levels)
        cum = np.cumsum(m[g], axis=1)
        said = (rng.random(g.size)[:, None] > cum).sum(axis=1)
        return "".join(f"{t} 0 {d} {x}\n" for t, d, x in zip(
            pairs.topic, pairs.docno, said, strict=True)).encode()
    _, tix = np.unique(pairs.topic.to_numpy(), return_inverse=True)
    bias = rng.normal(0.0, 1.5, tix.max() + 1)[tix]
    z = -2.0 + 4.0 * (g > 0) + bias + rng.normal(0.0, 0.5, g.size)
    p = 1.0 / (1.0 + np.exp(-z))
    return "".join(f"{t} {d} {x:.6f}\n" for t, d, x in zip(
        pairs.topic, pairs.docno, p, strict=True)).encode()


def confusion(levels: int) -> np.ndarray:
    """P(judge's grade | true grade), rows the truth (see the module's docstring).

    >>> confusion(2).tolist()
    [[0.9, 0.1], [0.2, 0.8]]
    """
    m = np.zeros((levels, levels))
    m[0, 0], m[0, 1:] = 0.9, 0.1 / (levels - 1)
    for g in range(1, levels):
        m[g, 0] = 0.2
        others = levels - 2
        m[g, g] = 0.6 if others else 0.8
        for h in range(1, levels):
            if h != g:
                m[g, h] = 0.2 / others
    return m


def one(args: tuple[str, list[str], list[float], range]) -> list[dict[str, Any]]:
    """Every judge and fraction on one collection (its runs built once)."""
    warnings.simplefilter("ignore")
    name, kinds, fractions, reps = args
    runs, human, truth = setting(name)
    return [row for kind in kinds
            for row in one_judge(name, runs, human, truth, kind, fractions, reps)]


def one_judge(name: str, runs: list, human: Any, truth: dict[str, dict[str, int]], kind: str,
              fractions: list[float], reps: range) -> list[dict[str, Any]]:
    from unjudged.judges.audit import design_pi, draw
    from unjudged.judges.estimate import (
        _measured,
        _model,
        _model_covariance,
        _run_means,
        coupled_draws,
    )
    from unjudged.judges.labels import read_judge
    from unjudged.judges.setting import build_setting
    from unjudged.measures import parse_measures

    levels = max(max((max(d.values(), default=0) for d in truth.values()), default=1), 1) + 1
    hq = human.to_dict()
    open_ = sorted({(t, d) for r in runs for t, docs in r.to_dict().items() for d in docs
                    if d not in hq.get(t, {})})
    pairs = pd.DataFrame(open_, columns=["topic", "docno"])
    pairs["grade"] = [max(truth.get(t, {}).get(d, 0), 0) for t, d in open_]
    st = build_setting(runs, human, read_judge(judge_text(kind, pairs, levels), name=kind),
                       levels=levels)
    index = pd.Series(np.arange(st.pi.size), index=pd.MultiIndex.from_arrays(
        [np.array(st.topics, dtype=object)[st.pair_topic.clip(0)], st.pair_docno]))
    grade = np.full(st.pi.size, -1)
    at = index.reindex(pd.MultiIndex.from_frame(pairs[["topic", "docno"]])).to_numpy()
    grade[at] = pairs.grade.to_numpy()
    full = st.with_audit(np.where(st.labelled, 1.0, 0.0), np.where(st.labelled, grade, -1))
    ms = parse_measures(list(MEASURES))
    exact = {}
    for m in ms:
        mx = _measured(full, _model(full, True), m)
        # the cells PPI estimates: a judge-labelled document within the cutoff (the others
        # are exact, covered by any interval)
        cut = (st.entry_rank <= (m.cutoff or st.entry_rank.max())) & st.labelled[st.entry_pair]
        open_cells = np.bincount(mx.key[cut], minlength=mx.present.size) > 0
        exact[m.name] = (np.clip(mx.x.value, 0, 1), mx.present & open_cells,
                         _run_means(mx, len(st.runs)).value)
    out = []
    for frac in fractions:
        pi = design_pi(st, frac * int(st.labelled.sum()))
        acc: dict[str, list[np.ndarray]] = {}
        for rep in reps:
            hit = draw(pi, rep)
            s2 = st.with_audit(np.where(hit, pi, 0.0), np.where(hit, grade, -1), pi)
            md = _model(s2, True)
            for m in ms:
                mx = _measured(s2, md, m)
                means = _run_means(mx, len(st.runs))
                cells, present, run_truth = exact[m.name]
                for key, value in score(mx, means, cells, present, run_truth,
                                        coupled_draws(means.var, _model_covariance(s2, md, mx),
                                                      means.value, DRAWS, rep,
                                                      f"sim:{m.name}", means.fixed)).items():
                    acc.setdefault(f"{m.name}|{key}", []).append(value)
        for key, values in acc.items():
            measure, stat = key.split("|")
            v = np.concatenate([np.atleast_1d(x) for x in values])
            out.append({"collection": name, "judge": kind, "fraction": frac,
                        "measure": measure, "stat": stat, "value": float(np.mean(v)),
                        "n": int(v.size), "runs": len(st.runs), "topics": len(st.topics),
                        "open": int(st.labelled.sum())})
    return out


def score(mx: Any, means: Any, truth: np.ndarray, present: np.ndarray, run_truth: np.ndarray,
          samples: np.ndarray) -> dict[str, np.ndarray]:
    """Per audit: coverage (closed and randomised) and widths per (run, topic), run mean, pair
    of runs and rank, and the human-only estimate's per cell and run mean."""
    from unjudged.engine.pairs import _ranks, _scores
    from unjudged.judges.estimate import bounds

    out: dict[str, np.ndarray] = {}
    x = mx.x
    keep = present & mx.present
    lo, hi, hlo, hhi = (np.clip(v, 0.0, 1.0) for v in bounds(x, LEVEL, False))
    out["cell_cov"] = ((lo <= truth) & (truth <= hi))[keep]
    out["cell_rcov"] = _clipped_pit_cover(truth, x.value, x.var)[keep]
    out["cell_width"] = (hi - lo)[keep]
    out["cell_ht_cov"] = ((hlo <= truth) & (truth <= hhi))[keep]
    out["cell_ht_width"] = (hhi - hlo)[keep]
    rlo, rhi, hlo, hhi = (np.clip(v, 0.0, 1.0) for v in bounds(means, LEVEL, True))
    out["run_cov"] = (rlo <= run_truth) & (run_truth <= rhi)
    out["run_width"] = rhi - rlo
    out["run_ht_cov"] = (hlo <= run_truth) & (run_truth <= hhi)
    out["run_ht_width"] = hhi - hlo
    r = samples.shape[1]
    a, b = np.triu_indices(r, 1)
    diff = samples[:, a] - samples[:, b]
    true_diff = run_truth[a] - run_truth[b]
    q = np.quantile(diff, [TAIL, 1.0 - TAIL], axis=0)
    out["pair_cov"] = (q[0] <= true_diff) & (true_diff <= q[1])
    out["pair_rcov"] = _pit_cover((diff < true_diff).mean(axis=0),
                                  (diff <= true_diff).mean(axis=0))
    out["pair_sign"] = np.sign(np.median(diff, axis=0)) == np.sign(true_diff)
    ranks = _ranks(_scores(samples))
    true_rank = _ranks(_scores(run_truth[None]))[0]
    below = (ranks < true_rank[None]).mean(axis=0)
    upto = (ranks <= true_rank[None]).mean(axis=0)
    from unjudged.engine.pairs import rank_intervals

    ri = rank_intervals(samples, LEVEL)
    out["rank_cov"] = (ri[:, 0] <= true_rank) & (true_rank <= ri[:, 1])
    out["rank_rcov"] = _pit_cover(below, upto)
    out["rank_width"] = (ri[:, 1] - ri[:, 0] + 1).astype(float)
    return out


def _pit_cover(below: np.ndarray, upto: np.ndarray) -> np.ndarray:
    """E over V of 1{TAIL <= below + V (upto - below) <= 1 - TAIL}: randomised coverage."""
    span = upto - below
    inside = np.clip(np.minimum(upto, 1.0 - TAIL) - np.maximum(below, TAIL), 0.0, None)
    point = ((below >= TAIL) & (below <= 1.0 - TAIL)).astype(float)
    return np.where(span > 0, inside / np.where(span > 0, span, 1.0), point)


def _clipped_pit_cover(truth: np.ndarray, value: np.ndarray, var: np.ndarray) -> np.ndarray:
    """Randomised coverage of the truth under N(value, var) clipped to [0, 1]: the mass below
    0 sits at 0, above 1 at 1."""
    from scipy.special import ndtr

    sd = np.sqrt(np.maximum(var, 0.0))

    z = np.divide(truth - value, sd, out=np.zeros(truth.size), where=sd > 0)
    at = ndtr(z)
    # a point mass (no variance) at the value: F(truth-) and F(truth) differ there
    below = np.where(sd > 0, at, (value < truth).astype(float))
    upto = np.where(sd > 0, at, (value <= truth).astype(float))
    below = np.where(truth <= 0.0, 0.0, below)
    upto = np.where(truth >= 1.0, 1.0, upto)
    return _pit_cover(below, upto)


def markdown(rows: list[dict[str, Any]]) -> str:
    t = pd.DataFrame(rows)
    wide = t.pivot_table(index=["collection", "judge", "fraction", "measure"], columns="stat",
                         values="value").reset_index()
    lines = ["| collection | judge | audit | measure | (run, topic) cov. closed / rand. / "
             "audit alone | width vs audit alone | run mean cov. / audit alone | width vs "
             "audit alone | pairs cov. closed / rand. | sign right | ranks cov. closed / "
             "rand. | rank width |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    order = {c: i for i, c in enumerate((*TEXT, "covid"))}
    wide = wide.sort_values(["collection", "judge", "fraction", "measure"],
                            key=lambda s: s.map(order) if s.name == "collection" else s)
    for r in wide.itertuples():
        lines.append(
            f"| {r.collection} | {r.judge} | {r.fraction:.0%} | {r.measure} | "
            f"{r.cell_cov:.3f} / {r.cell_rcov:.3f} / {r.cell_ht_cov:.3f} | "
            f"{r.cell_width / r.cell_ht_width - 1:+.0%} | {r.run_cov:.3f} / "
            f"{r.run_ht_cov:.3f} | {r.run_width / r.run_ht_width - 1:+.0%} | "
            f"{r.pair_cov:.3f} / {r.pair_rcov:.3f} | {r.pair_sign:.3f} | "
            f"{r.rank_cov:.3f} / {r.rank_rcov:.3f} | {r.rank_width:.1f} |")
    return "\n".join(lines) + "\n"


def _added(old: list[dict[str, Any]], new: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`new` rows merged with `old` ones of the same setting and statistic (n-weighted)."""
    def key(r: dict[str, Any]) -> tuple:
        return r["collection"], r["judge"], r["fraction"], r["measure"], r["stat"]

    held = {key(r): r for r in old}
    out = []
    for r in new:
        o = held.get(key(r))
        if o is not None:
            n = o["n"] + r["n"]
            r = r | {"value": (o["value"] * o["n"] + r["value"] * r["n"]) / n, "n": n}
        out.append(r)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=100)
    ap.add_argument("--collections", default=",".join((*TEXT, "covid")))
    ap.add_argument("--judges", default=",".join(JUDGES))
    ap.add_argument("--fractions", default="0.05,0.1,0.2")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--first", type=int, default=0,
                    help="The first audit's seed; above 0 the audits are added to those the "
                    "results hold for the same settings (n-weighted means).")
    ap.add_argument("--table", action="store_true",
                    help="Only print the docs' table from benchmarks/results/judges_sim.json.")
    args = ap.parse_args()
    if args.table:
        print(markdown(json.loads(OUT.read_text())["rows"]), end="")
        return
    fractions = [float(f) for f in args.fractions.split(",")]
    kinds = args.judges.split(",")
    # TREC-COVID first: the longest task
    names = sorted(args.collections.split(","), key=lambda c: c != "covid")
    tasks = [(c, kinds, fractions, range(args.first, args.first + args.reps)) for c in names]
    t0 = time.perf_counter()
    rows: list[dict[str, Any]] = []
    seconds = {}
    with ProcessPoolExecutor(args.jobs) as pool:
        for (c, _, _, _), part in zip(tasks, pool.map(one, tasks), strict=True):
            rows += part
            seconds[c] = round(time.perf_counter() - t0, 1)
            print(f"{c}: done at {seconds[c]:.0f} s", flush=True)
    took = time.perf_counter() - t0
    # the settings run now replace theirs in the results; the others' stay
    old = json.loads(OUT.read_text()) if OUT.exists() else {"rows": [], "seconds": {}}
    if args.first > 0:
        rows = _added(old["rows"], rows)
    done = {(r["collection"], r["judge"], r["fraction"]) for r in rows}
    kept = [r for r in old["rows"] if (r["collection"], r["judge"], r["fraction"]) not in done]
    seconds = old.get("seconds", {}) | seconds
    OUT.write_text(json.dumps({"reps": args.reps, "level": LEVEL, "draws": DRAWS,
                               "design": "weighted", "seconds": seconds,
                               "rows": kept + rows}, indent=1) + "\n")
    print(markdown(rows), end="")
    print(f"{took:.0f} s")


if __name__ == "__main__":
    main()
