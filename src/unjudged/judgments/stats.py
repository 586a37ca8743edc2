"""Judgment statistics and qrels editing.

    judgment_stats([qrels, ...], rel_level=1) -> DataFrame   judged, per grade, fraction relevant
    merge_qrels([qrels, ...], on_conflict="error") -> Qrels  the union
    diff_qrels(a, b) -> QrelsDiff                            added, removed, regraded judgments
    filter_qrels(qrels, topics=..., iterations=...) -> Qrels by topic or iteration column

Statistics follow seed 003 (Voorhees, extending the TREC-COVID round-1 pools), Table 1. A topic
where more than a third of the judged documents are relevant is flagged: historically that has
been strong evidence that many relevant documents remain unfound. Negative grades (trec_eval:
pooled but not judged) are not counted as judged; they are counted on their own.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from unjudged.data.qrels import Qrels
from unjudged.io.qrels import read_qrels
from unjudged.judgments.diff import QrelsDiff, diff_qrels
from unjudged.judgments.edit import CONFLICT_RULES, filter_qrels, merge_qrels, qrels_labels

# parse_topics and read_topics_file read topic lists: they live in unjudged.io.topics
__all__ = ["judgment_stats", "merge_qrels", "diff_qrels", "QrelsDiff", "filter_qrels",
           "qrels_labels", "CONFLICT_RULES"]


def judgment_stats(qrels_list: Any, rel_level: int = 1, union: bool = True):
    """Per qrels and topic: documents judged, a count per grade and the fraction relevant.

    `qrels_list` is one qrels or a list (paths, Qrels, dicts, DataFrames). With several, their
    union (`merge_qrels`, the highest grade winning where they disagree) follows as qrels
    "union". Each qrels ends with a topic "all" summing its topics; its fraction relevant is
    over all its judgments. Returns a tidy DataFrame with the columns qrels, topic, judged,
    grade_<g> for every grade g >= 0 any of them uses, relevant (grade >= rel_level),
    relevant_fraction (NaN where nothing is judged), unjudged_negative (documents with only
    negative grades) and warn (more than a third of the judged documents relevant).

    Example:
        >>> df = judgment_stats({"1": {"a": 2, "b": 0, "c": -1}, "2": {"d": 1}})
        >>> columns = ["topic", "judged", "grade_0", "grade_2", "unjudged_negative", "warn"]
        >>> df[columns].values.tolist()
        [['1', 2, 1, 1, 1, True], ['2', 1, 0, 0, 0, True], ['all', 3, 1, 1, 1, True]]
    """
    import pandas as pd

    items = qrels_list if isinstance(qrels_list, (list, tuple)) else [qrels_list]
    qs = [read_qrels(q) for q in items]
    blocks = list(zip(qrels_labels(qs), qs, strict=True))
    if union and len(qs) > 1:
        blocks.append(("union", merge_qrels(qs, on_conflict="max")))
    grades = np.unique(np.concatenate([q.key_grades for _, q in blocks]))
    grades = grades[grades >= 0]
    frames = [pd.DataFrame(_block(label, q, grades, rel_level)) for label, q in blocks]
    return pd.concat(frames, ignore_index=True)


def _block(label: str, q: Qrels, grades: np.ndarray, rel_level: int) -> dict[str, Any]:
    """The columns of one qrels' rows, its topics then the total "all"."""
    n_topics, n_grades = len(q.topics), grades.size
    topic = np.repeat(np.arange(n_topics), np.diff(q.topic_offsets))
    judged = q.key_grades >= 0
    column = np.searchsorted(grades, q.key_grades[judged])
    cells = np.bincount(topic[judged] * n_grades + column, minlength=n_topics * n_grades)
    counts = cells.reshape(n_topics, n_grades).astype(np.int64)
    counts = np.vstack([counts, counts.sum(axis=0)])
    negative = np.bincount(topic[~judged], minlength=n_topics).astype(np.int64)
    negative = np.append(negative, negative.sum())
    n_judged = counts.sum(axis=1)
    relevant = counts[:, grades >= rel_level].sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        fraction = np.where(n_judged > 0, relevant / np.maximum(n_judged, 1), np.nan)
    out: dict[str, Any] = {"qrels": label, "topic": list(q.topics) + ["all"], "judged": n_judged}
    out.update({f"grade_{g}": counts[:, i] for i, g in enumerate(grades.tolist())})
    # Integer comparison: "more than a third" stays exact where a float fraction would round.
    out.update(relevant=relevant, relevant_fraction=fraction, unjudged_negative=negative,
               warn=3 * relevant > n_judged)
    return out

