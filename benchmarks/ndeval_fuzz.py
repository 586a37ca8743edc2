"""A differential fuzz of `unjudged ndeval` against ndeval 4.5 on small random inputs.

    .venv/bin/python benchmarks/ndeval_fuzz.py /path/to/ndeval [--cases 200] [--seed 0]
        [--groups basic,alpha_beta,depth,baseline] [-j 2] [--keep DIR]

ndeval 4.5 is ndeval.c from pyndeval's sdist, compiled with gcc (tests/test_ndeval.py does the
same). Each case is a random diversity qrels (1-4 topics with ids such as `1`, `007`, `12`,
`1000000`; subtopics 0-6 and sometimes 40; grades 0-3; a doc judged for several subtopics; a
(doc, subtopic) judged twice; a topic without relevant documents), a run and a baseline run (ties
in score, scores in exponent or hex form or equal to 7 digits, ranks against the scores, ranks
with gaps, judged and unjudged docnos of odd shapes, a run topic the qrels lack, one with a
`wt09-` prefix, a topic `t`, a qrels topic the run lacks), all with odd blanks, leading blanks,
extra fields, CRLF ends, a last line without its newline, lines shuffled; both programs evaluate
it under an option set drawn from the group. A few cases carry input that both should refuse: a
negative grade, a repeated rank, a repeated docno. Outcomes, per group:

- identical: the same bytes on standard output and exit 0 from both;
- both refuse: ndeval exits 1 and the drop-in 2 (unjudged's code for every input error), both
  with nothing on standard output, and both name the same line or the same repeated rank or
  docno;
- known: `-traditional` with a score that C's sscanf cannot read (ndeval then sorts on the
  uninitialised memory of its score field, or stops at a later error; the drop-in refuses the
  line, saying so) or a `nan`
  score (ndeval's comparisons are then inconsistent and the order is qsort's accident);
- ndeval fails: ndeval dies of a signal or exits with another code;
- differ: anything else (kept in --keep DIR, with the options, for a look).

Writes benchmarks/results/ndeval_fuzz.json (counts per group and outcome).
"""

from __future__ import annotations

import argparse
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from fuzzing import add_options, differ, seeds, tally, write

B = "BASE"  # stands for the baseline run's path
GROUPS: dict[str, list[list[str]]] = {
    "basic": [[], ["-c"], ["-traditional"], ["-a"], ["-ca"], ["-c", "-traditional"],
              ["-traditional", "-ac"]],
    "alpha_beta": [["-alpha", "0.3"], ["-alpha", "0"], ["-alpha", "1"], ["-alpha", "0.75"],
                   ["-beta", "0"], ["-beta", "0.8"], ["-beta", "1"],
                   ["-alpha", "0", "-beta", "1"], ["-alpha", "1", "-beta", "0"],
                   ["-alpha", "0.1", "-beta", "0.9", "-traditional", "-c"],
                   ["-alpha", "0.30", "-alpha", "0.6"]],
    "depth": [["-M", "1"], ["-M", "3"], ["-M", "5"], ["-M", "20"], ["-M", "1000"],
              ["-M", "2", "-c"], ["-traditional", "-M", "4"], ["-M", "7", "-alpha", "0.4"],
              ["-M", "100000"]],
    "baseline": [["-baseline", B], ["-baseline", B, "-riskAlpha", "1"],
                 ["-riskAlpha", "2.50", "-baseline", B], ["-c", "-baseline", B],
                 ["-c", "-baseline", B, "-riskAlpha", "0.5"], ["-riskAlpha", "3"],
                 ["-traditional", "-M", "3", "-baseline", B, "-riskAlpha", "1e1"],
                 ["-alpha", "0.2", "-baseline", B, "-c", "-M", "5"],
                 ["-baseline", B, "-riskAlpha", "0", "-beta", "0.9"]],
}
# scores C's sscanf("%lf") reads fully or in part, and ones it cannot read at all
SCORES = ["1e-3", "2.5E+2", "0x1p-2", "0x.8", "inf", "-inf", "1e400", "1e-400", "-0", "+.5",
          "1.5abc", "1e", "1d5", "INFINITY", ".5"]
UNREADABLE = ["abc", "infinit", "0x", ".e1", "-", "x1"]


