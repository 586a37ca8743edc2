"""The --judge options of estimate, eval, plan and report (unjudged.judges.options): the
judge's labels fill unjudged pairs in eval (human qrels stay the truth), estimate adds `ppi`
rows beside the bootstrap, plan --audit draws the audit, report gets a judge section; P(A > B)
and rank intervals come from coupled draws; bad inputs are one line, exit 2. Real LLM labels of
TREC DL 2023 where ../shared/data is present."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from unjudged import evaluate, read_qrels, read_run
from unjudged.cli import main
from unjudged.judges import judge_draws, judge_estimate, judge_qrels, read_audit
from unjudged.judges.audit import draw_audit, format_audit
from unjudged.judges.estimate import coupled_draws

QRELS = "1 0 d1 0\n1 0 d3 1\n1 0 h 2\n2 0 x 1\n"
JUDGE = "1 0 d1 1\n1 0 d2 1\n1 0 d3 0\n1 0 d4 0\n2 0 y 1\n2 0 z 0\n"
AUDIT = "1 d2 0.5\n2 z 0.5\n"
AUDIT_QRELS = "1 0 d2 0\n2 0 z 1\n"
RUN_R = "".join(f"1 Q0 d{i} {i} {5 - i} r\n" for i in range(1, 5)) + \
    "2 Q0 y 1 3 r\n2 Q0 x 2 2 r\n2 Q0 z 3 1 r\n"
RUN_S = "1 Q0 d4 1 5 s\n1 Q0 d2 2 4 s\n2 Q0 z 1 3 s\n2 Q0 y 2 3 s\n"


@pytest.fixture
def f(tmp_path):
    for name, text in (("qrels", QRELS), ("judge", JUDGE), ("audit", AUDIT),
                       ("aq", AUDIT_QRELS), ("run", RUN_R), ("run2", RUN_S)):
        (tmp_path / name).write_text(text)
    return tmp_path


def _cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def _tsv(text: str) -> pd.DataFrame:
    from io import StringIO

    body = "".join(x + "\n" for x in text.splitlines() if x and not x.startswith(("#",
                                                                                  "unjudged")))
    return pd.read_csv(StringIO(body), sep="\t", dtype={"topic": str})


def test_judge_qrels_keeps_human_grades(f):
    """d1: people say 0, the judge 1: stays 0. d2, d4, y, z: the judge's grades."""
    with pytest.warns(UserWarning, match="4 \\(topic, document\\) pairs the qrels do not grade"):
        q = judge_qrels(str(f / "qrels"), str(f / "judge"))
    assert q.to_dict() == {"1": {"d1": 0, "d2": 1, "d3": 1, "d4": 0, "h": 2},
                           "2": {"x": 1, "y": 1, "z": 0}}
    # two judges: the mean distribution's most likely grade (a tie goes to the lower grade)
    two = judge_qrels({"2": {"x": 2}}, [b"1 0 a 2\n1 0 b 1\n", b"1 0 a 2\n1 0 b 0\n"],
                      quiet=True)
    assert two.to_dict() == {"1": {"a": 2, "b": 0}, "2": {"x": 2}}


def test_eval_judge_is_the_judge_only_ppi(f):
    """eval --judge scores the filled qrels: P@2 of r is (1/2)(d1 0, d2 1) = 0.5 on topic 1,
    (y 1, x 1) = 1 on topic 2; and equals estimate's ppi without an audit."""
    r = _cli("eval", f / "qrels", f / "run", f / "run2", "-m", "P@2", "-m", "nDCG@3",
             "--judge", f / "judge", "-q", "-f", "tsv")
    assert r.exit_code == 0, r.output
    rows = _tsv(r.stdout).set_index(["run", "topic", "measure"]).value
    assert rows[("r", "1", "P@2")] == 0.5 and rows[("r", "2", "P@2")] == 1.0
    assert rows[("r", "all", "nDCG@3")] == pytest.approx(0.680606056760201)
    assert rows[("s", "all", "nDCG@3")] == pytest.approx(0.29418397456752204)
    assert "the judge's errors are not covered" in r.stderr
    ppi = judge_estimate([read_run(str(f / "run")), read_run(str(f / "run2"))],
                         str(f / "qrels"), str(f / "judge"), ["P@2", "nDCG@3"], counts=False)
    for row in ppi.itertuples():
        assert row.estimate == pytest.approx(rows[(row.run, row.topic, row.measure)])
    r = _cli("eval", f / "qrels", f / "run", "--judge", f / "judge", "--stream", "-m", "P@2")
    assert r.exit_code == 2 and "--stream" in r.output


