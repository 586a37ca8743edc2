"""Slow, obviously-correct reference implementation of trec_eval 10 measures.

This module is a *test oracle*: a deliberately simple, pure-Python,
loop-per-document re-implementation of the measures printed by
``trec_eval -m all_trec`` (plus ``relstring``, ``unj``, ``rbp`` and
``rbp_resid``).  It is written for readability, not speed; it is checked
against trec_eval's own golden outputs by ``tests/test_reference_trec_eval.py``.

API
---
``read_qrels(path) -> {qid: {docno: grade}}``
    Whitespace separated ``qid iter docno grade`` lines; lines starting with
    ``#`` and blank lines are skipped.  A negative grade means "in the pool but
    not judged" (infAP style).

``read_run(path) -> {qid: [(docno, score), ...]}``
    TREC run lines ``qid Q0 docno rank score runid [ignored...]``; ``#`` lines
    are skipped.  The rank column is ignored (trec_eval re-sorts).

``read_runid(path) -> str``
    The run tag (6th column) of the first run line; trec_eval prints it as
    the ``runid`` summary line.

``evaluate_topic(qrels_topic, ranking, *, rel_level=1, max_docs=None, params=None)``
    ``{trec_eval output name: value}`` for one topic, in trec_eval's print
    order.  Values are ``float`` except ``num_ret``, ``num_rel``,
    ``num_rel_ret``, ``num_nonrel_judged_ret`` (``int``) and ``relstring``
    (``str``, without the quotes trec_eval prints around it).
    ``rel_level`` is trec_eval's ``-l``; ``max_docs`` is ``-M``.
    ``params`` maps a measure family to trec_eval-style parameters, either as
    the string given after ``-m family.`` or as Python values, e.g.
    ``{'P': [5, 7, 3], 'ndcg': '1=3,2=9,4=4.5', 'utility': '2,-1,0,0',
    'relstring': 20, 'Rprec_mult': [5.0, 0.2, 0.35], 'rbp': {'p': 0.8}}``.

``evaluate(qrels, run, *, rel_level=1, max_docs=None, complete=False, params=None, runid=None)``
    ``(per_topic, summary)``.  ``per_topic`` is ``{qid: evaluate_topic(...)}``
    for the evaluated topics; ``summary`` is the ``all`` column.
    ``complete`` is ``-c``.  ``runid`` (optional) is copied to the summary.

``format_value(name, value)`` / ``format_output(per_topic, summary, measures=None)``
    trec_eval's text (``%-22s\\t%s\\t%s``) for a value / a whole ``-q`` run;
    ``measures`` restricts output to the given families (like ``-m``).

Conventions (all verified against trec_eval's golden outputs)
-------------------------------------------------------------
* Ranking: score descending, ties broken by docno *descending* (byte-wise
  ``strcmp``); then ``-M`` keeps the first ``max_docs``.
* Each retrieved doc gets a relevance value: its grade if judged (>= 0),
  NONPOOL if absent from the qrels, UNJUDGED if its qrels grade is negative.
  NONPOOL / UNJUDGED docs are non-relevant with gain 0.
* ``num_rel`` = qrels docs with grade >= rel_level.  Judged non-relevant =
  0 <= grade < rel_level.  Gains (ndcg family, G, rbp) are the raw grades
  regardless of ``rel_level``.
* Topics evaluated: those in both run and qrels; with ``complete`` all qrels
  topics, a topic missing from the run being evaluated as an empty ranking.
* Summary: arithmetic mean over evaluated topics, except sums for num_ret,
  num_rel, num_rel_ret, num_nonrel_judged_ret; geometric mean (values floored
  at 1e-5) for gm_map / gm_bpref; ``num_q`` = number of topics; relstring has
  no summary; runid / num_q / gm_map / gm_bpref have no per-topic value.
"""

from __future__ import annotations

import math

__all__ = [
    "read_qrels",
    "read_run",
    "read_runid",
    "evaluate_topic",
    "evaluate",
    "format_value",
    "format_output",
    "measure_family",
]

NONPOOL = "-"  # retrieved doc absent from the qrels
UNJUDGED = "."  # retrieved doc in the qrels with a negative grade

