"""Statistics of a sampling experiment (seed 002, Figures 1-4 and section 2), per judgment set,
estimator and group of runs:

- rmse: root mean squared error over the runs of each run's mean estimate against its true
  mean; tau: Kendall's tau-b between the two rankings of the runs; rho: Pearson's linear
  correlation of the two. Each is computed per trial; the table gives the mean over trials and
  the standard deviation (`_sd`, ddof 1).
- cover_topic: the fraction of (trial, run, topic) intervals that cover the topic's true value;
  cover_mean: the fraction of (trial, run) intervals of a run's mean that cover the true mean
  (both within TOLERANCE). zero_width: how many (trial, run, topic) intervals have zero width
  (the estimate claims to be exact); zero_missed: how many of those miss the truth.
- ks_d, ks_p: the Kolmogorov-Smirnov test of all standardised deviations
  (estimate - truth) / se of the runs' means (trials x runs) against the standard normal; they
  share each trial's sample, so read the p-value as indicative. ks_runs: as in the paper, the
  fraction of runs whose deviations over the trials pass the test at alpha 0.05 (little power
  with few trials).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from unjudged.analysis.compare import kendall_tau
from unjudged.experiments.sampling import TOLERANCE, SamplingSweep

COLUMNS = ["design", "judged", "judgments", "estimator", "target", "runs", "n_runs", "rmse",
           "rmse_sd", "tau", "tau_sd", "rho", "rho_sd", "cover_topic", "cover_mean", "zero_width",
           "zero_missed", "ks_d", "ks_p", "ks_runs"]


def run_groups(sweep: SamplingSweep) -> list[tuple[str, np.ndarray]]:
    """('all', every run), and when some runs did not build the pool, ('contributing', ...)
    and ('other', ...)."""
    groups = [("all", np.ones(len(sweep.runs), dtype=bool))]
    if 0 < sweep.contributing.sum() < len(sweep.runs):
        groups += [("contributing", sweep.contributing), ("other", ~sweep.contributing)]
    return groups


def accuracy(estimate: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """(trials, 3): RMSE, Kendall's tau and Pearson's rho of each trial's estimates
    (trials, runs) against the truth (runs,).

    Example:
        >>> accuracy(np.array([[0.1, 0.3, 0.2]]), np.array([0.1, 0.2, 0.3])).round(4).tolist()
        [[0.0816, 0.3333, 0.5]]
    """
    from scipy.stats import pearsonr

    rmse = np.sqrt(((estimate - truth) ** 2).mean(axis=-1))
    with warnings.catch_warnings():  # constant scores: no correlation, NaN it is
        warnings.simplefilter("ignore")
        rho = [pearsonr(e, truth).statistic if truth.size > 1 else np.nan for e in estimate]
    tau = [kendall_tau(e, truth) for e in estimate]
    return np.column_stack([rmse, tau, rho]).astype(np.float64)


def ks_test(z: np.ndarray) -> tuple[float, float, float]:
    """(D, p) of the standardised deviations z (trials, runs) pooled against N(0, 1), and the
    fraction of runs whose own deviations pass the test at 0.05; NaNs are left out.

    Example:
        >>> d, p, ok = ks_test(np.array([[-1.0, 0.5], [0.2, -0.4], [1.1, 0.0]]))
        >>> round(d, 4), ok
        (0.1779, 1.0)
    """
    from scipy.stats import kstest

    flat = z[np.isfinite(z)]
    if flat.size == 0:
        return np.nan, np.nan, np.nan
    pooled = kstest(flat, "norm")
    with warnings.catch_warnings():  # runs without a finite deviation: NaN, dropped below
        warnings.simplefilter("ignore")
        per_run = np.atleast_1d(kstest(np.where(np.isfinite(z), z, np.nan), "norm", axis=0,
                                       nan_policy="omit").pvalue)
    tested = np.isfinite(per_run)
    ok = float((per_run[tested] >= 0.05).mean()) if tested.any() else np.nan
    return float(pooled.statistic), float(pooled.pvalue), ok


def _spread(values: np.ndarray) -> tuple[float, float]:
    """Mean and standard deviation (ddof 1; 0 for one trial) over trials, NaNs left out."""
    v = values[np.isfinite(values)]
    if v.size == 0:
        return np.nan, np.nan
    return float(v.mean()), float(v.std(ddof=1)) if v.size > 1 else 0.0


def sampling_table(sweep: SamplingSweep) -> list[dict[str, Any]]:
    """One row per (judgment set, estimator, group of runs) with the columns COLUMNS."""
    rows = []
    for d, label in sweep.samples:
        est, sd = sweep.estimate[(d, label)], sweep.sd[(d, label)]
        covered, topics = sweep.covered[(d, label)], sweep.topics[(d, label)]
        for m, (measure, target) in enumerate(zip(sweep.estimators, sweep.targets, strict=True)):
            for group, mask in run_groups(sweep):
                e, s, truth = est[:, mask, m], sd[:, mask, m], sweep.truth[mask, m]
                stats = accuracy(e, truth)
                row: dict[str, Any] = {
                    "design": sweep.designs[d].text, "judged": float(sweep.judged[d]),
                    "judgments": label, "estimator": measure.name, "target": target.name,
                    "runs": group, "n_runs": int(mask.sum())}
                for c, name in enumerate(("rmse", "tau", "rho")):
                    row[name], row[f"{name}_sd"] = _spread(stats[:, c])
                row.update(_intervals(e, s, truth, covered[:, mask, m], topics[:, mask],
                                      sweep.level))
                if (d, label) in sweep.zero and np.isfinite(s).any():
                    row["zero_width"] = int(sweep.zero[(d, label)][:, mask, m].sum())
                    row["zero_missed"] = int(sweep.zero_missed[(d, label)][:, mask, m].sum())
                else:
                    row["zero_width"] = row["zero_missed"] = np.nan
                rows.append(row)
    return rows


def _intervals(e, s, truth, covered, topics, level: float) -> dict[str, float]:
    """Coverage and KS columns; NaN for estimators without a variance."""
    from unjudged.inference.infer import z_value

    if not np.isfinite(s).any():
        return {k: np.nan for k in ("cover_topic", "cover_mean", "ks_d", "ks_p", "ks_runs")}
    half = z_value(level) * s + TOLERANCE
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(s > 0, (e - truth) / s, np.nan)
    d, p, ok = ks_test(z)
    return {"cover_topic": float(covered.sum() / max(topics.sum(), 1)),
            "cover_mean": float((np.abs(e - truth) <= half).mean()),
            "ks_d": d, "ks_p": p, "ks_runs": ok}


def sampling_details(sweep: SamplingSweep) -> list[dict[str, Any]]:
    """One row per (judgment set, trial, estimator, run): the run's mean estimate, its
    standard error, its true mean, the per-topic interval coverage and how many per-topic
    intervals have zero width."""
    rows = []
    for d, label in sweep.samples:
        est, sd = sweep.estimate[(d, label)], sweep.sd[(d, label)]
        covered, topics = sweep.covered[(d, label)], sweep.topics[(d, label)]
        zero = sweep.zero.get((d, label), np.zeros_like(covered))
        for t in range(sweep.trials):
            for m, measure in enumerate(sweep.estimators):
                for r, run in enumerate(sweep.runs):
                    rows.append({"design": sweep.designs[d].text, "judgments": label,
                                 "trial": t, "estimator": measure.name, "run": run,
                                 "contributing": bool(sweep.contributing[r]),
                                 "estimate": float(est[t, r, m]), "se": float(sd[t, r, m]),
                                 "truth": float(sweep.truth[r, m]),
                                 "covered_topics": int(covered[t, r, m]),
                                 "zero_width_topics": int(zero[t, r, m]),
                                 "topics": int(topics[t, r])})
    return rows


def scatter_panels(sweep: SamplingSweep, estimator: int = 0, trial: int = 0
                   ) -> list[dict[str, Any]]:
    """What the Figure 1-2 scatter shows, per design's own judgment set: each run's mean
    estimate (trial `trial`) against its actual mean, the interval's half-width (0 where
    there is none), which runs built the pool, and the panel's RMSE, tau and rho."""
    from unjudged.inference.infer import z_value

    truth = sweep.truth[:, estimator]
    z = z_value(sweep.level)
    panels = []
    for d, label in sweep.samples:
        if label != sweep.designs[d].kind:
            continue
        est = sweep.estimate[(d, label)][trial, :, estimator]
        half = z * sweep.sd[(d, label)][trial, :, estimator]
        rmse, tau, rho = accuracy(est[None, :], truth)[0]
        panels.append({"design": sweep.designs[d].text, "judged": float(sweep.judged[d]),
                       "target": sweep.targets[estimator].name,
                       "estimator": sweep.estimators[estimator].name, "trial": trial,
                       "truth": truth, "estimate": est,
                       "half": np.where(np.isfinite(half), half, 0.0),
                       "contributing": sweep.contributing,
                       "rmse": float(rmse), "tau": float(tau), "rho": float(rho)})
    return panels
