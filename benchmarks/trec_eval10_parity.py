"""`unjudged trec_eval` against trec_eval 10.0 itself on every real (qrels, run) pair of the
shared data, under the common option sets, byte for byte.

    .venv/bin/python benchmarks/trec_eval10_parity.py /path/to/trec_eval [-j 2]
        [--data ../shared/data] [--limit N] [--datasets covid-r1,...] [--options all_trec,c,...]

The binary must say version 10 (`trec_eval -v`); trec_eval 10.0 is built from the usnistgov
source (v10.0, f425365). Pairs: TREC-COVID round 1's 143 runs on qrels-rnd1 and on the complete
qrels of its 30 topics (graded 0-2, with -1 entries); Robust04's Anserini BM25+RM3 run on the Robust
2004 qrels; on Cranfield, CACM, CISI and NPL every retrieval model of unjudged (depth 1000,
scores written with 6 decimals as Anserini writes them, so ties occur as in real runs) and the
MiniLM dense run, on the collection's qrels written in trec_eval's format. Qrels of the data
without any run (bioCADDIE, TREC PM 2017, DL 2023) are listed as such. Writes
benchmarks/results/trec_eval10_parity.json: per data set and option set the identical and
differing pairs, and the first differing lines of the first pairs that differ.
"""

from __future__ import annotations

import argparse
import json
import lzma
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
RESULTS = Path(__file__).parent / "results"
TEXT = ("cranfield", "cacm", "cisi", "npl")
OPTIONS: dict[str, list[str]] = {
    "all_trec": ["-q", "-m", "all_trec"],
    "c": ["-q", "-c", "-m", "all_trec"],
    "J": ["-q", "-J", "-m", "all_trec"],
    "M100": ["-q", "-M", "100", "-m", "all_trec"],
    "l2": ["-q", "-l", "2", "-m", "all_trec"],
    "ndcg_cut": ["-q", "-m", "ndcg_cut.5,10"],
    "qrels_prefs": ["-q", "-R", "qrels_prefs", "-m", "all_prefs"],
    # -c with -l: the summary num_rel counts grades > 0 whatever -l says; -J with it
    "cJl2": ["-q", "-c", "-J", "-l", "2", "-m", "all_trec"],
}
#: qrels in the data with no run to evaluate against them
NO_RUNS = (
    "biocaddie2016-amillert/qrelsBiocaddie",
    "bst-mug-trec-pm/src/main/resources/gold-standard/qrels-treceval-abstracts.2017.txt",
    "llmjudge-dl23/qrels.dl23-passage.txt",
)


def plain(path: Path, folder: Path) -> Path:
    """The file itself, or its decompressed copy in `folder` for a .xz file."""
    if path.suffix != ".xz":
        return path
    out = folder / path.name.removesuffix(".xz")
    if not out.exists():
        out.write_bytes(lzma.decompress(path.read_bytes()))
    return out


def on_topics_of(qrels: Path, like: Path, out: Path) -> Path:
    """The lines of `qrels` on the topics of `like`. A qrels topic the run lacks is left out:
    without -c the stored trec_eval.c (9d55fc9) evaluates the previous topic's ranking again for
    it (under that topic's id), trec_eval 9 and unjudged skip it, and the stored versions do not
    tell which 10.0 does (-c, where both use an empty ranking, is in trec_eval's own tests)."""
    topics = {line.split()[0] for line in like.read_text().splitlines() if line.strip()}
    lines = [
        line
        for line in qrels.read_text().splitlines()
        if line.strip() and line.split()[0] in topics
    ]
    out.write_text("\n".join(lines) + "\n")
    return out


def write_qrels(qrels: Any, path: Path) -> Path:
    lines = [f"{t} 0 {d} {g}" for t, docs in qrels.to_dict().items() for d, g in docs.items()]
    path.write_text("\n".join(lines) + "\n")
    return path


def write_run(run: Any, path: Path) -> Path:
    lines = []
    for t, docs in run.to_dict().items():
        ranked = sorted(docs.items(), key=lambda x: -x[1])
        lines += [f"{t} Q0 {d} {i} {s:.6f} {run.name}" for i, (d, s) in enumerate(ranked, 1)]
    path.write_text("\n".join(lines) + "\n")
    return path


def pairs(
    data: Path, folder: Path, wanted: set[str], limit: int | None
) -> Iterator[tuple[str, Path, Path]]:
    """(data set, qrels file, run file) for every real pair of the shared data."""
    covid = data / "castorini-TREC-COVID" / "round1"
    runs = sorted((covid / "runs").iterdir())[:limit]
    rnd1 = covid / "qrels" / "qrels-rnd1.txt"
    for name, qrels in (
        ("covid-r1", rnd1),
        (
            "covid-r1-complete",
            on_topics_of(
                data / "anserini-tools" / "qrels" / "qrels.covid-complete.txt",
                rnd1,
                folder / "qrels.covid-complete.rnd1-topics",
            ),
        ),
    ):
        if name in wanted:
            for r in runs:
                yield name, qrels, plain(r, folder)
    if "robust04" in wanted:
        cap = data / "capreolus-pypi"
        yield (
            "robust04",
            cap / "qrels.robust2004.txt",
            plain(cap / "rob04_yang19_rm3.run.xz", folder),
        )
    for name in TEXT:
        if name not in wanted:
            continue
        from unjudged.text.collections import load_collection
        from unjudged.text.retrieval import generate_runs

        c = load_collection(name, data)
        qrels = write_qrels(c.qrels, folder / f"qrels.{name}")
        dense = plain(data / "minilm-dense-runs" / f"{name}.minilm.run.xz", folder)
        made = [write_run(r, folder / f"{name}.{r.name}.run") for r in generate_runs(c)]
        for r in (made + [dense])[:limit]:
            yield name, qrels, r