MIN_GEO_MEAN = 0.00001
INFAP_EPSILON = 0.00001

# Families in trec_eval's print order, with their default parameters.
DEFAULTS: dict[str, object] = {
    "runid": None,
    "num_q": None,
    "num_ret": None,
    "num_rel": None,
    "num_rel_ret": None,
    "map": None,
    "gm_map": None,
    "Rprec": None,
    "bpref": None,
    "recip_rank": None,
    "iprec_at_recall": [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0],
    "P": [5, 10, 15, 20, 30, 100, 200, 500, 1000],
    "relstring": 10,
    "recall": [5, 10, 15, 20, 30, 100, 200, 500, 1000],
    "infAP": None,
    "gm_bpref": None,
    "Rprec_mult": [0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0],
    "utility": [1.0, -1.0, 0.0, 0.0],
    "11pt_avg": [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0],
    "binG": None,
    "G": {},
    "ndcg": {},
    "ndcg_rel": {},
    "Rndcg": {},
    "ndcg_cut": [5, 10, 15, 20, 30, 100, 200, 500, 1000],
    "map_cut": [5, 10, 15, 20, 30, 100, 200, 500, 1000],
    "relative_P": [5, 10, 15, 20, 30, 100, 200, 500, 1000],
    "success": [1, 5, 10],
    "set_P": None,
    "set_relative_P": None,
    "set_recall": None,
    "set_map": None,
    "set_F": [1.0],
    "num_nonrel_judged_ret": None,
    "rbp": {},
    "rbp_resid": None,
    "unj": [5, 10, 20],
}
FAMILIES = list(DEFAULTS)

# families whose parameters are integer document cutoffs -> name_<int>
LONG_CUT_FAMILIES = {"P", "recall", "ndcg_cut", "map_cut", "relative_P", "success", "unj"}
# families whose parameters are float cutoffs -> name_<%.2f>
FLOAT_CUT_FAMILIES = {"iprec_at_recall", "Rprec_mult"}
# single-valued families with a parameter list -> name, or name_<params> if given
FLOAT_LIST_FAMILIES = {"relstring", "utility", "11pt_avg", "set_F"}
# single-valued families with 'level=gain' pairs -> name, or name_<params> if given
PAIR_FAMILIES = {"G", "ndcg", "ndcg_rel", "Rndcg", "rbp"}
# printed only in the summary
SUMMARY_ONLY = {"runid", "num_q", "gm_map", "gm_bpref"}
# summed, not averaged, in the summary
SUMMED = {"num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"}
INT_MEASURES = SUMMED | {"num_q"}
STRING_MEASURES = {"runid", "relstring"}


# --------------------------------------------------------------------------- I/O


def read_qrels(path) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            if line.startswith("#"):
                continue
            fields = line.split()
            if not fields:
                continue
            qid, _iter, docno, grade = fields[:4]
            topic = qrels.setdefault(qid, {})
            if docno in topic:  # trec_eval aborts on duplicate judgments
                raise ValueError(f"duplicate qrels entry for topic {qid} doc {docno}")
            topic[docno] = int(grade)
    return qrels


def read_run(path) -> dict[str, list[tuple[str, float]]]:
    run: dict[str, list[tuple[str, float]]] = {}
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            if line.startswith("#"):
                continue
            fields = line.split()
            if not fields:
                continue
            qid, _q0, docno, _rank, score = fields[:5]
            run.setdefault(qid, []).append((docno, float(score)))
    return run


def read_runid(path) -> str | None:
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            if line.startswith("#"):
                continue
            fields = line.split()
            if len(fields) >= 6:
                return fields[5]
    return None


# ------------------------------------------------------------------- parameters


def _num_str(x) -> str:
    x = float(x)
    return str(int(x)) if x == int(x) else repr(x)


