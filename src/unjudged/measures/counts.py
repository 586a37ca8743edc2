"""Counts: documents retrieved, relevant, relevant retrieved, judged non-relevant retrieved."""

from __future__ import annotations

import numpy as np

from unjudged.measures._common import level
from unjudged.measures._spec import MeasureSpec, Param, register
from unjudged.measures.precision import REL, TREC


def _broadcast(j, values):
    return np.broadcast_to(np.asarray(values, dtype=np.float64), j.grades.shape[:-1]).copy()


def num_ret(j, rel=None):
    """Documents retrieved; with rel, those of at least that grade (ir_measures NumRet(rel=))."""
    if rel is None:
        return _broadcast(j, j.length)
    return (j.grades >= int(rel)).sum(axis=-1).astype(np.float64)


def num_q(j):
    """1 per evaluated topic: summed, the number of topics (trec_eval num_q)."""
    return np.ones(j.grades.shape[:-1], dtype=np.float64)


def num_rel(j, rel=None):
    return _broadcast(j, j.pool.num_rel(level(j, rel)))


def num_rel_ret(j, rel=None):
    return (j.grades >= level(j, rel)).sum(axis=-1).astype(np.float64)


def num_nonrel_judged_ret(j, rel=None):
    g = j.grades
    return ((g >= 0) & (g < level(j, rel))).sum(axis=-1).astype(np.float64)


for _name, _kernel, _alias, _params, _text in (
    ("NumRet", num_ret, "num_ret",
     (Param("rel", int, None, "count only documents of at least this grade (default: all)"),),
     "Number of documents retrieved (with rel=k: of grade k or more, ir_measures' NumRet)."),
    ("NumQ", num_q, "num_q", (), "Number of topics evaluated."),
    ("NumRel", num_rel, "num_rel", (REL,), "Number of relevant documents in the qrels."),
    ("NumRelRet", num_rel_ret, "num_rel_ret", (REL,), "Number of relevant documents retrieved."),
    ("NumNonRelJudgedRet", num_nonrel_judged_ret, "num_nonrel_judged_ret", (REL,),
     "Number of judged non-relevant documents retrieved."),
):
    register(MeasureSpec(_name, _kernel, _text, params=_params, aliases=(_alias,),
                         aggregate="sum", integer=True, bounded=None, citation=TREC,
                         estimable=_name == "NumRelRet", normalised=_name != "NumRelRet"))