def _docno(r: random.Random) -> str:
    k = r.random()
    if k < 0.15:
        return r.choice(["D1", "d1", "d10", "d01", "Z", "a-b", "x.y", "9" * 20, "é", "d1é",
                         "clueweb09-en0000-00-00001", "_", "d1-", "1", "L" * 300])
    return f"d{r.randint(0, 25)}"


def _score(r: random.Random, flags: set[str]) -> str:
    k = r.random()
    if k < 0.25:
        return str(r.choice([0, 1, 2, -1, 0.5]))
    if k < 0.35:
        return f"{r.uniform(-5, 5):.3e}"
    if k < 0.45:
        return f"{r.randint(-3, 3) * 1.0000001:.9f}"
    if k < 0.55:
        return r.choice(SCORES)
    if k < 0.554:
        flags.add("unreadable score")
        return r.choice(UNREADABLE)
    if k < 0.557:
        flags.add("nan score")
        return r.choice(["nan", "NaN", "nan(1)"])
    return f"{r.uniform(0, 10):.{r.randint(0, 7)}f}"


def _qrels(r: random.Random, topics: list[str], flags: set[str]) -> str:
    lines = []
    for n, t in enumerate(topics):
        subs = r.sample([0, 1, 2, 3, 4, 5, 6] + ([40] if r.random() < 0.1 else []),
                        r.randint(1, 6))
        empty = n == 0 and r.random() < 0.3  # a topic without relevant documents
        for d in sorted({_docno(r) for _ in range(r.randint(1, 12))}):
            for s in r.sample(subs, r.randint(1, min(3, len(subs)))):
                grade = 0 if empty else r.choice([0, 0, 1, 1, 2, 3])
                lines.append(f"{t} {s} {d} {grade}")
                if r.random() < 0.03:  # judged again, maybe otherwise
                    lines.append(f"{t} {s} {d} {r.choice([0, 1, 2])}")
    if r.random() < 0.02:
        flags.add("refused")
        lines.append(f"{topics[0]} 1 dneg -1")
    r.shuffle(lines)
    blank = r.choice([" ", " ", "\t", "  ", "\x0b"])
    extra = r.choice(["", "", "", " x y"])  # fields after the fourth are ignored
    return "".join(line.replace(" ", blank) + extra + "\n" for line in lines)


def _run(r: random.Random, qrels: str, topics: list[str], tag: str, flags: set[str]) -> str:
    judged: dict[str, list[str]] = {}
    for line in qrels.split("\n")[:-1]:  # not splitlines: it splits at the \x0b blanks too
        f = line.split()
        judged.setdefault(str(int(f[0])), []).append(f[2])
    ids = [t for t in topics if r.random() < 0.85] or topics[:1]
    if r.random() < 0.3:  # a topic the qrels lack
        ids.append(r.choice(["99", "5", "0100"]))
    lines = []
    extra = r.choice([[], [], [], ["extra"], ["a", "b"]])  # fields after the sixth are ignored
    for t in ids:
        pool = sorted(set(judged.get(str(int(t)), [])))
        docs = list(dict.fromkeys([r.choice(pool) for _ in range(r.randint(0, 15))] if pool
                                  else []))
        docs += [d for d in dict.fromkeys(_docno(r) for _ in range(r.randint(1, 10)))
                 if d not in docs]
        r.shuffle(docs)
        if r.random() < 0.02:  # a repeated docno, deep (an -M cut may drop it)
            docs.append(docs[0])
            flags.add("repeated docno")
        ranks = list(range(1, len(docs) + 1))
        k = r.random()
        if k < 0.3:
            r.shuffle(ranks)  # ranks against the scores
        elif k < 0.45:
            ranks = sorted(r.sample(range(0, 60), len(docs)))  # gaps, maybe rank 0
        if r.random() < 0.015 and len(ranks) > 1:
            ranks[-1] = ranks[0]
            flags.add("refused")
        k = r.random()
        shown = f"wt09-{t}" if k < 0.1 else "t" if k < 0.11 else t
        q0 = "0" if shown == "t" and r.random() < 0.5 else "Q0"  # what ndeval reads for `t`
        tie = _score(r, flags)
        for d, k in zip(docs, ranks, strict=True):
            score = tie if r.random() < 0.3 else _score(r, flags)
            blank = r.choice([" ", "\t", "  ", " \t ", "\f"])
            lead = r.choice(["", "", "", " ", "\t"])
            lines.append(lead + blank.join([shown, q0, d, str(k), score, tag, *extra]))
    r.shuffle(lines)
    end = "\r\n" if r.random() < 0.1 else "\n"
    text = end.join(lines)
    return text + end if r.random() < 0.9 else text


