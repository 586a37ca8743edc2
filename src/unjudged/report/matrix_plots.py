"""Figures of the decision matrix in the style of seed 001: per measure family, for each depth
the runs' means with comparison intervals beside the same for A_p (Figures 5-10), and the runs
ranked by MAP with their A_p@1000 (Figure 12)."""

from __future__ import annotations

import os

import numpy as np

from unjudged.analysis.matrix import DecisionMatrix
from unjudged.io.atomic import check_targets, make_folder
from unjudged.report._mpl import save_figure
from unjudged.report.names import derived_files

FIGURE_KINDS = (".png", ".pdf", ".svg")


def plot_targets(dm: DecisionMatrix, path: str, notify=None) -> list[str]:
    """The files `plot_matrix` writes: with a file name FILE.png, FILE-<family>.png per
    family and FILE-tau.png; otherwise `path` is a folder holding matrix-<family>.png and
    matrix-tau.png. Names that had to be changed are passed to `notify` (silent by default).

    Example:
        >>> dm = DecisionMatrix(["a"], [], ["P", "AP"], [10], None, None, [], "t", 0.05)
        >>> plot_targets(dm, "out/m.png")
        ['out/m-P.png', 'out/m-AP.png', 'out/m-tau.png']
    """
    stem, ext = os.path.splitext(path)
    if ext.lower() not in FIGURE_KINDS:
        stem, ext = os.path.join(path, "matrix"), ".png"
    return derived_files(list(dm.families) + ["tau"], lambda s: f"{stem}-{s}{ext}",
                         notify=notify or (lambda _: None))


def plot_matrix(dm: DecisionMatrix, path: str, notify=None) -> list[str]:
    """Write the figures (see `plot_targets`; changed names noted to `notify`, by default on
    stderr) and return their names.

    Example (writes files):
        >>> plot_matrix(dm, "figures/")  # doctest: +SKIP
        ['figures/matrix-P.png', 'figures/matrix-AP.png', 'figures/matrix-tau.png']
    """
    from unjudged.report._mpl import pyplot

    plt = pyplot()

    targets = plot_targets(dm, path, notify=notify)
    folder = os.path.dirname(targets[0])
    if folder:
        make_folder(folder)
    check_targets(targets)
    # targets has one more file, the tau figure (written below)
    for family, target in zip(dm.families, targets, strict=False):
        fig = _trend_figure(plt, dm, family)
        save_figure(fig, target, dpi=72)
    fig = _tau_figure(plt, dm)
    save_figure(fig, targets[-1], dpi=90)
    return targets


def _panel(ax, mean: np.ndarray, half: np.ndarray, title: str, colour: str) -> None:
    x = np.arange(1, len(mean) + 1)
    ax.errorbar(x, mean, yerr=half, fmt="o", ms=2.2, lw=0.7, color=colour, ecolor=colour,
                elinewidth=0.6, capsize=0)
    ax.set_title(title, fontsize=9)
    ax.set_xlim(0, len(mean) + 1)
    ax.tick_params(labelsize=7)
    ax.grid(axis="y", color="0.9")


def _trend_figure(plt, dm: DecisionMatrix, family: str):
    """Rows = depths; left the measure, right A_p; runs in the order of the first depth."""
    n = len(dm.depths)
    fig, axes = plt.subplots(n, 2, figsize=(10, 1.9 * n + 0.7), squeeze=False,
                             layout="constrained")
    first, _ = dm.means(family, dm.depths[0])
    order = np.lexsort((np.arange(len(first)), -first))
    for row, d in zip(axes, dm.depths, strict=True):
        pm, ph, am, ah = dm.intervals(family, d)
        _panel(row[0], pm[order], ph[order], f"{family}@{d}", "tab:blue")
        _panel(row[1], am[order], ah[order], dm.assessment_name(d), "tab:orange")
        row[1].set_ylim(-0.02, 1.02)
    for ax in axes[-1]:
        ax.set_xlabel(f"runs by {family}@{dm.depths[0]}", fontsize=8)
    fig.suptitle(f"{family} and A_p by depth: mean over {len(dm.topics)} topics, intervals "
                 f"adjusted for {dm.pairs_count} comparisons (alpha {dm.alpha:g}; disjoint = "
                 "different)", fontsize=9)
    return fig


def _tau_figure(plt, dm: DecisionMatrix):
    """Runs ranked by the measure at the deepest depth (MAP), with their A_p there."""
    tau = dm.ranking_tau()
    family, depth = tau["measure"].split("@")
    perf, assess = dm.means(family, int(depth))
    order = np.lexsort((np.arange(len(perf)), -perf))
    x = np.arange(1, len(perf) + 1)
    fig, ax = plt.subplots(figsize=(7, 3.6), layout="constrained")
    ax.plot(x, perf[order], "o", ms=3, color="tab:blue", label=tau["measure"])
    ax.set_ylabel(tau["measure"], color="tab:blue", fontsize=9)
    ax.set_xlabel(f"runs by {tau['measure']}", fontsize=9)
    right = ax.twinx()
    right.plot(x, assess[order], "^", ms=3, color="tab:orange", label=tau["assessment"])
    right.set_ylabel(tau["assessment"], color="tab:orange", fontsize=9)
    right.set_ylim(0, None)
    ax.set_title(f"{tau['runs']} runs by {tau['measure']} and their {tau['assessment']}: "
                 f"Kendall \u03c4 = {tau['kendall_tau']:.3f}", fontsize=10)
    ax.tick_params(labelsize=7)
    right.tick_params(labelsize=7)
    return fig
