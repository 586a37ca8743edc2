"""Accuracy: how often a relevant document is ranked above a non-relevant one (ir_measures)."""

from __future__ import annotations

import numpy as np

from unjudged.data.judged import PAD
from unjudged.measures._common import divide, relevant
from unjudged.measures._spec import MeasureSpec, register
from unjudged.measures.precision import REL

IR_MEASURES = "ir_measures 0.4.3, Accuracy (its accuracy provider)"


def accuracy(j, cutoff=None, rel=None):
    """1 - (sum over the relevant documents of the top k of the non-relevant documents ranked
    above each) / (relevant x non-relevant documents in the top k): the fraction of
    (relevant, non-relevant) pairs of the top k in the right order. Unjudged documents are
    non-relevant; 1 when the top k holds no non-relevant document, 0 when it holds no relevant
    one (ir_measures reports no value for such a topic and leaves it out of its mean).

    Example:
        >>> from unjudged.io import read_qrels, read_run
        >>> from unjudged.data.judged import judge
        >>> j = judge(read_run({"t": {"a": 4.0, "x": 3.0, "b": 2.0, "y": 1.0}}),
        ...           read_qrels({"t": {"a": 1, "b": 1}}))
        >>> float(accuracy(j)[0])  # pairs in order: a>x, a>y, b>y of 4
        0.75
    """
    r = relevant(j, cutoff, rel)
    non = ~r & (j.cut(cutoff) != PAD)
    above = np.cumsum(non, axis=-1, dtype=np.float64)
    wrong = np.where(r, above, 0.0).sum(axis=-1)
    pairs = r.sum(axis=-1) * non.sum(axis=-1).astype(np.float64)
    found = r.any(axis=-1)
    return np.where(found, np.where(pairs > 0, 1.0 - divide(wrong, pairs), 1.0), 0.0)


register(MeasureSpec(
    "Accuracy", accuracy, "The fraction of (relevant, non-relevant) document pairs of the top "
    "k (all retrieved without a cutoff) in which the relevant document is ranked first: the "
    "chance that a relevant document comes before a non-relevant one. A diagnostic measure. "
    "Unjudged documents are non-relevant; a topic with no relevant document retrieved scores 0 "
    "(ir_measures leaves it out of its mean).",
    params=(REL,), cutoff="optional", monotone=False, guaranteed=False,
    citation=IR_MEASURES))
