"""Figure of the diversity-sampling experiment in the style of seed 004, Figure 1: Kendall's tau
against the sampling percentage (log x), one panel per reference measure; dashed lines for the
reference measure itself on raw and condensed lists, solid ones for the divergence measures.
Matplotlib is imported lazily (Agg backend)."""

from __future__ import annotations

from typing import Any

from unjudged.report._mpl import pyplot, save_figure

_MARKERS = ("o", "s", "^", "D", "v", "P")


def _series(rows: list[dict[str, Any]], reference: str) -> dict[str, list[tuple]]:
    """{estimator: [(p, tau, sd)]} for the panel of `reference`: its own raw and condensed
    versions and every estimator that is not another reference's."""
    refs = {r["reference"] for r in rows}
    out: dict[str, list[tuple]] = {}
    for r in rows:
        if r["reference"] != reference:
            continue
        own = r["estimator"].rsplit(" ", 1)[0]
        if own in refs and own != reference:
            continue
        out.setdefault(r["estimator"], []).append((r["p"], r["tau"], r["sd"]))
    return out


def plot_diversity_sampling(rows: list[dict[str, Any]], path: str, title: str | None = None
                            ) -> str:
    """Draw DiversitySweep.table() rows to `path` (.png, .pdf, .svg); returns `path`.

    Bands are one standard deviation over repetitions.
    """
    plt = pyplot()
    references = list(dict.fromkeys(r["reference"] for r in rows))
    fig, axes = plt.subplots(1, len(references), squeeze=False, sharey=True,
                             figsize=(4.2 * len(references), 3.6 + (0.3 if title else 0)))
    for ax, reference in zip(axes[0], references, strict=True):
        for i, (name, points) in enumerate(_series(rows, reference).items()):
            points.sort()
            p, tau, sd = (list(x) for x in zip(*points, strict=True))
            cascade = name.startswith(reference)
            label = name[len(reference) + 1:] + " list" if cascade else name
            line, = ax.plot(p, tau, "--" if cascade else "-", marker=_MARKERS[i % len(_MARKERS)],
                            markersize=3.5, linewidth=1.2, label=label,
                            color="0.2" if cascade and "raw" in name else
                            "0.55" if cascade else None)
            ax.fill_between(p, [a - b for a, b in zip(tau, sd, strict=True)],
                            [a + b for a, b in zip(tau, sd, strict=True)], color=line.get_color(),
                            alpha=0.07, linewidth=0)
        ax.set_xscale("log")
        ticks = sorted({r["p"] for r in rows})
        ax.set_xticks(ticks, [f"{t:g}" for t in ticks])
        ax.minorticks_off()
        ax.set_xlabel("p% of the judgments kept", fontsize=9)
        ax.set_title(f"reference: {reference}", fontsize=10)
        ax.grid(alpha=0.3, linewidth=0.5)
        ax.tick_params(labelsize=8)
    axes[0][0].set_ylabel("Kendall's tau vs full judgments", fontsize=9)
    axes[0][-1].legend(fontsize=7, loc="lower right")
    if title:
        fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    save_figure(fig, path, dpi=80)
    return path
