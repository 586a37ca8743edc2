"""Diversity qrels and the ndeval measures: hand-worked values, strategies, ndeval agreement."""

from __future__ import annotations

import io

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import unjudged
from shared_data import DATA, need
from unjudged.cli import main
from unjudged.data.diversity import Subtopics, judge_diversity
from unjudged.data.judged import judge
from unjudged.errors import FormatError, InputError, InvalidOptionError, MeasureSpecError
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
II_ERR = {k: sum(0.5 ** i / (i + 1) for i in range(k)) for k in (5, 10, 20)}
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
    # -J (judged_only) drops pooled-but-unjudged e and unjudged x, as trec_eval -J does
    jj = judge_diversity(run, q, Policies(judged_only=True))
    assert jj.grades.tolist() == [[1, 0, 2, 1]] and jj.mask.tolist() == [[2, 0, 3, 4]]
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


def test_s_recall_counts_only_weighted_subtopics():
    # subtopics 1-4, intents only on 1: b, c, d cover 2, 3, 4 (weight 0). Before the fix the
    # covered zero-weight subtopics were counted over the one positive-weight one: 3 / 1 = 3.0
    q = read_diversity_qrels([("t", str(i), d, 1) for i, d in enumerate("abcd", 1)],
                             intents={("t", "1"): 1.0})
    run = {"t": {"b": 3.0, "c": 2.0, "d": 1.0}}
    assert _values(run, q, ["S-recall@5"])["S-recall@5"] == 0.0
    run["t"]["a"] = 0.5  # now the one weighted subtopic is covered: 1 / 1
    assert _values(run, q, ["S-recall@5"])["S-recall@5"] == 1.0


BOUNDED = ["alpha-DCG@5", "ERR-IA@5", "NRBP", "P-IA@5", "MAP-IA", "S-recall@5", "S-recall@2"]


@settings(max_examples=60, deadline=None)
@given(weights=st.lists(st.floats(0, 10), min_size=3, max_size=3),
       order=st.permutations(["a", "b", "c", "d", "x"]))
def test_weighted_measures_stay_in_unit_range(weights, order):
    # every intent weighting (zeros included) of the worked example's three subtopics, every
    # order of its documents: the ideal-ideal normalised measures, P-IA, MAP-IA and S-recall
    # stay in [0, 1] (the greedy-ideal ones, alpha-nDCG & co., are not bounded by 1 in general)
    intents = {("t", str(i + 1)): w for i, w in enumerate(weights)}
    q = read_diversity_qrels(QRELS, intents=intents)
    run = {"t": {d: float(10 - i) for i, d in enumerate(order)}}
    got = _values(run, q, BOUNDED)
    assert all(-1e-12 <= v <= 1 + 1e-12 for v in got.values()), got


# Graded toy for ERR-IA's paper form (seed 004's eq. 2): subtopic 1 has a (grade 1) and c (1),
# subtopic 2 has a (3) and b (2); gmax = 3, so R = (2^g - 1) / 8: 1/8, 3/8, 7/8; p = 1/2 each.
GRADED = [("t", "1", "a", 1), ("t", "2", "a", 3), ("t", "2", "b", 2), ("t", "1", "c", 1),
          ("t", "1", "d", 0)]
GRADED_RUN = {"t": {"b": 4.0, "d": 3.0, "a": 2.0, "x": 1.5, "c": 1.0}}
# run b d a x c. Subtopic 1: a at 3 (nothing above), c at 5 after a: 1/8/3 + (1/8)(7/8)/5.
# Subtopic 2: b at 1, a at 3 after b: 3/8 + (7/8)(5/8)/3.
PAPER5 = 0.5 * (1 / 24 + 7 / 320) + 0.5 * (3 / 8 + 35 / 192)
# greedy graded ideal: a (1/8 + 7/8), then c (1/8 * 7/8 = 7/64) beats b (3/8 * 1/8 = 3/64), b
PAPER_IDEAL = 0.5 * (1 / 8 + 7 / 8) + 0.5 * (7 / 64) / 2 + 0.5 * (3 / 64) / 3
# ndeval's form reads every grade as 1: gains (alpha 0.5, p 1/2) b 1/2, a 1/2 + 1/4 (its
# subtopic 2 seen once), c 1/4; greedy ideal a (1), then b and c (1/4 each, c the larger
# docno), then b.
NDEVAL5 = 0.5 + 0.75 / 3 + 0.25 / 5
NDEVAL_IDEAL = 1 + 0.25 / 2 + 0.25 / 3


