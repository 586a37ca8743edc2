"""Planning judgments: which unjudged documents to judge next.

    Universe.build(runs, qrels)     the candidates: unjudged documents some run retrieved
    plan(runs, qrels, budget, measures, PlanSettings(...)) -> Plan   the documents in order
    plan_judgments(runs, qrels, budget, "nDCG@10", strategy=...)   the same for any inputs
    STRATEGIES                      depth, rbp, mtf, maxmean, mtc, uncertainty

docs/planning.md describes the method and the evidence.
"""

from unjudged.planning.plan import OBJECTIVES, Plan, PlanSettings, plan, plan_judgments
from unjudged.planning.strategies import STRATEGIES
from unjudged.planning.universe import Universe

__all__ = ["OBJECTIVES", "STRATEGIES", "Plan", "PlanSettings", "Universe", "plan",
           "plan_judgments"]
