"""trec_eval's preference measures (prefs_simp, prefs_pair, prefs_avgjg, ... of `-m all_prefs`).

Documents judged for a topic are numbered by "docid rank": the retrieved ones 0..njr-1 in
ranking order, the others after them. A judgment group (JG) holds preferences a > b: in one
sub-group every higher level is preferred to every lower one (trec_eval's "equivalence
classes"); a JG of several sub-groups joins their preferences and adds the transitive ones (its
"preference array"). A preference a > b is

    fulfilled, retrieved    both retrieved, a above b
    not fulfilled, retrieved  both retrieved, b above a
    fulfilled, implied      a retrieved, b not
    not fulfilled, implied  b retrieved, a not
    not occurring           neither retrieved

and the measures are ratios of those counts (`topic_values`). Level 0 means non-relevant,
above 0 relevant; the Rnonrel measures keep only as many non-relevant documents as there are
relevant ones. The arithmetic, quirks included, is trec_eval 10's (form_prefs_counts.c and
m_prefs_*.c), checked against its test suite (tests/test_trec_eval_golden.py).

`unjudged eval -m prefs_simp ...` reads the standard qrels the way `trec_eval -R qrels_prefs`
does, with one judgment group per topic (the iter column is not kept): see the kernel below.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from unjudged.data.prefs import closure
from unjudged.measures._spec import MeasureSpec, register

#: the measures, in trec_eval's order; the first three are counts summed over topics
NAMES = ("prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
         "prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel",
         "prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret",
         "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp")


@dataclass
class Group:
    """One judgment group: entries (a line each, or a document each for a preference array)
    with their docid ranks; `prefer[e, f]` says entry e is preferred to entry f.

    `array` marks a JG of several sub-groups; there `status` is the level trec_eval keeps per
    document (the last one written), -1 for documents outside the JG."""

    rank: np.ndarray
    level: np.ndarray
    prefer: np.ndarray
    array: bool = False
    status: np.ndarray | None = None


@dataclass
class _Counts:
    ful_ret: int
    ful_imp: int
    poss_ret: int  # fulfilled included, as trec_eval's num_prefs_possible_*
    poss_imp: int
    notoccur: int
    rel: int
    rel_ret: int
    nonrel: int
    nonrel_ret: int


def ec_group(rank: np.ndarray, level: np.ndarray) -> Group:
    """A JG of one sub-group: every entry is preferred to the entries of lower level.

    Example:
        >>> ec_group(np.array([0, 1]), np.array([0.0, 1.0])).prefer.astype(int).tolist()
        [[0, 0], [1, 0]]
    """
    return Group(rank, level, level[:, None] > level[None, :])


def build_groups(group: list[str], subgroup: list[str], level: np.ndarray,
                 rank: np.ndarray) -> list[Group]:
    """One topic's judgment groups from its lines (JG and JSG ids, levels, docid ranks), in
    trec_eval's order of JG ids (byte order).

    Example: two sub-groups, a > b and b > c, imply a > c.
        >>> [g] = build_groups(["u"] * 4, ["1", "1", "2", "2"], np.array([2.0, 1, 2, 1]),
        ...                    np.array([0, 1, 1, 2]))
        >>> g.array, int(g.prefer.sum()), bool(g.prefer[0, 2])
        (True, 3, True)
    """
    by: dict[str, dict[str, list[int]]] = {}
    for i, (g, s) in enumerate(zip(group, subgroup, strict=True)):
        by.setdefault(g, {}).setdefault(s, []).append(i)
    out = []
    for g in sorted(by, key=lambda x: x.encode()):
        subs = by[g]
        if len(subs) == 1:
            idx = np.array(next(iter(subs.values())))
            out.append(ec_group(rank[idx], level[idx]))
            continue
        docs = np.unique(rank[np.concatenate([np.array(v) for v in subs.values()])])
        prefer = np.zeros((docs.size, docs.size), dtype=bool)
        status = np.full(docs.size, -1.0)
        written = []
        for s in sorted(subs, key=lambda x: x.encode()):
            idx = np.array(subs[s])
            p = np.searchsorted(docs, rank[idx])
            lev = level[idx]
            prefer[p[:, None], p[None, :]] |= lev[:, None] > lev[None, :]
            # trec_eval keeps the last level written, lines in (JSG, level desc, rank) order
            written += sorted(zip(p.tolist(), lev.tolist(), rank[idx].tolist(), strict=True),
                              key=lambda t: (-t[1], t[2]))
        for p_doc, lev_doc, _r in written:
            status[p_doc] = lev_doc
        out.append(Group(docs, status, closure(prefer), array=True, status=status))
    return out


def _categories(g: Group, njr: int, keep: np.ndarray | None = None):
    p = g.prefer if keep is None else g.prefer & keep[:, None] & keep[None, :]
    ri, rj = g.rank[:, None], g.rank[None, :]
    fwd = ri < rj
    ret_i, ret_j = ri < njr, rj < njr
    ful_ret = int((p & fwd & ret_j).sum())
    ful_imp = int((p & fwd & ~ret_j & ret_i).sum())
    notoccur = int((p & ~ret_i & ~ret_j).sum())
    bad_ret = int((p & ~fwd & ret_i).sum())
    bad_imp = int((p & ~fwd & ~ret_i & ret_j).sum())
    return ful_ret, ful_imp, ful_ret + bad_ret, ful_imp + bad_imp, notoccur


def _counts(g: Group, njr: int) -> _Counts:
    if g.array:
        assert g.status is not None
        rel, nonrel = g.status > 0, g.status == 0
    else:
        rel, nonrel = g.level > 0, g.level <= 0
    ret = g.rank < njr
    ful_ret, ful_imp, poss_ret, poss_imp, notoccur = _categories(g, njr)
    return _Counts(ful_ret, ful_imp, poss_ret, poss_imp, notoccur, int(rel.sum()),
                   int((rel & ret).sum()), int(nonrel.sum()), int((nonrel & ret).sum()))


def _ratio(ful: float, poss: float) -> float:
    # C's double division: 0/0 is NaN, which then fails `sum > 0` and scores 0
    with np.errstate(invalid="ignore", divide="ignore"):
        return float(np.float64(ful) / np.float64(poss))


def _recalc(g: Group, c: _Counts, njr: int, ret_only: bool) -> tuple[int, int]:
    """(fulfilled, possible) of an Rnonrel measure when non-relevant documents outnumber
    relevant ones: only the first R non-relevant ones (docid rank order) count."""
    if not g.array:
        # the last equivalence class (lowest level) is cut to its first R entries; as in
        # trec_eval its own entries are compared with those R too
        last = g.level == g.level.min()
        r_keep = c.rel_ret if ret_only else c.rel
        new = np.sort(g.rank[last])[:r_keep]
        ret = g.rank < njr
        e_ok = ret if ret_only else np.ones_like(ret)
        pairs = g.prefer & ~last[None, :] & e_ok[:, None] & e_ok[None, :]
        ri, rj = g.rank[:, None], g.rank[None, :]
        if ret_only:
            new = new[new < njr]
            good1 = ri < rj
            good2 = g.rank[e_ok][:, None] < new[None, :]
        else:
            good1 = (ri < rj) & (ri < njr)
            good2 = (g.rank[:, None] < new[None, :]) & (g.rank[:, None] < njr)
        ful = int((pairs & good1).sum()) + int(good2.sum())
        total = int(pairs.sum()) + good2.size
        return ful, total
    assert g.status is not None
    # a preference array: drop the non-relevant documents after the (R+1)th one
    order = np.argsort(g.rank, kind="stable")
    zero = (g.status == 0)[order]
    scope = g.rank[order] < njr if ret_only else np.ones(order.size, bool)
    seen = np.cumsum(zero & scope)
    hit = np.flatnonzero(zero & scope & (seen == c.rel + 1))
    first = g.rank[order][hit[0]] if hit.size else np.iinfo(np.int64).max
    keep = ~((g.rank >= first) & (g.status == 0))
    ful_ret, ful_imp, poss_ret, poss_imp, notoccur = _categories(g, njr, keep)
    if ret_only:
        return ful_ret, poss_ret
    return ful_ret + ful_imp, poss_ret + poss_imp + notoccur


def _rnonrel(g: Group, c: _Counts, njr: int, ret_only: bool) -> float:
    big_r, big_n = (c.rel_ret, c.nonrel_ret) if ret_only else (c.rel, c.nonrel)
    if big_r >= big_n:
        if ret_only:
            ful, poss = c.ful_ret, c.poss_ret
        else:
            ful, poss = c.ful_ret + c.ful_imp, c.poss_ret + c.poss_imp + c.notoccur
        return _ratio(ful + c.rel_ret * (big_r - big_n), poss + c.rel * (big_r - big_n))
    return _ratio(*_recalc(g, c, njr, ret_only))


def _pairs(groups: list[Group], n: int, njr: int) -> tuple[float, float, float]:
    """prefs_pair, prefs_pair_ret, prefs_pair_imp: each document pair scores the share of
    the JGs' preferences about it that the ranking fulfils."""
    counts = np.zeros(n * n, dtype=np.int64)
    for g in groups:
        e, f = np.nonzero(g.prefer)
        counts += np.bincount(g.rank[e] * n + g.rank[f], minlength=n * n)
    ca = counts.reshape(n, n)
    both = ca + ca.T
    i, j = np.triu_indices(n, 1)
    has = both[i, j] > 0
    share = np.where(has, ca[i, j] / np.where(has, both[i, j], 1), 0.0)
    rr = has & (j < njr)
    ru = has & (i < njr) & (j >= njr)
    s_rr, s_ru = float(share[rr].sum()), float(share[ru].sum())
    n_all, n_rr, n_ru = int(has.sum()), int(rr.sum()), int(ru.sum())
    return ((s_rr + s_ru) / n_all if n_all else 0.0, s_rr / n_rr if n_rr else 0.0,
            (s_rr + s_ru) / (n_rr + n_ru) if n_rr + n_ru else 0.0)


