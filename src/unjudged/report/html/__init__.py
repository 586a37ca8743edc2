"""One self-contained HTML page showing how far a set of runs can be trusted.

    render_report(data, meta) -> Page     html text, the figures (PNG bytes), the tables
    page.write_pngs(dir), page.write_tables(dir)

Everything shown comes from unjudged.analysis.report_data; every string from the input (run names,
topic ids, file names, the command) is escaped, and images are inline data URIs so the file
opens without network access.
"""

from __future__ import annotations

import base64
import html
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from unjudged.io.atomic import check_targets, make_folder, write_file
from unjudged.report.html import tables as T
from unjudged.report.html.page import PAGE, figure_html, footer_html, notes_html
from unjudged.report.names import file_stems, note_files


@dataclass(eq=False)
class Page:
    """The rendered report: `html`, figures by file name and tables by file stem."""

    html: str
    figures: dict[str, bytes] = field(default_factory=dict)
    tables: dict[str, tuple[list[dict], list[tuple[str, str]]]] = field(default_factory=dict)

    #: figure file name -> the run it shows, where the file name is not simply the run's
    renamed: dict[str, str] = field(default_factory=dict)

    def write_pngs(self, folder: str) -> list[str]:
        """Write every figure as PNG into `folder` (created); returns the paths. Figures whose
        file name differs from their run's name are listed in one note on stderr."""
        out = self._write(folder, self.figures)
        note_files(self.renamed.items())
        return out

    def write_tables(self, folder: str) -> list[str]:
        """Write every table as TSV and JSON lines into `folder` (created); returns paths."""
        return self._write(folder, {f"{stem}.{ext}": text
                                    for stem, (rows, columns) in self.tables.items()
                                    for ext, text in T.text_tables(rows, columns).items()})

    @staticmethod
    def _write(folder: str, files: Mapping[str, bytes | str]) -> list[str]:
        """Every file checked before the first is written, each written whole."""
        paths = [os.path.join(folder, name) for name in files]
        make_folder(folder)
        check_targets(paths)
        for path, data in zip(paths, files.values(), strict=True):
            write_file(path, data)
        return paths


_HTML_UNSAFE = re.compile(r"[^A-Za-z0-9.-]+")


