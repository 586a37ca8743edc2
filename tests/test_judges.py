"""Automatic judges with an audit sample (unjudged.judges): PPI by hand, its limits (lam = 0
is the audit alone, lam = 1 classic PPI, a perfect judge is exact), the audit's design and
determinism, the errors a user can cause, and a small coverage simulation."""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from unjudged import read_qrels, read_run
from unjudged.cli import main
from unjudged.errors import InvalidOptionError
from unjudged.judges import draw_audit, judge_estimate, read_audit, read_judge
from unjudged.judges.audit import capped_pi, design_pi, draw, format_audit
from unjudged.judges.diagnose import kappa, lift_flags
from unjudged.judges.estimate import estimate_setting
from unjudged.judges.setting import build_setting
from unjudged.measures import parse_measures

RUN = {"1": {"d1": 4.0, "d2": 3.0, "d3": 2.0, "d4": 1.0}}
JUDGE = b"1 0 d1 1\n1 0 d2 1\n1 0 d3 0\n1 0 d4 0\n"
AUDIT = b"1 d1 0.8\n1 d3 0.5\n"
HUMAN = {"1": {"d1": 0, "d3": 1}}  # the audited documents' grades, merged into the qrels


def _mean_row(rows: pd.DataFrame, measure: str = "P@4") -> pd.Series:
    return rows[(rows.topic == "all") & (rows.measure == measure)].iloc[0]


def test_hand_worked_classic_ppi():
    """P@4 = (1/4) sum of relevance. Judge: d1, d2 relevant. Audit: d1 (pi 0.8, people: not
    relevant), d3 (pi 0.5, people: relevant). Judged: 2/4 = 0.5. Classic PPI (lam = 1):
    0.5 + (1/4)(1/0.5) - (1/4)(1/0.8) = 0.6875. Its variance: the audit's own
    sum (1 - pi)/pi^2 c^2 (y - f)^2 = 0.2/0.64/16 + 0.5/0.25/16 = 0.14453125, larger here than
    the grade model's."""
    rows = judge_estimate(read_run(RUN, name="r"), HUMAN, JUDGE, ["P@4"], audit=AUDIT,
                          level=0.5, lam=1.0, calibrate=False)
    row = _mean_row(rows)
    assert row.judged == pytest.approx(0.5)
    assert row.estimate == pytest.approx(0.6875)
    assert row.human_only == pytest.approx(0.5)  # (1/4)(1/0.5)
    half = NormalDist().inv_cdf(0.75) * math.sqrt(0.14453125)
    cell = rows[(rows.topic == "1") & (rows.measure == "P@4")].iloc[0]
    assert (cell.lo, cell.hi) == pytest.approx((0.6875 - half, 0.6875 + half))
    # the run mean's score interval: no document is fixed by the qrels (both are audited),
    # so its variance is taken as proportional to theta: (0.6875 - theta)^2 = z^2 0.14453125
    # theta / 0.6875 at both ends, theta = 0.4745 and 0.9961 (the roots by hand)
    z2 = NormalDist().inv_cdf(0.75) ** 2
    for theta in (row.lo, row.hi):
        assert (0.6875 - theta) ** 2 == pytest.approx(z2 * 0.14453125 * theta / 0.6875)
    assert (row.lo, row.hi) == pytest.approx((0.4745, 0.9961), abs=1e-4)
    assert row.lam == 1.0 and row.audited == 2


