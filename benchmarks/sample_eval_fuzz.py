"""A differential fuzz of `unjudged sample_eval` against the two sample_eval.pl copies.

    .venv/bin/python benchmarks/sample_eval_fuzz.py /path/to/trec.pl /path/to/trecvid.pl
        [--cases 200] [--seed 0] [--groups trec,trecvid,odd] [-j 2] [--keep DIR]

The references are NIST's TREC copy (amillert/TREC-elastic 3f3bb0a) and the TRECVID copy
(GeometricMLMechanism/ProbVideoRetrieval fce458e), run with `perl`; see
tests/data/sample_eval/SOURCES.md. Each case is a random sampled qrels
(`topic iter docno stratum grade`) of 1-4 topics (ids such as 1, 007, 12; strata sampled at
different rates, one stratum with nothing sampled, a topic without relevant documents) and a
random run (ties, scores equal in float32 but not in double, exponent forms, zero-padded
topics, repeated docnos, documents outside the universe, topics on one side only, odd blanks,
lines shuffled). Groups: `trec` (with or without -q), `trecvid` (maxResultSize 2 to 1000, with
or without -q), `odd` (either copy; odd grade and score strings such as `1.0`, `+1`, `abc`,
`inf`, `1.#INF`; topic ids with `%`; CRLF, a leading blank, Latin-1 bytes, a record cut
short). Outcomes, per group:

- identical: the same bytes on standard output, both exit 0;
- no common topic: no run topic is in the qrels; perl dies dividing by zero, the drop-in
  exits 2 saying so;
- hash order: two evaluated topics are equal as numbers (`7` and `007`), which perl orders
  by its randomised hash order; the same lines in another order;
- % in a topic id: perl prints the id inside printf's format, so `a%s` eats the value (a
  warning, the line's digits shifted); the drop-in prints the id; every other line agrees;
- differ: anything else (kept in --keep DIR, with the command, for a look).

Writes benchmarks/results/sample_eval_fuzz.json (counts per group and outcome).
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

from fuzzing import add_options, differ, seeds, tally, write

GROUPS = ("trec", "trecvid", "odd")
BLANKS = [" ", "\t", "  ", " \t "]


def _score(r: random.Random) -> str:
    k = r.random()
    if k < 0.25:
        return str(r.choice([0, 1, 2, 3]))               # ties
    if k < 0.35:
        return f"{r.uniform(-5, 5):.3e}"
    if k < 0.45:                                        # equal in float32, not in double
        return r.choice(["0.1", "0.100000001", "0.10000000149011612", "1.0000001", "1"])
    if k < 0.5:
        return r.choice(["1E0", "10e-1", "2.", ".5", "5e-1", "1.0e+00"])
    return f"{r.uniform(0, 10):.{r.randint(0, 6)}f}"


def _odd_score(r: random.Random) -> str:
    return r.choice(["inf", "-inf", "Inf", "1e400", "-1e400", "abc", "2x", "+1", "-0",
                     "0x10", "1_5", "1e", "1e+", "+.5", "0.1000000000000000055511151231257827",
                     "1.#INF", "-1.#INF", "Infinity", "infx"])


def _grade(r: random.Random, sampled: bool, relevant: bool, odd: bool) -> str:
    if not sampled:
        return r.choice(["-1", "-1.0", "-2"]) if odd and r.random() < 0.2 else "-1"
    if odd and r.random() < 0.2:
        return r.choice(["1.0", "+1", "02", "abc", "3x", "0.0", "2.5", "10"])
    return str(r.choice([0, 0, 1, 2, 3]) if relevant else 0)


def _docno(r: random.Random, odd: bool) -> str:
    k = r.random()
    if odd and k < 0.1:
        return r.choice(["d\xe9", "\xa0d", "D\xff1", "d1\xa0"])
    if k < 0.15:
        return r.choice(["D1", "d1", "d10", "d2", "Z", "a-b", "x.y", "9" * 12, "01", "1"])
    return f"d{r.randint(0, 40)}"


def make_case(seed: int, group: str) -> tuple[bytes, bytes, list[str]]:
    """One random (qrels, run, options) triple; the same seed and group give the same triple.
    The options are the drop-in's; `perl_args` turns them into each copy's arguments."""
    r = random.Random(seed)
    odd = group == "odd"
    lineage = r.choice(["trec", "trecvid"]) if odd else group
    opts = ["--lineage", lineage] + (["-q"] if r.random() < 0.6 else [])
    if lineage == "trecvid":
        opts += ["--max-result-size", str(r.choice([1000, 2, 5, 10, 20, 100]))]
    ids = ["1", "007", "12", "3", "20"] + (["7"] if r.random() < 0.25 else [])
    if odd and r.random() < 0.1:
        ids.append(r.choice(["5%", "a%s", "%d"]))
    topics = r.sample(ids, r.randint(1, 4))
    barren = r.choice(topics) if r.random() < 0.5 else None  # no relevant document
    qrels, run = [], []
    for t in topics:
        strata = r.sample(["1", "2", "3", "10", "depth"], r.randint(1, 4))
        rates = {s: r.choice([1.0, 0.5, 0.2, 0.0]) for s in strata}
        if len(strata) > 1:
            rates[strata[-1]] = 0.0                     # a stratum with nothing sampled
        universe = list(dict.fromkeys(_docno(r, odd) for _ in range(r.randint(2, 25))))
        if r.random() < 0.05:  # an estimated R over 1000: the ideal DCG stops at rank 1000
            universe += [f"u{i}" for i in range(r.randint(1500, 3000))]
        for d in universe:
            s = r.choice(strata)
            g = _grade(r, r.random() < rates[s], t != barren, odd)
            qrels.append(r.choice(BLANKS).join([t, r.choice(["0", "Q0"]), d, s, g]))
        if r.random() < 0.1:                            # a docno judged twice
            qrels.append(f"{t} 0 {r.choice(universe)} {r.choice(strata)} {r.choice(['-1', '1'])}")
        if r.random() < 0.85:
            size = r.choice([r.randint(1, 30), r.randint(1, 30), r.randint(40, 120),
                             r.randint(990, 1010)])  # past the cut-offs 10, 50, 100, 1000
            inside = 0.6 if size < 40 else 0.1
            docs = [r.choice(universe) if r.random() < inside else
                    _docno(r, odd) if size < 40 else f"o{r.randint(0, 2 * size)}"
                    for _ in range(size)]
            names = [t, t.zfill(r.choice([2, 3, 4]))] if lineage == "trec" else [t]
            for i, d in enumerate(docs):
                score = _odd_score(r) if odd and r.random() < 0.1 else _score(r)
                run.append(r.choice(BLANKS).join([r.choice(names), "Q0", d, str(i + 1), score,
                                                  "tag"]))
    for t in r.sample(["99", "5", "0"], r.randint(0, 2)):  # run topics the qrels lack
        run += [f"{t} Q0 {_docno(r, odd)} {i} {_score(r)} tag" for i in range(r.randint(1, 4))]
    r.shuffle(qrels)
    r.shuffle(run)
    q, rn = "\n".join(qrels) + "\n", "\n".join(run) + "\n"
    if odd:
        if r.random() < 0.3:
            q, rn = q.replace("\n", "\r\n"), rn.replace("\n", "\n\n")
        if r.random() < 0.3:
            q, rn = " " + q, "\t" + rn
        if r.random() < 0.1:                            # a record cut short at the end
            rn = rn.rstrip().rsplit(" ", 1)[0] + "\n"
    return q.encode("latin-1"), rn.encode("latin-1"), opts


def perl_args(opts: list[str], qrels: str, run: str) -> list[str]:
    args = (["-q"] if "-q" in opts else []) + [qrels, run]
    if "--max-result-size" in opts:
        args.append(opts[opts.index("--max-result-size") + 1])
    return args


def _topic_tie(qrels: bytes, run: bytes, opts: list[str]) -> bool:
    """Two run topics in the qrels equal as numbers, which perl sorts in hash order."""
    q = qrels.split()[0::5]
    tokens = run.split()[0::6]
    if "trec" in opts:
        tokens = [t.lstrip(b"0") for t in tokens]
    both = set(tokens) & set(q)
    values = [float(t) if t.isdigit() else 0.0 for t in both]
    return len(set(values)) < len(values)


def _percent_topic(qrels: bytes, run: bytes, a: bytes, b: bytes) -> bool:
    """A per-topic block of a topic id holding '%': perl prints the id as part of printf's
    format (a warning, digits shifted); every other line agrees."""
    if not any(b"%" in t for t in set(qrels.split()[0::5]) & set(run.split()[0::6])):
        return False

    def keep(out: bytes) -> list[bytes]:
        return [x for x in out.splitlines() if b"\tall\t" in x or b":" in x]
    return keep(a) == keep(b)


def run_case(refs: dict[str, str], seed: int, group: str, folder: Path) -> tuple[str, str]:
    qrels, run, opts = make_case(seed, group)
    q, r = folder / f"q{seed}", folder / f"r{seed}"
    q.write_bytes(qrels)
    r.write_bytes(run)
    lineage = opts[opts.index("--lineage") + 1]
    a = subprocess.run(["perl", refs[lineage], *perl_args(opts, str(q), str(r))],
                       capture_output=True)
    b = subprocess.run([sys.executable, "-m", "unjudged", "sample_eval", *opts, str(q), str(r)],
                       capture_output=True)
    if a.returncode == 0 and b.returncode == 0 and a.stdout == b.stdout:
        return "identical", ""
    if a.returncode != 0 and b"Illegal division by zero" in a.stderr and a.stdout == b"" \
            and b.returncode == 2 and b"no topic of the run is in the qrels" in b.stderr:
        return "no common topic", ""
    if a.returncode == 0 and b.returncode == 0 and _topic_tie(qrels, run, opts) \
            and sorted(a.stdout.splitlines()) == sorted(b.stdout.splitlines()):
        return "hash order", ""
    if a.returncode == 0 and b.returncode == 0 and "-q" in opts \
            and _percent_topic(qrels, run, a.stdout, b.stdout):
        return "% in a topic id", ""
    return differ(opts, a, b)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("trec", help="the TREC copy of sample_eval.pl")
    ap.add_argument("trecvid", help="the TRECVID copy of sample_eval.pl")
    add_options(ap, GROUPS, "sample_eval_fuzz.json")
    a = ap.parse_args()
    refs = {"trec": a.trec, "trecvid": a.trecvid}
    perl = subprocess.run(["perl", "-e", "print $^V"], capture_output=True, text=True).stdout

    def files_of(case: tuple[int, Any]) -> dict[str, bytes]:
        qrels, run, _ = make_case(*case)
        return {"qrels": qrels, "run": run}

    counts, took = tally(a, lambda g, name: [(s, name) for s in seeds(a.seed, g, a.cases)],
                         lambda case, tmp: run_case(refs, *case, tmp), files_of)
    write(a, {"references": {"trec": "amillert/TREC-elastic 3f3bb0a sample_eval.pl",
                             "trecvid": "GeometricMLMechanism/ProbVideoRetrieval fce458e "
                                        "sample_eval.pl"},
              "perl": perl, "cases_per_group": a.cases, "seed": a.seed,
              "outcomes": counts, "seconds": took})


if __name__ == "__main__":
    main()
