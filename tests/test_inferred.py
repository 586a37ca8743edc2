"""Sampled judgments and the inferred measures of seed 002, with their confidence intervals.

Evidence, in order: the reader (both layouts, errors naming the line); hand-worked values of
every estimator on one small two-stratum topic; complete judgments giving AP, nDCG and P exactly
(up to the smoothing) with zero-width intervals; trec_eval's infAP on qrels.rel_level; the
official TREC PM 2017 sample_eval output (inum_rel); sample_eval.pl's own output for a run built
from hashes; the stratified bootstrap against the textbook stratified variance; and interval
coverage when the judgments of TREC-COVID round 1 are subsampled.
"""

from __future__ import annotations

import hashlib
import json
import math

import numpy as np
import pytest
from click.testing import CliRunner

from shared_data import COVID1, DATA, TREC_EVAL, need
from unjudged.cli import main
from unjudged.data.judged import judge
from unjudged.data.sampled import SampledQrels, judge_sampled
from unjudged.errors import FormatError
from unjudged.inference.counts import infndcg_variance
from unjudged.inference.infap import infap_variance, xinfap_variance
from unjudged.inference.infer import infer, infer_runs, normal_interval
from unjudged.inference.rescaling import Replicates, bootstrap_values
from unjudged.io import read_qrels, read_run
from unjudged.io.sampled import build_sampled_qrels, format_sampled_qrels, read_sampled_qrels
from unjudged.measures import parse_measure, parse_measures
from unjudged.measures.inferred import ideal_dcg
from unjudged.policies import Policies

PM = DATA / "bst-mug-trec-pm"
PM_QRELS = PM / "src/main/resources/gold-standard/sample-qrels-final-abstracts.txt"

# One topic, two strata. Stratum 1: a1..a3 all sampled (grades 2, 0, 1). Stratum 2: b1..b4,
# two sampled (b1 = 1, b3 = 0), b2 and b4 not. x lies outside the universe.
TOY = "\n".join(["# topic iter docno stratum grade", "t 0 a1 1 2", "t 0 a2 1 0", "t 0 a3 1 1",
                 "t 0 b1 2 1", "t 0 b2 2 -1", "t 0 b3 2 0", "t 0 b4 2 -1", ""])
# ranks 1..7: a1 b2 x b1 a2 b3 a3
TOY_RUN = {"t": {d: float(7 - i) for i, d in enumerate(["a1", "b2", "x", "b1", "a2", "b3", "a3"])}}


@pytest.fixture
def toy(tmp_path):
    path = tmp_path / "toy.qrels"
    path.write_text(TOY)
    q = read_sampled_qrels(str(path))
    return q, judge_sampled(read_run(TOY_RUN), q)


def value(name, j):
    return float(parse_measure(name).compute(j)[0])


# ----------------------------------------------------------------------------- reading


def test_reads_both_layouts_into_one_model(toy, tmp_path):
    q, _ = toy
    assert q.strata == ["1", "2"]
    assert q.stratum_sizes.tolist() == [[3, 4]]
    assert q.sampled_counts.tolist() == [[3, 2]]
    assert q.grade_values.tolist() == [0, 1, 2]
    assert q.grade_counts.tolist() == [[[1, 1, 1], [1, 1, 0]]]
    assert q.estimated_relevant().tolist() == [2.0 + 1 * 4 / 2]
    four = tmp_path / "four.qrels"
    four.write_text("t 0 a 1\nt 0 b -1\nt 0 c 0\n")
    one = read_sampled_qrels(str(four))
    assert (one.strata, one.stratum_sizes.tolist(), one.sampled_counts.tolist()) == \
        (["1"], [[3]], [[2]])


def test_strata_labels_order_numerically_and_round_trip(tmp_path):
    q = read_sampled_qrels({"1": {"a": ("10", 1), "b": ("2", -1), "c": ("2", 0)}})
    assert q.strata == ["2", "10"]
    path = tmp_path / "back.qrels"
    path.write_text(format_sampled_qrels(q))
    back = read_sampled_qrels(str(path))
    assert back.to_dict() == q.to_dict() and back.key_strata.tolist() == q.key_strata.tolist()


