"""trec_eval's measure table, in its printing order, mapped onto the registry's kernels.

Each family says how its `-m name.params` parameters are read, how output names are formed and
how the per-topic values are aggregated and printed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from unjudged._records import frozen
from unjudged.measures import Measure, parse_measure

CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)

#: unjudged.measures.prefs.NAMES, written out: importing that module (and its data module) for
#: the names alone cost every call about 11M instructions (tests/test_startup.py checks the copy)
PREFS = ("prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
         "prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel",
         "prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret",
         "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp")

#: what an output prints: a Measure, or a special ("special", key, params) computed by the caller
Output = Measure | tuple[str, str, Any]


@frozen
class Family:
    """One trec_eval measure.

    kind: "cutoffs" (list of ints, name_K), "floats" (list, name_%.2f), "raw" (one parameter
    string, printed verbatim after name_ when given), "none".
    per_query / summary: whether the value is printed per topic and in the 'all' block.
    build: params -> [(output name, Measure or special key)].
    needs: the judgments it reads (-R): "qrels", "prefs" (prefs or qrels_prefs), "qrels_jg",
    or "any".
    """

    name: str
    kind: str
    default: tuple | str | None
    build: Callable[[Any, bool], list[tuple[Any, Output]]]
    per_query: bool = True
    summary: bool = True
    value: str = "float"  # "float", "int" or "str"
    needs: str = "qrels"


def _one(measure: str) -> Callable:
    return lambda params, given: [(None, parse_measure(measure))]


def _cut(template: str) -> Callable:
    return lambda params, given: [(k, parse_measure(template.format(k))) for k in params]


def _floats(template: str) -> Callable:
    return lambda params, given: [(f"{x:.2f}", parse_measure(template.format(x))) for x in params]


def _raw(make: Callable[[str | None], str]) -> Callable:
    return lambda params, given: [(params if given else None, parse_measure(make(params if given
                                                                                 else None)))]


def _special(key: str) -> Callable:
    return lambda params, given: [(params if given else None, ("special", key, params))]


FAMILIES: list[Family] = [
    Family("runid", "none", None, _special("runid"), per_query=False, value="str", needs="any"),
    Family("num_q", "none", None, _special("num_q"), per_query=False, value="int",
           needs="any"),
    Family("num_ret", "none", None, _one("NumRet"), value="int"),
    Family("num_rel", "none", None, _one("NumRel"), value="int"),
    Family("num_rel_ret", "none", None, _one("NumRelRet"), value="int"),
    Family("map", "none", None, _one("AP")),
    Family("gm_map", "none", None, _one("GMAP"), per_query=False),
    Family("Rprec", "none", None, _one("Rprec")),
    Family("bpref", "none", None, _one("Bpref")),
    Family("recip_rank", "none", None, _one("RR")),
    Family("iprec_at_recall", "floats", tuple(i / 10 for i in range(11)),
           _floats("IPrec(recall={!r})")),
    Family("P", "cutoffs", CUTOFFS, _cut("P@{}")),
    Family("relstring", "raw", "10", _special("relstring"), summary=False, value="str"),
    Family("recall", "cutoffs", CUTOFFS, _cut("R@{}")),
    Family("infAP", "none", None, _one("infAP")),
    Family("gm_bpref", "none", None, _one("GMBpref"), per_query=False),
    Family("Rprec_mult", "floats", tuple(round(0.2 * i, 2) for i in range(1, 11)),
           _floats("RprecMult(mult={!r})")),
    Family("utility", "raw", "1,-1,0,0", _raw(lambda p: f"Utility(weights='{p or '1,-1,0,0'}')")),
    Family("11pt_avg", "raw", None, _raw(lambda p: f"11ptAP(levels='{p}')" if p else "11ptAP")),
    Family("binG", "none", None, _one("binG")),
    Family("G", "raw", None, _raw(lambda p: f"G(gains='{p}')" if p else "G")),
    Family("ndcg", "raw", None, _raw(lambda p: f"nDCG(gains='{p}')" if p else "nDCG")),
    Family("ndcg_rel", "raw", None, _raw(lambda p: f"nDCGRel(gains='{p}')" if p else "nDCGRel")),
    Family("Rndcg", "raw", None, _raw(lambda p: f"RnDCG(gains='{p}')" if p else "RnDCG")),
    Family("ndcg_cut", "cutoffs", CUTOFFS, _cut("nDCG@{}")),
    Family("map_cut", "cutoffs", CUTOFFS, _cut("AP@{}")),
    Family("relative_P", "cutoffs", CUTOFFS, _cut("RelP@{}")),
    Family("success", "cutoffs", (1, 5, 10), _cut("Success@{}")),
    Family("set_P", "none", None, _one("P")),
    Family("set_relative_P", "none", None, _one("RelP")),
    Family("set_recall", "none", None, _one("R")),
    Family("set_map", "none", None, _one("SetAP")),
    Family("set_F", "raw", None, _raw(lambda p: f"SetF(beta={p})" if p else "SetF")),
    Family("num_nonrel_judged_ret", "none", None, _one("NumNonRelJudgedRet"), value="int"),
    *(Family(name, "none", None, _one(name), value="int" if name.startswith("prefs_num")
             else "float", needs="prefs") for name in PREFS),
    # qrels_jg: the measure in each judgment group, averaged over the topic's groups
    Family("map_avgjg", "none", None, _one("AP"), needs="qrels_jg"),
    Family("P_avgjg", "cutoffs", CUTOFFS, _cut("P@{}"), needs="qrels_jg"),
    Family("Rprec_mult_avgjg", "floats", tuple(round(0.2 * i, 2) for i in range(1, 11)),
           _floats("RprecMult(mult={!r})"), needs="qrels_jg"),
    Family("rbp", "raw", None, _raw(lambda p: f"RBP({p})" if p else "RBP(p=0.9)")),
    Family("rbp_resid", "raw", None, _raw(lambda p: "RBPResid")),
    Family("unj", "cutoffs", (5, 10, 20), _cut("Unj@{}")),
]

BY_NAME = {f.name: f for f in FAMILIES}

#: Named measure sets as trec_eval defines them.
OFFICIAL = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
            "bpref", "recip_rank", "iprec_at_recall", "P")
ALL_TREC = tuple(f.name for f in FAMILIES if f.needs in ("qrels", "any"))
SET = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
       "set_relative_P", "set_recall", "set_map", "set_F", "num_nonrel_judged_ret")
ALL_PREFS = ("runid", "num_q", *PREFS)
PREFS_SET = ("runid", "num_q", *PREFS[:6])  # trec_eval's `prefs`: the first eight of all_prefs
QRELS_JG = ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg")
SETS = {"official": OFFICIAL, "all_trec": ALL_TREC, "set": SET, "all_prefs": ALL_PREFS,
        "prefs": PREFS_SET, "qrels_jg": QRELS_JG}
