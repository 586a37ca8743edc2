"""The whole ir_measures grammar (issue 19, item 2).

1. Every name in ``ir_measures.measures.registry`` (ir_measures 0.4.3: 51 names) parses, as the
   registry's key, as ``str()`` of its measure, and with each documented parameter set.
2. Golden values: per measure, unjudged's per-topic values equal those of ir_measures' default
   pipeline (``ir_measures.iter_calc``; the provider it picks is named per group below) on
   TREC-COVID round 1 (qrels-rnd1 and three runs: BM25R2, BBGhelani1, CBOWexp.0, 30 topics
   each), to 1e-9 unless said otherwise; the run-level means agree with
   ``ir_measures.calc_aggregate``.
3. Hand-worked examples where no installed provider computes a measure (RBP@k, NumRel(rel=2)),
   and the documented differences (Compat with negative scores, Accuracy without a non-relevant
   document, IPrec's rounding in trec_eval 9 against trec_eval 10).
4. ``unjudged measures`` lists every ir_measures name as a name or an alias.
"""

from __future__ import annotations

import lzma
import math
import warnings

import pytest
from click.testing import CliRunner

import unjudged
from shared_data import COVID1, need
from unjudged.cli import main
from unjudged.errors import MeasureSpecError
from unjudged.measures import REGISTRY, parse_measure

im = pytest.importorskip("ir_measures")
RUNS = ("BM25R2", "BBGhelani1", "CBOWexp.0")

# (provider ir_measures' default pipeline uses, the unjudged tie policy that orders ties as that
# provider does, measures). pytrec_eval sorts as trec_eval does; cwl_eval and the accuracy
# provider sort by score, ties in file order (these runs are sorted by score in the file);
# compat sorts ties by docno ascending.
GROUPS = {
    "pytrec_eval": ("trec_eval", [
        "AP", "AP@100", "AP(rel=2)", "AP(judged_only=True)", "MAP", "P@5", "P(rel=2)@10",
        "P(judged_only=True)@10", "Precision@20", "R@100", "Recall@1000",
        "R(judged_only=True)@100", "RR", "RR(rel=2)", "RR(judged_only=True)", "MRR", "Rprec",
        "RPrec(rel=2)", "Rprec(judged_only=True)", "nDCG", "nDCG@10", "NDCG@20",
        "nDCG(gains={0:0,1:1,2:3})@10", "nDCG(judged_only=True)@10", "IPrec@0.5",
        "IPrec(recall=0.5,judged_only=True)", "SetP", "SetP(relative=True)", "SetRelP",
        "SetP(rel=2)", "SetP(judged_only=True)", "SetR", "SetF", "SetF(beta=0.5)", "SetAP",
        "SetAP(judged_only=True)", "Success@10", "Success(rel=2)@5",
        "Success(judged_only=True)@1", "NumQ", "NumRel", "NumRet", "NumRelRet", "NumRet(rel=2)",
        "Bpref", "BPref", "infAP"]),
    "judged": ("trec_eval", ["Judged@10", "Judged@100"]),
    "cwl_eval": ("file", [
        "BPM(max_rel=2)@10", "BPM(T=2.0,max_rel=2)@20", "SDCG(max_rel=2)@10",
        "SDCG(min_rel=1,max_rel=2)@20", "NERR8(max_rel=2)@10", "NERR9(max_rel=2)@10",
        "NERR10(max_rel=2)", "NERR10(p=0.8,max_rel=2)", "NERR11(max_rel=2)",
        "NERR11(T=2.0,max_rel=2)", "INST(max_rel=2)", "INST(T=2.0,max_rel=2)",
        "INSQ(max_rel=2)", "INSQ(T=2.0,max_rel=2)", "RBP(rel=1)", "RBP(rel=2,p=0.5)"]),
    "accuracy": ("file", ["Accuracy", "Accuracy(rel=2)@100"]),
    "compat": ("docno", ["Compat", "Compat(p=0.8)", "Compat(normalize=False)"]),
    # gdeval prints ERR with 5 decimals; pyndeval ranks ties by docno ascending (MAP-IA reads
    # the whole ranking, where such ties occur: under trec_eval's order it differs by 2.2e-5)
    "gdeval": ("trec_eval", ["ERR@10", "ERR@20"]),
    "pyndeval": ("docno", ["MAP_IA", "StRecall@20", "α_nDCG@20", "α_DCG@10", "nERR_IA@20",
                               "P_IA@10", "ERR_IA@20"]),
}
TOLERANCE = {"gdeval": 5e-6, "pyndeval": 1e-9}
# the accuracy provider reports no value for a topic without a relevant document in the top k
# (unjudged gives 0 there, checked below); every other measure has all 3 x 30 topics
COMPARED = {"Accuracy(rel=2)@100": 82}
CASES = [(group, name) for group, (_, names) in GROUPS.items() for name in names]