def test_estimate_adds_ppi_rows(f):
    args = ["estimate", f / "qrels", f / "run", f / "run2", "-m", "P@2", "-m", "nDCG@3",
            "-m", "AP", "--judge", f / "judge", "--audit", f / "audit", "--audit-qrels",
            f / "aq", "-b", 200, "--methods", "nonrel,bootstrap"]
    r = _cli(*args, "-f", "tsv")
    assert r.exit_code == 0, r.output
    rows = _tsv(r.stdout)
    ppi = rows[rows.method == "ppi"].set_index(["run", "measure"])
    ref = judge_estimate([read_run(str(f / "run")), read_run(str(f / "run2"))],
                         str(f / "qrels"), str(f / "judge"), ["P@2", "nDCG@3"],
                         audit=str(f / "audit"), audit_qrels=str(f / "aq"), level=0.9,
                         counts=False)
    ref = ref[ref.topic == "all"].set_index(["run", "measure"])
    assert len(ppi) == 4  # no AP: a note says so
    for key, row in ppi.iterrows():
        assert (row.value, row.lo, row.hi) == pytest.approx(
            (ref.estimate[key], ref.lo[key], ref.hi[key]))
    # P@2 of r: human d1 = 0 at rank 1, d2 audited (pi 0.5, people 0, judge 1) on topic 1
    assert ppi.value[("r", "P@2")] == pytest.approx(0.25)
    assert "no ppi value for AP" in r.stderr
    table = _cli(*args)
    assert "ppi" in table.stdout.splitlines()[0]
    assert "covers the judge's errors" in table.stdout
    jl = _cli(*args, "-f", "jsonl", "-q")
    items = [json.loads(x) for x in jl.stdout.splitlines()]
    topic_rows = [x for x in items if x["method"] == "ppi" and x["topic"] != "all"]
    assert len(topic_rows) == 8 and set(topic_rows[0]) == {"run", "topic", "measure", "method",
                                                           "value", "lo", "hi"}


def test_estimate_pairs_from_coupled_draws(f):
    r = _cli("estimate", f / "qrels", f / "run", f / "run2", "-m", "nDCG@3", "--judge",
             f / "judge", "--audit", f / "audit", "--audit-qrels", f / "aq", "-b", 2000,
             "--pairs", "-f", "tsv")
    assert r.exit_code == 0, r.output
    rows = _tsv(r.stdout)
    ppi = rows[rows.method == "ppi"].set_index(["run_a", "run_b"]).p_a_better
    assert ppi[("r", "s")] + ppi[("s", "r")] == pytest.approx(1.0)
    assert set(rows.method) == {"bootstrap", "ppi"}
    d = judge_draws([read_run(str(f / "run")), read_run(str(f / "run2"))], str(f / "qrels"),
                    str(f / "judge"), ["nDCG@3"], audit=str(f / "audit"),
                    audit_qrels=str(f / "aq"), b=2000)[0]
    assert ppi[("r", "s")] == pytest.approx(np.mean(d.samples[:, 0] > d.samples[:, 1]))
    assert d.rank_intervals(0.9).tolist() == [[1, 2], [1, 2]]
    # the draws' medians and 2.5% and 97.5% quantiles are the estimate (topic "all") and its
    # 95% interval, normal (nDCG) or score (P): each run's draws are its interval's
    # distribution
    runs = [read_run(str(f / "run")), read_run(str(f / "run2"))]
    for m in ("nDCG@3", "P@2"):
        d = judge_draws(runs, str(f / "qrels"), str(f / "judge"), [m], audit=str(f / "audit"),
                        audit_qrels=str(f / "aq"), b=4000)[0]
        est = judge_estimate(runs, str(f / "qrels"), str(f / "judge"), [m],
                             audit=str(f / "audit"), audit_qrels=str(f / "aq"), counts=False)
        means = est[est.topic == "all"].set_index("run").loc[d.runs]
        np.testing.assert_allclose(d.mean, means.estimate.to_numpy())
        np.testing.assert_allclose(np.median(d.samples, axis=0), d.mean, atol=0.01)
        q = np.clip(np.quantile(d.samples, [0.025, 0.975], axis=0), 0, 1)  # rows: in [0, 1]
        np.testing.assert_allclose(q, means[["lo", "hi"]].to_numpy().T, atol=0.02)