def _avg(ratios: list[float], num: int) -> float:
    s = float(np.sum(ratios)) if ratios else 0.0
    return s / num if s > 0.0 else 0.0  # NaN fails the test, as in trec_eval


def topic_values(groups: list[Group], n: int, njr: int) -> dict[str, float]:
    """Every preference measure of one topic: `n` judged documents, `njr` of them retrieved.

    Example: one JG prefers a (level 1) to b (0); the run retrieves b only.
        >>> v = topic_values([ec_group(np.array([1, 0]), np.array([1.0, 0.0]))], 2, 1)
        >>> v["prefs_num_prefs_poss"], v["prefs_simp"], v["prefs_simp_imp"]
        (1.0, 0.0, 0.0)
    """
    cs = [_counts(g, njr) for g in groups]
    ful_ret = sum(c.ful_ret for c in cs)
    ful_imp = sum(c.ful_imp for c in cs)
    poss_ret = sum(c.poss_ret for c in cs)
    poss_imp = sum(c.poss_imp for c in cs)
    poss = poss_ret + poss_imp + sum(c.notoccur for c in cs)
    simp_ret = ful_ret / poss_ret if poss_ret else 0.0
    simp_imp = (ful_ret + ful_imp) / (poss_ret + poss_imp) if poss_ret + poss_imp else 0.0
    simp = (ful_ret + ful_imp) / poss if poss else 0.0
    if len(groups) == 1 and np.unique(groups[0].rank).size == groups[0].rank.size:
        # every pair holds one preference at most: the pair measures are the simple ones
        # (and the n x n pair counts are not needed)
        pair, pair_ret, pair_imp = simp, simp_ret, simp_imp
    else:
        pair, pair_ret, pair_imp = _pairs(groups, n, njr)
    num = len(groups)
    avg = [(c.ful_ret + c.ful_imp) / p for c in cs
           if (p := c.poss_ret + c.poss_imp + c.notoccur)]
    avg_ret = [c.ful_ret / c.poss_ret for c in cs if c.poss_ret]
    avg_imp = [(c.ful_ret + c.ful_imp) / p for c in cs if (p := c.poss_ret + c.poss_imp)]
    return {
        "prefs_num_prefs_poss": float(poss),
        "prefs_num_prefs_ful": float(ful_ret + ful_imp),
        "prefs_num_prefs_ful_ret": float(ful_ret),
        "prefs_simp": simp,
        "prefs_pair": pair,
        "prefs_avgjg": _avg(avg, num),
        "prefs_avgjg_Rnonrel": _avg([_rnonrel(g, c, njr, False)
                                     for g, c in zip(groups, cs, strict=True)], num),
        "prefs_simp_ret": simp_ret,
        "prefs_pair_ret": pair_ret,
        "prefs_avgjg_ret": _avg(avg_ret, num),
        "prefs_avgjg_Rnonrel_ret": _avg([_rnonrel(g, c, njr, True)
                                         for g, c in zip(groups, cs, strict=True)], num),
        "prefs_simp_imp": simp_imp,
        "prefs_pair_imp": pair_imp,
        "prefs_avgjg_imp": _avg(avg_imp, num),
    }


