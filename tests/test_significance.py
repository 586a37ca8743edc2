"""Significance tests: hand-worked values, agreement with scipy/statsmodels, determinism."""

from __future__ import annotations

import math
from itertools import product

import numpy as np
import pytest
from scipy import stats

from unjudged.stats.paired import adjust, sign_rows, t_rows
from unjudged.stats.significance import (
    METHODS,
    anova,
    anova_rm,
    paired_test,
    pairwise_tests,
    significance_matrix,
)
from unjudged.stats.tukey import studentized_range_sf

A = [0.5, 0.6, 0.7, 0.8]
B = [0.4, 0.4, 0.5, 0.5]  # differences 0.1, 0.2, 0.2, 0.3


def _runs(k=6, n=20, seed=1):
    rng = np.random.default_rng(seed)
    base = rng.random(n)
    return np.clip(base + rng.normal(0, 0.15, (k, n)) + np.linspace(0, 0.3, k)[:, None], 0, 1)


def test_t_test_by_hand():
    # mean 0.2, sd sqrt(0.02 / 3), se = sd / 2, t = 2 sqrt(6), df 3
    r = paired_test(A, B, "t")
    sd = math.sqrt(0.02 / 3)
    assert r.mean_diff == pytest.approx(0.2)
    assert r.statistic == pytest.approx(2 * math.sqrt(6))
    assert r.effect_size == pytest.approx(0.2 / sd)
    half = stats.t.ppf(0.975, 3) * sd / 2
    assert (r.ci_low, r.ci_high) == pytest.approx((0.2 - half, 0.2 + half))
    assert r.p_value == pytest.approx(2 * stats.t.sf(2 * math.sqrt(6), 3))
    assert (r.n, r.ci_method, r.effect_measure) == (4, "t", "d_z")


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_t_matches_scipy(alternative):
    s = _runs()
    for a, b in [(0, 1), (2, 5), (4, 3)]:
        ref = stats.ttest_rel(s[a], s[b], alternative=alternative)
        ci = ref.confidence_interval(0.9)
        r = paired_test(s[a], s[b], "t", alternative=alternative, confidence=0.9)
        assert (r.statistic, r.p_value) == pytest.approx((ref.statistic, ref.pvalue))
        assert (r.ci_low, r.ci_high) == pytest.approx((ci.low, ci.high))
        t, p = t_rows((s[a] - s[b])[None], alternative)
        assert (t[0], p[0]) == pytest.approx((ref.statistic, ref.pvalue))


def test_pairwise_t_and_wilcoxon_match_scipy_on_every_pair():
    s = _runs()
    names = list("abcdef")
    for method, fn in [("t", stats.ttest_rel), ("wilcoxon", stats.wilcoxon)]:
        res = pairwise_tests(s, names, method)
        assert [(r.run_a, r.run_b) for r in res][:3] == [("a", "b"), ("a", "c"), ("a", "d")]
        assert len(res) == 15
        for r in res:
            i, j = names.index(r.run_a), names.index(r.run_b)
            assert r.p_value == pytest.approx(fn(s[i], s[j]).pvalue)
            assert r.mean_diff == pytest.approx(np.mean(s[i] - s[j]))
            assert r.significant == (r.p_value < 0.05)


def test_sign_test_by_hand():
    # 5 positive, 1 negative, 1 tie dropped: two-sided p = 2 * P(X <= 1 | n=6) = 2 * 7/64
    a = [0.5, 0.4, 0.3, 0.9, 0.8, 0.1, 0.5]
    b = [0.2, 0.3, 0.1, 0.4, 0.7, 0.2, 0.5]
    r = paired_test(a, b, "sign")
    assert r.statistic == 5 and r.p_value == pytest.approx(14 / 64)
    assert paired_test(a, b, "sign", alternative="greater").p_value == pytest.approx(7 / 64)
    assert paired_test(a, b, "sign", alternative="less").p_value == pytest.approx(63 / 64)
    d = np.array(a) - np.array(b)
    for alt in ("two-sided", "greater", "less"):
        assert sign_rows(d[None], alt)[1][0] == pytest.approx(
            stats.binomtest(5, 6, 0.5, alt).pvalue)


