"""The façade: files, dicts or DataFrames in, labelled results out."""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import replace
from typing import Any

import numpy as np

from unjudged.data.diversity import judge_diversity, needs_subtopics
from unjudged.data.judged import Judged, Pool, evaluated_topics, judge
from unjudged.data.qrels import Qrels
from unjudged.data.run import Run
from unjudged.engine.results import Results, RunResult
from unjudged.errors import InputError, InvalidOptionError, note, shown
from unjudged.io import read_qrels, read_run, read_runs
from unjudged.io._frames import is_frame
from unjudged.io.irds import is_irds_source
from unjudged.io.records import converts_to_dict, first_is_record, is_records
from unjudged.measures import Measure, measures_given
from unjudged.policies import NameMode, Policies, TieBreak


def _as_runs(runs: Any, ties: TieBreak, qrels: Qrels | None = None,
             names: NameMode = "tag") -> list[Run]:
    """Runs as the façades take them (see `evaluate`), each under a distinct name; `ties` is
    the façade's Policies.ties."""
    if isinstance(runs, Mapping) and _named(runs):
        out = []
        for name, source in runs.items():
            run = read_run(source, name=str(name), ties=ties, qrels=qrels)
            out.append(run if run.name == str(name) else replace(run, name=str(name)))
    else:
        if isinstance(runs, (Run, Mapping, str, bytes, io.IOBase)) \
                or is_frame(runs) or hasattr(runs, "__fspath__") \
                or is_irds_source(runs) or converts_to_dict(runs):  # ranx's Run
            # one run (a stream is one file, not a list of sources)
            runs = [runs]
        elif is_records(runs):
            one, runs = first_is_record(runs)  # records (ScoredDoc, ...) are one run
            runs = [runs] if one else runs
        out = read_runs(runs, ties=ties, qrels=qrels, names=names)
    if qrels is not None:
        for run in out:
            if not any(t in qrels.topic_index for t in run.topics):  # or has no topic at all
                note(f"run {run.name} shares no topic with the qrels {qrels.source}; its "
                     "scores are meaningless")
    return out


def _named(mapping: Mapping) -> bool:
    """Whether a dict is {name: run} rather than one run {qid: {docno: score}}.

    One run maps topics to rankings, whose values are numbers; {name: run} maps names to
    paths, Runs, DataFrames or such one-run dicts (whose values are rankings).
    """
    kinds = set()
    for value in mapping.values():
        if isinstance(value, Mapping):
            first = next(iter(value.values()), 0)
            kinds.add("named" if isinstance(first, Mapping) else "run")
        else:
            kinds.add("named" if isinstance(value, (str, Run)) or hasattr(value, "__fspath__")
                      or is_frame(value) or is_irds_source(value)
                      or (is_records(value) and not isinstance(value, tuple)) else "other")
    if "other" in kinds or len(kinds) > 1:
        raise InputError("<dict>", "expected one run {qid: {docno: score}} or runs by name "
                         "{name: path, Run, DataFrame, records or {qid: {docno: score}}}")
    return kinds == {"named"}


def score(runs: Iterable[Run], qrels: Qrels, measures: list[Measure],
          policies: Policies = Policies()) -> Results:
    """Compute measures for already-read runs (the pool facts are built once per topic set).

    `qrels` and `measures` may also be what `evaluate` takes (a path, names); each run must
    be a Run (unjudged.read_run reads one)."""
    runs = run_stream(runs, "score")
    qrels = read_qrels(qrels)
    if isinstance(measures, Iterable) and not isinstance(measures, (str, Mapping)):
        measures = list(measures)
    if not isinstance(measures, list) or not all(isinstance(m, Measure) for m in measures):
        measures = measures_given(measures)  # names; a list of Measures is kept as it is
    elif not measures:  # (repeats too: callers line the columns up with their own lists)
        measures_given(measures)
    if not isinstance(policies, Policies):
        raise InvalidOptionError(f"policies: expected unjudged.Policies, got {shown(policies, 60)}")
    pools: dict[tuple[str, ...], Pool] = {}
    out = []
    judge_with = judge_diversity if needs_subtopics(measures) else judge  # subtopic masks
    for run in runs:
        topics = evaluated_topics(run, qrels, policies.complete)
        key = tuple(topics)
        if key not in pools:
            pools[key] = Pool.build(qrels, topics, policies.negative)
        judged = judge_with(run, qrels, policies, pools[key])
        out.append(RunResult(run.name, topics, measures, measure_values(judged, measures)))
        del run, judged  # a streamed run is freed before the next one is read
    return Results(out)