@pytest.mark.parametrize("text, line, words", [
    ("t 0 a 1 1\nt 0 b 2\n", 2, "expected 5 columns"),
    ("t 0 a 1 x\n", 1, "not an integer"),
    ("t 0 a 1 1\nt 0 a 2 1\n", 2, "two strata"),
    ("t 0 a 1 1 9\n", 1, "found 6"),
])
def test_bad_lines_are_named(tmp_path, text, line, words):
    path = tmp_path / "bad.qrels"
    path.write_text(text)
    with pytest.raises(FormatError) as err:
        read_sampled_qrels(str(path))
    assert err.value.line == line and words in str(err.value)
    res = CliRunner().invoke(main, ["infer", str(path), str(path)])
    assert res.exit_code == 2 and res.output.count("\n") == 1 and words in res.output


def test_a_design_builds_sampled_qrels_from_arrays():
    full = read_qrels({"t": {"a": 2, "b": 1, "c": 0, "d": 1}})
    strata = np.array([0, 0, 1, 1])  # keys in docno order: a, b, c, d
    q = SampledQrels.from_qrels(full, strata, ["top", "rest"], np.array([1, 1, 0, 1], bool))
    assert q.to_dict() == {"t": {"a": 2, "b": 1, "c": -1, "d": 1}}
    assert q.estimated_relevant().tolist() == [2 + 2.0]
    with pytest.raises(ValueError):
        SampledQrels.from_qrels(read_qrels({"t": {"a": -1}}), sampled=np.array([True]))
    same = build_sampled_qrels(["t"] * 4, list("abcd"), ["top", "top", "rest", "rest"],
                               [2, 1, -1, 1])
    assert same.to_dict() == q.to_dict() and same.strata == ["rest", "top"]


# ----------------------------------------------------------------------------- hand-worked


def test_xinfap_by_hand(toy):
    # R = 3/3 * 2 + 4/2 * 1 = 4. Precision at a1 (rank 1) = 1; at b1 (rank 4), above it are a1
    # (stratum 1: 1 of 1 sampled relevant) and b2 (stratum 2: none sampled, smoothed to 1/3):
    # 1/4 + (1 * 1 + 1 * 1/3) / 4 = 7/12; at a3 (rank 7): 1/7 + (2 * 1/2 + 3 * 1/2) / 7 = 1/2.
    # xinfAP = (3/3 * (1 + 1/2) + 4/2 * 7/12) / 4 = 2/3.
    _, j = toy
    assert value("xinfAP", j) == pytest.approx(2 / 3, abs=1e-5)
    # with the paper's smoothing an unsampled stratum counts 1/2: 1/4 + 3/8 = 5/8 at b1
    assert value("xinfAP(smoothing='paper')", j) == pytest.approx((1.5 + 2 * 5 / 8) / 4, abs=1e-5)
    assert value("xinfAP(cap=3)", j) == pytest.approx(2 / 3 * 4 / 3, abs=1e-5)


def test_infndcg_by_hand(toy):
    # DCG: stratum 1 retrieves a1, a2, a3, all sampled: 2/log2(2) + 1/log2(8) = 7/3; stratum 2
    # retrieves b2, b1, b3, of which b1, b3 sampled: 3/2 * 1/log2(5). Ideal: R(2) = 1,
    # R(1) = 1 + 4/2 = 3: 2 + 1/log2(3) + 1/log2(4) + 1/log2(5).
    _, j = toy
    dcg = 7 / 3 + 1.5 / math.log2(5)
    ideal = 2 + 1 / math.log2(3) + 1 / 2 + 1 / math.log2(5)
    assert value("infNDCG", j) == pytest.approx(dcg / ideal, abs=1e-12)
    # top 3 = a1, b2, x: stratum 2 has nothing sampled there and adds 0 (as sample_eval)
    assert value("infNDCG@3", j) == pytest.approx(2 / (2 + 1 / math.log2(3) + 1 / 2), abs=1e-12)
    # gains 2^g - 1: grade 2 gains 3, grade 1 gains 1
    exp = (3 + 1 / 3 + 1.5 / math.log2(5)) / (3 + 1 / math.log2(3) + 0.5 + 1 / math.log2(5))
    assert value("infNDCG(dcg='exp-log2')", j) == pytest.approx(exp, abs=1e-12)


