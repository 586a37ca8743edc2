"""Prediction-powered judge estimates on real LLM labels: coverage and width against the
human-only estimate from the same audit sample.

    .venv/bin/python benchmarks/judges.py [--reps 200] [--fractions 0.05,0.1,0.2]
        [--judges NAME,...] [--jobs 2]

Data: ../shared/data/llmjudge-dl23/: 22 LLM label sets of the LLMJudge challenge for 4,423
TREC DL 2023 passage pairs (25 topics), and NIST's grade (0-3) for every pair (the challenge's
short ids mapped to TREC's by qid_to_qidx.txt and docid_to_docidx.txt). No human qrels are
given to the estimate: every pair is judge-labelled and the audit samples them.

Runs (no DL 2023 runs exist): each topic's pairs ranked by NIST grade + N(0, 0.7) noise
("nist-0.7") and + N(0, 1.5) ("nist-1.5"), at random ("random"), by another judge's grades +
N(0, 0.3) ("other-judge": willia-umbrela1, or Olz-gpt4o for it), and by the scoring judge's
own grades + N(0, 0.3) ("own-judge", the circularity case). Seed 0.

Per label set and audit fraction (5%, 10%, 20% of the 4,423 pairs, expected size of a
Poisson sample under the default "weighted" design), `--reps` audits are drawn (seed = the
repetition); each gives 90% intervals of nDCG@10 and P(rel=2)@10 per (run, topic) and per run
mean, and of the per-topic counts R(grade=g), PPI++'s and the human-only Horvitz-Thompson
estimate's, checked against the values under NIST's grades.

Writes benchmarks/results/judges.json and prints a table. Run from the repository root.
"""

from __future__ import annotations

import argparse
import json
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "llmjudge-dl23"
OUT = Path(__file__).resolve().parent / "results" / "judges.json"
MEASURES = ["nDCG@10", "P(rel=2)@10"]
LEVEL = 0.90
OTHER = ("willia-umbrela1", "Olz-gpt4o")


def _map(name: str) -> dict[str, str]:
    rows = [line.split() for line in (DATA / name).read_text().splitlines() if line.strip()]
    return {short: full for full, short in rows}


def load() -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
    """NIST's grade of each of the 4,423 pairs (TREC ids), and each label set on them."""
    qmap, dmap = _map("qid_to_qidx.txt"), _map("docid_to_docidx.txt")
    nist = pd.read_csv(DATA / "qrels.dl23-passage.txt", sep=r"\s+", header=None,
                       names=["topic", "it", "docno", "grade"], dtype={"topic": str})
    labels = {}
    for f in sorted((DATA / "labels").glob("*.txt")):
        t = pd.read_csv(f, sep=r"\s+", header=None, names=["topic", "it", "docno", "grade"],
                        dtype=str)
        t["topic"], t["docno"] = t.topic.map(qmap), t.docno.map(dmap)
        t["grade"] = t.grade.astype(int)
        labels[f.stem] = t[["topic", "docno", "grade"]]
    pairs = next(iter(labels.values()))[["topic", "docno"]]
    truth = pairs.merge(nist[["topic", "docno", "grade"]], on=["topic", "docno"], how="left")
    assert truth.grade.notna().all(), "a pair without a NIST grade"
    return truth, labels


def make_runs(truth: pd.DataFrame, labels: dict[str, pd.DataFrame], judge: str):
    from unjudged import read_run

    rng = np.random.default_rng(0)
    base = truth.sort_values(["topic", "docno"]).reset_index(drop=True)

    def grades(name: str) -> np.ndarray:
        g = base.merge(labels[name], on=["topic", "docno"], how="left").grade_y
        return g.to_numpy(dtype=float)

    scores = {"nist-0.7": base.grade + rng.normal(0, 0.7, len(base)),
              "nist-1.5": base.grade + rng.normal(0, 1.5, len(base)),
              "random": rng.random(len(base))}
    other = OTHER[1] if judge == OTHER[0] else OTHER[0]
    noise = rng.normal(0, 0.3, len(base))
    scores["other-judge"] = grades(other) + noise
    scores["own-judge"] = grades(judge) + noise
    runs = []
    for name, s in scores.items():
        frame = pd.DataFrame({"query_id": base.topic, "doc_id": base.docno,
                              "score": np.asarray(s, dtype=float)})
        runs.append(read_run(frame, name=name))
    return runs


