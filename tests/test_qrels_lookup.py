"""Qrels.lookup searches only the keys of the topics it is asked about (a stretch of the sorted
keys, issue 33's linearity); whatever the order, the mix of topics or the codes unknown to the
qrels, it must give what a dictionary of the judgments gives."""

from __future__ import annotations

import numpy as np
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
    tcodes = qrels.topic_codes([f"t{t}" for t, _ in asked])
    doc_index = {d: i for i, d in enumerate(qrels.docs.to_pylist())}
    dcodes = np.array([doc_index.get(f"d{d}", -1) if d >= 0 else -1 for _, d in asked])
    got = qrels.lookup(np.asarray(tcodes), dcodes)
    want = [judged.get((t, d), MISSING) if t >= 0 and d >= 0 else MISSING for t, d in asked]
    assert got.tolist() == want


def test_lookup_by_hand():
    # topics t1 (d1 2, d3 0) and t3 (d2 1); t2 asked about but never judged
    import io

    qrels = read_qrels(io.StringIO("t1 0 d1 2\nt1 0 d3 0\nt3 0 d2 1\n"))
    t = qrels.topic_codes(["t3", "t1", "t2", "t1", "t3"])
    docs = {d: i for i, d in enumerate(qrels.docs.to_pylist())}
    d = np.array([docs["d2"], docs["d3"], docs["d1"], docs["d2"], docs["d1"]])
    assert qrels.lookup(np.asarray(t), d).tolist() == [1, 0, MISSING, MISSING, MISSING]
