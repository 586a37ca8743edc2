"""Prediction-powered scores per (run, topic) and per run, from an automatic judge's labels
corrected by a human audit sample (see unjudged.judges.ppi for the formulas).

Measures: P@k, RBP and nDCG (@k or not). P and RBP are linear in per-document gains; nDCG is
the ratio of the DCG estimate to the ideal DCG of the estimated counts per grade, its variance
by the delta method with each document's DCG and count residuals taken together (they come
from the same unknown grade). The counts per grade are reported too, as `R(grade=g)` rows
(run "").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from unjudged.errors import InvalidOptionError, note
from unjudged.judges import ppi
from unjudged.judges.setting import Setting
from unjudged.measures import Measure, parse_measures
from unjudged.measures.dcg import gain_values

FAMILIES = ("P", "RBP", "nDCG")
COLUMNS = ["judge", "run", "topic", "measure", "judged", "estimate", "lo", "hi", "human_only",
           "human_lo", "human_hi", "lam", "audited"]
ALL = "all"  #: the topic of a run's mean over its topics
#: nDCG: the band each topic's ratio is taken into before the run means average them
RAW_BAND = (-0.5, 1.5)


def check_measures(measures: Any) -> list[Measure]:
    """The measures, refusing those the judge estimate does not cover."""
    out = parse_measures(measures)
    bad = [m.name for m in out if m.spec.name not in FAMILIES
           or (m.spec.name == "P" and m.cutoff is None) or m.kwargs().get("judged_only")]
    if bad:
        raise InvalidOptionError(
            f"judge estimates cover P@k, RBP and nDCG (measures linear in per-document gains, "
            f"and nDCG as their ratio), not {', '.join(bad)}")
    return out


def estimate_setting(st: Setting, measures: list[Measure], level: float = 0.95,
                     counts: bool = True, calibrate: bool = True, lam: float | None = None
                     ) -> pd.DataFrame:
    """The rows of COLUMNS for one judge's setting. `calibrate`: predict each document's gain
    by what the audit found for the judge's label (else by the judge's own distribution).
    `lam`: PPI's weight of the predictions, fixed (0: the audit alone, 1: classic PPI) instead
    of PPI++'s tuning."""
    if not 0 < level < 1:
        raise InvalidOptionError(f"level: expected a value in (0, 1), got {level}")
    if lam is not None and not 0 <= lam <= 1:
        raise InvalidOptionError(f"lam: expected a value in [0, 1], got {lam}")
    md = _model(st, calibrate, lam)
    frames = [_counts_rows(st, md, level)] if counts else []
    for m in measures:
        frames.append(_rows(st, m.name, _measured(st, md, m), level))
    out = pd.concat(frames, ignore_index=True)[COLUMNS]
    # P, RBP and nDCG lie in [0, 1], counts in [0, inf): the points stay unbiased
    high = np.where(out.measure.str.startswith(FAMILIES), 1.0, np.inf)
    for lo, hi in (("lo", "hi"), ("human_lo", "human_hi")):
        out[lo] = np.clip(out[lo].to_numpy(), 0.0, high)
        out[hi] = np.clip(out[hi].to_numpy(), 0.0, high)
    return out


def _gains(m: Measure, levels: int) -> np.ndarray:
    kw = m.kwargs()
    grades = np.arange(levels)
    if m.spec.name == "nDCG":
        return gain_values(grades, kw["dcg"], kw["gains"])
    rel = kw.get("rel")
    if m.spec.name == "RBP" and rel is None:  # graded: grade / the scale's highest grade
        return grades / max(levels - 1, 1.0)
    return (grades >= (1 if rel is None else int(rel))).astype(np.float64)


def _weights(m: Measure, rank: np.ndarray) -> np.ndarray:
    k = m.cutoff
    inside = np.ones(rank.size, dtype=bool) if k is None else rank <= k
    if m.spec.name == "P":  # check_measures: P has a cutoff
        return inside / float(k or 1)
    if m.spec.name == "RBP":
        p = float(m.kwargs()["p"])
        return inside * (1.0 - p) * p ** (rank - 1.0)
    return inside / np.log2(rank + 1.0)


@dataclass(eq=False)
class _Model:
    """What the audit says about the judge, per pair: the variance weight (1 - pi) / pi of the
    documents of U, P(human grade) under the judge's bin (and pooled, for the human-only
    estimate), and 1 / pi of the audited ones."""

    unknown: np.ndarray  # (P,) in U: judge-labelled, no fixed human grade
    w: np.ndarray  # (P,) (1 - pi) / pi on U
    judge: np.ndarray  # (P, L) P(grade | the judge's bin)
    pooled: np.ndarray  # (P, L) P(grade) over the whole audit
    inv: np.ndarray  # (P,) 1 / pi on the audited pairs
    covered: bool  # an audit exists: the judge's error is in the intervals
    lam: float | None = None  # a fixed lam, else PPI++'s