def test_score_interval_and_quantiles():
    """The score interval's ends are its quantiles at -+z, the value at z = 0, increasing in
    z, and the normal interval when the uncertain part is many standard errors."""
    from unjudged.judges.ppi import interval, score_interval, score_quantile

    value, var, fixed = np.array([0.3, 0.3, 50.0]), np.array([0.01, 0.0, 0.01]), \
        np.array([0.2, 0.2, 0.0])
    lo, hi = score_interval(value, var, fixed, 0.9)
    z = NormalDist().inv_cdf(0.95)
    np.testing.assert_allclose(lo, score_quantile(value, var, fixed, -z))
    np.testing.assert_allclose(score_quantile(value, var, fixed, 0.0), value)
    assert lo[1] == hi[1] == 0.3  # no variance: a point
    nlo, nhi = interval(value, var, 0.9)
    assert (lo[2], hi[2]) == pytest.approx((nlo[2], nhi[2]), abs=1e-3)
    # an estimate one standard error above its known part reaches further up than down
    assert hi[0] - 0.3 > 0.3 - lo[0] > 0
    q = score_quantile(value[:1], var[:1], fixed[:1], np.linspace(-4, 4, 81)[:, None])
    assert (np.diff(q[:, 0]) > 0).all()
    # a flat share of the variance (nDCG's estimated ideal's) does not grow with the
    # uncertain part: all of it flat is the normal interval, half of it lies between
    flo, fhi = score_interval(value[:1], var[:1], fixed[:1], 0.9, 1.0)
    assert (flo[0], fhi[0]) == pytest.approx((nlo[0], nhi[0]))
    hlo, hhi = score_interval(value[:1], var[:1], fixed[:1], 0.9, 0.5)
    assert nlo[0] < hlo[0] < lo[0] and nhi[0] < hhi[0] < hi[0]
    q = score_quantile(value[:1], var[:1], fixed[:1], np.linspace(-4, 4, 81)[:, None], 0.5)
    assert (np.diff(q[:, 0]) > 0).all()


def test_lam_zero_is_the_audit_alone():
    rows = judge_estimate(read_run(RUN, name="r"), HUMAN, JUDGE, ["P@4", "nDCG@4", "RBP"],
                          audit=AUDIT, lam=0.0)
    cells = rows[rows.run != ""]
    np.testing.assert_allclose(cells.estimate, cells.human_only)
    # the variances differ only in the grade model (per judge label vs pooled), and both are at
    # least the audit's own: sum (1 - pi)/pi^2 c^2 y^2 = 0.5/0.25/16 for P@4
    p4 = _mean_row(rows)
    half = NormalDist().inv_cdf(0.975) * math.sqrt(0.125)
    assert p4.hi >= min(1.0, 0.5 + half) - 1e-12 and p4.human_hi >= min(1.0, 0.5 + half) - 1e-12
    # Horvitz-Thompson by hand: RBP(p=0.8) with d3 at rank 3, gain 1 (grade 1 of 0..1)
    rbp = _mean_row(rows, "RBP").estimate
    assert rbp == pytest.approx(0.2 * 0.8 ** 2 / 0.5)


def test_tuned_lam_never_worse_than_the_audit_alone():
    rows = judge_estimate(read_run(RUN, name="r"), HUMAN, JUDGE, ["P@4"], audit=AUDIT,
                          calibrate=False)
    row = _mean_row(rows)
    assert 0.0 <= row.lam <= 1.0
    assert row.hi - row.lo <= row.human_hi - row.human_lo + 1e-12


def _population(seed: int, topics: int = 8, docs: int = 60, error: float = 0.15):
    """Binary truth (30% relevant), a judge that flips `error` of the labels, three runs
    ranking each topic's documents by truth + noise."""
    rng = np.random.default_rng(seed)
    truth = {}
    judge = []
    for t in range(topics):
        rel = rng.random(docs) < 0.3
        flip = rng.random(docs) < error
        truth[str(t)] = {f"d{i}": int(r) for i, r in enumerate(rel)}
        judge += [f"{t} 0 d{i} {int(r ^ f)}\n"
                  for i, (r, f) in enumerate(zip(rel, flip, strict=True))]
    runs = []
    for k, sd in enumerate((0.5, 1.0, 3.0)):
        runs.append(read_run({t: {d: g + rng.normal(0, sd) for d, g in grades.items()}
                              for t, grades in truth.items()}, name=f"r{k}"))
    return truth, "".join(judge).encode(), runs


