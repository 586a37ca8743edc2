"""One judge's evaluation setting as flat arrays: every (topic, document) the qrels, the judge,
the audit sample or a run names is a *pair*, with its human grade where the qrels have one, its
judge distribution where the judge labelled it, and its inclusion probability where the audit
drew it; every ranked document of a run is an *entry* pointing at its pair.

Human grades stay the truth: a pair the qrels grade (and the audit did not draw) is never
estimated. The audit samples the other judge-labelled pairs, so an audited pair's grade (from
the qrels or from the audit's own qrels) is read as a sample draw, not as a fixed truth.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from unjudged.data.qrels import Qrels, qrels_columns
from unjudged.errors import FormatError, IncompatibleInputsError, InputError
from unjudged.judges.labels import AuditSample, Judge, _line_of


@dataclass(eq=False)
class Setting:
    """Arrays of one judge's setting (P pairs, E run entries, T topics, R runs, L levels)."""

    judge: str
    topics: list[str]
    runs: list[str]
    pair_topic: np.ndarray  # (P,) topic index
    pair_docno: np.ndarray  # (P,) document ids (object)
    human: np.ndarray  # (P,) grade where the qrels are the truth, -1 elsewhere
    labelled: np.ndarray  # (P,) bool: the judge labelled it and no human grade is fixed
    dist: np.ndarray  # (P, L) the judge's grade distribution (zero rows where none)
    pi: np.ndarray  # (P,) inclusion probability of audited pairs, 0 elsewhere
    audit_grade: np.ndarray  # (P,) human grade of audited pairs, -1 elsewhere
    entry_run: np.ndarray  # (E,)
    entry_pair: np.ndarray  # (E,)
    entry_rank: np.ndarray  # (E,) 1-based rank within the run's topic
    levels: int
    design: np.ndarray | None = None  # (P,) every pair's inclusion probability, if known

    @property
    def audited(self) -> np.ndarray:
        return self.pi > 0

    def with_audit(self, pi: np.ndarray, grade: np.ndarray,
                   design: np.ndarray | None = None) -> Setting:
        """The same setting with another audit sample (pi > 0 where drawn, `grade` the human
        grades there) and design: benchmarks draw many samples of one setting."""
        from dataclasses import replace

        return replace(self, pi=pi, audit_grade=grade, design=design)


