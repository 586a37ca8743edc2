"""ir_measures' parameters of the diversity measures (issue 19, item 2): `rel=` and `judged_only=`.

ir_measures 0.4.3 documents `rel` on AP_IA/MAP_IA, ERR_IA, nERR_IA, P_IA, StRecall, alpha_(n)DCG
(and their Greek spellings), NRBP and nNRBP, and `judged_only` on the first six (21 spellings).
Golden values: ir_measures 0.4.3's default pipeline (provider pyndeval 0.0.8, i.e. ndeval 4.5)
on the TREC Web 2013 and 2014 diversity qrels (graded 0-4) and the Web 2009 ones (binary), one
random run per file: 40 judged documents per topic (fewer when the topic has fewer) and 10
unjudged ones, distinct scores (pyndeval breaks ties by docno ascending: see the last test).

ir_measures 0.4.3's pyndeval provider cannot compute judged_only=True: PyNdEvalInvoker.iter_calc
indexes the run, a generator there, as a dict (TypeError: 'generator' object is not
subscriptable). The reference for those is what that code means to do: the same measure without
judged_only through ir_measures, on the run filtered to the qrels' (query, document) pairs.
"""

from __future__ import annotations

import lzma
import math
import re
import warnings

import numpy as np
import pytest

import unjudged
from shared_data import COVID1, DATA, need
from unjudged.errors import MeasureSpecError
from unjudged.io.diversity import read_diversity_qrels
from unjudged.measures import parse_measure

im = pytest.importorskip("ir_measures")
pytest.importorskip("pyndeval")

DIVERSITY = ("AP_IA", "MAP_IA", "ERR_IA", "nERR_IA", "P_IA", "StRecall", "alpha_DCG",
             "alpha_nDCG", "α_DCG", "α_nDCG", "NRBP", "nNRBP")
FILES = ("anserini-tools/qrels/qrels.web.201-250.ndeval.txt",
         "anserini-tools/qrels/qrels.web.251-300.ndeval.txt",
         "ssanner-diversify/files/trec/qrels.diversity")


def _spellings() -> list[str]:
    """Each diversity measure's documented rel/judged_only, spelt as ir_measures does."""
    out = []
    for name in DIVERSITY:
        params = im.measures.registry[name].SUPPORTED_PARAMS
        cut = "@10" if "cutoff" in params else ""
        out += [f"{name}(rel=2){cut}"] if "rel" in params else []
        out += [f"{name}(judged_only=True){cut}"] if "judged_only" in params else []
    return out


SPELLINGS = _spellings()
# beyond the 21: other levels, other cutoffs, both parameters, other alpha/beta with rel
MORE = ["AP_IA(rel=3)", "ERR_IA(rel=3)@20", "nERR_IA(rel=3)@20", "alpha_nDCG(rel=3)@20",
        "α_DCG(rel=2,alpha=0.3)@5", "P_IA(rel=3)@20", "StRecall(rel=3)@20",
        "NRBP(rel=2,alpha=0.3,beta=0.8)", "nNRBP(rel=3)", "AP_IA(rel=2,judged_only=True)",
        "nERR_IA(rel=2,judged_only=True)@20", "alpha_nDCG(rel=3,judged_only=True)@20",
        "P_IA(rel=2,judged_only=True)@5", "ERR_IA(judged_only=True)@20"]
# topics where ndeval's nNRBP is NaN: ndeval's renormalize divides nrbp by the ideal's
# without a check (ndcg and nerr are guarded by `if (rl->dcg[i])`), so a topic with no
# subtopic left at that rel gives 0/0; unjudged gives 0 there, as for its other normalised
# measures. Web 2013: 3 topics at rel=2 and 16 at rel=3, Web 2014: 0 and 14, Web 2009
# (binary): all 50 at both.
NAN = {"nNRBP(rel=2)": 3 + 0 + 50, "nNRBP(rel=3)": 16 + 14 + 50}


def test_the_21_documented_spellings_parse():
    assert len(SPELLINGS) == 21
    for text in SPELLINGS:
        m = parse_measure(text)
        assert ("rel", 2) in m.params or ("judged_only", True) in m.params, text
    assert parse_measure("α_nDCG(rel=2,judged_only=True)@20").name == \
        "alpha-nDCG(rel=2,judged_only=True)@20"
    assert parse_measure("StRecall(rel=1)@20").name == "S-recall@20"  # rel=1 is the default


