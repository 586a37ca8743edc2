"""Assessment measures of seed 001 (A_p, A_r, Average Assessment, assessed-only P/R/AP) and
bpref's equation 4: hand-worked values, trec_eval -J agreement, Hypothesis properties."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import unjudged
from unjudged.data.judged import condense, judge
from unjudged.io import read_qrels, read_run
from unjudged.measures import REGISTRY, parse_measure
from unjudged.policies import Policies

sys.path.insert(0, str(Path(__file__).parent))
from shared_data import TREC_EVAL, need  # noqa: E402
from test_properties import collections  # noqa: E402

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Assessed: a, b, c, d, f (5); relevant: a, c (grade 2), f (3); e is pooled but unjudged (-1).
QRELS = {"t": {"a": 1, "b": 0, "c": 2, "d": 0, "e": -1, "f": 1}}
# Ranking: x (not in qrels), a, e, b, c, y (not in qrels), d
RUN = {"t": {"x": 7.0, "a": 6.0, "e": 5.0, "b": 4.0, "c": 3.0, "y": 2.0, "d": 1.0}}


def value(name: str, qrels=QRELS, run=RUN, **policy) -> float:
    j = judge(read_run(run), read_qrels(qrels), Policies(**policy))
    return float(parse_measure(name).compute(j)[0])


@pytest.mark.parametrize("name, expected", [
    ("Judged@5", 3 / 5), ("Ap@5", 3 / 5), ("Judged", 4 / 7), ("Judged@1", 0.0),
    ("Ar@3", 1 / 5), ("Ar@5", 3 / 5), ("Ar", 4 / 5), ("JudgedRecall@5", 3 / 5),
    # assessed at ranks 2, 4, 5, 7: fractions assessed 1/2, 2/4, 3/5, 4/7; over |A| = 5
    ("AA", (1 / 2 + 2 / 4 + 3 / 5 + 4 / 7) / 5), ("AA@5", (1 / 2 + 2 / 4 + 3 / 5) / 5),
    ("MAA@5", (1 / 2 + 2 / 4 + 3 / 5) / 5), ("AA@1", 0.0),
    # top 5 holds a, b, c assessed, a and c relevant
    ("AssessedP@5", 2 / 3), ("AssessedP", 2 / 4), ("AssessedP@1", 0.0),
    ("AssessedP(rel=2)@5", 1 / 3),
    ("AssessedR@5", 2 / 3), ("AssessedR(rel=2)@5", 1 / 1), ("AssessedR@2", 1 / 3),
    # condensed top 5: a (rel), b, c (rel): precisions 1/1 and 2/3 over R = 3
    ("AssessedAP@5", (1 + 2 / 3) / 3), ("AssessedAP", (1 + 2 / 3) / 3),
    ("AssessedAP@3", 1 / 3), ("AP@5", (1 / 2 + 2 / 5) / 3),
])
def test_hand_worked(name, expected):
    assert value(name) == pytest.approx(expected)


def test_negative_grades_assessed_only_when_the_policy_says_so():
    # --negative nonrel: e is a judged non-relevant document, |A| = 6
    assert value("Judged@5", negative="nonrel") == pytest.approx(4 / 5)
    assert value("Ar@5", negative="nonrel") == pytest.approx(4 / 6)
    assert value("AssessedP@5", negative="nonrel") == pytest.approx(2 / 4)
    assert value("AssessedAP@5", negative="nonrel") == pytest.approx((1 + 2 / 4) / 3)


def test_names_and_specs():
    for name in ("Ar", "AA", "AssessedP", "AssessedR", "AssessedAP"):
        spec = REGISTRY[name]
        assert not spec.estimable and spec.cutoff == "optional" and spec.bounded == (0.0, 1.0)
    assert REGISTRY["Ap"] is REGISTRY["Judged"] and REGISTRY["MAA"] is REGISTRY["AA"]
    assert REGISTRY["A_r"] is REGISTRY["Ar"] and REGISTRY["assessed_P"] is REGISTRY["AssessedP"]
    assert parse_measure("assessed_map_10").name == "AssessedAP@10"


def test_bpref_equation_4_by_hand():
    # R ∩ A = {a, c, f}, ¬R ∩ A = {b, d}: min = 2. a (rank 2) has no judged non-relevant
    # document above it: 1 - 0/2; c (rank 5) has b above: 1 - 1/2. (1 + 1/2) / 3.
    assert value("Bpref") == pytest.approx(0.5)
    # The correction eq. 4 relies on (Soboroff): only the first R judged non-relevant
    # documents count, so a relevant document below more than R of them scores 0, not < 0.
    q = {"t": {"r": 1, "n1": 0, "n2": 0, "n3": 0}}
    r = {"t": {"n1": 4.0, "n2": 3.0, "n3": 2.0, "r": 1.0}}
    assert value("Bpref", q, r) == 0.0  # eq. 4 read literally: 1 - 3/1 = -2
    r2 = {"t": {"n1": 4.0, "r": 3.0, "n2": 2.0}}
    assert value("Bpref", q, r2) == 0.0  # 1 - min(1, R)/min(R, N) = 0
    q2 = {"t": {"r": 1, "s": 1, "n1": 0, "u": -1}}
    r3 = {"t": {"u": 5.0, "r": 4.0, "n1": 3.0, "s": 2.0}}
    assert value("Bpref", q2, r3) == pytest.approx((1 + (1 - 1 / 1)) / 2)


def test_bpref_equals_trec_eval_on_its_test_collection():
    qrels = need(TREC_EVAL / "qrels.test")
    run = need(TREC_EVAL / "results.test")
    line = next(x for x in (TREC_EVAL / "out.test.a").read_text().splitlines()
                if x.startswith("bpref "))
    df = unjudged.evaluate(str(run), str(qrels), "Bpref", per_topic=False)
    assert f"{df.value.iloc[0]:.4f}" == line.split()[-1] == "0.1981"


@pytest.mark.parametrize("depth", [10, 100, None])
def test_assessed_measures_are_trec_eval_M_J(depth):
    """AssessedP@d, AssessedR@d and AssessedAP@d are set_P, set_recall and map of the run cut
    to d (-M d) and condensed to its judged documents (-J), on trec_eval's test collection."""
    qrels = read_qrels(str(need(TREC_EVAL / "qrels.test")))
    run = read_run(str(need(TREC_EVAL / "results.test")))
    cut = "" if depth is None else f"@{depth}"
    plain = judge(run, qrels)
    condensed = judge(run, qrels, Policies(depth=depth, judged_only=True))
    for ours, theirs in [("AssessedP", "set_P"), ("AssessedR", "set_recall"),
                         ("AssessedAP", "map")]:
        a = parse_measure(ours + cut).compute(plain)
        b = parse_measure(theirs).compute(condensed)
        assert a.tolist() == pytest.approx(b.tolist(), abs=1e-12)
    # condensing only moves relevant documents up
    assert (parse_measure("AssessedAP" + cut).compute(plain) >=
            parse_measure("AP" + cut).compute(plain)).all()


