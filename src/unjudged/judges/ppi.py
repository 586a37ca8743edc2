"""Prediction-powered estimates of measures linear in per-document gains (Angelopoulos et al.
2023, PPI; Angelopoulos, Duchi & Zrnic 2023, PPI++), with Horvitz-Thompson weights for an
audit drawn by Poisson sampling from the judge-labelled documents U.

For a (run, topic) and a measure m = sum_d c_d g(y_d) (c_d the rank weight, g the gain):

    m_hat(lam) = sum_{d human} c_d g(y_d) + lam * sum_{d in U} c_d f_d
                 + sum_{d audited} c_d (g(y_d) - lam f_d) / pi_d

with f_d the judge's prediction of the gain. It is unbiased for every lam and every f (a
document is audited with probability pi_d). lam = 0 is the human-only Horvitz-Thompson
estimate, lam = 1 classic PPI.

Its variance under Poisson sampling is sum_{d in U} (1 - pi_d) / pi_d E[z_d^2] with
z_d = c_d (g(y_d) - lam f_d). The audit alone estimates it by its own documents, which is 0 in
a cell (the top 10 of a run for a topic) where none was drawn: with audits of a few percent that
is most cells. So the unknown human grade of every document of U is given the distribution of
the human grades the audit found for documents with the same judge label (its `bin`): the
Hajek estimate P(y | bin), shrunk toward the audit's overall grade distribution by one audited
document's weight. The same P calibrates the prediction: f_d = E[g(y) | bin_d] (the judge's
label mapped to the human gain it stands for), so that lam is near 1 for any useful judge.
PPI++ takes the lam in [0, 1] minimising the run's summed variance.

Example (a document the judge calls relevant and an audit saying it is not):
    >>> model = grade_model(np.array([0]), np.array([True]), np.array([0]), np.array([0.5]),
    ...                     1, 2)
    >>> model.round(3).tolist()
    [[1.0, 0.0]]
"""

from __future__ import annotations

import numpy as np

MAX_BINS = 12  #: a judge with more distinct expected grades is binned by quantiles
PER_BIN = 25  #: audited documents per quantile bin of such a judge (at least 10 bins)


