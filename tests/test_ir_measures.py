"""The ir_measures provider (issue 19, item 1): `import unjudged.ir_measures` registers provider
"unjudged"; its values equal ir_measures' default pipeline (pytrec_eval, and ir_measures' own
providers for Judged and ERR) on real data, and the estimate measures (Upper, Bootstrap,
...) equal `unjudged.estimate`."""

from __future__ import annotations

import lzma
import math
from pathlib import Path

import pandas as pd
import pytest

ir_measures = pytest.importorskip("ir_measures")

from tests.shared_data import COVID1, TREC_EVAL, need  # noqa: E402

import unjudged  # noqa: E402
import unjudged.ir_measures as uim  # noqa: E402
from unjudged.errors import IncompatibleInputsError  # noqa: E402

M = ir_measures
# measures both compute, in ir_measures' grammar
MEASURES = [M.P @ 5, M.P @ 10, M.P(rel=2) @ 10, M.AP, M.AP @ 100, M.nDCG, M.nDCG @ 10,
            M.nDCG @ 20, M.RR, M.RR(rel=2), M.R @ 100, M.R @ 1000, M.Rprec, M.Bpref, M.NumRet,
            M.NumRelRet, M.NumQ, M.NumRel, M.SetP, M.SetR, M.SetF, M.SetAP, M.Success @ 10,
            M.infAP, M.Judged @ 10, M.Judged @ 100, M.ERR @ 10,
            M.nDCG(judged_only=True) @ 10, M.P(judged_only=True) @ 10, M.IPrec @ 0.2,
            M.nDCG(gains={0: 0, 1: 1, 2: 3}) @ 10, M.nDCG(gains={0: 0, 1: 1, 2: 3}),
            M.SetF(beta=0.5), M.SetP(relative=True), M.Success(rel=2) @ 5, M.AP(rel=2) @ 100]
# ir_measures' ERR provider (gdeval) prints 5 decimals
TOLERANCE = {"ERR@10": 5e-6}
# pytrec_eval bundles trec_eval 9, which turns IPrec's recall level into a number of relevant
# documents with (long)(x + 0.9); trec_eval 10 (usnistgov/trec_eval m_iprec_at_recall.c),
# hence unjudged, rounds (lround). They differ where x has a fraction below .5 (14.4 -> 15 vs
# 14); they agree on trec_eval's own suite, checked below.
VERSION_DIFFERS = {"IPrec@0.2"}


# ir_measures' default pipeline as it is without unjudged (which it now ends with)
REFERENCE = M.providers.FallbackProvider(
    [p for p in M.DefaultPipeline.providers if p is not uim.provider])


def _compare(qrels, runs, measures):
    """{measure: [per-query agreeing, compared, aggregates agreeing, compared]}."""
    counts: dict[str, list[int]] = {}
    # one reference evaluator per measure: ir_measures 0.4.3's pytrec_eval provider, given nDCG
    # with and without gains= in one evaluator, returns 0.0 for some of them depending on the
    # process's hash seed (PYTHONHASHSEED=1 and 2 show it on trec_eval's results.test)
    ref_evals = [REFERENCE.evaluator([m], qrels) for m in measures]
    ours = uim.provider.evaluator(measures, qrels)
    for run in runs:
        ref, ref_agg = {}, {}
        for ev in ref_evals:
            ref.update({(str(x.measure), x.query_id): x.value for x in ev.iter_calc(run)})
            ref_agg.update(ev.calc_aggregate(run))
        got = {(str(x.measure), x.query_id): x.value for x in ours.iter_calc(run)}
        got_agg = ours.calc_aggregate(run)
        assert set(ref) == set(got)
        for m in measures:
            tol = TOLERANCE.get(str(m), 1e-9)
            c = counts.setdefault(str(m), [0, 0, 0, 0])
            keys = [k for k in ref if k[0] == str(m)]
            c[0] += sum(math.isclose(ref[k], got[k], abs_tol=tol) for k in keys)
            c[1] += len(keys)
            c[2] += math.isclose(ref_agg[m], got_agg[m], abs_tol=tol)
            c[3] += 1
    return counts


def _covid():
    qrels = list(M.read_trec_qrels(str(need(COVID1 / "qrels" / "qrels-rnd1.txt"))))
    names = ["BBGhelani1", "BM25R2", "CSIROmedNIR"]
    runs = []
    for n in names:
        with lzma.open(COVID1 / "runs" / f"{n}.xz", "rt") as fh:
            runs.append(list(M.read_trec_run(fh)))
    return qrels, runs


