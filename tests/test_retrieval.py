"""Retrieval models and the classic text collections (Cranfield, CACM, CISI, NPL).

The collection tests read ../shared/data and skip with a message when it is absent.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from shared_data import DATA, need
from unjudged import evaluate
from unjudged.errors import FormatError, InputError, InvalidOptionError
from unjudged.io import read_qrels, read_run
from unjudged.text import Tokeniser, build_index
from unjudged.text.collections import (
    COLLECTIONS,
    TextCollection,
    collection_spec,
    load_collection,
    read_collection_qrels,
)
from unjudged.text.retrieval import (
    LEXICAL_MODELS,
    MODELS,
    NON_LEXICAL_MODELS,
    generate_runs,
    query_matrix,
    rank,
    score_queries,
)

# name -> (documents, judged queries, all non-empty queries, judgments, grade histogram)
COUNTS = {
    "cranfield": (1400, 225, 225, 1837, {0: 225, 1: 363, 2: 734, 3: 387, 4: 128}),
    "cacm": (3204, 52, 64, 796, {1: 796}),
    "cisi": (1460, 76, 112, 3114, {1: 3114}),
    "npl": (11426, 93, 93, 2083, {1: 2083}),
}

_CACHE: dict[str, tuple[TextCollection, dict]] = {}


def collection_and_runs(name: str) -> tuple[TextCollection, dict]:
    """The collection and all models' runs on it, built once per test session."""
    need(DATA / COLLECTIONS[name].folder)
    if name not in _CACHE:
        c = load_collection(name, DATA)
        _CACHE[name] = (c, {r.name: r for r in generate_runs(c)})
    return _CACHE[name]


_DOCNOS: dict[int, list[str]] = {}


def top(run, topic: str, k: int = 10) -> list[str]:
    """The run's first k documents for `topic` (its ranking order)."""
    if id(run) not in _DOCNOS:
        _DOCNOS[id(run)] = run.docno.to_pylist()
    i = run.topic_index[topic]
    return _DOCNOS[id(run)][run.offsets[i]:min(run.offsets[i] + k, run.offsets[i + 1])]


# --- hand-worked examples ---------------------------------------------------------------

TOY_DOCS = ["wing lift", "wing wing drag", "shock wave"]


def test_bm25_by_hand():
    """N = 3, lengths 2, 3, 2 (avgdl 7/3), k1 = 0.9, b = 0.4, query "wing lift".

    idf(wing) = ln(1 + (3 - 2 + .5) / (2 + .5)) = ln 1.6; idf(lift) = ln(1 + 2.5 / 1.5) = ln(8/3)
    d1: K = 0.9 (0.6 + 0.4 * 2 / (7/3)) = 0.9 * 0.6 + 0.36 * 6/7; tf = 1 -> 1.9 / (1 + K)
    d2: K = 0.9 * 0.6 + 0.36 * 9/7; wing tf = 2 -> 2 * 1.9 / (2 + K); no lift
    d3: no query term: not retrieved.
    """
    ix = build_index(["d1", "d2", "d3"], TOY_DOCS)
    k1_d1 = 0.54 + 0.36 * 6 / 7
    k1_d2 = 0.54 + 0.36 * 9 / 7
    d1 = (math.log(1.6) + math.log(8 / 3)) * 1.9 / (1 + k1_d1)
    d2 = math.log(1.6) * 3.8 / (2 + k1_d2)
    scores = score_queries(ix, query_matrix(ix, ["wing lift"]), "bm25")
    assert scores[0, 0] == pytest.approx(d1, rel=1e-12)
    assert scores[0, 1] == pytest.approx(d2, rel=1e-12)
    assert scores[0, 2] == -np.inf
    assert (round(d1, 6), round(d2, 6)) == (1.491196, 0.594771)
    run = rank(scores, ix, ["q1"], name="bm25")
    assert run.to_dict() == {"q1": {"d1": scores[0, 0], "d2": scores[0, 1]}}
    # classic parameters: k1 = 1.2, b = 0.75
    k_d1 = 1.2 * (0.25 + 0.75 * 6 / 7)
    classic = score_queries(ix, query_matrix(ix, ["lift"]), "bm25-classic")
    assert classic[0, 0] == pytest.approx(math.log(8 / 3) * 2.2 / (1 + k_d1), rel=1e-12)