def test_coupled_draws_keep_the_correlation():
    """Two runs correlated 0.9 with sds 0.1 and 0.2: the draws have that covariance; the same
    run twice ties in every draw (P(A > B) = 0 both ways)."""
    cov = np.array([[0.01, 0.018], [0.018, 0.04]])
    s = coupled_draws(np.diag(cov), cov, np.array([0.5, 0.4]), 20000, 1, "t")
    np.testing.assert_allclose(np.cov(s.T), cov, rtol=0.05)
    same = coupled_draws(np.array([0.01, 0.01]), np.full((2, 2), 0.01), np.array([0.3, 0.3]),
                         100, 1, "t")
    from unjudged.engine.pairs import pair_probabilities

    assert pair_probabilities(same).tolist() == [[0.0, 0.0], [0.0, 0.0]]
    # scaled: the model's correlation, the intervals' variances
    wide = coupled_draws(np.array([0.04, 0.01]), cov, np.zeros(2), 20000, 2, "t")
    assert np.corrcoef(wide.T)[0, 1] == pytest.approx(0.9, abs=0.02)
    assert wide.std(axis=0) == pytest.approx([0.2, 0.1], rel=0.03)


def test_plan_audit_draws_the_judges_sample(f):
    r = _cli("plan", f / "qrels", f / "run", f / "run2", "--audit", 3, "--judge", f / "judge",
             "--seed", 1, "--design-out", f / "design", "-o", f / "sample")
    assert r.exit_code == 0, r.output
    q = read_qrels(str(f / "qrels"))
    runs = [read_run(str(f / "run")), read_run(str(f / "run2"))]
    expected = draw_audit(runs, q, str(f / "judge"), 3, seed=1)
    assert (f / "sample").read_text() == format_audit(expected)
    assert (f / "design").read_text() == format_audit(expected.design)
    design = read_audit(str(f / "design"))
    assert sorted(design.docno.to_pylist()) == ["d2", "d4", "y", "z"]  # d1, d3: qrels grade
    assert design.pi.sum() == pytest.approx(3.0)
    assert "audit: drew" in r.stderr
    for bad in (["--audit", 3], ["--judge", f / "judge"],
                ["--audit", 3, "--judge", f / "judge", "--budget", 2],
                ["--audit", 3, "--judge", f / "judge", "--judge", f / "judge"]):
        r = _cli("plan", f / "qrels", f / "run", *bad)
        assert r.exit_code == 2, (bad, r.output)
    r = _cli("plan", f / "qrels", f / "run")
    assert r.exit_code == 2 and "--budget" in r.output


def test_report_judge_section(f):
    out = f / "r.html"
    r = _cli("report", f / "qrels", f / "run", f / "run2", "-m", "P@2", "--judge",
             f / "judge", "--audit", f / "audit", "--audit-qrels", f / "aq", "-b", 50, "-o",
             out, "--tables", f / "tabs", "--topic-panels", 0)
    assert r.exit_code == 0, r.output
    page = out.read_text()
    assert '<section id="judges">' in page and 'href="#judges"' in page
    est = pd.read_csv(f / "tabs" / "judge-estimates.tsv", sep="\t")
    row = est[(est.run == "r") & (est.measure == "P@2")].iloc[0]
    assert row.estimate == pytest.approx(0.25) and row.judged == pytest.approx(0.75)
    # its 90% score interval, about [0.13, 0.80], holds the judged 0.75: two audited documents
    # do not show the lift (the normal interval [0, 0.51] did; lift_flags: test_judges.py)
    assert row.lift == pytest.approx(0.5) and row.lift_flag == "no"
    assert {"rank_lo", "rank_hi"} <= set(est.columns)
    agree = pd.read_csv(f / "tabs" / "judge-agreement.tsv", sep="\t").iloc[0]
    # overlap: d1 (0 vs 1), d3 (1 vs 0) in the qrels, d2 (0 vs 1), z (1 vs 0) audited
    assert agree.overlap == 4 and agree.agreement == 0.0
    from unjudged.report.html import _judges_html

    assert _judges_html(lambda *a, **k: "", {"tables": {"estimates": [], "agreement": [],
                                                        "confusion": [], "calibration": []},
                                             "note": "<x>"}).count("&lt;x&gt;") == 1


