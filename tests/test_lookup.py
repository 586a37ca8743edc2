"""The qrels' document index (unjudged.data._lookup) against a plain dict lookup."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from unjudged.data._lookup import VocabularyIndex


def _expected(vocab: list[str], queries: list[str]) -> list[int]:
    where = {v: i for i, v in enumerate(vocab)}
    return [where.get(q, -1) for q in queries]


def test_codes_equal_a_dict_lookup_on_crowded_slots_and_long_ids():
    rng = np.random.default_rng(7)
    # short ids (the fingerprint is the id), long ids sharing 8-byte prefixes, and a tiny
    # directory's worth of both, so that slots of three or more entries occur
    short = [str(i) for i in rng.choice(10**7, size=3000, replace=False)]
    long = [f"clueweb12-{i:07d}" for i in rng.choice(10**6, size=1000, replace=False)]
    vocab = sorted(short + long, key=str.encode)
    index = VocabularyIndex(pa.array(vocab))
    sizes = np.diff(index._start)
    assert sizes.max() >= 3  # the pass per further entry is exercised
    queries = (vocab[::3] + [v + "x" for v in vocab[::7]] + [v[:-1] for v in long[::5]]
               + [str(i) for i in rng.integers(0, 10**7, size=2000)] + ["", "0"])
    order = rng.permutation(len(queries))
    queries = [queries[i] for i in order]
    codes = index.codes(pa.array(queries))
    assert codes.dtype == np.int32
    assert codes.tolist() == _expected(vocab, queries)


def test_codes_of_an_empty_vocabulary_and_of_one_id():
    assert VocabularyIndex(pa.array([], pa.string())).codes(pa.array(["a", ""])).tolist() \
        == [-1, -1]
    assert VocabularyIndex(pa.array(["d1"])).codes(pa.array(["d1", "d", "d10"])).tolist() \
        == [0, -1, -1]
