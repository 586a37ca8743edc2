"""Sampling designs (seed 002, sections 3.1 and 5): the grammar, designs worked by hand on tiny
qrels, determinism under the seed and trial, written samples read back, and `unjudged sample`.
The experiment is tested in test_sampling_experiment.py."""

from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from collection import write_collection
from unjudged.cli import main
from unjudged.io import read_qrels, read_run
from unjudged.io.sampled import format_sampled_qrels, read_sampled_qrels
from unjudged.judgments.sampling import (
    NEVER,
    allocate,
    best_ranks,
    judged_universe,
    parse_design,
    sample_qrels,
    uniform_twin,
)

# topic 1: seven judged documents (d8 is pooled but unjudged: outside the universe); topic 2: four
QRELS = """1 0 d1 1\n1 0 d2 0\n1 0 d3 1\n1 0 d4 0\n1 0 d5 0\n1 0 d6 1\n1 0 d7 0\n1 0 d8 -1
2 0 e1 1\n2 0 e2 0\n2 0 e3 0\n2 0 e4 1\n"""
RUN_A = {"1": {"d1": 5, "d2": 4, "d3": 3, "x1": 2, "d4": 1}, "2": {"e1": 2, "e2": 1}}
RUN_B = {"1": {"d3": 3, "d5": 2, "d6": 1}, "2": {"e3": 2, "e1": 1}}


def _run_text(name: str, run: dict) -> str:
    return "".join(f"{t} Q0 {d} {i + 1} {s} {name}\n" for t, docs in run.items()
                   for i, (d, s) in enumerate(docs.items()))


def tiny_collection():
    """The qrels above and the two runs (shared with test_sampling_experiment)."""
    q = read_qrels(io.BytesIO(QRELS.encode()))
    return q, [read_run(RUN_A, name="A"), read_run(RUN_B, name="B")]


def tiny_files(folder):
    """The same as files: (qrels path, run A's path, run B's path, folder)."""
    qrels, run_dir = write_collection(folder, QRELS, {"A": _run_text("A", RUN_A),
                                                      "B": _run_text("B", RUN_B)})
    return qrels, str(run_dir / "A"), str(run_dir / "B"), folder


@pytest.fixture()
def tiny():
    return tiny_collection()


@pytest.fixture()
def files(tmp_path):
    return tiny_files(tmp_path)


# ----------------------------------------------------------------------------- the grammar


@pytest.mark.parametrize("text, depth, weights, rate, canonical", [
    ("uniform:0.2", None, (1.0,), 0.2, "uniform:0.2"),
    ("uniform:20%", None, (1.0,), 0.2, "uniform:0.2"),
    ("depth:10+uniform", 10, (1.0,), None, "depth:10+uniform"),
    ("depth:5+uniform:0.3", 5, (1.0,), 0.3, "depth:5+uniform:0.3"),
    ("depth:10+strata:3,1.5,1", 10, (3.0, 1.5, 1.0), None, "depth:10+strata:3,1.5,1"),
    (" depth:2+strata:2,1:50% ", 2, (2.0, 1.0), 0.5, "depth:2+strata:2,1:0.5"),
    ("strata:2,1:0.4", None, (2.0, 1.0), 0.4, "strata:2,1:0.4"),
])
def test_designs_parse(text, depth, weights, rate, canonical):
    d = parse_design(text)
    assert (d.depth, d.weights, d.rate, d.text) == (depth, weights, rate, canonical)


@pytest.mark.parametrize("text, words", [
    ("uniform", "fraction P is needed"), ("uniform:0", "(0, 1]"), ("uniform:1.5", "(0, 1]"),
    ("depth:0+uniform", "at least 1"), ("depth:3+strata:1,0", "positive"),
    ("random:0.2", "is not a design"), ("depth:3", "is not a design"),
    ("strata:1,2", "fraction P is needed"),
])
def test_bad_designs_say_what_is_wrong(text, words):
    with pytest.raises(ValueError, match=words.replace("(", r"\(").replace(")", r"\)")):
        parse_design(text)


# ----------------------------------------------------------------------------- designs by hand


def test_best_ranks_and_the_universe(tiny):
    q, runs = tiny
    u = judged_universe(q)
    assert u.to_dict()["1"].keys() == {f"d{i}" for i in range(1, 8)}  # d8 (-1) left out
    best = dict(zip([f"d{i}" for i in range(1, 8)] + ["e1", "e2", "e3", "e4"],
                    best_ranks(u, runs).tolist(), strict=True))
    assert best == {"d1": 1, "d2": 2, "d3": 1, "d4": 5, "d5": 2, "d6": 3, "d7": NEVER,
                    "e1": 1, "e2": 2, "e3": 1, "e4": NEVER}