@pytest.mark.parametrize("command", ["estimate", "eval", "report"])
@pytest.mark.parametrize("name, content, audit, expected", [
    ("judge", "1 0 d1 3\n", False, "judge:1: grade 3 is outside the qrels' grades 0..2"),
    ("judge", "1 d1 1.5\n", False, "judge:1: a probability must lie in [0, 1]"),
    ("audit", "1 0 d2 1\n", True, "audit:1: an audit sample needs inclusion probabilities"),
    ("audit", "1 d2 0.5\n1 zz 0.5\n", True, "audit:2: topic 1 document zz is in the audit "
     "sample but judge judge did not label it"),
])
def test_bad_inputs_one_line_exit_2(f, command, name, content, audit, expected):
    if audit and command == "eval":
        pytest.skip("eval takes no audit")
    (f / name).write_text(content)
    args = [command, f / "qrels", f / "run", "--judge", f / "judge", "-m", "P@2"]
    if audit:
        args += ["--audit", f / "audit", "--audit-qrels", f / "aq"]
    if command in ("estimate", "report"):
        args += ["-b", 20]
    if command == "report":
        args += ["-o", f / "out.html"]
    r = _cli(*args)
    assert r.exit_code == 2, r.output
    lines = [x for x in r.output.splitlines() if x.startswith("unjudged: error")]
    assert len(lines) == 1 and expected in lines[0], r.output


def test_audit_options_need_a_judge(f):
    r = _cli("estimate", f / "qrels", f / "run", "-m", "P@2", "--audit", f / "audit", "-b",
             20)
    assert r.exit_code == 2 and "go with --judge" in r.output
    r = _cli("estimate", f / "qrels", f / "run", "-m", "P@2", "--judge", f / "judge",
             "--design", f / "audit", "-b", 20)
    assert r.exit_code == 2 and "go with --audit" in r.output


# --- real LLM labels: TREC DL 2023 (LLMJudge), NIST's grades the truth -------------------

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "llmjudge-dl23"


def _dl23(judge: str = "Olz-gpt4o"):
    if not (DATA / "labels" / f"{judge}.txt").exists():
        pytest.skip(f"{DATA} is absent")

    def mapping(name: str) -> dict[str, str]:
        rows = [x.split() for x in (DATA / name).read_text().splitlines() if x.strip()]
        return {short: full for full, short in rows}

    qmap, dmap = mapping("qid_to_qidx.txt"), mapping("docid_to_docidx.txt")
    lab = pd.read_csv(DATA / "labels" / f"{judge}.txt", sep=r"\s+", header=None,
                      names=["topic", "it", "docno", "grade"], dtype=str)
    lab["topic"], lab["docno"] = lab.topic.map(qmap), lab.docno.map(dmap)
    nist = pd.read_csv(DATA / "qrels.dl23-passage.txt", sep=r"\s+", header=None,
                       names=["topic", "it", "docno", "grade"], dtype=str)
    pairs = lab.merge(nist[["topic", "docno", "grade"]], on=["topic", "docno"],
                      suffixes=("_j", "_n"))
    pairs["grade_j"], pairs["grade_n"] = pairs.grade_j.astype(int), pairs.grade_n.astype(int)
    rng = np.random.default_rng(0)
    own = {t: dict(zip(g.docno, g.grade_j + rng.normal(0, 0.3, len(g)), strict=True))
           for t, g in pairs.groupby("topic")}
    nist_run = {t: dict(zip(g.docno, g.grade_n + rng.normal(0, 0.7, len(g)), strict=True))
                for t, g in pairs.groupby("topic")}
    judge_text = "".join(f"{t} 0 {d} {g}\n" for t, d, g in
                         zip(pairs.topic, pairs.docno, pairs.grade_j, strict=True)).encode()
    truth = {t: dict(zip(g.docno, g.grade_n, strict=True)) for t, g in pairs.groupby("topic")}
    return pairs, judge_text, truth, [read_run(own, name="own-judge"),
                                      read_run(nist_run, name="nist-0.7")]