def test_ideal_dcg_places_fractional_counts_as_sample_eval():
    # 1.5 documents of gain 2 then 2.5 of gain 1: ranks 1 | 2.5, 3.5 (floor of each count, ranks
    # continuing from the fractional total); a cutoff keeps positions p < k + 1
    per_grade = np.array([[2.5, 1.5]])
    gain = np.array([1.0, 2.0])
    full = 2 + 1 / math.log2(3.5) + 1 / math.log2(4.5)
    assert ideal_dcg(per_grade, gain, None)[0] == pytest.approx(full, abs=1e-12)
    assert ideal_dcg(per_grade, gain, 2)[0] == pytest.approx(2 + 1 / math.log2(3.5), abs=1e-12)


def test_inferred_precision_and_counts_by_hand(toy):
    # estimated relevant at or above rank k: sum over strata of N_s^k * r_s^k / n_s^k
    #   k=1: 1;  k=2: 1 + 1 * 1/3 (b2 unsampled);  k=4: 1 + 2 * 1/1;  k=7: 3 * 2/3 + 3 * 1/2
    _, j = toy
    for name, want in [("iP@1", 1.0), ("iP@2", 4 / 3 / 2), ("iP@4", 3 / 4), ("iP@5", 3 / 5),
                       ("iP@7", 3.5 / 7), ("iP@10", 3.5 / 10), ("iNumRelRet", 3.5),
                       ("iNumRel", 4.0)]:
        assert value(name, j) == pytest.approx(want, abs=1e-4), name


def test_interpolated_precision_by_hand(toy):
    # estimated relevant by rank: 1, 4/3, 4/3, 3, 3, 2.5, 3.5; precision: 1, .667, .444, .75,
    # .6, .417, .5; R = 4. Levels x * 4 above 3.5 (0.9, 1) are never reached: 0. Walking up from
    # rank 7, level .8 (3.2) is passed at rank 6 (max precision below: .5), .7 (2.8) at rank 3
    # (.75), .6 at rank 2 (.75: one level per rank, as sample_eval), .5 at rank 1 (1); the rest
    # get the highest precision, 1.
    _, j = toy
    want = [1, 1, 1, 1, 1, 1, .75, .75, .5, 0, 0]
    got = [value(f"iIPrec(recall={x / 10})", j) for x in range(11)]
    assert got == pytest.approx(want, abs=1e-4)
    assert value("iIPrec_0.80", j) == pytest.approx(0.5, abs=1e-4)


def test_infap_variance_by_hand():
    # pool a, b, c, d; judged a (1), b (0), d (1): p = 3/4, r = 2. Run c a b: precision at a
    # (rank 2, above it c, pooled, unsampled) = 1/2 + 1/2 * 1/2 = 3/4, at d (not retrieved) 0;
    # infAP = 3/8. Component 1: (1 - 3/4) * s^2 / 2 with s^2 = 2 * (3/8)^2 / (2 - 1).
    # Component 2: nothing sampled above a, so the worst proportion variance 1/4:
    # (1/2)^2 * 1/4 / 2^2.
    q = read_qrels({"t": {"a": 1, "b": 0, "c": -1, "d": 1}})
    j = judge(read_run({"t": {"c": 3.0, "a": 2.0, "b": 1.0}}), q)
    assert parse_measure("infAP").compute(j)[0] == pytest.approx(3 / 8, abs=1e-5)
    first = 0.25 * (2 * (3 / 8) ** 2) / 2
    second = 0.25 * 0.25 / 4
    assert infap_variance(j)[0] == pytest.approx(first + second, abs=1e-6)
    # once c is judged, precision above a is exactly known: only component 1 remains (p = 1)
    j = judge(read_run({"t": {"c": 3.0, "a": 2.0, "b": 1.0}}), read_qrels({"t": {
        "a": 1, "b": 0, "c": 0, "d": 1}}))
    assert infap_variance(j)[0] == pytest.approx(0.0, abs=1e-12)