def _strata(sq):
    docs = {k: v for t in sq.to_dict().values() for k, v in t.items()}
    return dict(zip(docs, (sq.strata[c] for c in sq.key_strata), strict=True))


def test_depth_pool_plus_as_many_again(tiny):
    q, runs = tiny
    sq = sample_qrels(q, "depth:1+uniform", runs, seed=4)
    # topic 1: depth-1 pool {d1, d3}, 5 others of which 2; topic 2: {e1, e3} and both others
    assert sq.stratum_sizes.tolist() == [[2, 5], [2, 2]]
    assert sq.sampled_counts.tolist() == [[2, 2], [2, 2]]
    strata = _strata(sq)
    assert [d for d, s in strata.items() if s == "1"] == ["d1", "d3", "e1", "e3"]
    grades = sq.to_dict()
    assert grades["1"]["d1"] == 1 and grades["1"]["d3"] == 1 and grades["2"] == \
        {"e1": 1, "e2": 0, "e3": 0, "e4": 1}


def test_strata_of_the_rest_by_best_rank_and_rates_in_ratio(tiny):
    q, runs = tiny
    sq = sample_qrels(q, "depth:1+strata:2,1", runs, seed=4)
    strata = _strata(sq)
    # topic 1's rest by best rank (ties by docno): d2 (2), d5 (2), d6 (3) | d4 (5), d7 (never)
    assert {d: strata[d] for d in ("d2", "d5", "d6", "d4", "d7", "e2", "e4")} == \
        {"d2": "2", "d5": "2", "d6": "2", "d4": "3", "d7": "3", "e2": "2", "e4": "3"}
    # budget 2 (the depth pool) at rates 2:1: shares 1.5 and 0.5 -> 2 and 0 by largest
    # remainder (the first of a tie), then at least one from every non-empty stratum; topic 2
    # has one document in each stratum and fills both
    assert sq.sampled_counts.tolist() == [[2, 2, 1], [2, 1, 1]]


def test_allocation_caps_rates_at_one_and_passes_the_rest_on():
    # rest strata of 2 and 10 at rates 3:1 with 8 to sample: 3c*2 + c*10 = 8 gives rate 1.5 for
    # the first, so it is sampled in full and the other gets the remaining 6
    assert allocate(np.array([[8, 2, 10]]), parse_design("depth:1+strata:3,1")).tolist() == \
        [[8, 2, 6]]
    # section 5: the depth pool's worth spread 3 : 1.5 : 1 over equal strata = 55%, 27%, 18%
    assert allocate(np.array([[110, 100, 100, 100]]),
                    parse_design("depth:1+strata:3,1.5,1")).tolist() == [[110, 60, 30, 20]]
    # P of the rest; halves round up
    assert allocate(np.array([[3, 5], [3, 0]]), parse_design("depth:1+uniform:0.5")).tolist() \
        == [[3, 3], [3, 0]]
    assert allocate(np.array([[7], [4]]), parse_design("uniform:0.5")).tolist() == [[4], [2]]


def test_uniform_samples_are_deterministic_nested_and_local(tiny):
    q, _ = tiny
    a = sample_qrels(q, "uniform:0.5", seed=1, trial=2)
    assert a.sampled_counts.tolist() == [[4], [2]]  # 3.5 -> 4 and 2 of topic 1's 7 and 4
    assert a.to_dict() == sample_qrels(q, "uniform:50%", seed=1, trial=2).to_dict()
    others = [sample_qrels(q, "uniform:0.5", seed=s, trial=t).to_dict()
              for s, t in ((1, 3), (2, 2))]
    assert all(o != a.to_dict() for o in others)
    small = sample_qrels(q, "uniform:0.3", seed=1, trial=2)
    sampled = lambda s: {(t, d) for t, docs in s.to_dict().items()  # noqa: E731
                         for d, g in docs.items() if g >= 0}
    assert sampled(small) < sampled(a)  # a smaller sample lies inside a larger one
    # neither the qrels' line order nor the other topics change a topic's sample
    shuffled = read_qrels(io.BytesIO("".join(reversed(QRELS.splitlines(True))).encode()))
    assert sample_qrels(shuffled, "uniform:0.5", seed=1, trial=2).to_dict() == a.to_dict()
    alone = read_qrels(io.BytesIO(QRELS.split("2 0 e1")[0].encode()))
    assert sample_qrels(alone, "uniform:0.5", seed=1, trial=2).to_dict()["1"] == \
        a.to_dict()["1"]


