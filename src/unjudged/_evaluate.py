"""The façade: files, dicts or DataFrames in, labelled results out."""

from __future__ import annotations

from typing import Any, Iterable

import numpy as np

from unjudged.data.diversity import judge_diversity, needs_subtopics
from unjudged.data.judged import Pool, evaluated_topics, judge
from unjudged.data.qrels import Qrels
from unjudged.data.run import Run
from unjudged.io import read_qrels, read_run
from unjudged.io.runs import expand_paths
from unjudged.measures import Measure, parse_measures
from unjudged.policies import Policies
from unjudged.results import Results, RunResult


def _as_runs(runs: Any, ties: str, qrels: Qrels | None = None) -> list[Run]:
    if isinstance(runs, (Run, dict)) or type(runs).__name__ == "DataFrame" or \
            isinstance(runs, (str, bytes)) or hasattr(runs, "__fspath__"):
        runs = [runs]
    return [read_run(r, ties=ties, qrels=qrels) for r in expand_paths(runs)]


def score(runs: Iterable[Run], qrels: Qrels, measures: list[Measure],
          policies: Policies = Policies()) -> Results:
    """Compute measures for already-read runs (the pool facts are built once per topic set)."""
    pools: dict[tuple[str, ...], Pool] = {}
    out = []
    judge_with = judge_diversity if needs_subtopics(measures) else judge  # subtopic masks
    for run in runs:
        topics = evaluated_topics(run, qrels, policies.complete)
        key = tuple(topics)
        if key not in pools:
            pools[key] = Pool.build(qrels, topics, policies.negative)
        judged = judge_with(run, qrels, policies, pools[key])
        values = np.empty((len(topics), len(measures)), dtype=np.float64)
        for i, m in enumerate(measures):
            values[:, i] = m.compute(judged) if topics else 0.0
        out.append(RunResult(run.name, topics, measures, values))
        del run, judged  # a streamed run is freed before the next one is read
    return Results(out)


def evaluate(runs: Any, qrels: Any, measures: Any, *, per_topic: bool = True,
             summary: bool = True, policies: Policies | None = None, **policy_kw: Any):
    """Evaluate runs against qrels; returns a tidy DataFrame (run, topic, measure, value).

    `runs` may be one or several paths (directories and globs expand), dicts
    {qid: {docno: score}} or DataFrames; `qrels` a path, dict {qid: {docno: grade}} or
    DataFrame; `measures` names such as "nDCG@10" or ["P@5", "AP"]. Policy options
    (complete, rel_level, depth, ties, negative, judged_only) may be given as keywords.
    Topic "all" holds each run's aggregate.

    Example:
        >>> df = evaluate({"q1": {"d1": 2.0, "d2": 1.0}}, {"q1": {"d2": 1}}, ["P@1", "RR"])
        >>> df[df.topic == "all"][["measure", "value"]].values.tolist()
        [['P@1', 0.0], ['RR', 0.5]]
    """
    pol = (policies or Policies()).but(**policy_kw) if policy_kw else (policies or Policies())
    ms = parse_measures(measures)
    q = read_qrels(qrels)
    results = score(_as_runs(runs, pol.ties, q), q, ms, pol)
    return results.to_pandas(per_topic=per_topic, summary=summary)
