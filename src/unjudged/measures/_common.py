"""Shared vectorised pieces of the kernels (all work on (..., topics, depth) arrays)."""

from __future__ import annotations

import numpy as np

from unjudged.data.judged import Judged


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
