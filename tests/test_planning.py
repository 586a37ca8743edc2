"""The judging planner: effects worked by hand, cases where the right document is obvious, plans
that never propose a judged document or one outside the candidates, determinism on every
executor, the command line, and the simulated judging experiment (on TREC-COVID round 1 when
the shared data is there)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from shared_data import COVID1, DATA, need
from unjudged.cli import main
from unjudged.errors import IncompatibleInputsError, InvalidOptionError
from unjudged.experiments.planning import planning_experiment
from unjudged.io import read_qrels, read_run
from unjudged.judgments.edit import filter_qrels
from unjudged.measures import parse_measures
from unjudged.parallel import ProcessExecutor
from unjudged.planning import STRATEGIES, PlanSettings, Universe, plan
from unjudged.planning.effects import effects
from unjudged.planning.strategies import split_budget
from unjudged.planning.value import PairMoments, entropy, uncertainty_values

ALL = list(STRATEGIES)


def _flip_case():
    """Three runs over one topic. A and B rank the same judged documents, except that A puts
    the unjudged u at rank 1 and B the judged non-relevant n there: u alone decides whether A
    beats B. C retrieves the unjudged v at rank 3, which no comparison hinges on as much."""
    q = read_qrels({"t": {"r1": 1, "r2": 1, "n": 0, "m": 0}})
    a = read_run({"t": {"u": 5, "r1": 4, "m": 3, "r2": 2}}, name="A")
    b = read_run({"t": {"n": 5, "r1": 4, "m": 3, "r2": 2}}, name="B")
    c = read_run({"t": {"r1": 5, "m": 4, "v": 3, "r2": 2}}, name="C")
    return q, [a, b, c]


def test_effects_by_hand():
    q, runs = _flip_case()
    u = Universe.build(runs, q)
    assert sorted(u.docno.to_pylist()) == ["u", "v"]
    e = effects(u, parse_measures("P@2")[0])
    # u at rank 1 of A: judged relevant, P@2 goes from 1/2 to 2/2; v is below rank 2 of C
    assert e.run.tolist() == [0]
    assert u.docno.take([int(e.candidate[0])]).to_pylist() == ["u"]
    np.testing.assert_allclose(e.delta, [[0.0, 0.5]])
    # for P@3, v at rank 3 of C moves it by 1/3
    e3 = effects(u, parse_measures("P@3")[0])
    got = {(u.runs[r], u.docno[c].as_py()): d.tolist() for r, c, d in
           zip(e3.run, e3.candidate, e3.delta, strict=True)}
    assert got == {("A", "u"): [0.0, pytest.approx(1 / 3)], ("C", "v"): [0.0,
                                                                        pytest.approx(1 / 3)]}


def test_effects_are_per_topic_means():
    # two topics: a document of one topic moves the run's mean by half its topic's change
    q = read_qrels({"1": {"a": 1}, "2": {"b": 1}})
    r = read_run({"1": {"x": 2, "a": 1}, "2": {"b": 1}}, name="r")
    u = Universe.build([r], q)
    e = effects(u, parse_measures("P@1")[0])
    np.testing.assert_allclose(e.delta, [[0.0, 0.5]])


@pytest.mark.parametrize("strategy", ["mtc", "uncertainty"])
def test_the_document_that_decides_a_pair_comes_first(strategy):
    q, runs = _flip_case()
    p = plan(runs, q, 1, parse_measures("nDCG@3"),
             PlanSettings(strategy, objective="pair", pair=("A", "B"), b=400))
    assert p.docnos == ["u"]
    assert p.scores[0] > 0


def test_pair_objective_ignores_documents_of_other_runs():
    q, runs = _flip_case()
    for s in ALL:
        p = plan(runs, q, 5, parse_measures("nDCG@3"),
                 PlanSettings(s, objective="pair", pair=("A", "B"), b=200))
        assert p.docnos == ["u"], s  # v is C's only


def test_an_open_pair_gets_no_note():
    q, runs = _flip_case()
    for s in ALL:
        p = plan(runs, q, 5, parse_measures("nDCG@3"),
                 PlanSettings(s, objective="pair", pair=("A", "B"), b=200))
        assert p.note is None and p.docnos == ["u"], s


# the shipped example (TREC-COVID round 1): under nDCG@10, [nonrel, upper] is BBGhelani1
# [0.6689, 0.7084], BERT [0.1736, 0.2866], run1 [0.6844, 0.7407]
EXAMPLE = Path(__file__).resolve().parents[1] / "src" / "unjudged" / "data" / "example"


@pytest.mark.parametrize("strategy", ["uncertainty", "mtc", "depth"])
def test_a_pair_the_bounds_settle_gets_no_documents_and_says_so(strategy):
    """The pair objective on a pair whose bounds do not overlap: no judgment can reverse it,
    so no document is proposed (the planner offered 50 of value 0 before), and the note says
    why with the bounds."""
    runs = [read_run(EXAMPLE / f"{n}.run.xz") for n in ("BBGhelani1", "BERT", "run1")]
    q = read_qrels(EXAMPLE / "qrels-rnd1.txt.xz")
    p = plan(runs, q, 50, parse_measures("nDCG@10"),
             PlanSettings(strategy, objective="pair", pair=("BERT", "BBGhelani1"), b=200))
    assert len(p) == 0 and p.lines() == "" and p.open_before > 0
    assert p.note == (
        "--pair BERT BBGhelani1 is settled: under nDCG@10 BBGhelani1 scores at least 0.6689 "
        "(unjudged documents non-relevant) and BERT at most 0.2866 (of the best grade the "
        "pool has), so judging cannot reverse the order while the pool's normaliser holds; "
        "the plan is empty")


def test_cli_plan_on_a_settled_pair(tmp_path):
    files = [str(EXAMPLE / "qrels-rnd1.txt.xz"),
             *(str(EXAMPLE / f"{n}.run.xz") for n in ("BBGhelani1", "BERT", "run1"))]
    out = CliRunner().invoke(main, ["plan", *files, "--budget", "50", "-b", "200", "--pair",
                                    "BBGhelani1", "BERT"])
    assert out.exit_code == 0, out.output
    assert out.stdout == ""
    notes = [x for x in out.stderr.splitlines() if x.startswith("unjudged: note:")]
    assert len(notes) == 1 and "--pair BBGhelani1 BERT is settled" in notes[0]
    assert "plan: 0 documents" in out.stderr
    # a pair the bootstrap settles but the bounds do not: the list, and why it is there
    out = CliRunner().invoke(main, ["plan", *files, "--budget", "20", "-b", "200", "--pair",
                                    "BBGhelani1", "run1"])
    assert out.exit_code == 0 and len(out.stdout.splitlines()) == 20
    notes = [x for x in out.stderr.splitlines() if x.startswith("unjudged: note:")]
    assert notes == ["unjudged: note: --pair BBGhelani1 run1 is settled by the bootstrap: "
                     "P(run1 > BBGhelani1) = 1.000 under nDCG@10 (the report's threshold is "
                     "0.95), not by the bounds: the plan lists the documents whose judgment "
                     "could still reverse it"]


def test_uncertainty_prefers_the_open_comparison():
    # A and B tie on everything judged; u (A's rank 1) and w (C's rank 5, deep) are unjudged.
    # Judging u tells A from B (and from C); w barely moves C
    q = read_qrels({"t": {"r1": 1, "r2": 1, "n": 0, "m": 0, "o": 0}})
    a = read_run({"t": {"u": 6, "r1": 5, "m": 4, "r2": 3, "o": 2}}, name="A")
    b = read_run({"t": {"n": 6, "r1": 5, "m": 4, "r2": 3, "o": 2}}, name="B")
    c = read_run({"t": {"r1": 6, "m": 5, "r2": 4, "o": 3, "w": 2}}, name="C")
    p = plan([a, b, c], q, 2, parse_measures("nDCG@5"), PlanSettings(b=400))
    assert p.docnos[0] == "u"
    assert p.scores[0] > p.scores[1]


def test_entropy_and_the_information_never_negative():
    assert entropy(np.array([0.5]))[0] == pytest.approx(1.0)
    assert entropy(np.array([0.0, 1.0])).tolist() == [0.0, 0.0]
    q, runs = _flip_case()
    u = Universe.build(runs, q)
    e = effects(u, parse_measures("nDCG@3")[0])
    draws = np.random.default_rng(0).normal([0.5, 0.45, 0.4], 0.05, size=(500, 3))
    m = PairMoments.of(draws)
    cands = np.arange(len(u))
    prob = np.full((len(u), 2), 0.5)
    m.share_of(e, cands, prob)
    vals = uncertainty_values(e, cands, prob, m, 1 - np.eye(3))
    assert np.all(vals >= 0) and vals.max() > 0


def test_candidates_below_the_depth_are_worth_nothing():
    """value._only_ranked: a candidate no run ranks within the measure's depth gets 0, and the
    others the values they get alone (mtc_values too)."""
    from unjudged.planning.value import mtc_values

    q, runs = _flip_case()
    u = Universe.build(runs, q)
    e = effects(u, parse_measures("nDCG@2")[0])  # v (C's rank 3) is below the depth
    draws = np.random.default_rng(0).normal([0.5, 0.45, 0.4], 0.05, size=(500, 3))
    cands = np.arange(len(u))
    ranked = np.isin(cands, e.candidate)
    assert 0 < ranked.sum() < len(u)
    prob = np.full((len(u), 2), 0.5)
    m, alone = PairMoments.of(draws), PairMoments.of(draws)
    m.share_of(e, cands, prob)
    alone.share_of(e, cands[ranked], prob)
    assert np.array_equal(m.pair_share, alone.pair_share)
    for fn in (lambda c: uncertainty_values(e, c, prob, m, 1 - np.eye(3)),
               lambda c: mtc_values(e, c, 1 - np.eye(3))):
        vals = fn(cands)
        assert vals[~ranked].tolist() == [0.0] * int((~ranked).sum())
        assert vals[ranked].tolist() == fn(cands[ranked]).tolist()
        assert vals[ranked].max() > 0


@given(st.lists(st.integers(0, 2**64 - 1), max_size=60), st.integers(1, 5))
@settings(max_examples=150, deadline=None)
def test_distinct_keys_equal_numpy_unique(values, repeat):
    """strategies.keys.distinct (a hash table) gives np.unique's sorted keys, first positions
    and inverse, with repeated keys in any order."""
    from unjudged.strategies.keys import distinct

    keys = np.array(values * repeat, dtype=np.uint64)
    np.random.default_rng(len(values)).shuffle(keys)
    want = np.unique(keys, return_index=True, return_inverse=True)
    got = distinct(keys)
    for a, b in zip(want, got, strict=True):
        assert a.tolist() == b.tolist()


def test_depth_and_rbp_by_hand():
    q = read_qrels({"t": {"j": 0}})
    a = read_run({"t": {"j": 9, "a1": 8, "a2": 7}}, name="a")
    b = read_run({"t": {"b1": 9, "a2": 8, "b2": 7}}, name="b")
    ms = parse_measures("P@3")
    # depth: rank 1 (b1), then rank 2 (a1, a2), then rank 3 (b2); ties by more runs first:
    # a2 is retrieved by both runs
    assert plan([a, b], q, 4, ms, PlanSettings("depth")).docnos == ["b1", "a2", "a1", "b2"]
    # rbp (p = 0.8): a2 0.16 + 0.128 = 0.288 > b1 0.2 > a1 0.16 > b2 0.128
    p = plan([a, b], q, 4, ms, PlanSettings("rbp"))
    assert p.docnos == ["a2", "b1", "a1", "b2"]
    np.testing.assert_allclose(p.scores, [0.288, 0.2, 0.16, 0.128])


def test_bandits_follow_the_run_that_finds_relevant_documents():
    # run g's judged top is relevant, run z's non-relevant: both bandits take g's next document
    q = read_qrels({"t": {"g1": 1, "g2": 1, "z1": 0, "z2": 0}})
    g = read_run({"t": {"g1": 9, "g2": 8, "gx": 7, "gy": 6}}, name="g")
    z = read_run({"t": {"z1": 9, "z2": 8, "zx": 7, "zy": 6}}, name="z")
    for s in ("mtf", "maxmean"):
        p = plan([z, g], q, 1, parse_measures("P@3"), PlanSettings(s))
        assert p.docnos == ["gx"], s


def test_split_budget():
    assert split_budget(np.array([3, 3, 3]), 7).tolist() == [3, 2, 2]
    assert split_budget(np.array([0, 5, 1]), 10).tolist() == [0, 5, 1]


def _random_case(data):
    docs = [f"d{i}" for i in range(12)]
    topics = ["1", "2"]
    qrels = {}
    for t in topics:
        judged = data.draw(st.lists(st.sampled_from(docs), min_size=1, max_size=6, unique=True))
        qrels[t] = {d: data.draw(st.integers(-1, 2)) for d in judged}
    runs = []
    for i in range(data.draw(st.integers(1, 4))):
        ranking = {}
        for t in topics:
            ds = data.draw(st.lists(st.sampled_from(docs), min_size=0, max_size=8, unique=True))
            if ds:
                ranking[t] = {d: float(len(ds) - k) for k, d in enumerate(ds)}
        if ranking:
            runs.append(read_run(ranking, name=f"r{i}"))
    cands = {t: {d: 0 for d in data.draw(st.lists(st.sampled_from(docs), max_size=8,
                                                  unique=True))} for t in topics}
    cands = {t: v for t, v in cands.items() if v}
    return read_qrels(qrels), runs, (read_qrels(cands) if cands else None)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_a_plan_proposes_only_open_candidates(data):
    q, runs, cands = _random_case(data)
    if not runs:
        return
    strategy = data.draw(st.sampled_from(ALL))
    budget = data.draw(st.integers(1, 30))
    p = plan(runs, q, budget, parse_measures("nDCG@5"), PlanSettings(strategy, b=50),
             candidates=cands)
    pairs = list(zip(p.topic_ids, p.docnos, strict=True))
    assert len(set(pairs)) == len(pairs)  # no document twice
    judged = {(t, d) for t, g in q.to_dict().items() for d, v in g.items() if v >= 0}
    retrieved = {(t, d) for r in runs for t, g in r.to_dict().items() for d in g}
    for pair in pairs:
        assert pair not in judged
        assert pair in retrieved
        if cands is not None:
            assert pair[1] in cands.to_dict().get(pair[0], {})
    assert len(p) == min(budget, p.open_before)


def test_same_seed_same_plan_on_every_executor():
    q, runs = _flip_case()
    ms = parse_measures("nDCG@3")
    one = plan(runs, q, 2, ms, PlanSettings(b=300, seed=7))
    with ProcessExecutor(2) as ex:
        two = plan(runs, q, 2, ms, PlanSettings(b=300, seed=7), executor=ex)
    assert one.docnos == two.docnos
    np.testing.assert_array_equal(one.scores, two.scores)


def test_bad_settings_are_one_clear_error():
    q, runs = _flip_case()
    with pytest.raises(InvalidOptionError, match="strategy must be one of"):
        PlanSettings("random")
    with pytest.raises(InvalidOptionError, match="two different runs"):
        PlanSettings(objective="pair", pair=("A", "A"))
    with pytest.raises(InvalidOptionError, match="bootstrap estimates; not Bpref"):
        plan(runs, q, 1, parse_measures("bpref"))
    with pytest.raises(IncompatibleInputsError, match="'Z' is not among the runs"):
        plan(runs, q, 1, parse_measures("P@2"), PlanSettings(objective="pair", pair=("A", "Z")))
    with pytest.raises(InvalidOptionError, match="at least 1 document"):
        plan(runs, q, 0, parse_measures("P@2"))


def _write_case(tmp_path):
    (tmp_path / "q").write_text("t 0 r1 1\nt 0 r2 1\nt 0 n 0\nt 0 m 0\n")
    (tmp_path / "A").write_text("t Q0 u 1 5 A\nt Q0 r1 2 4 A\nt Q0 m 3 3 A\nt Q0 r2 4 2 A\n")
    (tmp_path / "B").write_text("t Q0 n 1 5 B\nt Q0 r1 2 4 B\nt Q0 m 3 3 B\nt Q0 r2 4 2 B\n")
    (tmp_path / "C").write_text("t Q0 r1 1 5 C\nt Q0 m 2 4 C\nt Q0 v 3 3 C\nt Q0 r2 4 2 C\n")
    return [str(tmp_path / n) for n in ("q", "A", "B", "C")]


def test_cli_plan_writes_a_pool_file_and_a_summary(tmp_path):
    q, a, b, c = _write_case(tmp_path)
    out = tmp_path / "to_judge"
    details = tmp_path / "d.jsonl"
    res = CliRunner().invoke(main, ["plan", q, a, b, c, "--budget", "1", "--pair", "A", "B",
                                    "-m", "nDCG@3", "-b", "300", "-o", str(out),
                                    "--details", str(details), "--summary", "tsv"])
    assert res.exit_code == 0, res.output
    assert out.read_text() == "t 0 u -1\n"
    lines = res.stdout.splitlines()  # the pair's runs offer u only (v is C's)
    assert lines[0].split("\t") == ["topic", "candidates", "chosen", "expected_relevant",
                                    "best_rank_min", "best_rank_median"]
    assert lines[1].split("\t")[:3] == ["t", "1", "1"]
    row = json.loads(details.read_text().splitlines()[0])
    assert (row["docno"], row["best_rank"], row["runs"]) == ("u", 1, 1)


def test_cli_plan_summary_lists_topics_in_natural_order(tmp_path):
    """Issue 32 item 11: topics 1, 2, 10 (byte order 1, 10, 2), as eval lists them."""
    topics = ("10", "2", "1")
    (tmp_path / "q").write_text("".join(f"{t} 0 r 1\n{t} 0 n 0\n" for t in topics))
    for name in ("A", "B"):
        (tmp_path / name).write_text("".join(f"{t} Q0 u{name} 1 2 {name}\n{t} Q0 r 2 1 {name}\n"
                                             for t in topics))
    files = [str(tmp_path / n) for n in ("q", "A", "B")]
    for fmt in ("table", "tsv"):
        res = CliRunner().invoke(main, ["plan", *files, "--budget", "2", "--strategy", "depth",
                                        "--summary", fmt, "-o", str(tmp_path / "pool")])
        assert res.exit_code == 0, res.output
        first = [line.split()[0] for line in res.stdout.splitlines()[1:]]
        assert [t for t in first if t in topics] == ["1", "2", "10"], res.stdout


def test_cli_plan_notes_and_errors(tmp_path):
    q, a, b, c = _write_case(tmp_path)
    res = CliRunner().invoke(main, ["plan", q, a, b, c, "--budget", "9", "--strategy",
                                    "depth"])
    assert res.exit_code == 0
    assert res.stdout == "t 0 u -1\nt 0 v -1\n"
    assert "only 2 documents can be chosen; the plan holds 2, not 9" in res.stderr
    (tmp_path / "cands").write_text("t 0 v 1\n")
    res = CliRunner().invoke(main, ["plan", q, a, b, c, "--budget", "9", "--strategy",
                                    "depth", "--candidates", str(tmp_path / "cands")])
    assert res.stdout == "t 0 v -1\n"
    assert "only 1 documents can be chosen" in res.stderr
    # v is open; r1 is judged, nobody retrieves "elsewhere", topic 9 is not in the qrels
    (tmp_path / "cands2").write_text("t 0 v 1\nt 0 r1 1\nt 0 elsewhere 0\n9 0 v 0\n")
    res = CliRunner().invoke(main, ["plan", q, a, b, c, "--budget", "1", "--strategy",
                                    "depth", "--candidates", str(tmp_path / "cands2")])
    assert res.stdout == "t 0 v -1\n"
    assert ("--candidates: 3 of its 4 (topic, document) pairs are not open candidates"
            in res.stderr)
    (tmp_path / "none").write_text("t 0 zz 1\n")
    res = CliRunner().invoke(main, ["plan", q, a, b, c, "--budget", "9", "--candidates",
                                    str(tmp_path / "none")])
    assert res.exit_code == 0 and res.stdout == ""
    assert ("no candidate: no document the runs retrieve is unjudged and among --candidates"
            in res.stderr)
    res = CliRunner().invoke(main, ["plan", q, a, b, "--budget", "1", "-m", "bpref"])
    assert res.exit_code == 2
    assert res.stderr.strip().splitlines()[-1].startswith("unjudged: error: the uncertainty")
    res = CliRunner().invoke(main, ["plan", q, a, b, "--budget", "1", "--objective", "pair"])
    assert res.exit_code == 2 and "--pair RUN_A RUN_B" in res.stderr


def _experiment_case():
    start = read_qrels({"1": {"a": 1, "b": 0}, "2": {"c": 1}})
    truth = read_qrels({"1": {"a": 1, "b": 0, "x": 1, "y": 0}, "2": {"c": 1, "z": 1, "w": 0}})
    r1 = read_run({"1": {"a": 3, "x": 2, "b": 1}, "2": {"z": 2, "c": 1}}, name="r1")
    r2 = read_run({"1": {"y": 3, "b": 2, "a": 1}, "2": {"c": 2, "w": 1}}, name="r2")
    r3 = read_run({"1": {"b": 3, "a": 2}, "2": {"w": 2, "z": 1}}, name="r3")
    return start, truth, [r1, r2, r3]


def test_experiment_by_hand():
    start, truth, runs = _experiment_case()
    ms = parse_measures("P@1")
    sweep = planning_experiment(runs, start, truth, [2, 4], ["depth"], ms, ms,
                                settings=PlanSettings(b=100), b=100, details=True,
                                references={"all": truth})
    assert sweep.candidates == 4  # x, y, z, w: judged by the truth only
    rows = {(r["judgments"]): r for r in sweep.mean_rows()}
    # P@1 on the truth: r1 (a, z) 1, r2 (y, c) 1/2, r3 (b, w) 0; on the start qrels z is
    # unjudged: r1 1/2, r2 1/2, r3 0
    assert rows[0]["rmse"] == pytest.approx(np.sqrt(0.25 / 3))
    # depth: rank 1 first, retrieved by more runs first (w and z by two runs, then y), ties
    # by topic and document id; then x (rank 2). After all four the scores are the truth's
    assert [d["docno"] for d in sweep.details] == ["w", "z", "y", "x"]
    assert rows[2]["rmse"] == 0.0  # z relevant: r1 is 1 after the first batch already
    assert rows[4]["rmse"] == 0.0 and rows[4]["tau"] == pytest.approx(1.0)
    assert rows[0]["tau"] < 1  # r1 and r2 tie at the start
    ref = sweep.references[0]
    assert (ref["judgments"], ref["tau"]) == (4, pytest.approx(1.0))
    needed = sweep.needed()[0]
    assert needed["judgments"] == 2 and needed["ratio"] == 0.5


def test_experiment_refuses_a_truth_without_candidates():
    start, truth, runs = _experiment_case()
    ms = parse_measures("P@1")
    with pytest.raises(IncompatibleInputsError, match="nothing to plan"):
        planning_experiment(runs, start, start, [1], ["depth"], ms, ms)
    with pytest.raises(InvalidOptionError, match="increasing"):
        planning_experiment(runs, start, truth, [3, 2], ["depth"], ms, ms)


def test_cli_experiment(tmp_path):
    start, truth, runs = _experiment_case()
    from unjudged.io.write import format_qrels

    (tmp_path / "start").write_text(format_qrels(start))
    (tmp_path / "truth").write_text(format_qrels(truth))
    paths = []
    for r in runs:
        p = tmp_path / r.name
        p.write_text("".join(f"{t} Q0 {d} {k + 1} {s} {r.name}\n"
                             for t, g in r.to_dict().items()
                             for k, (d, s) in enumerate(g.items())))
        paths.append(str(p))
    res = CliRunner().invoke(main, [
        "experiment", "planning", str(tmp_path / "start"), *paths, "--truth",
        str(tmp_path / "truth"), "--budgets", "2,4", "--strategies", "depth,uncertainty",
        "-m", "P@1", "--evaluate", "P@1,bpref", "-b", "50", "-f", "tsv",
        "--reference", f"all={tmp_path / 'truth'}", "--plot", str(tmp_path / "c.png"),
        "--details", str(tmp_path / "d.csv")])
    assert res.exit_code == 0, res.output
    head = res.stdout.splitlines()[0].split("\t")
    assert head[:4] == ["strategy", "judgments", "measure", "tau"]
    assert len(res.stdout.splitlines()) == 1 + 2 * 3 * 2  # strategies x budgets(+0) x measures
    assert (tmp_path / "c.png").stat().st_size > 0
    assert (tmp_path / "d.documents.csv").read_text().count("\n") == 1 + 2 * 4


def test_round1_with_judgment_set_1_5_as_reference():
    """Ten round-1 runs: Judgment Set 1.5 adds 5,734 judgments on the round-1 topics, and
    planning with nDCG@10 improves the ranking's agreement with the complete qrels."""
    anserini = need(DATA / "anserini-tools" / "qrels")
    import glob

    from unjudged.io.runs import read_runs

    start = read_qrels(need(COVID1 / "qrels" / "qrels-rnd1.txt"))
    truth = read_qrels(anserini / "qrels.covid-complete.txt")
    js15 = filter_qrels(read_qrels(anserini / "qrels.covid-round2.txt"), iterations=["1.5"])
    runs = list(read_runs(sorted(glob.glob(str(COVID1 / "runs" / "*.xz")))[:10]))
    ms = parse_measures("nDCG@10")
    sweep = planning_experiment(runs, start, truth, [100, 300], ["depth", "uncertainty"], ms,
                                ms, settings=PlanSettings(b=100), b=100,
                                references={"js1.5": js15})
    assert sweep.references[0]["judgments"] == 5734
    for s in ("depth", "uncertainty"):
        rmse = [r["rmse"] for r in sweep.mean_rows() if r["strategy"] == s]
        assert rmse[-1] < rmse[0]