def test_hypergeometric_term_and_covariance_by_hand():
    # pool p1..p5, rel; sampled p2 (1), p4 (0), rel (1): p = 3/6, r = 2. At p2 (rank 2) nothing
    # is sampled above: PC = 3/4, variance (1/2)^2 * 1/4. At rel (rank 6) 5 pooled above, 2
    # sampled, 1 relevant: PC = 1/6 + 5/6 * 1/2, variance (5/6)^2 * q (1 - q) / 2 * (5-2)/(5-1)
    # with q = (1 + 1) / (2 + 2). The two share documents: covariance (2/6) var PC_2, twice.
    grades = {"p1": -1, "p2": 1, "p3": -1, "p4": 0, "p5": -1, "rel": 1}
    run = {"t": {d: float(10 - i) for i, d in enumerate(grades)}}
    j = judge(read_run(run), read_qrels({"t": grades}))
    pcs = [3 / 4, 1 / 6 + 5 / 12]
    var2, var6 = 0.25 ** 2, (5 / 6) ** 2 * 0.25 / 2 * 3 / 4
    mean = sum(pcs) / 2
    first = (1 - 3 / 6) * sum((x - mean) ** 2 for x in pcs) / (2 - 1) / 2
    second = (var2 + var6 + 2 * (2 / 6) * var2) / 2 ** 2
    assert infap_variance(j)[0] == pytest.approx(first + second, abs=1e-6)


def test_xinfap_variance_by_hand():
    # stratum 1 = {a: 1, b: 0} complete; stratum 2 = {c: 1, d: unsampled, e: 0}; run d c a.
    # R = 1 + 3/2 * 1 = 2.5; PC(c, rank 2) = 1/2 + 1/2 * 1/3 = 2/3; PC(a, rank 3) = 1/3 + 2/3
    # = 1; xinfAP = (1 + 1.5 * 2/3) / 2.5 = 0.8. Component 1: stratum 1 is complete (0);
    # stratum 2: e = (2/3 - 0.8, 0), s^2 = (e1^2 - e1^2 / 2) / 1, 3^2 (1 - 2/3) s^2 / 2 / 2.5^2.
    # Component 2: var PC(c) = (1/2)^2 / 4 (nothing sampled above); var PC(a) = (2/3)^2 * q (1 - q)
    # with q = (1 + 1) / (1 + 2); weights 1.5 and 1, covariance 2 * 1.5 * 1 * (2/3) var PC(c).
    q = read_sampled_qrels({"t": {"a": ("1", 1), "b": ("1", 0), "c": ("2", 1), "d": ("2", -1),
                                  "e": ("2", 0)}})
    j = judge_sampled(read_run({"t": {"d": 3.0, "c": 2.0, "a": 1.0}}), q)
    e1 = 2 / 3 - 0.8
    first = 9 * (1 / 3) * (e1 ** 2 / 2) / 2 / 2.5 ** 2
    var_c, var_a = 0.25 * 0.25, (2 / 3) ** 2 * (2 / 3) * (1 / 3)
    second = (1.5 ** 2 * var_c + var_a + 2 * 1.5 * 1 * (2 / 3) * var_c) / 2.5 ** 2
    assert xinfap_variance(j)[0] == pytest.approx(first + second, abs=1e-6)


