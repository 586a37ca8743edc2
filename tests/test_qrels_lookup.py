"""Qrels.lookup searches only the keys of the topics it is asked about (a stretch of the sorted
keys, issue 33's linearity); whatever the order, the mix of topics or the codes unknown to the
qrels, it must give what a dictionary of the judgments gives."""

from __future__ import annotations

import io

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from unjudged.data.qrels import MISSING
from unjudged.io.qrels import read_qrels

judgments = st.dictionaries(
    st.tuples(st.integers(0, 6), st.integers(0, 9)), st.integers(-1, 3), min_size=1,
    max_size=40)
asks = st.lists(st.tuples(st.integers(-1, 6), st.integers(-1, 9)), min_size=1, max_size=60)


@settings(max_examples=200, deadline=None)
@given(judged=judgments, asked=asks)
def test_lookup_equals_a_dictionary(tmp_path_factory, judged, asked):
    path = tmp_path_factory.mktemp("q") / "qrels"
    path.write_text("".join(f"t{t} 0 d{d} {g}\n" for (t, d), g in judged.items()))
    qrels = read_qrels(str(path))
    # "t-1" and "d-1" are never judged: their codes are -1
    tcodes = qrels.topic_codes([f"t{t}" for t, _ in asked])
    dcodes = qrels.doc_codes(pa.array([f"d{d}" for _, d in asked]))
    got = qrels.lookup(np.asarray(tcodes), dcodes)
    want = [judged.get((t, d), MISSING) for t, d in asked]
    assert got.tolist() == want


def test_lookup_by_hand():
    # topics t1 (d1 2, d3 0) and t3 (d2 1); t2 asked about but never judged
    qrels = read_qrels(io.StringIO("t1 0 d1 2\nt1 0 d3 0\nt3 0 d2 1\n"))
    t = qrels.topic_codes(["t3", "t1", "t2", "t1", "t3"])
    d = qrels.doc_codes(pa.array(["d2", "d3", "d1", "d2", "d1"]))
    assert qrels.lookup(np.asarray(t), d).tolist() == [1, 0, MISSING, MISSING, MISSING]
