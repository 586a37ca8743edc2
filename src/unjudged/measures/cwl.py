"""The C/W/L measures ir_measures computes with cwl_eval: BPM, SDCG, NERR8-11, INST and INSQ.

The C/W/L framework (Moffat, Bailey, Scholer & Thomas, 2013-2017; Azzopardi, Thomas & Moffat,
SIGIR 2019, "cwl_eval: An evaluation tool for information retrieval") describes a measure by
its continuation vector C: C_i is the chance that a user who has just read rank i goes on to
rank i + 1. The weight of rank i is W_i = prod_{j<i} C_j / sum_k prod_{j<k} C_j and the
measure is the expected utility per item, sum_i W_i g_i.

Conventions, all cwl_eval 1.0.12's as ir_measures 0.4.3 invokes it:

- gains are grades scaled to [0, 1]: g = (clip(grade, min_rel, max_rel) - min_rel) /
  (max_rel - min_rel); documents outside the qrels gain 0, negative qrels grades count as 0;
  max_rel, which ir_measures requires, defaults here to the topic's highest judged grade;
- every document costs 1 and the user model runs over 1000 ranks (cwl_eval's horizon): rankings
  are cut or padded (gain 0) to 1000, so the normaliser of W sums over 1000 ranks;
- a cutoff k (BPM, SDCG, NERR8, NERR9; 1000 without one) stops the user after rank k.
"""

from __future__ import annotations

import numpy as np

from unjudged.data.judged import UNJUDGED
from unjudged.measures._common import divide, ranks
from unjudged.measures._spec import MeasureSpec, Param, register

HORIZON = 1000  #: cwl_eval's max_n: the user model's ranks
CWL = "cwl_eval 1.0.12 (Azzopardi, Thomas & Moffat, SIGIR 2019) as ir_measures 0.4.3 runs it"
MIN_REL = Param("min_rel", int, 0, "grade of gain 0 (lower grades count as it)")
MAX_REL = Param("max_rel", int, None, "grade of gain 1 (higher grades count as it; default: "
                "the topic's highest judged grade)")
T_GOAL = Param("T", float, 1.0, "total gain the user wants (gains in [0, 1])", low=0,
               open_low=True)


def scaled_gains(j, min_rel: int = 0, max_rel: int | None = None) -> np.ndarray:
    """Gains in [0, 1] over the 1000 ranks of the user model, shape (..., n, 1000).

    Example:
        >>> from unjudged.io import read_qrels, read_run
        >>> from unjudged.data.judged import judge
        >>> j = judge(read_run({"t": {"a": 3.0, "x": 2.0, "b": 1.0}}),
        ...           read_qrels({"t": {"a": 2, "b": 1}}))
        >>> scaled_gains(j)[0, :4].tolist()
        [1.0, 0.0, 0.5, 0.0]
    """
    g = j.padded(HORIZON)  # the user model reads past the ranking's end
    lo = float(min_rel)
    top = (j.pool.top_grade if max_rel is None
           else np.full(len(j.topics), max_rel)).astype(np.float64)[..., None]
    grade = np.where(g == UNJUDGED, 0, g).astype(np.float64)
    scaled = np.minimum(np.maximum(grade, lo), top) - lo
    gain = divide(scaled, np.broadcast_to(top - lo, scaled.shape))
    return np.where(grade >= 0, np.clip(gain, 0.0, 1.0), 0.0)


def expected_utility(cont: np.ndarray, gain: np.ndarray) -> np.ndarray:
    """sum_i W_i g_i with W_i proportional to prod_{j<i} C_j (cwl_eval's CWLMetric)."""
    # C-ordered whatever the layout of `cont` (ones_like of a broadcast array is not): a row's
    # sums then do not depend on how many topics or samples share the batch
    reach = np.ones(cont.shape)
    reach[..., 1:] = np.cumprod(cont[..., :-1], axis=-1)
    return (reach * gain).sum(axis=-1) / reach.sum(axis=-1)


def _stop_after(cont: np.ndarray, cutoff: int | None) -> np.ndarray:
    """C_i = 0 from rank k on: the user reads k documents at most."""
    k = HORIZON if cutoff is None else int(cutoff)
    return np.where(ranks(cont.shape[-1]) < k, cont, 0.0)


def _insq_factor(T: float) -> np.ndarray:
    r = ranks(HORIZON)
    return ((r + 2.0 * T - 1.0) / (r + 2.0 * T)) ** 2


def bpm(j, cutoff=None, T=1.0, min_rel=0, max_rel=None):
    """Static Bejeweled Player Model: go on while the gain so far is below T and fewer than K
    (the cutoff) documents have been read."""
    g = scaled_gains(j, min_rel, max_rel)
    cont = (np.cumsum(g, axis=-1) < T).astype(np.float64)
    return expected_utility(_stop_after(cont, cutoff), g)


def sdcg(j, cutoff=None, dcg="log2", min_rel=0, max_rel=None):
    """Scaled DCG@k: C_i = log2(i+1) / log2(i+2) up to k, so W_i is 1/log2(i+1) over the sum of
    that discount over the top k: DCG@k over the DCG of k fully relevant documents."""
    g = scaled_gains(j, min_rel, max_rel)
    r = ranks(HORIZON)
    cont = np.broadcast_to(np.log2(r + 1.0) / np.log2(r + 2.0), g.shape)
    return expected_utility(_stop_after(cont, cutoff), g)