def test_infndcg_variance_by_hand():
    # one stratum {a: 1, b: 0, c, d unsampled}; run a c, infNDCG@2. DCG = 2/1 * 1 = 2 with
    # variance 2^2 (1 - 1/2) S^2 / 1, S^2 over ranks 1, 2 with gain shares (1/3, 2/3) for
    # grades (0, 1). IDCG = 1 + 1/log2(3) (R(1) = 2) with slope (IDCG(3) - IDCG(1)) / 2 for
    # grade 1 (within the top 2: IDCG(3) = IDCG(2)), multinomial shares (1/2, 1/2), scale
    # 4^2 (4 - 2)/(4 - 1) / 2.
    q = read_qrels({"t": {"a": 1, "b": 0, "c": -1, "d": -1}})
    j = judge(read_run({"t": {"a": 2.0, "c": 1.0}}), q)
    disc = np.array([1.0, 1 / math.log2(3)])
    mean_gain, var_gain = 2 / 3, 2 / 3 - 4 / 9
    spread = (var_gain + mean_gain ** 2) * (disc ** 2).mean() - (mean_gain * disc.mean()) ** 2
    ideal = 1 + disc[1]
    slope = (ideal - 1) / 2
    var_ideal = 16 * (2 / 3) / 2 * (slope ** 2 * 0.5 - (slope * 0.5) ** 2)
    value = 2 / ideal
    want = 4 * 0.5 * spread / ideal ** 2 + value ** 2 * var_ideal / ideal ** 2
    assert parse_measure("infNDCG@2").compute(j)[0] == pytest.approx(value, abs=1e-12)
    assert infndcg_variance(j, 2)[0] == pytest.approx(want, abs=1e-9)


# ----------------------------------------------------------------------------- complete / trec_eval


def test_complete_judgments_give_ap_ndcg_and_zero_width_intervals():
    q = read_sampled_qrels(str(need(TREC_EVAL / "qrels.test")))
    run = read_run(str(TREC_EVAL / "results.test"), qrels=q)
    j = judge_sampled(run, q)
    for inferred, plain, tol in [("xinfAP", "AP", 1e-4), ("infNDCG", "nDCG", 1e-12),
                                 ("infNDCG@10", "nDCG@10", 1e-12), ("iP@10", "P@10", 1e-4),
                                 ("iNumRel", "NumRel", 1e-12), ("iNumRelRet", "NumRelRet", 1e-3),
                                 ("infAP", "AP", 1e-4)]:
        np.testing.assert_allclose(parse_measure(inferred).compute(j),
                                   parse_measure(plain).compute(j), atol=tol, err_msg=inferred)
    ms = parse_measures(["infAP", "xinfAP", "infNDCG@10", "iP@10", "iNumRel", "iIPrec"])
    for method in ("auto", "bootstrap"):
        [inf] = infer_runs([run], q, ms, b=50, method=method)
        np.testing.assert_allclose(inf.variance, 0.0, atol=1e-20)  # zero up to float rounding


def test_infap_is_trec_eval_infap_on_rel_level():
    q = read_sampled_qrels(str(need(TREC_EVAL / "qrels.rel_level")))
    run = read_run(str(TREC_EVAL / "results.test"), qrels=q)
    pol = Policies(rel_level=2)
    printed = {f[1]: float(f[2]) for f in (line.split() for line in
                                           (TREC_EVAL / "out.test.aql").read_text().splitlines())
               if f[0] == "infAP"}
    j = judge_sampled(run, q, pol)
    plain = judge(run, read_qrels(str(TREC_EVAL / "qrels.rel_level")), pol)
    for name in ("infAP", "xinfAP(smoothing='paper')"):
        values = dict(zip(j.topics, parse_measure(name).compute(j), strict=True))
        assert {t: round(v, 4) for t, v in values.items()} == \
            {t: v for t, v in printed.items() if t != "all"}, name
        np.testing.assert_allclose(list(values.values()),
                                   parse_measure("infAP").compute(plain), atol=1e-12)


# ----------------------------------------------------------------------------- real TREC data


def test_estimated_relevant_equals_official_sample_eval_pm2017():
    # NIST's sample_eval output for the team's runs: inum_rel per topic depends on qrels only
    q = read_sampled_qrels(str(need(PM_QRELS)))
    run = read_run({t: {"x": 1.0} for t in q.topics})
    got = dict(zip(q.topics, parse_measure("iNumRel").compute(judge_sampled(run, q)), strict=True))
    for path in sorted((PM / "docs/final-results").glob("*.sampleval")):
        fields = (line.split() for line in path.read_text().splitlines())
        official = {f[1]: float(f[2]) for f in fields if f[0] == "inum_rel"}
        assert official.pop("all") == pytest.approx(7098.6298, abs=1e-4)
        assert {t: round(got[t], 4) for t in official} == official, path.name
    treceval = read_qrels(str(PM / "src/main/resources/gold-standard/"
                              "qrels-treceval-abstracts.2017.txt")).to_dict()
    sampled = {t: {d: g for d, g in docs.items() if g >= 0} for t, docs in q.to_dict().items()}
    assert sampled == treceval  # the trec_eval qrels are exactly the sampled documents