def test_uniform_twin_has_as_many_judgments_per_topic(tiny):
    q, runs = tiny
    sq = sample_qrels(q, "depth:1+strata:2,1", runs, seed=4)
    twin = uniform_twin(q, sq, seed=4)
    assert twin.strata == ["1"] and twin.sampled_counts.tolist() == [[5], [4]]
    with pytest.raises(ValueError, match="not drawn"):
        uniform_twin(read_qrels({"1": {"d1": 1}}), sq)


def test_written_samples_read_back_unchanged(tiny, tmp_path):
    q, runs = tiny
    sq = sample_qrels(q, "depth:1+strata:2,1", runs, seed=9)
    path = tmp_path / "sampled.txt"
    path.write_text(format_sampled_qrels(sq))
    back = read_sampled_qrels(str(path))
    assert back.to_dict() == sq.to_dict() and back.strata == sq.strata
    assert np.array_equal(back.key_strata, sq.key_strata)
    assert np.array_equal(back.stratum_sizes, sq.stratum_sizes)

# ----------------------------------------------------------------------------- commands


def test_sample_command_writes_five_columns_that_infer_reads(files):
    qrels, a, b, tmp = files
    out = tmp / "s.txt"
    res = CliRunner().invoke(main, ["sample", qrels, a, b, "--design", "depth:1+uniform",
                                    "--seed", "4", "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert "sampled 8 of 11 judgments (72.7%); strata 1: 4 of 4, 2: 4 of 7" in res.stderr
    lines = out.read_text().splitlines()
    assert len(lines) == 11 and all(len(x.split()) == 5 for x in lines)
    assert lines[0] == "1 0 d1 1 1"
    q, runs = read_qrels(qrels), [read_run(RUN_A, name="A"), read_run(RUN_B, name="B")]
    assert read_sampled_qrels(str(out)).to_dict() == \
        sample_qrels(q, "depth:1+uniform", runs, seed=4).to_dict()
    res = CliRunner().invoke(main, ["infer", str(out), a, "-m", "xinfAP"])
    assert res.exit_code == 0 and "xinfAP" in res.output


def test_sample_command_says_when_a_design_samples_everything(files):
    """depth:2 of these runs pools every judged document: one line says that nothing is left
    to infer (README's former example did so on TREC-COVID round 1: 8691 of 8691)."""
    qrels, a, b, tmp = files
    res = CliRunner().invoke(main, ["sample", qrels, a, b, "--design", "depth:3+uniform",
                                    "-o", str(tmp / "all.txt")])
    assert res.exit_code == 0, res.output
    lines = res.stderr.splitlines()
    assert lines[0].startswith("unjudged: depth:3+uniform: sampled 11 of 11 judgments (100.0%)")
    assert lines[1:] == [
        "unjudged: note: depth:3+uniform samples every judgment, so inferred measures will "
        "equal the full qrels' values; a shallower depth or a rate samples "
        "(depth:1+strata:3,1.5,1, depth:10+strata:3,1.5,1:0.2, uniform:0.2)"]
    res = CliRunner().invoke(main, ["sample", qrels, a, b, "--design", "depth:1+uniform",
                                    "-o", str(tmp / "some.txt")])
    assert res.exit_code == 0 and len(res.stderr.splitlines()) == 1


def test_readme_sample_example_samples_round_1(tmp_path):
    """The README's `unjudged sample` example on TREC-COVID round 1 (143 runs) samples part
    of the judgments: 3416 of 8691."""
    from shared_data import DATA, need

    r1 = need(DATA / "castorini-TREC-COVID" / "round1")
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    design = re.search(r"unjudged sample qrels\.txt runs/ --design (\S+)", readme).group(1)
    res = CliRunner().invoke(main, ["sample", str(r1 / "qrels" / "qrels-rnd1.txt"),
                                    str(r1 / "runs"), "--design", design, "--seed", "1",
                                    "-o", str(tmp_path / "s.txt")])
    assert res.exit_code == 0, res.output
    assert res.stderr.splitlines() == [
        f"unjudged: {design}: sampled 3416 of 8691 judgments (39.3%); strata 1: 1708 of 1708, "
        "2: 934 of 2338, 3: 467 of 2328, 4: 307 of 2317"]


@pytest.mark.parametrize("args, words", [
    (["--design", "uniform:2"], "the sampled fraction must lie in (0, 1]"),
    (["--design", "depth:1+uniform"], "needs RUNs"),
    (["--design", "half"], "is not a design"),
])
def test_sample_command_rejects_bad_designs(files, args, words):
    res = CliRunner().invoke(main, ["sample", files[0], *args])
    assert res.exit_code == 2 and words in res.output
