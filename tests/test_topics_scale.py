"""Issue 34 item 2: the bootstrap's pieces that work in slices or through tables at scale give
what the whole computation gives, to the last bit (the benchmark is
benchmarks/topics_scale.py)."""

from __future__ import annotations

import numpy as np

from unjudged.engine.estimate import end_mass
from unjudged.measures.dcg import _dcg_of_ideal
from unjudged.strategies import growth, summaries
from unjudged.strategies.keys import mix, normals, uniforms


def test_laid_out_table_equals_laying_out_each_row():
    rng = np.random.default_rng(3)
    for shape, width in [((40, 30, 3), 5), ((9, 17, 4), 3), ((5, 2), 1), ((6, 4, 2), 40)]:
        counts = rng.integers(0, 6, size=shape)
        direct = growth._lay_rows(growth._above(counts), width)
        assert np.array_equal(growth._laid_out(counts, width), direct)
        coded = growth._laid_codes(np.moveaxis(counts, -1, 0), width)
        if coded is not None:
            table, code = coded
            assert np.array_equal(table[code], direct)
            # what is computed per distinct row is what the rows give one by one
            assert np.array_equal(_dcg_of_ideal(table, "log2")[code],
                                  _dcg_of_ideal(direct, "log2"))
    assert growth._laid_out(np.array([[0, 0, 0]]), 3).tolist() == [[-1, -1, -1]]
    assert growth._laid_out(np.array([[1, 2, 1]]), 5).tolist() == [[2, 1, 1, 0, -1]]


def test_describe_in_slices_equals_describe_at_once(monkeypatch):
    rng = np.random.default_rng(5)
    samples = np.round(rng.random((50, 13, 3)), 2)
    whole = summaries.describe(samples, "mean", 0.9)
    for point in ("mean", "mode", "most-likely", 0.3):
        full = summaries.describe(samples, point, 0.9)
        monkeypatch.setattr(summaries, "_COLUMN_CELLS", 50 * 4)  # four columns at a time
        sliced = summaries.describe(samples, point, 0.9)
        monkeypatch.undo()
        for a, b in zip(full, sliced, strict=True):
            assert a.shape == b.shape and np.array_equal(a, b, equal_nan=True)
    assert whole[0].shape == (13, 3, 9) and whole[2].shape == (13, 3, 2)
    lohi = whole[2]
    ends = end_mass(samples, lohi)
    lo = (np.abs(samples - lohi[..., 0]) <= 1e-12).mean(axis=0)
    assert ends.shape == (13, 3, 2) and np.array_equal(ends[..., 0], lo)


def test_random_numbers_in_place_are_the_formulas():
    keys = np.arange(1, 40, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    x = keys.copy()
    with np.errstate(over="ignore"):
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        x = x ^ (x >> np.uint64(31))
    assert np.array_equal(mix(keys), x) and isinstance(mix(np.uint64(7)), np.uint64)
    u = uniforms(keys, 3, 2, 9)
    assert u.shape == (7, 39) and ((u > 0) & (u < 1)).all()
    z = normals(keys, 3, 2, 9)
    assert z.shape == (7, 39) and abs(float(z.mean())) < 0.3


def test_grown_counts_take_the_narrowest_type():
    from unjudged.io import read_qrels, read_run
    from unjudged.strategies.bootstrap import Draw
    from unjudged.strategies.position import PositionModel

    q = read_qrels({"t": {"a": 1, "b": 0}, "u": {"c": 2}})
    runs = [read_run({"t": {"a": 3.0, "x": 2.0, "y": 1.0}, "u": {"c": 1.0, "z": 0.5}},
                     name="r")]
    model = PositionModel.build(runs, q)
    g = growth.Growth.build(model, q, Draw("pool", 0, np.zeros((2, 1), np.uint64)), levels=3,
                            b=500)
    assert g.counts.dtype == np.uint8 and g.counts.shape == (500, 2, 3)
    assert g.counts[..., 0].max() == 0 and 0 < g.counts[:, 0, 1:].sum(axis=-1).max() <= 2
    assert g.counts[:, 1, 1:].sum(axis=-1).max() <= 1


def test_grown_pool_made_when_read_equals_made_at_once():
    """A grown pool lays out its best grades, and a regrown one copies its counts, only when
    read (nDCG at a cutoff reads neither): what they then give is what laying out and
    copying at once gives, and unread they are not made."""
    from unjudged.data.judged import Pool
    from unjudged.io import read_qrels, read_run
    from unjudged.strategies.bootstrap import Draw
    from unjudged.strategies.fill import pool_counts
    from unjudged.strategies.position import PositionModel

    rng = np.random.default_rng(11)
    q = read_qrels({f"t{t}": {f"d{j}": int(rng.integers(0, 3)) for j in range(4)}
                    for t in range(6)})
    runs = [read_run({f"t{t}": {f"d{j}": float(9 - j) for j in range(int(rng.integers(2, 9)))}
                      for t in range(6)}, name="r")]
    model = PositionModel.build(runs, q)
    g = growth.Growth.build(model, q, Draw("pool", 0, np.zeros((6, 1), np.uint64)), levels=3,
                            b=40)
    base = Pool.build(q, model.topics, "unjudged")
    pool = g.pool(base, 5, 25, 3)
    assert "_laid" not in pool.__dict__ or pool.__dict__["_laid"] is None
    want = pool_counts(base, 3)[None] + g.counts[5:25].astype(np.int64)
    assert np.array_equal(pool.counts, want) and pool.laid_width == 3
    assert np.array_equal(pool.sorted_grades, growth._lay_rows(growth._above(want), 3))
    # a run that drew relevant some documents the growth drew non-relevant (so counted in no
    # grade): counts and best grades as if made at once
    rows = np.array([0, 0, 2, 5])
    got = rng.integers(0, 3, size=(20, 4)).astype(np.int8)
    before = np.zeros((20, 4), dtype=np.int8)
    again = g.regrown(pool, got, before, rows)
    assert callable(again.grown)  # type: ignore[attr-defined]
    total = want.copy()
    for it in range(20):
        for c, t in enumerate(rows):
            for grades, sign in ((got, 1), (before, -1)):
                if grades[it, c] > 0:
                    total[it, t, grades[it, c]] += sign
    assert np.array_equal(again.counts, total)  # type: ignore[attr-defined]
    assert np.array_equal(again.sorted_grades, growth._lay_rows(growth._above(total), 3))
    assert np.array_equal(again.num_rel(1), total[..., 1:].sum(axis=-1))
    part = again.topic_slice(1, 4)
    assert np.array_equal(part.counts, total[:, 1:4])  # type: ignore[attr-defined]
    assert np.array_equal(part.sorted_grades, again.sorted_grades[:, 1:4])
