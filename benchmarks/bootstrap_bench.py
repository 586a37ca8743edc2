"""Speed benchmark of the bootstrapped nDCG@10 estimate (not a test).

All round-1 TREC-COVID runs x 30 topics, b = 10,000 iterations, prior pool+run: the package
in-process (`estimate_runs`) and as a whole process (`unjudged estimate`), next to a pure-Python
reference (bootstrap_reference.py) on a sample of (run, topic) pairs, whose bootstrap means and
percentiles must agree with the package's.

    .venv/bin/python benchmarks/bootstrap_bench.py [--b 10000] [--reference-pairs 20|all]

Paper (seed 000, section 3.2): 2.84 s per topic for 4 runs = 0.71 s per (run, topic) pair.
Target here: under 2 ms per pair, and all runs x 30 topics in under a minute on 2 cores.
"""

from __future__ import annotations

import argparse
import importlib.metadata as md
import json
import math
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
import bootstrap_reference as ref  # noqa: E402  (found through the path set just above)

K = 10
MEASURE = "nDCG@10"
PAPER_S_PER_PAIR = 2.84 / 4  # 2.84 s per topic for 4 runs (AMD Epyc 1.8 GHz, TrecTools)
TARGET_MS_PER_PAIR = 2.0
TARGET_ALL_S = 60.0
STATS = ("mean", "mode", "std", "p5", "p25", "p50", "p75", "p90", "p95")
#: seed 000's bootstrap (what bootstrap_reference.py implements): pool+run prior, no uncertainty
#: of the prior; the package's defaults (position prior, spreads) are timed separately
SEED_DRAWS = {"prior": "pool+run", "spread": 0.0, "shared_spread": 0.0}


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--b", type=int, default=10_000, help="bootstrap iterations (10000)")
    p.add_argument("--runs", default=str(ROOT / "../shared/data/castorini-TREC-COVID/round1/runs"),
                   help="directory of round-1 run files (.xz ok)")
    p.add_argument("--qrels",
                   default=str(ROOT / "../shared/data/castorini-TREC-COVID/round1/qrels"
                               / "qrels-rnd1.txt"),
                   help="round-1 qrels (qrels-rnd1, the depth-7 pool)")
    p.add_argument("--reference-pairs", default="20",
                   help="(run, topic) pairs to time the Python reference on, or 'all' (every "
                   "pair with an unjudged document in the top 10; a few minutes)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (both implementations)")
    p.add_argument("--pair-seed", type=int, default=1, help="seed choosing the sampled pairs")
    p.add_argument("--workers", type=int, default=2,
                   help="also time estimate_runs / the CLI with this many processes (1 = skip)")
    p.add_argument("--repeats", type=int, default=1, help="best of N for the package timings")
    p.add_argument("--no-cli", action="store_true", help="skip the whole-process timings")
    p.add_argument("--out", default=str(HERE / "results" / "bootstrap.json"))
    return p.parse_args(argv)


def best_of(n: int, fn):
    times, out = [], None
    for _ in range(max(1, n)):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), times, out


def warm(paths):
    for p in paths:
        with open(p, "rb") as f:
            while f.read(1 << 20):
                pass


# ------------------------------------------------------------------------------- package

def time_package(args, run_files):
    from unjudged.engine.estimate import estimate_runs
    from unjudged.io import read_qrels, read_runs
    from unjudged.measures import parse_measures

    ms = parse_measures([MEASURE])

    def read():
        q = read_qrels(args.qrels)
        return q, read_runs([args.runs], qrels=q)

    t_read, read_times, (q, runs) = best_of(args.repeats, read)

    def est(workers=1):
        return estimate_runs(runs, q, ms, methods=["bootstrap"], b=args.b, seed=args.seed,
                             workers=workers, **SEED_DRAWS)

    t_est, est_times, estimates = best_of(args.repeats, est)
    pairs = sum(len(r.topics) for r in estimates.runs)
    out = {"runs": len(runs), "pairs": pairs,
           "read_s": t_read, "estimate_s": t_est, "total_s": t_read + t_est,
           "ms_per_pair": 1e3 * t_est / pairs,
           "ms_per_pair_with_reading": 1e3 * (t_read + t_est) / pairs,
           "all_read_times": read_times, "all_estimate_times": est_times}
    if args.workers > 1:
        t_par, par_times, par = best_of(args.repeats, lambda: est(args.workers))
        same = all((a.stats == b.stats).all()
                   for a, b in zip(estimates.runs, par.runs, strict=True))
        out["parallel"] = {"workers": args.workers, "estimate_s": t_par,
                           "ms_per_pair": 1e3 * t_par / pairs, "all_times": par_times,
                           "identical_to_serial": bool(same)}
    return out, q, estimates