def hash_run(q: SampledQrels) -> dict:
    """About a third of each topic's universe plus 40 documents outside it, scored from hashes
    of the names (no random generator), relevant documents higher; one-decimal scores tie."""
    docs = q.docs.to_pylist()
    run: dict[str, dict[str, float]] = {}
    for t, topic in enumerate(q.topics):
        a, e = q.topic_offsets[t], q.topic_offsets[t + 1]
        names = [docs[k % len(docs)] for k in q.keys[a:e].tolist()] + \
            [f"outside-{i}" for i in range(40)]
        grades = q.key_grades[a:e].tolist() + [0] * 40
        for d, g in zip(names, grades, strict=True):
            h = int.from_bytes(hashlib.blake2b(f"{topic} {d}".encode(), digest_size=4).digest(),
                               "little")
            if h % 3 == 0 or d.startswith("outside"):
                run.setdefault(topic, {})[d] = float(f"{(h % 200) / 10 + 3 * max(g, 0):.1f}")
    return run


# printed by TREC's sample_eval.pl (NIST's version with the 2010-2012 changes; iP cut-offs
# 5..1000) for hash_run on the PM 2017 qrels
SAMPLE_EVAL_ALL = {
    "xinfAP(cap=1000)": 0.1395, "infNDCG@1000": 0.3935, "iP@5": 0.8644, "iP@10": 0.7325,
    "iP@15": 0.6536, "iP@20": 0.5737, "iP@30": 0.4767, "iP@50": 0.3557, "iP@100": 0.2555,
    "iP@1000": 0.0786, "iNumRelRet": 2358.2869, "iNumRel": 7098.6298,
    **{f"iIPrec(recall={x / 10})": v for x, v in enumerate(
        [0.9778, 0.4347, 0.2115, 0.1439, 0.0105, 0, 0, 0, 0, 0, 0])}}
SAMPLE_EVAL_TOPICS = {
    "xinfAP(cap=1000)": "0.1977 0.2127 0.1637 0.1506 0.0896 0.1128 0.2089 0.1763 0.2169 0.1186 "
    "0.1445 0.1572 0.2102 0.0365 0.0026 0.1734 0.1525 0.1871 0.1916 0.0226 0.1698 0.1437 "
    "0.2086 0.1121 0.1479 0.0568 0.1703 0.0769 0.0770 0.0971",
    "infNDCG@1000": "0.5685 0.4219 0.3825 0.4509 0.3940 0.4177 0.4785 0.4308 0.4258 0.3994 "
    "0.3844 0.3683 0.6296 0.2270 0.0670 0.4541 0.3953 0.4549 0.4280 0.1964 0.3771 0.4176 0.4579 "
    "0.3759 0.3633 0.2666 0.5231 0.4042 0.2979 0.3460",
    "iP@10": "0.75 1 0.9 1 0.6 0.675 1 1 1 0.7333 0.8 1 0.55 0.1 0 1 1 1 0.7667 0.1 1 1 1 0.7 "
    "0.9 0.1 0.9 0.4 0.3 0.7"}


def test_reproduces_sample_eval_on_pm2017_qrels():
    q = read_sampled_qrels(str(need(PM_QRELS)))
    j = judge_sampled(read_run(hash_run(q), qrels=q), q, Policies(depth=1000))
    ms = parse_measures(list(SAMPLE_EVAL_ALL))
    values = np.stack([m.compute(j) for m in ms], axis=-1)
    order = sorted(range(len(q.topics)), key=lambda i: int(q.topics[i]))
    for c, (name, m) in enumerate(zip(SAMPLE_EVAL_ALL, ms, strict=True)):
        total = values[:, c].sum() if m.spec.aggregate == "sum" else values[:, c].mean()
        assert round(total, 4) == pytest.approx(SAMPLE_EVAL_ALL[name], abs=1e-9), name
        if name in SAMPLE_EVAL_TOPICS:
            want = [float(v) for v in SAMPLE_EVAL_TOPICS[name].split()]
            assert [round(values[i, c], 4) for i in order] == want, name


