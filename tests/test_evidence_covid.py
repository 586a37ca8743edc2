"""Real data: the numbers behind docs/unjudged-documents.md ("Evidence: TREC-COVID round 1").

TREC-COVID round-1 runs are scored with qrels-rnd1 (depth-7 pool) under each strategy for
unjudged documents and compared with the truth, the same measure under the complete TREC-COVID
qrels, on the (run, topic) pairs whose top 10 is fully judged there. The deterministic part is
recomputed here along an independent route (plain `score`, trec_eval -J for condensed lists,
Judged@10 for the pairs) and pinned to 4 decimals; the bootstrap part runs the benchmark's own
code at b=200 (seed 0, prior pool+run), which is deterministic given the seed.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from shared_data import COVID1, DATA, need

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "evidence_covid.py"
COMPLETE = DATA / "anserini-tools" / "qrels" / "qrels.covid-complete.txt"

# (group, measure) -> pairs, pairs with an unjudged top-10 document under qrels-rnd1,
# RMSE of nonrel, condensed, upper, and how often the truth lies in [nonrel, upper]
DETERMINISTIC = {
    ("contributing", "nDCG@10"): (1358, 994, 0.0372, 0.0480, 0.1153, 0.9470),
    ("contributing", "P@10"): (1358, 994, 0.0762, 0.0832, 0.1590, 1.0),
    ("non-contributing", "nDCG@10"): (1057, 657, 0.0551, 0.0540, 0.1203, 0.9423),
    ("non-contributing", "P@10"): (1057, 657, 0.0854, 0.0758, 0.1380, 1.0),
}
# b=200, seed 0, prior pool+run, coupled draws, no spread (seed 000's bootstrap): RMSE of
# mean, mode, median, the cross-validated quantile
# (and its level), and how often the truth lies in [p5, p95]
BOOTSTRAP = {
    ("contributing", "nDCG@10"): (0.0308, 0.0357, 0.0315, 0.0311, 0.42, 0.9367),
    ("contributing", "P@10"): (0.0553, 0.0622, 0.0616, 0.0623, 0.45, 0.9845),
    ("non-contributing", "nDCG@10"): (0.0382, 0.0461, 0.0395, 0.0397, 0.41, 0.9347),
    ("non-contributing", "P@10"): (0.0525, 0.0603, 0.0603, 0.0578, 0.44, 0.9896),
}


@pytest.fixture(scope="module")
def evidence():
    need(COVID1)
    need(COMPLETE)
    spec = importlib.util.spec_from_file_location("evidence_covid", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module, module.load()


def _r4(x: float) -> float:
    return round(float(x), 4)


def test_deterministic_strategies_against_complete_qrels(evidence):
    ev, setup = evidence
    from unjudged.engine.estimate import estimate_runs
    from unjudged.engine.score import score
    from unjudged.io import read_qrels
    from unjudged.measures import parse_measures
    from unjudged.policies import Policies

    ms = parse_measures(["nDCG@10", "P@10"])
    q1 = setup.qrels
    complete = read_qrels(COMPLETE).to_dict()
    qc = read_qrels({t: complete[t] for t in q1.topics})

    def values(results):
        assert all(r.topics == setup.topics for r in results.runs)
        return np.stack([r.values for r in results.runs])  # (runs, topics, measures)

    truth = values(score(setup.runs, qc, ms))
    nonrel = values(score(setup.runs, q1, ms))
    condensed = values(score(setup.runs, q1, ms, Policies(judged_only=True)))
    judged_complete = values(score(setup.runs, qc, parse_measures(["Judged@10"])))[..., 0]
    judged_rnd1 = values(score(setup.runs, q1, parse_measures(["Judged@10"])))[..., 0]
    est = estimate_runs(setup.runs, q1, ms, methods=["upper", "guaranteed"])
    upper, g_lo, g_hi = (np.stack([r.points[m] for r in est.runs])
                         for m in ("upper", "guaranteed_lower", "guaranteed_upper"))

    qualifies = judged_complete == 1.0
    assert np.array_equal(qualifies, setup.qualifies)
    assert np.allclose(truth, setup.truth)
    assert int(setup.contributed.sum()) == 56 and len(setup.runs) == 143

    pairs = {"contributing": qualifies & setup.contributed[:, None],
             "non-contributing": qualifies & ~setup.contributed[:, None]}
    script = ev.deterministic_table(setup, {"nonrel": nonrel, "condensed": condensed,
                                            "upper": upper, "guaranteed_lower": g_lo,
                                            "guaranteed_upper": g_hi})
    for (group, measure), expected in DETERMINISTIC.items():
        mask, k = pairs[group], ["nDCG@10", "P@10"].index(measure)
        t = truth[..., k][mask]
        lo, hi = nonrel[..., k][mask], upper[..., k][mask]
        got = (int(mask.sum()), int((mask & (judged_rnd1 < 1.0)).sum()),
               _r4(np.sqrt(np.mean((lo - t) ** 2))),
               _r4(np.sqrt(np.mean((condensed[..., k][mask] - t) ** 2))),
               _r4(np.sqrt(np.mean((hi - t) ** 2))),
               _r4(np.mean((lo - 1e-9 <= t) & (t <= hi + 1e-9))))
        assert got == expected, (group, measure)
        cell = script[group][measure]
        assert (cell["pairs"], cell["pairs_unjudged_rnd1"], *map(_r4, cell["rmse"].values()),
                _r4(cell["in_nonrel_upper"])) == expected, (group, measure)
        # the guaranteed bounds hold on every pair, even where the comparable ones cannot
        # (the complete qrels raise nDCG's normaliser on two topics)
        assert cell["in_guaranteed"] == 1.0, (group, measure)


def test_bootstrap_against_complete_qrels_small_b(evidence):
    ev, setup = evidence
    est = ev.run_estimates(setup, "pool+run", b=200, seed=0)
    # every sample lies between the comparable bounds
    assert est.outside == {"nDCG@10": 0, "P@10": 0}
    table = ev.bootstrap_table(setup, est)
    for (group, measure), expected in BOOTSTRAP.items():
        cell = table[group][measure]
        r = cell["rmse"]
        got = (_r4(r["mean"]), _r4(r["mode"]), _r4(r["median"]),
               _r4(cell["cv_quantile"]["rmse"]), cell["cv_quantile"]["level"],
               _r4(cell["in_p5_p95"]))
        assert got == expected, (group, measure)