@pytest.fixture(scope="module")
def covid(tmp_path_factory):
    """qrels-rnd1 and the runs decompressed (ir_measures reads plain files)."""
    folder = need(COVID1)
    out = tmp_path_factory.mktemp("covid")
    paths = {}
    for run in RUNS:
        paths[run] = out / f"{run}.txt"
        paths[run].write_bytes(lzma.decompress((folder / "runs" / f"{run}.xz").read_bytes()))
    return folder / "qrels" / "qrels-rnd1.txt", paths


@pytest.fixture(scope="module")
def reference(covid):
    """ir_measures' per-topic values: {(name, run): {topic: value}}."""
    qrels_path, paths = covid
    qrels = list(im.read_trec_qrels(str(qrels_path)))
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _, name in CASES:
            measure = im.parse_measure(name)
            for run, path in paths.items():
                out[name, run] = {m.query_id: m.value for m in
                                  im.iter_calc([measure], qrels, im.read_trec_run(str(path)))}
    return out


@pytest.fixture(scope="module")
def ours(covid):
    """unjudged's per-topic values, each group under the tie order of its provider."""
    qrels_path, paths = covid
    out = {}
    for ties, names in GROUPS.values():
        for run, path in paths.items():
            df = unjudged.evaluate(path, qrels_path, names, per_topic=True, ties=ties)
            for name in names:
                key = parse_measure(name).name
                rows = df[(df.measure == key) & (df.topic != "all")]
                out[name, run] = dict(zip(rows.topic.astype(str), rows.value, strict=True))
    return out


def _agree(a: float, b: float, tol: float) -> bool:
    return math.isclose(a, b, rel_tol=0.0, abs_tol=tol)


@pytest.mark.parametrize("group,name", CASES, ids=[c[1] for c in CASES])
def test_golden_per_topic(group, name, reference, ours):
    tol = TOLERANCE.get(group, 1e-9)
    agree = compared = 0
    for run in RUNS:
        ref, got = reference[name, run], ours[name, run]
        assert ref, f"ir_measures ({group}) gave no value for {name} on {run}"
        for topic, value in ref.items():
            compared += 1
            agree += _agree(got[topic], value, tol)
        assert all(got[t] == 0.0 for t in set(got) - set(ref))
    assert (agree, compared) == (compared, COMPARED.get(name, 90)), \
        f"{name}: {agree}/{compared} agree"


@pytest.mark.parametrize("name", ["AP", "nDCG@10", "SetF(beta=0.5)", "NumRet(rel=2)", "NumQ",
                                  "INST(max_rel=2)", "Compat", "Judged@10", "Success@10"])
def test_golden_aggregate(name, covid):
    qrels_path, paths = covid
    qrels = list(im.read_trec_qrels(str(qrels_path)))
    ties = next(t for t, names in GROUPS.values() if name in names)
    for path in paths.values():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            measure = im.parse_measure(name)
            ref = im.calc_aggregate([measure], qrels, im.read_trec_run(str(path)))[measure]
        got = unjudged.evaluate(path, qrels_path, [name], per_topic=False, ties=ties).value[0]
        assert got == pytest.approx(ref, abs=1e-9)


