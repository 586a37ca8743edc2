"""Diversity qrels and the ndeval measures: hand-worked values, strategies, ndeval agreement."""

from __future__ import annotations

import io

import numpy as np
import pytest
from click.testing import CliRunner

import unjudged
from shared_data import DATA, need
from unjudged.cli import main
from unjudged.data.diversity import Subtopics, judge_diversity
from unjudged.data.judged import judge
from unjudged.errors import FormatError, InputError
from unjudged.io import read_run
from unjudged.io.diversity import read_diversity_qrels, read_intents
from unjudged.measures import parse_measures
from unjudged.policies import Policies
from unjudged.strategies import fill

# Topic t, subtopics 1-3: a covers 1 and 2, b covers 2, c covers 3, d is judged non-relevant,
# e is pooled but unjudged (-1). The run ranks b, d, a, x (not in the qrels), c.
QRELS = [("t", "1", "a", 1), ("t", "2", "a", 2), ("t", "2", "b", 1), ("t", "3", "c", 1),
         ("t", "1", "d", 0), ("t", "1", "e", -1)]
RUN = {"t": {"b": 5.0, "d": 4.0, "a": 3.0, "x": 2.0, "c": 1.0}}

# Gains (alpha = 0.5, intents 1/3): b 1/3, d 0, a (1 + 0.5)/3, x 0, c 1/3. ndeval's greedy
# ideal: a (2/3), then c (1/3) beats b (0.5/3), then b (0.5/3).
L2 = np.log2
DCG5 = 1 / 3 + 0.5 / L2(4) + (1 / 3) / L2(6)
IDEAL_DCG = 2 / 3 + (1 / 3) / L2(3) + (0.5 / 3) / L2(4)
II_DCG5 = sum(0.5 ** i / L2(i + 2) for i in range(5))
ERR5 = 1 / 3 + 0.5 / 3 + (1 / 3) / 5
IDEAL_ERR = 2 / 3 + (1 / 3) / 2 + (0.5 / 3) / 3
II_ERR = {k: sum(0.5 ** i / (i + 1) for i in range(k)) for k in (5, 10)}
NRBP_SUM = 1 / 3 + 0.5 * 0.25 + (1 / 3) * 0.5 ** 4
HAND = {
    "alpha-DCG@5": DCG5 / II_DCG5,
    "alpha-nDCG@5": DCG5 / IDEAL_DCG,
    "ERR-IA@5": ERR5 / II_ERR[5],
    "ERR-IA@10": ERR5 / II_ERR[10],
    "nERR-IA@5": ERR5 / IDEAL_ERR,
    "NRBP": 0.75 * NRBP_SUM,
    "nNRBP": NRBP_SUM / (2 / 3 + (1 / 3) * 0.5 + (0.5 / 3) * 0.25),
    "P-IA@5": 4 / 15,
    "P-IA@20": 4 / 60,
    "MAP-IA": (1 / 3 + (1 + 2 / 3) / 2 + 1 / 5) / 3,
    "S-recall@2": 1 / 3,
    "S-recall@5": 1.0,
}


def _values(run, qrels, names, **policy):
    df = unjudged.evaluate(run, qrels, names, per_topic=False, **policy)
    return dict(zip(df.measure, df.value, strict=True))


def test_hand_worked_values_of_every_measure():
    got = _values(RUN, read_diversity_qrels(QRELS), list(HAND))
    assert got == pytest.approx(HAND, abs=1e-12)
    # ERR-IA's ideal-ideal normaliser grows with k faster than this run gains
    assert got["ERR-IA@5"] > got["ERR-IA@10"]
    assert got["alpha-nDCG@5"] == pytest.approx(0.7417233, abs=1e-7)


