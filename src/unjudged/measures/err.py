"""Expected reciprocal rank (Chapelle, Metzler, Zhang & Grinspan, CIKM 2009)."""

from __future__ import annotations

import numpy as np

from unjudged.measures._common import ranks
from unjudged.measures._spec import MeasureSpec, Param, register


def err(j, cutoff=None, max_grade=4):
    """sum_r 1/r * R_r * prod_{i<r} (1 - R_i), with R = (2^grade - 1) / 2^max_grade: the
    chance that a user who stops at the first satisfying document stops at rank r, over r."""
    g = j.cut(cutoff)
    stop = (np.exp2(np.maximum(g, 0).astype(np.float64)) - 1.0) / 2.0 ** int(max_grade)
    stop = np.minimum(stop, 1.0)
    reach = np.ones_like(stop)
    reach[..., 1:] = np.cumprod(1.0 - stop[..., :-1], axis=-1)
    return (stop * reach / ranks(g.shape[-1])).sum(axis=-1)


register(MeasureSpec(
    "ERR", err, "Expected reciprocal rank: a cascade user stops at rank r with probability "
    "R_r = (2^grade - 1) / 2^max_grade after passing the documents above; ERR is the expected "
    "1/r of the stopping rank. Unjudged documents have grade 0.",
    params=(Param("max_grade", int, 4, "highest grade of the scale (gdeval.pl's -j)",
                  low=0, high=1023),),
    cutoff="optional", aliases=("err",),
    citation="Chapelle, Metzler, Zhang & Grinspan, CIKM 2009"))