def _from_judged(j, name: str) -> np.ndarray:
    """A standard qrels read as `trec_eval -R qrels_prefs` reads it, one JG per topic: the
    ranked documents with a grade >= 0 in ranking order, then the pool's other judged ones."""
    g = j.cut(None)
    pool = j.pool.sorted_grades
    out = np.zeros(g.shape[:-1])
    for idx in np.ndindex(*g.shape[:-1]):
        t = idx[-1]
        row = g[idx][: int(np.broadcast_to(j.length, g.shape[:-1])[idx])]
        ret = row[row >= 0].astype(np.float64)
        levels, total = np.unique(pool[t][pool[t] >= 0], return_counts=True)
        seen = np.array([(ret == v).sum() for v in levels], dtype=np.int64)
        rest = np.repeat(levels, np.maximum(total - seen, 0)).astype(np.float64)
        level = np.concatenate([ret, rest])
        group = ec_group(np.arange(level.size), level)
        out[idx] = topic_values([group] if level.size else [], level.size, ret.size)[name]
    return out


class _Kernel:
    """The kernel of one prefs measure; a class rather than a closure, so that measures
    travel to worker processes (pickle finds it by name)."""

    def __init__(self, name: str) -> None:
        self.__name__ = name

    def __call__(self, j, cutoff=None):
        return _from_judged(j, self.__name__)