def test_iprec_differs_only_by_trec_eval_9_rounding(covid):
    """ir_measures' IPrec goes through pytrec_eval, i.e. trec_eval 9, whose recall cutoff is
    int(recall * R + 0.9); unjudged keeps trec_eval 10's lround (its byte-identical trec_eval
    mode needs it). Every topic whose two cutoffs coincide agrees; the others are counted."""
    qrels_path, paths = covid
    qrels = list(im.read_trec_qrels(str(qrels_path)))
    same = differ = 0
    for path in paths.values():
        nrel = unjudged.evaluate(path, qrels_path, ["NumRel"], per_topic=True)
        nrel = dict(zip(nrel.topic.astype(str), nrel.value, strict=True))
        for recall in (0.2, 0.8):
            name = f"IPrec(recall={recall})"
            got = unjudged.evaluate(path, qrels_path, [name], per_topic=True)
            got = dict(zip(got.topic.astype(str), got.value, strict=True))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ref = {m.query_id: m.value for m in im.iter_calc(
                    [im.parse_measure(name)], qrels, im.read_trec_run(str(path)))}
            for topic, value in ref.items():
                x = recall * nrel[topic]
                if int(x + 0.9) == max(math.floor(x + 0.5), 1):
                    same += 1
                    assert _agree(got[topic], value, 1e-9), (name, topic)
                else:
                    differ += 1
    assert (same, differ) == (108, 72)


def test_every_registry_name_parses():
    names = im.measures.registry
    assert len(names) == 51
    for key, measure in names.items():
        parse_measure(key)
        parse_measure(str(measure))
    assert parse_measure("MAP_IA").spec is REGISTRY["MAP-IA"]
    assert parse_measure("SetRelP").name == "RelP"
    assert parse_measure("SetP(relative=True)").name == "SetP(relative=True)"
    assert parse_measure("NumRet(rel=1)").name == "NumRet(rel=1)"


@pytest.mark.parametrize("text,name", [
    ("IPrec@0.5", "IPrec(recall=0.5)"),
    ("IPrec(judged_only=True)@0.2", "IPrec(recall=0.2,judged_only=True)"),
    ("nDCG(gains={0:0,1:1,2:3})@10", "nDCG(gains='0=0,1=1,2=3')@10"),
    ("nDCG(gains={2: 3.5})", "nDCG(gains='2=3.5')"),
    ("RBP(rel=2,p=0.5)@10", "RBP(p=0.5,rel=2)@10"),
    ("α_nDCG@20", "alpha-nDCG@20"),
    ("Success", "Success"),
    ("BPM(T=2.0,max_rel=2)@20", "BPM(T=2.0,max_rel=2)@20"),
    ("Compat(p=0.8,normalize=False)", "Compat(p=0.8,normalize=False)"),
    ("AP(judged_only=True)", "AP(judged_only=True)"),
])
def test_ir_measures_spellings(text, name):
    assert parse_measure(text).name == name
    assert parse_measure(parse_measure(text).name) == parse_measure(text)


@pytest.mark.parametrize("text,message", [
    ("P@0.5", "whole number"),
    ("Bpref(judged_only=True)", "no parameter 'judged_only'"),
    ("SDCG(dcg='exp-log2')@10", "must be one of"),
    ("nDCG(gains={'a': 1})", "gains must be"),
])
def test_bad_spellings(text, message):
    with pytest.raises(MeasureSpecError, match=message):
        parse_measure(text)


def test_measures_command_lists_every_name():
    out = CliRunner().invoke(main, ["measures"], env={"COLUMNS": "200"}).output
    words = set(out.replace(",", " ").replace(".", " ").split())
    missing = [n for n in im.measures.registry
               if n not in words and not any(w.startswith(n + "(") or w.startswith(n + "[")
                                             for w in words)]
    assert missing == []


# Hand-worked examples: one topic, qrels {a: 2, b: 1, c: 0}, run a x b c y (x, y unjudged).
QRELS = {"t": {"a": 2, "b": 1, "c": 0}}
RUN = {"t": {"a": 5.0, "x": 4.0, "b": 3.0, "c": 2.0, "y": 1.0}}


