"""The diversity-sampling experiment (seed 004, section 5.2): sample sizes worked by hand,
determinism across executors, tau against scipy, and the command on a tiny synthetic corpus."""

from __future__ import annotations

import doctest

import numpy as np
import pytest
from click.testing import CliRunner
from scipy.stats import kendalltau

from unjudged.cli import main
from unjudged.experiments import diversity
from unjudged.experiments.diversity import (
    JudgmentRows,
    _Shared,
    _task,
    diversity_sampling,
    estimator_scores,
    sample_judgments,
    subset_qrels,
)
from unjudged.io import read_run
from unjudged.io.diversity import read_diversity_qrels
from unjudged.measures import parse_measures
from unjudged.parallel import make_executor
from unjudged.text import build_index

# two topics; t1 has subtopics "x" (docs about wings) and "y" (about shocks); t2 one subtopic
DOCS = {"a": "wing lift wing", "b": "lift drag wing", "c": "shock wave shock",
        "d": "wave shock mach", "e": "wing shock", "f": "boat sail", "g": "sail wind boat",
        "h": "engine fuel", "i": "fuel pump engine", "j": "tree leaf", "k": "leaf root",
        "l": "wind sail"}
QRELS = [("t1", "x", "a", 1), ("t1", "x", "b", 1), ("t1", "x", "e", 1), ("t1", "y", "c", 1),
         ("t1", "y", "d", 1), ("t1", "y", "e", 0), ("t1", "x", "h", 0), ("t1", "x", "j", 0),
         ("t1", "x", "k", 0), ("t2", "s", "f", 1), ("t2", "s", "g", 1), ("t2", "s", "l", 1),
         ("t2", "s", "h", 0), ("t2", "s", "i", 0), ("t2", "s", "j", 0)]
RUNS = {"best": {"t1": "aceb", "t2": "fglh"}, "good": {"t1": "achb", "t2": "fhgj"},
        "mixed": {"t1": "hjac", "t2": "ijfg"}, "poor": {"t1": "jkhi", "t2": "hijk"}}
REFS = ["alpha-nDCG@4", "ERR-IA@4", "NRBP"]
DIVS = ["ABS-NB(mu=2)@4", "ABS-RB(mu=2)@4", "DELTA-NB(mu=2)@4", "DELTA-RB(mu=2)@4"]


def _runs():
    return [read_run({t: {d: float(len(r) - i) for i, d in enumerate(r)} for t, r in by.items()},
                     name=name) for name, by in RUNS.items()]


def _index():
    return build_index(list(DOCS), list(DOCS.values()))


def test_doctests():
    assert doctest.testmod(diversity).failed == 0


def test_sample_sizes_by_hand():
    """10 relevant and 7 non-relevant documents: max(1, ceil(p 10)) and ceil(p 7) survive."""
    rows = [("t", "1", f"r{i}", 1) for i in range(10)] + [("t", "1", f"n{i}", 0)
                                                          for i in range(7)]
    q = read_diversity_qrels(rows)
    j = JudgmentRows.build(q)
    for level, rel, nonrel in ((0.01, 1, 1), (0.1, 1, 1), (0.25, 3, 2), (0.3, 3, 3),
                               (0.5, 5, 4), (1.0, 10, 7)):
        keep = sample_judgments(j, level, seed=7, repetition=0, level_index=0)
        assert (int(keep[q.grade > 0].sum()), int(keep[q.grade == 0].sum())) == (rel, nonrel)


