"""Figures of a sampling experiment, in the style of seed 002: statistics against the level of
incompleteness, one line per estimator and kind of judgments (Figures 3-4), and each run's
estimated against its actual mean with interval bars (Figures 1-2). Matplotlib is imported
lazily (Agg backend)."""

from __future__ import annotations

from typing import Any

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
        series: dict[float, dict[str, Any]] = {}
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


def plot_scatter(panels: list[dict[str, Any]], path: str) -> str:
    """Figure 1-2 style: per design, each run's mean estimate against its actual mean, with its
    interval; dots for the runs that built the pool, pluses for the others; RMSE, tau and rho in
    the title. `panels` are unjudged.experiments.sampling_stats.scatter_panels'."""
    plt = pyplot()
    cols = min(3, len(panels))
    nrows = -(-len(panels) // cols)
    fig, axes = plt.subplots(nrows, cols, squeeze=False, figsize=(4.0 * cols, 4.0 * nrows))
    # the grid (rows x 3) can have more axes than panels: the spare ones stay empty
    for ax, p in zip(axes.ravel(), panels, strict=False):
        truth, est, half, pooled = p["truth"], p["estimate"], p["half"], p["contributing"]
        for mask, marker, name in ((pooled, "o", "contributing"), (~pooled, "+", "other")):
            if mask.any():
                ax.errorbar(truth[mask], est[mask], yerr=half[mask], fmt=marker, markersize=4,
                            elinewidth=0.6, capsize=0, color="C0" if marker == "o" else "C3",
                            label=f"{name} runs")
        lo, hi = min(truth.min(), est.min()), max(truth.max(), est.max())
        ax.plot([lo, hi], [lo, hi], "k--", linewidth=0.8)
        ax.set_title(f"{p['design']} ({100 * p['judged']:.1f}% judged)\n"
                     f"RMSE {p['rmse']:.4f}, tau {p['tau']:.3f}, rho {p['rho']:.3f}", fontsize=9)
        ax.set_xlabel(f"actual {p['target']}", fontsize=9)
        ax.set_ylabel(f"{p['estimator']} (trial {p['trial']})", fontsize=9)
        ax.legend(fontsize=7, loc="upper left")
    for ax in axes.ravel()[len(panels):]:
        ax.set_visible(False)
    fig.tight_layout()
    save_figure(fig, path, dpi=80)
    return path
