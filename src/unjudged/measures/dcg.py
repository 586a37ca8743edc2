"""Discounted cumulative gain measures: nDCG, trec_eval's ndcg_rel, Rndcg and Sakai's G."""

from __future__ import annotations

import numpy as np

from unjudged.data.judged import PAD_UP_TO, cut_width
from unjudged.errors import InvalidOptionError
from unjudged.measures._common import discount, divide, take_at
from unjudged.measures._spec import JUDGED_ONLY, MeasureSpec, Param, register
from unjudged.measures.precision import TREC


class GainMap(str):
    """A grade=gain map as text, '1=3,2=9' (trec_eval's ndcg parameters), also built from
    ir_measures' dict ``{1: 3, 2: 9}``; grades it does not name keep their grade as gain.

    Example:
        >>> GainMap({2: 3, 1: 1}), GainMap("1=3, 2=9")
        ('1=1,2=3', '1=3,2=9')
    """

    def __new__(cls, value: object) -> GainMap:
        items = value.items() if isinstance(value, dict) else \
            parse_gain_map(str(value)).items()
        text = ",".join(f"{int(k)}={_num(float(v))}" for k, v in sorted(items))
        return super().__new__(cls, text)


def _num(v: float) -> str:
    return str(int(v)) if v.is_integer() else repr(v)


DCG = Param("dcg", str, "log2", "'log2' (gain = grade) or 'exp-log2' (gain = 2^grade - 1)",
            choices=("log2", "exp-log2"))
GAINS = Param("gains", GainMap, None, "grade=gain map as trec_eval's ndcg takes it, e.g. "
              "'1=3,2=9', or ir_measures' dict {1:3,2:9}",
              what="a grade=gain map such as '1=3,2=9' or {1: 3, 2: 9}")


def parse_gain_map(text: str) -> dict[int, float]:
    """'1=3,2=9' to {1: 3.0, 2: 9.0}."""
    out: dict[int, float] = {}
    for part in text.split(","):
        if part.strip():
            grade, _, value = part.partition("=")
            out[int(grade)] = float(value)
    return out


def gain_values(grades: np.ndarray, dcg: str = "log2", gains: str | None = None) -> np.ndarray:
    """Gain of each grade code. Judged grades gain their own value (trec_eval, whatever -l is),
    2^g - 1 under 'exp-log2', or what a trec_eval-style map assigns; unjudged codes gain 0."""
    if gains:
        g = grades.astype(np.float64)
        for grade, value in parse_gain_map(gains).items():
            g[grades == grade] = value
    else:  # negative codes gain exactly 0 under either dcg: no mask needed below
        g = np.asarray(grades).astype(np.float64)  # a copy of its own, clipped in place
        np.maximum(g, 0.0, out=g)
    if dcg == "exp-log2":
        g = np.exp2(g) - 1.0
    elif dcg != "log2":
        raise InvalidOptionError(f"dcg must be 'log2' or 'exp-log2', not {dcg!r}")
    if gains:
        g[grades < 0] = 0.0
    return g


def ideal_gains(j, depth: int | None, dcg: str = "log2", gains: str | None = None) -> np.ndarray:
    """Gains of the ideal ranking (n, depth): judged documents by gain, best first, >= 0."""
    # gains rise with the grade, so the best `depth` grades are the best gains; a map may
    # reorder them, and then every judged grade is read and sorted by gain
    ideal = gain_values(j.pool.ideal_grades(None if gains else depth), dcg, gains)
    if gains:
        ideal = -np.sort(-ideal, axis=-1)
    ideal = np.maximum(ideal, 0.0)
    width = ideal.shape[-1]
    if depth is None:
        return ideal
    if depth <= width:
        return ideal[..., :depth]
    return np.concatenate([ideal, np.zeros(ideal.shape[:-1] + (depth - width,))], axis=-1)


def _prefix_dcg(gain: np.ndarray) -> np.ndarray:
    return np.cumsum(gain / discount(gain.shape[-1]), axis=-1)