def test_dl23_ppi_covers_nist_and_flags_the_own_judge_run():
    """Olz-gpt4o's labels on 4,423 pairs, a weighted audit of 10% (seed 0): the 90% ppi
    interval of nDCG@10 holds the NIST-grade value for both runs (own-judge 0.665 estimated
    0.665 in [0.550, 0.780]: normal, no qrels document in any cell; 0.680 in [0.565, 0.795]
    before each ratio was taken less 1 / ideal's convexity); the run ranked by the judge
    itself scores 0.989 under the judge, far above what the audit confirms (lift flagged)."""
    pairs, judge, truth, runs = _dl23()
    assert len(pairs) == 4423
    audit = draw_audit(runs, None, judge, 0.1 * len(pairs), seed=0)
    grades = pairs.set_index(["topic", "docno"]).grade_n
    keys = list(zip(audit.topic.to_pylist(), audit.docno.to_pylist(), strict=True))
    human = {}
    for (t, d), g in zip(keys, grades.loc[keys].tolist(), strict=True):
        human.setdefault(t, {})[d] = g
    rows = judge_estimate(runs, human, judge, ["nDCG@10"], audit=audit, design=audit.design,
                          level=0.9, counts=False)
    means = rows[rows.topic == "all"].set_index("run")
    exact = evaluate(runs, truth, ["nDCG@10"], per_topic=False).set_index("run").value
    for run in ("own-judge", "nist-0.7"):
        assert means.lo[run] <= exact[run] <= means.hi[run], (run, means.loc[run], exact[run])
    assert (means.estimate["own-judge"], means.lo["own-judge"], means.hi["own-judge"]) == \
        pytest.approx((0.665, 0.550, 0.780), abs=1e-3)
    own = means.loc["own-judge"]
    assert own.judged - own.hi > 0  # the judge likes its own ranking more than people do
    # `judged` is the score under the judge's labels alone (trec_eval's nDCG on them as
    # qrels); eval --judge keeps the audited documents' human grades
    alone = evaluate(runs, read_qrels(judge), ["nDCG@10"], per_topic=False)
    assert means.judged.to_dict() == pytest.approx(dict(zip(alone.run, alone.value,
                                                            strict=True)))
    assert (own.judged, exact["own-judge"]) == pytest.approx((0.9893, 0.6649), abs=1e-4)
    filled = evaluate(runs, judge_qrels(human, judge, quiet=True), ["nDCG@10"],
                      per_topic=False).set_index("run").value
    assert filled["own-judge"] == pytest.approx(0.9068, abs=1e-4)
    d = judge_draws(runs, human, judge, ["nDCG@10"], audit=audit, design=audit.design,
                    b=4000)[0]
    p = float(np.mean(d.samples[:, 1] > d.samples[:, 0]))
    # people (NIST) rank nist-0.7 above own-judge; the coupled draws agree with high
    # probability
    assert exact["nist-0.7"] > exact["own-judge"]
    assert p > 0.9, p