def _param_string(value) -> str:
    """The parameter text trec_eval echoes in a measure name."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return ",".join(f"{k}={_num_str(v)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return ",".join(_num_str(v) for v in value)
    return _num_str(value)


def _as_floats(value) -> list[float]:
    if isinstance(value, str):
        return [float(v) for v in value.split(",") if v != ""]
    if isinstance(value, (list, tuple)):
        return [float(v) for v in value]
    return [float(value)]


def _as_pairs(value) -> dict[str, float]:
    if isinstance(value, str):
        out = {}
        for item in value.split(","):
            if item:
                k, v = item.split("=")
                out[k] = float(v)
        return out
    return {str(k): float(v) for k, v in value.items()}


def _c_atol(text: str) -> int:
    """C atol(): leading integer part of a string ('23.4' -> 23)."""
    text = text.strip()
    sign, i = 1, 0
    if text[:1] in "+-":
        sign = -1 if text[0] == "-" else 1
        i = 1
    digits = ""
    while i < len(text) and text[i].isdigit():
        digits += text[i]
        i += 1
    return sign * int(digits or 0)


def _resolve_params(params: dict | None) -> dict[str, tuple[object, str | None]]:
    """family -> (parsed parameter value, name suffix or None)."""
    params = params or {}
    unknown = set(params) - set(DEFAULTS)
    if unknown:
        raise ValueError(f"unknown measure families: {sorted(unknown)}")
    out: dict[str, tuple[object, str | None]] = {}
    for fam, default in DEFAULTS.items():
        given = fam in params and params[fam] is not None
        raw = params[fam] if given else default
        if fam in LONG_CUT_FAMILIES:
            if isinstance(raw, str):
                cuts = [_c_atol(v) for v in raw.split(",") if v != ""]
            else:
                cuts = [int(v) for v in raw]
            out[fam] = (sorted(set(cuts)), None)
        elif fam in FLOAT_CUT_FAMILIES:
            out[fam] = (sorted(set(_as_floats(raw))), None)
        elif fam in FLOAT_LIST_FAMILIES:
            out[fam] = (_as_floats(raw), _param_string(raw) if given else None)
        elif fam in PAIR_FAMILIES:
            out[fam] = (_as_pairs(raw), _param_string(raw) if given else None)
        else:
            out[fam] = (None, None)
    return out


def _name(fam: str, suffix: str | None) -> str:
    return fam if suffix is None else f"{fam}_{suffix}"


def measure_family(name: str) -> str:
    """The measure family ('-m' name) of a trec_eval output name."""
    best = None
    for fam in FAMILIES:
        if ((name == fam or name.startswith(fam + "_"))
                and (best is None or len(fam) > len(best))):
            best = fam
    if best is None:
        raise KeyError(name)
    return best


# ---------------------------------------------------------------- basic pieces


def _rank(ranking, max_docs):
    """Sort (docno, score) pairs trec_eval's way and apply -M."""
    docs = sorted(ranking, key=lambda d: d[0].encode("utf-8", "surrogateescape"), reverse=True)
    docs.sort(key=lambda d: d[1], reverse=True)  # stable: keeps docno-descending ties
    if max_docs is not None:
        docs = docs[:max_docs]
    return docs


def _label(qrels_topic, docno):
    if docno not in qrels_topic:
        return NONPOOL
    grade = qrels_topic[docno]
    return UNJUDGED if grade < 0 else grade


def _is_judged(lab) -> bool:
    return lab is not NONPOOL and lab is not UNJUDGED


def _lround(x: float) -> int:
    """C lround for the non-negative values used here (halves away from 0)."""
    return int(math.floor(x + 0.5)) if x >= 0 else -int(math.floor(-x + 0.5))


def _setup_gains(rel_levels: list[int], pairs: dict[str, float]):
    """List of (level, gain, count) sorted by ascending gain.

    Levels 0..len(rel_levels)-1 get gain = level unless overridden by a
    'level=gain' parameter; parameter levels absent from the qrels have count 0.
    """
    gains = {}
    for k, v in pairs.items():
        gains[_c_atol(k)] = [float(v), 0]
    for level, count in enumerate(rel_levels):
        if level in gains:
            gains[level][1] = count
        else:
            gains[level] = [float(level), count]
    return sorted(((lvl, g, c) for lvl, (g, c) in gains.items()), key=lambda t: t[1])


def _gain_of(lab, gains) -> float:
    if not _is_judged(lab):
        return 0.0
    for level, gain, _count in gains:
        if level == lab:
            return gain
    return 0.0