def _setting(truth, judge, runs):
    st = build_setting(runs, None, read_judge(judge), levels=2)
    pairs = zip(st.pair_topic, st.pair_docno, strict=True)
    key = {(st.topics[t], d): i for i, (t, d) in enumerate(pairs)}
    grade = np.full(st.pi.size, -1)
    for t, docs in truth.items():
        for d, g in docs.items():
            grade[key[t, d]] = g
    return st, grade


def test_a_perfect_judge_is_exact_and_narrower():
    truth, _, runs = _population(1)
    judge = "".join(f"{t} 0 {d} {g}\n" for t, docs in truth.items()
                    for d, g in docs.items()).encode()
    st, grade = _setting(truth, judge, runs)
    pi = design_pi(st, 0.2 * st.labelled.sum(), "uniform")
    hit = draw(pi, 3)
    ms = parse_measures(["P@10", "nDCG@10"])
    rows = estimate_setting(st.with_audit(np.where(hit, pi, 0), np.where(hit, grade, -1), pi),
                            ms, lam=1.0, calibrate=False)
    exact = estimate_setting(st.with_audit(np.ones(pi.size), grade), ms)
    cells = rows[rows.run != ""]
    np.testing.assert_allclose(cells.estimate, exact[exact.run != ""].estimate, atol=1e-12)
    np.testing.assert_allclose(cells.estimate, cells.judged, atol=1e-12)
    assert ((cells.hi - cells.lo) <= (cells.human_hi - cells.human_lo) + 1e-12).all()


def test_complete_audit_gives_trec_eval_ndcg():
    """Every judge-labelled document audited with pi = 1: the estimate is the measure on the
    human grades, as unjudged.evaluate (trec_eval's nDCG) computes it, with zero width."""
    from unjudged import evaluate

    truth, judge, runs = _population(2)
    st, grade = _setting(truth, judge, runs)
    rows = estimate_setting(st.with_audit(np.ones(st.pi.size), grade),
                            parse_measures(["nDCG@10", "P@10"]), counts=False)
    ref = evaluate(runs, read_qrels(truth), ["nDCG@10", "P@10"])
    ref = ref[ref.topic != "all"] if "topic" in ref else ref
    got = rows[rows.topic != "all"].set_index(["run", "topic", "measure"]).estimate
    for r in ref.itertuples():
        assert got[(r.run, str(r.topic), r.measure)] == pytest.approx(r.value, abs=1e-12)
    assert np.allclose(rows.hi - rows.lo, 0.0)


def test_coverage_simulation():
    """90% intervals of P@10 and nDCG@10 over 50 audits of 20%: per (run, topic) and per run,
    coverage within [0.8, 0.99], and narrower than the audit alone on average."""
    truth, judge, runs = _population(4)
    st, grade = _setting(truth, judge, runs)
    ms = parse_measures(["P@10", "nDCG@10"])
    exact = estimate_setting(st.with_audit(np.ones(st.pi.size), grade), ms, counts=False)
    exact = exact.set_index(["run", "topic", "measure"]).estimate
    pi = design_pi(st, 0.2 * st.labelled.sum())
    rows = []
    for rep in range(50):
        hit = draw(pi, rep)
        rows.append(estimate_setting(st.with_audit(np.where(hit, pi, 0),
                                                   np.where(hit, grade, -1), pi),
                                     ms, level=0.9, counts=False))
    r = pd.concat(rows, ignore_index=True)
    true = exact.reindex(pd.MultiIndex.from_frame(r[["run", "topic", "measure"]])).to_numpy()
    covered = (r.lo <= true) & (true <= r.hi)
    for level, part in covered.groupby(r.topic == "all"):
        assert 0.8 <= part.mean() <= 0.99, (level, part.mean())
    assert (r.hi - r.lo).mean() < (r.human_hi - r.human_lo).mean()