def time_package_on(pairs, tops, args):
    """The package on exactly the sampled pairs: one small run per run name holding only its
    sampled topics' top 10 (streams depend on the names only, so the draws are the same)."""
    from unjudged.engine.estimate import estimate_runs
    from unjudged.io import read_qrels, read_run
    from unjudged.measures import parse_measures

    q = read_qrels(args.qrels)
    by_run: dict[str, dict[str, dict[str, float]]] = {}
    for run, topic in pairs:
        docs = tops[run][topic]
        by_run.setdefault(run, {})[topic] = {d: float(K - i) for i, d in enumerate(docs)}
    runs = [read_run(d, name=name) for name, d in by_run.items()]
    ms = parse_measures([MEASURE])
    t, times, est = best_of(args.repeats, lambda: estimate_runs(
        runs, q, ms, methods=["bootstrap"], b=args.b, seed=args.seed, **SEED_DRAWS))
    return t, times, est


def time_cli(args, workers=1, extra=()):
    exe = ROOT / ".venv" / "bin" / "unjudged"
    argv = [str(exe) if exe.exists() else "unjudged", "estimate", args.qrels, args.runs,
            "-m", MEASURE, "--methods", "bootstrap", "-f", "tsv", *extra]
    if not extra:  # seed 000's bootstrap, which the reference implements
        argv += ["--prior", "pool+run", "--spread", "0", "--shared-spread", "0"]
    if args.b != 10_000:
        argv += ["-b", str(args.b)]
    if args.seed != 0:
        argv += ["--seed", str(args.seed)]
    if workers > 1:
        argv += ["--workers", str(workers)]
    times, proc = [], None
    for _ in range(max(1, args.repeats)):
        t = time.perf_counter()
        proc = subprocess.run(argv, check=False, capture_output=True, text=True)
        times.append(time.perf_counter() - t)
    rows = {}
    if proc.returncode == 0:
        lines = proc.stdout.splitlines()
        head = lines[0].split("\t")
        for line in lines[1:]:
            f = dict(zip(head, line.split("\t"), strict=True))
            rows[f["run"]] = float(f["mean"])
    return {"command": " ".join(_rel(a) for a in argv), "seconds": min(times),
            "all_times": times, "returncode": proc.returncode,
            "stderr_tail": proc.stderr.strip().splitlines()[-3:]}, rows


def _rel(a: str) -> str:
    try:
        return os.path.relpath(a, ROOT) if os.path.exists(a) else a
    except ValueError:
        return a


# ------------------------------------------------------------------------------- reference

def reference_inputs(args, run_files):
    qrels = ref.read_qrels(args.qrels)
    tops, unjudged_pairs, all_pairs = {}, [], 0
    for path in run_files:
        name, top = ref.read_run_top(path, K)
        if name in tops:
            raise SystemExit(f"two run files with tag {name!r}")
        tops[name] = top
        for topic, docs in top.items():
            if topic not in qrels:
                continue
            all_pairs += 1
            judgments = qrels[topic]
            if any(judgments.get(d, -1) < 0 for d in docs):
                unjudged_pairs.append((name, topic))
    return qrels, tops, unjudged_pairs, all_pairs


def choose_pairs(unjudged_pairs, how: str, seed: int):
    if how == "all":
        return list(unjudged_pairs)
    n = min(int(how), len(unjudged_pairs))
    return sorted(random.Random(seed).sample(unjudged_pairs, n))


def time_reference(pairs, qrels, tops, args):
    t0 = time.perf_counter()
    prepared = [ref.prepare(run, topic, tops[run][topic], qrels[topic], K) for run, topic in pairs]
    result = ref.estimate(prepared, args.b, args.seed)
    seconds = time.perf_counter() - t0
    unjudged = [len(p.unjudged_discount) for p in prepared]
    return seconds, result, unjudged


# ------------------------------------------------------------------------------- agreement

