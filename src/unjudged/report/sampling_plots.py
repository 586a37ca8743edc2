"""Figures of a sampling experiment, in the style of seed 002: statistics against the level of
incompleteness, one line per estimator and kind of judgments (Figures 3-4), and each run's
estimated against its actual mean with interval bars (Figures 1-2). Matplotlib is imported
lazily (Agg backend)."""

from __future__ import annotations

from typing import Any

import numpy as np

from unjudged.report._mpl import pyplot, save_figure

_STATS = (("tau", "Kendall's tau"), ("rho", "Pearson's rho"), ("rmse", "RMS error"))
_STYLES = ("-", "--", ":", "-.")
_MARKERS = ("o", "s", "^", "D", "v", "P")


def plot_sampling(rows: list[dict[str, Any]], path: str, runs: str = "all") -> str:
    """Statistics (columns: tau, rho, RMSE) against the percentage judged, one row of panels
    per target measure; a line per (estimator, judgments) with bars of one standard deviation
    over trials. `rows` are sampling_table's; `runs` picks the group of runs."""
    plt = pyplot()
    rows = [r for r in rows if r["runs"] == runs]
    targets = list(dict.fromkeys(r["target"] for r in rows))
    estimators = list(dict.fromkeys(r["estimator"] for r in rows))
    kinds = list(dict.fromkeys(r["judgments"] for r in rows))
    fig, axes = plt.subplots(len(targets), len(_STATS), squeeze=False,
                             figsize=(4.2 * len(_STATS), 3.2 * len(targets) + 0.4))
    for (estimator, kind) in dict.fromkeys((r["estimator"], r["judgments"]) for r in rows):
        series = {}
        for r in rows:  # one point per level: a twin of equal size repeats the same sample
            if (r["estimator"], r["judgments"]) == (estimator, kind):
                series.setdefault(round(100 * r["judged"], 1), r)
        levels = sorted(series)
        target = series[levels[0]]["target"]
        style = dict(color=f"C{estimators.index(estimator) % 10}",
                     linestyle=_STYLES[kinds.index(kind) % len(_STYLES)],
                     marker=_MARKERS[kinds.index(kind) % len(_MARKERS)], markersize=4,
                     capsize=2, label=f"{estimator} ({kind})")
        for c, (stat, _) in enumerate(_STATS):
            y = [series[x][stat] for x in levels]
            err = [series[x][f"{stat}_sd"] for x in levels]
            axes[targets.index(target), c].errorbar(levels, y, yerr=err, **style)
    for i, target in enumerate(targets):
        for c, (_, title) in enumerate(_STATS):
            ax = axes[i, c]
            ax.set_title(f"{title} ({target})", fontsize=10)
            ax.set_xlabel("judgments sampled (%)", fontsize=9)
            ax.grid(alpha=0.3)
        axes[i, 0].legend(fontsize=7)
    fig.suptitle(f"Estimates on sampled judgments against the complete judgments ({runs} runs)",
                 fontsize=11)
    fig.tight_layout()
    save_figure(fig, path, dpi=80)
    return path


def plot_scatter(sweep, path: str, estimator: int = 0, trial: int = 0) -> str:
    """Figure 1-2 style: per design, each run's mean estimate (trial `trial`, the design's own
    judgments) against its actual mean, with its interval; dots for the runs that built the
    pool, pluses for the others; RMSE, tau and rho in the title."""
    from unjudged.experiments.sampling_stats import accuracy
    from unjudged.inference.infer import z_value

    plt = pyplot()
    sets = [(d, label) for d, label in sweep.samples if label == sweep.designs[d].kind]
    cols = min(3, len(sets))
    nrows = -(-len(sets) // cols)
    fig, axes = plt.subplots(nrows, cols, squeeze=False, figsize=(4.0 * cols, 4.0 * nrows))
    truth = sweep.truth[:, estimator]
    z = z_value(sweep.level)
    for ax, (d, label) in zip(axes.ravel(), sets, strict=False):
        est = sweep.estimate[(d, label)][trial, :, estimator]
        half = z * sweep.sd[(d, label)][trial, :, estimator]
        half = np.where(np.isfinite(half), half, 0.0)
        for mask, marker, name in ((sweep.contributing, "o", "contributing"),
                                   (~sweep.contributing, "+", "other")):
            if mask.any():
                ax.errorbar(truth[mask], est[mask], yerr=half[mask], fmt=marker, markersize=4,
                            elinewidth=0.6, capsize=0, color="C0" if marker == "o" else "C3",
                            label=f"{name} runs")
        lo, hi = min(truth.min(), est.min()), max(truth.max(), est.max())
        ax.plot([lo, hi], [lo, hi], "k--", linewidth=0.8)
        rmse, tau, rho = accuracy(est[None, :], truth)[0]
        ax.set_title(f"{sweep.designs[d].text} ({100 * sweep.judged[d]:.1f}% judged)\n"
                     f"RMSE {rmse:.4f}, tau {tau:.3f}, rho {rho:.3f}", fontsize=9)
        ax.set_xlabel(f"actual {sweep.targets[estimator].name}", fontsize=9)
        ax.set_ylabel(f"{sweep.estimators[estimator].name} (trial {trial})", fontsize=9)
        ax.legend(fontsize=7, loc="upper left")
    for ax in axes.ravel()[len(sets):]:
        ax.set_visible(False)
    fig.tight_layout()
    save_figure(fig, path, dpi=80)
    return path
