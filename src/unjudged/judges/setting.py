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
    human = _qrels_frame(qrels)
    labels = pd.DataFrame({"topic": judge.topic.to_numpy(zero_copy_only=False),
                           "docno": judge.docno.to_numpy(zero_copy_only=False)})
    topics = sorted(set(pd.unique(human.topic)) | set(pd.unique(labels.topic)))
    entries = _entries(runs, set(topics))
    keys = pd.concat([human[["topic", "docno"]], labels, entries[["topic", "docno"]]]
                     + ([] if audit is None else [_audit_frame(audit)[["topic", "docno"]]]),
                     ignore_index=True)
    codes, pair_names, pair_docno = _pairs(keys.topic.to_numpy(dtype=object),
                                           keys.docno.to_numpy(dtype=object))
    n = pair_docno.size
    names, at = np.unique(pair_names.astype(str), return_inverse=True)
    topic_of = {t: i for i, t in enumerate(topics)}
    pair_topic = np.array([topic_of.get(t, -1) for t in names.tolist()],
                          dtype=np.int64)[at.reshape(-1)] if n else np.zeros(0, dtype=np.int64)
    nh, nl, ne = len(human), len(labels), len(entries)
    grade = np.full(n, -1, dtype=np.int64)
    grade[codes[:nh]] = human.grade.to_numpy()
    top = max([int(f.grade.max()) for f in (human, _qrels_frame(audit_qrels)) if len(f)],
              default=1)
    levels = max(top + 1, judge.dist.shape[1], levels)
    dist = np.zeros((n, levels))
    dist[codes[nh:nh + nl], :judge.dist.shape[1]] = judge.dist
    has_label = np.zeros(n, dtype=bool)
    has_label[codes[nh:nh + nl]] = True
    pi = np.zeros(n)
    audit_grade = np.full(n, -1, dtype=np.int64)
    if audit is not None:
        a = codes[nh + nl + ne:]
        _check_audit(audit, judge, has_label[a], grade[a], audit_qrels, a, keys, nh + nl + ne)
        pi[a] = audit.pi
        audit_grade[a] = grade[a]
        if audit_qrels is not None:
            extra = _qrels_frame(audit_qrels)
            audit_grade[a] = _lookup(pair_names[a], pair_docno[a], extra.topic, extra.docno,
                                     extra.grade.to_numpy(), -1).astype(np.int64)
            _check_graded(audit, audit_grade[a], "the audit qrels")
        grade[a] = -1  # drawn pairs are sample members, not fixed truth
    labelled = has_label & (grade < 0)
    known = None
    if design is not None:
        frame = _audit_frame(design)
        known = _lookup(pair_names, pair_docno, frame.topic, frame.docno, design.pi, 0.0)
    return Setting(judge.name, topics, [str(getattr(r, "name", r)) for r in runs], pair_topic,
                   pair_docno, grade, labelled, dist, pi, audit_grade,
                   entries.run.to_numpy(), codes[nh + nl:nh + nl + ne],
                   entries["rank"].to_numpy(), levels, known)


def _pairs(topic: np.ndarray, docno: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each (topic, docno) row's pair code, and each pair's topic and docno (object arrays),
    with no Python loop over the rows: the two columns are factorised apart and their codes
    combined."""
    tf, tu = pd.factorize(topic)
    df_, du = pd.factorize(docno)
    width = max(len(du), 1)
    uniq, codes = np.unique(tf.astype(np.int64) * width + df_, return_inverse=True)
    return (codes.reshape(-1), np.asarray(tu, dtype=object)[uniq // width],
            np.asarray(du, dtype=object)[uniq % width])


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


def _audit_frame(audit: AuditSample) -> pd.DataFrame:
    return pd.DataFrame({"topic": audit.topic.to_numpy(zero_copy_only=False),
                         "docno": audit.docno.to_numpy(zero_copy_only=False)})


def _entries(runs: list[Any], topics: set[str]) -> pd.DataFrame:
    """Every ranked document of every run on the evaluated topics, with its 1-based rank."""
    parts = []
    for i, run in enumerate(runs):
        offsets = np.asarray(run.offsets)
        sizes = np.diff(offsets)
        topic = np.repeat(np.array(run.topics, dtype=object), sizes)
        rank = np.arange(offsets[-1]) - np.repeat(offsets[:-1], sizes) + 1
        frame = pd.DataFrame({"run": i, "topic": topic,
                              "docno": run.docno.to_numpy(zero_copy_only=False), "rank": rank})
        parts.append(frame[frame.topic.isin(topics)])
    if not parts:
        return pd.DataFrame({"run": pd.Series([], dtype=np.int64),
                             "topic": pd.Series([], dtype=object),
                             "docno": pd.Series([], dtype=object),
                             "rank": pd.Series([], dtype=np.int64)})
    return pd.concat(parts, ignore_index=True)


def _check_audit(audit: AuditSample, judge: Judge, labelled: np.ndarray, graded: np.ndarray,
                 audit_qrels: Qrels | None, codes: np.ndarray, keys: pd.DataFrame,
                 start: int) -> None:
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