def test_dl23_a_run_estimated_alone_gets_the_same_rows():
    """Bystanders: each run's rows (nDCG@10, whose ideal and its convexity factor come from the
    counts per grade, and P@10), estimated alone and beside the other run, are identical: the
    counts depend on the qrels, the judge and the audit only."""
    pairs, judge, truth, runs = _dl23()
    audit = draw_audit(runs, None, judge, 0.1 * len(pairs), seed=0)
    grades = pairs.set_index(["topic", "docno"]).grade_n
    keys = list(zip(audit.topic.to_pylist(), audit.docno.to_pylist(), strict=True))
    human: dict[str, dict[str, int]] = {}
    for (t, d), g in zip(keys, grades.loc[keys].tolist(), strict=True):
        human.setdefault(t, {})[d] = g

    def rows(which: list) -> pd.DataFrame:
        return judge_estimate(which, human, judge, ["nDCG@10", "P@10"], audit=audit,
                              design=audit.design, level=0.9, counts=False)

    both = rows(runs)
    for run in runs:
        alone = rows([run]).reset_index(drop=True)
        pd.testing.assert_frame_equal(alone, both[both.run == run.name].reset_index(drop=True))


def test_graded_ideal_fills_the_cutoff_grade_by_grade():
    """12 documents of grade 2 and 5 of grade 1, nDCG@10: the ideal is ten of grade 2 (the
    estimated ideal once counted grade 1's positions from rank 1 again, halving nDCG). With
    every document judge-labelled and no audit, the judge's score is trec_eval's on its labels
    as qrels, per topic and on average."""
    labels = {"1": {f"a{i}": 2 for i in range(12)} | {f"b{i}": 1 for i in range(5)}
              | {f"c{i}": 0 for i in range(5)},
              "2": {f"a{i}": 2 for i in range(3)} | {f"b{i}": 1 for i in range(9)}}
    judge = "".join(f"{t} 0 {d} {g}\n" for t, docs in labels.items()
                    for d, g in docs.items()).encode()
    rng = np.random.default_rng(3)
    runs = [read_run({t: {d: float(rng.random()) for d in docs} for t, docs in labels.items()},
                     name=f"r{k}") for k in range(3)]
    with pytest.warns(UserWarning, match="not covered"):
        rows = judge_estimate(runs, None, judge, ["nDCG@10", "nDCG@5"], counts=False)
    ref = evaluate(runs, labels, ["nDCG@10", "nDCG@5"]).set_index(["run", "topic", "measure"])
    got = rows.set_index(["run", "topic", "measure"]).judged
    for key, value in ref.value.items():
        assert got[key] == pytest.approx(value, abs=1e-12), key
    sorted_run = read_run({t: {d: float(g) for d, g in docs.items()}
                           for t, docs in labels.items()}, name="ideal")
    with pytest.warns(UserWarning):
        best = judge_estimate(sorted_run, None, judge, ["nDCG@10"], counts=False)
    assert best.judged.tolist() == pytest.approx([1.0, 1.0, 1.0])


def test_coupled_covariance_fits_the_differences():
    """Simulated judge (3 runs, 10 topics, 20% of the labels flipped), 40 audits of 20%: the
    model's variance of the difference of two run means (the draws' P(A > B) rests on it) is
    near the observed one's or above, for P@10 and nDCG@10 (40 audits: 1.21-1.74 times; 300
    audits drawn in an earlier pair order: 1.11-1.33 times)."""
    from test_judges import _population, _setting
    from unjudged.judges.audit import design_pi, draw
    from unjudged.judges.estimate import _measured, _model, _model_covariance, _run_means
    from unjudged.measures import parse_measures

    truth, judge, runs = _population(4, topics=10, docs=80, error=0.2)
    st, grade = _setting(truth, judge, runs)
    pi = design_pi(st, 0.2 * st.labelled.sum())
    for m in parse_measures(["P@10", "nDCG@10"]):
        vals, covs = [], []
        for rep in range(40):
            hit = draw(pi, rep)
            s2 = st.with_audit(np.where(hit, pi, 0), np.where(hit, grade, -1), pi)
            md = _model(s2, True)
            mx = _measured(s2, md, m)
            vals.append(_run_means(mx, 3).value)
            covs.append(_model_covariance(s2, md, mx))
        v, c = np.array(vals), np.mean(covs, axis=0)
        for a, b in ((0, 1), (0, 2), (1, 2)):
            model = c[a, a] + c[b, b] - 2 * c[a, b]
            assert model >= 0.8 * np.var(v[:, a] - v[:, b]), (m.name, a, b)
            assert model <= 2.0 * np.var(v[:, a] - v[:, b]), (m.name, a, b)


