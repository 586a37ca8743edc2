"""One peer evaluation, run as its own process by run_bench.py.

    python benchmarks/peers.py TOOL QRELS RUN [RUN ...]

Reads the files with the peer's own readers, computes the closest equivalents
of {P@10, nDCG@10, AP, Bpref, Judged@10} and prints JSON
{run_file_name: {measure: mean}} on stdout, keyed by unjudged's measure names
so run_bench.py can line the tools up. Everything the peer does (imports
included) happens inside this process, because the benchmark times whole
processes: that is what a user waiting on a shell command experiences.

Exit code 3 means the peer is not installed.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

NOT_INSTALLED = 3


def mean(values) -> float:
    values = list(values)
    return sum(values) / len(values) if values else float("nan")


def pytrec_eval_tool(qrels_path: str, run_paths: list[str]) -> dict:
    import pytrec_eval

    names = {"P_10": "P@10", "ndcg_cut_10": "nDCG@10", "map": "AP", "bpref": "Bpref"}
    # Prefer the package's own parsers (0.5.x has them); older ones lack them.
    parse_qrel = getattr(pytrec_eval, "parse_qrel", None) or _plain_qrel
    parse_run = getattr(pytrec_eval, "parse_run", None) or _plain_run
    with open(qrels_path) as f:
        evaluator = pytrec_eval.RelevanceEvaluator(parse_qrel(f), set(names))
    out = {}
    for path in run_paths:
        with open(path) as f:
            per_query = evaluator.evaluate(parse_run(f))
        out[Path(path).name] = {
            ours: mean(q[theirs] for q in per_query.values()) for theirs, ours in names.items()}
    return out


def _plain_qrel(lines) -> dict:
    qrel: dict = {}
    for line in lines:
        qid, _, docno, rel = line.split()
        qrel.setdefault(qid, {})[docno] = int(rel)
    return qrel


def _plain_run(lines) -> dict:
    run: dict = {}
    for line in lines:
        qid, _, docno, _, score, _ = line.split()
        run.setdefault(qid, {})[docno] = float(score)
    return run


def ranx_tool(qrels_path: str, run_paths: list[str]) -> dict:
    from ranx import Qrels, Run, evaluate
    from ranx.metrics import metric_switch

    names = {"precision@10": "P@10", "ndcg@10": "nDCG@10", "map": "AP", "bpref": "Bpref"}
    try:  # bpref only exists in newer ranx releases
        metric_switch("bpref")
    except ValueError:
        del names["bpref"]
    # kind="trec": ranx otherwise guesses the format from the file extension.
    qrels = Qrels.from_file(qrels_path, kind="trec")
    out = {}
    for path in run_paths:
        scores = evaluate(qrels, Run.from_file(path, kind="trec"), list(names))
        out[Path(path).name] = {ours: float(scores[theirs]) for theirs, ours in names.items()}
    return out


def ir_measures_tool(qrels_path: str, run_paths: list[str]) -> dict:
    import ir_measures
    from ir_measures import AP, Bpref, Judged, P, nDCG

    measures = {P @ 10: "P@10", nDCG @ 10: "nDCG@10", AP: "AP", Bpref: "Bpref",
                Judged @ 10: "Judged@10"}
    # One evaluator holds the parsed qrels for all runs, like unjudged's
    # multi-run invocation; ir_measures.calc_aggregate would re-read them per run.
    evaluator = ir_measures.evaluator(list(measures), ir_measures.read_trec_qrels(qrels_path))
    out = {}
    for path in run_paths:
        agg = evaluator.calc_aggregate(ir_measures.read_trec_run(path))
        out[Path(path).name] = {ours: float(agg[m]) for m, ours in measures.items()}
    return out


def pyarrow_tool(qrels_path: str, run_paths: list[str]) -> dict:
    """The floor: only parse each run into columns, no evaluation at all."""
    import pyarrow.csv as pacsv

    read = pacsv.ReadOptions(column_names=["qid", "q0", "docno", "rank", "score", "tag"])
    parse = pacsv.ParseOptions(delimiter=" ")
    return {Path(p).name: {"rows": pacsv.read_csv(p, read, parse).num_rows} for p in run_paths}


TOOLS = {"pytrec_eval": pytrec_eval_tool, "ranx": ranx_tool,
         "ir_measures": ir_measures_tool, "pyarrow": pyarrow_tool}


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[0] not in TOOLS:
        print(f"usage: peers.py {{{'|'.join(TOOLS)}}} QRELS RUN [RUN ...]", file=sys.stderr)
        return 2
    try:
        result = TOOLS[argv[0]](argv[1], argv[2:])
    except ModuleNotFoundError as e:
        print(f"not installed: {e.name}", file=sys.stderr)
        return NOT_INSTALLED
    json.dump(result, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