def test_err_ia_paper_form_hand_worked():
    q = read_diversity_qrels(GRADED)
    names = ["ERR-IA(form='paper')@5", "nERR-IA(form='paper')@5", "ERR-IA@5", "nERR-IA@5"]
    got = _values(GRADED_RUN, q, names)
    assert got == pytest.approx({names[0]: PAPER5, names[1]: PAPER5 / PAPER_IDEAL,
                                 names[2]: NDEVAL5 / II_ERR[5],
                                 names[3]: NDEVAL5 / NDEVAL_IDEAL}, abs=1e-12)
    assert round(PAPER5, 6) == 0.310417
    # condensed (-J drops x, keeps the judged d): c moves to rank 4
    cond = _values(GRADED_RUN, q, names[:1], judged_only=True)[names[0]]
    assert cond == pytest.approx(0.5 * (1 / 24 + 7 / 256) + 0.5 * (3 / 8 + 35 / 192), abs=1e-12)
    # the grades follow the condensing through the condensed strategy too
    j = judge_diversity(read_run(GRADED_RUN), q)
    assert j.sgrade is not None and j.sgrade[0, :, 1].tolist() == [2, 0, 3, 0, 0]
    kept = fill.condensed(j)
    assert kept.sgrade is not None and kept.sgrade[0, :, 1].tolist()[:4] == [2, 0, 3, 0]


def test_err_ia_paper_form_refuses_alpha_and_bad_form():
    q = read_diversity_qrels(GRADED)
    with pytest.raises(MeasureSpecError, match="no alpha"):
        _values(GRADED_RUN, q, ["ERR-IA(form='paper',alpha=0.3)@5"])
    with pytest.raises(MeasureSpecError):
        parse_measures(["ERR-IA(form='chapelle')@5"])


def test_binary_qrels_carry_no_subtopic_grades():
    j = judge_diversity(read_run(RUN), read_diversity_qrels([(t, s, d, min(g, 1))
                                                             for t, s, d, g in QRELS]))
    assert j.sgrade is None and j.subtopics is not None and j.subtopics.gmax == 1


@settings(max_examples=80, deadline=None)
@given(rel=st.lists(st.lists(st.booleans(), min_size=3, max_size=3), min_size=5, max_size=5),
       order=st.permutations(["a", "b", "c", "d", "e"]), k=st.integers(1, 7),
       weights=st.one_of(st.none(), st.lists(st.floats(0, 10), min_size=3, max_size=3)))
def test_err_ia_paper_form_on_binary_judgments(rel, order, k, weights):
    # binary grades: gmax = 1, R = 1/2 = (1 - alpha) at alpha = 0.5, so the cascade
    # prod (1 - R) is ndeval's novelty discount and eq. 2 is half of ndeval's unnormalised sum:
    # ERR-IA(paper)@k = ERR-IA@k * II_k / 2 with II_k = sum_{r<=k} 0.5^(r-1) / r, and the
    # greedy ideals coincide (gains exactly half of ndeval's), so nERR-IA(paper) = nERR-IA
    lines = [("t", str(s + 1), d, int(r)) for d, row in zip("abcde", rel, strict=True)
             for s, r in enumerate(row)]
    intents = None if weights is None else \
        {("t", str(i + 1)): w for i, w in enumerate(weights)}
    q = read_diversity_qrels(lines, intents=intents)
    run = {"t": {d: float(10 - i) for i, d in enumerate(order)}}
    names = [f"ERR-IA(form='paper')@{k}", f"nERR-IA(form='paper')@{k}", f"ERR-IA@{k}",
             f"nERR-IA@{k}"]
    got = _values(run, q, names)
    ii = sum(0.5 ** i / (i + 1) for i in range(k))
    assert got[names[0]] == pytest.approx(got[names[2]] * ii / 2, abs=1e-12)
    assert got[names[1]] == pytest.approx(got[names[3]], abs=1e-12)


