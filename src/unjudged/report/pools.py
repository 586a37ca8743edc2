"""Summaries of pools and judgment coverage (presentation only)."""

from __future__ import annotations

from unjudged.data.topic_order import natural_key
from unjudged.report.rows import render_rows


def pool_summary(pool, fmt: str = "table") -> str:
    """Per-topic pool sizes, then each run's contribution and unique contribution."""
    sizes = pool.sizes().tolist()
    topics = [{"topic": t, "pooled": n} for t, n in sorted(zip(pool.topics, sizes, strict=True),
                                                            key=lambda x: natural_key(x[0]))]
    topics.append({"topic": "all", "pooled": len(pool)})
    unique_run = pool.unique_by_run().tolist()
    unique_group = pool.unique_by_group().tolist()
    runs = [{"run": r, "group": pool.groups[g], "contributed": int(c), "unique": u,
             "group_unique": unique_group[g]}
            for r, g, c, u in zip(pool.runs, pool.run_group.tolist(), pool.contributed.tolist(),
                                  unique_run, strict=True)]
    ranks = f"ranks {pool.from_rank}-{pool.depth}" if pool.from_rank > 1 else \
        f"depth {pool.depth}"
    note = f"; {pool.excluded} already judged left out" if pool.excluded else ""
    if fmt == "jsonl":
        return (render_rows([{"kind": "topic", **t} for t in topics], ["kind", "topic", "pooled"],
                            fmt) +
                render_rows([{"kind": "run", **r} for r in runs],
                            ["kind", "run", "group", "contributed", "unique", "group_unique"],
                            fmt))
    title = (f"pool of {len(pool.runs)} runs from {len(pool.groups)} groups, {ranks}: "
             f"{len(pool)} documents over {len(pool.topics)} topics{note}")
    return (render_rows(topics, ["topic", "pooled"], fmt, title=title if fmt == "table"
                        else None) + "\n" +
            render_rows(runs, ["run", "group", "contributed", "unique", "group_unique"], fmt))


def coverage_table(cov, fmt: str = "table", pool_depth: int = 5) -> str:
    """One row per run: judged fraction per rank band, judged depth, whether the run looks
    pooled, and the unjudged documents judging it would add."""
    names = [f"judged@{a}-{b}" if a != b else f"judged@{a}" for a, b in cov.bands]
    rows = []
    for r in cov.runs:
        row = {"run": r.run, **{n: float(v) for n, v in zip(names, r.band_judged, strict=True)}}
        low, median = r.judged_to_range()
        row.update({"judged_to_min": low, "judged_to_median": median,
                    "looks_pooled": r.looks_pooled(pool_depth), "unjudged": r.unjudged,
                    "unique_unjudged": r.unique})
        rows.append(row)
    cols = ["run", *names, "judged_to_min", "judged_to_median", "looks_pooled", "unjudged",
            "unique_unjudged"]
    if fmt != "table":
        return render_rows(rows, cols, fmt, decimals=4)
    pooled = sum(r["looks_pooled"] for r in rows)
    title = (f"{len(rows)} runs, {pooled} judged to depth {pool_depth} on every topic (look "
             f"pooled); judging every run to depth {cov.depth} would add {cov.to_add} documents")
    return render_rows(rows, cols, fmt, decimals=3, title=title)
