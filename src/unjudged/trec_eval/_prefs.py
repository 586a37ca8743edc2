"""`unjudged trec_eval -R prefs|qrels_prefs|qrels_jg`: trec_eval 10's other judgment formats.

prefs, qrels_prefs: each topic's judged documents get docid ranks (form_prefs_counts.c): the
run's documents ordered by score (compared in double precision as trec_eval 10.0 stores them,
in single precision with ties="trec_eval9", as trec_eval 9 did) and
ties by docno *ascending* (the qrels code breaks them descending), cut at -M, keep the judged
ones in that order; the judged documents not retrieved follow in docno order. -J and -l do
not apply, as in trec_eval.

qrels_jg: each judgment group is an ordinary qrels; map, P and Rprec_mult are computed per
group (the usual ranking, -M, -J, -l) and averaged over the topic's groups.
"""

from __future__ import annotations

import numpy as np

from unjudged.data.prefs import Prefs
from unjudged.data.run import Run
from unjudged.errors import UnjudgedError
from unjudged.measures import Measure
from unjudged.measures.prefs import build_groups, topic_values
from unjudged.policies import Policies
from unjudged.trec_eval._run import _outputs, check_format, parse_requests, render


def _topics(run: Run, prefs: Prefs, complete: bool) -> list[str]:
    topics = list(prefs.topics) if complete else [t for t in prefs.topics
                                                  if t in run.topic_index]
    if not topics:
        raise UnjudgedError(f"{run.source}: no topic of the run is in {prefs.source}")
    return topics


def ranked_judged(docno: np.ndarray, score: np.ndarray, judged: np.ndarray,
                  depth: int | None, single: bool = False) -> np.ndarray:
    """The judged documents of one topic's ranking, in trec_eval's prefs order: score
    descending (in single precision if `single`, as trec_eval 9), ties by docno ascending,
    first `depth` documents.

    Example:
        >>> ranked_judged(np.array(["b", "a", "c"]), np.array([1.0, 1.0, 2.0]),
        ...               np.array(["a", "b"]), None).tolist()
        ['a', 'b']
    """
    order = np.lexsort((docno, -score.astype(np.float32 if single else np.float64)))[:depth]
    ranked = docno[order]
    return ranked[np.isin(ranked, judged)]


def prefs_values(run: Run, prefs: Prefs, topics: list[str], depth: int | None,
                 single: bool = False) -> dict[str, np.ndarray]:
    """{measure: per-topic values} of every preference measure."""
    docs = np.array(run.docno.to_pylist(), dtype=str) if len(run) else np.array([], str)
    out: dict[str, list[float]] = {}
    for t in topics:
        rows = prefs.rows(t)
        entry = np.array(prefs.docno[rows.start:rows.stop], dtype=str)
        judged = np.unique(entry)
        i = run.topic_index.get(t)
        if i is None:
            ret = np.array([], dtype=str)
        else:
            a, b = int(run.offsets[i]), int(run.offsets[i + 1])
            ret = ranked_judged(docs[a:b], run.score[a:b], judged, depth, single)
        order = np.concatenate([ret, np.setdiff1d(judged, ret)])  # docid ranks
        by_doc = np.argsort(order)
        rank = by_doc[np.searchsorted(order[by_doc], entry)]
        groups = build_groups(prefs.group[rows.start:rows.stop],
                              prefs.subgroup[rows.start:rows.stop],
                              prefs.level[rows.start:rows.stop], rank)
        for name, v in topic_values(groups, order.size, ret.size).items():
            out.setdefault(name, []).append(v)
    return {k: np.array(v) for k, v in out.items()}


def jg_values(run: Run, prefs: Prefs, topics: list[str], measures: list[Measure],
              policies: Policies) -> list[np.ndarray]:
    """Each measure per topic, averaged over the topic's judgment groups."""
    from unjudged.data.judged import judge
    from unjudged.io import read_qrels

    where = {t: i for i, t in enumerate(topics)}
    sums = [np.zeros(len(topics)) for _ in measures]
    count = np.zeros(len(topics))
    for jg in sorted(set(prefs.group), key=lambda x: x.encode()):
        table: dict[str, dict[str, int]] = {}
        for t in topics:
            rows = prefs.rows(t)
            for r in rows:
                if prefs.group[r] == jg:
                    table.setdefault(t, {})[prefs.docno[r]] = int(prefs.level[r])
        if not table:
            continue
        j = judge(run, read_qrels(table), policies)
        at = np.array([where[t] for t in j.topics], dtype=np.int64)
        count[at] += 1
        for k, m in enumerate(measures):
            sums[k][at] += m.compute(j)
    return [s / np.maximum(count, 1) for s in sums]


def run_trec_eval_prefs(run: Run, prefs: Prefs, specs: list[str], policies: Policies,
                        per_query: bool = False, summary: bool = True,
                        zscores: dict[tuple[str, str], tuple[float, float]] | None = None
                        ) -> str:
    """trec_eval's output for -R prefs, qrels_prefs (preference measures) or qrels_jg."""
    outputs = _outputs(parse_requests(specs))
    check_format(outputs, prefs.kind)
    topics = _topics(run, prefs, policies.complete)
    measured = [(name, what) for _f, name, what in outputs if isinstance(what, Measure)]
    values: dict[str, np.ndarray] = {}
    if prefs.kind == "qrels_jg":
        got = jg_values(run, prefs, topics, [m for _n, m in measured], policies)
        values = {name: v for (name, _m), v in zip(measured, got, strict=True)}
    elif measured:
        every = prefs_values(run, prefs, topics, policies.depth,
                             single=policies.ties == "trec_eval9")
        values = {name: every[m.spec.aliases[0]] for name, m in measured}
    return render(outputs, run.name, topics, values, {}, per_query, summary, zscores)
