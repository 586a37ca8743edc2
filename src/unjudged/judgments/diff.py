"""What changed between two qrels: judgments added, removed and regraded, per topic.

Both qrels are compared through their ad hoc view (one grade per topic and document, the
highest over iterations), which is what every measure sees; the iteration column is ignored.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from unjudged.data._strings import arrow_of, byte_ranks, intern_topics, numpy_of, string_array
from unjudged.data.qrels import MISSING, Qrels
from unjudged.io.qrels import read_qrels
from unjudged.judgments.edit import qrels_labels


@dataclass
class QrelsDiff:
    """The difference from qrels `a` to qrels `b`.

    Attributes:
        changes: one row per judgment that differs, in topic then docno order: topic, docno,
            change ("added": only in b, "removed": only in a, "changed": another grade),
            grade_a, grade_b (nullable integers; missing where the side lacks the judgment).
        summary: per topic (the library's topic order, then "all" for the totals):
            judgments_a, judgments_b, added, removed, changed.
        a, b: the two qrels' names.
    """

    changes: Any
    summary: Any
    a: str
    b: str


def _view(q: Qrels) -> tuple[pa.Array, pa.Array, np.ndarray]:
    """(qid, docno, grade) of each (topic, document) of the ad hoc view."""
    width = max(len(q.docs), 1)
    topic = arrow_of((q.keys // width).astype(np.int32))
    doc = arrow_of(q.keys % width)
    return string_array(q.topics).take(topic), q.docs.take(doc), q.key_grades


def diff_qrels(a: Any, b: Any) -> QrelsDiff:
    """Judgments added, removed and changed going from qrels `a` to qrels `b`.

    Example:
        >>> d = diff_qrels({"1": {"x": 1, "y": 0}}, {"1": {"x": 2, "z": 1}, "2": {"w": 0}})
        >>> for row in d.changes.values.tolist():
        ...     print(row)
        ['1', 'x', 'changed', 1, 2]
        ['1', 'y', 'removed', 0, <NA>]
        ['1', 'z', 'added', <NA>, 1]
        ['2', 'w', 'added', <NA>, 0]
        >>> d.summary.loc[d.summary.topic == "all"].values.tolist()
        [['all', 2, 3, 2, 1, 1]]
    """
    import pandas as pd

    qa, qb = read_qrels(a), read_qrels(b)
    (ta, da, ga), (tb, db, gb) = _view(qa), _view(qb)
    topics, tcode = intern_topics(pa.concat_arrays([ta, tb]))
    both = pa.concat_arrays([da.cast(pa.string()), db.cast(pa.string())])
    docs = cast(pa.DictionaryArray, pc.dictionary_encode(both))
    ranks = byte_ranks(docs.dictionary)
    width = max(len(docs.dictionary), 1)
    # Keys that sort by topic, then docno bytes, so np.unique yields the output order.
    key = tcode.astype(np.int64) * width + ranks[numpy_of(docs.indices).astype(np.int64)]
    keys, where = np.unique(key, return_inverse=True)
    grade_a = np.full(keys.size, MISSING, dtype=np.int64)
    grade_b = grade_a.copy()
    grade_a[where[: ga.size]] = ga
    grade_b[where[ga.size:]] = gb
    in_a, in_b = grade_a != MISSING, grade_b != MISSING
    kinds = {"added": ~in_a, "removed": ~in_b, "changed": in_a & in_b & (grade_a != grade_b)}
    topic_of = (keys // width).astype(np.int64)
    changed = np.flatnonzero(kinds["added"] | kinds["removed"] | kinds["changed"])
    label = np.select([kinds["added"][changed], kinds["removed"][changed]],
                      ["added", "removed"], "changed")
    sorted_docs = docs.dictionary.take(pc.array_sort_indices(docs.dictionary))
    changes = pd.DataFrame({
        "topic": np.asarray(topics, dtype=object)[topic_of[changed]],
        "docno": np.asarray(sorted_docs.take(arrow_of(keys[changed] % width)).to_pylist(),
                            dtype=object),
        "change": label.astype(object),
        "grade_a": pd.arrays.IntegerArray(grade_a[changed], ~in_a[changed]),
        "grade_b": pd.arrays.IntegerArray(grade_b[changed], ~in_b[changed]),
    })
    counts = {name: np.bincount(topic_of, weights=mask, minlength=len(topics)).astype(np.int64)
              for name, mask in (("judgments_a", in_a), ("judgments_b", in_b), *kinds.items())}
    summary = pd.DataFrame({"topic": topics, **counts})
    totals = pd.DataFrame({"topic": ["all"], **{k: [int(v.sum())] for k, v in counts.items()}})
    summary = pd.concat([summary, totals], ignore_index=True)
    la, lb = qrels_labels([qa, qb])
    return QrelsDiff(changes=changes, summary=summary, a=la, b=lb)
