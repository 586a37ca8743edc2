"""The report's first section: per measure, what the draws settle, what they leave open and
why, in sentences. Every number comes from unjudged.analysis.report_verdict; this only words
and escapes them."""

from __future__ import annotations

import html
from typing import Any

#: reversed pairs and twin groups named in the text; the rest are in the folded tables
SHOWN = 8


def _runs(names: list[str]) -> str:
    return ", ".join(f"<b>{html.escape(n)}</b>" for n in names)


def _more(items: list[str], what: str) -> str:
    """The first SHOWN items, and how many more are in the tables below."""
    shown = "; ".join(items[:SHOWN])
    rest = len(items) - SHOWN
    return shown + (f"; and {rest} more {what} (the tables below)" if rest > 0 else "")


def verdict_html(measure: str, v: dict[str, Any], tiers_table: str, judged: str,
                 against: str) -> str:
    """The verdict of one measure as HTML: a list of sentences and the folded tier table.
    `judged` names the Judged@k measure, `against` what section 2 compares ("neighbours" or
    "the baseline").

    Example:
        >>> v = {"runs": 2, "drawn": True, "pairs": 1, "settled_pairs": 1, "uncertain": 0,
        ...      "reversed": 0, "adjacent": 1, "adjacent_open": 0, "tiers": [(1, 1), (2, 2)],
        ...      "breaks": [1], "alone": ["a", "b"], "misplaced": [], "rank_width": (1, 1, 1),
        ...      "twins": {}, "median_width": 0.1, "median_gap": 0.2, "median_judged": 0.9,
        ...      "compared": 1, "alpha": 0.05, "significant": 1, "cases": {3: 1},
        ...      "weak_significant": 0, "tier_rows": []}
        >>> "settles the whole order" in verdict_html("P@1", v, "", "Judged@1", "neighbours")
        True
    """
    m = html.escape(measure)
    if not v["drawn"]:
        return (f'<h3>{m}</h3><p class="verdict">The bootstrap does not apply to {m}: the '
                "leaderboard shows its scores and bounds, with no verdict on the order.</p>")
    items = []
    only, topics = v.get("only_relevant", (0, 0))
    if only:
        items.append(
            f'<li class="attention"><b>Caution:</b> {only} of the {topics} topics have no '
            "non-relevant judgment, so the prior learns that their unjudged documents are "
            "relevant: what follows is the order under that assumption, not a verdict on the "
            "runs (see the notes).</li>")
    if v["settled_pairs"] == v["pairs"]:
        items.append(f"<li><b>Settled:</b> the data settles the whole order of the "
                     f'{v["runs"]} runs by {m}: every pair is ordered (or tied) in at least '
                     "95% of the draws.</li>")
    else:
        alone = (f'{len(v["alone"])} run(s) are settled against every other run: '
                 f'{_more([_runs([r]) for r in v["alone"]], "runs")}.' if v["alone"]
                 else "No run is settled against every other run.")
        breaks = ("Clear breaks (every run above settled ahead of every run below): after "
                  f'rank {_more([str(b) for b in v["breaks"]], "breaks")}.' if v["breaks"]
                  else "No clear break: no line splits the leaderboard into runs settled "
                  "ahead of all runs below.")
        items.append(f'<li><b>Settled:</b> {v["settled_pairs"]:,} of the {v["pairs"]:,} '
                     f"pairs of runs are ordered (or tied) in at least 95% of the draws. "
                     f"{alone} {breaks}</li>")
        mid, low, high = v["rank_width"]
        items.append(
            f'<li><b>Not settled:</b> {v["uncertain"]:,} pairs in uncertain order and '
            f'{v["reversed"]:,} reversed (the draws put the lower run ahead); '
            f'{v["adjacent_open"]} of the {v["adjacent"]} neighbouring rows could swap. A '
            f"run's 90% rank interval spans {mid:g} ranks (median; {low}-{high}).</li>")
    items.append(
        f'<li><b>Why:</b> neighbouring runs differ by {v["median_gap"]:.4f} (median), while '
        f"the unjudged documents leave a run's score open by {v['median_width']:.4f} (median "
        f"width of the 90% interval); median {html.escape(judged)} {v['median_judged']:.4f}. "
        "More judgments narrow the intervals (<code>unjudged plan</code> picks the documents "
        "that settle most). The topics are held fixed: this says nothing of other topics "
        "(section 2's tests do).</li>")
    if v["misplaced"]:
        runs = [f"{_runs([run])} (rank {rank}; interval {lo}-{hi})"
                for rank, run, lo, hi in v["misplaced"]]
        items.append(
            f'<li class="attention"><b>Needs attention (highlighted):</b> '
            f'{len(runs)} runs are listed outside their own 90% rank interval: the '
            "leaderboard, which counts unjudged documents non-relevant, puts them where the "
            f'draws rarely do: {_more(runs, "runs")}.</li>')
    if v["twins"]:
        groups = [_runs([first, *rest]) for first, rest in v["twins"].items()]
        items.append(
            f"<li><b>Twins:</b> {len(groups)} group(s) of runs score the same in at least 95% "
            f'of the draws (settled: equal): {_more(groups, "groups")}. The later twins are '
            "greyed in the leaderboard.</li>")
    weak = (f'; {v["weak_significant"]} of them with a winner that is also significantly '
            "more judged (case 4, highlighted): more judgments could change them"
            if v["weak_significant"] else "")
    items.append(
        f'<li><b>Over topics:</b> {v["significant"]} of the {v["compared"]} comparisons with '
        f'{html.escape(against)} differ significantly (paired t-test, p &lt; {v["alpha"]:g}, '
        f"not corrected){weak}.</li>")
    folded = (f'<details><summary>The {len(v["tiers"])} tiers of {m} (runs between two '
              f"breaks)</summary>{tiers_table}</details>" if 1 < len(v["tiers"]) < v["runs"]
              else "")
    return f'<h3>{m}</h3><ul class="verdict">{"".join(items)}</ul>{folded}'