_WHAT = {
    "prefs_num_prefs_poss": "Number of preferences a > b (fulfilled or not, retrieved or not).",
    "prefs_num_prefs_ful": "Number of preferences fulfilled, implied ones included (a "
    "retrieved, b not).",
    "prefs_num_prefs_ful_ret": "Number of preferences fulfilled with both documents retrieved.",
    "prefs_simp": "Preferences fulfilled / preferences possible; implied ones count, a pair "
    "neither of whose documents is retrieved counts as a failure.",
    "prefs_pair": "Mean over document pairs of the share of the pair's preferences fulfilled "
    "(prefs_simp when no pair is judged by two judgment groups).",
    "prefs_avgjg": "prefs_simp within each judgment group, averaged over the groups.",
    "prefs_avgjg_Rnonrel": "prefs_avgjg with as many non-relevant documents (level <= 0) "
    "as relevant ones in each group: with N < R, R(R-N) preferences are added, fulfilled for "
    "the retrieved relevant documents; with N > R only the first R non-relevant documents "
    "(ranking order) are kept, and, as trec_eval 10 counts, the non-relevant class is also "
    "compared with those R (akin to bpref).",
    "prefs_simp_ret": "prefs_simp over preferences between two retrieved documents only.",
    "prefs_pair_ret": "prefs_pair over pairs of retrieved documents only.",
    "prefs_avgjg_ret": "prefs_avgjg over preferences between retrieved documents only.",
    "prefs_avgjg_Rnonrel_ret": "prefs_avgjg_Rnonrel with R and N counted among the retrieved "
    "documents.",
    "prefs_simp_imp": "prefs_simp ignoring pairs with neither document retrieved.",
    "prefs_pair_imp": "prefs_pair ignoring pairs with neither document retrieved.",
    "prefs_avgjg_imp": "prefs_avgjg ignoring pairs with neither document retrieved.",
}

_INPUT = (" Needs preference judgments: `unjudged trec_eval -R prefs|qrels_prefs`; with a "
          "standard qrels (`eval`) each topic is one judgment group whose higher grades are "
          "preferred to lower ones (trec_eval -R qrels_prefs with one iter value), grades < 0 "
          "left out, and ties ranked by --ties (trec_eval's prefs code breaks them by docno "
          "ascending: --ties docno).")


def _canonical(name: str) -> str:
    parts = name.split("_")[1:]
    return "Prefs" + "".join({"avgjg": "AvgJG", "num": "Num", "prefs": "Prefs",
                              "ful": "Ful", "poss": "Poss", "Rnonrel": "RNonrel"}
                             .get(p, p.capitalize()) for p in parts)


for _name in NAMES:
    _count = _name.startswith("prefs_num")
    register(MeasureSpec(
        _canonical(_name), _Kernel(_name), _WHAT[_name] + _INPUT, aliases=(_name,),
        aggregate="sum" if _count else "mean", integer=_count,
        bounded=None if _count else (0.0, 1.0), estimable=False, monotone=False,
        guaranteed=False, citation="trec_eval 10 (Buckley, 2008), m_" + _name + ".c"))