# ----------------------------------------------------------------------------- bootstrap


def test_rao_wu_weights_keep_stratum_totals_and_spare_complete_strata(toy):
    q, _ = toy
    pos, w, counts = Replicates(q, b=500, seed=3).topic(0)
    assert pos.tolist() == [0, 1, 2, 3, -1, 4, -1]  # a1 a2 a3 b1 (b2) b3 (b4)
    np.testing.assert_allclose(w[:, :3], 1.0)  # stratum 1 is complete: no variance from it
    np.testing.assert_allclose(w[:, 3:].sum(axis=1), 2.0, rtol=1e-6)
    assert counts.sum(axis=2).mean(axis=0) == pytest.approx([3, 2], abs=1e-5)
    again = Replicates(q, b=500, seed=3).topic(0)[1]
    assert np.array_equal(w, again)
    assert not np.array_equal(w, Replicates(q, b=500, seed=4).topic(0)[1])


def test_bootstrap_variance_of_a_linear_estimator_is_the_stratified_formula():
    # iNumRel = sum_s N_s r_s / n_s is linear in the sample: its Rao-Wu variance is, in
    # expectation, sum_s N_s^2 (1 - n_s/N_s) s_s^2 / n_s with s_s^2 the sample variance
    grades = {f"a{i}": ("1", int(i < 6)) for i in range(20)}  # complete stratum
    grades.update({f"b{i}": ("2", (1 if i < 4 else 0) if i < 15 else -1) for i in range(60)})
    q = read_sampled_qrels({"t": grades})
    j = judge_sampled(read_run({"t": {"a0": 1.0}}), q)
    boot = bootstrap_values(j, Replicates(q, b=4000, seed=1), parse_measures(["iNumRel"]))
    n, big, p = 15, 60, 4 / 15
    textbook = big ** 2 * (1 - n / big) * (p * (1 - p) * n / (n - 1)) / n
    assert boot.var(axis=0, ddof=1)[0, 0] == pytest.approx(textbook, rel=0.08)
    assert boot.mean() == pytest.approx(6 + 60 * 4 / 15, rel=0.02)


def test_results_depend_only_on_seed_and_inputs(toy):
    q, _ = toy
    ms = parse_measures(["xinfAP", "infNDCG"])
    one, two = (next(iter(infer_runs([read_run(TOY_RUN)], q, ms, b=300, seed=5,
                                     method="bootstrap"))) for _ in range(2))
    assert np.array_equal(one.variance, two.variance) and np.all(one.variance > 0)
    # a topic's replicates do not depend on the other topics present
    more = dict(TOY_RUN, u={"a1": 1.0})
    q2 = read_sampled_qrels({"t": {d: (s, int(g)) for d, s, g in (line.split()[2:] for line in
                                                                  TOY.splitlines()[1:] if line)},
                             "u": {"a1": ("1", 1)}})
    three = next(iter(infer_runs([read_run(more)], q2, ms, b=300, seed=5, method="bootstrap")))
    assert np.array_equal(three.variance[three.topics.index("t")], one.variance[0])