def _ideal_sequence(gains) -> list[float]:
    """Positive gains of all judged docs, best first (the ideal ranking)."""
    seq = []
    for _level, gain, count in reversed(gains):
        if count == 0:
            continue
        if gain <= 0:
            break
        seq.extend([gain] * count)
    return seq


def _dcg_prefix(gain_list) -> list[float]:
    """prefix[i] = DCG of the first i entries (discount log2(rank + 1))."""
    out = [0.0]
    total = 0.0
    for i, g in enumerate(gain_list):
        if g != 0:
            total += g / math.log2(i + 2)
        out.append(total)
    return out


# --------------------------------------------------------------- one topic


def evaluate_topic(qrels_topic, ranking, *, rel_level=1, max_docs=None, params=None):
    prm = _resolve_params(params)
    docs = _rank(ranking, max_docs)
    if len({d for d, _s in docs}) != len(docs):  # trec_eval aborts on duplicate docs
        raise ValueError("duplicate docno in ranking")
    labels = [_label(qrels_topic, d) for d, _s in docs]
    is_rel = [_is_judged(lab) and lab >= rel_level for lab in labels]
    is_nonrel_judged = [_is_judged(lab) and 0 <= lab < rel_level for lab in labels]

    num_ret = len(labels)
    num_rel_ret = sum(is_rel)
    grades = [g for g in qrels_topic.values() if g >= 0]
    max_grade = max(grades) if grades else -1
    rel_levels = [0] * (max_grade + 1)
    for g in grades:
        rel_levels[g] += 1
    num_rel = sum(c for lvl, c in enumerate(rel_levels) if lvl >= rel_level)
    num_nonrel = sum(c for lvl, c in enumerate(rel_levels) if lvl < rel_level)

    def rel_in_top(k):
        return sum(is_rel[:k])

    def prec_at(k):  # precision at k, missing docs count as non-relevant
        return rel_in_top(k) / k if k > 0 else 0.0

    out: dict[str, object] = {}
    out["num_ret"] = num_ret
    out["num_rel"] = num_rel
    out["num_rel_ret"] = num_rel_ret

    # map: mean over relevant docs of precision at their rank (0 if unretrieved)
    ap = 0.0
    rel_so_far = 0
    for i, r in enumerate(is_rel):
        if r:
            rel_so_far += 1
            ap += rel_so_far / (i + 1)
    ap = ap / num_rel if num_rel else 0.0
    out["map"] = ap

    # Rprec: precision after num_rel docs
    out["Rprec"] = prec_at(num_rel) if num_rel else 0.0

    # bpref: judged docs only; nonrel above each rel doc, capped at R
    bpref = 0.0
    nonrel_so_far = 0
    for lab in labels:
        if not _is_judged(lab):
            continue
        if lab < rel_level:
            nonrel_so_far += 1
        else:
            if nonrel_so_far > 0:
                bpref += 1.0 - min(nonrel_so_far, num_rel) / min(num_nonrel, num_rel)
            else:
                bpref += 1.0
    bpref = bpref / num_rel if num_rel else 0.0
    out["bpref"] = bpref

    # recip_rank
    rr = 0.0
    for i, r in enumerate(is_rel):
        if r:
            rr = 1.0 / (i + 1)
            break
    out["recip_rank"] = rr

    # interpolated precision: int_prec(k-th rel doc) = max precision at any
    # rank >= rank of the k-th relevant doc; recall level x -> k = lround(x*R)
    rel_ranks = [i + 1 for i, r in enumerate(is_rel) if r]

    def iprec(level):
        k = _lround(level * num_rel)
        if k > num_rel_ret:
            return 0.0
        if num_rel_ret == 0:  # k == 0, nothing relevant retrieved
            return 0.0
        start = max(k, 1)
        return max(j / rel_ranks[j - 1] for j in range(start, num_rel_ret + 1))

    for level in prm["iprec_at_recall"][0]:
        out[f"iprec_at_recall_{level:.2f}"] = iprec(level)

    for k in prm["P"][0]:
        out[f"P_{k}"] = prec_at(k)

    # relstring
    length, suffix = prm["relstring"]
    n = max(0, min(int(length[0]), num_ret))
    chars = []
    for lab in labels[:n]:
        if lab is NONPOOL:
            chars.append("-")
        elif lab is UNJUDGED:
            chars.append(".")
        elif lab > 9:
            chars.append(">")
        else:
            chars.append(str(lab))
    out[_name("relstring", suffix)] = "".join(chars)

    for k in prm["recall"][0]:
        out[f"recall_{k}"] = rel_in_top(k) / num_rel if num_rel else 0.0

    # infAP (Yilmaz & Aslam): NONPOOL docs are skipped, UNJUDGED docs count as
    # pooled; j = 0-based rank in the full ranking
    inf_ap = 0.0
    rel_so_far = nonrel_so_far = unjudged_so_far = 0
    for j, lab in enumerate(labels):
        if lab is NONPOOL:
            continue
        if lab is UNJUDGED:
            unjudged_so_far += 1
            continue
        if lab < rel_level:
            nonrel_so_far += 1
            continue
        rel_so_far += 1
        if j == 0:
            inf_ap += 1.0
        else:
            fj = float(j)
            above_pooled = rel_so_far - 1 + nonrel_so_far + unjudged_so_far
            inf_ap += 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * (above_pooled / fj) * (
                (rel_so_far - 1 + INFAP_EPSILON)
                / (rel_so_far - 1 + nonrel_so_far + 2 * INFAP_EPSILON)
            )
    out["infAP"] = inf_ap / num_rel if num_rel else inf_ap

    # Rprec_mult: precision at cutoff int(x * R + 0.9) (truncation, unlike
    # iprec_at_recall / 11pt_avg which round)
    for x in prm["Rprec_mult"][0]:
        cut = int(x * num_rel + 0.9)
        out[f"Rprec_mult_{x:.2f}"] = prec_at(cut)

    # utility: a*relret + b*nonrelret + c*relnotret + d*nonrelnotret
    coeffs, suffix = prm["utility"]
    if len(coeffs) != 4:
        raise ValueError("utility needs 4 coefficients")
    a, b, c, d = coeffs
    num_docs_in_coll = 0  # trec_eval's -N, default 0
    out[_name("utility", suffix)] = (
        a * num_rel_ret
        + b * (num_ret - num_rel_ret)
        + c * (num_rel - num_rel_ret)
        + d * (num_docs_in_coll + num_rel_ret - num_ret - num_rel)
    )

    # 11pt_avg: mean of interpolated precision at the given recall levels
    levels, suffix = prm["11pt_avg"]
    out[_name("11pt_avg", suffix)] = sum(iprec(x) for x in levels) / len(levels)

    # binG: mean over rel docs of 1/log2(2 + #non-relevant docs above it)
    bin_g = 0.0
    rel_so_far = 0
    for i, r in enumerate(is_rel):
        if r:
            rel_so_far += 1
            bin_g += 1.0 / math.log2(2 + (i + 1 - rel_so_far))
    out["binG"] = bin_g / num_rel if rel_so_far else 0.0

    # G: gain(doc) / log2(2 + sum_cost(i) - sum_results(i)), normalised by
    # the total ideal gain; sum_cost(i) = sum_{j<=i} max(ideal_gain_j, 1)
    pairs, suffix = prm["G"]
    gains = _setup_gains(rel_levels, pairs)
    ideal = _ideal_sequence(gains)
    sum_ideal = sum(ideal)
    g_val = sum_results = sum_cost = 0.0
    for i, lab in enumerate(labels):
        gain = _gain_of(lab, gains)
        sum_results += gain
        sum_cost += max(ideal[i] if i < len(ideal) else 0.0, 1.0)
        if gain != 0:
            g_val += gain / math.log2(2 + sum_cost - sum_results)
    out[_name("G", suffix)] = g_val / sum_ideal if sum_ideal > 0 else 0.0

    # ndcg: DCG (gain / log2(rank + 1)) over the whole ranking / ideal DCG
    # over all judged docs
    pairs, suffix = prm["ndcg"]
    gains = _setup_gains(rel_levels, pairs)
    ideal = _ideal_sequence(gains)
    res_gains = [_gain_of(lab, gains) for lab in labels]
    dcg = _dcg_prefix(res_gains)
    idcg = _dcg_prefix(ideal)
    out[_name("ndcg", suffix)] = dcg[-1] / idcg[-1] if idcg[-1] > 0 else 0.0

    # ndcg_rel: ndcg averaged at each positive-gain doc (unretrieved ones
    # take the final ndcg), divided by the number of positive-gain docs
    pairs, suffix = prm["ndcg_rel"]
    gains = _setup_gains(rel_levels, pairs)
    ideal = _ideal_sequence(gains)
    res_gains = [_gain_of(lab, gains) for lab in labels]
    dcg = _dcg_prefix(res_gains)
    idcg = _dcg_prefix(ideal)
    n_pos = len(ideal)
    total = 0.0
    n_pos_ret = 0
    for i, g in enumerate(res_gains):
        if g > 0:
            total += dcg[i + 1] / idcg[min(i + 1, n_pos)]
            n_pos_ret += 1
    if n_pos:
        total += (n_pos - n_pos_ret) * dcg[-1] / idcg[n_pos]
    out[_name("ndcg_rel", suffix)] = total / n_pos if total > 0 else 0.0

    # Rndcg: mean of ndcg@b over the "R levels" b (positions where the ideal
    # gain changes, including the end of the positive ideal gains), plus
    # ndcg at num_ret when num_ret > n_pos + 1
    pairs, suffix = prm["Rndcg"]
    gains = _setup_gains(rel_levels, pairs)
    ideal = _ideal_sequence(gains)
    res_gains = [_gain_of(lab, gains) for lab in labels]
    dcg = _dcg_prefix(res_gains)
    idcg = _dcg_prefix(ideal)
    n_pos = len(ideal)
    points = []
    for b in range(1, n_pos + 1):
        nxt = ideal[b] if b < n_pos else None
        if nxt is None or nxt != ideal[b - 1]:
            points.append(dcg[min(b, num_ret)] / idcg[b])
    if num_ret > n_pos + 1 and n_pos > 0:
        points.append(dcg[num_ret] / idcg[n_pos])
    out[_name("Rndcg", suffix)] = sum(points) / len(points) if (num_rel and points) else 0.0

    # ndcg_cut: DCG@k / ideal DCG@k (default gains)
    gains = _setup_gains(rel_levels, {})
    ideal = _ideal_sequence(gains)
    res_gains = [_gain_of(lab, gains) for lab in labels]
    dcg = _dcg_prefix(res_gains)
    idcg = _dcg_prefix(ideal)
    for k in prm["ndcg_cut"][0]:
        ideal_k = idcg[min(k, len(ideal))]
        out[f"ndcg_cut_{k}"] = dcg[min(k, num_ret)] / ideal_k if ideal_k > 0 else 0.0

    # map_cut: AP restricted to the top k, still divided by num_rel
    for k in prm["map_cut"][0]:
        s = 0.0
        rel_so_far = 0
        for i, r in enumerate(is_rel[:k]):
            if r:
                rel_so_far += 1
                s += rel_so_far / (i + 1)
        out[f"map_cut_{k}"] = s / num_rel if num_rel else 0.0

    # relative_P: rel in top k / min(k, num_rel)
    for k in prm["relative_P"][0]:
        denom = min(k, num_rel)
        out[f"relative_P_{k}"] = rel_in_top(k) / denom if denom else 0.0

    for k in prm["success"][0]:
        out[f"success_{k}"] = 1.0 if rel_in_top(k) > 0 else 0.0

    set_p = num_rel_ret / num_ret if num_ret else 0.0
    set_r = num_rel_ret / num_rel if num_rel else 0.0
    out["set_P"] = set_p
    denom = min(num_ret, num_rel)
    out["set_relative_P"] = num_rel_ret / denom if denom else 0.0
    out["set_recall"] = set_r
    # one division, as m_set_map.c (set_p * set_r can round the 4th decimal the other way)
    out["set_map"] = (num_rel_ret * num_rel_ret / (num_ret * num_rel)
                      if num_ret and num_rel else 0.0)
    (beta, *_), suffix = prm["set_F"]
    # (older trec_eval 9 computed 0/0 = nan when num_rel_ret == 0)
    set_f = (beta + 1.0) * set_p * set_r / (beta * set_p + set_r) if num_rel_ret else 0.0
    out[_name("set_F", suffix)] = set_f

    out["num_nonrel_judged_ret"] = sum(is_nonrel_judged)

    # rbp: (1-p) * sum gain_i p^(i-1); gains normalised to [0,1] when needed
    pairs, suffix = prm["rbp"]
    p = pairs.get("p", 0.9)
    gains = _setup_gains(rel_levels, {k: v for k, v in pairs.items() if k != "p"})
    if gains:
        gmin = min(g for _l, g, _c in gains)
        gmax = max(g for _l, g, _c in gains)
        if gmin < 0 or gmax > 1:
            gains = [(lvl, (g - gmin) / (gmax - gmin), c) for lvl, g, c in gains]
    s = 0.0
    for i, lab in enumerate(labels):
        s += _gain_of(lab, gains) * p**i
    out[_name("rbp", suffix)] = (1.0 - p) * s

    # rbp_resid: weight of unjudged docs plus the tail beyond the ranking
    p = 0.9
    s = 0.0
    n_unj = 0
    for i, lab in enumerate(labels):
        if not _is_judged(lab):
            n_unj += 1
            s += p**i
    out["rbp_resid"] = (p**num_ret + (1.0 - p) * s) if n_unj else 0.0

    # unj: fraction of the top k that is unjudged (NONPOOL or UNJUDGED)
    for k in prm["unj"][0]:
        out[f"unj_{k}"] = sum(1 for lab in labels[:k] if not _is_judged(lab)) / k

    return out