def nerr8(j, cutoff=None, min_rel=0, max_rel=None):
    """NERR, equation 8: C_i = 1 - g_i, truncated at k."""
    g = scaled_gains(j, min_rel, max_rel)
    return expected_utility(_stop_after(1.0 - g, cutoff), g)


def nerr9(j, cutoff=None, min_rel=0, max_rel=None):
    """NERR, equation 9: C_i = i / (i + 1) (1 - g_i), truncated at k."""
    g = scaled_gains(j, min_rel, max_rel)
    r = ranks(HORIZON)
    return expected_utility(_stop_after(r / (r + 1.0) * (1.0 - g), cutoff), g)


def nerr10(j, p=0.9, min_rel=0, max_rel=None):
    """NERR, equation 10: C_i = p (1 - g_i), RBP's patience with gain-based stopping."""
    g = scaled_gains(j, min_rel, max_rel)
    return expected_utility(float(p) * (1.0 - g), g)


def nerr11(j, T=1.0, min_rel=0, max_rel=None):
    """NERR, equation 11: C_i = ((i + 2T - 1) / (i + 2T))^2 (1 - g_i), INSQ's patience with
    gain-based stopping."""
    g = scaled_gains(j, min_rel, max_rel)
    return expected_utility(_insq_factor(float(T)) * (1.0 - g), g)


def insq(j, T=1.0, min_rel=0, max_rel=None):
    """INSQ: C_i = ((i + 2T - 1) / (i + 2T))^2."""
    g = scaled_gains(j, min_rel, max_rel)
    return expected_utility(np.broadcast_to(_insq_factor(float(T)), g.shape), g)


def inst(j, T=1.0, min_rel=0, max_rel=None):
    """INST: C_i = ((i + T + T_i - 1) / (i + T + T_i))^2 with T_i = T - (gain up to rank i)."""
    g = scaled_gains(j, min_rel, max_rel)
    t_i = float(T) - np.cumsum(g, axis=-1)
    base = ranks(HORIZON) + float(T) + t_i
    return expected_utility(((base - 1.0) / base) ** 2, g)


_NERR = "Azzopardi, Mackenzie & Moffat, ERR is not C/W/L, ICTIR 2021"
_SCALE = (MIN_REL, MAX_REL)
# SDCG and INSQ weigh ranks independently of the gains, so a higher grade never lowers them
_LINEAR = ("SDCG", "INSQ")
for _name, _kernel, _cut, _params, _text, _cite in (
    ("BPM", bpm, "optional", (T_GOAL, *_SCALE),
     "Bejeweled Player Model (static): the user reads on while the scaled gain so far is below "
     "T and fewer than k documents have been read (k = 1000 without a cutoff); C/W/L expected "
     "utility per document", "Zhang et al., SIGIR 2017; " + CWL),
    ("SDCG", sdcg, "optional", (Param("dcg", str, "log2", "DCG formulation", choices=("log2",)),
                                *_SCALE),
     "Scaled DCG@k: DCG of the top k with gains scaled to [0, 1] over the DCG of k fully "
     "relevant documents (nDCG assuming at least k such documents exist)",
     "Järvelin & Kekäläinen, TOIS 2002; " + CWL),
    ("NERR8", nerr8, "optional", _SCALE,
     "Not (but nearly) ERR, equation 8: C_i = 1 - g_i, truncated at k (1000 without a cutoff)",
     _NERR + ", eq. 8; " + CWL),
    ("NERR9", nerr9, "optional", _SCALE,
     "Not (but nearly) ERR, equation 9: C_i = i/(i+1) (1 - g_i), truncated at k",
     _NERR + ", eq. 9; " + CWL),
    ("NERR10", nerr10, "none", (Param("p", float, 0.9, "persistence", low=0, high=1), *_SCALE),
     "Not (but nearly) ERR, equation 10: C_i = p (1 - g_i)", _NERR + ", eq. 10; " + CWL),
    ("NERR11", nerr11, "none", (T_GOAL, *_SCALE),
     "Not (but nearly) ERR, equation 11: C_i = ((i+2T-1)/(i+2T))^2 (1 - g_i)",
     _NERR + ", eq. 11; " + CWL),
    ("INST", inst, "none", (T_GOAL, *_SCALE),
     "INST: C_i = ((i+T+T_i-1)/(i+T+T_i))^2, T_i = T minus the scaled gain up to rank i; "
     "C/W/L expected utility per document", "Moffat et al., ADCS 2015; Bailey, Moffat, "
     "Scholer & Thomas, SIGIR 2015; " + CWL),
    ("INSQ", insq, "none", (T_GOAL, *_SCALE),
     "INSQ: C_i = ((i+2T-1)/(i+2T))^2; C/W/L expected utility per document",
     "Moffat, Scholer & Thomas, ADCS 2012; " + CWL),
):
    register(MeasureSpec(_name, _kernel, _text + ". Unjudged documents gain 0.", params=_params,
                         cutoff=_cut, citation=_cite, monotone=_name in _LINEAR,
                         guaranteed=False))