def test_query_likelihood_and_tfidf_by_hand():
    """Collection: 7 tokens; P(wing|C) = 3/7, P(lift|C) = 1/7."""
    ix = build_index(["d1", "d2", "d3"], TOY_DOCS)
    q = query_matrix(ix, ["wing lift"])
    dirichlet = score_queries(ix, q, "ql-dir")
    mu = 500
    expect = [math.log((1 + mu * 3 / 7) / (2 + mu)) + math.log((1 + mu / 7) / (2 + mu)),
              math.log((2 + mu * 3 / 7) / (3 + mu)) + math.log((0 + mu / 7) / (3 + mu))]
    assert dirichlet[0, :2] == pytest.approx(expect, rel=1e-12) and dirichlet[0, 2] == -np.inf
    jm = score_queries(ix, q, "ql-jm")
    expect = [math.log(0.5 / 2 + 0.5 * 3 / 7) + math.log(0.5 / 2 + 0.5 / 7),
              math.log(0.5 * 2 / 3 + 0.5 * 3 / 7) + math.log(0.5 / 7)]
    assert jm[0, :2] == pytest.approx(expect, rel=1e-12)
    # lnc.ltc: query weights ln(3/2), ln 3; d1 = (1, 1)/sqrt 2; d2 = (1 + ln 2, 1) normalised
    tfidf = score_queries(ix, q, "tfidf")
    qn = math.hypot(math.log(1.5), math.log(3))
    d2 = (1 + math.log(2)) / math.hypot(1 + math.log(2), 1)
    assert tfidf[0, 0] == pytest.approx((math.log(1.5) + math.log(3)) / qn / math.sqrt(2))
    assert tfidf[0, 1] == pytest.approx(math.log(1.5) * d2 / qn)


def test_query_matrix_drops_unknown_words():
    ix = build_index(["d1"], ["wing lift"])
    assert query_matrix(ix, ["wing wing zebra", ""]).toarray().tolist() == [[0, 2], [0, 0]]


def test_rank_keeps_trec_eval_order_at_the_cut():
    """Tied scores at the depth cut: trec_eval ranks ties by docno descending (byte order),
    so of d10, d2 tied, d2 comes first; trec_eval 10.0 compares scores as C doubles, so
    1 + 1e-9 is above 1 (trec_eval 9's floats tied them)."""
    ix = build_index(["d1", "d10", "d2", "d3"], ["a", "b", "c", "d"])
    scores = np.array([[1.0 + 1e-9, 1.0, 1.0, 3.0]])
    run = rank(scores, ix, ["q"], name="t", depth=3)
    assert list(run.docno.to_pylist()) == ["d3", "d1", "d2"]
    # the same as reading the whole ranking and cutting it the trec_eval way
    full = read_run({"q": {"d1": 1.0 + 1e-9, "d10": 1.0, "d2": 1.0, "d3": 3.0}}, name="t")
    assert full.docno.to_pylist()[:3] == ["d3", "d1", "d2"]
    nine = read_run({"q": {"d1": 1.0 + 1e-9, "d10": 1.0, "d2": 1.0, "d3": 3.0}}, name="t",
                    ties="trec_eval9")
    assert nine.docno.to_pylist()[:3] == ["d3", "d2", "d10"]
    with pytest.raises(InvalidOptionError):
        rank(scores, ix, ["q"], name="t", depth=0)
    with pytest.raises(InvalidOptionError):
        rank(scores, ix, ["q", "r"], name="t")


def test_models_registry_and_errors():
    assert set(LEXICAL_MODELS) | set(NON_LEXICAL_MODELS) == set(MODELS)
    assert len(NON_LEXICAL_MODELS) >= 2 and {"bm25", "ql-dir", "bm25-rm3"} <= set(LEXICAL_MODELS)
    assert {"lsi", "docsim", "walk"} == set(NON_LEXICAL_MODELS)
    ix = build_index(["d1"], ["wing"])
    with pytest.raises(InvalidOptionError, match="unknown retrieval model"):
        score_queries(ix, query_matrix(ix, ["wing"]), "dense")
    c = TextCollection("toy", ix, ["q"], ["wing"], read_qrels({"q": {"d1": 1}}), Tokeniser())
    with pytest.raises(InvalidOptionError, match="unknown retrieval model"):
        generate_runs(c, ["bm25", "nope"])
    with pytest.raises(InvalidOptionError, match="unknown collection"):
        collection_spec("trec-covid")


