"""The report's figures as PNG bytes. They draw numbers from unjudged.analysis.report_data; the only
arithmetic here is layout (sizes, bins of a histogram)."""

from __future__ import annotations

import io
import math
from typing import Any

import numpy as np

from unjudged.report._mpl import pyplot, shown

#: Modest resolution: 143 runs stay a few MB of page while text remains legible on screen.
DPI = 80


def png_bytes(fig) -> bytes:
    """The figure as PNG bytes (and closed, so many figures do not pile up in memory)."""
    plt = pyplot()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI)
    plt.close(fig)
    return buf.getvalue()


def leaderboard_figure(rows: list[dict[str, Any]], measure: str) -> bytes:
    """Per run (best on top): the [nonrel, upper] bounds as a thin line, the bootstrap 90%
    interval as a bar (orange where it overlaps a neighbour's), the bootstrap point estimate
    and the condensed score as marks."""
    plt = pyplot()
    n = len(rows)
    fig, ax = plt.subplots(figsize=(8, 1.5 + 0.16 * n), layout="constrained")
    y = np.arange(n)[::-1]
    get = {k: np.array([r[k] for r in rows], dtype=float)
           for k in ("nonrel", "upper", "p5", "p95", "bootstrap", "condensed")}
    colour = ["tab:orange" if r["overlap"] else "tab:blue" for r in rows]
    ax.hlines(y, get["nonrel"], get["upper"], color="0.55", lw=1, label="[nonrel, upper]")
    ax.barh(y, get["p95"] - get["p5"], left=get["p5"], height=0.6, color=colour, alpha=0.6,
            label="bootstrap 90% interval")
    ax.plot(get["bootstrap"], y, "k|", ms=8, label="bootstrap estimate")
    ax.plot(get["condensed"], y, "g.", ms=4, label="condensed")
    ax.set_yticks(y, [shown(r["run"]) for r in rows], fontsize=7 if n > 30 else 8)
    ax.set_ylim(-0.8, n - 0.2)
    ax.set_xlabel(measure)
    ax.grid(axis="x", lw=0.3)
    # zero-width intervals at the edge would sit on the frame: pad the range a little
    ends = np.r_[get["nonrel"], get["p5"], get["upper"], get["p95"]]
    ends = ends[np.isfinite(ends)]  # a strategy that does not apply to a measure is NaN
    if ends.size:
        pad = 0.04 * (ends.max() - ends.min()) + 0.01
        ax.set_xlim(ends.min() - pad, ends.max() + pad)
    fig.legend(fontsize=7, loc="outside lower center", ncol=4, frameon=False)
    ax.set_title(f"{measure}: orange bars overlap a neighbour's (ranks may swap)", fontsize=9)
    return png_bytes(fig)


def panel_figure(r, order: list[int], point: str) -> bytes:
    """Seed 000 Figure 1 for one run and its first measure: per topic a histogram of the
    bootstrapped scores with nonrel, condensed, upper and the point estimate, topics in
    `order` (most uncertain first)."""
    from unjudged.report.plots import _MARKS

    plt = pyplot()
    order = [t for t in order if not np.isnan(r.samples[0, t, 0])]
    n = max(len(order), 1)
    cols = min(8, n)
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(1.7 * cols, 1.25 * rows + 0.6),
                             squeeze=False, sharex=True)
    bounded = r.measures[0].spec.bounded == (0.0, 1.0)
    bins = np.linspace(0, 1, 31) if bounded else 30
    # the grid (rows x 8) can have more axes than topics: the spare ones stay empty
    for ax, t in zip(axes.ravel(), order, strict=False):
        ax.hist(r.samples[:, t, 0], bins=bins, color="0.75")
        for method, colour, style in _MARKS:
            ax.axvline(r.points[method][t, 0], color=colour, ls=style, lw=1, label=method)
        ax.axvline(r.point[t, 0], color="black", lw=1, label=f"bootstrap {point}")
        ax.set_title(shown(r.topics[t]), fontsize=7, pad=2)
        ax.tick_params(labelsize=6)
        ax.set_yticks([])
    for ax in axes.ravel()[len(order):]:
        ax.set_visible(False)
    handles, labels = axes.ravel()[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=7, frameon=False)
    fig.suptitle(f"{shown(r.run)}: bootstrapped {r.measures[0].name} per topic, most uncertain "
                 "first", fontsize=9)
    fig.tight_layout(rect=(0, 0.06, 1, 0.95))
    return png_bytes(fig)


def judgments_figure(rows: list[dict[str, Any]]) -> bytes:
    """Fraction of judged documents that are relevant per topic, with the one-third line."""
    plt = pyplot()
    rows = [r for r in rows if r["topic"] != "all"]
    fig, ax = plt.subplots(figsize=(8, 2.8), layout="constrained")
    x = np.arange(len(rows))
    frac = np.array([r["relevant_fraction"] for r in rows], dtype=float)
    ax.bar(x, frac, color=["tab:red" if r["warn"] else "tab:blue" for r in rows])
    ax.axhline(1 / 3, color="k", ls="--", lw=0.8, label="one third")
    ax.set_xticks(x, [shown(r["topic"]) for r in rows], fontsize=6, rotation=90)
    ax.set(ylabel="relevant / judged", ylim=(0, 1), title="Relevant share of the judged "
           "documents per topic (red: above one third)")
    ax.legend(fontsize=7)
    return png_bytes(fig)


def coverage_figure(cov, pool_depth: int) -> bytes:
    """unjudged.report.plots.plot_coverage, as PNG bytes."""
    from unjudged.report.plots import plot_coverage

    buf = io.BytesIO()
    plot_coverage(cov, buf, pool_depth)  # savefig writes PNG to a buffer as to a .png path
    return buf.getvalue()
