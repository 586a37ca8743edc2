"""`unjudged eval` from 1M to 100M lines: time and memory per line (a benchmark, not a test).

Generates once (fixed seed, the generator of stream_bench.py) a run of TOPICS x 1,000 lines
grouped by topic, with MS MARCO-like qrels, and the prefixes of its first 1M, 3M, 10M, 30M
lines, each with the qrels of its own topics only (so the qrels grow with the run and the
per-line cost is not a fixed qrels cost spread thin). Then, for each size, `unjudged eval`
with 5 measures runs as its own process, in memory and with `--stream`, the two in turn
(in memory, stream, in memory, stream...); user + system CPU and wall seconds and the peak
RSS come from os.wait4. The two outputs must be byte-identical.

Results: benchmarks/results/scaling.json and scaling.png. The data (about 5 GB for 100M
lines) goes to --data-dir (default /tmp/unjudged-scaling) and is deleted at the end unless
--keep.

Usage: python benchmarks/scaling.py [--sizes 1 3 10 30 100] [--repeats 3 3 2 1 1]
                                    [--modes memory stream] [--keep]
       python benchmarks/scaling.py --plot-only [--before OLD.json]
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from stream_bench import DEPTH, MEASURES, generate, prefix  # noqa: E402

RESULTS = HERE / "results" / "scaling.json"


def qrels_prefix(qrels: Path, topics: int, out: Path) -> Path:
    """The judgments of the run's first `topics` topics (stream_bench's qids: 1000 + 7 i)."""
    if out.exists():
        return out
    t = pacsv.read_csv(qrels, read_options=pacsv.ReadOptions(
        column_names=["qid", "iter", "docno", "rel"]), parse_options=pacsv.ParseOptions(
        delimiter=" "), convert_options=pacsv.ConvertOptions(column_types={
            "qid": pa.int64(), "iter": pa.int8(), "docno": pa.int64(), "rel": pa.int8()}))
    keep = np.asarray(t.column("qid")) < 1000 + 7 * topics
    pacsv.write_csv(t.filter(pa.array(keep)), out, pacsv.WriteOptions(
        include_header=False, delimiter=" ", quoting_style="none"))
    return out


def run_child(argv: list[str]) -> dict:
    """Wall and CPU seconds, peak RSS and a hash of stdout.

    The child runs under /usr/bin/time, whose wait4 reports the command's own peak: a child
    forked straight from this process would count this process's pages at the fork (Linux
    keeps the high-water mark across exec), and this one holds the generator's arrays.
    CPU (user + system) comes from os.wait4 on /usr/bin/time, which includes its child's.
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile("r") as rss:
        t0 = time.perf_counter()
        p = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", rss.name, *argv],
                             stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        out.seek(0), err.seek(0)
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"failed: {' '.join(argv)}\n{err.read().decode()[-2000:]}")
        return {"wall": round(wall, 3), "cpu": round(ru.ru_utime + ru.ru_stime, 3),
                "user": round(ru.ru_utime, 3), "sys": round(ru.ru_stime, 3),
                "peak_mb": round(int(rss.read().split()[-1]) / 1024, 1),
                "stdout_sha256": hashlib.sha256(out.read()).hexdigest()}


def load() -> float:
    return os.getloadavg()[0]


