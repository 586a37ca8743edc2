"""How far to trust a judge: agreement with the human grades it overlaps (Cohen's kappa,
binary and quadratic-weighted over grades, a confusion matrix), calibration of its probability
of relevance, and per run the "judge lift": the judge-labelled score minus the
prediction-powered estimate (a lift whose interval excludes 0 marks a run that looks better,
or worse, only to the judge: the circularity of a run ranked by the judge that scores it).

Overlap = the pairs with both a judge label and a human grade (the qrels', and the audited
ones'), counted once each, unweighted.

Example:
    >>> round(kappa(np.array([0, 1, 1, 0]), np.array([0, 1, 0, 0]), 2), 3)
    0.5
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from unjudged.judges.setting import Setting


def confusion(human: np.ndarray, judge: np.ndarray, levels: int) -> np.ndarray:
    """(levels, levels) counts: rows human grades, columns the judge's."""
    return np.bincount(human * levels + judge, minlength=levels * levels).reshape(levels,
                                                                                  levels)


def kappa(human: np.ndarray, judge: np.ndarray, levels: int, weights: str = "none") -> float:
    """Cohen's kappa of two gradings; weights "quadratic" for the weighted form."""
    m = confusion(human, judge, levels).astype(np.float64)
    n = m.sum()
    if n == 0:
        return float("nan")
    i, j = np.indices(m.shape)
    w = ((i - j) ** 2 / max(levels - 1, 1) ** 2) if weights == "quadratic" else (i != j) * 1.0
    expected = np.outer(m.sum(axis=1), m.sum(axis=0)) / n
    disagree = (w * expected).sum()
    return float(1.0 - (w * m).sum() / disagree) if disagree > 0 else 1.0


def _overlap(st: Setting) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(human grade, the judge's most likely grade, its probability of relevance)."""
    grade = np.where(st.audit_grade >= 0, st.audit_grade, st.human)
    has = (grade >= 0) & (st.dist.sum(axis=1) > 0)
    d = st.dist[has]
    return grade[has], np.argmax(d, axis=1), d[:, 1:].sum(axis=1)


def judge_agreement(st: Setting, rel: int = 1) -> dict[str, Any]:
    """Kappa (binary at grade `rel`, quadratic-weighted over grades), the confusion matrix
    and the overlap's size for one judge's setting."""
    h, j, _ = _overlap(st)
    lv = st.levels
    return {"judge": st.judge, "overlap": int(h.size),
            "kappa_binary": kappa((h >= rel).astype(int), (j >= rel).astype(int), 2),
            "kappa_weighted": kappa(h, j, lv, "quadratic"),
            "agreement": float(np.mean(h == j)) if h.size else float("nan"),
            "confusion": confusion(h, j, lv).tolist()}


def calibration(st: Setting, bins: int = 10, rel: int = 1) -> pd.DataFrame:
    """Per bin of the judge's probability of relevance: documents, mean probability, the
    fraction people graded relevant (>= `rel`)."""
    h, _, p = _overlap(st)
    b = np.minimum((p * bins).astype(int), bins - 1)
    n = np.bincount(b, minlength=bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        return pd.DataFrame({
            "judge": st.judge, "low": np.arange(bins) / bins,
            "high": np.arange(1, bins + 1) / bins, "documents": n,
            "predicted": np.bincount(b, weights=p, minlength=bins) / n,
            "observed": np.bincount(b, weights=(h >= rel), minlength=bins) / n,
        })[lambda f: f.documents > 0].reset_index(drop=True)


def lift_flags(rows: pd.DataFrame) -> pd.DataFrame:
    """Per run mean in `rows` (judge_estimate's): lift = judged - estimate with its interval;
    `flag` where the interval excludes 0 (the audit does not confirm the judge's score)."""
    r = rows[(rows.topic == "all") & (rows.run != "")]
    lift = r.judged - r.estimate
    out = pd.DataFrame({"judge": r.judge, "run": r.run, "measure": r.measure,
                        "judged": r.judged, "estimate": r.estimate, "lift": lift,
                        "lift_lo": r.judged - r.hi, "lift_hi": r.judged - r.lo})
    out["flag"] = (out.lift_lo > 0) | (out.lift_hi < 0)
    return out.reset_index(drop=True)


def diagnose_judges(runs: Any, qrels: Any, judge: Any, measures: Any = "nDCG@10", *,
                    audit: Any = None, audit_qrels: Any = None, design: Any = None,
                    level: float = 0.95, rel: int = 1) -> dict[str, Any]:
    """Per judge: agreement (kappa, confusion), calibration bins, and the runs' judge lift
    with flags (needs an audit sample for the lift to mean anything)."""
    from unjudged.judges.estimate import check_measures, estimate_setting, judge_settings

    ms = check_measures(measures)
    settings = judge_settings(runs, qrels, judge, audit=audit, audit_qrels=audit_qrels,
                              design=design)
    rows = pd.concat([estimate_setting(st, ms, level, counts=False) for st in settings],
                     ignore_index=True)
    return {"agreement": [judge_agreement(st, rel) for st in settings],
            "calibration": pd.concat([calibration(st, rel=rel) for st in settings],
                                     ignore_index=True),
            "lift": lift_flags(rows)}
