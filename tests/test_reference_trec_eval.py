"""The pure-Python reference (tests/reference_trec_eval.py) reproduces trec_eval 10.

Every line of trec_eval's golden outputs (see shared/data/trec_eval/EXPECTED.md)
must be reproduced with the same printed value, and the reference must print
no line that trec_eval does not.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import reference_trec_eval as ref  # noqa: E402

DATA = Path(__file__).parents[1] / ".." / "shared" / "data" / "trec_eval" / "test"

pytestmark = pytest.mark.skipif(
    not DATA.is_dir(),
    reason=f"trec_eval golden data not found at {DATA.resolve()} (shared/data is absent)",
)

OFFICIAL = ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
            "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P"]

MEAS_PARAMS = {
    "iprec_at_recall": ".10,.20,.25,.75,.50",
    "P": "5,7,3",
    "recall": "20,2000",
    "Rprec_mult": "5.0,0.2,0.35",
    "utility": "2,-1,0,0",
    "11pt_avg": ".25,.5,.75",
    "ndcg": "1=3,2=9,4=4.5",
    "ndcg_cut": "10,20,23.4",
    "success": "2,5,20",
}

# golden file -> (qrels, run, evaluate() kwargs, -m families or None for all_trec,
#                 per-query output (-q)?)
CASES = {
    "out.test": ("qrels.test", "results.test", {}, OFFICIAL, False),
    "out.test[with-comments]": ("qrels.test.with-comments", "results.test", {}, OFFICIAL,
                                False),
    "out.comment.test": ("qrels.comment.test", "results.comment.test", {}, OFFICIAL, False),
    "out.test.a": ("qrels.test", "results.test", {}, None, False),
    "out.test.aq": ("qrels.test", "results.test", {}, None, True),
    "out.test.aqc": ("qrels.test", "results.trunc", {"complete": True}, None, True),
    "out.test.aqcM": ("qrels.test", "results.trunc", {"complete": True, "max_docs": 100},
                      None, True),
    "out.test.aql": ("qrels.rel_level", "results.test",
                     {"rel_level": 2, "params": {"relstring": "20"}}, None, True),
    "out.test.meas_params": ("qrels.test", "results.test", {"params": MEAS_PARAMS},
                             list(MEAS_PARAMS), True),
}


def golden_path(case: str) -> Path:
    return DATA / case.split("[")[0]


def parse_golden(path: Path) -> dict[tuple[str, str], str]:
    """{(measure name, qid): printed value} from trec_eval's text output."""
    out = {}
    for line in path.read_text().splitlines():
        name, qid, value = line.split("\t")
        assert len(name) >= 22 and name == name.rstrip().ljust(22), line
        key = (name.rstrip(), qid)
        assert key not in out, f"duplicate golden line {line!r}"
        out[key] = value
    return out


def run_reference(case: str):
    qrels_name, run_name, kwargs, families, per_query = CASES[case]
    per_topic, summary = ref.evaluate(
        ref.read_qrels(DATA / qrels_name),
        ref.read_run(DATA / run_name),
        runid=ref.read_runid(DATA / run_name),
        **kwargs,
    )
    if not per_query:
        per_topic = {}
    return per_topic, summary, families


def reference_lines(case: str) -> dict[tuple[str, str], str]:
    per_topic, summary, families = run_reference(case)
    keep = None if families is None else set(families)
    out = {}
    for qid, values in [*per_topic.items(), ("all", summary)]:
        for name, value in values.items():
            if keep is None or ref.measure_family(name) in keep:
                out[(name, qid)] = ref.format_value(name, value)
    return out


@pytest.mark.parametrize("case", list(CASES))
def test_every_golden_line_is_reproduced(case):
    expected = parse_golden(golden_path(case))
    got = reference_lines(case)
    missing = sorted(set(expected) - set(got))
    extra = sorted(set(got) - set(expected))
    wrong = [
        f"{name} {qid}: trec_eval {expected[(name, qid)]!r} reference {got[(name, qid)]!r}"
        for (name, qid) in expected
        if (name, qid) in got and got[(name, qid)] != expected[(name, qid)]
    ]
    assert not missing, f"reference lacks {len(missing)} lines, e.g. {missing[:10]}"
    assert not extra, f"reference prints {len(extra)} lines trec_eval does not: {extra[:10]}"
    assert not wrong, f"{len(wrong)} mismatching values:\n" + "\n".join(wrong)


@pytest.mark.parametrize("case", list(CASES))
def test_text_output_is_byte_identical(case):
    per_topic, summary, families = run_reference(case)
    text = ref.format_output(per_topic, summary, measures=families)
    assert text == golden_path(case).read_text()


# ---------------------------------------------------------------- conventions
# Small synthetic checks of conventions the goldens exercise only indirectly.


def test_ties_broken_by_docno_descending_and_M_cuts_after_sorting():
    qrels = {"a": 1, "b": 0, "c": 2}
    ranking = [("a", 1.0), ("c", 1.0), ("b", 1.0), ("z", 2.0)]
    res = ref.evaluate_topic(qrels, ranking)
    assert res["relstring"] == "-201"  # z (absent, top score), then ties c, b, a
    res = ref.evaluate_topic(qrels, ranking, max_docs=2)
    assert res["num_ret"] == 2 and res["relstring"] == "-2"


def test_relstring_symbols_and_unjudged_docs():
    qrels = {"r": 1, "n": 0, "pooled": -1, "big": 12}
    ranking = [("r", 5), ("pooled", 4), ("absent", 3), ("n", 2), ("big", 1)]
    res = ref.evaluate_topic(qrels, ranking)
    assert res["relstring"] == "1.-0>"
    assert res["unj_5"] == pytest.approx(2 / 5)
    assert res["num_nonrel_judged_ret"] == 1
    assert res["num_rel"] == 2
    # bpref ignores the pooled-unjudged and absent docs
    assert res["bpref"] == pytest.approx((1.0 + (1 - 1 / 1)) / 2)


def test_complete_evaluates_missing_topics_as_empty_rankings():
    qrels = {"1": {"a": 1}, "2": {"b": 1, "c": 0}}
    run = {"1": [("a", 1.0)], "3": [("x", 1.0)]}
    per, summ = ref.evaluate(qrels, run)
    assert list(per) == ["1"] and summ["num_q"] == 1 and summ["map"] == 1.0
    per, summ = ref.evaluate(qrels, run, complete=True)
    assert list(per) == ["1", "2"] and summ["num_q"] == 2
    assert per["2"]["num_rel"] == 1 and per["2"]["num_ret"] == 0
    assert per["2"]["relstring"] == ""
    assert summ["map"] == 0.5 and summ["num_rel"] == 2
    assert summ["gm_map"] == pytest.approx((1.0 * 1e-5) ** 0.5)
    assert "relstring" not in summ and "gm_map" not in per["1"]


def test_parameter_names():
    res = ref.evaluate_topic({"a": 1}, [("a", 1.0)], params={
        "P": [5, 7, 3], "relstring": 20, "utility": [2, -1, 0, 0],
        "ndcg_cut": "23.4", "Rprec_mult": [5.0, 0.35], "rbp": {"p": 0.5},
    })
    for name in ["P_3", "P_5", "P_7", "relstring_20", "utility_2,-1,0,0", "ndcg_cut_23",
                 "Rprec_mult_0.35", "Rprec_mult_5.00", "rbp_p=0.5"]:
        assert name in res, name
    assert res["rbp_p=0.5"] == pytest.approx(0.5)
