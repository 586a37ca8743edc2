"""Names from the inputs in outputs: file names derived from run names never collide, and run
tags, topic ids, docnos and measure names cannot inject formulas into CSV/TSV or escape
sequences into the terminal table; JSON lines stay exact."""

from __future__ import annotations

import csv
import io
import json
import os
import re

from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from unjudged.cli import main
from unjudged.engine.estimate import estimate_runs
from unjudged.engine.score import score
from unjudged.io import read_qrels, read_run
from unjudged.judgments.stats import judgment_stats
from unjudged.measures import parse_measures
from unjudged.report.names import derived_files, file_stems
from unjudged.report.plots import plot_estimates
from unjudged.report.qrels import render_stats
from unjudged.report.rows import render_rows, sheet_text, terminal_text, tsv_text
from unjudged.report.tables import render

HOSTILE = ["a/b", "a<b", "a\x01b", "a\x02b", "a_b", "A_B", "a b", "a:b", "a|b", "..",
           ".hidden", "", "x" * 300, "=HYPERLINK(1)", "r\u202eevil"]
TOPICS = {"=cmd()": {"a": 1}, "-1": {"b": 1}, "t\x1b[2J": {"c": 1}, "@x": {"d": 0}}
DANGEROUS = ("=", "+", "-", "@", "\t", "\r")
NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\Z")


def _results(names):
    q = read_qrels(TOPICS)
    run = {t: {d: 1.0 for d in docs} for t, docs in TOPICS.items()}
    return score([read_run(run, name=n) for n in names], q, parse_measures(["P@1"]))


def test_fifteen_hostile_run_names_give_fifteen_files(tmp_path, capsys, monkeypatch):
    import unjudged.report.plots as plots

    monkeypatch.setattr(plots, "_figure", lambda plt, *a: plt.figure(figsize=(1, 1)))  # fast
    q = read_qrels({"1": {"a": 1, "b": 0}})
    runs = [read_run({"1": {"a": 2.0, "x": 1.0}}, name=n) for n in HOSTILE]
    est = estimate_runs(runs, q, parse_measures(["P@2"]), b=20, keep_samples=True)
    written = plot_estimates(est, str(tmp_path / "est.png"))
    assert len(written) == len(set(written)) == 15
    assert sorted(os.listdir(tmp_path)) == sorted(os.path.basename(w) for w in written)
    for w in written:
        name = os.path.basename(w)
        assert re.fullmatch(r"est-[A-Za-z0-9._-]+\.png", name) and len(name) < 120, name
        with open(w, "rb") as fh:
            assert fh.read(4) == b"\x89PNG"
    note = capsys.readouterr().err
    assert note.count("unjudged: note:") == 1 and "\n" not in note.strip()
    for w, n in zip(written, [r.run for r in est.runs], strict=True):
        if f"est-{n}.png" != os.path.basename(w):
            assert f"{w} <- {n!r}" in note
    assert "\x1b" not in note and "\u202e" not in note


def test_ordinary_names_keep_their_plain_file_names(capsys):
    assert derived_files(["bm25", "dph.qe", "run-1"], lambda s: f"p-{s}.png") == \
        ["p-bm25.png", "p-dph.qe.png", "p-run-1.png"]
    assert capsys.readouterr().err == ""


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(max_size=12), min_size=1, max_size=12))
def test_file_stems_are_distinct_safe_and_stable(names):
    stems = file_stems(names)
    by_name = dict(zip(names, stems, strict=True))
    assert len({s.casefold() for s in by_name.values()}) == len(by_name)
    assert all(re.fullmatch(r"[A-Za-z0-9_-][A-Za-z0-9._-]*", s) for s in stems)
    # equal names, equal stems
    assert all(by_name[n] == s for n, s in zip(names, stems, strict=True))
    assert file_stems(names) == stems


def test_csv_neutralises_formulas_but_not_numbers():
    text = render(_results(["@SUM(A1)", "+x", "plain", "-0.5"]), "csv", per_topic=True)
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == ["run", "topic", "measure", "value"]
    runs = {r[0] for r in rows[1:]}
    topics = {r[1] for r in rows[1:]}
    assert runs == {"'@SUM(A1)", "'+x", "plain", "-0.5"}
    assert topics == {"'=cmd()", "-1", "t\x1b[2J", "'@x", "all"}
    for r in rows[1:]:
        for c in r:
            assert not c.startswith(DANGEROUS) or NUMBER.match(c), c


