"""Language-model divergence measures (seed 004, section 4): hand-worked toy examples, a
brute-force reference over the whole vocabulary, and a Cranfield smoke test."""

from __future__ import annotations

import doctest
import math
import time

import numpy as np
import pytest

from shared_data import DATA, need
from unjudged.errors import MeasureSpecError
from unjudged.io import read_qrels
from unjudged.measures import divergence
from unjudged.measures.divergence import parse_divergence, rank_values, subtopic_gains
from unjudged.text import build_index, corpus_index
from unjudged.text import divergence as text_divergence
from unjudged.text.divergence import divergence_scores, subtopics_from_qrels, topic_gains

ALL = ["ABS-NB(mu=2)@2", "ABS-RB(mu=2)@2", "DELTA-NB(mu=2)@2", "DELTA-RB(mu=2)@2"]


def test_doctests():
    assert doctest.testmod(divergence).failed == 0
    assert doctest.testmod(text_divergence).failed == 0


def _values(frame, topic="q1"):
    rows = frame[frame.topic == topic]
    return dict(zip(rows.measure, rows.value, strict=True))


def test_hand_worked_toy_vocabulary():
    """Collection d1 = "a a", d2 = "b", d3 = "c c c c c": P(.|C) = (.25, .125, .625); mu = 2.

    Subtopic from d1: p = (2.5, .25, 1.25) / 4 = (.625, .0625, .3125).
    R_1 = d1: the same model, KLD = 0, g = 1.
    R_2 = d1 d2: r = (2.5, 1.25, 1.25) / 5 = (.5, .25, .25);
      KLD(p||R_2) = .9375 ln 1.25 + .0625 ln .25 = 0.1225537
      KLD(p||C)   = .625 ln 2.5 + .375 ln .5     = 0.3127515
      g = 1 - 0.1225537 / 0.3127515 = 0.6081430.
    "c" never occurs in d1 or d2: its share goes through the closed form for terms outside U.
    """
    ix = build_index(["d1", "d2", "d3"], ["a a", "b", "c c c c c"])
    kld_r = .9375 * math.log(1.25) + .0625 * math.log(.25)
    kld_c = .625 * math.log(2.5) + .375 * math.log(.5)
    assert kld_r == pytest.approx(0.1225537, abs=1e-7)
    assert kld_c == pytest.approx(0.3127515, abs=1e-7)
    g2 = 1 - kld_r / kld_c
    got = topic_gains(ix.rows(["d1", "d2"]), [ix.rows(["d1"])], ix, ix.collection_model, 2.0)
    np.testing.assert_allclose(got, [[1.0, g2]], rtol=1e-12)
    frame = divergence_scores({"q1": {"d1": 2.0, "d2": 1.0}}, {"q1": {"s1": ["d1"]}}, ix, ALL)
    v = _values(frame)
    assert v["ABS-NB(mu=2)@2"] == pytest.approx(1 + g2)
    assert v["ABS-RB(mu=2)@2"] == pytest.approx(0.2 * (1 + 0.8 * g2))
    assert v["DELTA-NB(mu=2)@2"] == pytest.approx(1.0)  # g falls at rank 2: DELTA gains 0
    assert v["DELTA-RB(mu=2)@2"] == pytest.approx(0.2)
    assert set(frame.topic) == {"q1", "all"}


def test_two_subtopics_delta_rewards_the_second():
    """d2 alone covers subtopic s2: at rank 2 ABS takes the best subtopic, DELTA its gain."""
    ix = build_index(["d1", "d2", "d3"], ["a a", "b b", "c c c c"])
    subs = [ix.rows(["d1"]), ix.rows(["d2"])]
    g = topic_gains(ix.rows(["d1", "d2"]), subs, ix, ix.collection_model, 2.0)
    # by symmetry of a and b: s1 at rank 1 equals s2's model at rank 1 with roles swapped
    assert g[0, 0] == pytest.approx(1.0) and g[1, 1] == pytest.approx(g[0, 1])
    assert g[1, 0] == 0.0  # d1 alone moves away from s2's terms: clipped at 0
    m = parse_divergence(["ABS-NB(mu=2)@2", "DELTA-NB(mu=2)@2"])
    assert rank_values(g, m[0]) == pytest.approx(1 + max(g[0, 1], g[1, 1]))
    assert rank_values(g, m[1]) == pytest.approx(1 + max(0.0, g[1, 1] - g[1, 0]))