def test_subtopics_binary_and_ideal_ties_by_largest_docno():
    q = read_diversity_qrels([("t", "1", "a", 3), ("t", "1", "b", 1), ("t", "2", "b", 1),
                              ("t", "1", "c", 1), ("t", "2", "d", 1)])
    s = q.subtopics
    assert s.nrel.tolist() == [[3, 2]]
    # b covers both first; then a, c (subtopic 1, gain 0.5) and d (subtopic 2, 0.5) tie: the
    # largest docno, d, wins; then c (largest of a, c)
    ideal = s.ideal(0.5)[0].tolist()
    masks = dict(zip(["a", "b", "c", "d"], s.key_mask.tolist(), strict=True))
    assert ideal == [masks["b"], masks["d"], masks["c"], masks["a"]]


def test_condensed_drops_the_same_positions_from_the_subtopics():
    q = read_diversity_qrels(QRELS)
    run = read_run({"t": {"b": 6.0, "e": 5.5, "d": 4.0, "a": 3.0, "x": 2.0, "c": 1.0}})
    j = judge_diversity(run, q)
    assert j.grades.tolist() == [[1, -1, 0, 2, -2, 1]]
    c = fill.condensed(j)
    assert c.grades.tolist() == [[1, 0, 2, 1]]
    assert c.mask.tolist() == [[2, 0, 3, 4]]
    (m,) = parse_measures(["alpha-nDCG@5"])
    dcg = 1 / 3 + 0.5 / L2(4) + (1 / 3) / L2(5)
    assert m.compute(c)[0] == pytest.approx(dcg / IDEAL_DCG, abs=1e-12)
    # -J (judged_only) keeps pooled-but-unjudged e, as trec_eval does, and drops x
    jj = judge_diversity(run, q, Policies(judged_only=True))
    assert jj.grades.tolist() == [[1, -1, 0, 2, 1]] and jj.mask.tolist() == [[2, 0, 0, 3, 4]]
    # a fill in place (upper) keeps the masks: unjudged documents still gain no subtopic
    assert fill.upper(j).mask.tolist() == j.mask.tolist()
    assert fill.top(j, 3).mask.tolist() == [[2, 0, 0]]


def test_ad_hoc_measures_see_the_highest_grade():
    got = _values(RUN, read_diversity_qrels(QRELS), ["P@5", "alpha-nDCG@5"])
    assert got["P@5"] == pytest.approx(3 / 5)


def test_intent_probabilities_weight_the_subtopics():
    intents = read_intents(io.StringIO("t 1 2\nt 2 1\nt 3 1\n"))  # renormalised to .5 .25 .25
    q = read_diversity_qrels(QRELS, intents=intents)
    assert q.subtopics.prob.tolist() == [[0.5, 0.25, 0.25]]
    got = _values(RUN, q, ["P-IA@5", "MAP-IA", "S-recall@5"])
    assert got["P-IA@5"] == pytest.approx((0.25 + 0.75 + 0.25) / 5)
    assert got["MAP-IA"] == pytest.approx(0.5 / 3 + 0.25 * 5 / 6 + 0.25 / 5)
    assert got["S-recall@5"] == 1.0  # counts subtopics, unweighted (as ndeval's strec)


def test_bad_inputs_are_named():
    with pytest.raises(FormatError, match=":2: expected"):
        read_intents(io.StringIO("t 1 0.5\nt 2 -1\n"))
    many = [("t", str(i), f"d{i}", 1) for i in range(65)]
    with pytest.raises(InputError, match="65 subtopics"):
        read_diversity_qrels(many)


def test_without_subtopics_one_subtopic_per_topic():
    # a batch judged the ad hoc way reads as one subtopic (grade > 0): b, a and c relevant
    (m, p) = parse_measures(["alpha-nDCG@5", "P-IA@5"])
    plain = judge(read_run(RUN), read_diversity_qrels(QRELS))
    dcg = 1 + 0.5 / L2(4) + 0.25 / L2(6)
    assert m.compute(plain)[0] == pytest.approx(dcg / (1 + 0.5 / L2(3) + 0.25 / L2(4)))
    assert p.compute(plain)[0] == pytest.approx(3 / 5)
    # bootstrap-style batches with a leading sample axis score every sample
    batch = judge_diversity(read_run(RUN), read_diversity_qrels(QRELS))
    twice = batch.with_grades(np.stack([np.where(batch.grades == -2, 1, batch.grades)] * 2))
    assert m.compute(twice).tolist() == [pytest.approx(HAND["alpha-nDCG@5"])] * 2


