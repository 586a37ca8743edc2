"""Drawing the audit sample: the documents only the judge labelled, each included
independently (Poisson sampling) with a known probability pi, so that estimates can weight
each audited document by 1 / pi.

The default design ("weighted") gives a document a share of the budget that grows with the
judge's uncertainty about it (4 p (1 - p) for probabilities, the normalised entropy of a grade
distribution; 0 for hard labels) and with its weight in the measures (the discount
1 / log2(1 + rank) at its best rank over the runs, 0 when no run ranks it):

    s_d = (1/4 + u_d) (1/4 + v_d),  pi_d = n ((1 - floor) s_d / sum s + floor / N)

capped at 1 (the excess spread over the others), so every document has pi_d >= floor n / N
> 0: PPI's guarantee needs every judge-labelled document to have a chance. "uniform" gives
every document n / N. The sample size is random with mean n.

Example:
    >>> import numpy as np
    >>> capped_pi(np.array([1.0, 1.0, 8.0]), 2.0).round(3).tolist()
    [0.5, 0.5, 1.0]
"""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np

from unjudged.errors import InvalidOptionError
from unjudged.judges.labels import AuditSample
from unjudged.judges.setting import Setting

DESIGNS = ("weighted", "uniform")
FLOOR = 0.2  #: the share of the budget spread evenly, so that no document has pi = 0


def capped_pi(score: np.ndarray, n: float) -> np.ndarray:
    """Probabilities proportional to `score` summing to n, none above 1 (the excess goes to
    the others in proportion)."""
    pi = np.zeros(score.size)
    free = np.ones(score.size, dtype=bool)
    budget = float(n)
    while True:
        total = score[free].sum()
        pi[free] = budget * score[free] / total if total > 0 else 0.0
        over = free & (pi >= 1.0)
        if not over.any():
            return pi
        pi[over] = 1.0
        free &= ~over
        budget = n - (~free).sum()
        if budget <= 0 or not free.any():
            pi[free] = 0.0 if budget <= 0 else pi[free]
            return pi


def design_pi(st: Setting, n: float, design: str = "weighted") -> np.ndarray:
    """Inclusion probabilities (one per pair of `st`, 0 where the pair cannot be audited)."""
    if design not in DESIGNS:
        raise InvalidOptionError(f"design must be one of {', '.join(DESIGNS)}, not {design!r}")
    cand = st.labelled & (st.pair_topic >= 0)
    size = int(cand.sum())
    if not 0 < n <= size:
        raise InvalidOptionError(f"audit size: expected 1..{size} (the documents only the "
                                 f"judge labelled), got {n:g}")
    pi = np.zeros(st.pi.size)
    if design == "uniform":
        pi[cand] = n / size
        return pi
    u = _uncertainty(st.dist[cand])
    best = np.zeros(st.pi.size)
    np.maximum.at(best, st.entry_pair, 1.0 / np.log2(st.entry_rank + 1.0))
    score = (0.25 + u) * (0.25 + best[cand])
    share = (1.0 - FLOOR) * score / score.sum() + FLOOR / size
    pi[cand] = capped_pi(share, n)
    return pi


def _uncertainty(dist: np.ndarray) -> np.ndarray:
    """In [0, 1]: 4 p (1 - p) for two levels, the normalised entropy of more."""
    levels = int((dist.sum(axis=0) > 0).sum())
    if dist.shape[1] == 2 or levels <= 2:
        p = dist[:, 1:].sum(axis=1)
        return 4.0 * p * (1.0 - p)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = -np.where(dist > 0, dist * np.log(dist), 0.0).sum(axis=1)
    return h / np.log(dist.shape[1])


def draw(pi: np.ndarray, seed: int, ident: str = "judge-audit") -> np.ndarray:
    """Poisson sampling: pair d is drawn iff its uniform number is below pi_d; the numbers come
    in pair order from SeedSequence(seed, spawn_key=(crc32(ident),))."""
    key = zlib.crc32(ident.encode())
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(key,))))
    return rng.random(pi.size) < pi


def draw_audit(runs: Any, qrels: Any, judge: Any, n: float, *, design: str = "weighted",
               seed: int = 0) -> AuditSample:
    """Draw about `n` of the documents only `judge` labelled for people to judge (Poisson
    sampling under `design`), with their inclusion probabilities; `.design` holds every
    document that could have been drawn, with its pi (for judge_estimate's `design=`)."""
    import pyarrow as pa

    from unjudged.io.qrels import read_qrels
    from unjudged.io.runs import read_runs
    from unjudged.judges.estimate import _runs
    from unjudged.judges.labels import check_judge, read_judge
    from unjudged.judges.setting import build_setting

    if seed < 0:
        raise InvalidOptionError(f"seed: expected a number >= 0, got {seed}")
    j = read_judge(judge)
    q = read_qrels(qrels) if qrels is not None else None
    if q is not None and len(q):
        check_judge(j, int(np.max(q.grade)))
    st = build_setting(_runs(runs, read_runs) if runs else [], q, j)
    pi = design_pi(st, n, design)
    # pairs in (topic, docno) order, so the draw does not depend on the inputs' order
    order = np.lexsort((st.pair_docno.astype(str), np.array(st.topics + [""])[st.pair_topic]))
    hit = np.zeros(pi.size, dtype=bool)
    hit[order] = draw(pi[order], seed)
    names = np.array(st.topics, dtype=object)

    def sample(idx: np.ndarray, design: AuditSample | None = None) -> AuditSample:
        return AuditSample(pa.array(names[st.pair_topic[idx]].tolist(), pa.string()),
                           pa.array(st.pair_docno[idx].tolist(), pa.string()), pi[idx],
                           "<drawn>", design)

    return sample(order[hit[order]], sample(order[pi[order] > 0]))


def format_audit(sample: AuditSample) -> str:
    """`topic docno pi` lines, pi with 17 significant digits (read back exactly)."""
    return "".join(f"{t} {d} {p:.17g}\n" for t, d, p in zip(
        sample.topic.to_pylist(), sample.docno.to_pylist(), sample.pi.tolist(), strict=True))
