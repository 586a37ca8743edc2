"""Misusing the public API raises the project's errors with a clear message (issue 34, item 11).

Each case calls a function of `unjudged.__all__` with an argument of the wrong type or value;
it must raise an UnjudgedError subclass whose one-line message names what was expected, never
a TypeError, AttributeError or IndexError from inside the package. Tables arrive as pandas,
polars (or anything with `.to_arrow()`) or pyarrow frames alike.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import unjudged as u
from unjudged.errors import (
    FormatError,
    InputError,
    InvalidOptionError,
    MeasureSpecError,
    UnjudgedError,
)

Q = {"1": {"d1": 1, "d2": 0}}
R = {"1": {"d1": 2.0, "d2": 1.0}}
RUN = u.read_run(R, name="r")
QRELS = u.read_qrels(Q)
P1 = ["P@1"]

# (label, call, error class, a fragment of the message)
CASES = [
    ("evaluate runs=None", lambda: u.evaluate(None, Q, P1), InvalidOptionError,
     "runs: expected a list of paths"),
    ("evaluate runs=5", lambda: u.evaluate(5, Q, P1), InvalidOptionError, "got int 5"),
    ("evaluate qrels=None", lambda: u.evaluate(R, None, P1), InvalidOptionError,
     "qrels: cannot read NoneType None"),
    ("evaluate qrels=5", lambda: u.evaluate(R, 5, P1), InvalidOptionError, "cannot read int 5"),
    ("evaluate measures=None", lambda: u.evaluate(R, Q, None), MeasureSpecError,
     "expected names such as 'nDCG@10'"),
    ("evaluate measures=5", lambda: u.evaluate(R, Q, 5), MeasureSpecError, "got int 5"),
    ("evaluate measures=[5]", lambda: u.evaluate(R, Q, [5]), MeasureSpecError,
     "measure 5 is a int, not a name"),
    ("evaluate measures=[]", lambda: u.evaluate(R, Q, []), MeasureSpecError,
     "no measure given"),
    ("evaluate qrels dict of lists", lambda: u.evaluate(R, {"1": ["d1"]}, P1), FormatError,
     "topic '1' maps to list"),
    ("evaluate policies=5", lambda: u.evaluate(R, Q, P1, policies=5), InvalidOptionError,
     "policies: expected unjudged.Policies"),
    ("evaluate unknown policy", lambda: u.evaluate(R, Q, P1, bogus=1), InvalidOptionError,
     "unknown policy 'bogus'"),
    ("evaluate rel_level='x'", lambda: u.evaluate(R, Q, P1, rel_level="x"),
     InvalidOptionError, "rel_level: expected an integer grade"),
    ("evaluate frame duplicate column",
     lambda: u.evaluate(pd.DataFrame([["1", "d1", 1.0, 2]],
                                     columns=["qid", "docno", "score", "score"]), Q, P1),
     FormatError, "column 'score' appears twice"),
    ("evaluate frame list docnos",
     lambda: u.evaluate(pd.DataFrame({"qid": ["1"], "docno": [["d1"]], "score": [1.0]}),
                        Q, P1), FormatError, "is not text or an integer"),
    ("evaluate frame float qids",
     lambda: u.evaluate(pd.DataFrame({"qid": [1.0], "docno": ["d1"], "score": [1.0]}), Q, P1),
     FormatError, "query id 1.0 in column qid is not text or an integer"),
    ("evaluate frame boolean scores",
     lambda: u.evaluate(pd.DataFrame({"qid": ["1"], "docno": ["d1"], "score": [True]}), Q, P1),
     FormatError, "score True is not a number"),
    ("evaluate frame uint64 grade",
     lambda: u.evaluate(R, pd.DataFrame({"qid": ["1"], "docno": ["d1"], "relevance":
                                         np.array([2**64 - 1], dtype=np.uint64)}), P1),
     FormatError, "grade '18446744073709551615' is out of range"),
    ("estimate b=0", lambda: u.estimate(R, Q, P1, b=0), InvalidOptionError,
     "b (bootstrap iterations): expected an integer of at least 1, got 0"),
    ("estimate b=2.5", lambda: u.estimate(R, Q, P1, b=2.5), InvalidOptionError, "got 2.5"),
    ("estimate seed='x'", lambda: u.estimate(R, Q, P1, seed="x", b=5), InvalidOptionError,
     "seed: expected an integer"),
    ("estimate methods=5", lambda: u.estimate(R, Q, P1, methods=5, b=5), InvalidOptionError,
     "methods: expected names"),
    ("estimate prior=5", lambda: u.estimate(R, Q, P1, prior=5, b=5), InvalidOptionError,
     "prior: expected a name"),
    ("read_run 5", lambda: u.read_run(5), InvalidOptionError, "run: cannot read int 5"),
    ("read_run ties='x'", lambda: u.read_run(R, ties="x"), InvalidOptionError,
     "ties: expected one of"),
    ("read_runs 5", lambda: u.read_runs(5), InvalidOptionError, "runs: expected a list"),
    ("read_qrels None", lambda: u.read_qrels(None), InvalidOptionError, "qrels: cannot read"),
    ("read_sampled_qrels 5", lambda: u.read_sampled_qrels(5), InvalidOptionError,
     "sampled qrels: cannot read int 5"),
    ("read_groups 5", lambda: u.read_groups(5), InvalidOptionError, "groups: cannot read"),
    ("parse_measures [None]", lambda: u.parse_measures([None]), MeasureSpecError,
     "measure None is a NoneType, not a name"),
    ("parse_measures RBP(p=2)", lambda: u.parse_measures("RBP(p=2)"), MeasureSpecError,
     "RBP's parameter p must be a number in [0, 1), not 2"),
    ("Policies depth=-1", lambda: u.Policies(depth=-1), InvalidOptionError,
     "depth: expected None or an integer of at least 0"),
    ("score runs as a dict", lambda: u.score(R, QRELS, u.parse_measures(P1)),
     InvalidOptionError, "score: expected Runs"),
    ("judgment_stats 5", lambda: u.judgment_stats(5), InvalidOptionError, "cannot read int 5"),
    ("merge_qrels [5]", lambda: u.merge_qrels([5]), InvalidOptionError, "cannot read int 5"),
    ("diff_qrels None", lambda: u.diff_qrels(None, Q), InvalidOptionError, "cannot read"),
    ("filter_qrels topics=5", lambda: u.filter_qrels(Q, topics=5), InvalidOptionError,
     "topics: expected a list of topic ids"),
    ("build_pool depth='x'", lambda: u.build_pool([RUN], "x"), InvalidOptionError,
     "depth: expected an integer"),
    ("build_pool runs as a dict", lambda: u.build_pool(R, 10), InvalidOptionError,
     "build_pool: expected Runs"),
    ("coverage runs as a dict", lambda: u.coverage(R, QRELS), InvalidOptionError,
     "coverage: expected Runs"),
    ("coverage bands of text", lambda: u.coverage([RUN], QRELS, bands=["ab"]),
     InvalidOptionError, "band: expected an integer"),
    ("compare_qrels measures=5", lambda: u.compare_qrels([RUN], Q, Q, 5), MeasureSpecError,
     "got int 5"),
    ("infer b=0", lambda: u.infer(R, Q, ["infAP"], b=0), InvalidOptionError,
     "b (bootstrap replicates): expected an integer of at least 2"),
    ("paired_test text", lambda: u.paired_test(["a"], ["b"]), InvalidOptionError,
     "expected two arrays of numbers"),
    ("decision_matrix runs as a dict", lambda: u.decision_matrix(R, QRELS), InvalidOptionError,
     "expected Runs"),
    ("plan_judgments budget='x'", lambda: u.plan_judgments(R, Q, "x"), InvalidOptionError,
     "budget: expected an integer"),
    ("write_run 5", lambda: u.write_run(5, "never.run"), InvalidOptionError,
     "run: cannot read int 5"),
    ("compare_table 5", lambda: u.compare_table(5), InvalidOptionError,
     "results: expected unjudged.Results"),
]


@pytest.mark.parametrize(("label", "call", "error", "fragment"), CASES,
                         ids=[c[0] for c in CASES])
def test_misuse_raises_the_projects_error(label, call, error, fragment, tmp_path,
                                          monkeypatch):
    monkeypatch.chdir(tmp_path)  # write_run must not leave a file behind
    with pytest.raises(UnjudgedError) as caught:
        call()
    assert isinstance(caught.value, error), f"{label}: {type(caught.value).__name__}"
    message = str(caught.value)
    assert "\n" not in message and fragment in message, message


def test_there_are_about_thirty_cases_and_they_cover_the_tree():
    assert len(CASES) >= 30
    assert {c[2] for c in CASES} >= {InvalidOptionError, MeasureSpecError, FormatError}
    assert all(issubclass(c[2], UnjudgedError) for c in CASES)
    assert issubclass(FormatError, InputError)


class ArrowBacked:
    """A frame polars is not needed for: anything with `.to_arrow()` and `.columns`."""

    def __init__(self, table: pa.Table):
        self.table = table
        self.columns = table.column_names

    def to_arrow(self) -> pa.Table:
        return self.table


@pytest.mark.parametrize("wrap", [lambda t: t, ArrowBacked, lambda t: t.to_pandas()],
                         ids=["pyarrow", "to_arrow", "pandas"])
def test_tables_of_every_kind_give_the_same_values(wrap):
    run = pa.table({"qid": ["1", "1", "2"], "docno": ["d1", "d2", "d3"],
                    "score": [2.0, 1.0, 5.0]})
    qrels = pa.table({"query_id": ["1", "2"], "doc_id": ["d2", "d3"],
                      "relevance": pa.array([1, 2], pa.int64())})
    df = u.evaluate(wrap(run), wrap(qrels), ["P@1", "RR"], per_topic=False)
    assert df[["measure", "value"]].values.tolist() == [["P@1", 0.5], ["RR", 0.75]]


def test_polars_frames_as_ranx_and_pyterrier_users_have_them():
    pl = pytest.importorskip("polars")
    run = pl.DataFrame({"qid": ["1", "1", "2"], "docno": ["d1", "d2", "d3"],
                        "score": [2.0, 1.0, 5.0]})
    qrels = pl.DataFrame({"qid": ["1", "2"], "docno": ["d2", "d3"], "label": [1, 2]})
    df = u.evaluate(run, qrels, ["P@1", "RR"], per_topic=False)
    assert df[["measure", "value"]].values.tolist() == [["P@1", 0.5], ["RR", 0.75]]
    assert u.read_qrels(qrels).to_dict() == {"1": {"d2": 1}, "2": {"d3": 2}}
    named = u.evaluate({"mine": run}, qrels, "P@1", per_topic=False)
    assert named.run.tolist() == ["mine"]
    with pytest.raises(FormatError, match="score 'x' is not a number"):
        u.read_run(pl.DataFrame({"qid": ["1"], "docno": ["d1"], "score": ["x"]}))


def test_estimate_runs_takes_measure_names_as_estimate_does():
    """estimate_runs([...], q, ["P@3"]) as with parsed measures (it failed inside the engine
    with an AttributeError); no measure is the project's error."""
    q = u.read_qrels({"1": {"a": 1, "b": 0}})
    run = u.read_run({"1": {"a": 3.0, "b": 2.0, "c": 1.0}}, name="r")
    est = u.estimate_runs([run], q, ["P@3"], methods=["nonrel"], b=10)
    assert [(x["method"], round(x["value"], 4)) for x in est.rows(per_topic=False)] == \
        [("nonrel", 0.3333)]
    with pytest.raises(MeasureSpecError, match="no measure given"):
        u.estimate_runs([run], q, [], methods=["nonrel"])