@pytest.mark.parametrize("strategy", ["mtc", "uncertainty"])
@pytest.mark.parametrize("prior", ["position", "pool"])
def test_intervals_objective_takes_the_document_that_moves_a_run_most(strategy, prior):
    # u at rank 1 of A moves A's nDCG@3 far more than v at rank 3 of C
    q, runs = _flip_case()
    p = plan(runs, q, 2, parse_measures("nDCG@3"),
             PlanSettings(strategy, objective="intervals", prior=prior, b=300))
    assert p.docnos == ["u", "v"]
    assert p.scores[0] > p.scores[1] > 0


def test_trials_average_and_repeat_the_deterministic_strategies():
    start, truth, runs = _experiment_case()
    ms = parse_measures("P@1")
    sweep = planning_experiment(runs, start, truth, [2, 4], ["depth", "uncertainty"], ms, ms,
                                settings=PlanSettings(b=50), b=50, trials=2)
    assert len(sweep.rows) == 2 * 2 * 3  # strategies x trials x (start + 2 batches)
    depth = [r for r in sweep.rows if r["strategy"] == "depth"]
    assert [r["rmse"] for r in depth if r["trial"] == 0] == \
        [r["rmse"] for r in depth if r["trial"] == 1]
    assert len(sweep.mean_rows()) == 2 * 3


