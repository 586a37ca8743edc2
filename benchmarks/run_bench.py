"""Speed benchmark: `unjudged eval` end to end vs. its peers (not a test).

Each tool runs as a whole process (imports, parsing, evaluation, output) on
the same generated files in the same session, so the numbers are what a user
waiting on a shell command sees. Reported: best wall-clock of --repeats runs,
ratio to unjudged, and the child's own peak RSS.

    python benchmarks/run_bench.py [--case msmarco|robust|all] [--repeats 3]
"""
from __future__ import annotations

import argparse
import importlib.metadata as md
import importlib.util
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import generate  # noqa: E402

MEASURES = ["P@10", "nDCG@10", "AP", "Bpref", "Judged@10"]
# What each peer cannot compute (reported in the table and the JSON).
LACKS = {"pytrec_eval": ["Judged@10"], "ranx": ["Judged@10"],
         "trec_eval": ["Judged@10"], "pyarrow": ["(parse only)"]}
PACKAGES = ["unjudged", "pytrec-eval-terrier", "ranx", "ir-measures", "pyarrow", "numpy"]


def commands(qrels: Path, runs: list[Path]) -> dict[str, list[str] | str]:
    """argv per tool, or a string saying why the tool is skipped."""
    files = [str(qrels), *map(str, runs)]
    peer = [sys.executable, str(HERE / "peers.py")]
    cmds: dict[str, list[str] | str] = {}
    # The CLI through the same interpreter, so a stale console script on PATH
    # cannot be benchmarked by mistake.
    cmds["unjudged"] = [sys.executable, "-m", "unjudged", "eval", *files,
                        *[a for m in MEASURES for a in ("-m", m)], "--format", "tsv"]
    for tool in ("pytrec_eval", "ranx", "ir_measures", "pyarrow"):
        cmds[tool] = [*peer, tool, *files]
    if shutil.which("trec_eval"):
        # trec_eval takes one run per call; a shell loop keeps it one process tree.
        loop = ('q=$1; shift; for r; do '
                'trec_eval -m P.10 -m ndcg_cut.10 -m map -m bpref "$q" "$r"; done')
        cmds["trec_eval"] = ["sh", "-c", loop, "sh", *files]
    else:
        cmds["trec_eval"] = "not on PATH"
    return cmds


def run_once(argv: list[str], timeout: float) -> dict:
    """Wall seconds, the child's own peak RSS and its output.

    os.wait4 gives this child's rusage; getrusage(RUSAGE_CHILDREN) would be
    the max over every child so far, so later tools would inherit earlier peaks.
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        timer = threading.Timer(timeout, p.kill)
        timer.start()
        _, status, ru = os.wait4(p.pid, 0)
        seconds = time.perf_counter() - t0
        timed_out = not timer.is_alive()
        timer.cancel()
        p.returncode = os.waitstatus_to_exitcode(status)  # already reaped
        out.seek(0), err.seek(0)
        return dict(seconds=seconds, rss_mb=ru.ru_maxrss / 1024, rc=p.returncode,
                    timed_out=timed_out, stdout=out.read().decode(errors="replace"),
                    stderr=err.read().decode(errors="replace"))


def why_failed(r: dict, timeout: float) -> str:
    if r["timed_out"]:
        return f"failed: timed out after {timeout:.0f}s"
    lines = [ln.strip() for ln in r["stderr"].splitlines() if ln.strip()]
    if r["rc"] == 3 and lines and lines[0].startswith("not installed"):
        return lines[0]
    # A traceback's first line says nothing; its last line names the error.
    line = lines[-1] if lines and lines[0].startswith("Traceback") else (lines or [""])[0]
    return ("failed: " + (line or f"exit code {r['rc']}"))[:160]


def parse_scores(tool: str, stdout: str, run_names: list[str]) -> dict:
    """{run: {measure: value}} from a tool's stdout (means only)."""
    if tool in ("pytrec_eval", "ranx", "ir_measures", "pyarrow"):
        return json.loads(stdout)
    lines = [ln.split("\t") for ln in stdout.splitlines() if ln.strip()]
    scores: dict = {}
    if tool == "unjudged":  # tsv: run, topic, measure, value; runs keyed by run tag
        col = {name: i for i, name in enumerate(lines[0])}
        for cells in lines[1:]:
            if cells[col["topic"]] == "all":
                scores.setdefault(cells[col["run"]], {})[cells[col["measure"]]] = float(
                    cells[col["value"]])
        return scores
    # trec_eval: "measure<TAB>all<TAB>value" blocks, one per run in input order
    names = {"P_10": "P@10", "ndcg_cut_10": "nDCG@10", "map": "AP", "bpref": "Bpref"}
    run = -1
    for cells in lines:
        measure = names.get(cells[0].strip())
        if measure:
            run += measure == "P@10"
            scores.setdefault(run_names[max(run, 0)], {})[measure] = float(cells[-1])
    return scores