def _model(st: Setting, calibrate: bool, lam: float | None = None) -> _Model:
    unknown = st.labelled & (st.pair_topic >= 0)
    audited = st.pi > 0
    inv = np.divide(1.0, st.pi, out=np.zeros_like(st.pi), where=audited)
    if not audited.any():
        z = np.zeros(st.pi.size)
        return _Model(unknown, z, st.dist, st.dist, inv, False, lam)
    design = _design(st, unknown, audited)
    w = np.where(unknown, (1.0 - design) / np.where(unknown, design, 1.0), 0.0)
    expected = st.dist @ np.arange(st.levels)
    grade = np.maximum(st.audit_grade, 0)
    coarse, nc = ppi.bins(expected)
    judge = ppi.grade_model(coarse, audited, grade, st.pi, nc, st.levels)
    bin_, nb = ppi.bins(expected, int(audited.sum()))
    if nb > nc:  # fine bins, each shrunk toward its coarse bin's distribution
        parent = np.zeros(nb, dtype=np.int64)
        parent[bin_] = coarse
        judge = ppi.grade_model(bin_, audited, grade, st.pi, nb, st.levels,
                                prior=judge[parent])
    judge = judge[bin_]
    pooled = ppi.grade_model(np.zeros(st.pi.size, dtype=np.int64), audited, grade, st.pi, 1,
                             st.levels)[np.zeros(st.pi.size, dtype=np.int64)]
    return _Model(unknown, w, judge if calibrate else st.dist, pooled, inv, True, lam)


def _design(st: Setting, unknown: np.ndarray, audited: np.ndarray) -> np.ndarray:
    """Every pair's inclusion probability: the design's where known, else the drawn pairs' pi
    and, for the others, the Horvitz-Thompson estimate of their topic's mean pi
    (|S_t| / sum_S_t 1 / pi; the whole audit's for a topic with none drawn)."""
    if st.design is not None:
        return np.where(audited, st.pi, st.design)
    t = st.pair_topic.clip(0)
    nt = len(st.topics)
    drawn = np.bincount(t, weights=audited, minlength=nt)
    inv = np.bincount(t, weights=np.divide(1.0, st.pi, out=np.zeros_like(st.pi),
                                           where=audited), minlength=nt)
    overall = drawn.sum() / inv.sum()
    mean = np.divide(drawn, inv, out=np.full(nt, overall), where=drawn > 0)
    return np.where(audited, st.pi, mean[t])


@dataclass(eq=False)
class _Cells:
    """A linear measure per cell: the estimate, its variance, the human-only ones, the raw
    judge score, lam per group and the audited documents counted."""

    value: np.ndarray
    var: np.ndarray
    ht: np.ndarray
    ht_var: np.ndarray
    judged: np.ndarray
    lam: np.ndarray
    n: np.ndarray
    #: the two variance estimates per cell, the grade model's and the audit's own (None where
    #: there are no two): _measured makes `var` the model's times its run's factor from them
    #: (_scaled_variance); until then it is their larger
    parts: tuple[np.ndarray, np.ndarray] | None = None
    ht_parts: tuple[np.ndarray, np.ndarray] | None = None  # the same of the audit alone
    #: the part of the value from human-graded documents (known exactly): a run mean's
    #: interval takes its variance as proportional to the rest (ppi.score_interval)
    fixed: np.ndarray | None = None
    ht_fixed: np.ndarray | None = None
    #: the share of `var` that does not grow with the uncertain part (nDCG: its estimated
    #: ideal's), kept flat in the score interval
    flat: np.ndarray | None = None
    ht_flat: np.ndarray | None = None


def _linear(st: Setting, md: _Model, gv: np.ndarray, pair: np.ndarray, c: np.ndarray,
            key: np.ndarray, cells: int, group: np.ndarray, groups: int,
            lam: np.ndarray | None = None) -> _Cells:
    def add(x: np.ndarray) -> np.ndarray:
        return np.bincount(key, weights=x, minlength=cells)

    human, unknown = st.human[pair] >= 0, md.unknown[pair]
    raw = (st.dist @ gv)[pair]
    f = (md.judge @ gv)[pair]  # the prediction: calibrated by the audit when asked
    fixed = add(c * human * gv[np.maximum(st.human, 0)][pair])
    judged = fixed + add(c * unknown * raw)
    inv = md.inv[pair]
    y = gv[np.maximum(st.audit_grade, 0)][pair]
    sy, sf = add(c * y * inv), add(c * f * inv)
    wc = md.w[pair] * c * c * unknown
    ey, ey2 = (md.judge @ gv)[pair], (md.judge @ (gv * gv))[pair]
    a, b, cc = add(wc * ey2), add(wc * f * ey), add(wc * f * f)
    # the audit's own (Horvitz-Thompson) variance estimate, which sees residuals the grade
    # model averages away (a run whose top documents the judge under-rates)
    ws = (1.0 - st.pi[pair]) * inv * inv * c * c
    sa, sb, sc = add(ws * y * y), add(ws * y * f), add(ws * f * f)
    n = add((inv > 0).astype(np.float64))
    if not md.covered:
        nan = np.full(cells, np.nan)
        return _Cells(judged, np.zeros(cells), nan, nan, judged, np.ones(groups), n)
    if lam is None:
        lam = ppi.tune(b + sb, cc + sc, group, groups) if md.lam is None else \
            np.full(groups, md.lam)
    lk = lam[group]
    value = fixed + lk * add(c * unknown * f) + sy - lk * sf
    parts = (a - 2.0 * lk * b + lk * lk * cc, sa - 2.0 * lk * sb + lk * lk * sc)
    ht_parts = (add(wc * (md.pooled @ (gv * gv))[pair]), sa)
    return _Cells(value, np.maximum(*parts), fixed + sy, np.maximum(*ht_parts), judged, lam, n,
                  parts, ht_parts, fixed, fixed)