def test_average_assessment_is_ap_with_every_judged_document_relevant():
    # Footnote 13: mark every judged document relevant and compute AP.
    qrels = read_qrels(str(need(TREC_EVAL / "qrels.test")))
    run = read_run(str(need(TREC_EVAL / "results.test")))
    flat = read_qrels({t: {d: 1 if g >= 0 else g for d, g in docs.items()}
                       for t, docs in qrels.to_dict().items()})
    for cut in ("", "@10", "@100"):
        aa = parse_measure("AA" + cut).compute(judge(run, qrels))
        ap = parse_measure("AP" + cut).compute(judge(run, flat))
        assert aa.tolist() == pytest.approx(ap.tolist(), abs=1e-12)
        ar = parse_measure("Ar" + cut).compute(judge(run, qrels))
        r = parse_measure("R" + cut).compute(judge(run, flat))
        assert ar.tolist() == pytest.approx(r.tolist(), abs=1e-12)


# ----------------------------------------------------------------------------- properties

ASSESSMENT = ["Judged", "Ar", "AA", "AssessedP", "AssessedR", "AssessedAP"]


@SETTINGS
@given(collections(), st.sampled_from(["unjudged", "nonrel"]), st.sampled_from([1, 2]))
def test_ranges_and_monotone_assessment_recall(data, negative, rel):
    j = judge(read_run(data[1]), read_qrels(data[0]), Policies(negative=negative, rel_level=rel))
    for name in ASSESSMENT:
        for cut in ("", "@1", "@3", "@10"):
            v = parse_measure(name + cut).compute(j)
            assert ((v >= 0) & (v <= 1 + 1e-12)).all(), (name + cut, v)
    previous = 0.0
    for d in range(1, 10):
        v = parse_measure(f"Ar@{d}").compute(j)
        assert (v >= previous - 1e-12).all()
        previous = v
    assert parse_measure("Ar").compute(j).tolist() == pytest.approx(previous.tolist())


@SETTINGS
@given(collections(), st.integers(1, 9))
def test_fully_judged_run_has_ap_one_and_assessed_equals_plain(data, d):
    qrels, run = data
    judged_run = {t: {doc: s for doc, s in docs.items() if qrels.get(t, {}).get(doc, -1) >= 0}
                  for t, docs in run.items()}
    judged_run = {t: docs for t, docs in judged_run.items() if docs and t in qrels}
    if not judged_run:
        return
    j = judge(read_run(judged_run), read_qrels(qrels))
    assert (parse_measure(f"Ap@{d}").compute(j) == 1.0).all()
    for ours, plain in [("AssessedAP", "AP"), ("AssessedR", "R")]:
        a = parse_measure(f"{ours}@{d}").compute(j)
        assert a.tolist() == pytest.approx(parse_measure(f"{plain}@{d}").compute(j).tolist())
    top = [min(d, len(docs)) for docs in (judged_run[t] for t in j.topics)]
    p = parse_measure(f"P@{d}").compute(j) * d / top
    assert parse_measure(f"AssessedP@{d}").compute(j).tolist() == pytest.approx(p.tolist())


@SETTINGS
@given(collections(), st.integers(1, 9))
def test_assessed_measures_equal_cut_then_condensed_on_random_data(data, d):
    run, qrels = read_run(data[1]), read_qrels(data[0])
    plain = judge(run, qrels)
    # the judged documents of the top d, in order (trec_eval -M d -J)
    cut = judge(run, qrels, Policies(depth=d))
    condensed = cut.with_grades(*condense(cut.grades))
    for ours, theirs in [("AssessedP", "P"), ("AssessedAP", "AP"), ("AssessedR", "R")]:
        a = parse_measure(f"{ours}@{d}").compute(plain)
        assert a.tolist() == pytest.approx(parse_measure(theirs).compute(condensed).tolist())
    aa = parse_measure(f"AA@{d}").compute(plain)
    assert (aa <= parse_measure(f"Ar@{d}").compute(plain) + 1e-12).all()
    assert not math.isnan(aa.sum())
