"""Render strategy estimates (tables, TSV/CSV, JSON lines) and write bootstrap samples."""

from __future__ import annotations

import io
import json
from typing import Any

import numpy as np

from unjudged.engine.estimate import expand_methods, has_interval, is_random
from unjudged.io.atomic import write_file
from unjudged.report.rows import row_writer, safe_text
from unjudged.strategies.registry import STRATEGIES
from unjudged.strategies.summaries import STATS

#: p_lo, p_hi: the share of the draws on each end of the interval (a distribution of a few
#: values puts much of its mass there: docs/unjudged-documents.md)
_LONG = ["run", "topic", "measure", "method", "value", "lo", "hi", *STATS, "p_lo", "p_hi"]
_DRAWN = ("lo", "hi", *STATS, "p_lo", "p_hi")  # what a random strategy's rows add to `value`
_MOMENTS = ("lo", "hi", "mean", "std")  # what an expectation's rows add to `value`


def render_estimates(est, fmt: str = "table", per_topic: bool = False,
                     extra: tuple[list[dict], list[str], list[str]] | None = None) -> str:
    """Text of the estimates: one row per (run, topic, measure, method) in tsv/csv/jsonl, values
    in full (Python's repr of the float); a wide, aligned table (one column per method, 4
    decimals) otherwise. `extra`: (rows, methods, notes) of methods estimated apart, each row
    with value, lo and hi; the judges' `ppi` rows (est.judged: estimate_runs(judge=...)) come
    with the estimate's own rows."""
    more, extra_methods, extra_notes = extra if extra is not None else ([], [], [])
    judged = getattr(est, "judged", None)
    if judged is not None:
        extra_methods, extra_notes = [*judged.methods, *extra_methods], [*judged.notes,
                                                                         *extra_notes]
    rows = rows_with(est, per_topic, more)
    if fmt == "jsonl":
        out = []
        drawn = {m: is_random(m) for m in expand_methods(est.methods)}
        spread = {m: has_interval(m) for m in drawn}
        for r in rows:
            keep = ("lo", "hi") if r["method"] in extra_methods else _DRAWN if \
                drawn[r["method"]] else _MOMENTS if spread[r["method"]] else ()
            item = {k: r[k] for k in ("run", "topic", "measure", "method")}
            item["value"] = r["value"]
            item.update({k: r[k] for k in keep})
            out.append(json.dumps(item) + "\n")
        return "".join(out)
    if fmt in ("tsv", "csv"):
        return _delimited(rows, _LONG, fmt)
    return _wide(rows, est, extra_methods, extra_notes)


def rows_with(est, per_topic: bool, more: list[dict]) -> list[dict]:
    """The estimate's rows and the rows of methods estimated apart."""
    return list(est.rows(per_topic)) + list(more)


def _delimited(rows: list[dict], header: list[str], fmt: str) -> str:
    """tsv or csv: the header, then each row's `header` fields (missing ones empty)."""
    buf = io.StringIO()
    writerow = row_writer(buf, fmt)
    writerow(header)
    safe = safe_text(fmt)
    for r in rows:
        writerow([_cell(r.get(k), safe) for k in header])
    return buf.getvalue()


def _cell(v, safe) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return repr(float(v))
    return safe(v) if isinstance(v, str) else str(v)