def test_the_command_line_lists_every_strategy_and_objective():
    # the command line names them without importing the planner (numpy) at start-up
    from unjudged.cli import plan as cli_plan
    from unjudged.planning import OBJECTIVES

    assert tuple(STRATEGIES) == cli_plan._STRATEGIES
    assert cli_plan._OBJECTIVES == OBJECTIVES


def test_first_equals_the_head_of_the_full_order():
    """strategies._first: the first n of the full order, ties (at the n-th key too) broken
    by best rank, topic and document id as the full order breaks them; NaN keys last."""
    from types import SimpleNamespace

    from unjudged.planning.strategies import _first, _order

    rng = np.random.default_rng(4)
    m = 2000
    best = rng.integers(1, 6, size=m)
    ctx = SimpleNamespace(best_and_hits=lambda: (best, None),
                          doc_order=rng.permutation(m), u=SimpleNamespace(
                              topic=rng.integers(0, 3, size=m)))
    c = rng.permutation(m)[:1500]
    for key in (rng.integers(0, 4, size=c.size).astype(float),  # many ties at every value
                rng.random(c.size), np.where(rng.random(c.size) < 0.5, np.nan, 1.0)):
        full = _order(ctx, c, key)
        for n in (0, 1, 7, 64, 700, 1499, 1500, 2000):
            assert _first(ctx, c, key, n).tolist() == full[:n].tolist()