# ------------------------------------------------------------------ all topics


def evaluate(qrels, run, *, rel_level=1, max_docs=None, complete=False, params=None,
             runid=None):
    qids = sorted(qrels) if complete else sorted(q for q in run if q in qrels)
    per_topic = {
        q: evaluate_topic(qrels[q], run.get(q, []), rel_level=rel_level,
                          max_docs=max_docs, params=params)
        for q in qids
    }
    summary: dict[str, object] = {}
    if runid is not None:
        summary["runid"] = runid
    summary["num_q"] = len(qids)
    n = len(qids)
    names = list(per_topic[qids[0]]) if qids else []

    def geo(name):
        if not n:
            return 0.0
        return math.exp(sum(math.log(max(per_topic[q][name], MIN_GEO_MEAN)) for q in qids) / n)

    for name in names:
        fam = measure_family(name)
        if fam == "relstring":
            continue
        if fam in SUMMED:
            summary[name] = sum(per_topic[q][name] for q in qids)
        else:
            total = 0.0
            for q in qids:
                total += per_topic[q][name]
            summary[name] = total / n
        if name == "map":
            summary["gm_map"] = geo("map")
        if name == "infAP":
            summary["gm_bpref"] = geo("bpref")
    return per_topic, summary


# ------------------------------------------------------------------ formatting