def one_judge(args: tuple[str, list[float], int, int]) -> list[dict[str, Any]]:
    from unjudged.judges.audit import design_pi, draw
    from unjudged.judges.estimate import estimate_setting
    from unjudged.judges.labels import read_judge
    from unjudged.judges.setting import build_setting
    from unjudged.measures import parse_measures

    judge, fractions, reps = args
    truth, labels = load()
    lab = labels[judge]
    text = "".join(f"{t} 0 {d} {g}\n" for t, d, g in lab.itertuples(index=False))
    st = build_setting(make_runs(truth, labels, judge), None,
                       read_judge(text.encode(), name=judge), levels=4)
    key = pd.Series(np.arange(st.pi.size), index=[
        (st.topics[t], d) for t, d in zip(st.pair_topic, st.pair_docno, strict=True)])
    nist = np.full(st.pi.size, -1)
    nist[key.loc[list(zip(truth.topic, truth.docno, strict=True))].to_numpy()] = truth.grade
    ms = parse_measures(MEASURES)
    full = st.with_audit(np.where(st.labelled, 1.0, 0.0), np.where(st.labelled, nist, -1))
    exact = estimate_setting(full, ms, LEVEL).set_index(["run", "topic", "measure"])
    out = []
    for frac in fractions:
        n = frac * int(st.labelled.sum())
        pi = design_pi(st, n)
        rows = []
        for rep in range(reps):
            hit = draw(pi, rep)
            est = estimate_setting(st.with_audit(np.where(hit, pi, 0.0),
                                                 np.where(hit, nist, -1), pi), ms, LEVEL)
            rows.append(est)
        out.extend(summarise(judge, frac, pd.concat(rows, ignore_index=True), exact))
    return out


def summarise(judge: str, frac: float, rows: pd.DataFrame, exact: pd.DataFrame
              ) -> list[dict[str, Any]]:
    true = exact.estimate.reindex(pd.MultiIndex.from_frame(rows[["run", "topic", "measure"]]))
    rows = rows.assign(truth=true.to_numpy())
    rows["measure"] = np.where(rows.measure.str.startswith("R("), "R(grade=g)", rows.measure)
    rows["level"] = np.where(rows.topic == "all", "run mean", "per topic")
    rows.loc[rows.measure == "R(grade=g)", "level"] = "per topic"
    rows["ppi_cover"] = (rows.lo <= rows.truth) & (rows.truth <= rows.hi)
    rows["ht_cover"] = (rows.human_lo <= rows.truth) & (rows.truth <= rows.human_hi)
    rows["ppi_width"] = rows.hi - rows.lo
    rows["ht_width"] = rows.human_hi - rows.human_lo
    rows["lift_flag"] = (rows.judged - rows.hi > 0) | (rows.judged - rows.lo < 0)
    out = []
    for (measure, level), g in rows.groupby(["measure", "level"]):
        one = {"judge": judge, "fraction": frac, "measure": measure, "level": level,
               "cells": int(len(g)),
               "ppi_coverage": float(g.ppi_cover.mean()), "ht_coverage": float(g.ht_cover.mean()),
               "ppi_width": float(g.ppi_width.mean()), "ht_width": float(g.ht_width.mean()),
               "width_ratio": float(g.ppi_width.mean() / g.ht_width.mean()),
               "lambda": float(g.lam.mean())}
        own = g[g.run == "own-judge"]
        if level == "run mean" and len(own):
            one["own_judge_coverage"] = float(own.ppi_cover.mean())
            one["own_judge_lift"] = float((own.judged - own.truth).mean())
            one["own_judge_flagged"] = float(own.lift_flag.mean())
        out.append(one)
    return out