def natural_topics(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows with a "topic" in natural topic order (2 before 10), the total "all" last.

    Example:
        >>> [r["topic"] for r in natural_topics([{"topic": t} for t in ("1", "10", "2", "all")])]
        ['1', '2', '10', 'all']
    """
    from unjudged.data.topic_order import natural_key

    return sorted(rows, key=lambda r: (r["topic"] == "all", natural_key(str(r["topic"]))))


def _orders_html(table, stem: str, rows: list[dict[str, Any]], v: dict[str, Any]) -> str:
    """The pairs whose order is not settled, folded (there can be thousands); their counts are
    also in the verdict."""
    return (f"<details><summary>The {v['uncertain']:,} pairs of runs in uncertain order and "
            f"{v['reversed']:,} reversed (highlighted)</summary>"
            + table(stem, rows, T.ORDERS, mark="reversed_order") + "</details>")


def _folded(summary: str, body: str) -> str:
    return f"<details><summary>{summary}</summary>{body}</details>"


def _judges_html(table, judges: dict[str, Any]) -> str:
    """The judge section (report --judge): the ppi estimates with rank intervals and the
    judge lift, agreement, confusion and calibration (unjudged.judges.options.judge_tables)."""
    t = judges["tables"]
    levels = sorted({k for r in t["confusion"] for k in r if k.startswith("judge_")},
                    key=lambda k: int(k.split("_")[1]))
    parts = [f'<p class="note">{html.escape(judges["note"])}</p>',
             "<h3>Prediction-powered estimates</h3>",
             table("judge-estimates", t["estimates"], T.JUDGE_ESTIMATES, mark="lift_flag"),
             "<h3>Agreement with people</h3>",
             table("judge-agreement", t["agreement"], T.JUDGE_AGREEMENT),
             _folded("Confusion matrices (rows: people's grades; columns: the judge's)",
                     table("judge-confusion", t["confusion"],
                           [("judge", "judge"), ("human", "people")]
                           + [(k, f"judge {k.split('_')[1]}") for k in levels])),
             _folded("Calibration of the judge's probability of relevance",
                     table("judge-calibration", t["calibration"], T.JUDGE_CALIBRATION))]
    return ('<section id="judges"><h2>Automatic judges</h2>\n' + "\n".join(parts)
            + "\n</section>")


def render_report(data, meta: dict[str, Any], progress=None,
                  judges: dict[str, Any] | None = None) -> Page:
    """The page of `data` (unjudged.analysis.report_data.ReportData). `meta` has command, version,
    seed, b, elapsed (seconds) and inputs (file, sha256 dicts). `progress` (a tqdm bar or
    None) is advanced once per figure.

    Example:
        >>> from unjudged.io import read_qrels, read_run
        >>> from unjudged.analysis.report_data import build_report
        >>> q = read_qrels({"t1": {"a": 1, "b": 0}, "t2": {"c": 1}})
        >>> rs = [read_run({"t1": {"a": 2}, "t2": {"c": 1}}, name="<script>"),
        ...       read_run({"t1": {"x": 2}, "t2": {"c": 1}}, name="b")]
        >>> page = render_report(build_report(rs, q, ["P@1"], b=20), {"command": "x"})
        >>> "<script>" in page.html, page.html.count('class="run')
        (False, 2)
    """
    page = Page("")
    tick = progress.update if progress is not None else (lambda: None)

    def fig(name: str, png: bytes, alt: str) -> str:
        page.figures[f"{name}.png"] = png
        tick()
        return figure_html(base64.b64encode(png).decode("ascii"), alt)

    def table(stem: str, rows, columns, **kw) -> str:
        page.tables[stem] = (rows, columns)
        return T.html_table(rows, columns, table_id=stem, **kw)

    from unjudged.report.html import figures as F
    from unjudged.report.html.verdict import verdict_html

    measure_stems = dict(zip(data.measures, file_stems(data.measures, _HTML_UNSAFE,
                                                       mark_changed=False), strict=True))
    parts = []
    for m in data.measures:
        s = measure_stems[m]
        rows = data.leaderboards[m]
        orders = [{**o, "reversed_order": o["order"] == "reversed"}
                  for o in data.orders.get(m, [])]
        parts.append(f"<h3>{html.escape(m)}</h3>"
                     + table(f"leaderboard-{s}", rows, T.leaderboard_columns(), row_class="run",
                             mark="attention", css="board")
                     + _orders_html(table, f"orders-{s}", orders, data.verdicts[m])
                     + _folded(f"Figure: {html.escape(m)}, bounds and bootstrap intervals per "
                               "run", fig(f"leaderboard-{s}", F.leaderboard_figure(rows, m),
                                          f"{m}: bounds and bootstrap intervals per run")))
    leaderboard = "\n".join(parts)
    assess = {m: data.pairs[m][0]["assessment"] if data.pairs[m] else "Judged@k"
              for m in data.measures}
    compared = f"the baseline {data.baseline}" if data.baseline else "the next run down"
    verdicts = "\n".join(verdict_html(m, data.verdicts[m], T.html_table(
        data.verdicts[m]["tier_rows"], T.TIERS, table_id=f"tiers-{measure_stems[m]}"),
        assess[m], compared) for m in data.measures)
    against = (f"each run against the baseline {html.escape(data.baseline)}"
               if data.baseline else "each run against the next one down the leaderboard")
    pairs = "\n".join(f"<h3>{html.escape(m)}</h3>" + _folded(
        f"{len(data.pairs[m])} comparisons; by case: " + ", ".join(
            f"{c}: {k}" for c, k in sorted(data.verdicts[m]["cases"].items()))
        + f" ({data.verdicts[m]['weak_significant']} highlighted)",
        table(f"pairs-{measure_stems[m]}", data.pairs[m], T.PAIRS, mark="attention"))
        for m in data.measures)
    panels = ""
    if data.panels is not None:
        names = [r.run for r in data.panels.runs]
        stems = file_stems(names, _HTML_UNSAFE)
        page.renamed = {f"topics-{s}.png": n for s, n in zip(stems, names, strict=True) if s != n}
        panels = _folded(f"Figures: the bootstrap per topic of the best {len(names)} run(s)",
                         "\n".join(fig(f"topics-{s}", F.panel_figure(r, order, data.panels.point),
                                       f"{r.run}: bootstrap per topic")
                                   for r, order, s in zip(data.panels.runs, data.panel_orders,
                                                          stems, strict=True)))
    judgments = natural_topics(data.judgments)
    collection = (fig("judgments", F.judgments_figure(judgments), "relevant share per topic")
                  + "<details><summary>Judgments per topic</summary>"
                  + table("judgments", judgments, T.judgment_columns(judgments), mark="warn")
                  + "</details>"
                  + fig("coverage", F.coverage_figure(data.cov, data.cov.bands[0][1]),
                        "judged fraction by rank")
                  + _folded(f"Judged share by rank band, {len(data.coverage)} runs",
                            table("coverage", data.coverage, T.coverage_columns(data.bands))))
    n_panels = len(data.panels.runs) if data.panels is not None else 0
    page.html = PAGE.substitute(
        title=html.escape(f"unjudged report: {len(data.leaderboards[data.measures[0]])} runs"),
        n_runs=len(data.leaderboards[data.measures[0]]), b=data.b, measure0=html.escape(
            data.measures[0]), leaderboard=leaderboard, against=against, pairs=pairs,
        n_panels=n_panels, panels=panels, verdict=verdicts, notes=notes_html(data.notes),
        notes_toc='<a href="#notes">Notes</a> ' if data.notes else "", normalisers=(
            " (a drawn relevant document also adds to the ideal ranking and to the number of "
            "relevant documents, as a deeper judging would, so these scores are not comparable "
            "with scores on the judged pool)" if data.est.grow else ""),
        topics=table("topics", data.topics, T.TOPICS), collection=collection,
        judges=_judges_html(table, judges) if judges else "",
        judges_toc='<a href="#judges">Automatic judges</a>' if judges else "",
        footer=footer_html(meta))
    return page