def test_randomisation_exact_enumeration_by_hand():
    # differences 0.1, 0.2, 0.2, 0.3 (mean 0.2): of the 16 sign flips only all-plus and
    # all-minus reach |mean| >= 0.2; flipping 0.1 alone gives 0.15. One-sided: 1/16.
    r = paired_test(A, B, "randomisation")
    assert r.p_value == pytest.approx(2 / 16) and r.statistic == pytest.approx(0.2)
    assert paired_test(A, B, "randomisation", alternative="greater").p_value == 1 / 16
    # differences 1, -1, 2, 0 (mean 0.5): flips with |mean| >= 0.5, i.e. |sum| >= 2, are those
    # keeping 2's sign with +-1 not both against it, counted by brute force
    d = np.array([1.0, -1.0, 2.0, 0.0])
    sums = [abs(np.dot(f, d)) for f in product([1, -1], repeat=4)]
    expected = sum(x >= 2 - 1e-9 for x in sums) / 16
    assert paired_test(d, np.zeros(4), "randomisation").p_value == pytest.approx(expected)


def test_randomisation_monte_carlo_is_seeded_and_close_to_t():
    s = _runs(n=30)
    r1 = paired_test(s[0], s[3], "randomisation", n_resamples=2000, seed=5)
    r2 = paired_test(s[0], s[3], "randomisation", n_resamples=2000, seed=5)
    r3 = paired_test(s[0], s[3], "randomisation", n_resamples=2000, seed=6)
    assert r1 == r2 and r1.p_value != r3.p_value
    assert r1.p_value > 0 and (r1.p_value * 2001) == pytest.approx(round(r1.p_value * 2001))
    assert r1.p_value == pytest.approx(paired_test(s[0], s[3]).p_value, abs=0.03)


def test_bootstrap_seeded_percentile_interval_and_agreement_with_t():
    s = _runs(n=40)
    r = paired_test(s[0], s[4], "bootstrap", n_resamples=2000, seed=3)
    assert r == paired_test(s[0], s[4], "bootstrap", n_resamples=2000, seed=3)
    assert r.ci_method == "percentile bootstrap"
    t = paired_test(s[0], s[4], "t")
    assert r.statistic == pytest.approx(t.statistic)  # the observed studentised statistic
    assert r.ci_low < r.mean_diff < r.ci_high
    assert (r.ci_low, r.ci_high) == pytest.approx((t.ci_low, t.ci_high), abs=0.02)
    near = paired_test(s[0], s[1], "bootstrap", n_resamples=2000, seed=3)
    assert near.p_value == pytest.approx(paired_test(s[0], s[1]).p_value, abs=0.05)


def test_resampling_tests_against_a_plain_loop_over_the_same_design():
    from unjudged.stats.resampling import bootstrap_design, flip_design
    d = _runs(n=25)[2] - _runs(n=25)[0]
    t_obs = d.mean() / (d.std(ddof=1) / 5)
    counts = bootstrap_design(25, 300, 7)
    extreme, means = 0, []
    for c in counts:  # Efron & Tibshirani's algorithm 16.2, one sample at a time
        x = np.repeat(d, c.astype(int))
        means.append(x.mean())
        extreme += abs((x.mean() - d.mean()) / (x.std(ddof=1) / 5)) >= abs(t_obs)
    r = paired_test(d, np.zeros(25), "bootstrap", n_resamples=300, seed=7, confidence=0.9)
    assert r.p_value == pytest.approx((extreme + 1) / 301)
    assert (r.ci_low, r.ci_high) == pytest.approx(tuple(np.quantile(means, [0.05, 0.95])))
    flips, exact = flip_design(25, 300, 7)
    assert not exact and flips.shape == (300, 25)
    hits = sum(abs((f * d).mean()) >= abs(d.mean()) - 1e-12 for f in flips)
    r = paired_test(d, np.zeros(25), "randomisation", n_resamples=300, seed=7)
    assert r.p_value == pytest.approx((hits + 1) / 301)


def test_holm_by_hand():
    # sorted 0.01, 0.03, 0.04 -> 3*0.01, max(0.03, 2*0.03), max(0.06, 1*0.04)
    p_adj, reject = adjust(np.array([0.04, 0.01, 0.03]), "holm")
    assert p_adj.tolist() == pytest.approx([0.06, 0.03, 0.06])
    assert reject.tolist() == [False, True, False]
    assert adjust(np.array([0.04, 0.01, 0.03]), "bonferroni")[0].tolist() == pytest.approx(
        [0.12, 0.03, 0.09])


def test_t_holm_and_bonferroni_adjust_the_pairwise_t_p_values():
    s = _runs()
    raw = np.array([r.p_value for r in pairwise_tests(s, range(6), "t")])
    from statsmodels.stats.multitest import multipletests
    for method in ("holm", "bonferroni"):
        res = pairwise_tests(s, range(6), f"t-{method}", alpha=0.1)
        ref = multipletests(raw, alpha=0.1, method=method)
        assert [r.p_value for r in res] == pytest.approx(ref[1].tolist())
        assert [r.significant for r in res] == ref[0].tolist()
        # simultaneous Bonferroni intervals at 1 - 0.1 / 15
        r = res[0]
        ref_ci = stats.ttest_rel(s[0], s[1]).confidence_interval(1 - 0.1 / 15)
        assert (r.ci_low, r.ci_high) == pytest.approx((ref_ci.low, ref_ci.high))