def format_value(name: str, value) -> str:
    fam = measure_family(name)
    if fam == "relstring":
        return f"'{value}'"
    if fam in STRING_MEASURES:
        return str(value)
    if fam in INT_MEASURES:
        return str(int(value))
    return f"{value:.4f}"


def format_output(per_topic, summary, measures=None) -> str:
    """trec_eval -q text; ``measures`` (families) mimics -m selection."""
    keep = None if measures is None else set(measures)
    lines = []

    def emit(name, qid, value):
        if keep is None or measure_family(name) in keep:
            lines.append(f"{name:<22}\t{qid}\t{format_value(name, value)}\n")

    for qid, values in per_topic.items():
        for name, value in values.items():
            emit(name, qid, value)
    for name, value in summary.items():
        emit(name, "all", value)
    return "".join(lines)


if __name__ == "__main__":  # pragma: no cover - tiny CLI for manual checks
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("qrels")
    ap.add_argument("run")
    ap.add_argument("-l", type=int, default=1)
    ap.add_argument("-M", type=int, default=None)
    ap.add_argument("-c", action="store_true")
    args = ap.parse_args()
    per, summ = evaluate(read_qrels(args.qrels), read_run(args.run), rel_level=args.l,
                         max_docs=args.M, complete=args.c, runid=read_runid(args.run))
    print(format_output(per, summ), end="")
