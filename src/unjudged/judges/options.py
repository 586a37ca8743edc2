"""What the `--judge` options of estimate, eval, plan and report do, as thin glue over the
judges' own functions (docs/judges.md):

    judge_qrels(qrels, judge) -> Qrels        the qrels, the judges' labels filling the pairs
                                              they leave open (eval --judge)
    judge_estimates(runs, qrels, judge, measures, ...) -> JudgeEstimates   the `ppi` rows
                                              of estimate (and estimate_runs(judge=...)) and
                                              their P(A > B) from coupled draws

Human qrels stay the truth wherever they exist.

Example:
    >>> q = judge_qrels({"1": {"a": 1}}, b"1 0 a 0\\n1 0 b 1\\n", quiet=True)
    >>> q.to_dict()
    {'1': {'a': 1, 'b': 1}}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from unjudged.errors import InvalidOptionError, note
from unjudged.judges.estimate import FAMILIES
from unjudged.judges.labels import Judge, check_judge, read_judge
from unjudged.judges.setting import Setting
from unjudged.measures import Measure, parse_measures

PPI = "ppi"  #: the method name of the prediction-powered rows


def _judges(judge: Any) -> list[Judge]:
    items = list(judge) if isinstance(judge, list | tuple) else [judge]
    if not items:
        raise InvalidOptionError("judge: expected at least one judge file")
    return [read_judge(j) for j in items]


def judge_qrels(qrels: Any, judge: Any, *, quiet: bool = False) -> Any:
    """`qrels` (any form read_qrels takes) with the pairs they do not grade filled by the
    judges' most likely grade (several judges: of their mean distribution; ties go to the lower
    grade). Refuses a judge grade above the qrels' highest. Unless `quiet`, a note says how many
    pairs the judges filled and that their errors are not covered (no audit)."""
    from unjudged.data.qrels import qrels_columns
    from unjudged.io.qrels import read_qrels

    q = read_qrels(qrels)
    judges = _judges(judge)
    top = int(np.max(q.grade)) if len(q) else None
    frames = []
    levels = max(j.dist.shape[1] for j in judges)
    for j in judges:
        if top is not None:
            check_judge(j, top)
        dist = np.zeros((len(j), levels))
        dist[:, :j.dist.shape[1]] = j.dist
        frames.append(pd.DataFrame({"topic": j.topic.to_numpy(zero_copy_only=False),
                                    "docno": j.docno.to_numpy(zero_copy_only=False),
                                    **{f"p{g}": dist[:, g] for g in range(levels)}}))
    labels = pd.concat(frames, ignore_index=True).groupby(["topic", "docno"], sort=False).mean()
    qid, group, docno, grade = qrels_columns(q)
    human = pd.DataFrame({"query_id": qid.to_numpy(zero_copy_only=False),
                          "iteration": group.to_numpy(zero_copy_only=False),
                          "doc_id": docno.to_numpy(zero_copy_only=False),
                          "relevance": np.asarray(grade, dtype=np.int64)})
    known = pd.MultiIndex.from_frame(human[["query_id", "doc_id"]].drop_duplicates())
    open_ = ~labels.index.isin(known)
    fill = labels[open_]
    grades = np.argmax(fill.to_numpy(), axis=1) if len(fill) else np.zeros(0, dtype=np.int64)
    idx = fill.index
    added = pd.DataFrame({"query_id": idx.get_level_values(0).astype(str),
                          "iteration": "0", "doc_id": idx.get_level_values(1).astype(str),
                          "relevance": grades.astype(np.int64)})
    if not quiet:
        names = ", ".join(j.name for j in judges)
        note(f"{len(added)} (topic, document) pairs the qrels do not grade take the labels of "
             f"judge {names} ({int(open_.size - open_.sum())} the qrels grade keep the human "
             "grade); the judge's errors are not covered: draw an audit sample (`unjudged plan "
             "QRELS RUNS --audit N --judge FILE`), have it judged and use `unjudged estimate "
             "--judge FILE --audit SAMPLE` for intervals that include them")
    merged = pd.concat([human, added], ignore_index=True)
    out = read_qrels(merged)
    out.source = getattr(q, "source", "<memory>")
    return out


def split_measures(measures: Any) -> tuple[list[Measure], list[Measure]]:
    """(the measures PPI estimates, the others): P@k, RBP and nDCG, not judged-only forms."""
    ms = parse_measures(measures)
    ok = [m for m in ms if m.spec.name in FAMILIES and not m.kwargs().get("judged_only")
          and not (m.spec.name == "P" and m.cutoff is None)]
    return ok, [m for m in ms if m not in ok]


def _method(judge: str, several: bool) -> str:
    return f"{PPI}[{judge}]" if several else PPI


@dataclass(eq=False)
class JudgeEstimates:
    """The prediction-powered estimates beside a bootstrap's (`estimate_runs(judge=...)`,
    `estimate --judge`): one checked setting per judge, built once; the rows and the coupled
    draws behind P(A > B) are computed from it when first asked for."""

    settings: list[Setting]
    measures: list[Measure]  # those PPI covers
    level: float
    b: int
    seed: int
    methods: list[str]  # `ppi`, or `ppi[JUDGE]` per judge
    sources: list[str]  # the judges' files, for the note
    audit: str | None  # the audit sample's, None without one
    _rows: list[dict[str, Any]] | None = field(default=None, repr=False)

    @property
    def notes(self) -> list[str]:
        """The table's note on the `ppi` column(s)."""
        if not self.measures:
            return []
        names = ", ".join(self.sources)
        if self.audit is None:
            return [f"ppi: the score under judge {names}'s labels where the qrels grade "
                    "nothing, as a point: the judge's errors are NOT covered (no --audit; draw "
                    "one with `unjudged plan QRELS RUNS --audit N --judge FILE`)"]
        return [f"ppi: prediction-powered estimate (PPI++) from judge {names}'s labels "
                f"corrected by the human audit {self.audit}, with its {100 * self.level:g}% "
                "normal interval, which covers the judge's errors (Horvitz-Thompson weights "
                "1/pi; docs/judges.md)"]

    def rows(self, per_topic: bool = True) -> list[dict[str, Any]]:
        """Rows in the layout of Estimates.rows (run, topic, measure, method, value, lo, hi)
        per run (topic "all") and, with `per_topic`, per (run, topic)."""
        if self._rows is None:
            from unjudged.judges.estimate import estimate_setting

            several = len(self.settings) > 1
            out = []
            for st in self.settings:
                if not self.measures:
                    continue
                f = estimate_setting(st, self.measures, self.level, counts=False)
                out += [{"run": run, "topic": topic, "measure": measure,
                         "method": _method(st.judge, several), "value": float(v),
                         "lo": float(lo), "hi": float(hi)}
                        for run, topic, measure, v, lo, hi in zip(
                            f.run.tolist(), f.topic.tolist(), f.measure.tolist(),
                            f.estimate.tolist(), f.lo.tolist(), f.hi.tolist(), strict=True)]
            self._rows = out
        return self._rows if per_topic else [r for r in self._rows if r["topic"] == "all"]

    def pair_rows(self) -> list[dict[str, Any]]:
        """P(A > B) per judge and measure from `b` coupled draws of the runs' means: rows
        run_a, run_b, measure, p_a_better, method (`ppi` or `ppi[JUDGE]`)."""
        from unjudged.judges.estimate import setting_draws

        several = len(self.settings) > 1
        out = []
        for st in self.settings:
            if not self.measures:
                continue
            for d in setting_draws(st, self.measures, self.b, self.seed):
                out += [{k: v for k, v in r.items() if k != "judge"}
                        | {"method": _method(d.judge, several)} for r in d.pair_rows()]
        return out


