"""A differential fuzz of `unjudged trec_eval` against trec_eval 10.0 on small random inputs.

    .venv/bin/python benchmarks/trec_eval10_fuzz.py /path/to/trec_eval [--cases 200] [--seed 0]
        [--groups basic,params,prefs] [-j 2] [--keep DIR]

Each case is a random qrels and run of 1-4 topics (ids such as `1`, `007`, `T2`; grades -1 to
4; judgment groups `0`, `Q0`, `x`; docnos of odd shapes; scores in exponent form, equal to 7
digits, or 1e300; fields split by odd blanks; lines shuffled), evaluated by both programs under
an option set drawn from the group. Every qrels topic has run lines: trec_eval 10.0's loop over
the qrels topics then never meets a topic without results (a reconstruction of its source
repeated the previous topic there, or crashed). Outcomes, per group:

- identical: the same bytes on standard output, both exit 0;
- trec_eval stops: trec_eval exits 4 ("Can't calculate measure") when the first topic it
  evaluates (strcmp order) has only negative grades, and the drop-in evaluates it and says so
  in a note;
- known: `-R qrels_prefs` with negative grades differs in prefs_avgjg_Rnonrel only, where
  trec_eval reads past the end of its lowest equivalence class (docs/commands/trec_eval.md);
- differ: anything else (kept in --keep DIR, with the options, for a look).

Writes benchmarks/results/trec_eval10_fuzz.json (counts per group and outcome).
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

from fuzzing import add_options, differ, seeds, tally, write

GROUPS: dict[str, list[list[str]]] = {
    "basic": [["-q", "-m", "all_trec"], ["-q", "-c", "-m", "all_trec"],
              ["-q", "-J", "-m", "all_trec"], ["-q", "-M", "5", "-m", "all_trec"],
              ["-q", "-l", "2", "-m", "all_trec"], ["-q", "-J", "-c", "-l", "2", "-m", "all_trec"],
              ["-m", "all_trec"],
              ["-q", "-m", "ndcg_cut.3,5", "-m", "P.2", "-m", "Rprec_mult.0.5,2"],
              ["-q", "-m", "recall.1,1000", "-m", "iprec_at_recall.0.33"]],
    "params": [["-q", "-c", "-M", "3", "-m", "all_trec"], ["-q", "-l", "3", "-m", "all_trec"],
               ["-q", "-m", "ndcg.0=0,1=1,2=5,3=2", "-m", "ndcg_rel", "-m", "Rndcg", "-m",
                "G.1=2,2=3"],
               ["-q", "-m", "11pt_avg.0.5,1.0", "-m", "success.1,3", "-m", "set_F.0.5", "-m",
                "infAP", "-m", "bpref"],
               ["-q", "-c", "-m", "iprec_at_recall.0.1,0.15", "-m", "Rprec_mult.0.3", "-m",
                "map_cut.2,7", "-m", "ndcg_cut.1,2"],
               ["-q", "-n", "-m", "all_trec"], ["-q", "-J", "-M", "4", "-l", "2", "-m", "all_trec"],
               ["-q", "-m", "P.1,2,1000", "-m", "recall.3", "-m", "relstring.5", "-m", "rbp_resid",
                "-m", "unj.3"],
               ["-q", "-c", "-l", "0", "-m", "all_trec"],
               ["-q", "-m", "utility.2,-1,-0.5,0.01", "-N", "1000", "-m", "set_map", "-m",
                "set_relative_P", "-m", "num_nonrel_judged_ret"]],
    "prefs": [["-q", "-R", "qrels_prefs", "-m", "all_prefs"],
              ["-q", "-c", "-R", "qrels_prefs", "-m", "all_prefs"],
              ["-q", "-R", "qrels_jg", "-m", "qrels_jg"],
              ["-q", "-c", "-l", "2", "-R", "qrels_jg", "-m", "qrels_jg"],
              ["-q", "-J", "-R", "qrels_prefs", "-m", "all_prefs"],
              ["-q", "-M", "4", "-R", "qrels_prefs", "-m", "all_prefs"],
              ["-q", "-M", "3", "-R", "qrels_jg", "-m", "qrels_jg"],
              ["-q", "-m", "all_trec", "-l", "4"]],
}


def _score(r: random.Random) -> str:
    k = r.random()
    if k < 0.2:
        return str(r.choice([0, 1, 2, -1, 0.5]))
    if k < 0.3:
        return f"{r.uniform(-5, 5):.3e}"
    if k < 0.4:
        return f"{r.randint(-3, 3) * 1.0000001:.9f}"
    if k < 0.5:
        return r.choice(["1e300", "-1e-300", "0.1000000001", "0.1", "3.4028236e38"])
    return f"{r.uniform(0, 10):.{r.randint(0, 7)}f}"


def _docno(r: random.Random) -> str:
    k = r.random()
    if k < 0.1:
        return "d" + str(r.randint(0, 9)) * r.randint(1, 3)
    if k < 0.2:
        return r.choice(["D1", "d1", "d10", "d2", "Z", "a-b", "x.y", "9" * 20])
    return f"d{r.randint(0, 40)}"


def make_case(seed: int) -> tuple[str, str]:
    """One random (qrels, run) text pair; the same seed gives the same pair."""
    r = random.Random(seed)
    topics = sorted({str(r.choice([1, 2, 3, 10, 101, "t", "T2", "007"]))
                     for _ in range(r.randint(1, 4))})
    top = r.choice([1, 2, 3, 4])
    qrels, run = [], []
    for t in topics:
        for d in sorted({_docno(r) for _ in range(r.randint(1, 15))}):
            qrels.append(f"{t} {r.choice(['0', 'Q0', 'x'])} {d} "
                         f"{r.choice([*range(-1, top + 1), 0, 0])}")
        for i, d in enumerate(dict.fromkeys(_docno(r) for _ in range(r.randint(1, 30)))):
            blank = r.choice([" ", "\t", "  ", " \t "])
            run.append(blank.join([t, "Q0", d, str(r.choice([i + 1, 0, i])), _score(r), "tag"]))
    r.shuffle(qrels)
    r.shuffle(run)
    return "\n".join(qrels) + "\n", "\n".join(run) + "\n"


def _all_negative_topic(qrels: str) -> bool:
    top: dict[str, int] = {}
    for line in qrels.splitlines():
        f = line.split()
        top[f[0]] = max(top.get(f[0], -9), int(f[3]))
    return any(v < 0 for v in top.values())


def run_case(reference: str, seed: int, opts: list[str], folder: Path) -> tuple[str, str]:
    qrels, run = make_case(seed)
    q, r = folder / f"q{seed}", folder / f"r{seed}"
    q.write_text(qrels)
    r.write_text(run)
    a = subprocess.run([reference, *opts, str(q), str(r)], capture_output=True)
    b = subprocess.run([sys.executable, "-m", "unjudged", "trec_eval", *opts, str(q), str(r)],
                       capture_output=True)
    if a.returncode == 0 and b.returncode == 0 and a.stdout == b.stdout:
        return "identical", ""
    if a.returncode == 4 and b.returncode == 0 and _all_negative_topic(qrels) \
            and b"the first that trec_eval evaluates, has only negative grades" in b.stderr:
        return "trec_eval stops", ""
    if "qrels_prefs" in opts and a.returncode == 0 and b.returncode == 0 and \
            "-1" in [line.split()[3] for line in qrels.splitlines()]:
        lines = [(x, y) for x, y in zip(a.stdout.splitlines(), b.stdout.splitlines(),
                                        strict=False) if x != y]
        if lines and all(x.startswith(b"prefs_avgjg_Rnonrel ") for x, _ in lines):
            return "known", ""
    return differ(opts, a, b)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("reference", help="a trec_eval 10.0 executable")
    add_options(ap, GROUPS, "trec_eval10_fuzz.json")
    a = ap.parse_args()
    version = subprocess.run([a.reference, "-v"], capture_output=True, text=True)
    said = (version.stdout + version.stderr).strip()
    if "10." not in said:
        sys.exit(f"{a.reference} is not trec_eval 10 ({said[:60]!r})")

    def cases_of(g: int, name: str) -> list[tuple[int, Any]]:
        chooser = random.Random(a.seed * 1000 + g)
        return [(s, chooser.choice(GROUPS[name])) for s in seeds(a.seed, g, a.cases)]

    def files_of(case: tuple[int, Any]) -> dict[str, bytes]:
        qrels, run = make_case(case[0])
        return {"qrels": qrels.encode(), "run": run.encode()}

    counts, took = tally(a, cases_of, lambda case, tmp: run_case(a.reference, *case, tmp),
                         files_of)
    write(a, {"trec_eval": said, "cases_per_group": a.cases, "seed": a.seed,
              "options": {k: [" ".join(o) for o in GROUPS[k]] for k in a.groups.split(",")},
              "outcomes": counts, "seconds": took})


if __name__ == "__main__":
    main()