def build_setting(runs: list[Any], qrels: Qrels | None, judge: Judge,
                  audit: AuditSample | None = None, audit_qrels: Qrels | None = None,
                  levels: int = 2, design: AuditSample | None = None) -> Setting:
    """The arrays of `judge`'s setting; checks that every audited document is one the judge
    labelled and has a human grade (in `audit_qrels`, else in `qrels`). Grades run 0..levels-1
    at least (more if the qrels or the judge have higher ones). `design`: the inclusion
    probability of every document the audit was drawn from (those it lacks: 0)."""
    hq, human_grade = _qrels_arrow(qrels)
    topics = sorted(_distinct(hq[0]) | _distinct(judge.topic))
    # the audit's and the design's topics beyond the evaluated ones get codes too (their
    # pairs: topic -1)
    extra = sorted(set().union(*(_distinct(x.topic) for x in (audit, design)
                                 if x is not None)) - set(topics))
    names = np.array(topics + extra, dtype=object)
    value_set = pa.array(names.tolist(), type=pa.string())
    entries = _entries(runs, topics)
    sources = [hq, (judge.topic, judge.docno)] + ([] if audit is None else [
        (audit.topic, audit.docno)]) + ([] if design is None else [
            (design.topic, design.docno)])
    tcode = [_codes(t, value_set) for t, _ in sources]
    docs = [d for _, d in sources]
    tcode.insert(2, entries["topic"])
    docs[2:2] = entries["docno"]
    codes, pair_t, pair_docno = _pairs(np.concatenate(tcode), docs)
    n = pair_docno.size
    pair_names = names[pair_t]
    pair_topic = np.where(pair_t < len(topics), pair_t, -1).astype(np.int64)
    nh, nl, ne = human_grade.size, len(judge), entries["run"].size
    na = 0 if audit is None else len(audit.pi)
    grade = np.full(n, -1, dtype=np.int64)
    grade[codes[:nh]] = human_grade
    aq = _qrels_frame(audit_qrels)
    top = max([int(g.max()) for g in (human_grade, aq.grade.to_numpy()) if len(g)],
              default=1)
    levels = max(top + 1, judge.dist.shape[1], levels)
    dist = np.zeros((n, levels))
    dist[codes[nh:nh + nl], :judge.dist.shape[1]] = judge.dist
    has_label = np.zeros(n, dtype=bool)
    has_label[codes[nh:nh + nl]] = True
    pi = np.zeros(n)
    audit_grade = np.full(n, -1, dtype=np.int64)
    if audit is not None:
        a = codes[nh + nl + ne:nh + nl + ne + na]
        _check_audit(audit, judge, has_label[a], grade[a], audit_qrels, a)
        pi[a] = audit.pi
        audit_grade[a] = grade[a]
        if audit_qrels is not None:
            audit_grade[a] = _lookup(pair_names[a], pair_docno[a], aq.topic, aq.docno,
                                     aq.grade.to_numpy(), -1).astype(np.int64)
            _check_graded(audit, audit_grade[a], "the audit qrels")
        grade[a] = -1  # drawn pairs are sample members, not fixed truth
    labelled = has_label & (grade < 0)
    known = None
    if design is not None:  # a document listed twice: its first pi
        known = np.zeros(n)
        first = codes[nh + nl + ne + na:][::-1]
        known[first] = np.asarray(design.pi, dtype=np.float64)[::-1]
    return Setting(judge.name, topics, [str(getattr(r, "name", r)) for r in runs], pair_topic,
                   pair_docno, grade, labelled, dist, pi, audit_grade,
                   entries["run"], codes[nh + nl:nh + nl + ne], entries["rank"], levels,
                   known)