def unclipped(judge: str, frac: float, reps: int) -> None:
    """nDCG@10 per (run, topic): PPI's mean standard error against the audit alone's, beside
    the widths of the intervals clipped to [0, 1] that the table compares, and how often the
    audit alone's estimate is exactly 0 (no audited document in the top 10), where half of
    its interval is cut off."""
    from unjudged.judges.audit import design_pi, draw
    from unjudged.judges.estimate import _measured, _model
    from unjudged.judges.labels import read_judge
    from unjudged.judges.ppi import interval
    from unjudged.judges.setting import build_setting
    from unjudged.measures import parse_measures

    truth, labels = load()
    text = "".join(f"{t} 0 {d} {g}\n" for t, d, g in labels[judge].itertuples(index=False))
    st = build_setting(make_runs(truth, labels, judge), None,
                       read_judge(text.encode(), name=judge), levels=4)
    key = pd.Series(np.arange(st.pi.size), index=[
        (st.topics[t], d) for t, d in zip(st.pair_topic, st.pair_docno, strict=True)])
    nist = np.full(st.pi.size, -1)
    nist[key.loc[list(zip(truth.topic, truth.docno, strict=True))].to_numpy()] = truth.grade
    m = parse_measures(["nDCG@10"])[0]
    full = st.with_audit(np.where(st.labelled, 1.0, 0.0), np.where(st.labelled, nist, -1))
    true = _measured(full, _model(full, True), m).x.value
    pi = design_pi(st, frac * int(st.labelled.sum()))
    sd, hsd, w, hw, zero, v, hv = [], [], [], [], [], [], []
    for rep in range(reps):
        hit = draw(pi, rep)
        s2 = st.with_audit(np.where(hit, pi, 0.0), np.where(hit, nist, -1), pi)
        x = _measured(s2, _model(s2, True), m).x
        sd.append(np.sqrt(x.var))
        hsd.append(np.sqrt(x.ht_var))
        lo, hi = (np.clip(v, 0, 1) for v in interval(x.value, x.var, LEVEL))
        w.append(hi - lo)
        lo, hi = (np.clip(v, 0, 1) for v in interval(x.ht, x.ht_var, LEVEL))
        hw.append(hi - lo)
        zero.append(x.ht == 0)
        v.append(x.value)
        hv.append(x.ht)
    se = np.mean(sd) / np.mean(hsd) - 1
    matched = [_matched(np.array(a), np.array(b), true) for a, b in ((v, sd), (hv, hsd))]
    print(f"{judge}, audits of {frac:.0%} x {reps}: standard error {se:+.1%} against the "
          f"audit alone's; clipped width {np.mean(w) / np.mean(hw) - 1:+.1%}; the audit "
          f"alone's estimate 0 in {np.mean(zero):.0%} of the cells; at equal coverage (each "
          f"method's intervals scaled to cover 90%: x{matched[0][0]:.2f} and "
          f"x{matched[1][0]:.2f}) PPI's clipped width {matched[0][1] / matched[1][1] - 1:+.1%}")


def _matched(value: np.ndarray, sd: np.ndarray, true: np.ndarray) -> tuple[float, float]:
    """The factor on the standard errors that makes the clipped intervals cover the truth in
    LEVEL of the cells (bisection), and the mean clipped width then: widths compared at equal
    coverage, not at the nominal level that one method may miss."""
    from statistics import NormalDist

    z = NormalDist().inv_cdf(0.5 + LEVEL / 2.0)

    def bounds(f: float) -> tuple[np.ndarray, np.ndarray]:
        return np.clip(value - f * z * sd, 0, 1), np.clip(value + f * z * sd, 0, 1)

    lo_f, hi_f = 0.0, 20.0
    for _ in range(50):
        f = (lo_f + hi_f) / 2.0
        a, b = bounds(f)
        lo_f, hi_f = (f, hi_f) if ((a <= true) & (true <= b)).mean() < LEVEL else (lo_f, f)
    a, b = bounds(hi_f)
    return hi_f, float((b - a).mean())


def judge_kappa() -> dict[str, float]:
    """Each label set's quadratic-weighted kappa with NIST on all 4,423 pairs (to rank them)."""
    from unjudged.judges.diagnose import kappa

    truth, labels = load()
    out = {}
    for name, lab in labels.items():
        m = truth.merge(lab, on=["topic", "docno"], suffixes=("", "_j"))
        out[name] = kappa(m.grade.to_numpy(int), m.grade_j.to_numpy(int), 4, "quadratic")
    return out