def test_every_model_runs_on_a_toy_collection():
    texts = ["wing lift drag", "lift coefficient wing", "shock wave mach", "mach number wave",
             "boundary layer flow", "flow separation wing", "heat transfer flow"]
    ix = build_index([f"d{i}" for i in range(len(texts))], texts)
    c = TextCollection("toy", ix, ["1", "2"], ["wing lift", "shock mach"],
                       read_qrels({"1": {"d0": 1}, "2": {"d2": 1}}), Tokeniser())
    runs = generate_runs(c, depth=5)
    assert [r.name for r in runs] == list(MODELS)
    for r in runs:
        assert r.topics == ["1", "2"] and max(r.lengths()) <= 5, r.name
    # a query without any known word retrieves nothing, whatever the model
    scores = {m: score_queries(ix, query_matrix(ix, ["zebra"]), m) for m in MODELS}
    assert all(np.isneginf(s).all() for s in scores.values())


# --- reading the collections' files ------------------------------------------------------

def test_qrels_layouts(tmp_path):
    p = tmp_path / "q"
    p.write_text("1 184 2 \n1 29 1\n1 12 4\n2 5 -1\n")
    assert read_collection_qrels(p, "cranfield").to_dict() == \
        {"1": {"184": 3, "29": 4, "12": 1}, "2": {"5": 0}}
    p.write_text("01 1410  0 0\n     2     28\t0\t0.000000\n")
    assert read_collection_qrels(p, "pairs").to_dict() == {"1": {"1410": 1}, "2": {"28": 1}}
    p.write_text("1 184 7\n")
    with pytest.raises(FormatError, match="relevance code"):
        read_collection_qrels(p, "cranfield")
    p.write_text("1 x 0 0\n")
    with pytest.raises(FormatError) as err:
        read_collection_qrels(p, "pairs")
    assert err.value.line == 1
    p.write_text("1\n 4 5\n   /\n2\n 6\n")
    with pytest.raises(FormatError, match="closed by a `/`"):
        read_collection_qrels(p, "npl")
    p.write_text("\n")
    with pytest.raises(InputError, match="no judgments"):
        read_collection_qrels(p, "pairs")
    with pytest.raises(InvalidOptionError):
        read_collection_qrels(p, "trec")


def test_missing_collection_file(tmp_path):
    (tmp_path / "cacm.all").write_text(".I 1\n.T\nwing\n")
    with pytest.raises(InputError, match="queries file is missing"):
        load_collection("cacm", tmp_path)


@pytest.mark.parametrize("name", sorted(COUNTS))
def test_collection_counts(name):
    need(DATA / COLLECTIONS[name].folder)
    docs, judged, queries, judgments, grades = COUNTS[name]
    c = load_collection(name, DATA)
    assert len(c.index.docnos) == docs and len(c.topics) == judged
    assert len(c.qrels.keys) == judgments and len(c.qrels.topics) == judged
    values, counts = np.unique(c.qrels.key_grades, return_counts=True)
    assert dict(zip(values.tolist(), counts.tolist(), strict=True)) == grades
    assert set(c.topics) == set(c.qrels.topics)
    # every judged document is in the corpus, every query has text
    assert np.all(c.index.rows(c.qrels.docs.to_pylist()) >= 0)
    assert all(t.strip() for t in c.texts)
    everything = load_collection(name, DATA, judged_only=False)
    assert len(everything.topics) == queries


def test_cranfield_queries_are_renumbered():
    """cran.qry numbers its queries 001..365 with gaps; the judgments number them 1..225."""
    need(DATA / COLLECTIONS["cranfield"].folder)
    c = load_collection("cranfield", DATA)
    assert c.topics == [str(i) for i in range(1, 226)]
    assert c.texts[2].split()[:4] == ["what", "problems", "of", "heat"]  # .I 004
    assert c.queries["225"].split()[:3] == ["what", "design", "factors"]