def ndcg(j, cutoff=None, dcg="log2", gains=None):
    rows = getattr(j, "rows", None)  # a sampled batch's few distinct rankings
    if rows is not None:
        # each distinct ranking's DCG once, gathered: the same row sums to the last bit
        got = rows.per_row(("dcg", cutoff, dcg, gains),
                           lambda table: _dcg(j.with_grades(table).cut(cutoff), dcg, gains))
    else:
        got = _dcg(j.cut(cutoff), dcg, gains)
    if cutoff is not None and not gains and cutoff > PAD_UP_TO:
        # past the deepest ideal ranking every grade gains 0: a cutoff beyond it reads no
        # more (nDCG@1000000 lays out no million positions; see cut_width). Asked only then:
        # a grown pool's ideal_width reads every iteration's counts
        cutoff = cut_width(cutoff, j.pool.ideal_width)

    def ideal():
        return _ideal_dcg(j, cutoff, dcg, gains)

    # with a gain map every judged grade is read (a map may reorder them); without, the
    # ideal DCG at a cutoff reads the best `cutoff` grades alone
    idcg = j.pool.memo(("ideal dcg", cutoff, dcg, gains), ideal) if gains or cutoff is None \
        else j.pool.ideal_memo(cutoff, ("dcg", dcg), ideal, lambda g: _dcg_of_ideal(g, dcg))
    return divide(got, idcg)


def _per_row(j, kw: dict) -> bool:
    """Whether ndcg of a sampled batch with distinct rows keeps to a value per (iteration,
    topic): at a cutoff without a gain map, where the ideal DCG is a memo of the pool alone
    (a pool without a sample axis) or per row of a grown pool's laid-out best grades."""
    cutoff = kw.get("cutoff")
    if cutoff is None or kw.get("gains") or cutoff > PAD_UP_TO:
        return False
    pool = j.pool
    rows = getattr(pool, "rows", None)  # a grown pool's (its best grades, unread, stay unmade)
    if rows is not None:
        return bool(cutoff <= rows[0].shape[-1])
    return pool.sorted_grades.ndim == 2


def _dcg(grades: np.ndarray, dcg: str, gains: str | None) -> np.ndarray:
    got = gain_values(grades, dcg, gains)  # an array of its own: divided in place
    got /= discount(got.shape[-1])
    return got.sum(axis=-1)


def _ideal_dcg(j, cutoff, dcg, gains):
    ideal = ideal_gains(j, cutoff, dcg, gains)
    return (ideal / discount(ideal.shape[-1])).sum(axis=-1)


def _dcg_of_ideal(grades: np.ndarray, dcg: str) -> np.ndarray:
    """_ideal_dcg without a gain map, from the ideal grades (..., cutoff) themselves."""
    ideal = np.maximum(gain_values(grades, dcg), 0.0)
    return (ideal / discount(ideal.shape[-1])).sum(axis=-1)


def _aligned(j, dcg, gains):
    """Run and ideal gains padded to one common width."""
    ideal = ideal_gains(j, None, dcg, gains)
    width = max(j.depth, ideal.shape[-1])
    got = gain_values(j.padded(width), dcg, gains)
    return got, ideal_gains(j, width, dcg, gains)


def positive_ideal(j, dcg="log2", gains=None) -> np.ndarray:
    """How many judged documents of each topic have a positive gain (the ideal ranking's
    positive entries)."""
    return (ideal_gains(j, None, dcg, gains) > 0).sum(axis=-1)


def ndcg_rel(j, dcg="log2", gains=None):
    """nDCG averaged over the ranks of the relevant documents (trec_eval ndcg_rel): each
    retrieved positive-gain document contributes nDCG at its rank (ideal capped at the number of
    positive ideal gains), each missed one the nDCG of the whole ranking."""
    got, ideal = _aligned(j, dcg, gains)
    dcg_p, idcg_p = _prefix_dcg(got), _prefix_dcg(ideal)
    n_pos = (ideal > 0).sum(axis=-1)
    idx = np.minimum(np.arange(got.shape[-1]), np.maximum(n_pos - 1, 0)[..., None])
    idx = np.broadcast_to(idx, dcg_p.shape)
    at = divide(dcg_p, np.take_along_axis(np.broadcast_to(idcg_p, dcg_p.shape), idx, axis=-1))
    positive = got > 0
    total = np.where(positive, at, 0.0).sum(axis=-1)
    missed = n_pos - positive.sum(axis=-1)
    total = total + missed * divide(dcg_p[..., -1], take_at(idcg_p, n_pos - 1))
    return np.where(total > 0, divide(total, n_pos), 0.0)