def test_grade_model_shrinks_toward_each_bins_prior():
    """Bin 0: one audited document of grade 1 (pi 0.5, weight 2); bin 1: two of grade 0
    (weights 2 and 1). alpha = the median weight, 2. Toward each bin's own prior:
    bin 0 ([0, 2] + 2 [0.5, 0.5]) / 4 = [0.25, 0.75], bin 1 ([3, 0] + 2 [0.9, 0.1]) / 5 =
    [0.96, 0.04]; by default toward the overall distribution [3, 2] / 5: bin 1
    ([3, 0] + 2 [0.6, 0.4]) / 5 = [0.84, 0.16]."""
    from unjudged.judges.ppi import grade_model

    args = (np.array([0, 1, 1]), np.array([True, True, True]), np.array([1, 0, 0]),
            np.array([0.5, 0.5, 1.0]), 2, 2)
    np.testing.assert_allclose(grade_model(*args, prior=np.array([[0.5, 0.5], [0.9, 0.1]])),
                               [[0.25, 0.75], [0.96, 0.04]])
    np.testing.assert_allclose(grade_model(*args), [[0.3, 0.7], [0.84, 0.16]])


def _probability_population(seed: int = 7, topics: int = 100, docs: int = 200,
                            rate: float = 0.03, levels: int = 5):
    """Few relevant documents (3%, grades 1-4) and a judge of probabilities biased per topic,
    sigmoid(-2 + 4 rel + b_t + e), b_t ~ N(0, 1.5), e ~ N(0, 0.5) (judges_sim.py's
    topic-biased judge); three runs by relevance + noise."""
    rng = np.random.default_rng(seed)
    truth, lines = {}, []
    for t in range(topics):
        rel = rng.random(docs) < rate
        g = np.where(rel, rng.integers(1, levels, docs), 0)
        z = -2 + 4 * rel + rng.normal(0, 1.5) + rng.normal(0, 0.5, docs)
        truth[str(t)] = {f"d{i}": int(x) for i, x in enumerate(g)}
        lines += [f"{t} d{i} {x:.6f}\n" for i, x in enumerate(1 / (1 + np.exp(-z)))]
    runs = [read_run({t: {d: (x > 0) + rng.normal(0, sd) for d, x in gr.items()}
                      for t, gr in truth.items()}, name=f"r{k}")
            for k, sd in enumerate((0.5, 1.0, 3.0))]
    return truth, "".join(lines).encode(), runs