@pytest.mark.parametrize("sample", ["per-query", "per-subtopic"])
def test_documents_relevant_to_another_subtopic_keep_their_zero_rows(sample):
    """e is relevant to x and judged 0 for y: its y row survives exactly when its x row does;
    per subtopic, each subtopic keeps one relevant document at 10%; per query, each topic."""
    q = read_diversity_qrels(QRELS)
    j = JudgmentRows.build(q)
    docs = np.asarray(q.docs.to_pylist())[q.dcode]
    subs = np.asarray(q.group.to_pylist())
    e_x = (docs == "e") & (subs == "x")
    e_y = (docs == "e") & (subs == "y")
    for rep in range(20):
        keep = sample_judgments(j, 0.1, seed=3, repetition=rep, level_index=1, sample=sample)
        assert keep[e_x] == keep[e_y]
        if sample == "per-subtopic":
            for s in ("x", "y", "s"):
                assert keep[(subs == s) & (q.grade > 0)].sum() == 1
        else:  # t1's relevant documents a, b, c, d, e (one label each): one of them
            assert keep[np.isin(subs, ["x", "y"]) & (q.grade > 0)].sum() == 1
            assert keep[(subs == "s") & (q.grade > 0)].sum() == 1
        # 3 non-relevant documents per topic: ceil(0.3) = 1 each
        assert keep[~np.isin(docs, ["e"]) & (q.grade == 0)].sum() == 2


def test_samples_depend_only_on_seed_repetition_level_topic():
    j = JudgmentRows.build(read_diversity_qrels(QRELS))
    a = sample_judgments(j, 0.5, 11, 2, 3)
    assert np.array_equal(a, sample_judgments(j, 0.5, 11, 2, 3))
    assert any(not np.array_equal(a, sample_judgments(j, 0.5, 11, r, 3)) for r in range(5))


def test_tau_matches_scipy_and_full_judgments_agree():
    """At p = 100% the raw estimators are the references themselves: tau 1 on the diagonal;
    every tau is scipy's tau-b of the estimators' scores against the full-judgment scores."""
    q = read_diversity_qrels(QRELS)
    runs, ix = _runs(), _index()
    refs = parse_measures(REFS)
    sweep = diversity_sampling(runs, q, ix, levels=[1.0], repetitions=1, references=REFS,
                               divergence=DIVS)
    assert np.diag(sweep.tau[0, 0, :3]).tolist() == [1.0, 1.0, 1.0]
    shared = _Shared(runs, JudgmentRows.build(q), ix, refs, DIVS, sweep.reference_scores, 0)
    keep = sample_judgments(shared.rows, 0.5, 0, 1, 0)
    est = estimator_scores(shared, subset_qrels(q, keep))
    got = _task(shared, (0, 0.5, 1))
    for e in range(est.shape[1]):
        for r in range(3):
            want = kendalltau(np.round(est[:, e], 12), sweep.reference_scores[:, r]).statistic
            assert got[e, r] == pytest.approx(want, abs=1e-12, nan_ok=True)


def test_small_sweep_values_and_executors():
    """Two levels, two repetitions: pinned values, the same on a process pool."""
    q = read_diversity_qrels(QRELS)
    kw = dict(levels=[0.1, 0.5], repetitions=2, seed=4, references=REFS, divergence=DIVS,
              sample="per-subtopic")
    one = diversity_sampling(_runs(), q, _index(), **kw)
    with make_executor(jobs=2) as ex:
        two = diversity_sampling(_runs(), q, _index(), executor=ex, **kw)
    np.testing.assert_array_equal(one.tau, two.tau)
    assert one.estimators[:2] == ["alpha-nDCG@4 raw", "ERR-IA@4 raw"]
    assert one.estimators[3] == "alpha-nDCG@4 condensed" and one.estimators[-1] == DIVS[-1]
    assert np.round(one.reference_scores[:, 0], 4).tolist() == PINNED_TRUTH
    table = {(r["p"], r["estimator"], r["reference"]): round(r["tau"], 4) for r in one.table()}
    for key, value in PINNED_TAU.items():
        assert table[key] == value, key


# "poor" retrieves nothing relevant: 0
PINNED_TRUTH = [0.9743, 0.8743, 0.4703, 0.0]
# condensed lists at 10%: one repetition ties two runs, tau-b = 5 / sqrt(5 * 6) = 0.9129, the
# other swaps one pair, 4 / 6 = 0.6667; mean 0.7898. DELTA swaps one pair in both.
PINNED_TAU = {(10.0, "alpha-nDCG@4 raw", "alpha-nDCG@4"): 1.0,
              (10.0, "alpha-nDCG@4 condensed", "alpha-nDCG@4"): 0.7898,
              (10.0, "ABS-NB(mu=2)@4", "alpha-nDCG@4"): 1.0,
              (10.0, "DELTA-NB(mu=2)@4", "alpha-nDCG@4"): 0.6667,
              (50.0, "NRBP condensed", "alpha-nDCG@4"): 1.0,
              (50.0, "DELTA-RB(mu=2)@4", "alpha-nDCG@4"): 0.6667}


