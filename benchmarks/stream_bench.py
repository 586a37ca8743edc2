"""`unjudged eval --stream` on a run bigger than memory (a benchmark, not a test).

Generates (fixed seed, vectorised, a block of topics at a time) a run of 100,000 topics x 1,000
documents = 100M lines grouped by topic (3.6 GB) with MS MARCO-like qrels (about 20 judged
documents per topic in the run, 15 outside it), then measures in child processes (peak RSS
from os.wait4):
  - `eval --stream` and `eval` in memory on the whole run (summary lines, which must be
    byte-identical); the in-memory run is skipped with --no-in-memory-full (it needs about
    50 bytes a line),
  - both on its first 10M lines with -q (per-topic lines, byte-identical too).
Results go to benchmarks/results/stream.json; the data files are deleted at the end unless
--keep (the disk is shared).

Usage: python benchmarks/stream_bench.py [--topics 100000] [--prefix-topics 10000] [--keep]
                                         [--no-in-memory-full]
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from generate import descending_scores, distinct_ids, unique_qid_doc, write_qrels  # noqa: E402
from run_bench import run_once  # noqa: E402

MEASURES = ["P@10", "nDCG@10", "AP", "Bpref", "Judged@10"]
DEPTH, N_DOCS, BLOCK = 1000, 8_841_823, 2000


def generate(d: Path, topics: int, seed: int = 20261123) -> tuple[Path, Path]:
    """run.txt (topics x DEPTH lines, grouped by topic) and qrels.txt under `d`."""
    run, qrels = d / "run.txt", d / "qrels.txt"
    stamp = d / "params.json"
    want = {"topics": topics, "depth": DEPTH, "seed": seed, "version": 1}
    if stamp.exists() and json.loads(stamp.read_text()) == want and run.exists():
        return run, qrels
    d.mkdir(parents=True, exist_ok=True)
    stamp.unlink(missing_ok=True)
    rng = np.random.default_rng(seed)
    opts = pacsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none")
    judged = []
    with pa.OSFile(str(run), "wb") as sink:
        for start in range(0, topics, BLOCK):
            t = min(BLOCK, topics - start)
            qids = np.arange(start, start + t, dtype=np.int64) * 7 + 1000
            docnos = distinct_ids(rng, t, DEPTH, N_DOCS)
            rows = t * DEPTH
            pacsv.write_csv(pa.table({
                "qid": pa.array(np.repeat(qids, DEPTH)),
                "q0": pa.array(np.full(rows, "Q0"), pa.string()).dictionary_encode(),
                "docno": pa.array(docnos.ravel()),
                "rank": pa.array(np.tile(np.arange(1, DEPTH + 1, dtype=np.int32), t)),
                "score": pa.array(descending_scores(rng, t, DEPTH).ravel()),
                "tag": pa.array(np.full(rows, "stream"), pa.string()).dictionary_encode(),
            }), sink, opts)
            judged.append(_judgments(rng, qids, docnos))
    q, dn, g = (np.concatenate(parts) for parts in zip(*judged, strict=True))
    write_qrels(qrels, *unique_qid_doc(q, dn, g))
    stamp.write_text(json.dumps(want))
    return run, qrels


def _judgments(rng, qids, docnos):
    """About 20 judged documents per topic from the run (likelier near the top), 15 others."""
    t = len(qids)
    n_in = rng.integers(10, 40, size=t)
    keys = rng.random((t, DEPTH)) * np.sqrt(np.arange(1, DEPTH + 1))
    picked = np.argsort(keys, axis=1)[:, :n_in.max()]
    mask = np.arange(picked.shape[1]) < n_in[:, None]
    rank = picked[mask]
    grade = (rng.random(rank.size) < np.clip(0.8 - rank / 400, 0.05, None)) * \
        rng.integers(1, 4, size=rank.size)
    n_out = rng.integers(7, 30, size=t)
    out_grade = rng.choice(4, size=n_out.sum(), p=[0.4, 0.3, 0.2, 0.1])
    out_grade[np.cumsum(n_out) - 1] = np.maximum(out_grade[np.cumsum(n_out) - 1], 1)
    return (np.concatenate([np.repeat(qids, n_in), np.repeat(qids, n_out)]),
            np.concatenate([np.take_along_axis(docnos, picked, 1)[mask],
                            rng.integers(0, N_DOCS, size=n_out.sum())]),
            np.concatenate([grade, out_grade]).astype(np.int8))


def prefix(run: Path, lines: int) -> Path:
    out = run.with_name(f"prefix-{lines}.txt")
    if not out.exists():
        with open(run, "rb") as src, open(out, "wb") as dst:
            left = lines
            while left:
                chunk = src.readlines(1 << 24)
                dst.writelines(chunk[:left])
                left -= min(left, len(chunk))
    return out


def measure(qrels: Path, run: Path, stream: bool, per_topic: bool, out: Path) -> dict:
    argv = [sys.executable, "-m", "unjudged", "eval", str(qrels), str(run), "-f", "jsonl",
            *[a for m in MEASURES for a in ("-m", m)]]
    argv += ["--stream"] * stream + ["-q"] * per_topic
    r = run_once(argv, timeout=3600)
    if r["rc"] != 0:
        raise SystemExit(f"failed: {' '.join(argv)}\n{r['stderr'][-2000:]}")
    out.write_text(r["stdout"])
    return {"command": " ".join(["unjudged", *argv[3:]]), "seconds": round(r["seconds"], 2),
            "peak_rss_mb": round(r["rss_mb"], 1),
            "stdout_sha256": hashlib.sha256(r["stdout"].encode()).hexdigest()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--topics", type=int, default=100_000)
    ap.add_argument("--prefix-topics", type=int, default=10_000)
    ap.add_argument("--data-dir", type=Path, default=HERE / "data" / "stream")
    ap.add_argument("--keep", action="store_true", help="keep the generated files")
    ap.add_argument("--no-in-memory-full", dest="in_memory_full", action="store_false",
                    help="do not evaluate the whole run in memory (it needs ~50 bytes a line)")
    a = ap.parse_args()
    t0 = time.perf_counter()
    run, qrels = generate(a.data_dir, a.topics)
    lines = a.topics * DEPTH
    print(f"run of {lines:,} lines ready ({run.stat().st_size / 1e9:.2f} GB) "
          f"in {time.perf_counter() - t0:.0f}s", flush=True)
    part = prefix(run, a.prefix_topics * DEPTH)
    cases = [("in_memory_prefix", part, False), ("stream_prefix", part, True),
             ("stream_full", run, True)]
    if a.in_memory_full:
        cases.append(("in_memory_full", run, False))
    results = {}
    for key, path, stream in cases:
        results[key] = measure(qrels, path, stream, path == part, a.data_dir / f"{key}.jsonl")
        results[key]["lines"] = a.prefix_topics * DEPTH if path == part else lines
        print(key, results[key], flush=True)

    def same(x: str, y: str) -> bool | None:
        if x not in results or y not in results:
            return None
        return results[x]["stdout_sha256"] == results[y]["stdout_sha256"]

    per_line = {k: v["seconds"] / v["lines"] * 1e9 for k, v in results.items()}
    base = "in_memory_full" if a.in_memory_full else "in_memory_prefix"
    summary = {
        "case": f"{a.topics:,} topics x {DEPTH} documents, grouped by topic; "
                f"{len(qrels.read_bytes().splitlines()):,} judgments",
        "run_bytes": run.stat().st_size, "measures": MEASURES, "results": results,
        "ns_per_line": {k: round(v, 1) for k, v in per_line.items()},
        f"stream_full_vs_{base}_time_per_line": round(per_line["stream_full"] / per_line[base],
                                                      3),
        "stream_prefix_vs_in_memory_prefix_time": round(
            per_line["stream_prefix"] / per_line["in_memory_prefix"], 3),
        "prefix_per_topic_output_identical": same("stream_prefix", "in_memory_prefix"),
        "full_summary_output_identical": same("stream_full", "in_memory_full"),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "platform": platform.platform()},
    }
    out = HERE / "results" / "stream.json"
    out.write_text(json.dumps(summary, indent=1) + "\n")
    print(json.dumps(summary, indent=1))
    if not a.keep:
        for f in a.data_dir.iterdir():
            f.unlink()
        a.data_dir.rmdir()


if __name__ == "__main__":
    main()
