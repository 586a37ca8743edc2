"""How far the position prior is off for a new run *like the pool's*: leave one pooled run out.

For each pooled run, the judged documents only it brought into the pool (in its top d, d its
judged depth, and in no other pooled run's) are taken out of the qrels, the prior's model is
fitted again on the rest (the features still from every run, as for a new run passed with
--pool-runs), and those documents are predicted. Per run, the log-odds shift s with
sum sigmoid(logit p + s) = the documents found relevant; over the runs, its mean and spread
(issue 30, item 3: a collection-level shift estimated from the data). This is Zobel's (1998)
leave-one-run-out test of a pool's reusability, applied to the prior instead of to the scores.

With more than MIN_RUNS pooled runs (round 1), each held-out run's misfit is also predicted as
`estimate` predicts a run's (unjudged.strategies.misfit: the misfit of its remaining judged top
100 under the refitted prior, shrunk, the pool runs' centre and tau from every run's judged
misfit), and the held-out shift is compared with that normal: z-scores, and how often the
shift lies in its 90% interval (item 2: is a run's misfit drawn with the right spread?).

Views: TREC-COVID round 1 (the 143 runs on qrels-rnd1; pooled: runs judged to depth 7 on
half their topics or more) and Cranfield, CACM, CISI, NPL (the 12 runs of run_level.py's dense
view on the depth-10 pool of BM25, QL and TF-IDF, which are the pooled runs).

    .venv/bin/python benchmarks/prior_holdout.py [--only covid,cranfield,...]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from calibration import DATA  # noqa: E402
from text_pools import POOL_MODELS, covid_setting  # noqa: E402

OUT = HERE / "results" / "prior_holdout.json"
VIEWS = ("covid", "cranfield", "cacm", "cisi", "npl")


def judged_depth(run: Any, qrels: Any) -> float:
    """The median over the run's topics of its leading judged ranks."""
    from unjudged.data.judged import judge

    judged = judge(run, qrels).grades >= 0
    lead = np.where(judged.all(axis=1), judged.shape[1], np.argmin(judged, axis=1))
    return float(np.median(lead))


def held_out(runs: list, qrels: Any, pooled: dict[str, float]) -> list[dict[str, Any]]:
    """Per pooled run (name: its judged depth): its unique judged documents, how many are
    relevant, what the prior refitted without them predicts, and the shift between the two
    (misfit.offset: the log-odds shift of highest likelihood, which makes the predictions add
    up to the relevant documents, with its standard error)."""
    from unjudged.strategies import position as P
    from unjudged.strategies.misfit import DEPTH, Pool, RunShift, offset

    topics = list(qrels.topics)
    tk, index = P.topic_keys(topics), {t: i for i, t in enumerate(topics)}
    model = P.PositionModel.build(runs, qrels)
    tops = {}
    for r in runs:
        if r.name in pooled:
            k, _, _ = P._row_keys(r, index, tk, int(pooled[r.name]))
            tops[r.name] = np.unique(k)
    every, count = np.unique(np.concatenate(list(tops.values())), return_counts=True)
    once = every[count == 1]
    jk, jt, jg = P._judged(qrels, topics, tk)
    order = np.argsort(jk)
    jk, jt, jg = jk[order], jt[order], jg[order]
    levels = max(int(qrels.key_grades.max(initial=0)) + 1, 2)
    by_name = {r.name: r for r in runs}

    def judged_misfit(run: Any, m: Any, keep: np.ndarray) -> tuple[float, float]:
        """misfit.offset of the run's judged top 100 (those `keep` leaves) under `m`."""
        k, t, _ = P._row_keys(run, index, tk, DEPTH)
        at = np.minimum(np.searchsorted(jk, k), jk.size - 1)
        ok = (jk[at] == k) & keep[at]
        p = m.probabilities(t[ok], k[ok], levels)[:, 1:].sum(axis=1)
        return offset((jg[at[ok]] >= 1).astype(float), p)

    everything = np.ones(jk.size, dtype=bool)
    misfits = np.array([judged_misfit(r, model, everything) for r in runs])
    pool = Pool.of(misfits[:, 0], misfits[:, 1])
    out = []
    for name, k in tops.items():
        mine = np.intersect1d(k, once)
        at = np.minimum(np.searchsorted(jk, mine), jk.size - 1)
        found = jk[at] == mine
        at = at[found]
        if at.size < 5:
            continue
        keep = np.ones(jk.size, dtype=bool)
        keep[at] = False
        fit = P._fit_judged(jk[keep], jt[keep], jg[keep], len(topics), model.keys,
                            model.best, model.votes, 1, levels)
        refit = P.PositionModel(model.keys, model.topic, model.best, model.votes, topics,
                                *fit[:3], 1, False, *fit[3:])
        p = refit.probabilities(jt[at], jk[at], levels)[:, 1:].sum(axis=1)
        y = (jg[at] >= 1).astype(float)
        shift, error = offset(y, p)
        row = {"run": name, "documents": int(at.size), "relevant": float(y.mean()),
               "predicted": float(p.mean()), "shift": shift, "shift_error": error}
        if pool.runs:
            own = RunShift.of(*judged_misfit(by_name[name], refit, keep), pool, 0)
            row.update(predicted_mean=own.mean, predicted_sd=own.sd, pool_centre=pool.centre,
                       pool_tau=pool.tau)
        out.append(row)
    return out