def test_cli(tmp_path):
    corpus = tmp_path / "docs.tsv"
    corpus.write_text("".join(f"{d}\t{t}\n" for d, t in DOCS.items()))
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{t} {s} {d} {g}\n" for t, s, d, g in QRELS))
    paths = []
    for name, by in RUNS.items():
        p = tmp_path / f"{name}.run"
        p.write_text("".join(f"{t} Q0 {d} {i + 1} {9 - i} {name}\n"
                             for t, r in by.items() for i, d in enumerate(r)))
        paths.append(str(p))
    base = ["experiment", "diversity-sampling", str(qrels), *paths, "--corpus", str(corpus),
            "--levels", "0.1,0.5", "--repetitions", "2", "--seed", "4", "--reference",
            ",".join(REFS), "--divergence", ",".join(DIVS), "--no-cache"]
    res = CliRunner().invoke(main, base + ["-f", "csv", "--details", str(tmp_path / "d.csv"),
                                           "--plot", str(tmp_path / "f.png")])
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert lines[0] == "p,estimator,reference,tau,sd" and len(lines) == 1 + 2 * 10 * 3
    assert len((tmp_path / "d.csv").read_text().splitlines()) == 1 + 2 * 2 * 10 * 3
    assert (tmp_path / "f.png").stat().st_size > 1000
    bad = CliRunner().invoke(main, base[:-1] + ["--levels", "0,2"])
    assert bad.exit_code == 2 and "--levels" in bad.output
    bad = CliRunner().invoke(main, base + ["--plot", str(tmp_path / "f.gif")])
    assert bad.exit_code == 2 and not (tmp_path / "f.gif").exists()
    bad = CliRunner().invoke(main, base + ["--reference", "nope@3"])
    assert bad.exit_code == 2 and "nope" in bad.output


def _two_label_qrels():
    """One topic, subtopics A-D, 100 relevant documents with two labels each (d0-d49 relevant
    to A and B, d50-d99 to C and D): 200 relevant lines; plus 10 non-relevant documents."""
    rows = [("t", s, f"d{i}", 1) for i in range(100)
            for s in (("A", "B") if i < 50 else ("C", "D"))]
    return read_diversity_qrels(rows + [("t", "A", f"n{i}", 0) for i in range(10)])


def _labels_per_document(q, keep):
    docs = np.asarray(q.docs.to_pylist())[q.dcode]
    rel = q.grade > 0
    return {d: (int(keep[rel & (docs == d)].sum()), int((rel & (docs == d)).sum()))
            for d in np.unique(docs[rel])}


@pytest.mark.parametrize(("level", "docs"), [(0.01, 1), (0.05, 5), (0.1, 10), (0.2, 20),
                                             (0.5, 50)])