def test_the_reference_is_not_unjudged():
    for m in MEASURES:
        assert any(p.supports(m) and p.is_available() for p in REFERENCE.providers), m
    assert not any(p.supports(M.RBP) and p.is_available() for p in REFERENCE.providers)


def test_registered_and_in_the_default_pipeline():
    assert M.providers.registry["unjudged"] is uim.provider
    assert isinstance(uim.provider, M.providers.Provider)
    assert uim.provider in M.DefaultPipeline.providers
    assert M.DefaultPipeline.providers[-1] is uim.provider  # after ir_measures' own
    assert uim.provider.supports(M.nDCG @ 10) and uim.provider.supports(uim.Upper(M.nDCG @ 10))
    assert not uim.provider.supports(M.SDCG @ 10)  # not computed natively: left to others
    with pytest.raises(ValueError, match="unsupported"):
        uim.provider.evaluator([M.SDCG @ 10], {"1": {"a": 1}})


def test_agrees_with_ir_measures_on_trec_covid_round1():
    """TREC-COVID round 1 (qrels-rnd1, 30 topics) with three round-1 runs, ir_measures 0.4.3's
    DefaultPipeline (pytrec_eval-terrier 0.5.x, ir_measures' judged and gdeval providers)."""
    qrels, runs = _covid()
    counts = _compare(qrels, runs, MEASURES)
    for name, (agree, n, agg, n_agg) in counts.items():
        if name in VERSION_DIFFERS:
            continue
        assert (agree, agg) == (n, n_agg), (name, counts[name])
    assert all(c[1] == 90 for c in counts.values())  # 30 topics x 3 runs per measure
    assert len(counts) == len(MEASURES) == 36
    # the version difference, as docs/ir_measures.md reports it
    assert counts["IPrec@0.2"] == [66, 90, 0, 3]


@pytest.mark.parametrize("qrels_file", ["qrels.test", "qrels.rel_level"])
def test_agrees_with_ir_measures_on_trec_eval_suite(qrels_file):
    """trec_eval's own test files: results.test (3 topics x 500) against qrels.test (binary)
    and qrels.rel_level (grades 0-4 and -1)."""
    qrels = list(M.read_trec_qrels(str(need(TREC_EVAL / qrels_file))))
    runs = [list(M.read_trec_run(str(TREC_EVAL / "results.test")))]
    counts = _compare(qrels, runs, MEASURES)
    for name, (agree, n, agg, n_agg) in counts.items():
        # judged_only on qrels.rel_level (topic 303 has -1 grades): both drop those documents,
        # as trec_eval -J does (pytrec_eval leaves negative grades out of its qrels)
        assert (agree, agg) == (n, n_agg), (name, counts[name])
    assert sum(c[1] for c in counts.values()) == 36 * 3


# ---- inputs ir_measures accepts --------------------------------------------------------------

QRELS = {"q1": {"d1": 2, "d2": 0, "d3": 1}, "q2": {"d4": 1, "d5": 0}, "q3": {"d9": 1}}
RUN = {"q1": {"d1": 3.0, "x": 2.0, "d2": 1.0, "d3": 0.5}, "q2": {"d5": 2.0, "d4": 1.0}}