def _wide(rows: list[dict], est, extra_methods: tuple[str, ...] | list[str] = (),
          extra_notes: tuple[str, ...] | list[str] = ()) -> str:
    """run, topic, measure, then one column per method; a random strategy (the bootstrap)
    shows its point estimate and its interval (lo-hi, of the estimate's `interval` level), an
    expectation its interval too."""
    methods = expand_methods(est.methods) + list(extra_methods)  # in report order
    drawn = {m: has_interval(m) or m in extra_methods for m in methods}
    header = ["run", "topic", "measure"]
    level = f"{100 * est.interval:g}%"
    for m in methods:
        label = f"{m}({est.point})" if is_random(m) else m
        header += [label, f"lo-hi({level})"] if drawn[m] else [m]
    table: dict[tuple, dict] = {}
    for r in rows:
        table.setdefault((r["run"], r["topic"], r["measure"]), {})[r["method"]] = r
    body = []
    safe = safe_text("table")
    for (run, topic, measure), got in table.items():
        line = [safe(run), safe(topic), safe(measure)]
        for m in methods:
            cell = got.get(m)
            if drawn[m]:
                line += ["-", "-"] if cell is None else [f"{cell['value']:.4f}",
                                                         f"{cell['lo']:.4f}-{cell['hi']:.4f}"]
            else:
                line.append("-" if cell is None else f"{cell['value']:.4f}")
        body.append(line)
    widths = [max(len(x[c]) for x in [header] + body) for c in range(len(header))]
    text = ["  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)).rstrip()]
    text += ["  ".join(c.ljust(w) if i < 3 else c.rjust(w)
                       for i, (c, w) in enumerate(zip(line, widths, strict=True))).rstrip()
             for line in body]
    # each reported strategy's note: the deterministic ones', then the random one's settings
    shown = sorted((STRATEGIES[n] for n in est.methods if n in STRATEGIES),
                   key=lambda s: s.random)
    note = "".join(s.note.format(b=est.b, prior=prior_label(est), seed=est.seed, point=est.point,
                                 interval=level, normalisers=normalisers(est.grow),
                                 covers=covers(est))
                   + "\n" for s in shown if s.note)
    note += "".join(line + "\n" for line in extra_notes)
    return "\n".join(text) + "\n" + note


def covers(est) -> str:
    """What the intervals cover, for the notes."""
    if est.population == "topics":
        return ("per topic: its unjudged documents; per run, P(A > B) and ranks: also the "
                "sampling of topics, a bootstrap over topics in every iteration")
    return "uncertainty from the unjudged documents only: the topics are fixed"


def prior_label(est) -> str:
    """The prior as notes name it, with the runs that defined its pool context."""
    return f"{est.prior} [pool context: {est.reference}]" if est.reference else est.prior


def normalisers(grow: bool) -> str:
    """How the bootstrap's normalisers (ideal DCG, R) were taken, for its notes."""
    return ("grown by the drawn relevant documents (not comparable with scores on the pool)"
            if grow else "the pool's (comparable with scores on the pool)")


def write_samples(est, path: str) -> None:
    """Every bootstrap sample: .npz (one (b, topics, measures) array per run, with the topic
    and measure names) or .parquet (one row per run, topic and measure; `samples` a list)."""
    buf = io.BytesIO()
    if path.endswith(".npz"):
        arrays: dict[str, Any] = {"measures": np.array([m.name for m in est.runs[0].measures]
                                       if est.runs else [], dtype=str)}
        for i, r in enumerate(est.runs):
            arrays[f"run{i}_name"] = np.array(r.run)
            arrays[f"run{i}_topics"] = np.array(r.topics, dtype=str)
            arrays[f"run{i}_samples"] = r.samples
        np.savez_compressed(buf, **arrays)
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        runs, topics, measures, lists = [], [], [], []
        for r in est.runs:
            for t, topic in enumerate(r.topics):
                for i, m in enumerate(r.measures):
                    if np.isnan(r.samples[0, t, i]):
                        continue
                    runs.append(r.run)
                    topics.append(topic)
                    measures.append(m.name)
                    lists.append(r.samples[:, t, i])
        table = pa.table({
            "run": pa.array(runs, pa.string()), "topic": pa.array(topics, pa.string()),
            "measure": pa.array(measures, pa.string()),
            "samples": pa.array([x.tolist() for x in lists], pa.list_(pa.float64()))})
        pq.write_table(table, buf)
    write_file(path, buf.getbuffer())  # no second copy of the samples


_PAIRS = ["run_a", "run_b", "measure", "p_a_better"]


def render_pairs(est, fmt: str = "table",
                 extra: tuple[list[dict], list[str]] | None = None) -> str:
    """P(A > B) for every ordered pair of runs and measure (Estimates.pair_rows): jsonl keys
    run_a, run_b, measure, p_a_better; tsv/csv with that header; an aligned table otherwise.
    `extra`: (rows, notes) of P(A > B) from other coupled draws (the judges' `ppi`), each row
    with a `method`; then every row has one (the bootstrap's: "bootstrap")."""
    rows = est.pair_rows()
    keys = _PAIRS
    if extra is not None:
        keys = [*_PAIRS, "method"]
        rows = [{**r, "method": "bootstrap"} for r in rows] + list(extra[0])
    if fmt == "jsonl":
        return "".join(json.dumps({k: r[k] for k in keys}) + "\n" for r in rows)
    if fmt in ("tsv", "csv"):
        return _delimited(rows, keys, fmt)
    safe = safe_text("table")
    body = [[safe(r["run_a"]), safe(r["run_b"]), safe(r["measure"]), f"{r['p_a_better']:.4f}"]
            + ([safe(r["method"])] if extra is not None else []) for r in rows]
    widths = [max(len(x[c]) for x in [keys] + body) for c in range(len(keys))]
    lines = ["  ".join(h.ljust(w) for h, w in zip(keys, widths, strict=True)).rstrip()]
    lines += ["  ".join(c.ljust(w) if i != 3 else c.rjust(w)
                        for i, (c, w) in enumerate(zip(line, widths, strict=True))).rstrip()
              for line in body]
    note = (f"# P(A > B): share of the {est.b} coupled bootstrap iterations "
            f"(prior={prior_label(est)}, "
            f"seed={est.seed}, normalisers {normalisers(est.grow)}) in which run A's score is "
            f"above run B's ({covers(est)}).\n")
    note += "".join(line + "\n" for line in (extra[1] if extra is not None else []))
    return "\n".join(lines) + "\n" + note