def test_per_query_keeps_all_labels_and_the_nominal_share(level, docs):
    """Per query: ceil(p 100) documents, each with both its labels, so 2 ceil(p 100) of the 200
    relevant lines: exactly the share p; every document keeps all or none of its labels."""
    q = _two_label_qrels()
    j = JudgmentRows.build(q)
    for rep in range(10):
        keep = sample_judgments(j, level, seed=5, repetition=rep, level_index=0)
        kept = _labels_per_document(q, keep)
        assert all(k in (0, n) for k, n in kept.values())
        assert sum(k > 0 for k, _ in kept.values()) == docs
        assert int(keep[q.grade > 0].sum()) / 200 == level
        assert int(keep[q.grade == 0].sum()) == max(0, -(-int(level * 100) // 10))


def test_per_subtopic_splits_documents_and_overshoots_at_low_levels():
    """Per subtopic at 1%: max(1, ceil(0.5)) = 1 line of each subtopic's 50, so 4 of 200 lines
    (2%, twice the nominal level), and a document keeps one of its two labels whenever A and B
    (or C and D) draw different documents."""
    q = _two_label_qrels()
    j = JudgmentRows.build(q)
    split = 0
    for rep in range(20):
        keep = sample_judgments(j, 0.01, seed=5, repetition=rep, level_index=0,
                                sample="per-subtopic")
        assert int(keep[q.grade > 0].sum()) == 4
        split += any(k == 1 for k, _ in _labels_per_document(q, keep).values())
    assert split == 20


def test_one_subtopic_per_topic_samples_alike():
    """With one subtopic per topic both samplings draw the same documents with the same
    generator, so single-intent results do not depend on --sample."""
    rows = [(t, "1", f"{t}r{i}", 1) for t, n in (("a", 7), ("b", 13)) for i in range(n)]
    rows += [(t, "1", f"{t}n{i}", 0) for t, n in (("a", 20), ("b", 4)) for i in range(n)]
    j = JudgmentRows.build(read_diversity_qrels(rows))
    for level_index, level in enumerate((0.01, 0.1, 0.3, 0.5)):
        for rep in range(5):
            np.testing.assert_array_equal(
                sample_judgments(j, level, 2, rep, level_index),
                sample_judgments(j, level, 2, rep, level_index, "per-subtopic"))


def test_per_query_is_the_default_and_independent_of_jobs():
    q = read_diversity_qrels(QRELS)
    kw = dict(levels=[0.1, 0.5], repetitions=3, seed=4, references=REFS, divergence=DIVS)
    one = diversity_sampling(_runs(), q, _index(), **kw)
    with make_executor(jobs=2) as ex:
        two = diversity_sampling(_runs(), q, _index(), executor=ex, **kw)
    np.testing.assert_array_equal(one.tau, two.tau)
    again = diversity_sampling(_runs(), q, _index(), sample="per-query", **kw)
    np.testing.assert_array_equal(one.tau, again.tau)
    assert one.settings == {"repetitions": 3, "seed": 4, "sample": "per-query"}
    with pytest.raises(ValueError, match="unknown sampling 'per-topic'; expected one of "
                       "per-query, per-subtopic"):
        diversity_sampling(_runs(), q, _index(), sample="per-topic", **kw)


def test_cli_sample_option(tmp_path):
    corpus = tmp_path / "docs.tsv"
    corpus.write_text("".join(f"{d}\t{t}\n" for d, t in DOCS.items()))
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{t} {s} {d} {g}\n" for t, s, d, g in QRELS))
    paths = []
    for name, by in RUNS.items():
        p = tmp_path / f"{name}.run"
        p.write_text("".join(f"{t} Q0 {d} {i + 1} {9 - i} {name}\n"
                             for t, r in by.items() for i, d in enumerate(r)))
        paths.append(str(p))
    base = ["experiment", "diversity-sampling", str(qrels), *paths, "--corpus", str(corpus),
            "--levels", "0.1", "--repetitions", "2", "--seed", "4", "--reference",
            ",".join(REFS), "--divergence", ",".join(DIVS), "--no-cache", "-f", "csv",
            "--jobs", "1"]
    q = read_diversity_qrels(QRELS)
    for option, sample in (([], "per-query"), (["--sample", "per-subtopic"], "per-subtopic")):
        res = CliRunner().invoke(main, base + option)
        assert res.exit_code == 0, res.output
        sweep = diversity_sampling(_runs(), q, _index(), levels=[0.1], repetitions=2, seed=4,
                                   references=REFS, divergence=DIVS, sample=sample)
        rows = res.output.splitlines()[1:]
        assert [float(r.rsplit(",", 2)[1]) for r in rows] == \
            pytest.approx([r["tau"] for r in sweep.table()], abs=5e-5)  # 4 decimals
    bad = CliRunner().invoke(main, base + ["--sample", "per-topic"])
    assert bad.exit_code == 2 and "'per-topic' is not one of" in bad.output
    # the command lists the library's choices (written out there to keep numpy out of --help)
    command = main.commands["experiment"].commands["diversity-sampling"]
    option = next(p for p in command.params if p.name == "sample")
    assert tuple(option.type.choices) == diversity.SAMPLINGS and option.default == "per-query"