def agreement(pairs, estimates, result, b):
    """The package's and the reference's statistics per pair; z = difference of the means over
    its standard error."""
    where = {}
    for r in estimates.runs:
        for t, topic in enumerate(r.topics):
            where[(r.run, topic)] = r.stats[t, 0]
    rows = []
    for key in pairs:
        s = where[key]
        pkg = dict(zip(STATS, map(float, s), strict=True))
        mine = result[key]
        se = math.sqrt((pkg["std"] ** 2 + mine["std"] ** 2) / b)
        diff = pkg["mean"] - mine["mean"]
        z = diff / se if se > 0 else (0.0 if abs(diff) < 1e-12 else math.inf)
        rows.append({"run": key[0], "topic": key[1], "package": {k: pkg[k] for k in ref.STATS},
                     "reference": mine, "mean_diff": diff, "z": z})
    n = len(rows)
    # Bonferroni over the pairs at 1%, never tighter than 4 standard errors
    z_crit = max(4.0, statistics.NormalDist().inv_cdf(1 - 0.01 / (2 * max(n, 1))))
    absz = [abs(r["z"]) for r in rows]
    worst = max(rows, key=lambda r: abs(r["z"])) if rows else None
    return {
        "pairs": n, "z_critical": z_crit,
        "max_abs_mean_diff": max((abs(r["mean_diff"]) for r in rows), default=0.0),
        "max_abs_z": max(absz, default=0.0),
        "pairs_over_3_se": sum(z > 3 for z in absz),
        "expected_over_3_se_by_chance": 0.0027 * n,
        "mean_z": statistics.fmean(r["z"] for r in rows if math.isfinite(r["z"])) if rows else 0.0,
        "max_abs_std_diff": max((abs(r["package"]["std"] - r["reference"]["std"]) for r in rows),
                                default=0.0),
        "max_abs_p5_diff": max((abs(r["package"]["p5"] - r["reference"]["p5"]) for r in rows),
                               default=0.0),
        "max_abs_p95_diff": max((abs(r["package"]["p95"] - r["reference"]["p95"]) for r in rows),
                                default=0.0),
        "worst": worst,
        "agree": all(z <= z_crit for z in absz),
        "mean_z_squared": (statistics.fmean(z * z for z in absz if math.isfinite(z))
                           if rows else 0.0),
        # every pair when there are few, else the 20 with the largest |z|
        "rows": rows if n <= 100 else sorted(rows, key=lambda r: -abs(r["z"]))[:20],
        "rows_are": "all pairs" if n <= 100 else "the 20 pairs with the largest |z|",
    }


# ------------------------------------------------------------------------------- main

def versions():
    out = {}
    for p in ("unjudged", "numpy", "pyarrow"):
        try:
            out[p] = md.version(p)
        except md.PackageNotFoundError:
            out[p] = None
    return out