def test_probability_judge_bins_grow_with_the_audit(monkeypatch):
    """A judge of probabilities is calibrated in quantile bins of about 25 audited documents
    (at least 10), each shrunk toward its decile's grade distribution. 100 topics x 200
    documents, 15 audits of 10% (about 2,000 documents: 80-odd bins): the run means' 90%
    intervals are narrower than with deciles (P@10 0.056 for 0.084, nDCG@10 0.121 for 0.152)
    and cover as well (P@10 0.91 and 0.89, nDCG@10 1.00 and 0.96; 45 run means each)."""
    from unjudged.judges import ppi
    from unjudged.judges.estimate import _model

    truth, judge, runs = _probability_population()
    st = build_setting(runs, None, read_judge(judge), levels=5)
    key = {(st.topics[t], d): i for i, (t, d) in enumerate(zip(st.pair_topic, st.pair_docno,
                                                                  strict=True))}
    grade = np.full(st.pi.size, -1)
    for t, docs in truth.items():
        for d, g in docs.items():
            grade[key[t, d]] = g
    ms = parse_measures(["nDCG@10", "P@10"])
    exact = estimate_setting(st.with_audit(np.ones(st.pi.size), grade), ms, counts=False)
    exact = exact[exact.topic == "all"].set_index(["run", "measure"]).estimate
    pi = design_pi(st, 0.1 * st.labelled.sum())
    first = st.with_audit(np.where(draw(pi, 0), pi, 0), np.where(draw(pi, 0), grade, -1), pi)
    # the first audit: 2,088 documents, 83 bins, each with its own grade distribution
    assert (int(first.audited.sum()), int(first.audited.sum()) // ppi.PER_BIN) == (2088, 83)
    assert np.unique(_model(first, True).judge, axis=0).shape[0] == 83

    def run_means(per: int) -> pd.DataFrame:
        monkeypatch.setattr(ppi, "PER_BIN", per)
        out = []
        for rep in range(15):
            hit = draw(pi, rep)
            r = estimate_setting(st.with_audit(np.where(hit, pi, 0), np.where(hit, grade, -1),
                                               pi), ms, level=0.9, counts=False)
            r = r[r.topic == "all"].set_index(["run", "measure"])
            true = exact.reindex(r.index)
            out.append(pd.DataFrame({"err": r.estimate - true, "width": r.hi - r.lo,
                                     "cov": (r.lo <= true) & (true <= r.hi)}))
        return pd.concat(out).groupby(level=1).mean()

    fine, deciles = run_means(25), run_means(10**9)
    assert fine.width.to_dict() == pytest.approx({"P@10": 0.0562, "nDCG@10": 0.1206}, abs=1e-3)
    assert deciles.width.to_dict() == pytest.approx({"P@10": 0.0839, "nDCG@10": 0.1517},
                                                    abs=1e-3)
    assert fine["cov"].to_dict() == pytest.approx({"P@10": 0.911, "nDCG@10": 1.0}, abs=1e-3)
    assert deciles["cov"].to_dict() == pytest.approx({"P@10": 0.889, "nDCG@10": 0.956},
                                                     abs=1e-3)
    # nDCG@10's mean error -0.007 (+0.002 before 1 / ideal's convexity was taken out: about
    # 6 relevant documents a topic, where the correction mostly fades out)
    assert (fine.err.abs() < 0.008).all()


def test_design_probabilities():
    truth, judge, runs = _population(5)
    st, _ = _setting(truth, judge, runs)
    n = 0.1 * st.labelled.sum()
    pi = design_pi(st, n)
    assert pi[st.labelled].sum() == pytest.approx(n)
    assert (pi[st.labelled] > 0).all() and (pi <= 1).all()
    assert (pi[~st.labelled] == 0).all()
    # documents at rank 1 of some run weigh more than those no run ranks high
    best = np.full(pi.size, 1e9)
    np.minimum.at(best, st.entry_pair, st.entry_rank)
    assert pi[best == 1].mean() > 1.5 * pi[best > 30].mean()
    np.testing.assert_allclose(design_pi(st, n, "uniform")[st.labelled],
                               n / st.labelled.sum())
    assert capped_pi(np.array([1.0, 1.0, 8.0]), 2.0).tolist() == [0.5, 0.5, 1.0]
    with pytest.raises(InvalidOptionError):
        design_pi(st, n, "systematic")


def test_audit_is_deterministic_under_the_seed():
    truth, judge, runs = _population(6)
    a = format_audit(draw_audit(runs, None, judge, 40, seed=7))
    b = format_audit(draw_audit(list(reversed(runs)), None, judge, 40, seed=7))
    c = format_audit(draw_audit(runs, None, judge, 40, seed=8))
    assert a == b and a != c
    back = read_audit(a.encode())
    assert len(back) == a.count("\n")
    assert all(0 < p <= 1 for p in back.pi)


def test_kappa_and_lift():
    assert kappa(np.array([0, 1, 1, 0]), np.array([0, 1, 0, 0]), 2) == pytest.approx(0.5)
    assert kappa(np.array([0, 1, 2]), np.array([0, 1, 2]), 3, "quadratic") == 1.0
    rows = pd.DataFrame({"judge": "j", "run": ["a", "b"], "topic": "all", "measure": "P@4",
                         "judged": [0.5, 0.5], "estimate": [0.2, 0.45], "lo": [0.1, 0.3],
                         "hi": [0.3, 0.6]})
    lift = lift_flags(rows)
    assert lift.flag.tolist() == [True, False]
    assert lift.lift.tolist() == pytest.approx([0.3, 0.05])


def test_no_audit_says_so():
    with pytest.warns(UserWarning, match="judge's errors are not covered"):
        rows = judge_estimate(read_run(RUN, name="r"), HUMAN, JUDGE, ["P@4"])
    row = _mean_row(rows)
    assert row.estimate == row.judged == row.lo == row.hi == pytest.approx(0.5)


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels").write_text("1 0 d1 0\n1 0 d3 1\n1 0 h 2\n")
    (tmp_path / "run").write_text("".join(f"1 Q0 {d} {i + 1} {5 - i} r\n"
                                          for i, d in enumerate(["d1", "d2", "d3", "d4"])))
    (tmp_path / "judge").write_bytes(JUDGE)
    (tmp_path / "audit").write_bytes(AUDIT)
    return tmp_path


def _cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.mark.parametrize("name, content, option, expected", [
    ("judge", b"1 0 d1 3\n", "--judge", "judge:1: grade 3 is outside the qrels' grades 0..2"),
    ("judge", b"1 d1 1.5\n", "--judge", "judge:1: a probability must lie in [0, 1]"),
    ("audit", b"1 0 d1 1\n", "--audit", "audit:1: an audit sample needs inclusion "
     "probabilities"),
    ("audit", b"1 d1 0.5\n1 zz 0.5\n", "--audit", "audit:2: topic 1 document zz is in the "
     "audit sample but judge judge did not label it"),
    ("audit", b"1 d2 0.5\n", "--audit", "1 audited documents have no human grade in the "
     "qrels (first: topic 1 document d2)"),
    ("audit", b"1 d1 0\n", "--audit", "audit:1: inclusion probability 0"),
])
def test_bad_inputs_one_line_exit_2(files, name, content, option, expected):
    (files / name).write_bytes(content)
    args = ["judge", "estimate", files / "qrels", files / "run", "--judge", files / "judge",
            "-m", "P@4"]
    if option == "--audit":
        args += ["--audit", files / "audit"]
    result = _cli(*args)
    assert result.exit_code == 2, result.output
    lines = [x for x in result.output.splitlines() if x.startswith("unjudged: error")]
    assert len(lines) == 1 and expected in lines[0], result.output


def test_cli_audit_estimate_diagnose(files):
    sample = files / "sample"
    design = files / "design"
    r = _cli("judge", "audit", files / "run", "--judge", files / "judge", "--qrels",
             files / "qrels", "-n", 2, "--seed", 3, "-o", sample, "--design-out", design)
    assert r.exit_code == 0, r.output
    assert "judge-labelled documents" in r.output
    drawn = read_audit(str(sample))
    assert drawn.docno.to_pylist() == ["d2", "d4"]  # d1, d3 have human grades
    assert drawn.pi.tolist() == [1.0, 1.0]
    assert read_audit(str(design)).docno.to_pylist() == ["d2", "d4"]
    r = _cli("judge", "estimate", files / "qrels", files / "run", "--judge", files / "judge",
             "--audit", files / "audit", "-m", "P@4", "-f", "tsv", "--lam", 1,
             "--no-calibrate")
    assert r.exit_code == 0, r.output
    head, row = r.output.splitlines()[:2]
    assert head.split("\t")[:5] == ["judge", "run", "measure", "judged", "estimate"]
    assert row.split("\t")[:5] == ["judge", "r", "P@4", "0.5", "0.6875"]
    r = _cli("judge", "diagnose", files / "qrels", files / "run", "--judge", files / "judge",
             "--audit", files / "audit", "-m", "P@4")
    assert r.exit_code == 0, r.output
    assert "kappa" in r.output and "judge lift" in r.output