def test_intervals_cover_the_truth_on_subsampled_covid_judgments():
    # Round-1 judgments are the truth; a uniform 30% sample per topic gives infAP, a stratified
    # sample (the runs' top 10 complete, 20% of the rest) xinfAP and infNDCG@10. 95% intervals
    # of each run's mean over topics should cover the true MAP / mean nDCG@10 about 95% of the
    # time (10 samples x 3 runs here; docs/sampled-judgments.md has the full study).
    full = read_qrels(str(need(COVID1 / "qrels" / "qrels-rnd1.txt")))
    names = ["run1.xz", "BBGhelani1.xz", "udel_fang_run1.xz"]
    pol = Policies(depth=100)
    runs = [read_run(str(need(COVID1 / "runs" / n)), qrels=full) for n in names]
    truth = {m: np.array([parse_measure(m).compute(judge(r, full, pol)).mean() for r in runs])
             for m in ("AP", "nDCG@10")}
    top = np.zeros(full.keys.size, bool)
    for r in runs:
        top |= _top_keys(r, full, 10)
    topic = np.repeat(np.arange(len(full.topics)), np.diff(full.topic_offsets))
    rng = np.random.default_rng(0)
    hits = {"infAP": 0, "xinfAP": 0, "infNDCG@10": 0}
    for _ in range(10):
        srs = _sample(rng.random(full.keys.size), topic, 0.3)
        rest = _sample(np.where(top, 2.0, rng.random(full.keys.size)), topic, 0.2, ~top) | top
        for sample, strata, measures in [(srs, None, ["infAP"]),
                                         (rest, (~top).astype(int), ["xinfAP", "infNDCG@10"])]:
            sq = SampledQrels.from_qrels(full, strata, None, sample)
            for k, inf in enumerate(infer_runs(runs, sq, parse_measures(measures), b=200,
                                               seed=1, policies=pol)):
                values, variance = inf.summary
                lo, hi = normal_interval(values, variance, 0.95)
                for c, m in enumerate(measures):
                    true = truth["AP" if "AP" in m else "nDCG@10"][k]
                    hits[m] += bool(lo[c] <= true <= hi[c])
    assert all(h >= 26 for h in hits.values()), hits  # of 30 (28, 29, 30 when written)


def _top_keys(run, qrels, k):
    j = judge_sampled(run, SampledQrels.from_qrels(qrels), Policies(depth=k))
    out = np.zeros(qrels.keys.size, bool)
    out[j.key_index[j.key_index >= 0]] = True
    return out


def _sample(u, topic, fraction, among=None):
    """Per topic, the round(fraction * size) keys of `among` with the smallest u."""
    among = np.ones(u.size, bool) if among is None else among
    order = np.lexsort((np.where(among, u, np.inf), topic))
    size = np.bincount(topic[among], minlength=topic.max() + 1)
    start = np.concatenate(([0], np.cumsum(np.bincount(topic))))[:-1]
    rank = np.empty(u.size, np.int64)
    rank[order] = np.arange(u.size) - start[topic[order]]
    return among & (rank < np.round(fraction * size)[topic])


# ----------------------------------------------------------------------------- API and CLI


def test_infer_frame_and_command(toy, tmp_path):
    path = tmp_path / "toy.qrels"
    path.write_text(TOY)
    run = tmp_path / "toy.run"
    run.write_text("".join(f"t Q0 {d} 0 {s} mine\n" for d, s in TOY_RUN["t"].items()))
    df = infer(str(run), str(path), ["xinfAP", "P@5"], b=100)
    assert df.columns.tolist() == ["run", "topic", "measure", "value", "lo", "hi"]
    assert df.value.round(4).tolist() == [0.6667, 0.4, 0.6667, 0.4]
    assert df.lo.isna().tolist() == [False, True, False, True]
    res = CliRunner().invoke(main, ["infer", str(path), str(run), "-m", "xinfAP", "-m",
                                    "infNDCG@3", "--ci", "0.9", "-b", "100", "-q", "-f", "jsonl"])
    assert res.exit_code == 0, res.output
    rows = [json.loads(line) for line in res.output.splitlines()]
    assert [(r["topic"], r["measure"]) for r in rows] == [
        ("t", "xinfAP"), ("t", "infNDCG@3"), ("all", "xinfAP"), ("all", "infNDCG@3")]
    assert all(r["lo"] <= r["value"] <= r["hi"] for r in rows)
    table = CliRunner().invoke(main, ["infer", str(path), str(run)]).output.splitlines()
    assert table[0].split() == ["run", "topic", "measure", "value"]
    assert [line.split()[2] for line in table[1:]] == [
        "infAP", "xinfAP", "infNDCG", "iP@10", "iNumRelRet", "iNumRel"]
    bad = CliRunner().invoke(main, ["infer", str(path), str(run), "--ci", "95"])
    assert bad.exit_code == 2 and "strictly between 0 and 1" in bad.output