def plot(summary: dict, png: Path, before: dict | None = None) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax_t, ax_m) = plt.subplots(1, 2, figsize=(10, 4))
    for mode, style, color in (("memory", "o-", "C0"), ("stream", "s--", "C1")):
        rows = [r for r in summary["rows"] if r["mode"] == mode]
        if not rows:
            continue
        n = np.array([r["lines"] for r in rows]) / 1e6
        label = "in memory" if mode == "memory" else "--stream"
        ax_t.plot(n, [r["cpu_us_per_line"] for r in rows], style, color=color,
                  label=f"{label}, CPU")
        ax_t.plot(n, [r["wall_us_per_line"] for r in rows], style, color=color,
                  alpha=0.35, label=f"{label}, wall")
        ax_m.plot(n, [r["peak_mb"] for r in rows], style, color=color, label=label)
        old = [r for r in (before or {}).get("rows", []) if r["mode"] == mode]
        if old:
            ax_t.plot(np.array([r["lines"] for r in old]) / 1e6,
                      [r["cpu_us_per_line"] for r in old], ":", marker=style[0], color=color,
                      alpha=0.6, label=f"{label}, CPU, before")
    for ax in (ax_t, ax_m):
        ax.set_xscale("log")
        ax.set_xlabel("run lines (millions)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    ax_t.set_ylabel("µs per line (median)")
    ax_t.set_ylim(bottom=0)
    ax_m.set_yscale("log")
    ax_m.set_ylabel("peak RSS (MB)")
    fig.suptitle("unjudged eval, 5 measures, run grouped by topic (1,000 lines per topic)")
    fig.tight_layout()
    fig.savefig(png, dpi=110)


def summarise(raw: dict) -> dict:
    rows = []
    for key, reps in raw["runs"].items():
        mode, lines = key.split(":")
        n = int(lines)
        cpu = float(np.median([r["cpu"] for r in reps]))
        wall = float(np.median([r["wall"] for r in reps]))
        rows.append({"mode": mode, "lines": n, "repeats": len(reps), "cpu_s": cpu,
                     "wall_s": wall, "cpu_us_per_line": round(cpu / n * 1e6, 4),
                     "wall_us_per_line": round(wall / n * 1e6, 4),
                     "peak_mb": max(r["peak_mb"] for r in reps)})
    rows.sort(key=lambda r: (r["mode"], r["lines"]))
    for r in rows:
        base = next((b for b in rows if b["mode"] == r["mode"] and b["lines"] == 3_000_000),
                    None)
        if base:
            r["cpu_per_line_vs_3M"] = round(r["cpu_us_per_line"] / base["cpu_us_per_line"], 3)
            r["wall_per_line_vs_3M"] = round(r["wall_us_per_line"] / base["wall_us_per_line"],
                                             3)
    return {**raw, "rows": rows}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1, 3, 10, 30, 100],
                    help="run sizes in millions of lines")
    ap.add_argument("--repeats", type=int, nargs="+", default=[3, 3, 2, 1, 1],
                    help="repeats per size (one number for all, or one per size)")
    ap.add_argument("--modes", nargs="+", default=["memory", "stream"],
                    choices=["memory", "stream"])
    ap.add_argument("--data-dir", type=Path, default=Path("/tmp/unjudged-scaling"))
    ap.add_argument("--out", type=Path, default=RESULTS)
    ap.add_argument("--keep", action="store_true", help="keep the generated files")
    ap.add_argument("--plot-only", action="store_true", help="redraw the png from --out")
    ap.add_argument("--before", type=Path, help="results of an earlier run, drawn dotted")
    a = ap.parse_args()
    png = a.out.with_suffix(".png")
    if a.plot_only:
        plot(json.loads(a.out.read_text()), png,
             json.loads(a.before.read_text()) if a.before else None)
        return
    repeats = a.repeats * len(a.sizes) if len(a.repeats) == 1 else a.repeats
    t0 = time.perf_counter()
    topics = max(a.sizes) * 1_000_000 // DEPTH
    run, qrels = generate(a.data_dir, topics)
    print(f"data ready in {time.perf_counter() - t0:.0f}s", flush=True)
    raw: dict = {"measures": MEASURES, "depth": DEPTH, "runs": {}, "identical": {},
                 "load_before": {}, "machine": {
                     "cpus": os.cpu_count(), "python": platform.python_version(),
                     "platform": platform.platform()}}
    try:
        for size, reps in zip(a.sizes, repeats, strict=True):
            lines = size * 1_000_000
            t = lines // DEPTH
            part = run if t == topics else prefix(run, lines)
            q = qrels if t == topics else qrels_prefix(qrels, t, a.data_dir / f"qrels-{t}.txt")
            raw["load_before"][str(lines)] = round(load(), 2)
            hashes = set()
            for _ in range(reps):
                for mode in a.modes:
                    argv = [sys.executable, "-m", "unjudged", "eval", str(q), str(part),
                            "-f", "jsonl", *[x for m in MEASURES for x in ("-m", m)]]
                    argv += ["--stream"] * (mode == "stream")
                    r = run_child(argv)
                    hashes.add(r["stdout_sha256"])
                    raw["runs"].setdefault(f"{mode}:{lines}", []).append(r)
                    print(f"{lines:>11,} {mode:6} cpu {r['cpu']:7.2f}s wall {r['wall']:7.2f}s "
                          f"peak {r['peak_mb']:7.1f} MB  load {load():.1f}", flush=True)
            raw["identical"][str(lines)] = len(hashes) == 1
            if part != run and not a.keep:
                part.unlink()
            summary = summarise(raw)
            a.out.write_text(json.dumps(summary, indent=1) + "\n")
            plot(summary, png)
    finally:
        if not a.keep:
            shutil.rmtree(a.data_dir, ignore_errors=True)
    for r in summary["rows"]:
        print(r)


if __name__ == "__main__":
    main()