def make_case(seed: int) -> tuple[str, str, str, set[str]]:
    """One random (qrels, run, baseline, flags); the same seed gives the same case."""
    r = random.Random(seed)
    topics = r.sample(["1", "2", "3", "007", "12", "0", "101", "1000000"], r.randint(1, 4))
    flags: set[str] = set()
    qrels = _qrels(r, topics, flags)
    run = _run(r, qrels, topics, r.choice(["run", "r.1", "x-y"]), flags)
    base = _run(r, qrels, topics, "base", flags)
    return qrels, run, base, flags


def _refusal(stderr: bytes, ndeval: bool) -> tuple[str, ...]:
    """What an error message refuses (which file and line, or which repeat), to check that
    both programs stop at the same place: ndeval says `syntax error in run file "F" at line N`,
    the drop-in `F:N: syntax error ...`."""
    text = stderr.decode(errors="replace")
    repeat = re.search(r"duplicate (rank|docno) \((.*?)\) for topic (\d+)", text)
    if repeat:
        return repeat.groups()
    where = re.search(r'in (?:qrel|run) file "[^"]*?(\w)(\d+)" at line (\d+)' if ndeval else
                      r"/(\w)(\d+):(\d+): syntax error", text)
    return where.groups() if where else (text[-200:],)


def run_case(reference: str, seed: int, opts: list[str], folder: Path) -> tuple[str, str]:
    qrels, run, base, flags = make_case(seed)
    paths = [folder / f"{kind}{seed}" for kind in ("q", "r", "b")]
    for path, text in zip(paths, (qrels, run, base), strict=True):
        path.write_bytes(text.encode())
    args = [str(paths[2]) if o == B else o for o in opts] + [str(paths[0]), str(paths[1])]
    a = subprocess.run([reference, *args], capture_output=True)
    b = subprocess.run([sys.executable, "-m", "unjudged", "ndeval", *args], capture_output=True)
    if a.returncode == 0 and b.returncode == 0 and a.stdout == b.stdout:
        return "identical", ""
    if a.returncode == 1 and b.returncode == 2 and not a.stdout and not b.stdout \
            and _refusal(a.stderr, ndeval=True) == _refusal(b.stderr, ndeval=False):
        return "both refuse", ""
    if "-traditional" in opts and (
            ("unreadable score" in flags and b"is not a number" in b.stderr)
            or ("nan score" in flags and a.returncode == b.returncode == 0)):
        return "known", ""
    if a.returncode not in (0, 1):
        return "ndeval fails", ""
    return differ(opts, a, b)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("reference", help="an ndeval 4.5 executable")
    add_options(ap, GROUPS, "ndeval_fuzz.json")
    ap.add_argument("--built-from", default="", help="where the executable came from, for the "
                    "record (e.g. pyndeval 0.0.8's ndeval.c, gcc 12.2 -O2)")
    a = ap.parse_args()
    said = subprocess.run([a.reference, "-version"], capture_output=True, text=True).stdout.strip()
    if "version 4.5" not in said:
        sys.exit(f"{a.reference} is not ndeval 4.5 ({said[:60]!r})")

    def cases_of(g: int, name: str) -> list[tuple[int, Any]]:
        chooser = random.Random(a.seed * 1000 + g)
        return [(s, chooser.choice(GROUPS[name])) for s in seeds(a.seed, g, a.cases)]

    def files_of(case: tuple[int, Any]) -> dict[str, bytes]:
        qrels, run, base, _ = make_case(case[0])
        return {"qrels": qrels.encode(), "run": run.encode(), "base": base.encode()}

    counts, took = tally(a, cases_of, lambda case, tmp: run_case(a.reference, *case, tmp),
                         files_of)
    write(a, {"ndeval": said, "built_from": a.built_from, "cases_per_group": a.cases,
              "seed": a.seed,
              "options": {k: [" ".join(o) for o in GROUPS[k]] for k in a.groups.split(",")},
              "outcomes": counts, "seconds": took})


if __name__ == "__main__":
    main()