def test_anova_gate():
    s = _runs()
    f, p = anova(s)
    ref = stats.f_oneway(*s)
    assert (f, p) == pytest.approx((ref.statistic, ref.pvalue))
    gated = pairwise_tests(s, range(6), "anova-holm", alpha=0.05)
    holm = pairwise_tests(s, range(6), "t-holm", alpha=0.05)
    assert [r.p_value for r in gated] == [r.p_value for r in holm]
    # with one run far below the others, the omnibus test rejects and Holm decides
    assert p < 0.05 and [r.significant for r in gated] == [r.significant for r in holm]
    # runs that differ by a small constant shift: paired t rejects, one-way ANOVA does not
    flat = np.stack([s[0], s[0] + 0.01, s[0] + 0.02])
    assert anova(flat)[1] > 0.05
    assert all(r.significant for r in pairwise_tests(flat, "xyz", "t-holm"))
    assert not any(r.significant for r in pairwise_tests(flat, "xyz", "anova-holm"))
    assert anova_rm(flat)[1] < 1e-10  # topics as a block: the shift is obvious


# Three runs on four topics for the pooled-error follow-up, worked by hand: means 0.5, 0.3 and
# 0.1; within-run sums of squares 0.20, 0.08 and 0.04, so MSE = 0.32 / (3 * 3) on 9 df; the
# standard error of a difference sqrt(2 MSE / 4) = 2/15; t = 0.2 / (2/15) = 1.5, 3.0, 1.5.
# One-way ANOVA: between-run sum of squares 4 * (0.04 + 0 + 0.04) = 0.32, F = 0.16 / MSE = 4.5,
# and with 2 numerator df P(F > 4.5) = (1 + 2 * 4.5 / 9) ** -4.5 = 2 ** -4.5.
POOLED = np.array([[0.2, 0.4, 0.6, 0.8], [0.1, 0.3, 0.3, 0.5], [0.0, 0.2, 0.2, 0.0]])


def test_anova_pooled_bonferroni_by_hand():
    f, p = anova(POOLED)
    assert (f, p) == pytest.approx((4.5, 2 ** -4.5))
    res = pairwise_tests(POOLED, "abc", "anova-pooled-bonferroni", alpha=0.05)
    raw = 2 * stats.t.sf([1.5, 3.0, 1.5], 9)  # 0.16785, 0.01496, 0.16785
    assert [r.p_value for r in res] == pytest.approx(np.minimum(3 * raw, 1).tolist())
    assert [round(r.p_value, 4) for r in res] == [0.5036, 0.0449, 0.5036]
    assert [r.significant for r in res] == [False, True, False]
    assert [r.mean_diff for r in res] == pytest.approx([0.2, 0.4, 0.2])
    # Bonferroni-simultaneous intervals: t(1 - 0.05 / 6, 9) * 2/15 either side
    half = stats.t.ppf(1 - 0.05 / 6, 9) * 2 / 15
    assert (res[1].ci_low, res[1].ci_high) == pytest.approx((0.4 - half, 0.4 + half))
    assert round(half, 4) == 0.3911
    # the paired follow-up on the same runs: a vs c differs by 0.2, 0.2, 0.4, 0.8 (sd 0.2828,
    # t = 2.83 on 3 df, p 0.0663, x 3 = 0.199): not significant, because it ignores the other
    # runs' variance and has 3 df instead of 9
    paired = pairwise_tests(POOLED, "abc", "anova-bonferroni", alpha=0.05)
    assert round(paired[1].p_value, 3) == 0.199 and not any(r.significant for r in paired)
    # the ANOVA gates both: at alpha 0.04 (< 2 ** -4.5) no pair is significant
    gated = pairwise_tests(POOLED, "abc", "anova-pooled-bonferroni", alpha=0.04)
    assert not any(r.significant for r in gated)


def test_pooled_error_with_constant_runs():
    s = np.array([[0.5, 0.5, 0.5], [0.25, 0.25, 0.25], [0.5, 0.5, 0.5]])
    res = pairwise_tests(s, "abc", "anova-pooled-bonferroni")  # MSE 0: differences certain
    assert [(r.p_value, r.significant) for r in res] == [(0.0, True), (1.0, False), (0.0, True)]
    assert (res[0].ci_low, res[0].ci_high) == (0.25, 0.25)


