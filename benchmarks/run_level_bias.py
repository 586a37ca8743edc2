"""Where the run-level bias of nDCG@10 comes from on the text views of benchmarks/run_level.py
(Cranfield, CACM, CISI, NPL: 11 generated runs at depth 100 and the MiniLM dense run, a depth-10
pool of bm25, ql-dir and tfidf, the truth the full qrels; the 9 runs outside the pool scored).

A run mean's bias, estimate - truth, averaged over the scored runs, is split per topic into

* numerator: (E[DCG] - true DCG) / true IDCG, the unjudged documents in the run's top 10 drawn
  under the prior (with its per-topic, shared and per-run shifts, as the bootstrap draws them)
  against their true grades, the normaliser held at the truth's;
* normaliser, retrieved: true DCG x (E[1 / IDCG] - 1 / IDCG_ret), the growth's drawn counts
  against the truth's relevant documents among the judged and the retrieved ones;
* normaliser, never retrieved: true DCG x (1 / IDCG_ret - 1 / IDCG), relevant documents no run
  retrieves (no model of the runs can see them);

and the rest (their interaction, the covariance of DCG and 1 / IDCG in the draws). It also
lists the unjudged top-10 documents' predicted relevance rate (the model's at no shift, and as
drawn) against the truth's, and per topic the growth's mean relevant count against the truth's.

    .venv/bin/python benchmarks/run_level_bias.py [--b 200] [--only cranfield,cacm,cisi,npl]
        [--spread 1.0] [--shared-spread 0.5] [--no-misfit]
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from calibration import DATA  # noqa: E402
from text_pools import POOL_MODELS, shallow_pool  # noqa: E402

TEXT = ("cranfield", "cacm", "cisi", "npl")
CUT = 10
_DISC = 1.0 / np.log2(np.arange(2, CUT + 2))


def _ideal(counts: np.ndarray) -> np.ndarray:
    """(..., ) IDCG@CUT of grade counts (..., levels), gain = grade."""
    above = np.cumsum(counts[..., ::-1], axis=-1)[..., ::-1]  # documents of grade >= g
    pos = np.arange(CUT)
    gains = np.zeros(counts.shape[:-1] + (CUT,))
    for g in range(1, counts.shape[-1]):
        gains += pos < above[..., g, None]  # each grade step adds 1 to the gain
    return gains @ _DISC


def _counts(grades: dict[str, int], levels: int) -> np.ndarray:
    v = np.array([g for g in grades.values() if g > 0], dtype=np.int64)
    return np.bincount(np.minimum(v, levels - 1), minlength=levels).astype(float)


def _shifted_gain(p: np.ndarray, shifts: np.ndarray) -> np.ndarray:
    """(cells,) expected gain of grade distributions p (cells, levels) averaged over the
    log-odds shifts (cells, draws) of every tail P(grade >= g)."""
    tails = np.cumsum(p[:, ::-1], axis=-1)[:, ::-1][:, 1:]  # (cells, levels - 1)
    t = np.clip(tails, 1e-12, 1 - 1e-12)
    eta = np.log(t) - np.log1p(-t)
    moved = 1.0 / (1.0 + np.exp(-(eta[:, :, None] + shifts[:, None, :])))
    return moved.sum(axis=1).mean(axis=-1)  # E[gain] = sum_g P(grade >= g) for gain = grade


def view(name: str, b: int, settings_kw: dict[str, Any]) -> dict[str, Any]:
    from unjudged.data.judged import judge
    from unjudged.engine.estimate import EstimateSettings, draw_context, run_shift
    from unjudged.io import read_run
    from unjudged.measures import parse_measures
    from unjudged.strategies.position import run_keys
    from unjudged.text.collections import load_collection
    from unjudged.text.retrieval import generate_runs

    c = load_collection(name, DATA)
    runs = generate_runs(c, depth=100)
    runs.append(read_run(DATA / "minilm-dense-runs" / f"{name}.minilm.run.xz", name="minilm",
                         qrels=c.qrels))
    pool = shallow_pool(c, runs, CUT, POOL_MODELS)
    settings = EstimateSettings(methods=("bootstrap",), b=b, **settings_kw)
    ctx = draw_context(runs, pool, parse_measures([f"nDCG@{CUT}"]), settings)
    model, growth = ctx.model, ctx.growth[CUT]
    topics = list(pool.topics)
    levels = growth.counts.shape[-1]
    full, judged = c.qrels.to_dict(), pool.to_dict()
    seen: dict[str, set[str]] = {t: set() for t in topics}
    for r in runs:
        for t, docs in r.to_dict().items():
            seen.setdefault(t, set()).update(docs)
    jc = np.array([_counts(judged.get(t, {}), levels) for t in topics])
    true_c = np.array([_counts(full.get(t, {}), levels) for t in topics])
    ret_c = np.array([_counts({d: g for d, g in full.get(t, {}).items()
                               if d in seen[t] or d in judged.get(t, {})}, levels)
                      for t in topics])
    gi = growth._topic_index
    grown = growth.counts[:, [gi[t] for t in topics]].astype(float)  # (b, topics, levels)
    idcg_m = _ideal(jc[None] + grown)
    inv_m = np.where(idcg_m > 0, 1.0 / np.where(idcg_m > 0, idcg_m, 1.0), 0.0).mean(axis=0)
    idcg_t, idcg_r = _ideal(true_c), _ideal(ret_c)
    ok = idcg_t > 0  # topics with a relevant document (nDCG's topics)
    inv_t = np.where(ok, 1.0 / np.where(ok, idcg_t, 1.0), 0.0)
    inv_r = np.where(idcg_r > 0, 1.0 / np.where(idcg_r > 0, idcg_r, 1.0), 0.0)
    rng = np.random.default_rng(0)
    z_topic = rng.standard_normal((len(topics), 400))
    z_shared = rng.standard_normal(400)
    rows = []
    for r in runs:
        if r.name in POOL_MODELS:
            continue
        jp = judge(r, pool, settings.policies)
        jt = judge(r, c.qrels, settings.policies)
        keys = run_keys(r, jp.topics, jp.grades.shape[-1])
        shift = run_shift(r, jp, run_keys(r, jp.topics, min(jp.depth, 100)), ctx, settings)
        at = [topics.index(t) for t in jp.topics]
        gp, gt = jp.grades[:, :CUT], np.maximum(jt.grades[:, :CUT], 0)
        un = gp < 0
        rows_i, cols_i = np.nonzero(un)
        p = model.grade_probabilities([jp.topics[i] for i in rows_i], keys[rows_i, cols_i],
                                      levels)
        ti = np.array(at)[rows_i]
        run_z = rng.standard_normal(400)
        base = settings.spread * z_topic[ti] + settings.shared_spread * z_shared[None]
        if shift is not None:
            base = base + (shift.mean + shift.sd * run_z)[None]
        e0 = (p * np.arange(levels)).sum(axis=-1)  # no shift
        e1 = _shifted_gain(p, base)
        disc = _DISC[cols_i]
        dcg_t = (gt * _DISC[: gt.shape[1]]).sum(axis=1)
        judged_dcg = (np.maximum(gp, 0) * _DISC[: gp.shape[1]]).sum(axis=1)
        e_dcg = judged_dcg + np.bincount(rows_i, weights=e1 * disc, minlength=len(at))
        e_dcg0 = judged_dcg + np.bincount(rows_i, weights=e0 * disc, minlength=len(at))
        a = np.array(at)
        keep = ok[a]
        num = ((e_dcg - dcg_t) * inv_t[a])[keep].mean()
        num0 = ((e_dcg0 - dcg_t) * inv_t[a])[keep].mean()
        d_ret = (dcg_t * (inv_m[a] - inv_r[a]))[keep].mean()
        d_unret = (dcg_t * (inv_r[a] - inv_t[a]))[keep].mean()
        est = (e_dcg * inv_m[a])[keep].mean()
        truth = (dcg_t * inv_t[a])[keep].mean()
        rows.append({"run": r.name, "unjudged": int(un.sum()),
                     "true_rate": float((gt[un] > 0).mean()) if un.any() else 0.0,
                     "p_rate": float((1 - p[:, 0]).mean()) if un.any() else 0.0,
                     "p_rate_drawn": float(_shifted_gain(
                         np.stack([p[:, 0], 1 - p[:, 0]], -1), base).mean()) if un.any()
                     else 0.0,
                     "misfit": None if shift is None else (round(shift.mean, 3),
                                                           round(shift.sd, 3)),
                     "bias": est - truth, "numerator": num, "numerator_noshift": num0,
                     "norm_retrieved": d_ret, "norm_unretrieved": d_unret,
                     "rest": est - truth - num - d_ret - d_unret})
    grown_rel = grown[..., 1:].sum(axis=-1).mean(axis=0)
    truth_rel = (ret_c - jc)[:, 1:].sum(axis=-1)
    mean = {k: float(np.mean([r[k] for r in rows])) for k in
            ("bias", "numerator", "numerator_noshift", "norm_retrieved", "norm_unretrieved",
             "rest", "true_rate", "p_rate", "p_rate_drawn")}
    return {"view": name, "runs": rows, "mean": mean,
            "pool_misfit": None if ctx.misfit is None else vars(ctx.misfit),
            "grown_rel_per_topic": float(grown_rel.mean()),
            "truth_unjudged_retrieved_rel_per_topic": float(truth_rel.mean()),
            "truth_unretrieved_rel_per_topic": float((true_c - ret_c)[:, 1:].sum(-1).mean())}


def main(argv: list[str] | None = None) -> int:
    from unjudged.errors import UnjudgedWarning

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--b", type=int, default=200)
    ap.add_argument("--only", default=",".join(TEXT))
    ap.add_argument("--spread", type=float, default=None)
    ap.add_argument("--shared-spread", type=float, default=None)
    ap.add_argument("--no-misfit", action="store_true")
    ap.add_argument("--out-json", default=str(HERE / "results" / "run_level_bias.json"))
    args = ap.parse_args(argv)
    kw: dict[str, Any] = {}
    if args.spread is not None:
        kw["spread"] = args.spread
    if args.shared_spread is not None:
        kw["shared_spread"] = args.shared_spread
    if args.no_misfit:
        kw["misfit"] = False
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnjudgedWarning)
        for name in args.only.split(","):
            v = view(name, args.b, kw)
            out.append(v)
            m = v["mean"]
            print(f"{name}: bias {m['bias']:+.4f} = numerator {m['numerator']:+.4f} "
                  f"(no shift {m['numerator_noshift']:+.4f}) + normaliser retrieved "
                  f"{m['norm_retrieved']:+.4f} + never retrieved {m['norm_unretrieved']:+.4f}"
                  f" + rest {m['rest']:+.4f}; unjudged top-10 relevant: true "
                  f"{m['true_rate']:.3f}, model {m['p_rate']:.3f}, drawn {m['p_rate_drawn']:.3f};"
                  f" grown rel/topic {v['grown_rel_per_topic']:.2f} vs truth "
                  f"{v['truth_unjudged_retrieved_rel_per_topic']:.2f} (+"
                  f"{v['truth_unretrieved_rel_per_topic']:.2f} never retrieved); pool misfit "
                  f"{v['pool_misfit']}", flush=True)
    Path(args.out_json).write_text(json.dumps(
        {"command": "python benchmarks/run_level_bias.py " + " ".join(
            argv if argv is not None else sys.argv[1:]), "views": out}, indent=1,
        default=float) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