def view(name: str) -> dict[str, Any]:
    t0 = time.perf_counter()
    if name == "covid":
        runs, qrels, _ = covid_setting(DATA)
        depths = {r.name: judged_depth(r, qrels) for r in runs}
        pooled = {n: d for n, d in depths.items() if d >= 7}
    else:
        from dense_bias import _setting

        _, runs, _, qrels = _setting(name)
        pooled = {r.name: judged_depth(r, qrels) for r in runs if r.name in POOL_MODELS}
    rows = held_out(runs, qrels, pooled)
    n = np.array([r["documents"] for r in rows], dtype=float)
    s = np.array([r["shift"] for r in rows])
    # the spread between runs less the binomial noise of each run's shift (method of moments:
    # a shift fitted on n documents of relevance rate q has variance about 1 / (n q (1 - q)))
    q = np.array([r["relevant"] for r in rows])
    noise = float(np.mean(1.0 / np.maximum(n * q * (1 - q), 1e-9)))
    return {"view": name, "runs": len(runs), "pooled": len(pooled), "held_out_runs": len(rows),
            "documents": int(n.sum()),
            "relevant": float(np.average(q, weights=n)),
            "predicted": float(np.average([r["predicted"] for r in rows], weights=n)),
            "shift_mean": float(s.mean()), "shift_median": float(np.median(s)),
            "shift_sd": float(s.std(ddof=1)) if s.size > 1 else 0.0,
            "shift_sd_less_noise": float(np.sqrt(max(s.var(ddof=1) - noise, 0.0)))
            if s.size > 1 else 0.0,
            **_misfit_summary(rows),
            "seconds": round(time.perf_counter() - t0, 1), "per_run": rows}


def _misfit_summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """How the held-out shifts sit in the misfit's predicted normals (runs whose held-out
    documents are all relevant or none are left out: their shift is unbounded)."""
    rows = [r for r in rows if "predicted_mean" in r and r["shift_error"] < 5]
    if not rows:
        return {}
    s, e = (np.array([r[k] for r in rows]) for k in ("shift", "shift_error"))
    mu, sd = (np.array([r[k] for r in rows]) for k in ("predicted_mean", "predicted_sd"))
    z = (s - mu) / np.sqrt(sd ** 2 + e ** 2)
    resid = float(np.sqrt(max(float((s - mu).var(ddof=1) - np.mean(e ** 2)), 0.0)))
    return {"misfit_runs": len(rows), "misfit_z_mean": float(z.mean()),
            "misfit_z_sd": float(z.std(ddof=1)),
            "misfit_cover90": float((np.abs(z) <= 1.6449).mean()),
            "misfit_corr": float(np.corrcoef(mu, s)[0, 1]),
            "misfit_residual_sd": resid, "misfit_tau": rows[0]["pool_tau"],
            "misfit_predicted_sd": float(sd.mean())}


def markdown(results: list[dict[str, Any]]) -> str:
    lines = ["| view | pooled runs held out | their unique judged documents | relevant | "
             "predicted | shift: mean (median) | sd between runs (less binomial noise) |",
             "|---|---|---|---|---|---|---|"]
    for r in results:
        lines.append(f"| {r['view']} | {r['held_out_runs']} of {r['pooled']} | "
                     f"{r['documents']:,} | {r['relevant']:.3f} | {r['predicted']:.3f} | "
                     f"{r['shift_mean']:+.2f} ({r['shift_median']:+.2f}) | "
                     f"{r['shift_sd']:.2f} ({r['shift_sd_less_noise']:.2f}) |")
    mis = [r for r in results if "misfit_runs" in r]
    if mis:
        lines += ["", "| view | runs | corr(predicted misfit, held-out shift) | z: mean, sd | "
                  "held-out shift in its 90% interval | residual sd less noise | tau |",
                  "|---|---|---|---|---|---|---|"]
        for r in mis:
            lines.append(f"| {r['view']} | {r['misfit_runs']} | {r['misfit_corr']:.2f} | "
                         f"{r['misfit_z_mean']:+.2f}, {r['misfit_z_sd']:.2f} | "
                         f"{r['misfit_cover90']:.3f} | {r['misfit_residual_sd']:.2f} | "
                         f"{r['misfit_tau']:.2f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default=",".join(VIEWS))
    ap.add_argument("--out", type=Path, default=OUT)
    a = ap.parse_args(argv)
    results = [view(v) for v in a.only.split(",")]
    a.out.write_text(json.dumps(results, indent=1) + "\n")
    print(markdown(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