def bins(expected: np.ndarray, audited: int = 0) -> tuple[np.ndarray, int]:
    """Each document's bin: its expected judge grade when there are few distinct ones (a judge
    of grades), else its quantile among the documents, in max(10, audited // PER_BIN) bins
    (`audited`: the audit's size).

    Deciles were too coarse for a judge of probabilities where relevant documents are few:
    the top tenth mixes the relevant documents with three times as many others, and the
    counts per grade, estimated from an audit that mostly misses the relevant documents of a
    topic, are skewed, which biases the ideal DCG (docs/judges.md, "Why Cranfield's nDCG@10
    run means miss"). Bins of about PER_BIN audited documents each (estimate._model shrinks
    each toward its decile's distribution) resolve the top of the judge's scale; with fewer
    per bin the in-sample fit biases the estimates down (4 per bin: P@10 run means covering
    0.75-0.78 on a synthetic population where deciles cover 0.87).

    Example: 1,000 probabilities, an audit of 500: 20 bins of 50 documents (and deciles for
    an audit of 100):
        >>> b, n = bins(np.linspace(0.0, 1.0, 1000), 500)
        >>> n, int(np.bincount(b).max()), bins(np.linspace(0.0, 1.0, 1000), 100)[1]
        (20, 50, 10)
    """
    values = np.unique(expected)
    if values.size <= MAX_BINS:
        return np.searchsorted(values, expected), max(values.size, 1)
    k = max(10, audited // PER_BIN)
    edges = np.unique(np.quantile(expected, np.linspace(0, 1, k + 1)[1:-1]))
    return np.searchsorted(edges, expected, side="right"), edges.size + 1


def grade_model(bin_: np.ndarray, audited: np.ndarray, grade: np.ndarray, pi: np.ndarray,
                nbins: int, levels: int, prior: np.ndarray | None = None) -> np.ndarray:
    """(nbins, levels): P(human grade | bin), Hajek-weighted over the audited documents and
    shrunk by the weight of one audited document toward `prior` ((nbins, levels): each bin's;
    by default the audit's overall distribution)."""
    w = np.divide(1.0, pi, out=np.zeros_like(pi), where=audited)
    counts = np.zeros((nbins, levels))
    np.add.at(counts, (bin_[audited], grade[audited]), w[audited])
    if prior is None:
        overall = counts.sum(axis=0)
        prior = overall / overall.sum()
    alpha = float(np.median(w[audited]))
    return (counts + alpha * prior) / (counts.sum(axis=1) + alpha)[:, None]


def tune(b: np.ndarray, cc: np.ndarray, group: np.ndarray, groups: int) -> np.ndarray:
    """PPI++'s lam per group (a run's topics): the minimiser of sum a - 2 lam b + lam^2 cc,
    clipped to [0, 1]; 1 where the variance does not depend on lam (cc = 0)."""
    sb = np.bincount(group, weights=b, minlength=groups)
    sc = np.bincount(group, weights=cc, minlength=groups)
    return np.clip(np.divide(sb, sc, out=np.ones(groups), where=sc > 0), 0.0, 1.0)


def ideal_dcg(counts: np.ndarray, gains: np.ndarray, depth: int) -> np.ndarray:
    """The ideal DCG@depth from (possibly fractional) counts of documents per grade.

    `counts` (..., G) per grade in decreasing gain order, `gains` (G,). A fractional count
    fills its last position in proportion (linear between whole counts), so the estimate moves
    smoothly with the estimated counts; whole counts give trec_eval's ideal DCG exactly.

    Example:
        >>> float(ideal_dcg(np.array([1.0, 1.0]), np.array([2.0, 1.0]), 10).round(4))
        2.6309
        >>> float(ideal_dcg(np.array([12.0, 5.0]), np.array([3.0, 2.0]), 10).round(4))  # 3 x 10
        13.6307
    """
    grid = np.concatenate([[0.0], np.cumsum(1.0 / np.log2(np.arange(2, depth + 2)))])
    counts = np.maximum(counts, 0.0)
    total = np.cumsum(counts, axis=-1)
    upper = np.minimum(total, depth)
    lower = np.minimum(total - counts, depth)  # the grades above fill the positions before
    at = np.arange(depth + 1)
    return ((np.interp(upper, at, grid) - np.interp(lower, at, grid)) * gains).sum(axis=-1)


def ideal_slopes(counts: np.ndarray, gains: np.ndarray, depth: int) -> np.ndarray:
    """d ideal_dcg / d count per grade (..., G): right-hand slopes of the piecewise-linear
    ideal (a count sitting on a whole number gains the next position's discount)."""
    base = ideal_dcg(counts, gains, depth)
    out = np.empty(counts.shape)
    eps = 1e-6
    for g in range(counts.shape[-1]):  # G grades: a handful
        bumped = counts.copy()
        bumped[..., g] = np.maximum(bumped[..., g], 0.0) + eps
        out[..., g] = (ideal_dcg(bumped, gains, depth) - base) / eps
    return out


#: Gauss-Hermite nodes and weights (probabilists': E[h(Z)], Z ~ N(0, 1)) for expected slopes
_NODES, _WEIGHTS = np.polynomial.hermite_e.hermegauss(9)
_WEIGHTS = _WEIGHTS / _WEIGHTS.sum()


def expected_slopes(counts: np.ndarray, var: np.ndarray, gains: np.ndarray, depth: int
                    ) -> np.ndarray:
    """(..., G): E[d ideal_dcg / d count_g] with count_g ~ N(its estimate, var_g) (the others
    at their estimates), by Stein's identity E[h'(X)] = E[h(X) (X - mu)] / var on 9
    Gauss-Hermite nodes; the right-hand slopes where var is 0.

    The ideal saturates (the cutoff fills up): the slope at the estimate alone, used for a
    count whose standard error spans several positions, overstates how far the ideal moves
    (a topic with about 10 documents of the top grade and a standard error of 10 moves its
    ideal by far less than 10 x the next position's gain). Averaging the slope over the
    count's own uncertainty is the statistical linearisation of the ideal.

    Example: 10 documents of one grade fill a cutoff of 10; the slope at 10 is 0, the
    expected slope over a standard error of 3 is not:
        >>> c, g = np.array([10.0]), np.array([1.0])
        >>> float(ideal_slopes(c, g, 10)[0]), round(float(expected_slopes(c, np.array([9.0]),
        ...                                                                 g, 10)[0]), 3)
        (0.0, 0.162)
    """
    out = ideal_slopes(counts, gains, depth)
    sd = np.sqrt(np.maximum(var, 0.0))
    for g in range(counts.shape[-1]):  # G grades: a handful
        s = sd[..., g]
        acc = np.zeros(s.shape)
        for x, w in zip(_NODES, _WEIGHTS, strict=True):  # 9 nodes
            moved = counts.copy()
            moved[..., g] = counts[..., g] + s * x
            acc += w * x * ideal_dcg(moved, gains, depth)
        out[..., g] = np.where(s > 0, np.divide(acc, s, out=np.zeros(s.shape), where=s > 0),
                               out[..., g])
    return out


#: the ideal's relative variance where the ratio's convexity correction has faded out
CONVEX_LIMIT = 0.3


def convexity_factor(ideal: np.ndarray, slopes: np.ndarray, var: np.ndarray) -> np.ndarray:
    """(...,) what DCG / I is multiplied by to take out 1 / I's convexity: 1 - v (1 - v /
    CONVEX_LIMIT) for v = var(I) / I^2 below CONVEX_LIMIT, else 1; var(I) = sum_g slope_g^2
    var_g by the delta method (`slopes` the ideal's expected slopes in the counts per grade,
    `var` the counts' variances).

    1 / x is convex, so a ratio over a noisy ideal is biased up: E[1 / I_hat] = (1 / I) (1 +
    var(I) / I^2 + ...). The expansion holds while the ideal's relative error is small; beyond
    it the floor of each count at its known documents and the ideal's saturation decide, and a
    correction made at the estimate (not at the unknown truth) errs the other way (Cranfield,
    confusion judge, 10% audits: run means +0.017 -> -0.07 with the correction kept to the
    end), so it fades out linearly, to nothing at CONVEX_LIMIT (relative standard error 0.55).

    Example: ideals of 4 with standard errors 1 and 3 (one grade, slope 0.5):
        >>> convexity_factor(np.array([4.0, 4.0]), np.array([[0.5], [0.5]]),
        ...                  np.array([[4.0], [36.0]])).round(4).tolist()
        [0.9505, 1.0]
    """
    inv = np.divide(1.0, ideal, out=np.zeros(np.shape(ideal)), where=ideal > 0)
    rel = (slopes ** 2 * np.maximum(var, 0.0)).sum(axis=-1) * inv ** 2
    return 1.0 - rel * np.clip(1.0 - rel / CONVEX_LIMIT, 0.0, 1.0)


def interval(value: np.ndarray, var: np.ndarray, level: float
             ) -> tuple[np.ndarray, np.ndarray]:
    """The normal interval value -+ z sqrt(var)."""
    from statistics import NormalDist

    z = NormalDist().inv_cdf(0.5 + level / 2.0)
    half = z * np.sqrt(np.maximum(var, 0.0))
    return value - half, value + half


def score_interval(value: np.ndarray, var: np.ndarray, fixed: np.ndarray, level: float,
                   flat: np.ndarray | float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """The interval {theta: (value - theta)^2 <= z^2 v(theta)} with the variance proportional
    to the uncertain part of the value, v(theta) = var (theta - fixed) / (value - fixed), as
    the Wilson interval of a proportion takes p (1 - p) at the p tested. The uncertain part
    is floored at one standard error (a value at or below its known part, which PPI's
    corrections allow, is not certain), and the interval is laid around the value itself.

    The audit's estimates and their variance estimates move together: an audit that missed
    the relevant documents of U gives a low estimate *and* a small variance, one that caught
    a few with small pi a high estimate and a large variance (TREC-COVID round 1, 10% audits,
    P@10 run means: correlation 0.8 between the error and the reported standard error, which
    is right on average; the normal intervals covered 0.79). With v(theta) growing with
    theta the interval reaches further above a low estimate than below a high one.

    `flat` (in [0, 1]): the share of `var` that does not grow with the uncertain part (nDCG:
    its estimated ideal's), v(theta) = flat var + (1 - flat) var (theta - fixed) / (value -
    fixed); 1 gives the normal interval.

    Example: an estimate 0.1 above its known part with variance 0.01 reaches further up
    than down (0.1 -+ 0.164 for the normal interval):
        >>> lo, hi = score_interval(np.array([0.3]), np.array([0.01]), np.array([0.2]), 0.9)
        >>> round(float(lo[0]), 3), round(float(hi[0]), 3)
        (0.222, 0.648)
    """
    from statistics import NormalDist

    z = NormalDist().inv_cdf(0.5 + level / 2.0)
    return (score_quantile(value, var, fixed, -z, flat),
            score_quantile(value, var, fixed, z, flat))


def score_quantile(value: np.ndarray, var: np.ndarray, fixed: np.ndarray, z: np.ndarray | float,
                   flat: np.ndarray | float = 0.0) -> np.ndarray:
    """The theta whose standardised distance from the value, (theta - value) / sqrt(v(theta))
    with v as in score_interval, is z (broadcast): increasing in z, the value at z = 0, the
    score interval's bounds at -+ z. Coupled draws map standard normal draws through it, so
    that P(A > B) and rank intervals come from the intervals' own distributions."""
    flat = np.clip(flat, 0.0, 1.0) * np.maximum(var, 0.0)
    var = np.maximum(var, 0.0) - flat
    a = np.maximum(value - fixed, np.sqrt(var))
    z2 = np.asarray(z) ** 2
    k = z2 * np.divide(var, a, out=np.zeros(np.shape(a)), where=a > 0)
    mid = a + k / 2.0
    half = np.sqrt(np.maximum(mid * mid - a * a + z2 * flat, 0.0))
    return value + mid + np.sign(z) * half - a