def measure_values(judged: Judged, measures: list[Measure]) -> np.ndarray:
    """(topics, measures) values of the judged rankings (zeros' shape when there are none)."""
    values = np.empty((len(judged.topics), len(measures)), dtype=np.float64)
    for i, m in enumerate(measures):
        values[:, i] = m.compute(judged) if judged.topics else 0.0
    return values


def run_objects(runs: Any, where: str) -> list[Run]:
    """`runs` (a Run or an iterable of them) as a list; anything else is InvalidOptionError
    naming `where`, the function that needs Runs.

    Example:
        >>> try:
        ...     run_objects({"q1": {"d1": 1.0}}, "build_pool")
        ... except InvalidOptionError as exc:
        ...     print(str(exc)[:62])
        build_pool: expected Runs (unjudged.read_run or read_runs read
    """
    if isinstance(runs, Run):
        return [runs]
    items = list(runs) if isinstance(runs, Iterable) and not isinstance(
        runs, (str, bytes, Mapping)) else None
    odd = runs if items is None else next((r for r in items if not isinstance(r, Run)), None)
    if items is None or odd is not None:
        raise InvalidOptionError(f"{where}: expected Runs (unjudged.read_run or read_runs read "
                                 f"them from paths, dicts, DataFrames), got "
                                 f"{type(odd).__name__} {shown(odd)}")
    return items


def run_stream(runs: Any, where: str) -> Iterable[Run]:
    """run_objects(runs, where), but an iterator stays one: each item is checked as it comes
    (the same error for the first that is not a Run), so that runs read one at a time from
    files are never all held at once (ten runs of 250k lines: 80 MB)."""
    if not isinstance(runs, Iterator):
        return run_objects(runs, where)
    return _checked(runs, where)


def _checked(runs: Iterator[Any], where: str) -> Iterator[Run]:
    for run in runs:
        if not isinstance(run, Run):
            run_objects([run], where)  # raises the error that names it
        yield run
        del run  # not kept alive while the next run is read


def policies_from(policies: Policies | None, changes: dict[str, Any]) -> Policies:
    """`policies` (trec_eval's by default) with the keyword arguments a facade was given."""
    if policies is not None and not isinstance(policies, Policies):
        raise InvalidOptionError(f"policies: expected unjudged.Policies, got {shown(policies, 60)}")
    pol = policies or Policies()
    return pol.but(**changes) if changes else pol


def evaluate(runs: Any, qrels: Any, measures: Any, *, per_topic: bool = True,
             summary: bool = True, policies: Policies | None = None, names: NameMode = "tag",
             **policy_kw: Any):
    """Evaluate runs against qrels; returns a tidy DataFrame (run, topic, measure, value).

    `runs` is one run or a list of them: paths (directories and globs expand to the run files
    they hold; TREC files, or CSV/TSV/JSONL/Parquet with a header), Runs, DataFrames, dicts
    {qid: {docno: score}}, iterables of records (ir_measures' ScoredDoc), ir_datasets datasets
    or `irds:<id>`; or a dict {name: run} that names each. A dict whose values are rankings
    {docno: score} is one run; one whose values are paths, Runs, DataFrames, records or such
    dicts is {name: run}. Other runs are named by their tag (`names="tag"`) or file
    (`names="file"`); runs sharing a tag are named by their files, and unnamed dicts and
    DataFrames are `run1`, `run2`, ... (`run` if alone). `qrels` is a path, dict {qid: {docno:
    grade}}, DataFrame, records (Qrel) or dataset; `measures` names such as "nDCG@10" or
    ["P@5", "AP"]. Policy options (complete, rel_level, depth, ties, negative, judged_only)
    may be given as keywords. Topic "all" holds each run's aggregate.

    Example:
        >>> df = evaluate({"q1": {"d1": 2.0, "d2": 1.0}}, {"q1": {"d2": 1}}, ["P@1", "RR"])
        >>> df[df.topic == "all"][["measure", "value"]].values.tolist()
        [['P@1', 0.0], ['RR', 0.5]]
        >>> two = {"bm25": {"q1": {"d2": 2.0}}, "dense": {"q1": {"d1": 1.0}}}
        >>> evaluate(two, {"q1": {"d2": 1}}, "P@1", per_topic=False).values.tolist()
        [['bm25', 'all', 'P@1', 1.0], ['dense', 'all', 'P@1', 0.0]]
    """
    pol = policies_from(policies, policy_kw)
    ms = measures_given(measures)
    q = read_qrels(qrels)
    results = score(_as_runs(runs, pol.ties, q, names), q, ms, pol)
    return results.to_pandas(per_topic=per_topic, summary=summary)
