"""Figures of bootstrap distributions, in the style of seed 000's Figure 1: per topic a
histogram of the bootstrapped scores with the nonrel, condensed and upper scores and the point
estimate marked."""

from __future__ import annotations

import math
import os
from typing import Any

import numpy as np

from unjudged.data.topic_order import natural_key
from unjudged.io.atomic import check_targets, write_figure
from unjudged.report._mpl import save_figure, short, shown
from unjudged.report.names import derived_files

_MARKS = (("nonrel", "tab:red", "--"), ("condensed", "tab:green", "-."),
          ("upper", "tab:purple", ":"))


def plot_estimates(est, path: str, measure: int = 0) -> list[str]:
    """Draw one figure per run (one panel per topic, topics in natural order: 2 before 10)
    for the `measure`-th measure. Returns the files written: `path` itself for a single run,
    else `path` with the run name inserted."""
    from unjudged.report._mpl import pyplot

    plt = pyplot()

    written = []
    stem, ext = os.path.splitext(path)
    drawn = [r for r in est.runs if r.samples is not None and r.topics]
    targets = [path] if len(est.runs) == 1 else \
        derived_files([r.run for r in drawn], lambda s: f"{stem}-{s}{ext}")
    check_targets(targets)  # all of them, before the first is written
    # one run without samples: one target, nothing drawn (targets is longer than drawn)
    for r, target in zip(drawn, targets, strict=False):
        fig = _figure(plt, r, measure, est.point)
        save_figure(fig, target, dpi=110)
        written.append(target)
    return written


def _figure(plt, r, i: int, point: str):
    n = len(r.topics)
    cols = min(6, n)
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(2.6 * cols, 2.0 * rows + 0.6),
                             squeeze=False, sharex=True)
    name = r.measures[i].name
    order = sorted(range(n), key=lambda t: natural_key(r.topics[t]))  # 2 before 10
    for cell, ax in enumerate(axes.ravel()):
        if cell >= n:
            ax.set_visible(False)
            continue
        t = order[cell]
        values = r.samples[:, t, i]
        if np.isnan(values[0]):
            ax.set_visible(False)
            continue
        ax.hist(values, bins=np.linspace(0, 1, 41) if r.measures[i].spec.bounded == (0.0, 1.0)
                else 40, color="0.75")
        for method, color, style in _MARKS:
            if method in r.points:
                ax.axvline(r.points[method][t, i], color=color, linestyle=style, linewidth=1.2,
                           label=method)
        ax.axvline(r.point[t, i], color="black", linewidth=1.2, label=f"bootstrap {point}")
        ax.set_title(f"topic {shown(r.topics[t])}", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.set_yticks([])
    handles, labels = axes.ravel()[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize=8, frameon=False)
    fig.suptitle(f"{shown(r.run)}: bootstrapped {name} per topic", fontsize=10)
    fig.tight_layout(rect=(0, 0.05, 1, 0.96))
    return fig


def plot_coverage(cov, path: Any, pool_depth: int) -> Any:
    """Judged fraction at each rank: one line per run for a few runs; for many, the median and
    the 10-90% band of the runs that look pooled and of those that do not."""
    from unjudged.report._mpl import pyplot

    plt = pyplot()

    fig, ax = plt.subplots(figsize=(7, 4.2), layout="constrained")
    ranks = np.arange(1, cov.depth + 1)
    if len(cov.runs) <= 12:
        for r in cov.runs:
            ax.plot(ranks[: r.by_rank.size], r.by_rank, lw=1.3, label=short(r.run),
                    ls="-" if r.looks_pooled(pool_depth) else "--")
        ax.legend(fontsize=7, loc="lower left", title="dashed: not judged to depth "
                  f"{pool_depth}", title_fontsize=7)
    else:
        for pooled, colour in ((True, "tab:blue"), (False, "tab:orange")):
            band = cov.rank_band(pooled, pool_depth)
            if band is None:
                continue
            n, lo, mid, hi = band
            label = (f"{n} runs judged to depth {pool_depth}" if pooled else
                     f"{n} other runs")
            ax.fill_between(ranks, lo, hi, color=colour, alpha=0.2, lw=0)
            ax.plot(ranks, mid, color=colour, lw=1.6, label=label + " (median, 10-90%)")
        ax.legend(fontsize=8, loc="upper right")
    ax.axvline(pool_depth + 0.5, color="k", ls=":", lw=0.8)
    ax.set(xlabel="rank", ylabel="fraction judged", ylim=(0, 1.02), xlim=(1, cov.depth),
           title="Judged documents by rank")
    try:
        if isinstance(path, (str, os.PathLike)):
            write_figure(fig, path, dpi=110)
        else:
            buf = path  # a buffer: the HTML report's figures
            fig.savefig(buf, dpi=110)
    finally:
        plt.close(fig)
    return path


def plot_logo(panels: list[dict[str, Any]], path: str) -> str:
    """Leave-one-group-out: per strategy, each (run, topic) estimate against its truth.
    `panels` are unjudged.experiments.logo_summary.logo_panels'."""
    from unjudged.report._mpl import pyplot

    plt = pyplot()

    cols = min(3, len(panels))
    rows = math.ceil(len(panels) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.3 * cols, 3.2 * rows), squeeze=False,
                             sharex=True, sharey=True, layout="constrained")
    # the grid (rows x 3) can have more axes than panels: the spare ones stay empty
    for ax, p in zip(axes.flat, panels, strict=False):
        truth, est, lost = p["truth"], p["estimate"], p["lost"]
        ax.scatter(truth[~lost], est[~lost], s=4, color="0.7", label="unchanged")
        ax.scatter(truth[lost], est[lost], s=4, color="tab:blue", label="lost judgments")
        ax.plot([0, 1], [0, 1], color="k", lw=0.7)
        ax.set_title(f"{p['strategy']}: RMSE {p['rmse']:.3f}", fontsize=9)
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xlabel(f"{panels[0]['measure']}, full qrels")
    for ax in axes[:, 0]:
        ax.set_ylabel("estimate, group left out")
    axes.flat[0].legend(fontsize=7, loc="upper left", markerscale=2)
    save_figure(fig, path, dpi=100)
    return path
