"""What the differential fuzzes of the drop-ins share (trec_eval10_fuzz.py, ndeval_fuzz.py,
sample_eval_fuzz.py): their common options, the note kept for a case that differs, and the loop
that runs each group's cases on a thread pool and counts the outcomes.

A case is a seed (its inputs are a function of it alone) and a parameter (the options drawn
for it, or its group); the seeds are seed * 1,000,000 + group * 100,000 + i, as the fuzzes have
always numbered them, so that a case reported by one run can be made again alone.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).parent / "results"

Case = tuple[int, Any]  # (seed, what the case runs with)


def add_options(ap: argparse.ArgumentParser, groups: Sequence[str], out: str) -> None:
    """--cases, --seed, --groups, -j, --keep and --out (results/`out` by default)."""
    ap.add_argument("--cases", type=int, default=200, help="cases per group")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--groups", default=",".join(groups))
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--keep", type=Path, default=None, help="folder for the differing cases")
    ap.add_argument("--out", type=Path, default=RESULTS / out)


def seeds(seed: int, group: int, cases: int) -> list[int]:
    return [seed * 1_000_000 + group * 100_000 + i for i in range(cases)]


def differ(opts: Sequence[str], a: subprocess.CompletedProcess,
           b: subprocess.CompletedProcess) -> tuple[str, str]:
    """The outcome "differ", with what is kept about it: the options, both exit codes and the
    ends of both standard errors (the reference's first)."""
    return "differ", f"{' '.join(opts)}\nexit {a.returncode} {b.returncode}\n" \
        f"{a.stderr.decode(errors='replace')[-300:]}\n---\n" \
        f"{b.stderr.decode(errors='replace')[-300:]}"


def tally(args: argparse.Namespace, cases_of: Callable[[int, str], list[Case]],
          run: Callable[[Case, Path], tuple[str, str]],
          files_of: Callable[[Case], dict[str, bytes]]) -> tuple[dict[str, dict[str, int]],
                                                                  float]:
    """Every group's cases (cases_of(group index, name)) run on args.jobs threads: the count
    of each outcome per group, printed as each group ends, and the seconds taken. A case that
    differs is written to args.keep/<group>_<seed>/ when asked: files_of(case) and `why`."""
    started = time.time()
    counts: dict[str, dict[str, int]] = {}
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(args.jobs) as pool:
        for g, name in enumerate(args.groups.split(",")):
            cases = cases_of(g, name)
            got = list(pool.map(lambda case: run(case, Path(tmp)), cases))
            counts[name] = {}
            for case, (outcome, why) in zip(cases, got, strict=True):
                counts[name][outcome] = counts[name].get(outcome, 0) + 1
                if outcome == "differ" and args.keep is not None:
                    folder = args.keep / f"{name}_{case[0]}"
                    folder.mkdir(parents=True, exist_ok=True)
                    for file, data in {**files_of(case), "why": why.encode()}.items():
                        (folder / file).write_bytes(data)
            print(f"{name:10s} {counts[name]}", flush=True)
    return counts, round(time.time() - started, 1)


def write(args: argparse.Namespace, result: dict[str, Any]) -> None:
    args.out.write_text(json.dumps(result, indent=1) + "\n")