def main(argv=None):
    args = parse_args(argv)
    args.runs = os.path.normpath(args.runs)
    args.qrels = os.path.normpath(args.qrels)
    run_files = sorted(os.path.join(args.runs, f) for f in os.listdir(args.runs)
                       if not f.startswith(".") and os.path.isfile(os.path.join(args.runs, f)))
    warm([args.qrels, *run_files])

    print(f"package: {len(run_files)} runs, b={args.b}, {MEASURE}, prior pool+run ...", flush=True)
    pkg, _, estimates = time_package(args, run_files)

    cli = cli_par = None
    if not args.no_cli:
        print("package as a process (unjudged estimate) ...", flush=True)
        cli, cli_means = time_cli(args)
        api_means = {r.run: float(r.run_stats[0, 0]) for r in estimates.runs}
        cli["max_abs_diff_vs_api_run_mean"] = max(
            (abs(cli_means[k] - v) for k, v in api_means.items() if k in cli_means),
            default=None)
        cli["runs_reported"] = len(cli_means)
        if args.workers > 1:
            cli_par, _ = time_cli(args, args.workers)
    # issue 17's figure: the package's defaults (position prior, coupled draws, the prior's
    # uncertainty, lo/hi) and P(A > B) for every pair, as a whole process on args.workers
    defaults = pairs_cli = None
    if not args.no_cli:
        print("package defaults and --pairs as a process ...", flush=True)
        defaults, _ = time_cli(args, args.workers, ("--jobs", str(args.workers)))
        pairs_cli, _ = time_cli(args, args.workers, ("--jobs", str(args.workers), "--pairs"))

    print("reference: reading ...", flush=True)
    qrels, tops, unjudged_pairs, all_pairs = reference_inputs(args, run_files)
    pairs = choose_pairs(unjudged_pairs, args.reference_pairs, args.pair_seed)
    print(f"reference: {len(pairs)} pairs (of {len(unjudged_pairs)} with unjudged documents "
          f"in the top 10, {all_pairs} in all) ...", flush=True)
    ref_s, result, unjudged = time_reference(pairs, qrels, tops, args)
    sub_s, sub_times, sub_est = time_package_on(pairs, tops, args)
    agree = agreement(pairs, estimates, result, args.b)
    sub_agree = agreement(pairs, sub_est, result, args.b)
    # the package on the sampled pairs alone must reproduce its all-runs numbers exactly
    # (to float noise: the mean and std are summed in another order when the batch is smaller)
    full = {(r.run, t): r.stats[i, 0] for r in estimates.runs for i, t in enumerate(r.topics)}
    sub_diff = max((float(abs(full[(r.run, t)] - r.stats[i, 0]).max())
                    for r in sub_est.runs for i, t in enumerate(r.topics)), default=0.0)
    sub_identical = sub_diff < 1e-12

    ref_ms = 1e3 * ref_s / max(len(pairs), 1)
    reference = {
        "pairs": len(pairs), "how_chosen": (f"all pairs with an unjudged document in the top {K}"
                                            if args.reference_pairs == "all" else
                                            f"random.Random({args.pair_seed}).sample of the pairs "
                                            f"with an unjudged document in the top {K}"),
        "unjudged_in_top10_mean": statistics.fmean(unjudged) if unjudged else 0.0,
        "seconds": ref_s, "ms_per_pair": ref_ms,
        "pairs_with_unjudged_all_runs": len(unjudged_pairs), "pairs_all_runs": all_pairs,
        "extrapolated_all_runs_s": ref_ms * len(unjudged_pairs) / 1e3,
        "package_on_same_pairs": {"seconds": sub_s, "all_times": sub_times,
                                  "ms_per_pair": 1e3 * sub_s / max(len(pairs), 1),
                                  "identical_to_all_runs_results": bool(sub_identical),
                                  "max_abs_stat_diff_vs_all_runs": sub_diff},
        "ratio_reference_over_package_all_pairs": ref_ms / pkg["ms_per_pair"],
        "ratio_reference_over_package_same_pairs": ref_s / sub_s if sub_s else None,
    }
    paper = {"s_per_pair": PAPER_S_PER_PAIR,
             "speedup_vs_paper": 1e3 * PAPER_S_PER_PAIR / pkg["ms_per_pair"],
             "target_ms_per_pair": TARGET_MS_PER_PAIR, "target_all_runs_s": TARGET_ALL_S,
             "meets_ms_per_pair": pkg["ms_per_pair"] < TARGET_MS_PER_PAIR,
             "meets_all_runs_serial_with_reading": pkg["total_s"] < TARGET_ALL_S}
    if "parallel" in pkg:
        paper["meets_all_runs_parallel"] = (pkg["parallel"]["estimate_s"] + pkg["read_s"]
                                            < TARGET_ALL_S)

    report = {
        "benchmark": "bootstrap nDCG@10, TREC-COVID round 1",
        "params": {"b": args.b, "seed": args.seed, "prior": "pool+run", "measure": MEASURE,
                   "runs": _rel(args.runs), "qrels": _rel(args.qrels),
                   "reference_pairs": args.reference_pairs, "pair_seed": args.pair_seed,
                   "repeats": args.repeats, "workers": args.workers, "argv": sys.argv[1:]},
        "machine": {"python": platform.python_version(), "platform": platform.platform(),
                    "processor": _cpu(), "cores": os.cpu_count(), "versions": versions()},
        "package": pkg, "cli": cli, "cli_parallel": cli_par, "reference": reference,
        "cli_defaults": defaults, "cli_pairs": pairs_cli,
        "agreement": {k: v for k, v in agree.items()},
        "agreement_package_on_same_pairs": {k: v for k, v in sub_agree.items() if k != "rows"},
        "paper": paper,
    }
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(report, f, indent=1, default=float)
    summary(report)
    print(f"\nwrote {args.out}")
    return 0 if agree["agree"] else 1


