"""Shared vectorised pieces of the kernels (all work on (..., topics, depth) arrays)."""

from __future__ import annotations

import numpy as np

from unjudged.data.judged import NONPOOL, UNJUDGED, Judged, condense


def level(judged: Judged, rel: int | None) -> int:
    """The relevance threshold: the measure's own `rel` or the policy's (trec_eval -l)."""
    return judged.policies.rel_level if rel is None else int(rel)


def relevant(judged: Judged, cutoff: int | None, rel: int | None) -> np.ndarray:
    """Boolean (..., n, k): document at each rank is relevant."""
    return judged.cut(cutoff) >= level(judged, rel)


def divide(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den with 0 where den == 0 (trec_eval's convention for empty topics)."""
    num = np.asarray(num, dtype=np.float64)
    den = np.broadcast_to(np.asarray(den, dtype=np.float64), num.shape)
    out = np.zeros(num.shape, dtype=np.float64)
    np.divide(num, den, out=out, where=den != 0)
    return out


def ranks(depth: int) -> np.ndarray:
    """1-based ranks 1..depth as float64."""
    return np.arange(1, depth + 1, dtype=np.float64)


def discount(depth: int) -> np.ndarray:
    """log2(rank + 1) for ranks 1..depth."""
    return np.log2(np.arange(2, depth + 2, dtype=np.float64))


def take_at(values: np.ndarray, index: np.ndarray) -> np.ndarray:
    """values[..., i, index[i]] for a per-topic index (clipped to the depth; -1 gives 0)."""
    depth = values.shape[-1]
    idx = np.clip(index, 0, depth - 1).astype(np.int64)
    idx = np.broadcast_to(idx, values.shape[:-1])[..., None]
    out = np.take_along_axis(values, idx, axis=-1)[..., 0]
    return np.where(np.broadcast_to(index, out.shape) < 0, 0.0, out)


def judged_only(judged: Judged) -> Judged:
    """The rankings without the retrieved documents the qrels do not list, order kept
    (trec_eval -J, ir_measures' judged_only=True): pooled-but-unjudged documents (negative
    grades) go too, as trec_eval's form_res_rels drops every document without a grade >= 0.

    Example:
        >>> from unjudged.io import read_qrels, read_run
        >>> from unjudged.data.judged import judge
        >>> j = judge(read_run({"t": {"a": 3.0, "x": 2.0, "b": 1.0}}),
        ...           read_qrels({"t": {"a": 1, "b": 0}}))
        >>> judged_only(j).grades.tolist(), judged_only(j).length.tolist()
        ([[1, 0]], [2])
    """
    g = judged.grades
    if not ((g == NONPOOL) | (g == UNJUDGED)).any():
        return judged
    return judged.with_grades(*condense(g))