@settings(max_examples=80, deadline=None)
@given(grades=st.lists(st.lists(st.integers(-1, 4), min_size=2, max_size=2), min_size=4,
                       max_size=4),
       order=st.permutations(["a", "b", "c", "d", "x"]), k=st.integers(1, 6),
       weights=st.one_of(st.none(), st.lists(st.floats(0, 10), min_size=2, max_size=2)),
       judged_only=st.booleans())
def test_err_ia_paper_form_in_unit_range(grades, order, k, weights, judged_only):
    # graded judgments 0-4 (and -1, unjudged): eq. 2 is an expected reciprocal rank, in [0, 1];
    # a greedy ideal is not the best order in general, so nERR-IA is only asserted >= 0
    lines = [("t", str(s + 1), d, g) for d, row in zip("abcd", grades, strict=True)
             for s, g in enumerate(row)]
    intents = None if weights is None else \
        {("t", str(i + 1)): w for i, w in enumerate(weights)}
    q = read_diversity_qrels(lines, intents=intents)
    run = {"t": {d: float(10 - i) for i, d in enumerate(order)}}
    names = [f"ERR-IA(form='paper')@{k}", f"nERR-IA(form='paper')@{k}"]
    got = _values(run, q, names, judged_only=judged_only)
    assert 0.0 <= got[names[0]] <= 1.0
    assert got[names[1]] >= 0.0


def test_cli_eval_accepts_the_paper_form(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{t} {s} {d} {g}\n" for t, s, d, g in GRADED))
    run = tmp_path / "run.txt"
    run.write_text("".join(f"t Q0 {d} {i} {s} r\n"
                           for i, (d, s) in enumerate(GRADED_RUN["t"].items())))
    out = CliRunner().invoke(main, ["eval", str(qrels), str(run), "-m",
                                    "ERR-IA(form='paper')@20", "-m", "ERR-IA@20", "-f", "tsv"])
    assert out.exit_code == 0, out.output
    rows = dict(line.split("\t")[2:4] for line in out.output.splitlines()[1:])
    assert float(rows["ERR-IA(form='paper')@20"]) == pytest.approx(PAPER5, abs=1e-4)
    assert float(rows["ERR-IA@20"]) == pytest.approx(NDEVAL5 / II_ERR[20], abs=1e-4)
    bad = CliRunner().invoke(main, ["eval", str(qrels), str(run), "-m", "ERR-IA(form='x')@20"])
    assert bad.exit_code == 2 and "form" in bad.output


def test_paper_form_survives_stream_batches_scored_again(tmp_path):
    # topic u's batch is wider than t's, so --stream scores t's kept cells again: the subtopic
    # grades must travel with them (they once did not, and the kernel refused)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{t} {s} {d} {g}\n" for t, s, d, g in GRADED)
                     + "u 1 a 2\nu 1 b 1\n")
    run = tmp_path / "run.txt"
    run.write_text("t Q0 b 1 4 r\nt Q0 d 2 3 r\nu Q0 b 1 3 r\nu Q0 a 2 2 r\n"
                   + "".join(f"u Q0 q{i} {i + 3} {1 / (i + 1)} r\n" for i in range(4)))
    args = ["eval", str(qrels), str(run), "-q", "-f", "tsv", "-m", "ERR-IA(form='paper')@20",
            "-m", "nERR-IA(form='paper')@20"]
    whole = CliRunner().invoke(main, args)
    streamed = CliRunner().invoke(main, [*args, "--stream", "--stream-block", "20"])
    assert whole.exit_code == 0 and streamed.exit_code == 0, streamed.output
    assert streamed.output == whole.output
    # t: b (R 3/8 on subtopic 2) at 1; u (gmax 3): b (1/8) at 1, a (3/8) at 2 after it
    rows = {tuple(line.split("\t")[1:3]): float(line.split("\t")[3])
            for line in whole.output.splitlines()[1:]}
    assert rows[("t", "ERR-IA(form='paper')@20")] == pytest.approx(0.5 * 3 / 8, abs=1e-4)
    assert rows[("u", "ERR-IA(form='paper')@20")] == pytest.approx(1 / 8 + (7 / 8) * (3 / 8) / 2,
                                                                  abs=1e-4)