def test_aspect_layout_zero_is_no_aspect():
    q = read_diversity_qrels([("303", "0", "a", 0), ("303", "2", "b", 1), ("303", "0", "c", 1)],
                             layout="aspect")
    assert q.subtopics.labels == [["2"]]
    assert Subtopics.build(q).labels == [["0", "2"]]  # the ndeval reading keeps it


def test_cli_eval_on_diversity_qrels(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{t} {s} {d} {g}\n" for t, s, d, g in QRELS))
    run = tmp_path / "run.txt"
    run.write_text("".join(f"t Q0 {d} {i} {s} r\n" for i, (d, s) in enumerate(RUN["t"].items())))
    out = CliRunner().invoke(main, ["eval", str(qrels), str(run), "-m", "alpha-nDCG@5",
                                    "-m", "ERR-IA@5", "-f", "tsv"])
    assert out.exit_code == 0, out.output
    rows = dict(line.split("\t")[2:4] for line in out.output.splitlines()[1:])
    assert float(rows["alpha-nDCG@5"]) == pytest.approx(HAND["alpha-nDCG@5"], abs=1e-4)
    assert float(rows["ERR-IA@5"]) == pytest.approx(HAND["ERR-IA@5"], abs=1e-4)


NDEVAL_FILES = ["anserini-tools/qrels/qrels.web.201-250.ndeval.txt",
                "ssanner-diversify/files/trec/qrels.diversity",
                "ssanner-diversify/files/trec/qrels.trec.all"]


@pytest.mark.parametrize("name", NDEVAL_FILES)
def test_agrees_with_ndeval(name):
    pyndeval = pytest.importorskip("pyndeval")
    path = need(DATA / name)
    lines = [line.split() for line in path.read_text().splitlines() if line.strip()]
    qrels = [(t, s, d, int(g)) for t, s, d, g in lines]
    rng = np.random.default_rng(7)
    docs: dict[str, list[str]] = {}
    for t, _, d, _ in qrels:
        docs.setdefault(t, []).append(d)
    run = {}
    for t, ds in docs.items():  # judged documents in random order, plus unjudged ones
        ds = sorted(set(ds))
        pick = [ds[i] for i in rng.choice(len(ds), size=min(30, len(ds)), replace=False)]
        pick += ["unjudged-1", "unjudged-2"]
        scores = rng.permutation(100)[:len(pick)].astype(float)
        run[t] = dict(zip(pick, scores, strict=True))
    names = pyndeval.DEFAULT_MEASURES
    ref = pyndeval.ndeval(qrels, [(t, d, s) for t in run for d, s in run[t].items()], names)
    ours = [n.replace("strec", "S-recall") for n in names]
    df = unjudged.evaluate(run, read_diversity_qrels(path), ours, summary=False)
    got = df.pivot(index="topic", columns="measure", values="value")
    want = np.array([[ref[t][n] for n in names] for t in got.index])
    np.testing.assert_allclose(got[ours].to_numpy(), want, atol=1e-6)


def test_other_alpha_and_beta_agree_with_ndeval():
    pyndeval = pytest.importorskip("pyndeval")
    names = ["alpha-nDCG@5", "nERR-IA@10", "ERR-IA@5", "NRBP", "nNRBP"]
    ref = pyndeval.ndeval(QRELS, [("t", d, s) for d, s in RUN["t"].items()], names,
                          alpha=0.3, beta=0.8)["t"]
    got = _values(RUN, read_diversity_qrels(QRELS),
                  [n.replace("@", "(alpha=0.3)@") if "@" in n else f"{n}(alpha=0.3,beta=0.8)"
                   for n in names])
    assert list(got.values()) == pytest.approx([ref[n] for n in names], abs=1e-12)
