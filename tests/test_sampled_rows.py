"""A sampled batch's distinct rankings (strategies.rows): nDCG read per distinct ranking is
the kernel's value on the full batch, to the last bit."""

import numpy as np

from unjudged.data.judged import judge
from unjudged.io import read_qrels, read_run
from unjudged.measures import parse_measures
from unjudged.strategies import bootstrap as bs
from unjudged.strategies.fill import top
from unjudged.strategies.position import run_keys
from unjudged.strategies.rows import SampledBatch


def _batch(b: int, unjudged: int):
    rng = np.random.default_rng(3)
    q = read_qrels({str(t): {f"d{j}": int(rng.integers(0, 4)) for j in range(8)}
                    for t in range(40)})
    # topic t ranks (t % unjudged) unjudged documents among judged ones
    run = read_run({str(t): {**{f"d{j}": float(20 - 2 * j) for j in range(6)},
                             **{f"u{j}": float(19 - 2 * j) for j in range(t % unjudged)}}
                    for t in range(40)})
    j = top(judge(run, q), 10)
    how = bs.Draw("pool", 7, run_keys(run, j.topics, j.depth), spread=0.4)
    return bs.samples(j, how, 0, len(j.topics), 0, b, (True, False))


def test_ndcg_from_distinct_rows_is_identical():
    # listed rows; topic slices of a big batch; one row per iteration; b = 1
    for b, unjudged in ((200, 4), (2000, 5), (5, 8), (1, 3)):
        for batch in _batch(b, unjudged).values():
            assert isinstance(batch, SampledBatch) and batch.rows is not None
            rows = batch.rows
            assert (rows.table[rows.index] == batch.grades).all()
            plain = batch.with_grades(batch.grades)  # no rows: the kernel over every cell
            for m in parse_measures(["nDCG@10", "nDCG@5", "nDCG", "nDCG(dcg='exp-log2')@10",
                                     "nDCG(gains='1=3,2=9')@10", "AP", "P@10"]):
                assert m.compute(batch).tobytes() == m.compute(plain).tobytes(), (m, b)


def test_distinct_rows_with_a_thousand_unjudged_cells_has_no_overflow():
    """levels^cells for 1,500 cells overflowed float64 (a numpy warning); the topic keeps one row
    per iteration."""
    import warnings

    from unjudged.strategies.rows import distinct_rows

    cells = 1500
    base = np.full((1, cells), -1, dtype=np.int16)
    grades = np.random.default_rng(3).integers(0, 2, size=(4, 1, cells)).astype(np.int16)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = distinct_rows(base, grades, np.zeros(cells, dtype=np.int64), np.arange(cells),
                          None, 2)
    assert r.table.shape == (4, cells)
    assert (r.table[r.index[:, 0]] == grades[:, 0]).all()