def bench_tool(tool: str, argv, repeats: int, timeout: float, run_names: list[str]) -> dict:
    if isinstance(argv, str):
        return {"status": argv}
    if tool == "unjudged" and importlib.util.find_spec("unjudged") is None:
        return {"status": "not installed"}
    res: dict = {"status": "ok", "argv": argv, "times_s": [], "rss_mb": []}
    for _ in range(repeats):
        r = run_once(argv, timeout)
        if r["rc"] != 0 or r["timed_out"]:
            return {"status": why_failed(r, timeout), "argv": argv}
        res["times_s"].append(round(r["seconds"], 3))
        res["rss_mb"].append(round(r["rss_mb"], 1))
    res["best_s"], res["peak_rss_mb"] = min(res["times_s"]), max(res["rss_mb"])
    try:
        res["scores"] = parse_scores(tool, r["stdout"], run_names)
    except (ValueError, KeyError, IndexError) as e:
        res["scores"] = {"unparsed": f"{e}: {r['stdout'][:200]}"}
    res["lacks"] = LACKS.get(tool, [])
    return res


def print_table(case: str, results: dict) -> None:
    base = results.get("unjudged", {}).get("best_s")
    print(f"\n{case}: {'tool':<12} {'seconds':>9} {'vs unjudged':>11} {'peak RSS MB':>12}  notes")
    for tool, r in results.items():
        if r["status"] != "ok":
            print(f"{'':{len(case) + 1}} {tool:<12} {'-':>9} {'-':>11} {'-':>12}  {r['status']}")
            continue
        ratio = f"{r['best_s'] / base:.2f}x" if base else "-"
        note = "lacks " + ", ".join(r["lacks"]) if r["lacks"] else ""
        print(f"{'':{len(case) + 1}} {tool:<12} {r['best_s']:9.2f} {ratio:>11} "
              f"{r['peak_rss_mb']:12.0f}  {note}")
    # Means of the first run side by side: speed is moot if the numbers differ.
    rows = {t: next(iter(r["scores"].values()), {}) for t, r in results.items()
            if r.get("scores") and t != "pyarrow"}
    if rows:
        print(f"{'':{len(case) + 1}} first run means: " + "  ".join(f"{m:>9}" for m in MEASURES))
        for tool, s in rows.items():
            cells = [f"{s[m]:9.4f}" if isinstance(s.get(m), float) else f"{'-':>9}"
                     for m in MEASURES]
            print(f"{'':{len(case) + 1}} {tool:>16}: " + "  ".join(cells))


def versions() -> dict:
    out = {}
    for pkg in PACKAGES:
        try:
            out[pkg] = md.version(pkg)
        except md.PackageNotFoundError:
            out[pkg] = None
    return out


def count_lines(path: Path) -> int:
    with open(path, "rb") as fh:
        return sum(1 for _ in fh)


def bench_case(case: str, a: argparse.Namespace) -> dict:
    qrels, runs = generate.ensure(a.data_dir, case)
    for f in [qrels, *runs]:  # warm the page cache so no tool pays for cold disk
        with open(f, "rb") as fh:
            while fh.read(1 << 24):
                pass
    cmds = commands(qrels, runs)
    results = {}
    for tool in a.tools or list(cmds):
        print(f"[{case}] {tool} ...", end=" ", flush=True, file=sys.stderr)
        results[tool] = bench_tool(tool, cmds[tool], a.repeats, a.timeout, [r.name for r in runs])
        print(results[tool].get("times_s") or results[tool]["status"], file=sys.stderr)
    print_table(case, results)
    report = {
        "case": case, "params": generate.CASES[case], "repeats": a.repeats,
        "files": {"qrels": str(qrels), "runs": [str(r) for r in runs],
                  "run_lines": sum(count_lines(r) for r in runs)},
        "machine": {"python": sys.version.split()[0], "platform": platform.platform(),
                    "cpus": os.cpu_count()},
        "versions": versions(), "date": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "tools": results,
    }
    a.results_dir.mkdir(parents=True, exist_ok=True)
    (a.results_dir / f"{case}.json").write_text(json.dumps(report, indent=1) + "\n")
    return report


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--case", choices=[*generate.CASES, "all"], default="all")
    ap.add_argument("--repeats", type=int, default=3, help="best of N (default 3)")
    ap.add_argument("--data-dir", type=Path, default=HERE / "data")
    ap.add_argument("--results-dir", type=Path, default=HERE / "results")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds per process")
    ap.add_argument("--tools", nargs="+", help="subset, e.g. --tools unjudged pyarrow")
    a = ap.parse_args()
    if a.tools:
        known = ["unjudged", "pytrec_eval", "ranx", "ir_measures", "pyarrow", "trec_eval"]
        if bad := set(a.tools) - set(known):
            ap.error(f"unknown tools {sorted(bad)}; choose from {known}")
    for case in generate.CASES if a.case == "all" else [a.case]:
        bench_case(case, a)


if __name__ == "__main__":
    main()