def test_several_judges_get_a_column_each(f):
    (f / "strict").write_text(JUDGE.replace("d2 1", "d2 0"))
    r = _cli("estimate", f / "qrels", f / "run", "-m", "P@2", "--judge", f / "judge",
             "--judge", f / "strict", "--audit", f / "audit", "--audit-qrels", f / "aq",
             "-b", 20, "--methods", "nonrel", "-f", "tsv")
    assert r.exit_code == 0, r.output
    rows = _tsv(r.stdout).set_index("method").value
    assert rows["ppi[judge]"] == pytest.approx(0.25)  # as with --judge judge alone
    alone = judge_estimate(read_run(str(f / "run")), str(f / "qrels"), str(f / "strict"),
                           ["P@2"], audit=str(f / "audit"), audit_qrels=str(f / "aq"),
                           counts=False)
    assert rows["ppi[strict]"] == pytest.approx(alone[alone.topic == "all"].estimate.iloc[0])
    r = _cli("eval", f / "qrels", f / "run", "-m", "P@2", "--judge", f / "judge", "--judge",
             f / "strict", "-q", "-f", "tsv")
    assert r.exit_code == 0, r.output
    # d2: the judges' mean (0.5, 0.5): a tie goes to grade 0; P@2 of topic 1 is 0
    assert _tsv(r.stdout).set_index("topic").value["1"] == 0.0


def test_estimate_runs_judge_is_estimate_judge(f):
    """unjudged.estimate_runs(judge=..., audit=...) gives the rows `estimate --judge --audit`
    prints, every method's and the ppi's, per (run, topic) and per run, and the same P(A > B)."""
    import unjudged
    from unjudged.errors import InvalidOptionError

    args = ["estimate", f / "qrels", f / "run", f / "run2", "-m", "P@2", "-m", "nDCG@3",
            "--judge", f / "judge", "--audit", f / "audit", "--audit-qrels", f / "aq",
            "-b", 300, "--methods", "nonrel,bootstrap", "-q", "-f", "tsv"]
    r = _cli(*args)
    assert r.exit_code == 0, r.output
    cli = _tsv(r.stdout).set_index(["run", "topic", "measure", "method"])
    runs = [read_run(str(f / "run")), read_run(str(f / "run2"))]
    est = unjudged.estimate_runs(runs, read_qrels(str(f / "qrels")),
                                 unjudged.parse_measures(["P@2", "nDCG@3"]),
                                 methods=["nonrel", "bootstrap"], b=300,
                                 judge=str(f / "judge"), audit=str(f / "audit"),
                                 audit_qrels=str(f / "aq"))
    api = est.to_pandas().set_index(["run", "topic", "measure", "method"])
    assert sorted(api.index) == sorted(cli.index)
    for col in ("value", "lo", "hi"):
        assert api[col].to_dict() == pytest.approx(cli[col].loc[api.index].to_dict(),
                                                   nan_ok=True)
    ppi = api.xs("ppi", level="method")[["value", "lo", "hi"]]
    # P@2 of r: d1 people 0 at rank 1, d2 audited (pi 0.5, people 0, judge 1) on topic 1;
    # the run mean's score interval (a normal one: [0, 0.5121])
    assert ppi.loc[("r", "all", "P@2")].tolist() == pytest.approx([0.25, 0.1262, 0.8049],
                                                                   abs=1e-4)
    assert ppi.loc[("r", "1", "P@2")].tolist() == pytest.approx([-0.0625, 0.0, 0.3082],
                                                                 abs=1e-4)
    pairs = _tsv(_cli(*args[:-3], "--pairs", "-f", "tsv").stdout)
    pairs = pairs[pairs.method == "ppi"].set_index(["run_a", "run_b", "measure"])
    got = {(x["run_a"], x["run_b"], x["measure"]): x["p_a_better"]
           for x in est.judged.pair_rows()}
    assert got == pytest.approx(pairs.p_a_better.to_dict())
    with pytest.raises(InvalidOptionError, match="go with judge"):
        unjudged.estimate_runs(runs, read_qrels(str(f / "qrels")),
                               unjudged.parse_measures(["P@2"]), audit=str(f / "audit"))