def r_ndcg(j, dcg="log2", gains=None):
    """trec_eval's Rndcg: mean nDCG at every rank b where the ideal gain drops (and at the
    number of positive ideal gains), plus at the run's length when that is beyond."""
    got, ideal = _aligned(j, dcg, gains)
    dcg_p, idcg_p = _prefix_dcg(got), _prefix_dcg(ideal)
    width = got.shape[-1]
    n_pos = (ideal > 0).sum(axis=-1)
    ret = j.length
    b = np.arange(1, width + 1)
    nxt = np.concatenate([ideal[..., 1:], np.zeros(ideal.shape[:-1] + (1,))], axis=-1)
    point = (b <= n_pos[..., None]) & ((nxt != ideal) | (b == n_pos[..., None]))
    run_idx = np.broadcast_to(np.minimum(b, ret[..., None]) - 1, dcg_p.shape)
    dcg_at = np.where(run_idx >= 0,
                      np.take_along_axis(dcg_p, np.maximum(run_idx, 0), axis=-1), 0.0)
    vals = np.where(point, divide(dcg_at, idcg_p), 0.0)
    total, count = vals.sum(axis=-1), point.sum(axis=-1).astype(np.float64)
    extra = (ret > n_pos + 1) & (n_pos > 0)
    total = total + np.where(extra, divide(take_at(dcg_p, ret - 1), take_at(idcg_p, n_pos - 1)),
                             0.0)
    count = count + extra
    return np.where(j.pool.num_rel(j.policies.rel_level) > 0, divide(total, count), 0.0)


def g_measure(j, gains=None):
    """trec_eval's G: each document's gain discounted by log2(2 + ideal cost so far - gain so
    far), normalised by the total ideal gain."""
    got, ideal = _aligned(j, "log2", gains)
    cost = np.cumsum(np.maximum(ideal, 1.0), axis=-1)
    seen = np.cumsum(got, axis=-1)
    terms = np.where(got != 0, got / np.log2(2.0 + cost - seen), 0.0)
    return divide(terms.sum(axis=-1), ideal.sum(axis=-1))


def binary_g(j, rel=None):
    """trec_eval's binG: each relevant document discounted by log2(2 + documents above it that
    are not relevant), divided by R."""
    from unjudged.measures._common import level, relevant

    r = relevant(j, None, rel)
    hits = np.cumsum(r, axis=-1)
    above = np.arange(1, r.shape[-1] + 1) - hits
    total = np.where(r, 1.0 / np.log2(2.0 + above), 0.0).sum(axis=-1)
    return divide(total, j.pool.num_rel(level(j, rel)))


register(MeasureSpec(
    "nDCG", ndcg, "Normalised discounted cumulative gain: DCG of the top k (gain = grade, "
    "discount log2(rank+1)) divided by the DCG of the ideal ranking of all judged documents. "
    "dcg='exp-log2' uses gain 2^grade - 1; gains='1=3,2=9' maps grades to gains as trec_eval's "
    "ndcg parameters do.",
    params=(DCG, GAINS, JUDGED_ONLY), cutoff="optional", aliases=("ndcg", "ndcg_cut", "NDCG"),
    citation="Järvelin & Kekäläinen, TOIS 2002; trec_eval 10", whole=_per_row))
register(MeasureSpec(
    "nDCGRel", ndcg_rel, "nDCG averaged over the ranks of the relevant documents "
    "(trec_eval ndcg_rel).", params=(DCG, GAINS), aliases=("ndcg_rel",), citation=TREC,
    monotone=False, guaranteed=False))
register(MeasureSpec(
    "RnDCG", r_ndcg, "nDCG averaged over the ranks where the ideal gain changes "
    "(trec_eval Rndcg).", params=(DCG, GAINS), aliases=("Rndcg",), citation=TREC,
    guaranteed=False))
register(MeasureSpec(
    "G", g_measure, "trec_eval's normalised gain G.", params=(GAINS,),
    bounded=None, citation=TREC, monotone=False, guaranteed=False))
register(MeasureSpec(
    "binG", binary_g, "trec_eval's binary gain binG.",
    params=(Param("rel", int, None, "smallest relevant grade"),), citation=TREC))