@pytest.fixture(scope="module")
def files():
    """{file: (ir_measures qrels, unjudged qrels, run, qrels (topic, doc) pairs)}."""
    out = {}
    for name in FILES:
        path = need(DATA / name)
        lines = [line.split() for line in path.read_text().splitlines() if line.strip()]
        docs: dict[str, set[str]] = {}
        for t, _, d, _ in lines:
            docs.setdefault(t, set()).add(d)
        rng = np.random.default_rng(11)
        run = {}
        for t, ds in docs.items():
            ds_ = sorted(ds)
            pick = [ds_[i] for i in rng.choice(len(ds_), size=min(40, len(ds_)), replace=False)]
            pick += [f"unjudged-{i}" for i in range(10)]
            run[t] = dict(zip(pick, rng.permutation(1000)[:len(pick)].astype(float),
                              strict=True))
        pairs = {(t, d) for t, _, d, _ in lines}
        out[name] = (list(im.read_trec_qrels(str(path))), read_diversity_qrels(path), run, pairs)
    return out


def _reference(name: str, qrels, run, pairs) -> dict[str, float]:
    measure = im.parse_measure(name)
    if measure.params.get("judged_only"):
        measure = im.parse_measure(re.sub(r",judged_only=True|judged_only=True,?", "", name)
                                   .replace("()", ""))
        run = {t: {d: s for d, s in docs.items() if (t, d) in pairs} for t, docs in run.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {m.query_id: m.value for m in im.iter_calc([measure], qrels, run)}


@pytest.mark.parametrize("name", SPELLINGS + MORE)
def test_agrees_with_ir_measures_pyndeval(name, files):
    agree = compared = nonzero = nan = 0
    for qrels, q, run, pairs in files.values():
        ref = _reference(name, qrels, run, pairs)
        df = unjudged.evaluate(run, q, [name], per_topic=True, summary=False)
        got = dict(zip(df.topic.astype(str), df.value, strict=True))
        for topic, value in ref.items():
            if math.isnan(value):  # ndeval's 0/0, see below: unjudged gives 0
                assert got[topic] == 0.0
                nan += 1
                continue
            compared += 1
            nonzero += value != 0
            agree += math.isclose(got[topic], value, rel_tol=0.0, abs_tol=1e-12)
    assert (agree, compared, nan) == (150 - NAN.get(name, 0), 150 - NAN.get(name, 0),
                                      NAN.get(name, 0)), f"{name}: {agree}/{compared} agree"
    assert nonzero >= 20, f"{name}: only {nonzero} nonzero reference values"


def test_judged_only_is_ir_measures_broken_path():
    """The reason the judged_only reference is computed on a filtered run (module docstring);
    if a later ir_measures fixes its provider, compare with it directly."""
    qrels = [im.Qrel("t", "a", 1, "1")]
    with warnings.catch_warnings(), pytest.raises(TypeError, match="not subscriptable"):
        warnings.simplefilter("ignore")
        list(im.iter_calc([im.parse_measure("P_IA(judged_only=True)@5")], qrels,
                          {"t": {"a": 1.0, "x": 2.0}}))


# one topic, subtopics 1-3: a is grade 1 for 1 and 2 for 2, b grade 3 for 2, c grade 1 for 3
QRELS = [("t", "1", "a", 1), ("t", "2", "a", 2), ("t", "2", "b", 3), ("t", "3", "c", 1),
         ("t", "3", "d", 0)]
RUN = {"t": {"x": 5.0, "c": 4.0, "b": 3.0, "d": 2.0, "a": 1.0}}


def _one(name: str, qrels=QRELS) -> float:
    df = unjudged.evaluate(RUN, read_diversity_qrels(qrels), [name], per_topic=True,
                           summary=False)
    return float(df.value[0])


def test_rel_by_hand():
    # rel=2: only subtopic 2 remains (a and b relevant); ranking x c b d a: P-IA@5 = 2/5,
    # S-recall@2 = 0 (x, c), @3 = 1; MAP-IA = AP of subtopic 2 = (1/3 + 2/5) / 2
    assert _one("P-IA(rel=2)@5") == pytest.approx(2 / 5)
    assert _one("S-recall(rel=2)@2") == 0.0 and _one("S-recall(rel=2)@3") == 1.0
    assert _one("MAP-IA(rel=2)") == pytest.approx((1 / 3 + 2 / 5) / 2)
    # rel=3: only b for subtopic 2; rel=1 is the default reading (3 subtopics)
    assert _one("MAP-IA(rel=3)") == pytest.approx(1 / 3)
    assert _one("S-recall(rel=1)@5") == _one("S-recall@5") == 1.0
    # alpha-nDCG(rel=2)@5: gains at 3 (b) 1, at 5 (a) 1/2; ideal b a: 1 + 1/2 / log2 3
    dcg = 1 / math.log2(4) + 0.5 / math.log2(6)
    assert _one("alpha-nDCG(rel=2)@5") == pytest.approx(dcg / (1 + 0.5 / math.log2(3)))
    # nothing reaches rel=4: every measure is 0
    assert _one("nERR-IA(rel=4)@5") == 0.0 and _one("NRBP(rel=4)") == 0.0


def test_rel_on_binary_qrels_leaves_nothing_relevant():
    binary = [(t, s, d, min(g, 1)) for t, s, d, g in QRELS]
    assert _one("alpha-DCG(rel=2)@5", binary) == 0.0
    assert _one("alpha-DCG@5", binary) > 0.0


def test_judged_only_keeps_masks_in_step():
    # x is not in the qrels: the ranking becomes c b d a; d (grade 0) stays, as in trec_eval -J
    # P-IA@2 = (c for 3 + b for 2) / 3 subtopics / 2
    assert _one("P-IA(judged_only=True)@2") == pytest.approx(2 / 3 / 2)
    assert _one("P-IA@2") == pytest.approx(1 / 3 / 2)
    # with rel=2: c b d a -> b, a relevant to 2 at ranks 2 and 4
    assert _one("MAP-IA(rel=2,judged_only=True)") == pytest.approx((1 / 2 + 2 / 4) / 2)


@pytest.mark.parametrize("text,message", [
    ("ERR-IA(rel=0)@5", "rel=0"),
    ("nERR-IA(form='paper',rel=2)@5", "has no rel"),
    ("NRBP(judged_only=True)", "no parameter 'judged_only'"),
    ("StRecall(judged_only=True)@5", "no parameter 'judged_only'"),
])
def test_refused(text, message):
    with pytest.raises(MeasureSpecError, match=message):
        _one(text)


def test_map_ia_difference_is_pyndevals_tie_order():
    """ir_measures' pyndeval provider hands pyndeval the run, and pyndeval ranks it by score
    descending, ties by docno ascending (pyndeval 0.0.8, _coerce_run_iter); trec_eval (and
    unjudged's default ties policy) breaks ties by docno descending. MAP-IA reads the whole
    ranking, so a tie anywhere in it counts: on TREC-COVID round 1 the run CBOWexp.0 has ties
    and its MAP-IA differs by up to 2.2e-5 under the trec_eval order, and not at all under
    ties='docno' (90 of 90 topics equal to 1e-15; ndeval's arithmetic, computeMAP, is the
    same as measures/diversity.py's)."""
    folder = need(COVID1)
    qrels_path = folder / "qrels" / "qrels-rnd1.txt"
    qrels = list(im.read_trec_qrels(str(qrels_path)))
    exact = compared = 0
    worst_trec_eval = 0.0
    for run in ("BM25R2", "BBGhelani1", "CBOWexp.0"):
        text = lzma.decompress((folder / "runs" / f"{run}.xz").read_bytes()).decode()
        rows = [line.split() for line in text.splitlines() if line.strip()]
        ranking = {}
        for t, _, d, _, s, *_ in rows:
            ranking.setdefault(t, {})[d] = float(s)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = {m.query_id: m.value for m in
                   im.iter_calc([im.parse_measure("MAP_IA")], qrels, ranking)}
        for ties in ("docno", "trec_eval"):
            df = unjudged.evaluate(ranking, qrels_path, ["MAP_IA"], per_topic=True,
                                   summary=False, ties=ties)
            got = dict(zip(df.topic.astype(str), df.value, strict=True))
            for topic, value in ref.items():
                if ties == "docno":
                    compared += 1
                    exact += math.isclose(got[topic], value, rel_tol=0.0, abs_tol=1e-15)
                else:
                    worst_trec_eval = max(worst_trec_eval, abs(got[topic] - value))
    assert (exact, compared) == (90, 90)
    assert 2.1e-5 < worst_trec_eval < 2.2e-5