def test_paper_form_identities_on_trec_web_2009_binary_qrels():
    # TREC Web 2009's diversity qrels are binary (grades 0 and 1): on a random order of every
    # judged document of its 50 topics (plus two unjudged ones) the two identities of
    # test_err_ia_paper_form_on_binary_judgments hold topic by topic
    path = need(DATA / "ssanner-diversify/files/trec/qrels.diversity")
    q = read_diversity_qrels(path)
    assert q.subtopics is not None and q.subtopics.gmax == 1
    rng = np.random.default_rng(7)
    docs: dict[str, set[str]] = {}
    for line in path.read_text().splitlines():
        if line.strip():
            t, _, d, _ = line.split()
            docs.setdefault(t, set()).add(d)
    run = {t: dict(zip([*sorted(ds), "u1", "u2"], rng.permutation(len(ds) + 2).astype(float),
                       strict=True)) for t, ds in docs.items()}
    names = ["ERR-IA(form='paper')@20", "nERR-IA(form='paper')@20", "ERR-IA@20", "nERR-IA@20"]
    df = unjudged.evaluate(run, q, names, summary=False)
    v = df.pivot(index="topic", columns="measure", values="value")[names].to_numpy()
    assert len(v) == 50 and v[:, 0].max() > 0.3
    np.testing.assert_allclose(v[:, 0], v[:, 2] * II_ERR[20] / 2, rtol=0, atol=1e-15)
    np.testing.assert_allclose(v[:, 1], v[:, 3], rtol=0, atol=1e-15)


def test_huge_subtopic_grades_are_read_and_only_the_paper_form_refuses_them():
    """A grade past 62 (2^g no longer exact) is read like any other grade; ndeval's binary
    measures score it as relevant, and only ERR-IA(form='paper'), which needs 2^g, refuses."""
    q = read_diversity_qrels([("t", "1", "a", 2**31 - 1), ("t", "2", "b", 1)])
    run = read_run({"t": {"a": 2.0, "b": 1.0}})
    ms = parse_measures(["S-recall@2", "ERR-IA@2"])
    j = judge_diversity(run, q)
    one = judge_diversity(run, read_diversity_qrels([("t", "1", "a", 1), ("t", "2", "b", 1)]))
    assert [float(m.compute(j)[0]) for m in ms] == [float(m.compute(one)[0]) for m in ms]
    assert float(ms[0].compute(j)[0]) == 1.0
    with pytest.raises(MeasureSpecError, match="subtopic grade 2147483647 is too large"):
        parse_measures(["ERR-IA(form='paper')@2"])[0].compute(j)


# --- issue 34 item 9: huge cutoffs, as the other measures take them ----------------------------

ALL_DIVERSITY = ["alpha-nDCG", "alpha-DCG", "ERR-IA", "nERR-IA", "NRBP", "nNRBP", "P-IA",
                 "MAP-IA", "S-recall", "ERR-IA(form='paper')", "nERR-IA(form='paper')"]