def _entries(st: Setting, m: Measure) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The measure's rank weight per run entry, its cell (run * T + topic), and the cells."""
    key = st.entry_run * len(st.topics) + st.pair_topic[st.entry_pair]
    return _weights(m, st.entry_rank), key, np.arange(len(st.runs) * len(st.topics)) // max(
        len(st.topics), 1), len(st.runs) * len(st.topics)


@dataclass(eq=False)
class _Measured:
    """One measure over every cell (run * T + topic) of a setting: the cells, each cell's run,
    which cells the run ranks documents in, and what the runs' covariance needs."""

    x: _Cells
    run_of: np.ndarray
    present: np.ndarray
    gv: np.ndarray
    c: np.ndarray  # (E,) rank weight per run entry
    key: np.ndarray  # (E,) its cell
    ndcg: dict[str, Any] | None = None  # nDCG's DCG, ideal, slopes and the counts' lam
    #: the cells' values the run means average, if not x's: nDCG's unclipped ratios (clipping
    #: each topic to [0, 1] moves it nearer its truth, but their mean toward 1/2)
    raw: np.ndarray | None = None
    raw_ht: np.ndarray | None = None
    raw_var: np.ndarray | None = None  # the variances before the cap of a value in [0, 1]
    raw_ht_var: np.ndarray | None = None


def _measured(st: Setting, md: _Model, m: Measure) -> _Measured:
    """The measure per cell, a variance of a value in [0, 1] capped at 1/4."""
    out = _ndcg_cells(st, md, m) if m.spec.name == "nDCG" else _linear_cells(st, md, m)
    cap = 1.0 if out.raw is not None else np.inf
    if out.x.parts is not None:
        out.x.var = _scaled_variance(out, out.x.parts, len(st.runs), cap)
    if out.x.ht_parts is not None:  # the audit alone's intervals by the same rule
        out.x.ht_var = _scaled_variance(out, out.x.ht_parts, len(st.runs), cap)
    out.raw_var, out.raw_ht_var = out.x.var, out.x.ht_var
    if m.name.startswith(FAMILIES):  # a value in [0, 1] varies by at most 1/4
        out.x.var, out.x.ht_var = np.minimum(out.x.var, 0.25), np.minimum(out.x.ht_var, 0.25)
    return out


def _scaled_variance(mx: _Measured, parts: tuple[np.ndarray, np.ndarray], r: int,
                     cap: float) -> np.ndarray:
    """Each cell's variance: the grade model's, times its run's factor max(1, the audit's own
    variance estimate summed over the run's topics / the model's): the model spreads the
    variance over the cells, the audit's own estimate (0 in most cells of a small audit, large
    in a few) checks its size where it is stable, over a run, and raises it where the model
    is wrong for the run (one whose top documents the judge under-rates). The larger of the
    two per cell added up both estimates' positive errors: intervals of run means 40% too
    wide (docs/judges.md). `cap`: each cell's most variance within a run's sum."""
    model, audit = parts
    keep = mx.present
    sm = np.bincount(mx.run_of, weights=np.minimum(model, cap) * keep, minlength=r)
    sa = np.bincount(mx.run_of, weights=np.minimum(audit, cap) * keep, minlength=r)
    k = np.maximum(np.divide(sa, sm, out=np.ones(r), where=sm > 0), 1.0)
    return np.where(sm[mx.run_of] > 0, model * k[mx.run_of], audit)


def _linear_cells(st: Setting, md: _Model, m: Measure) -> _Measured:
    c, key, run_of, cells = _entries(st, m)
    gv = _gains(m, st.levels)
    x = _linear(st, md, gv, st.entry_pair, c, key, cells, run_of, len(st.runs))
    present = np.bincount(key, minlength=cells) > 0
    return _Measured(x, run_of, present, gv, c, key)


def _topics_per_run(mx: _Measured, r: int) -> np.ndarray:
    return np.maximum(np.bincount(mx.run_of, weights=mx.present, minlength=r), 1)


def _run_means(mx: _Measured, r: int) -> _Cells:
    """Per run, the mean over its topics (topics' audits are independent: var = sum / T^2)."""
    x, run_of, present = mx.x, mx.run_of, mx.present
    nt = _topics_per_run(mx, r)

    def mean(v: np.ndarray) -> np.ndarray:
        return np.bincount(run_of, weights=v * present, minlength=r) / nt

    if mx.raw is None or mx.raw_ht is None or mx.raw_var is None or mx.raw_ht_var is None:
        # the cells' values are not clipped to [0, 1]: their variances are not capped either
        value, ht, cap = mean(x.value), mean(x.ht), np.inf
    else:  # a ratio outside [0, 1] counts at its value, with its variance uncapped
        value, ht = np.clip(mean(mx.raw), 0.0, 1.0), np.clip(mean(mx.raw_ht), 0.0, 1.0)
        cap = (RAW_BAND[1] - RAW_BAND[0]) ** 2 / 4.0  # a value within the band varies so much
    cv = np.minimum(mx.raw_var, cap) if mx.raw_var is not None else x.var
    hv = np.minimum(mx.raw_ht_var, cap) if mx.raw_ht_var is not None else x.ht_var
    var, ht_var = mean(cv), mean(hv)

    def share(part: np.ndarray | None, v: np.ndarray, total: np.ndarray) -> np.ndarray | None:
        return None if part is None else np.divide(mean(part * v), total,
                                                   out=np.ones(r), where=total > 0)

    return _Cells(value, var / nt, ht, ht_var / nt, mean(x.judged), x.lam,
                  np.bincount(run_of, weights=x.n * present, minlength=r),
                  fixed=None if x.fixed is None else mean(x.fixed),
                  ht_fixed=None if x.ht_fixed is None else mean(x.ht_fixed),
                  flat=share(x.flat, cv, var), ht_flat=share(x.ht_flat, hv, ht_var))


