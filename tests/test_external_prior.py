"""The estimates prior (issue 21, first part): relevance estimates made elsewhere, read in
three layouts, blended with the topic prior by a trust fitted on the judged documents, and
drawn by the bootstrap like any document-level prior."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

from unjudged import estimate
from unjudged.cli import main
from unjudged.engine.estimate import EstimateSettings
from unjudged.errors import FormatError, InvalidOptionError
from unjudged.io import read_qrels, read_run
from unjudged.io.estimates import read_estimates
from unjudged.strategies.external import ExternalPrior
from unjudged.strategies.keys import combine, string_keys
from unjudged.strategies.position import PositionModel, topic_keys


def test_three_layouts():
    p = read_estimates(b"1 a 0.8\n# a comment\n2 b 0\n")
    assert p.topic.to_pylist() == ["1", "2"] and p.docno.to_pylist() == ["a", "b"]
    np.testing.assert_allclose(p.dist, [[0.2, 0.8], [1.0, 0.0]])
    d = read_estimates(b"1 a 0:0.25,2:0.75\n1 b 1:1\n")
    np.testing.assert_allclose(d.dist, [[0.25, 0.0, 0.75], [0.0, 1.0, 0.0]])
    f = read_estimates(b"1 0 a 0.4\n1 0 b 2\n")
    np.testing.assert_allclose(f.dist, [[0.6, 0.4, 0.0], [0.0, 0.0, 1.0]])


@pytest.mark.parametrize("text, line, what", [
    (b"1 a 0.5\n1 b 1.2\n", 2, "a probability must lie in [0, 1], not '1.2'"),
    (b"1 a 0.5\n1 b nan\n", 2, "a probability must"),
    (b"1 a half\n", 1, "a probability must be a number, not 'half'"),
    (b"1 a 0:0.5,1:0.6\n", 1, "probabilities summing to 1"),
    (b"1 a 0:0.5,x:0.5\n", 1, "integer grades"),
    (b"1 0 a -0.5\n", 1, "an inferred grade must lie in [0, 100]"),
    (b"1 a 0.5\n1 a 0.4\n", 2, "topic 1 document a has a second estimate"),
    (b"1 a\n", 1, "found 2 columns"),
    (b"1 a 0.5\n1 b 0.5 x\n", 2, "expected 3 columns"),
])
def test_bad_lines_name_the_line(text, line, what):
    with pytest.raises(FormatError) as err:
        read_estimates(text)
    assert err.value.line == line
    assert what in str(err.value)


def _model(qrels, runs):
    return PositionModel.build(runs, qrels)


def _key(topic: str, doc: str) -> np.ndarray:
    import pyarrow as pa

    return combine(topic_keys([topic]), string_keys(pa.array([doc])))


def test_trust_is_fitted_on_the_judged_documents():
    q = read_qrels({"t": {f"r{i}": 1 for i in range(5)} | {f"n{i}": 0 for i in range(5)}})
    runs = [read_run({"t": {"r0": 2, "x": 1}}, name="a")]
    model = _model(q, runs)
    good = "".join(f"t r{i} 0.95\nt n{i} 0.05\n" for i in range(5)).encode() + b"t x 0.9\n"
    bad = "".join(f"t r{i} 0.05\nt n{i} 0.95\n" for i in range(5)).encode() + b"t x 0.9\n"
    sharp = ExternalPrior.of(model, read_estimates(good), q, 2)
    wrong = ExternalPrior.of(model, read_estimates(bad), q, 2)
    assert sharp.trust > 0.95 and wrong.trust < 0.05
    assert sharp.fit["judged_compared"] == 10
    # the topic prior is 1/2 relevant: log loss ln 2 for every judged document
    assert sharp.fit["log_loss_topic"] == pytest.approx(np.log(2))
    assert sharp.fit["log_loss_estimates"] == pytest.approx(-np.log(0.95))
    # x: the blend of 0.9 with the topic's 0.5
    p = sharp.probabilities(np.array([0]), _key("t", "x"), 2)[0, 1]
    assert p == pytest.approx(sharp.trust * 0.9 + (1 - sharp.trust) * 0.5)
    assert wrong.probabilities(np.array([0]), _key("t", "x"), 2)[0, 1] == \
        pytest.approx(wrong.trust * 0.9 + (1 - wrong.trust) * 0.5)


def test_given_trust_fallback_and_unknown_topics():
    q = read_qrels({"t": {"a": 1, "b": 0, "c": 0, "d": 0}})
    model = _model(q, [read_run({"t": {"x": 1}}, name="r")])
    prior = ExternalPrior.of(model, read_estimates(b"t x 1\nu y 1\n"), q, 2, trust=0.5)
    assert prior.trust == 0.5 and not prior.fit["fitted"]
    assert prior.fit["other_topics"] == 1  # topic u: not in the qrels
    got = prior.probabilities(np.array([0, 0, -1]),
                              np.concatenate([_key("t", "x"), _key("t", "z"),
                                              _key("u", "y")]), 2)
    # x: 0.5 * 1 + 0.5 * 1/4; z (no estimate): the topic's 1/4; an unknown topic: grade 0
    np.testing.assert_allclose(got, [[0.375, 0.625], [0.75, 0.25], [1.0, 0.0]])
    with pytest.raises(InvalidOptionError, match=r"trust must lie in \[0, 1\]"):
        ExternalPrior.of(model, read_estimates(b"t x 1\n"), q, 2, trust=1.5)


def test_the_bootstrap_draws_each_document_from_its_estimate(tmp_path):
    (tmp_path / "e").write_text("1 x 1\n1 z 0\n2 y 0.5\n")
    q = {"1": {"a": 1, "b": 0}, "2": {"c": 1, "d": 0}}
    runs = {"r1": {"1": {"a": 3, "x": 2, "b": 1}, "2": {"c": 3, "y": 2}},
            "r2": {"1": {"z": 3, "a": 2}, "2": {"d": 3, "y": 2, "w": 1}}}
    with pytest.warns(UserWarning, match=r"trust 1\.000 \(given"):
        df = estimate(runs, q, "P@2", methods=["bootstrap"],
                      prior=f"estimates:{tmp_path / 'e'}", b=4000, trust=1.0)
    v = {(r.run, r.topic): r.value for r in df.itertuples()}
    # x is always relevant, z never; y half the time (the same draw in both runs)
    assert v[("r1", "1")] == 1.0 and v[("r2", "1")] == 0.5
    assert v[("r1", "2")] == pytest.approx(0.75, abs=0.02)
    assert v[("r2", "2")] == pytest.approx(0.25, abs=0.02)


def test_settings_name_the_file():
    s = EstimateSettings(prior="estimates:f.tsv", b=10)
    assert (s.prior, s.estimates, s.grow) == ("estimates", "f.tsv", True)
    with pytest.raises(InvalidOptionError, match="names its file"):
        EstimateSettings(prior="estimates", b=10)
    with pytest.raises(InvalidOptionError, match="names its file"):
        EstimateSettings(prior="estimates:", b=10)


def test_cli(tmp_path):
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n")
    (tmp_path / "r").write_text("1 Q0 a 1 3 r\n1 Q0 x 2 2 r\n")
    (tmp_path / "e").write_text("1 x 1\n1 a 0.9\n1 b 0.1\n")
    base = ["estimate", str(tmp_path / "q"), str(tmp_path / "r"), "-m", "P@2", "-b", "500",
            "--methods", "bootstrap", "-f", "tsv"]
    res = CliRunner().invoke(main, base + ["--prior", f"estimates:{tmp_path / 'e'}"])
    assert res.exit_code == 0, res.output
    assert "trust" in res.stderr and "fitted on 2 judged documents" in res.stderr
    # x (rank 2) is relevant in every draw: P@2 = 1 with no spread
    assert res.stdout.splitlines()[1].split("\t")[:7] == ["r", "all", "P@2", "bootstrap",
                                                          "1.0", "1.0", "1.0"]
    res = CliRunner().invoke(main, base + ["--prior", "estimates"])
    assert res.exit_code == 2 and "estimates:FILE" in res.stderr
    res = CliRunner().invoke(main, base + ["--prior", f"estimates:{tmp_path / 'none'}"])
    assert res.exit_code == 2 and "no such file" in res.stderr
    res = CliRunner().invoke(main, base + ["--prior", f"estimates:{tmp_path / 'e'}",
                                           "--trust", "2"])
    assert res.exit_code == 2


def test_the_planner_reads_the_estimates_too(tmp_path):
    from unjudged.measures import parse_measures
    from unjudged.planning import PlanSettings, plan

    (tmp_path / "e").write_text("t u 1\nt v 0\n")
    q = read_qrels({"t": {"r1": 1, "n": 0}})
    a = read_run({"t": {"u": 3, "r1": 2, "v": 1}}, name="a")
    b = read_run({"t": {"n": 3, "r1": 2}}, name="b")
    p = plan([a, b], q, 2, parse_measures("P@3"),
             PlanSettings("depth", prior=f"estimates:{tmp_path / 'e'}"))
    # no judged document has an estimate: trust 0, the topic's rate (1/2) for both
    assert p.docnos == ["u", "v"] and p.p_relevant.tolist() == [0.5, 0.5]
    with pytest.raises(InvalidOptionError, match="names its file"):
        PlanSettings(prior="estimates")


def test_a_probability_of_relevance_spreads_over_the_relevant_grades():
    # the topic's judged relevant documents: two of grade 2, one of grade 1 (the position
    # model's split of them, smoothed, is the share of each relevant grade)
    q = read_qrels({"t": {"a": 2, "b": 2, "c": 1, "d": 0}})
    model = _model(q, [read_run({"t": {"x": 1}}, name="r")])
    prior = ExternalPrior.of(model, read_estimates(b"t x 0.6\n"), q, 3, trust=1.0)
    np.testing.assert_allclose(prior.ext_dist[0], [0.4, 0.6 * model.split[0, 1],
                                                   0.6 * model.split[0, 2]])
    assert model.split[0, 2] > model.split[0, 1] > 0
    # grades given explicitly are kept as they are
    given = ExternalPrior.of(model, read_estimates(b"t x 0:0.4,1:0.6\n"), q, 3, trust=1.0)
    np.testing.assert_allclose(given.ext_dist[0], [0.4, 0.6, 0.0])