def judge_estimates(runs: list[Any], qrels: Any, judge: Any, measures: Any, *,
                    audit: Any = None, audit_qrels: Any = None, design: Any = None,
                    level: float = 0.9, b: int = 10_000, seed: int = 0) -> JudgeEstimates:
    """The judges' settings for `runs`, checked now (bad inputs stop here, one line each);
    measures PPI does not cover get one note and no rows."""
    from unjudged.judges.estimate import judge_settings

    ok, other = split_measures(measures)
    if other:
        note(f"ppi covers P@k, RBP and nDCG (measures linear in per-document gains, and nDCG "
             f"as their ratio); no ppi value for {', '.join(m.name for m in other)}")
    judges = _judges(judge)
    several = len(judges) > 1
    methods = [_method(j.name, several) for j in judges]
    if several and len(set(methods)) < len(methods):
        raise InvalidOptionError("judge: two judge files have the same name "
                                 f"({', '.join(j.name for j in judges)}); name them apart")
    settings = judge_settings(runs, qrels, judges, audit=audit, audit_qrels=audit_qrels,
                              design=design)
    label = None if audit is None else str(getattr(audit, "source", audit))
    return JudgeEstimates(settings, ok, level, b, seed, methods if ok else [],
                          [j.source for j in judges], label)


