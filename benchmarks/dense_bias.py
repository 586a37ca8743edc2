"""Why the MiniLM dense run's nDCG@10 is estimated low on the text views of
benchmarks/run_level.py ("<collection>: the dense run alone": the dense run among the 12 runs
given as --pool-runs, a depth-10 pool of bm25, ql-dir and tfidf, truth the full qrels).

``split``: the bootstrap's own draws for the dense run (the bench's context, run shift and
seed), per topic with a relevant document: the drawn ideal DCG I and DCG D against the truth's
I* and D*, averaged over topics, the bias split into

* numerator: E[D / I] - D* E[1 / I], the unjudged documents' drawn grades against their true
  ones at the drawn normalisers (the first-order (E[D] - D*) / I*, the draws' covariance of D
  and 1 / I, and the product of the two errors are printed too);
* normaliser: D* (E[1 / I] - 1 / I*), of relevant documents some run retrieved or the pool
  judged (retrieved) and of those no run retrieves (never).

``--alone`` estimates the dense run with no --pool-runs instead (the prior's fallback).
``--votes`` prints, per run outside the pool, the unjudged top-10 documents' true and predicted
relevance by votes, and the run's misfit (misfit.offset) on its judged top 100, its judged top
10 and its unjudged top 10.

    .venv/bin/python benchmarks/dense_bias.py [--b 200] [--alone] [--no-misfit] [--votes]
"""

from __future__ import annotations

import argparse
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


def _idcg(counts: np.ndarray) -> float:
    """IDCG@CUT of grade counts (levels,), gain = grade."""
    above = np.cumsum(counts[::-1])[::-1]  # documents of grade >= g
    gains = sum((np.arange(CUT) < above[g]).astype(float) for g in range(1, counts.size))
    return float(np.asarray(gains) @ _DISC) if counts.size > 1 else 0.0


def _counts(grades: dict[str, int], levels: int) -> np.ndarray:
    v = np.array([g for g in grades.values() if g > 0], dtype=np.int64)
    return np.bincount(np.minimum(v, levels - 1), minlength=levels).astype(float)


def _setting(name: str) -> tuple[Any, list[Any], Any, Any]:
    from unjudged.io import read_run
    from unjudged.text.collections import load_collection
    from unjudged.text.retrieval import generate_runs

    c = load_collection(name, DATA)
    runs = generate_runs(c, depth=100)
    dense = read_run(DATA / "minilm-dense-runs" / f"{name}.minilm.run.xz", name="minilm",
                     qrels=c.qrels)
    runs.append(dense)
    return c, runs, dense, shallow_pool(c, runs, CUT, POOL_MODELS)


def split(name: str, b: int, alone: bool, misfit: bool) -> dict[str, Any]:
    from unjudged.data.judged import judge
    from unjudged.engine.estimate import EstimateSettings, draw_context, judge_for, run_shift
    from unjudged.measures import parse_measures
    from unjudged.strategies import bootstrap as bs
    from unjudged.strategies import fill
    from unjudged.strategies.position import run_keys

    c, runs, dense, pool = _setting(name)
    ms = parse_measures([f"nDCG@{CUT}"])
    s = EstimateSettings(methods=("bootstrap",), b=b, seed=0, misfit=misfit)
    ctx = draw_context([dense] if alone else runs, pool, ms, s)
    jp = judge_for(dense, pool, ms, s.policies)
    keys = run_keys(dense, jp.topics, jp.depth)
    shift = run_shift(dense, jp, keys, ctx, s)
    top = fill.top(jp, CUT)
    how = bs.Draw(s.prior, s.seed, keys[:, :top.depth], ctx.model, s.spread, s.shared_spread,
                  s.empty_run, ctx.growth_at(CUT), shift)
    n = len(top.topics)
    drawn_dcg, drawn_idcg, nd, un_rel = (np.zeros((b, n)) for _ in range(4))
    for t0, t1, i0, i1 in bs.batches(n, b, top.depth):
        batch = bs.samples(top, how, t0, t1, i0, i1, (False,))[False]
        g = np.maximum(batch.grades[..., :CUT], 0)
        drawn_dcg[i0:i1, t0:t1] = g @ _DISC[: g.shape[-1]]
        ig = np.maximum(batch.pool.ideal_grades(CUT), 0)[..., :CUT]
        drawn_idcg[i0:i1, t0:t1] = np.broadcast_to(ig @ _DISC[: ig.shape[-1]], (i1 - i0, t1 - t0))
        nd[i0:i1, t0:t1] = ms[0].compute(batch)
        un = top.grades[t0:t1, :CUT] < 0
        un_rel[i0:i1, t0:t1] = ((batch.grades[..., :CUT] > 0) & un[None]).sum(-1)
    full, judged = c.qrels.to_dict(), pool.to_dict()
    levels = max(int(c.qrels.key_grades.max()) + 1, 2)
    jt = judge(dense, c.qrels, s.policies.but(complete=False))
    tix = {t: i for i, t in enumerate(jt.topics)}
    seen: dict[str, set[str]] = {}
    for r in runs:
        for t, docs in r.to_dict().items():
            seen.setdefault(t, set()).update(docs)
    rows = []
    for i, t in enumerate(top.topics):
        i_true = _idcg(_counts(full.get(t, {}), levels))
        if i_true <= 0:
            continue
        i_ret = _idcg(_counts({d: g for d, g in full.get(t, {}).items()
                               if d in seen.get(t, ()) or d in judged.get(t, {})}, levels))
        gt = np.maximum(jt.grades[tix[t], :CUT], 0)
        d_true = float(gt @ _DISC[: gt.size])
        un = top.grades[i, :CUT] < 0
        dd, di = drawn_dcg[:, i], drawn_idcg[:, i]
        inv = np.where(di > 0, 1 / np.where(di > 0, di, 1), 0.0)
        rows.append({
            "est": float(nd[:, i].mean()), "truth": d_true / i_true,
            "numerator": float(np.mean(dd * inv)) - d_true * float(inv.mean()),
            "first_order": float((dd.mean() - d_true) / i_true),
            "cov": float(np.mean(dd * inv) - dd.mean() * inv.mean()),
            "cross": float((dd.mean() - d_true) * (inv.mean() - 1 / i_true)),
            "norm_retrieved": d_true * (float(inv.mean()) - 1 / i_ret) if d_true > 0 else 0.0,
            "norm_never": d_true * (1 / i_ret - 1 / i_true) if d_true > 0 else 0.0,
            "un": int(un.sum()), "un_true": int((gt[un] > 0).sum()),
            "un_drawn": float(un_rel[:, i].mean()), "idcg_drawn": float(di.mean()),
            "idcg_true": i_true, "idcg_retrieved": i_ret,
            "idcg_judged": _idcg(_counts(judged.get(t, {}), levels))})
    out = {k: float(np.mean([r[k] for r in rows])) for k in rows[0]}
    out["bias"] = out["est"] - out["truth"]
    total = max(sum(r["un"] for r in rows), 1)
    out["rate_true"] = sum(r["un_true"] for r in rows) / total
    out["rate_drawn"] = sum(r["un_drawn"] for r in rows) / total
    out["shift"] = None if shift is None else (shift.mean, shift.sd)
    out["fallback"] = bool(ctx.model.fallback)
    return out