def _rows(st: Setting, name: str, mx: _Measured, level: float) -> pd.DataFrame:
    """Per-cell rows and per-run means."""
    cells = _cell_frame(st, name, mx.x, mx.x.lam[mx.run_of], level)[mx.present]
    out = _cell_frame(st, name, _run_means(mx, len(st.runs)), mx.x.lam, level, topics=[ALL])
    return pd.concat([cells, out], ignore_index=True)


def bounds(x: _Cells, level: float, run_mean: bool
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """PPI's and the audit alone's intervals (lo, hi, human_lo, human_hi): a run mean of a
    measure linear in the gains (P, RBP) by ppi.score_interval (its variance growing with
    its uncertain part), the others and every cell normal."""
    if run_mean and x.fixed is not None and x.ht_fixed is not None:
        return (*ppi.score_interval(x.value, x.var, x.fixed, level, _or0(x.flat)),
                *ppi.score_interval(x.ht, x.ht_var, x.ht_fixed, level, _or0(x.ht_flat)))
    return (*ppi.interval(x.value, x.var, level), *ppi.interval(x.ht, x.ht_var, level))


def _or0(x: np.ndarray | None) -> np.ndarray | float:
    return 0.0 if x is None else x


def _cell_frame(st: Setting, name: str, x: _Cells, lam: np.ndarray, level: float,
                runs: list[str] | None = None, topics: list[str] | None = None
                ) -> pd.DataFrame:
    topics = st.topics if topics is None else topics
    runs = st.runs if runs is None else runs
    lo, hi, hlo, hhi = bounds(x, level, topics == [ALL])
    return pd.DataFrame({
        "judge": st.judge, "run": np.repeat(np.array(runs, dtype=object), len(topics)),
        "topic": np.tile(np.array(topics, dtype=object), len(runs)), "measure": name,
        "judged": x.judged, "estimate": x.value, "lo": lo, "hi": hi, "human_only": x.ht,
        "human_lo": hlo, "human_hi": hhi, "lam": lam, "audited": x.n.astype(np.int64)})


def _grade_cells(st: Setting, md: _Model, grades: list[int]) -> list[_Cells]:
    """Per grade: its count per topic (over every pair of the topic), lam pooled over topics."""
    pair = np.nonzero(st.pair_topic >= 0)[0]
    key = st.pair_topic[pair]
    group = np.zeros(len(st.topics), dtype=np.int64)
    return [_linear(st, md, (np.arange(st.levels) == g).astype(np.float64), pair,
                    np.ones(pair.size), key, len(st.topics), group, 1) for g in grades]


def _counts_rows(st: Setting, md: _Model, level: float) -> pd.DataFrame:
    grades = list(range(st.levels - 1, 0, -1))
    frames = [_cell_frame(st, f"R(grade={g})", x, x.lam[np.zeros(len(st.topics), dtype=int)],
                          level, runs=[""])
              for g, x in zip(grades, _grade_cells(st, md, grades), strict=True)]
    return pd.concat(frames, ignore_index=True)


def _ndcg_cells(st: Setting, md: _Model, m: Measure) -> _Measured:
    """nDCG = DCG estimate / ideal DCG of the estimated counts per grade; its variance by the
    delta method, each document's residual taking the DCG's and the counts' parts at once."""
    gv = _gains(m, st.levels)
    c, key, run_of, cells = _entries(st, m)
    t, r = len(st.topics), len(st.runs)
    dcg = _linear(st, md, gv, st.entry_pair, c, key, cells, run_of, r)
    grades = [int(g) for g in np.argsort(-gv, kind="stable") if gv[g] > 0]
    counts = _grade_cells(st, md, grades)
    depth = m.cutoff or int(max(np.bincount(st.pair_topic[st.pair_topic >= 0],
                                            minlength=1).max(), 1))
    gain = gv[grades]

    def stack(attr: str) -> np.ndarray:
        return np.stack([getattr(x, attr) for x in counts], axis=-1) if counts else \
            np.zeros((t, 0))

    def ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
        return np.divide(num, den, out=np.zeros(num.shape), where=den > 0)

    # the ideal of estimated counts is biased low where relevant documents are few (it is
    # concave in the counts, and a count's estimate may fall below 0): no grade's count is
    # taken below the documents known to have that grade (the qrels' and the audited ones),
    # which exist whatever the others are. Per grade, max(estimate, known) is never further
    # from the true count than the estimate (Cranfield, 10% audits: run means 0.52 -> 0.39
    # for a truth of 0.37 with the known documents' ideal as a floor; the floor per grade
    # halves the rest, confusion judge +0.024 -> +0.013, 8 audits)
    known = _known_counts(st, grades)
    estimated, h_estimated = stack("value"), stack("ht")
    ideal = ppi.ideal_dcg(np.maximum(estimated, known), gain, depth)
    h_ideal = ppi.ideal_dcg(np.maximum(h_estimated, known), gain, depth)
    j_ideal = ppi.ideal_dcg(stack("judged"), gain, depth)
    # each ratio less 1 / ideal's convexity (ppi.convexity_factor: a ratio over a noisy ideal
    # is biased up; DL 2023, audits of 5%: the run ranked by its own judge +0.04, covered
    # under 88% for 7 of 22 label sets). Per topic the estimate is then taken into [0, 1],
    # nearer its truth; the run means average the ratios taken only into [-1/2, 3/2]
    # (RAW_BAND): clipping each topic at 0 and 1 pulls their mean toward 1/2 by far more than
    # its interval (a run of nDCG@10 0.91 was estimated 0.74 from audits of 5%), the wider
    # band rarely binds where the truth lies in [0, 1] and keeps each topic's variance at
    # most 1 (a ratio of noisy estimates has heavy tails where the estimated ideal is small)
    var, h_var = stack("var"), stack("ht_var")
    slopes = ppi.expected_slopes(estimated, var, gain, depth)
    h_slopes = ppi.expected_slopes(h_estimated, h_var, gain, depth)
    shrink = ppi.convexity_factor(ideal, slopes, var)
    h_shrink = ppi.convexity_factor(h_ideal, h_slopes, h_var)
    raw = np.clip(ratio(dcg.value.reshape(r, t), ideal[None]) * shrink[None], *RAW_BAND)
    raw_ht = np.clip(ratio(dcg.ht.reshape(r, t), h_ideal[None]) * h_shrink[None], *RAW_BAND)
    value, ht = np.clip(raw, 0.0, 1.0), np.clip(raw_ht, 0.0, 1.0)
    glam = np.array([x.lam[0] for x in counts])
    flat: list[np.ndarray] = []
    ht_flat: list[np.ndarray] = []
    parts = _ndcg_var(st, md, gv, grades, c, key, dcg.lam, glam, md.judge, dcg.value, ideal,
                      slopes, ideal_part=flat) if md.covered else \
        (np.zeros(cells), np.zeros(cells))
    ht_var = _ndcg_var(st, md, gv, grades, c, key, np.zeros(r), np.zeros(len(grades)),
                       md.pooled, dcg.ht, h_ideal, h_slopes, human=True,
                       ideal_part=ht_flat) if md.covered else \
        (np.full(cells, np.nan),) * 2
    # run means get score intervals, as P's: the DCG's variance grows with its uncertain
    # part (the DCG of the documents of U over the ideal; the qrels' documents' part is
    # known), the estimated ideal's share of the variance stays flat (a score interval with
    # all of it proportional took the text collections' run means, whose variance is mostly
    # the ideal's, from 0.82-1.00 to 0.00-0.96 coverage)
    x = _Cells(value.ravel(), np.maximum(*parts), ht.ravel(), np.maximum(*ht_var),
               ratio(dcg.judged.reshape(r, t), j_ideal[None]).ravel(), dcg.lam, dcg.n, parts,
               ht_var)
    if md.covered and dcg.fixed is not None:
        known_dcg = dcg.fixed.reshape(r, t)
        x.fixed = (ratio(known_dcg, ideal[None]) * shrink[None]).ravel()
        x.ht_fixed = (ratio(known_dcg, h_ideal[None]) * h_shrink[None]).ravel()
        # a cell with no qrels document in it keeps all of its variance flat: the coupling
        # the score interval models (an audit missing the few relevant documents of U gives
        # a low estimate and a low variance) is that of a sparse U on top of a known part;
        # where U is all of the cell (DL 2023: no qrels) the error and the sd correlate
        # -0.05 to -0.40 and the score interval's reach upward missed the run the judge
        # ranked (own-judge run means, 5%, 200 audits: 0.87 -> 0.83)
        none = known_dcg.ravel() <= 0
        x.flat = np.where(none, 1.0, flat[0])
        x.ht_flat = np.where(none, 1.0, ht_flat[0])
    present = np.bincount(key, minlength=cells) > 0
    return _Measured(x, run_of, present, gv, c, key, {
        "dcg": dcg.value, "ideal": ideal, "grades": grades, "glam": glam,
        "slopes": slopes}, raw.ravel(), raw_ht.ravel())


def _known_counts(st: Setting, grades: list[int]) -> np.ndarray:
    """(T, G) per topic the documents known to have each grade: fixed by the qrels or
    audited."""
    g = np.where(st.human >= 0, st.human, st.audit_grade)
    t = st.pair_topic
    ok = (t >= 0) & (g >= 0)
    nt = len(st.topics)
    return np.stack([np.bincount(t[ok], weights=(g[ok] == x), minlength=nt) for x in grades],
                    axis=-1) if grades else np.zeros((nt, 0))


def _ndcg_var(st: Setting, md: _Model, gv: np.ndarray, grades: list[int], c: np.ndarray,
              key: np.ndarray, lam: np.ndarray, glam: np.ndarray, model: np.ndarray,
              dcg: np.ndarray, ideal: np.ndarray, slopes: np.ndarray, human: bool = False,
              ideal_part: list[np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The grade model's variance and the audit's own estimate, per cell (`ideal_part`
    gets the share of the model's from the ideal's own variance)."""
    audited = st.pi > 0
    observed = np.zeros((st.pi.size, st.levels))
    observed[audited, st.audit_grade[audited]] = 1.0
    ws = np.where(audited, (1.0 - st.pi) * md.inv * md.inv, 0.0)
    args = (st, md, gv, grades, c, key, lam, glam)
    return (_delta_var(*args, model, md.w * md.unknown, dcg, ideal, slopes, human, ideal_part),
            _delta_var(*args, observed, ws, dcg, ideal, slopes, human))


def _delta_var(st: Setting, md: _Model, gv: np.ndarray, grades: list[int], c: np.ndarray,
               key: np.ndarray, lam: np.ndarray, glam: np.ndarray, model: np.ndarray,
               w: np.ndarray, dcg: np.ndarray, ideal: np.ndarray, slopes: np.ndarray,
               human: bool, ideal_part: list[np.ndarray] | None = None) -> np.ndarray:
    """Delta-method variance of DCG / ideal per cell. A document d of U with unknown grade y
    moves the cell's nDCG by z_d(y) = c_d (g(y) - lam f_d) / I - DCG / I^2 * q_d(y), where
    q_d(y) = sum_g slope_g (1{y = g} - lam_g f_dg) is its move of the ideal; the variance is
    sum_d (1 - pi_d) / pi_d E[z_d^2] under the grade model."""
    t, r = len(st.topics), len(st.runs)
    cells = r * t
    inv_c = _inverse_ideal(ideal, dcg, r, t)
    beta = dcg * inv_c ** 2
    # q (P, L): each pair's move of its topic's ideal, for each grade it may have
    topic = st.pair_topic.clip(0)
    q = _ideal_moves(st, md, grades, slopes, glam, human)
    pq2 = (model * q * q).sum(axis=1)
    ident_cells = np.arange(cells)
    quad = beta ** 2 * np.bincount(topic, weights=w * pq2, minlength=t)[
        ident_cells % t]
    # the ranked documents' own term and its cross term with q (the entries weighing at all)
    keep = (c > 0) & (w[st.entry_pair] > 0)
    pair, c, key, run = st.entry_pair[keep], c[keep], key[keep], st.entry_run[keep]
    f = np.zeros(pair.size) if human else (md.judge @ gv)[pair]
    alpha = c * inv_c[key]
    t1 = alpha[:, None] * (gv[None, :] - (lam[run] * f)[:, None])  # (E, L)
    pm = model[pair]
    own = (pm * t1 * t1).sum(axis=1)
    cross = (pm * t1 * q[pair]).sum(axis=1)
    we = w[pair]
    part = np.bincount(key, weights=we * (own - 2.0 * beta[key] * cross), minlength=cells)
    total = np.maximum(part + quad, 0.0)
    if ideal_part is not None:  # the share of the ideal's own variance
        ideal_part.append(np.clip(np.divide(quad, total, out=np.ones(cells), where=total > 0),
                                  0.0, 1.0))
    return total


def _inverse_ideal(ideal: np.ndarray, dcg: np.ndarray, r: int, t: int) -> np.ndarray:
    """Per cell 1 / max(I_t, DCG): the ratio's slopes taken where the cell reports it, in
    [0, 1]. A small estimated ideal (few relevant documents in the audit) would make 1 / I^2
    blow the variance up where the ratio itself is clipped."""
    den = np.maximum(ideal[None], dcg.reshape(r, t)).ravel()
    return np.divide(1.0, den, out=np.zeros(den.size), where=den > 0)


def _ideal_moves(st: Setting, md: _Model, grades: list[int], slopes: np.ndarray,
                 glam: np.ndarray, human: bool = False) -> np.ndarray:
    """(P, L) q: each pair's move of its topic's ideal DCG for each grade it may have, less
    the predicted move (lam_g f_dg) the estimate already made (none for the audit alone)."""
    sl = slopes[st.pair_topic.clip(0)]  # (P, G)
    onehot = np.zeros((st.levels, len(grades)))
    onehot[grades, np.arange(len(grades))] = 1.0
    q = sl @ onehot.T
    if not human:
        q = q - (sl * glam * md.judge[:, grades]).sum(axis=1, keepdims=True)
    return q


def _model_covariance(st: Setting, md: _Model, mx: _Measured) -> np.ndarray:
    """(R, R) covariance of the runs' means under the grade model. Runs covary through the
    unknown grades of the documents they share (z_dA z_dB summed over the documents of U, each
    weighted by (1 - pi_d) / pi_d) and, for nDCG, through their topic's estimated ideal DCG,
    which every run of the topic divides by:

        z_dA(y) = alpha_dA (g(y) - lam_A f_d) - beta_At q_d(y),  alpha = c / I_t / T_A,
        beta_At = DCG_At / I_t^2 / T_A  (0 and beta = 0 for measures linear in the gains)."""
    from scipy import sparse

    r, t = len(st.runs), len(st.topics)
    if not md.covered or r == 0:
        return np.zeros((r, r))
    nt = _topics_per_run(mx, r)
    w = md.w * md.unknown
    keep = (mx.c > 0) & (w[st.entry_pair] > 0)
    pair, run, key = st.entry_pair[keep], st.entry_run[keep], mx.key[keep]
    alpha = mx.c[keep]
    nd = mx.ndcg
    lam = mx.x.lam
    f = md.judge @ mx.gv
    eg2 = md.judge @ (mx.gv * mx.gv)
    if nd is not None:
        inv_c = _inverse_ideal(nd["ideal"], nd["dcg"], r, t)
        alpha = alpha * inv_c[key]
        own = _delta_var(st, md, mx.gv, nd["grades"], mx.c, mx.key, lam, nd["glam"], md.judge,
                         w, nd["dcg"], nd["ideal"], nd["slopes"], False)
    else:
        own = np.bincount(key, weights=w[pair] * alpha ** 2 * (
            eg2[pair] - (2.0 * lam[run] - lam[run] ** 2) * f[pair] ** 2), minlength=r * t)
    # each cell's terms scaled to its reported variance (the larger of the model's and the
    # audit's own, at most 1/4): the model gives the correlations, not the sizes; a cell the
    # model sees no variance in keeps its reported one, uncorrelated with the other runs'
    rv = mx.x.var * mx.present
    scale = np.sqrt(np.divide(rv, own, out=np.zeros(rv.size), where=own > 0))
    lone = np.where(own > 0, 0.0, rv)
    alpha = alpha * scale[key] / nt[run]
    u = sparse.csr_matrix((alpha, (run, pair)), shape=(r, st.pi.size))

    def gram(v: np.ndarray) -> np.ndarray:
        return np.asarray((u @ sparse.diags(v) @ u.T).toarray())

    both = lam[:, None] + lam[None, :] - lam[:, None] * lam[None, :]
    cov = gram(w * eg2) - gram(w * f * f) * both
    cov[np.diag_indices(r)] += np.bincount(mx.run_of, weights=lone, minlength=r) / nt ** 2
    if nd is not None:
        q = _ideal_moves(st, md, nd["grades"], nd["slopes"], nd["glam"])
        model = md.judge
        eq, eqg = (model * q).sum(axis=1), (model * q * mx.gv).sum(axis=1)
        eq2 = (model * q * q).sum(axis=1)
        k = w[pair] * alpha * (eqg[pair] - lam[run] * f[pair] * eq[pair])
        v = np.bincount(key, weights=k, minlength=r * t).reshape(r, t)
        beta = (nd["dcg"] * inv_c ** 2 * scale).reshape(r, t) / nt[:, None]
        s_t = np.bincount(st.pair_topic.clip(0), weights=w * eq2, minlength=t)
        cov = cov - v @ beta.T - beta @ v.T + (beta * s_t[None]) @ beta.T
    return cov


def coupled_draws(variance: np.ndarray, cov: np.ndarray, mean: np.ndarray, b: int,
                  seed: int, ident: str, fixed: np.ndarray | None = None,
                  flat: np.ndarray | float = 0.0) -> np.ndarray:
    """(b, R) normal draws of the runs' means: marginal variances `variance` (the intervals'),
    correlations those of `cov` (runs whose model variance is 0 are uncorrelated), every run
    drawn in the same iterations (numpy's SeedSequence(seed, spawn_key=(crc32(ident),)))."""
    import zlib

    d = np.sqrt(np.maximum(np.diag(cov), 0.0))
    ok = d > 0
    corr = np.eye(d.size)
    sel = np.ix_(ok, ok)
    corr[sel] = cov[sel] / np.outer(d[ok], d[ok])
    np.fill_diagonal(corr, 1.0)
    sd = np.sqrt(np.maximum(variance, 0.0))
    sigma = corr * np.outer(sd, sd)
    vals, vecs = np.linalg.eigh(sigma)
    # eigenvalues within float noise of 0 are 0: runs that move together tie in every draw
    vals = np.where(vals > 1e-12 * max(float(vals.max(initial=0.0)), 1e-300), vals, 0.0)
    root = vecs * np.sqrt(vals)
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(
        seed, spawn_key=(zlib.crc32(ident.encode()),))))
    z = rng.standard_normal((b, d.size))
    normal = z @ root.T
    if fixed is None:
        return mean[None, :] + normal
    # each run's marginal that of its score interval (ppi.score_quantile), the same copula
    return ppi.score_quantile(mean, variance, fixed,
                              np.divide(normal, sd, out=np.zeros(normal.shape), where=sd > 0),
                              flat)


@dataclass(eq=False)
class JudgeDraws:
    """One judge's and measure's coupled draws of the runs' prediction-powered means: P(A > B)
    and the rank intervals come from the same draws (unjudged.engine.pairs)."""

    judge: str
    measure: str
    runs: list[str]
    mean: np.ndarray  # (R,) the estimates (the rows' topic "all")
    samples: np.ndarray  # (b, R)

    def pair_rows(self) -> list[dict[str, Any]]:
        """P(A > B) for every ordered pair: judge, run_a, run_b, measure, p_a_better."""
        from unjudged.engine.pairs import pair_rows

        if len(self.runs) < 2:
            return []
        return [{"judge": self.judge, **row}
                for row in pair_rows(self.runs, self.measure, self.samples)]

    def rank_intervals(self, level: float = 0.9) -> np.ndarray:
        """(R, 2) the interval of each run's rank (1 = best) over the draws."""
        from unjudged.engine.pairs import rank_intervals

        return rank_intervals(self.samples, level)


def setting_draws(st: Setting, measures: list[Measure], b: int = 10_000, seed: int = 0,
                  calibrate: bool = True, lam: float | None = None) -> list[JudgeDraws]:
    """Coupled draws per measure of one judge's setting (see coupled_draws)."""
    if b < 1:
        raise InvalidOptionError(f"b: expected a number >= 1, got {b}")
    md = _model(st, calibrate, lam)
    out = []
    for m in measures:
        mx = _measured(st, md, m)
        means = _run_means(mx, len(st.runs))
        cov = _model_covariance(st, md, mx)
        samples = coupled_draws(means.var, cov, means.value, b, seed,
                                f"judge-ppi:{st.judge}:{m.name}", means.fixed,
                                _or0(means.flat))
        out.append(JudgeDraws(st.judge, m.name, list(st.runs), means.value, samples))
    return out


def judge_draws(runs: Any, qrels: Any, judge: Any, measures: Any, *, audit: Any = None,
                audit_qrels: Any = None, design: Any = None, b: int = 10_000, seed: int = 0,
                calibrate: bool = True, lam: float | None = None) -> list[JudgeDraws]:
    """Per judge and measure, `b` coupled normal draws of the runs' prediction-powered means
    (arguments as judge_estimate's): each run's marginal is its interval's normal, and the
    runs are correlated as the grade model says (shared documents, and for nDCG the shared
    estimated ideal), so that P(A > B) and rank intervals are statements about the runs
    together. Without an audit the draws are the judge's scores (a note says so)."""
    ms = check_measures(measures)
    return [d for st in judge_settings(runs, qrels, judge, audit=audit,
                                       audit_qrels=audit_qrels, design=design)
            for d in setting_draws(st, ms, b, seed, calibrate, lam)]


def judge_estimate(runs: Any, qrels: Any, judge: Any, measures: Any, *, audit: Any = None,
                   audit_qrels: Any = None, design: Any = None, level: float = 0.95,
                   counts: bool = True, calibrate: bool = True, lam: float | None = None
                   ) -> pd.DataFrame:
    """Prediction-powered scores of `runs` from one or more automatic `judge`s (paths, bytes
    or Judge) and an `audit` sample (path or AuditSample) whose human grades are in `qrels`
    (or in `audit_qrels`); `design`: every judge-labelled document's inclusion probability
    (`topic docno pi`, as `draw_audit` gives them), else estimated per topic.

    Rows: COLUMNS, per (judge, run, topic, measure) and per run (topic "all"), and the counts
    per grade (run ""); `judged` is the uncorrected judge score, `human_only` the audit's
    Horvitz-Thompson estimate; `lam` fixes PPI's weight (see estimate_setting). Without an
    audit the intervals are points: a note says the judge's errors are not covered."""
    ms = check_measures(measures)
    frames = [estimate_setting(st, ms, level, counts, calibrate, lam)
              for st in judge_settings(runs, qrels, judge, audit=audit,
                                       audit_qrels=audit_qrels, design=design)]
    return pd.concat(frames, ignore_index=True)


def judge_settings(runs: Any, qrels: Any, judge: Any, *, audit: Any = None,
                   audit_qrels: Any = None, design: Any = None) -> list[Setting]:
    """One checked Setting per judge (see judge_estimate for the arguments)."""
    from unjudged.io.qrels import read_qrels
    from unjudged.io.runs import read_runs
    from unjudged.judges.labels import check_judge, read_audit, read_judge
    from unjudged.judges.setting import build_setting

    q = read_qrels(qrels) if qrels is not None else None
    rs = _runs(runs, read_runs)
    judges = [read_judge(j) for j in (judge if isinstance(judge, list | tuple) else [judge])]
    a = read_audit(audit) if audit is not None else None
    aq = read_qrels(audit_qrels) if audit_qrels is not None else None
    dz = read_audit(design) if design is not None else None
    if a is None:
        note("no audit sample: the judge's errors are not covered; the intervals are the "
             "judge's own scores (draw one with `unjudged plan QRELS RUNS --audit N --judge "
             "FILE`)")
    out = []
    for j in judges:
        if q is not None and len(q):
            check_judge(j, int(np.max(q.grade)))
        out.append(build_setting(rs, q, j, a, aq, design=dz))
    return out


def _runs(runs: Any, read_runs) -> list[Any]:
    if runs is None:
        return []
    if isinstance(runs, list | tuple) and all(hasattr(r, "offsets") for r in runs):
        return list(runs)
    if hasattr(runs, "offsets"):
        return [runs]
    return list(read_runs(runs if isinstance(runs, list | tuple) else [runs]))
