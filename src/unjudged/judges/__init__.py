"""Automatic judges with guarantees: an LLM's (or any model's) labels corrected by a small
human audit sample, so that scores are unbiased and intervals include the judge's error
(prediction-powered inference; docs/judges.md).

    read_judge(path) -> Judge               labels in the layouts of `estimates:FILE`
    read_audit(path) -> AuditSample         `topic docno pi` lines
    draw_audit(runs, qrels, judge, n, ...)  the documents people should judge, with pi
    judge_estimate(runs, qrels, judge, measures, audit=...) -> DataFrame
    diagnose_judges(runs, qrels, judge, ...)  kappa, confusion matrix, calibration, lift
"""

from unjudged.judges.audit import draw_audit
from unjudged.judges.diagnose import calibration, diagnose_judges, judge_agreement, lift_flags
from unjudged.judges.estimate import judge_estimate
from unjudged.judges.labels import AuditSample, Judge, read_audit, read_judge

__all__ = ["AuditSample", "Judge", "calibration", "diagnose_judges", "draw_audit",
           "judge_agreement",
           "judge_estimate", "lift_flags", "read_audit", "read_judge"]