def _brute(tf, ranked, subs, mu):
    """g(i, k) straight from the definitions over the whole vocabulary, one k at a time."""
    pc = tf.sum(axis=0) / tf.sum()
    out = np.zeros((len(subs), len(ranked)))
    for i, rows in enumerate(subs):
        c = tf[rows].sum(axis=0)
        p = (c + mu * pc) / (c.sum() + mu)
        kc = np.sum(p * np.log(p / pc))
        for k in range(1, len(ranked) + 1):
            top = tf[[r for r in ranked[:k] if r >= 0]].sum(axis=0)
            r = (top + mu * pc) / (top.sum() + mu)
            out[i, k - 1] = max(0.0, 1 - np.sum(p * np.log(p / r)) / kc)
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_matches_whole_vocabulary_reference(seed):
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(40)]
    # a skewed vocabulary, so that many terms lie outside the ranking's and subtopics' terms
    texts = [" ".join(rng.choice(words, size=rng.integers(1, 12), p=_zipf(40))) for _ in range(30)]
    ix = build_index([f"d{i}" for i in range(30)], texts)
    ranked = np.array([3, 7, -1, 12, 3 + 10, 1, 25, -1, 9])  # -1: not in the corpus
    subs = [np.array([0, 5]), np.array([17]), np.array([2, 8, 21, 29])]
    for mu in (1.0, 50.0, 2500.0):
        got = topic_gains(ranked, subs, ix, ix.collection_model, mu)
        np.testing.assert_allclose(got, _brute(ix.tf.toarray().astype(float), ranked, subs, mu),
                                   rtol=1e-9, atol=1e-12)


def _zipf(n):
    w = 1.0 / np.arange(1, n + 1)
    return w / w.sum()


def test_missing_documents_change_nothing():
    ix = build_index(["d1", "d2"], ["a b", "b c"])
    g = topic_gains(ix.rows(["d1", "zz", "d2"]), [ix.rows(["d2"])], ix, ix.collection_model, 3.)
    assert g[0, 1] == g[0, 0]
    frame = divergence_scores({"q1": {"d1": 3, "zz": 2, "d2": 1}}, {"q1": {"s": ["d2"]}}, ix,
                              ["DELTA-NB(mu=3)@3"])
    assert _values(frame)["DELTA-NB(mu=3)@3"] == pytest.approx(max(g[0, 0], 0) + g[0, 2]
                                                               - g[0, 1])


def test_subtopic_equal_to_collection_gains_nothing():
    ix = build_index(["d1"], ["a b"])
    assert topic_gains(ix.rows(["d1"]), [ix.rows(["d1"])], ix, ix.collection_model,
                       2.).tolist() == [[0.0]]


def test_parse_names_and_errors():
    m = parse_divergence(["abs-nb@20", "DELTA-RB(theta=0.5, mu=100)@5"])
    assert (m[0].gain, m[0].bias, m[0].cutoff, m[0].mu, m[0].theta) == ("ABS", "NB", 20, 2500,
                                                                        0.8)
    assert m[1].name == "DELTA-RB(mu=100,theta=0.5)@5"
    with pytest.raises(MeasureSpecError, match="'ABS-XX@3', 'ABS-RB@0', 'ABS-RB\\(theta=2\\)@3'"):
        parse_divergence(["ABS-XX@3", "ABS-RB@0", "ABS-RB(theta=2)@3", "ABS-NB@1"])


def test_subtopics_from_diversity_qrels(tmp_path):
    p = tmp_path / "qrels"
    p.write_text("1 1 d1 1\n1 1 d2 0\n1 2 d2 2\n1 2 d3 1\n2 1 d4 -1\n")
    assert subtopics_from_qrels(read_qrels(p)) == {"1": {"1": ["d1"], "2": ["d2", "d3"]}}


def test_subtopic_gains_empty_outside_mass():
    g = subtopic_gains(np.array([[2.0, 0.0]]), np.array([[2.0, 0.0]]), np.array([.5, .5]),
                       0.0, 2.0)
    assert g.tolist() == [[1.0]]


def test_cranfield_ideal_beats_unrelated(tmp_path):
    """Real text: each Cranfield query's judged documents (codes 1-2 and 3-4 as two subtopics);
    a run ranking relevant documents first scores above one ranking unjudged documents."""
    qrels = need(DATA / "cranfield-noramtboraas" / "cranqrel")
    ix = corpus_index(need(DATA / "cranfield-noramtboraas" / "cran.all.1400"), cache_dir=tmp_path)
    lines = [x.split() for x in qrels.read_text().splitlines() if x.strip()]
    subs: dict[str, dict[str, list[str]]] = {}
    for q, d, code in lines:
        if int(q) <= 40 and int(code) > 0:
            subs.setdefault(q, {}).setdefault("a" if int(code) <= 2 else "b", []).append(d)
    judged = {d for _, d, _ in lines}
    others = [d for d in ix.docnos.tolist() if d not in judged]
    ideal = {q: {d: 100.0 - i for i, d in enumerate(s.get("a", []) + s.get("b", []))}
             for q, s in subs.items()}
    unrelated = {q: {d: 100.0 - i for i, d in enumerate(others[int(q) * 20:int(q) * 20 + 20])}
                 for q in subs}
    t0 = time.perf_counter()
    good = divergence_scores(ideal, subs, ix)
    bad = divergence_scores(unrelated, subs, ix)
    took = time.perf_counter() - t0
    g, b = _values(good, "all"), _values(bad, "all")
    assert set(g) == {"ABS-NB@20", "ABS-RB@20", "DELTA-NB@20", "DELTA-RB@20"}
    assert all(g[m] > b[m] + 0.05 for m in g), (g, b)
    assert all(0 <= v <= 1 for v in good[good.measure.str.contains("RB")].value)
    print(f"cranfield: {len(subs)} topics x 2 runs x 4 measures in {took:.3f} s; ideal {g}; "
          f"unrelated {b}")