def _cpu() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def summary(r):
    p, ref_, a, paper = r["package"], r["reference"], r["agreement"], r["paper"]
    print()
    print(f"bootstrap {MEASURE}, b={r['params']['b']}, {p['runs']} runs, {p['pairs']} "
          f"(run, topic) pairs")
    print(f"  package, in-process   read {p['read_s']:.2f} s + estimate {p['estimate_s']:.2f} s"
          f" = {p['total_s']:.2f} s;  {p['ms_per_pair']:.2f} ms/pair"
          f" ({p['ms_per_pair_with_reading']:.2f} with reading)")
    if "parallel" in p:
        q = p["parallel"]
        print(f"  package, {q['workers']} workers     estimate {q['estimate_s']:.2f} s;"
              f"  {q['ms_per_pair']:.2f} ms/pair; identical to serial: {q['identical_to_serial']}")
    par = f"process --workers {r['params']['workers']}"
    for label, c in (("process", r["cli"]), (par, r["cli_parallel"])):
        if c:
            ok = "" if c["returncode"] == 0 else f"  FAILED rc={c['returncode']}"
            print(f"  {label:<21} {c['seconds']:.2f} s{ok}")
    for label, c in (("defaults (issue 17)", r.get("cli_defaults")),
                     ("defaults + --pairs", r.get("cli_pairs"))):
        if c:
            ok = "" if c["returncode"] == 0 else f"  FAILED rc={c['returncode']}"
            print(f"  {label:<21} {c['seconds']:.2f} s{ok}   ({c['command']})")
    if r["cli"]:
        print(f"    ({r['cli']['command']}; run means vs API: max |diff| "
              f"{r['cli'].get('max_abs_diff_vs_api_run_mean')})")
    s = ref_["package_on_same_pairs"]
    print(f"  reference (Python)    {ref_['pairs']} pairs, {ref_['unjudged_in_top10_mean']:.1f} "
          f"unjudged in top 10 on average: {ref_['seconds']:.2f} s, "
          f"{ref_['ms_per_pair']:.1f} ms/pair")
    print(f"  package, same pairs   {s['seconds']:.3f} s, {s['ms_per_pair']:.2f} ms/pair "
          f"(identical to the all-runs numbers: {s['identical_to_all_runs_results']})")
    print(f"  reference / package   {ref_['ratio_reference_over_package_all_pairs']:.1f}x "
          f"(vs all-pairs ms/pair), {ref_['ratio_reference_over_package_same_pairs']:.1f}x "
          f"(same pairs); reference on all {ref_['pairs_with_unjudged_all_runs']} pairs with "
          f"unjudged documents: ~{ref_['extrapolated_all_runs_s']:.0f} s")
    print(f"  agreement of means    max |diff| {a['max_abs_mean_diff']:.2e}, max |z| "
          f"{a['max_abs_z']:.2f} (limit {a['z_critical']:.2f}), {a['pairs_over_3_se']} pairs "
          f"over 3 SE "
          f"(chance: {a['expected_over_3_se_by_chance']:.2f}), mean z^2 {a['mean_z_squared']:.2f} "
          f"(1 expected) -> {'AGREE' if a['agree'] else 'DISAGREE'}")
    print(f"                        max |diff| std {a['max_abs_std_diff']:.2e}, "
          f"p5 {a['max_abs_p5_diff']:.2e}, p95 {a['max_abs_p95_diff']:.2e}")
    if a["worst"]:
        w = a["worst"]
        print(f"    worst pair {w['run']} / topic {w['topic']}: package {w['package']['mean']:.5f} "
              f"reference {w['reference']['mean']:.5f} (z {w['z']:.2f})")
    print(f"  paper                 {1e3 * paper['s_per_pair']:.0f} ms/pair -> package is "
          f"{paper['speedup_vs_paper']:.0f}x faster (different CPUs)")
    print(f"  target                < {paper['target_ms_per_pair']:.0f} ms/pair: "
          f"{'met' if paper['meets_ms_per_pair'] else 'NOT met'};  all runs < "
          f"{paper['target_all_runs_s']:.0f} s: serial "
          f"{'met' if paper['meets_all_runs_serial_with_reading'] else 'NOT met'}"
          + (f", {p['parallel']['workers']} workers "
             f"{'met' if paper.get('meets_all_runs_parallel') else 'NOT met'}"
             if "parallel" in p else ""))


if __name__ == "__main__":
    sys.exit(main())
