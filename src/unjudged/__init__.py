"""unjudged: evaluate search and ranking systems honestly when judgments are incomplete.

The public API::

    evaluate(runs, qrels, measures, ...) -> pandas.DataFrame (run, topic, measure, value)
    evaluate_stream(runs, qrels, measures, ...)  the same for run files grouped by topic that
                                            need not fit in memory (read in blocks)
    estimate(runs, qrels, measures, methods=..., prior=..., b=..., seed=...)
                                            -> pandas.DataFrame, scores under each strategy
                                               for unjudged documents (bounds, bootstrap)
    read_run(path_or_dict_or_frame) -> Run
    read_qrels(path_or_dict_or_frame) -> Qrels   (also tables, ScoredDoc/Qrel records,
                                            ir_datasets objects and "irds:<id>")
    parse_measures(["nDCG@10", "P@5"]) -> [Measure, ...]
    Policies(...)                           trec_eval's conventions as named options

    judgment_stats([qrels, ...]) -> DataFrame   judged, per grade, fraction relevant per topic
    merge_qrels / diff_qrels / filter_qrels      edit qrels (union, differences, subsets)
    build_pool(runs, depth, ...) -> JudgingPool  depth-k or ranks J..K, with contributors
    coverage(runs, qrels, bands) -> Coverage     judged fraction per rank band, judged depth
    compare_qrels(runs, orig, new, measures)     rankings under two qrels: tau, tau_AP, rho
    leave_one_group_out(runs, qrels, groups, depth, measures, ...) -> Sweep
    make_executor(jobs=None, dask=None)          serial, local processes or Dask
    paired_test(a, b, test="t") / pairwise_tests(scores, names, method=...)   significance
    compare_table(results, "latex"|"markdown", baseline=None, test="t", correction="holm")
                                            runs x measures, best in bold, superscripts naming
                                            the runs each is significantly better than
    write_run(run, path) / write_qrels(qrels, path)   TREC text, written atomically
    decision_matrix(runs, qrels, ["P", "AP"], depths)   seed 001's decision matrix
    read_sampled_qrels(path) -> SampledQrels     sample_eval's 5-column qrels (strata)
    infer(runs, sampled_qrels, measures, level=0.95) -> DataFrame   infAP, xinfAP, infNDCG,
                                                 iP@k with variances and intervals
    sample_qrels(qrels, design, ...) / sampling_experiment(...)   seed 002's designs
    plan_judgments(runs, qrels, budget, "nDCG@10", strategy=...) -> Plan   which documents
                                                 to judge next (docs/planning.md)
    draw_audit(runs, qrels, judge, n) / judge_estimate(runs, qrels, judge, measures, audit=...)
                                                 LLM labels + a human audit (docs/judges.md)
    judge_draws(...) / judge_qrels(qrels, judge)    coupled draws (P(A > B), ranks); the
                                                 judge's labels filling unjudged pairs

`import unjudged.ir_measures` registers unjudged as an ir_measures provider, with estimate
measures (Upper, Bootstrap, ...) for ir_measures and PyTerrier (docs/ir_measures.md).

Heavy modules load on first use so that `unjudged --help` starts fast.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

__all__ = [
    "evaluate", "evaluate_stream", "score", "estimate", "estimate_runs", "read_run", "read_runs",
    "read_qrels", "parse_measures", "Policies",
    "Run", "Qrels", "Results", "UnjudgedError", "FormatError", "InputError", "MeasureSpecError",
    "IncompatibleInputsError", "InvalidOptionError", "judgment_stats", "merge_qrels",
    "diff_qrels", "filter_qrels",
    "build_pool", "coverage", "compare_qrels", "leave_one_group_out", "read_groups",
    "make_executor", "read_sampled_qrels", "SampledQrels", "infer", "paired_test",
    "pairwise_tests", "decision_matrix", "baseline_comparison", "sample_qrels",
    "sampling_experiment", "plan_judgments", "compare_table", "write_run", "write_qrels",
    "judge_estimate", "draw_audit", "judge_draws", "judge_qrels", "__version__",
]

_LAZY = {
    "evaluate": "unjudged.engine.score", "score": "unjudged.engine.score",
    "evaluate_stream": "unjudged.engine.stream",
    "estimate": "unjudged.engine.estimate", "estimate_runs": "unjudged.judges.runs",
    "read_run": "unjudged.io.runs", "read_runs": "unjudged.io.runs",
    "read_qrels": "unjudged.io.qrels", "parse_measures": "unjudged.measures",
    "Policies": "unjudged.policies", "Run": "unjudged.data.run", "Qrels": "unjudged.data.qrels",
    "Results": "unjudged.engine.results", "UnjudgedError": "unjudged.errors",
    "FormatError": "unjudged.errors", "InputError": "unjudged.errors",
    "MeasureSpecError": "unjudged.errors", "IncompatibleInputsError": "unjudged.errors",
    "InvalidOptionError": "unjudged.errors",
    "judgment_stats": "unjudged.judgments.stats", "merge_qrels": "unjudged.judgments.stats",
    "diff_qrels": "unjudged.judgments.stats", "filter_qrels": "unjudged.judgments.stats",
    "build_pool": "unjudged.judgments.pools", "coverage": "unjudged.judgments.coverage",
    "compare_qrels": "unjudged.analysis.compare",
    "leave_one_group_out": "unjudged.experiments.logo",
    "read_groups": "unjudged.io.groups", "make_executor": "unjudged.parallel",
    "read_sampled_qrels": "unjudged.io.sampled", "SampledQrels": "unjudged.data.sampled",
    "infer": "unjudged.inference.infer", "paired_test": "unjudged.stats.significance",
    "pairwise_tests": "unjudged.stats.significance", "decision_matrix": "unjudged.analysis.matrix",
    "baseline_comparison": "unjudged.analysis.baseline",
    "sample_qrels": "unjudged.judgments.sampling",
    "sampling_experiment": "unjudged.experiments.sampling",
    "plan_judgments": "unjudged.planning.plan",
    "judge_estimate": "unjudged.judges", "draw_audit": "unjudged.judges",
    "judge_draws": "unjudged.judges", "judge_qrels": "unjudged.judges",
    "compare_table": "unjudged.report.comparison",
    "write_run": "unjudged.io.write", "write_qrels": "unjudged.io.write",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'unjudged' has no attribute {name!r}")


def __dir__() -> list[str]:
    # the lazy names are not in globals() until first use; list them for dir() and completion
    return sorted(set(globals()) | set(_LAZY))
