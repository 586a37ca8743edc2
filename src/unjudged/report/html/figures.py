"""The report's figures as PNG bytes. They draw numbers from unjudged.analysis.report_data; the only
arithmetic here is layout (sizes, bins of a histogram)."""

from __future__ import annotations

import io
import math
from typing import Any

import numpy as np

from unjudged.report._mpl import pyplot, short

#: Modest resolution: 143 runs stay a few MB of page while text remains legible on screen.
DPI = 80
#: Every text of a figure, in points: 9 pt at DPI 80 is 10 px, readable at the figure's size.
FONT = 9
#: Figures are at most this wide (inches; 760 px at DPI 80), so that they show at their own
#: size, not shrunk, in a page as narrow as 800 px (the page's column is then 772 px).
MAX_WIDTH = 9.5


def png_bytes(fig) -> bytes:
    """The figure as PNG bytes (and closed, so many figures do not pile up in memory)."""
    plt = pyplot()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI)
    plt.close(fig)
    return buf.getvalue()


def leaderboard_figure(rows: list[dict[str, Any]], measure: str) -> bytes:
    """Per run (best on top): the [nonrel, upper] bounds as a thin line, the bootstrap 90%
    interval as a bar (orange where the run's order against a neighbour is uncertain or
    reversed), the bootstrap point estimate and the condensed score as marks."""
    plt = pyplot()
    n = len(rows)
    fig, ax = plt.subplots(figsize=(8, 1.6 + 0.18 * n), layout="constrained")
    y = np.arange(n)[::-1]
    get = {k: np.array([r[k] for r in rows], dtype=float)
           for k in ("nonrel", "upper", "lo", "hi", "bootstrap", "condensed")}
    colour = ["tab:orange" if r["unsettled"] else "tab:blue" for r in rows]
    ax.hlines(y, get["nonrel"], get["upper"], color="0.55", lw=1, label="[nonrel, upper]")
    ax.barh(y, get["hi"] - get["lo"], left=get["lo"], height=0.6, color=colour, alpha=0.6,
            label="bootstrap 90% interval")
    ax.plot(get["bootstrap"], y, "k|", ms=8, label="bootstrap estimate")
    ax.plot(get["condensed"], y, "g.", ms=4, label="condensed")
    ax.set_yticks(y, [short(r["run"]) for r in rows], fontsize=FONT)
    ax.tick_params(axis="x", labelsize=FONT)
    ax.set_ylim(-0.8, n - 0.2)
    ax.set_xlabel(measure, fontsize=FONT)
    ax.grid(axis="x", lw=0.3)
    # zero-width intervals at the edge would sit on the frame: pad the range a little
    ends = np.r_[get["nonrel"], get["lo"], get["upper"], get["hi"]]
    ends = ends[np.isfinite(ends)]  # a strategy that does not apply to a measure is NaN
    if ends.size:
        pad = 0.04 * (ends.max() - ends.min()) + 0.01
        ax.set_xlim(ends.min() - pad, ends.max() + pad)
    fig.legend(fontsize=FONT, loc="outside lower center", ncol=4, frameon=False)
    ax.set_title(f"{measure}: orange: the order against a neighbour is not settled",
                 fontsize=FONT + 1)
    return png_bytes(fig)


def panel_figure(r, order: list[int], point: str) -> bytes:
    """Seed 000 Figure 1 for one run and its first measure: per topic a histogram of the
    bootstrapped scores (the share of the draws per bin on the y-axis) with nonrel, condensed,
    upper and the point estimate, topics in `order` (most uncertain first)."""
    return png_bytes(panel_fig(r, order, point))


#: topics per row of the per-topic figure
PANEL_COLUMNS = 5


def panel_fig(r, order: list[int], point: str):
    """The matplotlib figure of panel_figure (tests read its texts and sizes)."""
    from matplotlib.ticker import MaxNLocator

    from unjudged.report.plots import _MARKS

    plt = pyplot()
    order = [t for t in order if not np.isnan(r.samples[0, t, 0])]
    n = max(len(order), 1)
    cols = min(PANEL_COLUMNS, n)
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(MAX_WIDTH, 1.6 * rows + 1.0), squeeze=False,
                             sharex=True, layout="constrained")
    bounded = r.measures[0].spec.bounded == (0.0, 1.0)
    bins = np.linspace(0, 1, 31) if bounded else 30
    name = r.measures[0].name
    # the grid (rows x cols) can have more axes than topics: the spare ones stay empty
    for i, (ax, t) in enumerate(zip(axes.ravel(), order, strict=False)):
        draws = r.samples[:, t, 0]
        ax.hist(draws, bins=bins, color="0.75", weights=np.full(draws.size, 1 / draws.size))
        for method, colour, style in _MARKS:
            ax.axvline(r.points[method][t, 0], color=colour, ls=style, lw=1, label=method)
        ax.axvline(r.point[t, 0], color="black", lw=1, label=f"bootstrap {point}")
        ax.set_title(f"topic {short(r.topics[t], 20)}", fontsize=FONT, pad=2)
        ax.tick_params(labelsize=FONT)
        ax.yaxis.set_major_locator(MaxNLocator(nbins=3))
        if i % cols == 0:
            ax.set_ylabel("share of draws", fontsize=FONT)
        if i + cols >= len(order):  # nothing drawn below: this panel carries the x-axis
            ax.xaxis.set_tick_params(labelbottom=True)
            ax.set_xlabel(name, fontsize=FONT)
    for ax in axes.ravel()[len(order):]:
        ax.set_visible(False)
    handles, labels = axes.ravel()[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=4, fontsize=FONT,
               frameon=False)
    fig.suptitle(f"{short(r.run)}: bootstrapped {name} per topic, most uncertain first",
                 fontsize=FONT + 1)
    return fig


def judgments_figure(rows: list[dict[str, Any]]) -> bytes:
    """Fraction of judged documents that are relevant per topic (in the order of `rows`), with
    the one-third line. With many topics only every k-th is labelled, so labels never overlap.
    """
    plt = pyplot()
    rows = [r for r in rows if r["topic"] != "all"]
    fig, ax = plt.subplots(figsize=(8, 3.0), layout="constrained")
    x = np.arange(len(rows))
    frac = np.array([r["relevant_fraction"] for r in rows], dtype=float)
    ax.bar(x, frac, color=["tab:red" if r["warn"] else "tab:blue" for r in rows])
    ax.axhline(1 / 3, color="k", ls="--", lw=0.8, label="one third")
    every = max(1, math.ceil(len(rows) / 50))  # 50 labels of 10 px fit the 640 px figure
    ax.set_xticks(x[::every], [short(r["topic"], 16) for r in rows][::every], fontsize=FONT,
                  rotation=90)
    ax.tick_params(axis="y", labelsize=FONT)
    ax.set_ylim(0, 1)
    ax.set_xlabel("topic" + (f" (one label in {every})" if every > 1 else ""),
                  fontsize=FONT)
    ax.set_ylabel("relevant / judged", fontsize=FONT)
    ax.set_title("Relevant share of the judged documents per topic (red: above one third)",
                 fontsize=FONT + 1)
    ax.legend(fontsize=FONT)
    return png_bytes(fig)


def coverage_figure(cov, pool_depth: int) -> bytes:
    """unjudged.report.plots.plot_coverage, as PNG bytes."""
    from unjudged.report.plots import plot_coverage

    buf = io.BytesIO()
    plot_coverage(cov, buf, pool_depth)  # savefig writes PNG to a buffer as to a .png path
    return buf.getvalue()