def votes(name: str) -> list[str]:
    from unjudged.data.judged import judge
    from unjudged.engine.estimate import EstimateSettings, draw_context
    from unjudged.measures import parse_measures
    from unjudged.strategies.misfit import offset
    from unjudged.strategies.position import run_keys

    c, runs, _, pool = _setting(name)
    s = EstimateSettings(methods=("bootstrap",), b=10)
    m = draw_context(runs, pool, parse_measures([f"nDCG@{CUT}"]), s).model
    lines = [f"{name}: slopes (log2 best, log2 1+votes) {np.round(m.slope, 2).tolist()}, "
             f"vote floor {m.vote_floor}"]
    for r in runs:
        if r.name in POOL_MODELS:
            continue
        jp, jt = judge(r, pool, s.policies), judge(r, c.qrels, s.policies.but(complete=False))
        depth = min(jp.grades.shape[1], 100)
        keys = run_keys(r, jp.topics, depth)
        rows, cols = np.nonzero(keys != 0)
        _, v = m._best_votes(keys[rows, cols])
        p = 1 - m.grade_probabilities([jp.topics[i] for i in rows], keys[rows, cols], 2)[:, 0]
        j = jp.grades[:, :depth][rows, cols] >= 0
        y = np.where(j, jp.grades[:, :depth][rows, cols] > 0,
                     jt.grades[:, :depth][rows, cols] > 0).astype(float)
        top = cols < CUT
        parts = [f"misfit judged top 100 {offset(y[j], p[j])[0]:+.2f}, judged top 10 "
                 f"{offset(y[j & top], p[j & top])[0]:+.2f}, unjudged top 10 "
                 f"{offset(y[~j & top], p[~j & top])[0]:+.2f}"]
        for lo, hi in ((0, 2), (3, 5), (6, 12)):
            k = ~j & top & (v >= lo) & (v <= hi)
            parts.append(f"unjudged top 10 with {lo}-{hi} votes: {int(k.sum())}, "
                         + (f"{y[k].mean():.3f} true / {p[k].mean():.3f} model" if k.any()
                            else "-"))
        lines.append(f"  {r.name:12s} " + "; ".join(parts))
    return lines


def main(argv: list[str] | None = None) -> int:
    from unjudged.errors import UnjudgedWarning

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--b", type=int, default=200)
    ap.add_argument("--only", default=",".join(TEXT))
    ap.add_argument("--alone", action="store_true", help="no --pool-runs")
    ap.add_argument("--no-misfit", action="store_true")
    ap.add_argument("--votes", action="store_true")
    args = ap.parse_args(argv)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnjudgedWarning)
        for name in args.only.split(","):
            if args.votes:
                print("\n".join(votes(name)), flush=True)
                continue
            a = split(name, args.b, args.alone, not args.no_misfit)
            shift = "-" if a["shift"] is None else "{:+.3f}, {:.3f}".format(*a["shift"])
            print(f"{name}: bias {a['bias']:+.4f} = numerator {a['numerator']:+.4f} (first "
                  f"order {a['first_order']:+.4f}, covariance {a['cov']:+.4f}, product "
                  f"{a['cross']:+.4f}) + normaliser retrieved {a['norm_retrieved']:+.4f} + "
                  f"never retrieved {a['norm_never']:+.4f}; unjudged top-10 relevant: true "
                  f"{a['rate_true']:.3f}, drawn {a['rate_drawn']:.3f}; ideal DCG drawn "
                  f"{a['idcg_drawn']:.2f}, truth's retrieved {a['idcg_retrieved']:.2f}, truth "
                  f"{a['idcg_true']:.2f}, judged {a['idcg_judged']:.2f}; run shift {shift}; "
                  f"fallback {a['fallback']}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