def test_anova_rm_equals_squared_paired_t_for_two_runs():
    s = _runs()
    f, p = anova_rm(s[:2])
    t = stats.ttest_rel(s[0], s[1])
    assert f == pytest.approx(t.statistic ** 2) and p == pytest.approx(t.pvalue)


def test_tukey_matches_scipy():
    s = _runs(k=5, n=15)
    ref = stats.tukey_hsd(*s)
    ci = ref.confidence_interval(0.9)
    res = pairwise_tests(s, range(5), "tukey", alpha=0.1)
    for r in res:
        i, j = int(r.run_a), int(r.run_b)
        assert r.p_value == pytest.approx(ref.pvalue[i, j], abs=1e-9)
        assert (r.ci_low, r.ci_high) == pytest.approx((ci.low[i, j], ci.high[i, j]))
        assert r.mean_diff == pytest.approx(ref.statistic[i, j])


@pytest.mark.parametrize("k, df", [(2, 5), (3, 2), (5, 70), (10, 20), (143, 4147)])
def test_studentized_range_sf_matches_scipy(k, df):
    q = np.array([0.0, 0.3, 1.0, 2.0, 3.5, 5.0, 6.5, 8.0])
    ours = studentized_range_sf(q, k, df)
    assert ours == pytest.approx(stats.studentized_range.sf(q, k, df), abs=1e-11)
    assert ours[0] == 1.0


def test_identical_runs_give_p_one_for_every_method():
    s = np.array([[0.1, 0.5, 0.3, 0.2], [0.1, 0.5, 0.3, 0.2]])
    for method in METHODS:
        (r,) = pairwise_tests(s, ["a", "b"], method, n_resamples=100)
        assert (r.p_value, r.significant, r.mean_diff, r.effect_size) == (1.0, False, 0.0, 0.0)
    for test in ("t", "wilcoxon", "sign", "randomisation", "bootstrap"):
        r = paired_test(s[0], s[1], test, n_resamples=100)
        assert r.p_value == 1.0 and r.statistic == 0.0


def test_constant_differences():
    a, b = [0.75, 0.5, 1.0, 0.25], [0.5, 0.25, 0.75, 0.0]  # exactly 0.25 apart
    r = paired_test(a, b, "t")
    assert (r.statistic, r.p_value, r.effect_size) == (math.inf, 0.0, math.inf)
    assert r.ci_low == r.ci_high == 0.25
    assert paired_test(a, b, "bootstrap", n_resamples=99).p_value == pytest.approx(1 / 100)
    assert paired_test(a, b, "randomisation").p_value == pytest.approx(2 / 16)


def test_pairwise_is_deterministic_and_chunking_free(monkeypatch):
    s = _runs(k=8, n=12)
    for method in ("randomisation", "bootstrap"):
        a = pairwise_tests(s, range(8), method, seed=4, n_resamples=500)
        assert a == pairwise_tests(s, range(8), method, seed=4, n_resamples=500)
        import unjudged.stats.pairs as sp
        import unjudged.stats.resampling as rs
        monkeypatch.setattr(sp, "CHUNK_CELLS", 24)
        monkeypatch.setattr(rs, "CHUNK_CELLS", 1000)
        b = pairwise_tests(s, range(8), method, seed=4, n_resamples=500)
        monkeypatch.undo()
        assert [r.p_value for r in a] == [r.p_value for r in b]
        assert [r.ci_low for r in a] == pytest.approx([r.ci_low for r in b])
        # each pair's p-value is the single-pair test's
        one = paired_test(s[2], s[5], method, seed=4, n_resamples=500)
        pair = next(r for r in a if (r.run_a, r.run_b) == ("2", "5"))
        assert pair.p_value == pytest.approx(one.p_value)


def test_significance_matrix_is_symmetric():
    s = _runs(k=4)
    p, diff = significance_matrix(s, "t")
    res = pairwise_tests(s, range(4), "t")
    assert np.allclose(p, p.T) and np.allclose(diff, -diff.T) and (np.diag(p) == 1).all()
    assert p[1, 3] == pytest.approx(res[4].p_value) and diff[1, 3] == pytest.approx(
        res[4].mean_diff)


def test_bad_input():
    with pytest.raises(ValueError, match="equally long"):
        paired_test([1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match="test"):
        paired_test(A, B, "z")
    with pytest.raises(ValueError, match="method"):
        pairwise_tests([A, B], "ab", "nope")
    with pytest.raises(ValueError, match="names"):
        pairwise_tests([A, B], "abc")
    with pytest.raises(ValueError, match="alternative"):
        paired_test(A, B, alternative="bigger")