def first_diff(want: bytes, got: bytes, n: int = 3) -> list[str]:
    a, b = want.decode(errors="replace").splitlines(), got.decode(errors="replace").splitlines()
    out = [
        f"line {i + 1}: trec_eval {x!r} | unjudged {y!r}"
        for i, (x, y) in enumerate(zip(a, b, strict=False))
        if x != y
    ][:n]
    if not out and len(a) != len(b):
        out = [f"trec_eval printed {len(a)} lines, unjudged {len(b)}"]
    return out


def compare(binary: Path, options: list[str], qrels: Path, run: Path) -> list[str]:
    """[] when both print the same bytes and agree on failing, else the first differences."""
    from click.testing import CliRunner

    from unjudged.cli import main

    ref = subprocess.run([str(binary), *options, str(qrels), str(run)], capture_output=True)
    got = CliRunner().invoke(main, ["trec_eval", *options, str(qrels), str(run)])
    if (ref.returncode == 0) != (got.exit_code == 0):
        return [
            f"trec_eval exit {ref.returncode} ({ref.stderr.decode()[:80].strip()!r}), "
            f"unjudged exit {got.exit_code} ({got.output[:80].strip()!r})"
        ]
    if ref.returncode != 0:
        return []
    return first_diff(ref.stdout, got.stdout_bytes) if ref.stdout != got.stdout_bytes else []


def compare_all(binary: Path, optsets: list[str], pair: tuple[str, Path, Path]) -> tuple:
    """(data set, run name, {option set: first differences}) of one pair."""
    name, qrels, run = pair
    return name, run.name, {o: compare(binary, OPTIONS[o], qrels, run) for o in optsets}


def write(out: Path, version: str, optsets: list[str], table: dict, seconds: float) -> None:
    total = {
        o: {k: sum(table[d][o][k] for d in table) for k in ("identical", "differ")} for o in optsets
    }
    result = {
        "trec_eval": version + " (usnistgov/trec_eval v10.0, f425365, built from source)",
        "options": {o: " ".join(OPTIONS[o]) for o in optsets},
        "datasets": table,
        "total": total,
        "qrels_without_runs": list(NO_RUNS),
        "seconds": round(seconds, 1),
    }
    out.write_text(json.dumps(result, indent=1) + "\n")


def main() -> None:
    from concurrent.futures import ProcessPoolExecutor
    from functools import partial

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("binary", type=Path, help="trec_eval 10.0 executable")
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--limit", type=int, default=None, help="runs per data set (default all)")
    ap.add_argument("--datasets", default="covid-r1,covid-r1-complete,robust04," + ",".join(TEXT))
    ap.add_argument("--options", default=",".join(OPTIONS))
    ap.add_argument("-j", "--jobs", type=int, default=1, help="processes")
    ap.add_argument("--out", type=Path, default=RESULTS / "trec_eval10_parity.json")
    args = ap.parse_args()
    said = subprocess.run([str(args.binary), "-v"], capture_output=True, text=True)
    version = (said.stdout + said.stderr).strip()
    if "version 10" not in version:
        raise SystemExit(f"{args.binary} is not trec_eval 10 ({version!r})")
    wanted, optsets = set(args.datasets.split(",")), args.options.split(",")
    table: dict[str, dict[str, dict[str, Any]]] = {}
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp, ProcessPoolExecutor(args.jobs) as ex:
        todo = list(pairs(args.data, Path(tmp), wanted, args.limit))
        for name, run, diffs in ex.map(partial(compare_all, args.binary, optsets), todo):
            for opt, diff in diffs.items():
                cell = table.setdefault(name, {}).setdefault(
                    opt, {"identical": 0, "differ": 0, "first_differences": []}
                )
                cell["identical" if not diff else "differ"] += 1
                if diff and len(cell["first_differences"]) < 3:
                    cell["first_differences"].append({"run": run, "lines": diff})
            print(
                f"{name:18} {run:40} " + " ".join(f"{o}={len(d) > 0:d}" for o, d in diffs.items()),
                flush=True,
            )
            write(args.out, version, optsets, table, time.perf_counter() - start)
    for o, t in json.loads(args.out.read_text())["total"].items():
        print(f"{o:12} identical {t['identical']}, differ {t['differ']}")


if __name__ == "__main__":
    main()