def _one(name: str, **kw) -> float:
    df = unjudged.evaluate(RUN, QRELS, [name], per_topic=False, **kw)
    return float(df.value[0])


def test_rbp_cutoff_by_hand():
    # graded gains g/2: 1 at rank 1, 0.5 at rank 3; p = 0.5: (1-p)(1 + 0.5 * 0.25) within @3
    assert _one("RBP(p=0.5)@3") == pytest.approx(0.5 * (1 + 0.5 * 0.25))
    assert _one("RBP(p=0.5)@2") == pytest.approx(0.5)
    assert _one("RBP(p=0.5,rel=1)@3") == pytest.approx(0.5 * (1 + 0.25))


def test_counts_by_hand():
    assert _one("NumRel(rel=2)") == 1 and _one("NumRel") == 2
    assert _one("NumRet(rel=1)") == 2 and _one("NumRet") == 5 and _one("NumQ") == 1


def test_judged_only_by_hand():
    # the ranking becomes a b c: P@2 = 2/2 (1/2 over a x), R@2 = 2/2, RR = 1, SetP = 2/3
    assert _one("P(judged_only=True)@2") == 1.0 and _one("P@2") == 0.5
    assert _one("SetP(judged_only=True)") == pytest.approx(2 / 3)
    assert _one("nDCG(judged_only=True)@2") == pytest.approx(1.0)


def test_setf_is_trec_evals():
    # P = 2/5, R = 1; trec_eval's set_F with x = 0.5: 1.5 P R / (0.5 P + R)
    p, r = 0.4, 1.0
    assert _one("SetF(beta=0.5)") == pytest.approx(1.5 * p * r / (0.5 * p + r))


def test_accuracy_by_hand():
    # non-relevant (incl. unjudged) above each relevant: a 0, b 1 (x); pairs 2 x 3
    assert _one("Accuracy") == pytest.approx(1 - 1 / 6)
    # ir_measures divides by zero when no non-relevant document is in the top k; here 1
    assert _one("Accuracy@1") == 1.0
    assert unjudged.evaluate({"t": {"c": 1.0}}, QRELS, ["Accuracy"]).value[0] == 0.0


def test_compat_with_negative_scores():
    """Ideal: a (grade 2) then b; ir_measures ranks unretrieved relevant documents as if scored
    0.0, so with negative run scores they would go before retrieved ones; here retrieved
    relevant documents keep the run's order in the ideal, whatever the scores' sign."""
    pos = _one("Compat(p=0.5)")
    neg = unjudged.evaluate({"t": {d: s - 10 for d, s in RUN["t"].items()}}, QRELS,
                            ["Compat(p=0.5)"]).value[0]
    assert pos == pytest.approx(neg)
    # overlap |run_d ∩ ideal_d| at d = 1..5: 1, 1, 2, 2, 2; D = 5
    w = [0.5 ** i for i in range(5)]
    score = sum(wi * o / (i + 1) for i, (wi, o) in enumerate(zip(w, [1, 1, 2, 2, 2],
                                                                   strict=True)))
    best = sum(wi * min(i + 1, 2) / (i + 1) for i, wi in enumerate(w))
    assert pos == pytest.approx(score / best)


def test_cwl_by_hand():
    # gains (max_rel=2): 1, 0, 0.5, 0, 0; SDCG@2 = (1/log2 2) / (1/log2 2 + 1/log2 3)
    import math as m
    assert _one("SDCG(max_rel=2)@2") == pytest.approx(1 / (1 + 1 / m.log2(3)))
    # NERR8@3: C = 1 - g: W ∝ 1, 0, 0 (the user stops at a): EU = 1
    assert _one("NERR8(max_rel=2)@3") == pytest.approx(1.0)
    # BPM(T=2)@3: continue while gain so far < 2 and rank < 3: W ∝ 1, 1, 1 -> (1 + 0.5) / 3
    assert _one("BPM(T=2.0,max_rel=2)@3") == pytest.approx(1.5 / 3)