@pytest.mark.parametrize("k", [10 ** 9, 10 ** 12])
def test_huge_cutoffs_read_no_more_than_the_padded_width(k):
    """@k past every ranking equals @1000 (the width cut_width pads a 5-document ranking to)
    bit for bit, but for P-IA's divisor; before, 10^9 was refused for memory (96.9 GiB)."""
    q = read_diversity_qrels(QRELS)
    huge = _values(RUN, q, [f"{m}@{k}" for m in ALL_DIVERSITY])
    wide = _values(RUN, q, [f"{m}@1000" for m in ALL_DIVERSITY])
    for m in ALL_DIVERSITY:
        if m == "P-IA":
            assert huge[f"P-IA@{k}"] == pytest.approx(4 / 3 / k, rel=1e-12)  # 4/3 of 3 intents
        else:
            assert huge[f"{m}@{k}"] == wide[f"{m}@1000"], m
    # the ideal-ideal normalisers reach their limit long before: (1 - alpha)^r underflows
    assert huge[f"alpha-DCG@{k}"] == pytest.approx(
        DCG5 / sum(0.5 ** i / L2(i + 2) for i in range(1100)), rel=1e-14)
    # sum 0.5^i / (i + 1) = 2 ln 2
    assert huge[f"ERR-IA@{k}"] == pytest.approx(ERR5 / (2 * np.log(2)), rel=1e-14)


def test_huge_cutoff_keeps_an_ideal_ranking_longer_than_the_padding():
    """1,500 relevant documents: the greedy ideal ranking is read whole (its own length), the
    3-document run to 1,000 positions; @10^9 is @1500 and the hand-worked value."""
    q = read_diversity_qrels([("t", "1", f"d{i}", 1) for i in range(1500)])
    run = {"t": {"d0": 3.0, "x": 2.0, "d1": 1.0}}
    got = _values(run, q, ["alpha-nDCG@1000000000", "alpha-nDCG@1500", "alpha-nDCG@1000",
                           "nNRBP@1000000000", "S-recall@1000000000"])
    ideal = sum(0.5 ** i / L2(i + 2) for i in range(1500))
    assert got["alpha-nDCG@1000000000"] == got["alpha-nDCG@1500"]
    assert got["alpha-nDCG@1000000000"] == pytest.approx((1 + 0.5 / L2(4)) / ideal, rel=1e-14)
    assert got["S-recall@1000000000"] == 1.0
    assert got["nNRBP@1000000000"] == pytest.approx((1 + 0.5 * 0.25) / sum(
        0.5 ** i * 0.5 ** i for i in range(1500)), rel=1e-14)


def test_huge_cutoff_with_alpha_zero_is_refused_in_one_line():
    """alpha = 0: the ideal-ideal sum of 1/log2(r + 1) never stops growing, so 10^9 positions
    would be summed; refused at once, a cutoff within 2^26 is summed (in slices)."""
    q = read_diversity_qrels(QRELS)
    with pytest.raises(InvalidOptionError, match=r"alpha=0.0: the ideal-ideal normaliser"):
        _values(RUN, q, ["alpha-DCG(alpha=0)@1000000000"])
    k = 3_000_000
    ii = sum(float((1 / np.log2(np.arange(a, min(a + 10 ** 6, k), dtype=float) + 2)).sum())
             for a in range(0, k, 10 ** 6))
    (got,) = _values(RUN, q, [f"alpha-DCG(alpha=0)@{k}"]).values()
    assert got == pytest.approx((1 / 3 + (2 / 3) / L2(4) + (1 / 3) / L2(6)) / ii, rel=1e-12)


def test_huge_cutoff_through_the_bootstrap_with_processes():
    """estimate with worker processes at 10^9: the same values as at 1000."""
    from unjudged.engine.estimate import estimate_runs
    from unjudged.parallel import ProcessExecutor

    q = read_diversity_qrels(QRELS)
    runs = [read_run(RUN, name="a"), read_run({"t": {"c": 2.0, "a": 1.0}}, name="b")]
    with ProcessExecutor(2) as ex:
        huge = estimate_runs(runs, q, parse_measures(["alpha-nDCG@1000000000",
                                                      "S-recall@10000000000"]), b=5, executor=ex)
    wide = estimate_runs(runs, q, parse_measures(["alpha-nDCG@1000", "S-recall@1000"]), b=5)
    for h, w in zip(huge.runs, wide.runs, strict=True):
        assert h.nonrel.tolist() == w.nonrel.tolist() and h.point.tolist() == w.point.tolist()