def _pairs(tcode: np.ndarray, docno: list[Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each (topic code, docno) row's pair code, and each pair's topic code and docno (an
    object array), with no Python loop over the rows: the documents are dictionary-encoded in
    Arrow and the two codes combined."""
    parts = [d.combine_chunks() if isinstance(d, pa.ChunkedArray) else d for d in docno]
    joined = pa.concat_arrays([d.cast(pa.large_string()) for d in parts]) if parts else \
        pa.array([], type=pa.large_string())
    enc = joined.dictionary_encode()
    # the documents' codes in sorted order, so that pairs come in (topic, docno) order
    order = pc.array_sort_indices(enc.dictionary).to_numpy(zero_copy_only=False)
    sorted_code = np.empty(order.size, dtype=np.int64)
    sorted_code[order] = np.arange(order.size)
    dcode = sorted_code[enc.indices.to_numpy(zero_copy_only=False).astype(np.int64)]
    width = max(len(enc.dictionary), 1)
    uniq, codes = np.unique(tcode.astype(np.int64) * width + dcode, return_inverse=True)
    return (codes.reshape(-1), uniq // width, enc.dictionary.take(
        pa.array(order[uniq % width])).to_numpy(zero_copy_only=False))


def _codes(topic: Any, value_set: pa.Array) -> np.ndarray:
    """Each row's index in `value_set` (every row's topic is there)."""
    got = pc.index_in(topic, value_set=value_set)
    if isinstance(got, pa.ChunkedArray):
        got = got.combine_chunks()
    return got.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)


def _distinct(values: Any) -> set[str]:
    return {str(x) for x in pc.unique(pa.chunked_array([values])).to_pylist()}


def _qrels_arrow(qrels: Qrels | None) -> tuple[tuple[pa.Array, pa.Array], np.ndarray]:
    """((topic, docno) as Arrow strings, grades) of the qrels' lines."""
    if qrels is None or len(qrels) == 0:
        empty = pa.array([], type=pa.string())
        return (empty, empty), np.zeros(0, dtype=np.int64)
    qid, _, docno, grade = qrels_columns(qrels)
    return (qid, docno), np.asarray(grade, dtype=np.int64)


def _lookup(topic: np.ndarray, docno: np.ndarray, at_topic: Any, at_docno: Any,
            values: np.ndarray, missing: float) -> np.ndarray:
    """values[k] of the row k of (at_topic, at_docno) that each (topic, docno) names (the
    first such row), `missing` where none does."""
    table = pd.DataFrame({"topic": np.asarray(at_topic, dtype=object),
                          "docno": np.asarray(at_docno, dtype=object),
                          "value": np.asarray(values, dtype=np.float64)}
                         ).drop_duplicates(["topic", "docno"])
    got = pd.DataFrame({"topic": topic, "docno": docno}).merge(table, how="left",
                                                                on=["topic", "docno"])
    return got.value.fillna(missing).to_numpy(dtype=np.float64)


def _qrels_frame(qrels: Qrels | None) -> pd.DataFrame:
    if qrels is None or len(qrels) == 0:
        return pd.DataFrame({"topic": pd.Series([], dtype=object),
                             "docno": pd.Series([], dtype=object),
                             "grade": pd.Series([], dtype=np.int64)})
    qid, _, docno, grade = qrels_columns(qrels)
    return pd.DataFrame({"topic": qid.to_numpy(zero_copy_only=False),
                         "docno": docno.to_numpy(zero_copy_only=False),
                         "grade": np.asarray(grade, dtype=np.int64)})


def _entries(runs: list[Any], topics: list[str]) -> dict[str, Any]:
    """Every ranked document of every run on the evaluated `topics`: its run, topic code (in
    `topics`), docno (Arrow arrays, one per run) and 1-based rank."""
    index = {t: i for i, t in enumerate(topics)}
    run, tcode, rank, docno = [], [], [], []
    for i, r in enumerate(runs):
        offsets = np.asarray(r.offsets)
        sizes = np.diff(offsets)
        code = np.repeat(np.array([index.get(t, -1) for t in r.topics], dtype=np.int64), sizes)
        keep = code >= 0
        at = np.arange(offsets[-1]) - np.repeat(offsets[:-1], sizes) + 1
        run.append(np.full(int(keep.sum()), i, dtype=np.int64))
        tcode.append(code[keep])
        rank.append(at[keep])
        d = r.docno
        docno.append(d if keep.all() else d.filter(pa.array(keep)))
    if not runs:
        return {"run": np.zeros(0, dtype=np.int64), "topic": np.zeros(0, dtype=np.int64),
                "docno": [], "rank": np.zeros(0, dtype=np.int64)}
    return {"run": np.concatenate(run), "topic": np.concatenate(tcode),
            "docno": docno, "rank": np.concatenate(rank)}


def _check_audit(audit: AuditSample, judge: Judge, labelled: np.ndarray, graded: np.ndarray,
                 audit_qrels: Qrels | None, codes: np.ndarray) -> None:
    if not labelled.all():
        row = int(np.argmax(~labelled))
        raise FormatError(audit.source, _line_of(audit.source, row),
                          f"topic {audit.topic[row]} document {audit.docno[row]} is in the audit "
                          f"sample but judge {judge.name} did not label it; the audit must be "
                          f"drawn from the documents the judge labelled")
    if np.unique(codes).size != codes.size:
        raise InputError(audit.source, "a document appears twice in the audit sample")
    if audit_qrels is None:
        _check_graded(audit, graded, "the qrels")


def _check_graded(audit: AuditSample, grade: np.ndarray, where: str) -> None:
    missing = grade < 0
    if missing.any():
        row = int(np.argmax(missing))
        raise IncompatibleInputsError(
            f"{audit.source}: {int(missing.sum())} audited documents have no human grade in "
            f"{where} (first: topic {audit.topic[row]} document {audit.docno[row]}); judge "
            f"them and merge the grades into the qrels, or pass them apart (--audit-qrels)")
