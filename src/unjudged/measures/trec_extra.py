"""The rest of trec_eval's table: geometric means, RBP and its residual, unj, utility."""

from __future__ import annotations

import math

import numpy as np

from unjudged.data.judged import NONPOOL, UNJUDGED
from unjudged.measures._common import level
from unjudged.measures._spec import MeasureSpec, Param, register
from unjudged.measures.ap import average_precision
from unjudged.measures.judgments import bpref
from unjudged.measures.precision import REL, TREC


def rbp(j, cutoff=None, p=0.8, rel=None):
    """Rank-biased precision (1-p) sum_i gain_i p^(i-1), over the top k with a cutoff. With
    rel=None gains are graded as trec_eval's rbp does: grade / (highest grade of the topic)
    when that exceeds 1."""
    g = j.cut(cutoff)
    if rel is not None:
        gain = (g >= int(rel)).astype(np.float64)
    else:
        top = np.maximum(j.pool.top_grade, 1).astype(np.float64)
        gain = np.maximum(g, 0) / top[..., None]
    weights = (1.0 - p) * p ** np.arange(g.shape[-1], dtype=np.float64)
    return (gain * weights).sum(axis=-1)


def rbp_resid(j, p=0.9):
    """RBP's residual: the weight unjudged documents and the unseen tail could add (trec_eval
    reports 0 when every retrieved document is judged)."""
    g = j.grades
    unj = (g == NONPOOL) | (g == UNJUDGED)
    weights = (1.0 - p) * p ** np.arange(g.shape[-1], dtype=np.float64)
    resid = (unj * weights).sum(axis=-1) + p ** j.length.astype(np.float64)
    return np.where(unj.any(axis=-1), resid, 0.0)


def unjudged_at(j, cutoff=None):
    """Fraction of the top k that is unjudged (trec_eval unj; k is the denominator)."""
    g = j.cut(cutoff)
    unj = ((g == NONPOOL) | (g == UNJUDGED)).sum(axis=-1)
    return unj / float(cutoff if cutoff is not None else max(g.shape[-1], 1))


class Weights(str):
    """Utility's weights 'a,b,c,d': four finite numbers (ValueError otherwise).

    Example:
        >>> Weights("1, -1,0,0")
        '1,-1,0,0'
    """

    def __new__(cls, value: object) -> Weights:
        parts = [float(x) for x in str(value).split(",")]
        if len(parts) != 4 or not all(math.isfinite(x) for x in parts):
            raise ValueError(value)
        return super().__new__(cls, ",".join(x.strip() for x in str(value).split(",")))


def utility(j, weights="1,-1,0,0", rel=None, docs=0):
    """a*rel_ret + b*nonrel_ret + c*rel_missed + d*nonrel_missed (docs = collection size)."""
    a, b, c, d = (float(x) for x in weights.split(","))
    lv = level(j, rel)
    rr = (j.grades >= lv).sum(axis=-1).astype(np.float64)
    ret = j.length.astype(np.float64)
    nrel = j.pool.num_rel(lv).astype(np.float64)
    return a * rr + b * (ret - rr) + c * (nrel - rr) + d * (docs + rr - ret - nrel)


register(MeasureSpec(
    "GMAP", average_precision, "Average precision aggregated by the geometric mean over topics "
    "(values floored at 1e-5), trec_eval's gm_map.", params=(REL,), aliases=("gm_map",),
    aggregate="gmean", citation="Robertson, SIGIR 2006; trec_eval"))
register(MeasureSpec(
    "GMBpref", bpref, "bpref aggregated by the geometric mean (trec_eval gm_bpref).",
    params=(REL,), aliases=("gm_bpref",), aggregate="gmean", estimable=False, citation=TREC))
register(MeasureSpec(
    "RBP", rbp, "Rank-biased precision with persistence p. rel=k makes gains binary at grade k; "
    "without it gains are graded, as in trec_eval's rbp. RBP@k sums the top k only.",
    params=(Param("p", float, 0.8, "persistence", low=0, high=1, open_high=True),
            Param("rel", int, None, "binary threshold")),
    cutoff="optional", aliases=("rbp",), citation="Moffat & Zobel, TOIS 2008", normalised=False))
register(MeasureSpec(
    "RBPResid", rbp_resid, "RBP residual: the most that unjudged documents and the unretrieved "
    "tail could add to RBP (trec_eval rbp_resid).",
    params=(Param("p", float, 0.9, "persistence", low=0, high=1, open_high=True),),
    aliases=("rbp_resid",), estimable=False,
    citation="Moffat & Zobel, TOIS 2008"))
register(MeasureSpec(
    "Unj", unjudged_at, "Fraction of the top k documents without a judgment (trec_eval unj).",
    cutoff="required", aliases=("unj",), higher_is_better=False, estimable=False,
    citation=TREC))
register(MeasureSpec(
    "Utility", utility, "Linear utility a*rel_ret + b*nonrel_ret + c*rel_missed + "
    "d*nonrel_missed (trec_eval utility; weights 'a,b,c,d').",
    params=(Param("weights", Weights, "1,-1,0,0", "a,b,c,d",
                  what="four numbers 'a,b,c,d' such as '1,-1,0,0'"), REL,
            Param("docs", int, 0, "documents in the collection (trec_eval -N)", low=0,
                  high=2**62)),
    aliases=("utility",), bounded=None, citation=TREC, monotone=False, guaranteed=False))