def _forms(qrels, run):
    qrows = [M.Qrel(q, d, g) for q, docs in qrels.items() for d, g in docs.items()]
    rrows = [M.ScoredDoc(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    yield qrels, run
    yield pd.DataFrame(qrows), pd.DataFrame(rrows)
    yield iter(qrows), iter(rrows)  # one-shot iterators
    yield qrows, (r for r in rrows)


def test_every_input_form_gives_the_same_values():
    ms = [M.P @ 2, M.nDCG @ 3, M.AP, M.Judged @ 3]
    expected = REFERENCE.calc_aggregate(ms, QRELS, RUN)
    for qrels, run in _forms(QRELS, RUN):
        got = uim.provider.calc_aggregate(ms, qrels, run)
        assert got == pytest.approx(expected), (type(qrels), type(run))
    # q3 is judged but not retrieved: it scores the measure's default, as in ir_measures
    per_query = {(str(m.measure), m.query_id): m.value
                 for m in uim.provider.iter_calc([M.AP], QRELS, RUN)}
    assert per_query[("AP", "q3")] == 0.0 and len(per_query) == 3


# ---- estimates as measures -------------------------------------------------------------------

def test_estimate_measures_equal_unjudged_estimate():
    qrels, runs = _covid()
    run = runs[0]
    nd = M.nDCG @ 10
    ms = [nd, uim.Upper(nd), uim.Condensed(nd), uim.Guaranteed(nd, bound="upper"),
          uim.Bootstrap(nd, b=500), uim.Bootstrap(nd, stat="p5", b=500),
          uim.Bootstrap(nd, stat="p95", b=500), M.Judged @ 10]
    got = uim.provider.calc_aggregate(ms, qrels, run)
    frame = pd.DataFrame(run)
    est = unjudged.estimate(frame, pd.DataFrame(qrels), "nDCG@10", b=500, per_topic=True)
    top = est[est.topic == "all"].set_index("method")
    assert got[nd] == pytest.approx(top.loc["nonrel", "value"], abs=1e-12)
    assert got[uim.Upper(nd)] == pytest.approx(top.loc["upper", "value"], abs=1e-12)
    assert got[uim.Condensed(nd)] == pytest.approx(top.loc["condensed", "value"], abs=1e-12)
    assert got[uim.Guaranteed(nd, bound="upper")] == pytest.approx(
        top.loc["guaranteed_upper", "value"], abs=1e-12)
    boot = top.loc["bootstrap"]
    for stat in ("mean", "p5", "p95"):
        assert got[uim.Bootstrap(nd, stat=stat, b=500)] == pytest.approx(boot[stat], abs=1e-12)
    assert got[nd] <= got[uim.Bootstrap(nd, b=500)] <= got[uim.Upper(nd)]
    assert got[uim.Bootstrap(nd, stat="p5", b=500)] < got[uim.Bootstrap(nd, stat="p95", b=500)]
    # per query: the topic's own estimate
    per = {m.query_id: m.value for m in uim.provider.iter_calc([uim.Upper(nd)], qrels, run)}
    rows = est[(est.method == "upper") & (est.topic != "all")].set_index("topic")["value"]
    assert per == pytest.approx(rows.to_dict(), abs=1e-12)
    assert got[M.Judged @ 10] == pytest.approx(
        REFERENCE.calc_aggregate([M.Judged @ 10], qrels, run)[M.Judged @ 10])


def test_estimate_measures_in_the_default_pipeline_as_pyterrier_uses_it():
    """PyTerrier's Experiment hands its eval_metrics to ir_measures.evaluator (the
    DefaultPipeline), with qid/docno/label and qid/docno/score frames; standard measures still
    come from ir_measures' own providers, the estimates from unjudged."""
    nd = M.nDCG @ 3
    qrels = pd.DataFrame([{"query_id": q, "doc_id": d, "relevance": g}
                          for q, docs in QRELS.items() for d, g in docs.items()])
    res = pd.DataFrame([{"query_id": q, "doc_id": d, "score": s}
                        for q, docs in RUN.items() for d, s in docs.items()])
    evaluator = M.evaluator([nd, uim.Upper(nd), uim.Bootstrap(nd, b=200)], qrels)
    got = evaluator.calc_aggregate(res)
    assert got[nd] == pytest.approx(M.pytrec_eval.calc_aggregate([nd], qrels, res)[nd])
    assert got[nd] < got[uim.Upper(nd)]
    assert got[nd] <= got[uim.Bootstrap(nd, b=200)] <= got[uim.Upper(nd)]


def test_estimate_measure_objects():
    nd = M.nDCG @ 10
    assert repr(uim.Upper(nd)) == "Upper(nDCG@10)"
    assert repr(uim.Bootstrap(nd, stat="p5")) == "Bootstrap(nDCG@10,stat='p5')"
    assert repr(uim.Guaranteed(nd, bound="upper")) == "Guaranteed(nDCG@10,bound='upper')"
    assert uim.Upper(nd) == uim.Upper(M.nDCG @ 10) and hash(uim.Upper(nd)) == hash(
        uim.Upper(nd))
    assert uim.Upper(nd) != uim.Condensed(nd)
    assert not uim.provider.supports(uim.Bootstrap(nd, stat="p3"))
    assert not uim.provider.supports(uim.Upper(M.SDCG @ 10))
    assert uim.to_unjudged(M.P(rel=2) @ 5).name == "P(rel=2)@5"


# ---- run-level statistics, whoever aggregates (issue 32, item 3) -----------------------------

EXAMPLE = Path(unjudged.__file__).parent / "data" / "example"


def _example(drop=()):
    with lzma.open(EXAMPLE / "qrels-rnd1.txt.xz", "rt") as fh:
        qrels = list(M.read_trec_qrels(fh.read()))
    with lzma.open(EXAMPLE / "BBGhelani1.run.xz", "rt") as fh:
        run = [s for s in M.read_trec_run(fh.read()) if s.query_id not in drop]
    return qrels, run


def _run_level(nd):
    return [uim.Bootstrap(nd, stat=s, b=1000) for s in ("p5", "p95", "std", "mode")] + [
        uim.Expected(nd, stat="std")]


def _stat_of(ms, est):
    top = est[est.topic == "all"].set_index("method")
    return {m: top.loc[m.METHOD, m["stat"]] for m in ms}


def test_run_level_statistics_whatever_the_list_holds():
    """ir_measures aggregates a list that mixes providers (nDCG@10 from pytrec_eval, the rest
    from unjudged), and PyTerrier's Experiment any list, by averaging the per-query values with
    each measure's aggregator; a percentile or std of the run mean is not that average."""
    qrels, run = _example()
    nd = M.nDCG @ 10
    ms = _run_level(nd)
    est = unjudged.estimate(pd.DataFrame(run), pd.DataFrame(qrels), "nDCG@10", b=1000,
                            methods=["bootstrap", "expected"])
    want = _stat_of(ms, est)
    alone = M.calc_aggregate(ms, qrels, run)
    mixed = M.calc_aggregate([nd, *ms, M.Judged @ 10], qrels, run)
    # PyTerrier (pyterrier/_evaluation.py): iter_calc, then each measure's aggregator
    aggs = {m: m.aggregator() for m in [nd, *ms]}
    for metric in M.iter_calc([nd, *ms], qrels, run):
        aggs[metric.measure].add(metric.value)
    for m in ms:
        assert alone[m] == pytest.approx(want[m], abs=1e-12), m
        assert mixed[m] == pytest.approx(want[m], abs=1e-12), m
        assert aggs[m].result() == pytest.approx(want[m], abs=1e-12), m
    p5, p95 = uim.Bootstrap(nd, stat="p5", b=1000), uim.Bootstrap(nd, stat="p95", b=1000)
    assert (round(mixed[p5], 4), round(mixed[p95], 4)) == (0.6653, 0.6819)
    assert round(mixed[uim.Expected(nd, stat="std")], 4) == 0.0049
    # what averaging the per-query values gave before: a 2.8x larger std, a wider interval
    per_query = est[(est.topic != "all") & (est.method == "bootstrap")]
    assert (round(per_query.p5.mean(), 4), round(per_query.p95.mean(), 4)) == (0.6622, 0.7001)
    assert round(per_query["std"].mean() / mixed[uim.Bootstrap(nd, stat="std", b=1000)], 1) \
        == 2.8


def test_run_level_statistics_count_left_out_queries_as_ir_measures_does():
    """A query of the qrels the run leaves out scores 0 in ir_measures' means; the run-level
    statistics cover the same queries (trec_eval -c), so the median stays by the mean."""
    qrels, run = _example(drop=("1", "2"))
    nd = M.nDCG @ 10
    ms = [uim.Bootstrap(nd, b=1000), uim.Bootstrap(nd, stat="p50", b=1000), *_run_level(nd)]
    got = M.calc_aggregate([nd, *ms], qrels, run)
    est = unjudged.estimate(pd.DataFrame(run), pd.DataFrame(qrels), "nDCG@10", b=1000,
                            methods=["bootstrap", "expected"], complete=True,
                            negative="nonrel")
    for m, v in _stat_of(ms, est).items():
        assert got[m] == pytest.approx(v, abs=1e-12), m
    mean, median = got[uim.Bootstrap(nd, b=1000)], got[uim.Bootstrap(nd, stat="p50", b=1000)]
    assert round(mean, 4) == 0.6121 and abs(median - mean) < 0.001


def test_run_level_values_parted_from_their_run_are_refused():
    qrels, run = _example()
    p5 = uim.Bootstrap(M.nDCG @ 10, stat="p5", b=1000)
    values = [float(m.value) for m in M.iter_calc([p5], qrels, run)]
    agg = p5.aggregator()
    for v in values:
        agg.add(v)
    with pytest.raises(IncompatibleInputsError, match="do not carry it"):
        agg.result()
    # PyTerrier's Experiment(batch_size=15): each batch of topics evaluated apart, then the
    # per-query values of all batches aggregated
    agg = p5.aggregator()
    for batch in (set(map(str, range(1, 16))), set(map(str, range(16, 31)))):
        part = [q for q in qrels if q.query_id in batch]
        for m in M.iter_calc([p5], part, [s for s in run if s.query_id in batch]):
            agg.add(m.value)
    with pytest.raises(IncompatibleInputsError, match="batches of queries evaluated apart"):
        agg.result()
    assert uim.Bootstrap(M.nDCG @ 10, b=1000).aggregator().__class__.__name__ == "MeanAgg"