def test_tsv_keeps_one_line_per_row():
    text = render(_results(["a\tb", "x\ny", "\rcr", "=1"]), "tsv", per_topic=True)
    lines = text.split("\n")[:-1]
    assert len(lines) == 1 + 4 * 5 and all(line.count("\t") == 3 for line in lines)
    assert {line.split("\t")[0] for line in lines[1:]} == {"a\\tb", "x\\ny", "\\rcr", "'=1"}


def test_table_shows_controls_as_escapes():
    text = render(_results(["r\u202eevil", "e\x1b[31m", "n\x85l", "ls\u2028"]), "table",
                  per_topic=True)
    assert not re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e"
                         "\u2066-\u2069\u2028\u2029]", text)
    assert "r\\u202eevil" in text and "e\\x1b[31m" in text and "t\\x1b[2J" in text
    assert "n\\x85l" in text and "ls\\u2028" in text


def test_jsonl_stays_exact_and_ascii():
    names = ["r\u202eevil", "e\x1b[31m", "=1", "a\tb"]
    text = render(_results(names), "jsonl", per_topic=True)
    assert text.isascii() and text.count("\n") == 4 * 5
    rows = [json.loads(line) for line in text.splitlines()]
    assert {r["run"] for r in rows} == set(names)
    assert {r["topic"] for r in rows} == set(TOPICS) | {"all"}


def test_trec_layout_is_left_as_trec_eval_writes_it():
    lines = render(_results(["r"]), "trec", per_topic=True).splitlines()
    assert sorted(lines) == sorted(f"P@1                   \t{t}\t{v}" for t, v in
                                   [("-1", "1.0000"), ("=cmd()", "1.0000"), ("@x", "0.0000"),
                                    ("t\x1b[2J", "1.0000"), ("all", "0.7500")])


def test_qrels_statistics_are_neutralised():
    stats = judgment_stats(TOPICS)
    rows = list(csv.reader(io.StringIO(render_stats(stats, "csv"))))
    assert {r[1] for r in rows[1:]} == {"'=cmd()", "-1", "t\x1b[2J", "'@x", "all"}
    tsv = render_stats(stats, "tsv").splitlines()
    assert len(tsv) == 6 and all(line.count("\t") == tsv[0].count("\t") for line in tsv)
    assert "\x1b" not in render_stats(stats, "table")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(max_size=10), min_size=1, max_size=5), st.sampled_from(["csv", "tsv"]))
def test_any_names_keep_the_row_structure(names, fmt):
    rows = [{"run": n, "value": 0.25} for n in names]
    text = render_rows(rows, ["run", "value"], fmt)
    if fmt == "csv":
        parsed = list(csv.reader(io.StringIO(text)))
    else:
        parsed = [line.split("\t") for line in text.split("\n")[:-1]]
    assert len(parsed) == len(names) + 1 and all(len(r) == 2 for r in parsed)
    for r in parsed[1:]:
        assert r[1] == "0.25"
        assert not r[0].startswith(DANGEROUS) or NUMBER.match(r[0]) or r[0] == "-"


@given(st.text())
def test_terminal_text_has_no_controls(text):
    shown = terminal_text(text)
    assert not re.search("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069"
                         "\u2028\u2029]", shown)
    if shown == text:
        assert terminal_text(shown) == shown


def test_cell_rules():
    assert [sheet_text(x) for x in ["=1", "+1", "-1", "1e5", "-1.5e-3", "-", "@a", "-x",
                                    "\tx", "\rx", "a=b", ".5"]] == \
        ["'=1", "+1", "-1", "1e5", "-1.5e-3", "-", "'@a", "'-x", "'\tx", "'\rx", "a=b", ".5"]
    assert tsv_text("\tx") == "\\tx" and tsv_text("-\tx") == "'-\\tx"


