"""Deterministic strategies for unjudged documents: each turns a batch of judged rankings into
another one whose unjudged positions (within the measure's cutoff) hold grades.

Seed 000 (Fröbe et al., ECIR 2023), sections 3.1 and 3.3. "Comparable" strategies never change
the pool, so every measure keeps the normaliser (ideal ranking, number of relevant documents)
that fully judged runs are scored with; the "guaranteed" bounds do change it and are therefore
not comparable with other runs' scores.
"""

from __future__ import annotations

import numpy as np

from unjudged.data.judged import NONPOOL, UNJUDGED, Judged, Pool, condense


def unknown(grades: np.ndarray) -> np.ndarray:
    """Positions inside the ranking whose document has no judgment (not in qrels, or pooled
    but unjudged)."""
    return (grades == UNJUDGED) | (grades == NONPOOL)


def top(judged: Judged, k: int | None) -> Judged:
    """The batch cut to the top k (the whole ranking when k is None)."""
    if k is None:
        return judged
    return judged.with_grades(judged.cut(k), np.minimum(judged.length, k))


def max_grade(pool: Pool) -> int:
    """The highest judged grade of any evaluated topic (0 when nothing is judged)."""
    return max(int(pool.sorted_grades.max(initial=0)), 0)


def pool_counts(pool: Pool, levels: int) -> np.ndarray:
    """(n, levels) number of judged documents per grade 0..levels-1, per topic."""
    sg = pool.sorted_grades
    return np.stack([(sg == g).sum(axis=-1) for g in range(levels)], axis=-1)


def ranking_counts(grades: np.ndarray, levels: int) -> np.ndarray:
    """(..., n, levels) judged documents per grade among the ranked positions given."""
    return np.stack([(grades == g).sum(axis=-1) for g in range(levels)], axis=-1)


def available(judged: Judged, levels: int) -> np.ndarray:
    """(n, levels) judged documents per grade that the ranking (already cut) does not
    contain: what the pool can still hand to its unjudged documents."""
    return pool_counts(judged.pool, levels) - ranking_counts(judged.grades, levels)


def nonrel(judged: Judged) -> Judged:
    """trec_eval's behaviour: unjudged documents count as non-relevant (the naive lower bound)."""
    return judged


def condensed(judged: Judged) -> Judged:
    """Unjudged documents removed, order kept (trec_eval -J); a cutoff then counts judged
    documents only."""
    grades, length = condense(judged.grades)
    return judged.with_grades(grades, length)


def upper(judged: Judged) -> Judged:
    """The comparable naive upper bound: walking the unjudged documents from the top, each takes
    the highest grade still available in the pool; 0 once no positive grade is left."""
    g = judged.grades
    levels = max_grade(judged.pool) + 1
    avail = available(judged, levels)
    # the i-th unjudged document gets grade max{r : i < (available documents of grade >= r)}
    above = np.cumsum(avail[:, ::-1], axis=-1)[:, ::-1]  # (n, levels): grade >= r
    miss = unknown(g)
    order = np.cumsum(miss, axis=-1) - 1
    assigned = (order[..., None] < above[:, None, 1:]).sum(axis=-1)
    return judged.with_grades(np.where(miss, assigned, g).astype(g.dtype))


def guaranteed_lower(judged: Judged, k: int | None = None) -> Judged:
    """A lower bound that holds whatever the unjudged documents' grades: those in the top k
    gain nothing, and the ideal ranking counts every unjudged document of the ranking (to any
    depth) at the highest grade (NOT comparable: the normaliser differs from the pool's).
    Documents no ranking retrieved are taken as non-relevant, as pooling does."""
    whole = unknown(judged.grades)
    extra = whole.sum(axis=-1)  # unjudged documents per topic, all counted at the top grade
    sg = judged.pool.sorted_grades
    width = sg.shape[-1] + int(extra.max(initial=0))
    ideal = np.full((len(extra), width), -1, dtype=np.int32)
    ideal[:, :sg.shape[-1]] = sg
    ideal[np.arange(width)[None, :] >= width - extra[:, None]] = _top_grade(judged)
    pool = Pool(judged.pool.topics, -np.sort(-ideal, axis=-1), judged.pool.num_unjudged)
    cut = top(judged, k)
    g = cut.grades
    return Judged(judged.run_name, judged.topics, np.where(unknown(g), 0, g).astype(g.dtype),
                  cut.length, pool, judged.retrieved, judged.policies)


def guaranteed_upper(judged: Judged) -> Judged:
    """An upper bound that holds whatever the unjudged documents' grades: each gets the highest
    grade while the ideal ranking stays the pool's (NOT comparable; values are clipped to the
    measure's range by the caller)."""
    g = judged.grades
    return judged.with_grades(np.where(unknown(g), _top_grade(judged), g).astype(g.dtype))


def _top_grade(judged: Judged) -> int:
    """The highest grade an unjudged document could have: the highest in the qrels of the
    evaluated topics, and at least the relevance level."""
    return max(max_grade(judged.pool), judged.policies.rel_level)


__all__ = ["available", "condensed", "guaranteed_lower", "guaranteed_upper", "nonrel",
           "top", "unknown", "upper"]