def markdown(result: dict[str, Any]) -> str:
    """The docs' table: per label set (best kappa first) and audit size, coverage of the 90%
    intervals (PPI / audit alone) and PPI's width relative to the audit alone."""
    t = pd.DataFrame(result["rows"])
    kap = result.get("kappa") or judge_kappa()
    key = {"nDCG@10 per topic": "t", "nDCG@10 run mean": "r", "R(grade=g) per topic": "R",
           "P(rel=2)@10 run mean": "p"}
    lines = ["| label set | kappa | audit | nDCG@10 (run, topic) cov. | width | "
             "nDCG@10 run mean cov. | width | own-judge run cov. | lift flagged | "
             "R(grade=g) cov. | width | P(rel=2)@10 run mean cov. |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for judge in sorted(t.judge.unique(), key=lambda j: -kap[j]):
        for frac in sorted(t.fraction.unique()):
            g = t[(t.judge == judge) & (t.fraction == frac)]
            cell = {key[f"{r.measure} {r.level}"]: r for r in g.itertuples()
                    if f"{r.measure} {r.level}" in key}

            def cov(k: str, cell: dict = cell) -> str:
                r = cell[k]
                return f"{r.ppi_coverage:.3f} / {r.ht_coverage:.3f}"

            def width(k: str, cell: dict = cell) -> str:
                return f"{cell[k].width_ratio - 1:+.0%}"

            lines.append(
                f"| {judge} | {kap[judge]:.3f} | {frac:.0%} | {cov('t')} | {width('t')} | "
                f"{cov('r')} | {width('r')} | {cell['r'].own_judge_coverage:.3f} | "
                f"{cell['r'].own_judge_flagged:.2f} | {cov('R')} | {width('R')} | {cov('p')} |")
    return "\n".join(lines) + "\n"


COVID = Path(__file__).resolve().parents[2] / "shared" / "data" / "castorini-TREC-COVID" / \
    "round1"


def speed(b: int = 10_000) -> None:
    """The issue's speed target: 143 TREC-COVID round-1 runs x 30 topics with a judge file and
    an audit sample, PPI estimates of nDCG@10 per (run, topic) and run and P(A > B) and ranks
    from b coupled draws. The judge labels every retrieved document the qrels do not grade
    (the qrels' grade flipped for 20% of theirs; the others a draw at the judged documents'
    relevance rate; seed 0); the audit: 5% of them (weighted design), graded from the same
    simulation."""
    import warnings

    from unjudged import read_qrels, read_runs
    from unjudged.data.qrels import qrels_columns
    from unjudged.judges import draw_audit
    from unjudged.judges.estimate import estimate_setting, judge_settings, setting_draws
    from unjudged.measures import parse_measures

    warnings.simplefilter("ignore")
    t0 = time.perf_counter()
    q = read_qrels(str(COVID / "qrels" / "qrels-rnd1.txt"))
    runs = list(read_runs(sorted(str(p) for p in (COVID / "runs").iterdir()), qrels=q))
    qid, _, docno, grade = qrels_columns(q)
    rate = float(np.mean(np.asarray(grade) > 0))
    retrieved = pd.concat([pd.DataFrame({
        "topic": np.repeat(np.array(r.topics, dtype=object), np.diff(r.offsets)),
        "docno": r.docno.to_numpy(zero_copy_only=False)}) for r in runs]).drop_duplicates()
    judged = pd.DataFrame({"topic": qid.to_numpy(zero_copy_only=False),
                           "docno": docno.to_numpy(zero_copy_only=False)})
    rng = np.random.default_rng(0)
    open_ = retrieved.merge(judged, how="left", indicator=True)
    open_ = open_[open_["_merge"] == "left_only"][["topic", "docno"]]
    truth = (rng.random(len(open_)) < rate).astype(int)
    label = np.where(rng.random(len(open_)) < 0.2, 1 - truth, truth)
    judge = "".join(f"{t} 0 {d} {g}\n" for t, d, g in zip(open_.topic, open_.docno, label,
                                                          strict=True)).encode()
    grades = dict(zip(zip(open_.topic, open_.docno, strict=True), truth, strict=True))
    read = time.perf_counter() - t0
    t0 = time.perf_counter()
    audit = draw_audit(runs, q, judge, 0.05 * len(open_), seed=0)
    aq = "".join(f"{t} 0 {d} {grades[t, d]}\n" for t, d in zip(
        audit.topic.to_pylist(), audit.docno.to_pylist(), strict=True)).encode()
    drawn = time.perf_counter() - t0
    # as `estimate --judge J --audit S` (unjudged.estimate_runs(judge=...)): the setting built
    # once, then the rows, then (--pairs) the coupled draws
    t0, c0 = time.perf_counter(), time.process_time()
    st = judge_settings(runs, q, judge, audit=audit, audit_qrels=aq, design=audit.design)[0]
    built, built_cpu = time.perf_counter() - t0, time.process_time() - c0
    t0, c0 = time.perf_counter(), time.process_time()
    ms = parse_measures(["nDCG@10"])
    rows = estimate_setting(st, ms, LEVEL, counts=False)
    est, est_cpu = time.perf_counter() - t0, time.process_time() - c0
    t0, c0 = time.perf_counter(), time.process_time()
    d = setting_draws(st, ms, b)[0]
    pairs, ranks = d.pair_rows(), d.rank_intervals(LEVEL)
    coupled, coupled_cpu = time.perf_counter() - t0, time.process_time() - c0
    print(f"{len(runs)} runs x {len(q.topics)} topics, {len(open_):,} judge-labelled documents, "
          f"audit {len(audit):,}: reading and simulating {read:.1f} s; drawing the audit "
          f"{drawn:.1f} s; wall (CPU) s: the setting {built:.1f} ({built_cpu:.1f}), ppi "
          f"estimates ({len(rows):,} rows) {est:.1f} ({est_cpu:.1f}), {b:,} coupled draws, "
          f"{len(pairs):,} P(A > B) and {len(ranks)} rank intervals {coupled:.1f} "
          f"({coupled_cpu:.1f}); in all {built + est + coupled:.1f} "
          f"({built_cpu + est_cpu + coupled_cpu:.1f})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--fractions", default="0.05,0.1,0.2")
    ap.add_argument("--judges", default="")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--table", action="store_true",
                    help="Only print the docs' table from benchmarks/results/judges.json.")
    ap.add_argument("--speed", action="store_true",
                    help="Only time 143 TREC-COVID round-1 runs with a simulated judge "
                    "and audit (b = 10,000).")
    ap.add_argument("--unclipped", metavar="JUDGE",
                    help="Only compare nDCG@10's per-topic standard errors with the audit "
                    "alone's, for one label set (--fractions' first, --reps audits).")
    args = ap.parse_args()
    if args.unclipped:
        unclipped(args.unclipped, float(args.fractions.split(",")[0]), args.reps)
        return
    if args.speed:
        speed()
        return
    if args.table:
        print(markdown(json.loads(OUT.read_text())), end="")
        return
    fractions = [float(f) for f in args.fractions.split(",")]
    names = args.judges.split(",") if args.judges else \
        sorted(p.stem for p in (DATA / "labels").glob("*.txt"))
    t0 = time.perf_counter()
    rows = []
    with ProcessPoolExecutor(args.jobs) as pool:
        for name, part in zip(names, pool.map(one_judge, [(n, fractions, args.reps)
                                                          for n in names]), strict=True):
            rows += part
            print(f"{name}: done at {time.perf_counter() - t0:.0f} s", flush=True)
    took = time.perf_counter() - t0
    result = {"data": "llmjudge-dl23: 22 LLM label sets, 4,423 DL 2023 passage pairs, 25 topics",
              "reps": args.reps, "level": LEVEL, "design": "weighted",
              "measures": MEASURES + ["R(grade=g)"], "seconds": round(took, 1),
              "kappa": judge_kappa(), "rows": rows}
    if not args.judges:
        # the fractions run now replace theirs; the others' rows (and reps) stay
        old = json.loads(OUT.read_text()) if OUT.exists() else {"rows": []}
        kept = [r for r in old["rows"] if r["fraction"] not in fractions]
        reps = old.get("reps_by_fraction", {str(f): old.get("reps") for f in {
            r["fraction"] for r in kept}})
        result["reps_by_fraction"] = {k: v for k, v in reps.items()
                                      if float(k) not in fractions} | {
            str(f): args.reps for f in fractions}
        result["rows"] = kept + rows
        OUT.write_text(json.dumps(result, indent=1) + "\n")
    table = pd.DataFrame(rows)
    pd.set_option("display.width", 200)
    pd.set_option("display.max_rows", 500)
    print(table.drop(columns=["cells"]).round(3).to_string(index=False))
    print(f"{took:.0f} s")


if __name__ == "__main__":
    main()