def judge_tables(runs: list[Any], qrels: Any, judge: Any, measures: Any, *, audit: Any = None,
                 audit_qrels: Any = None, design: Any = None, level: float = 0.9,
                 b: int = 10_000, seed: int = 0, rel: int = 1) -> dict[str, list[dict]]:
    """The report's judge section as tables (lists of dicts): `agreement` (per judge: overlap,
    kappa, weighted kappa, share of equal grades), `confusion` (per judge and human grade: the
    judge's grades), `calibration` (per judge and tenth of its probability), `estimates` (per
    judge, measure and run: the judge's score, the ppi estimate and interval, the audit alone,
    the judge lift and its flag, the rank interval from the coupled draws)."""
    from unjudged.judges.diagnose import calibration, judge_agreement, lift_flags
    from unjudged.judges.estimate import estimate_setting, judge_settings, setting_draws

    ok, other = split_measures(measures)
    if other:
        note(f"the judge section covers P@k, RBP and nDCG; no ppi estimate for "
             f"{', '.join(m.name for m in other)}")
    settings = judge_settings(runs, qrels, _judges(judge), audit=audit,
                              audit_qrels=audit_qrels, design=design)
    agreement, confusion, cal, estimates = [], [], [], []
    for st in settings:
        a = judge_agreement(st, rel)
        agreement.append({k: a[k] for k in ("judge", "overlap", "kappa_binary",
                                            "kappa_weighted", "agreement")})
        confusion += [{"judge": st.judge, "human": g, **{f"judge_{j}": int(v)
                                                         for j, v in enumerate(row)}}
                      for g, row in enumerate(a["confusion"])]
        cal += calibration(st, rel=rel).to_dict("records")
        if not ok or not st.runs:
            continue
        rows = estimate_setting(st, ok, level, counts=False)
        lift = lift_flags(rows).set_index(["run", "measure"])
        means = rows[(rows.topic == "all") & (rows.run != "")].set_index(["run", "measure"])
        for d in setting_draws(st, ok, b, seed):
            ranks = d.rank_intervals(level)
            order = np.argsort(-d.mean, kind="stable")
            for i in order:
                run = d.runs[i]
                m, f = means.loc[(run, d.measure)], lift.loc[(run, d.measure)]
                estimates.append({
                    "judge": st.judge, "measure": d.measure, "run": run,
                    "judged": float(m.judged), "estimate": float(m.estimate),
                    "lo": float(m.lo), "hi": float(m.hi), "human_only": float(m.human_only),
                    "rank_lo": int(ranks[i, 0]), "rank_hi": int(ranks[i, 1]),
                    "lift": float(f.lift), "lift_flag": bool(f.flag and st.audited.any()),
                    "audited": int(m.audited)})
    return {"agreement": agreement, "confusion": confusion, "calibration": cal,
            "estimates": estimates}