# --- runs on the real collections --------------------------------------------------------

@pytest.mark.parametrize("name", sorted(COUNTS))
def test_every_model_produces_a_run(name):
    c, runs = collection_and_runs(name)
    assert list(runs) == list(MODELS)
    for model, run in runs.items():
        assert run.topics == sorted(c.topics), model
        assert min(run.lengths()) >= 1 and max(run.lengths()) <= 1000, model
        # trec_eval order: scores descending as C floats (ties: docno descending)
        scores = run.score
        assert np.all(np.isfinite(scores)), model
        for i in range(len(run.topics)):
            s = scores[run.offsets[i]:run.offsets[i + 1]].astype(np.float32)
            assert np.all(np.diff(s) <= 0), (model, run.topics[i])


@pytest.mark.parametrize("name, low, high", [("cranfield", 0.27, 0.34), ("cacm", 0.30, 0.37)])
def test_bm25_map_is_plausible(name, low, high):
    """Measured once: BM25 MAP 0.3014 (Cranfield), 0.3349 (CACM); a random ranking of 1000
    documents per query gets about 0.01-0.02."""
    c, runs = collection_and_runs(name)
    ap = evaluate(runs["bm25"], c.qrels, "AP", per_topic=False)["value"].item()
    assert low < ap < high
    rng = np.random.default_rng(7)
    docnos = c.index.docnos.tolist()
    random_run = {t: {docnos[j]: float(-k) for k, j in enumerate(
        rng.permutation(len(docnos))[:1000])} for t in c.topics}
    random_ap = evaluate(random_run, c.qrels, "AP", per_topic=False)["value"].item()
    assert random_ap < 0.05 and ap > 5 * random_ap


@pytest.mark.parametrize("name", sorted(COUNTS))
def test_non_lexical_runs_differ_from_bm25(name):
    """Mean top-10 overlap with BM25, measured: LSI 0.50 / 0.23 / 0.42 / 0.27, docsim
    0.63 / 0.50 / 0.65 / 0.48, walk 0.63 / 0.61 / 0.58 / 0.48 (Cranfield, CACM, CISI, NPL),
    against 0.80-0.85 for BM25+RM3; and every non-lexical model still finds relevant
    documents (MAP > 0.1)."""
    c, runs = collection_and_runs(name)

    def overlap(model):
        return np.mean([len(set(top(runs[model], t)) & set(top(runs["bm25"], t))) / 10
                        for t in c.topics])

    assert overlap("lsi") < 0.6
    assert overlap("docsim") < 0.7 and overlap("walk") < 0.7
    assert overlap("bm25-rm3") > 0.7
    scores = evaluate([runs[m] for m in NON_LEXICAL_MODELS], c.qrels, "AP", per_topic=False)
    assert (scores["value"] > 0.1).all()


def test_lexical_models_retrieve_only_matching_documents():
    c, runs = collection_and_runs("cranfield")
    q = query_matrix(c.index, c.texts, c.tokeniser)
    matched = np.asarray(((q > 0).astype(int) @ (c.index.tf > 0).astype(int).T).todense()) > 0
    rows = dict(zip(c.index.docnos.tolist(), range(len(c.index.docnos)), strict=True))
    for model in ("bm25", "tfidf", "ql-dir"):
        ranking = runs[model].to_dict()
        for i, topic in enumerate(c.topics[:20]):
            assert all(matched[i, rows[d]] for d in ranking[topic]), model
            assert len(ranking[topic]) == min(1000, int(matched[i].sum()))
    # expansion reaches documents without any original query term
    expanded = runs["bm25-rm3"].to_dict()
    assert any(not matched[i, rows[d]] for i, t in enumerate(c.topics) for d in expanded[t])


def test_runs_are_deterministic():
    """A second computation from scratch (a new index, so no shared statistics) gives the
    same rankings and scores."""
    c, runs = collection_and_runs("cranfield")
    again = load_collection("cranfield", DATA)
    for run in generate_runs(again, ["lsi", "docsim", "walk", "ql-rm3"]):
        assert run.to_dict() == runs[run.name].to_dict(), run.name
