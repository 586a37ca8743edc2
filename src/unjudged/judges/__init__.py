"""Automatic judges with guarantees: an LLM's (or any model's) labels corrected by a small
human audit sample, so that scores are unbiased and intervals include the judge's error
(prediction-powered inference; docs/judges.md).

    read_judge(path) -> Judge               labels in the layouts of `estimates:FILE`
    read_audit(path) -> AuditSample         `topic docno pi` lines
    draw_audit(runs, qrels, judge, n, ...)  the documents people should judge, with pi
    judge_estimate(runs, qrels, judge, measures, audit=...) -> DataFrame
    diagnose_judges(runs, qrels, judge, ...)  kappa, confusion matrix, calibration, lift
    judge_draws(runs, qrels, judge, measures, audit=...) -> [JudgeDraws]  coupled draws of the
                                            runs' means: P(A > B) and rank intervals
    judge_qrels(qrels, judge) -> Qrels      the judges' labels filling the pairs qrels leave
"""

from unjudged.judges.audit import draw_audit
from unjudged.judges.diagnose import calibration, diagnose_judges, judge_agreement, lift_flags
from unjudged.judges.estimate import JudgeDraws, judge_draws, judge_estimate
from unjudged.judges.labels import AuditSample, Judge, read_audit, read_judge
from unjudged.judges.options import judge_qrels

__all__ = ["AuditSample", "Judge", "JudgeDraws", "calibration", "diagnose_judges",
           "draw_audit", "judge_agreement", "judge_draws", "judge_estimate", "judge_qrels",
           "lift_flags", "read_audit", "read_judge"]