def test_report_png_onto_a_file_fails_before_anything_is_written(tmp_path):
    (tmp_path / "qrels").write_text("1 0 a 1\n1 0 b 0\n")
    (tmp_path / "run").write_text("1 Q0 a 1 2.0 r\n1 Q0 x 2 1.0 r\n")
    (tmp_path / "png").write_text("a file\n")
    out = tmp_path / "r.html"
    r = CliRunner().invoke(main, ["report", str(tmp_path / "qrels"), str(tmp_path / "run"),
                                  "-m", "P@2", "-b", "20", "-o", str(out), "--png",
                                  str(tmp_path / "png"), "-j", "1"])
    assert r.exit_code == 2 and "Traceback" not in r.output
    assert r.stderr.strip() == f"unjudged: error: cannot write {tmp_path / 'png'}: " \
        f"{tmp_path / 'png'} exists and is not a folder"
    assert not out.exists() and (tmp_path / "png").read_text() == "a file\n"


def test_estimate_side_output_checked_with_the_output(tmp_path):
    (tmp_path / "qrels").write_text("1 0 a 1\n1 0 b 0\n")
    (tmp_path / "run").write_text("1 Q0 a 1 2.0 r\n1 Q0 x 2 1.0 r\n")
    (tmp_path / "dir.png").mkdir()
    out = tmp_path / "out.tsv"
    base = ["estimate", str(tmp_path / "qrels"), str(tmp_path / "run"), "-m", "P@2", "-b", "20"]
    r = CliRunner().invoke(main, base + ["-o", str(out), "--plot", str(tmp_path / "dir.png")])
    assert r.exit_code == 2 and "dir.png: it is a folder" in r.stderr and not out.exists()
    r = CliRunner().invoke(main, base + ["-o", str(tmp_path / "no" / "out.tsv"), "--samples",
                                         str(tmp_path / "s.npz")])
    assert r.exit_code == 2 and "does not exist" in r.stderr
    assert not (tmp_path / "s.npz").exists()


def test_table_titles_keep_their_lines_and_escape_names():
    text = render_rows([{"run": "r"}], ["run"], title="against \x1b[2Jbase\nsecond line")
    assert text.splitlines() == ["against \\x1b[2Jbase", "second line", "run", "r"]


def test_report_figures_of_colliding_run_names_stay_apart(tmp_path, capsys, monkeypatch):
    from unjudged.analysis.report_data import build_report
    from unjudged.report.html import figures, render_report

    for drawing in ("leaderboard_figure", "panel_figure", "judgments_figure", "coverage_figure"):
        monkeypatch.setattr(figures, drawing, lambda *a, **k: b"\x89PNG")  # names, not images

    q = read_qrels({"1": {"a": 1, "b": 0}, "2": {"c": 1}})
    names = ["a/b", "a<b", "a_b"]
    runs = [read_run({"1": {"a": 2.0 - i / 10, "x": 1.0}, "2": {"c": 1.0}}, name=n)
            for i, n in enumerate(names)]
    page = render_report(build_report(runs, q, ["P@2"], b=20, topic_panels=3), {})
    panels = sorted(f for f in page.figures if f.startswith("topics-"))
    assert len(panels) == 3 and len(set(panels)) == 3
    written = page.write_pngs(str(tmp_path / "png"))
    assert len(written) == len(page.figures) == len(os.listdir(tmp_path / "png"))
    note = capsys.readouterr().err
    assert note.count("unjudged: note:") == 1
    assert all(f"{p} <- {n!r}" in note for p, n in page.renamed.items())
    assert set(page.renamed.values()) == set(names)  # "a_b" shares its stem: hashed as well


def test_names_from_a_dataframe_are_neutralised_too():
    import pandas as pd

    frame = pd.DataFrame({"qid": ["=cmd()", "-1"], "docno": ["a", "b"], "score": [1.0, 2.0],
                          "run": ["+evil\x1b[1m", "+evil\x1b[1m"]})
    res = score([read_run(frame)], read_qrels(TOPICS), parse_measures(["P@1"]))
    rows = list(csv.reader(io.StringIO(render(res, "csv", per_topic=True))))
    assert {r[0] for r in rows[1:]} == {"'+evil\x1b[1m"}
    assert {r[1] for r in rows[1:]} == {"'=cmd()", "-1", "all"}
    table = render(res, "table", per_topic=True)
    assert "+evil\\x1b[1m" in table and "\x1b" not in table
