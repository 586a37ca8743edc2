"""The report's verdict: what the leaderboard's draws settle and what they leave open.

    verdict(rows, orders, pairs) -> dict      one measure's summary, for the top of the page

Computed from unjudged.analysis.report_data's rows (the HTML layer only lays it out). A "tier"
is a run of consecutive leaderboard rows that no settled order separates: every run of a tier
is settled ahead of every run of the tiers below it (ahead in at least 95% of the draws, or
tied as often), while some pair inside a tier of two or more is not; a "break" is the line
between two tiers. Long leaderboards of close runs often have few breaks, so the verdict also
gives the width of the rank intervals. Twins are neighbours that score the same in at least 95%
of the draws: their order is settled (equal), and they are named once.
"""

from __future__ import annotations

from statistics import median
from typing import Any


def tiers(n: int, orders: list[dict[str, Any]]) -> list[tuple[int, int]]:
    """(first, last) ranks (1-based) of each tier of `n` ranked runs, given the unsettled
    pairs `orders` (rank_a above rank_b).

    Example:
        >>> tiers(5, [{"rank_a": 1, "rank_b": 3}, {"rank_a": 4, "rank_b": 5}])
        [(1, 3), (4, 5)]
        >>> tiers(3, [])
        [(1, 1), (2, 2), (3, 3)]
    """
    crossed = [False] * max(n - 1, 0)  # crossed[i]: a pair spans the cut below rank i + 1
    for o in orders:
        for cut in range(o["rank_a"] - 1, o["rank_b"] - 1):
            crossed[cut] = True
    out, start = [], 1
    for cut, joined in enumerate(crossed, start=1):
        if not joined:
            out.append((start, cut))
            start = cut + 1
    if n:
        out.append((start, n))
    return out


def verdict(rows: list[dict[str, Any]], orders: list[dict[str, Any]],
            pairs: list[dict[str, Any]], alpha: float = 0.05) -> dict[str, Any]:
    """One measure's verdict from its leaderboard `rows` (rank order, with rank, rank_lo/hi,
    lo/hi, judged, uncertain/reversed, twin_of), its unsettled pairs `orders` and its pairwise
    tests `pairs` (significant below `alpha`). Sets each row's "tier" (1-based),
    "break_above" (a settled break between it and the row above) and "attention" (listed
    outside its own 90% rank interval: the leaderboard puts it where the draws rarely do);
    returns the counts the page states first. Without draws (rank_lo None): the counts of rows.

    Example:
        >>> rows = [{"run": r, "rank": k, "score": s, "lo": s - .1, "hi": s + .1, "judged": .8,
        ...          "rank_lo": lo, "rank_hi": hi, "uncertain": u, "reversed": 0,
        ...          "twin_of": None}
        ...         for r, k, s, lo, hi, u in (("a", 1, .5, 1, 1, 0), ("b", 2, .3, 3, 3, 1),
        ...                                    ("c", 3, .29, 2, 2, 1))]
        >>> v = verdict(rows, [{"rank_a": 2, "rank_b": 3, "run_a": "b", "run_b": "c",
        ...                     "order": "reversed"}], [])
        >>> v["tiers"], v["breaks"], v["settled_pairs"], v["alone"]
        ([(1, 1), (2, 3)], [1], 2, ['a'])
        >>> [(r["tier"], r["break_above"], r["attention"]) for r in rows]
        [(1, False, False), (2, True, True), (2, False, True)]
    """
    n = len(rows)
    drawn = bool(rows) and rows[0].get("rank_lo") is not None
    tiers_ = tiers(n, orders) if drawn else [(1, n)] if n else []
    for t, (first, last) in enumerate(tiers_, start=1):
        for row in rows[first - 1:last]:
            row["tier"] = t
            row["break_above"] = drawn and row is rows[first - 1] and t > 1
    for row in rows:
        row["attention"] = drawn and not row["rank_lo"] <= row["rank"] <= row["rank_hi"]
    reversed_ = [o for o in orders if o["order"] == "reversed"]
    gaps = [a["score"] - b["score"] for a, b in zip(rows, rows[1:], strict=False)]
    adjacent = {(o["rank_a"], o["rank_b"]) for o in orders if o["rank_b"] == o["rank_a"] + 1}
    widths = [r["rank_hi"] - r["rank_lo"] + 1 for r in rows] if drawn else []
    twins: dict[str, list[str]] = {}
    for row in rows:
        if row.get("twin_of"):
            twins.setdefault(row["twin_of"], []).append(row["run"])
    cases: dict[int, int] = {}
    for p in pairs:
        if p.get("case") is not None:
            cases[int(p["case"])] = cases.get(int(p["case"]), 0) + 1
    tier_rows = [{"tier": t, "ranks": f"{a}-{b}" if b > a else str(a), "size": b - a + 1,
                  "runs": ", ".join(r["run"] for r in rows[a - 1:b])}
                 for t, (a, b) in enumerate(tiers_, start=1)]
    return {
        "runs": n, "drawn": drawn, "pairs": n * (n - 1) // 2, "tier_rows": tier_rows,
        "uncertain": len(orders) - len(reversed_), "reversed": len(reversed_),
        "settled_pairs": n * (n - 1) // 2 - len(orders),
        "adjacent": max(n - 1, 0), "adjacent_open": len(adjacent),
        "tiers": tiers_, "breaks": [b for _, b in tiers_[:-1]] if drawn else [],
        "alone": [r["run"] for r in rows if drawn and r["uncertain"] == 0
                  and r["reversed"] == 0],
        "misplaced": [(r["rank"], r["run"], r["rank_lo"], r["rank_hi"]) for r in rows
                      if r["attention"]],
        "rank_width": (median(widths), min(widths), max(widths)) if widths else None,
        "twins": twins,
        "median_width": median([r["hi"] - r["lo"] for r in rows]) if rows else float("nan"),
        "median_gap": median(gaps) if gaps else float("nan"),
        "median_judged": median([r["judged"] for r in rows]) if rows else float("nan"),
        "compared": len(pairs), "alpha": alpha,
        "significant": sum(p.get("p") is not None and p["p"] < alpha for p in pairs),
        "cases": cases, "weak_significant": cases.get(4, 0),
    }
