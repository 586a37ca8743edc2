"""`unjudged report`: the numbers behind the page, the page itself, its files and errors."""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from unjudged.analysis.report_data import build_report
from unjudged.cli import main
from unjudged.io import read_qrels, read_run

sys.path.insert(0, str(Path(__file__).parent))
from collection import write_collection  # noqa: E402
from shared_data import COVID1, need  # noqa: E402

QRELS = "1 0 a 2\n1 0 b 0\n1 0 c 1\n2 0 d 1\n2 0 e 0\n3 0 f 1\n3 0 g 0\n"
RUN_A = "1 Q0 a 1 3 A\n1 Q0 x 2 2 A\n2 Q0 d 1 1 A\n2 Q0 e 2 0 A\n3 Q0 f 1 1 A\n3 Q0 g 2 0 A\n"
RUN_B = "1 Q0 b 1 3 B\n1 Q0 a 2 2 B\n2 Q0 y 1 1 B\n2 Q0 d 2 0 B\n3 Q0 z 1 1 B\n3 Q0 f 2 0 B\n"
EVIL = "<script>alert(1)</script>"
RUN_C = "".join(f"{t} Q0 {d} {i} {9 - i} {EVIL}\n" for t, ds in (("1", "cz"), ("2", "ed"),
                                                                  ("3", "gq")) for i, d in
                enumerate(ds, 1))


def _files(tmp_path):
    return write_collection(tmp_path, QRELS, {"a.run": RUN_A, "b.run": RUN_B,
                                              "c.run": RUN_C})


def _runs():
    q = read_qrels(_qrels_dict())
    return q, [read_run(_run_dict(RUN_A), name="A"), read_run(_run_dict(RUN_B), name="B")]


def _qrels_dict():
    out: dict = {}
    for line in QRELS.splitlines():
        t, _, d, g = line.split()
        out.setdefault(t, {})[d] = int(g)
    return out


def _run_dict(text):
    out: dict = {}
    for line in text.splitlines():
        t, _, d, _, s, _ = line.split()
        out.setdefault(t, {})[d] = float(s)
    return out


def test_leaderboard_hand_worked():
    q, runs = _runs()
    d = build_report(runs, q, ["P@2"], b=200, seed=3, topic_panels=1)
    board = d.leaderboards["P@2"]
    # A: P@2 = (1/2 + 1/2 + 1/2) / 3; Judged@2 = (1/2 + 1 + 1) / 3. B: (1/2 + 1/2 + 1/2) / 3
    # with Judged@2 = (1 + 1/2 + 1/2) / 3: equal means keep input order.
    assert [r["run"] for r in board] == ["A", "B"]
    assert board[0]["score"] == pytest.approx(0.5) and board[0]["judged"] == pytest.approx(5 / 6)
    assert board[1]["judged"] == pytest.approx(4 / 6)
    # upper: unjudged documents take the best grade the pool still has. A's x on topic 1 gets
    # c's grade 1; B's y and z get nothing (each topic's only relevant document is retrieved)
    assert board[0]["upper"] == pytest.approx(4 / 6) and board[1]["upper"] == 0.5
    for r in board:
        # P@2 has no normaliser: its drawn grades are not capped at what the pool has left
        # (--cap normalised), so the bootstrap may pass `upper`, not 1
        assert r["nonrel"] <= r["lo"] <= r["bootstrap"] <= r["hi"] <= 1.0
        assert 1 <= r["rank_lo"] <= r["rank_hi"] <= 2
    # neither run is ahead in 95% of the draws: one uncertain pair, both rows flagged
    assert board[0]["unsettled"] and board[1]["unsettled"]
    assert [r["uncertain"] for r in board] == [1, 1] and [r["reversed"] for r in board] == [0, 0]
    (order,) = d.orders["P@2"]
    assert (order["run_a"], order["run_b"], order["order"]) == ("A", "B", "uncertain")
    s = np.stack([r.run_samples[:, 0] for r in d.est.runs], axis=1)
    assert order["p_a_better"] == pytest.approx(np.mean(s[:, 0] > s[:, 1] + 1e-12))
    assert order["p_b_better"] == pytest.approx(np.mean(s[:, 1] > s[:, 0] + 1e-12))
    pair = d.pairs["P@2"][0]
    assert (pair["run"], pair["baseline"], pair["diff"]) == ("A", "B", 0.0)
    assert pair["assessment"] == "Judged@2"
    assert pair["assessment_diff"] == pytest.approx(1 / 6)


def test_rank_intervals_and_reversed_order():
    # five topics; A's top document is judged non-relevant everywhere, B's is unjudged, and
    # half of each topic's pool is relevant: trec_eval ties them (0) and keeps A first, while
    # the bootstrap puts B ahead unless all five unjudged documents draw 0 (about 1/32); C's
    # top document is relevant everywhere, so C is first in every draw
    topics = [str(t) for t in range(1, 6)]
    q = read_qrels({t: {"r": 1, "n": 0} for t in topics})
    runs = [read_run({t: {doc: 1.0} for t in topics}, name=name)
            for name, doc in (("C", "r"), ("A", "n"), ("B", "u"))]
    # (without each run's misfit, whose shared shift makes B's five draws move together)
    d = build_report(runs, q, ["P@1"], b=2000, seed=1, topic_panels=0,
                     draw={"misfit": False})
    board = d.leaderboards["P@1"]
    assert [r["run"] for r in board] == ["C", "A", "B"]
    assert [(r["rank_lo"], r["rank_hi"]) for r in board] == [(1, 1), (3, 3), (2, 2)]
    assert [(r["uncertain"], r["reversed"], r["unsettled"]) for r in board] == [
        (0, 0, False), (0, 1, True), (0, 1, True)]
    (order,) = d.orders["P@1"]
    assert (order["run_a"], order["rank_a"], order["run_b"], order["rank_b"]) == ("A", 2, "B", 3)
    assert order["order"] == "reversed" and order["p_a_better"] == 0.0
    assert order["p_b_better"] >= 0.95

    # identical runs tie in every draw: equal, not uncertain; both share rank 1
    twins = [read_run({t: {"u": 1.0} for t in topics}, name=n) for n in ("X", "Y")]
    d = build_report(twins, q, ["P@1"], b=200, seed=1, topic_panels=0)
    board = d.leaderboards["P@1"]
    assert d.orders["P@1"] == [] and not board[0]["unsettled"]
    assert [(r["rank_lo"], r["rank_hi"], r["uncertain"]) for r in board] == [(1, 1, 0)] * 2


def test_pairs_match_scipy_and_baseline_option():
    from scipy import stats

    q, runs = _runs()
    d = build_report(runs, q, ["Judged@2"], b=20, baseline="B", topic_panels=0)
    row = d.pairs["Judged@2"][0]
    a, b = np.array([0.5, 1, 1]), np.array([1, 0.5, 0.5])
    assert row["p"] == pytest.approx(stats.ttest_rel(a, b).pvalue)
    assert row["run"] == "A" and d.panels is None


def test_topics_and_collection_views():
    q, runs = _runs()
    d = build_report(runs, q, ["P@2"], b=100, topic_panels=2)
    # topic 1: A misses x (1/2 unjudged), B none; topic 2: B misses y; topic 3: B misses z
    top = {r["topic"]: r["unjudged_mean"] for r in d.topics}
    assert top == pytest.approx({"1": 0.25, "2": 0.25, "3": 0.25})
    stats = {r["topic"]: r for r in d.judgments}
    assert stats["1"]["judged"] == 3 and stats["1"]["warn"]  # 2 of 3 relevant
    assert not stats["all"]["warn"] or stats["all"]["relevant"] * 3 > stats["all"]["judged"]
    assert [r["run"] for r in d.coverage] == ["A", "B"]
    assert d.coverage[0]["judged_1-5"] == pytest.approx(5 / 6)
    assert len(d.panels.runs) == 2 and sorted(d.panel_orders[0]) == [0, 1, 2]


def test_cli_writes_page_pngs_and_tables(tmp_path):
    qrels, runs = _files(tmp_path)
    out = tmp_path / "r.html"
    r = CliRunner().invoke(main, ["report", str(qrels), str(runs), "-m", "P@2", "-m", "AP",
                                  "-b", "50", "-o", str(out), "--png", str(tmp_path / "png"),
                                  "--tables", str(tmp_path / "tab"), "-j", "1"])
    assert r.exit_code == 0, r.output
    page = out.read_text()
    assert page.count('<tr class="run') == 2 * 3  # two measures, three runs
    assert EVIL not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<script" not in page.lower()
    assert "http://" not in page and "https://" not in page  # nothing to fetch
    images = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page)
    pngs = sorted(p.name for p in (tmp_path / "png").iterdir())
    assert len(images) == len(pngs) == 2 + 2 + 3  # leaderboards, collection, panels
    sha = hashlib.sha256(Path(qrels).read_bytes()).hexdigest()
    assert sha in page and "seed 0" in page
    rows = [json.loads(x) for x in (tmp_path / "tab" / "leaderboard-P_2.jsonl").open()]
    assert len(rows) == 3 and rows[0]["rank"] == 1
    tsv = (tmp_path / "tab" / "pairs-AP.tsv").read_text().splitlines()
    assert tsv[0].split("\t")[:3] == ["run", "baseline", "diff"] and len(tsv) == 3


def test_cli_bad_input_writes_nothing(tmp_path):
    qrels, runs = _files(tmp_path)
    bad = tmp_path / "bad.run"
    bad.write_text("1 Q0 a 1 3.0 A\n1 Q0 oops\n")
    out = tmp_path / "r.html"
    r = CliRunner().invoke(main, ["report", str(qrels), str(bad), "-m", "P@2", "-o", str(out)])
    assert r.exit_code == 2 and "bad.run:2:" in r.output
    assert not out.exists()
    r = CliRunner().invoke(main, ["report", str(qrels), str(runs), "-m", "P@2", "-o",
                                  str(out), "--baseline", "nope"])
    assert r.exit_code == 2 and "--baseline" in r.output and not out.exists()


def test_covid_subset(tmp_path):
    root = need(COVID1)
    from unjudged.engine.score import score
    from unjudged.io import read_runs
    from unjudged.measures import parse_measures

    paths = sorted((root / "runs").glob("*.xz"))[:6]
    q = read_qrels(root / "qrels" / "qrels-rnd1.txt")
    runs = read_runs(paths, qrels=q)
    d = build_report(runs, q, ["nDCG@10"], b=50, topic_panels=1)
    board = d.leaderboards["nDCG@10"]
    res = score(runs, q, parse_measures(["nDCG@10", "Judged@10"]))
    expect = sorted(((float(r.summary[0]), float(r.summary[1]), r.run) for r in res.runs),
                    reverse=True)
    assert [x for r in board for x in (r["score"], r["judged"])] == \
        pytest.approx([x for s, j, _ in expect for x in (s, j)])
    assert len(d.topics) == 10 and len(d.judgments) == 31  # 30 topics and "all"
    assert sum(r["warn"] for r in d.judgments[:-1]) > 0


def test_measures_some_strategies_skip_render():
    """Bpref has no bootstrap and Judged@k no bounds: NaN cells stay empty, figures draw."""
    from unjudged.report.html import render_report

    q, runs = _runs()
    d = build_report(runs, q, ["Bpref", "Judged@2"], b=20, topic_panels=1)
    page = render_report(d, {"command": "t"})
    assert len(page.figures) == 2 + 2 + 1 and page.html.count('<tr class="run') == 4


# --- issue 19 item 6: readable figures, natural topic order, p-values, 800 px ---------------

def _example_report(**kw):
    from unjudged.data.examples import example_paths
    from unjudged.io import read_runs

    qrels, runs = example_paths()
    q = read_qrels(qrels)
    return build_report(read_runs(runs, qrels=q), q, ["nDCG@10"], **kw)


def test_natural_topic_order():
    from unjudged.data.topic_order import natural_key, natural_ranks, natural_sorted
    from unjudged.report.html import natural_topics, render_report

    assert natural_sorted(["11", "1", "10", "2", "9b", "9a", "q10", "q2", "007", "7"]) == \
        ["1", "2", "007", "7", "9a", "9b", "10", "11", "q2", "q10"]
    assert natural_key("07") < natural_key("7") < natural_key("8")  # a total order
    assert natural_ranks(["10", "2", "1"]) == [2, 1, 0]
    assert [r["topic"] for r in natural_topics([{"topic": t} for t in ("all", "10", "9")])] \
        == ["9", "10", "all"]
    # topics 1, 2, 10, 11 are listed 1, 10, 11, 2 by the data model (byte order)
    q = read_qrels({t: {"a": 1, "b": 0} for t in ("1", "2", "10", "11")})
    runs = [read_run({t: {"a": 2, "x": 1} for t in ("1", "2", "10", "11")}, name="A"),
            read_run({t: {"b": 2, "y": 1} for t in ("1", "2", "10", "11")}, name="B")]
    # the run prior without uncertainty: every spread is 0 (A's x finds no relevant grade left,
    # B's y draws from B's own judged documents, all non-relevant)
    d = build_report(runs, q, ["P@2"], b=20, topic_panels=2,
                     draw={"prior": "run", "spread": 0.0, "shared_spread": 0.0})
    assert [r["topic"] for r in d.topics] == ["1", "2", "10", "11"]  # equal shares: ties
    for run, order in zip(d.panels.runs, d.panel_orders, strict=True):
        assert [run.topics[t] for t in order] == ["1", "2", "10", "11"]  # equal spreads (0)
    page = render_report(d, {"command": "t"})
    assert [r["topic"] for r in page.tables["judgments"][0]] == ["1", "2", "10", "11", "all"]
    table = page.html[page.html.index('id="judgments"'):]
    table = table[:table.index("</table>")]
    assert re.findall(r"<tr[^>]*><td>([^<]+)</td>", table) == ["1", "2", "10", "11", "all"]


def test_tiny_p_values_print_as_below_0001():
    from unjudged.report.html import render_report
    from unjudged.report.html.tables import PAIRS, html_table, p_text

    assert [p_text(x) for x in (0.5, 0.00012, 0.0001, 9.9e-5, 3.2e-7, 0.0, float("nan"))] \
        == ["0.5000", "0.0001", "0.0001", "<0.0001", "<0.0001", "<0.0001", ""]
    cells = html_table([{"run": "a", "p": 3.2e-7, "p_assessment": 0.04, "diff": 1e-7}], PAIRS,
                       table_id="t")
    assert "<td>&lt;0.0001</td><td></td><td></td><td>0.0400</td>" in cells
    assert "<td>0.0000</td>" in cells  # a difference is no p-value: 4 decimals as before
    # the demo's udel_fang_run1 against BERT: nDCG@10 differs by 0.31, paired t-test p = 5.9e-9
    # (trec_eval 10.0's ties: BERT's near-tied scores ordered in double precision)
    d = _example_report(b=20, topic_panels=0)
    tiny = [r for r in d.pairs["nDCG@10"] if r["p"] < 1e-4]
    assert [(r["run"], r["baseline"]) for r in tiny] == [("udel_fang_run1", "BERT")]
    page = render_report(d, {"command": "t"})
    pairs = page.html[page.html.index('id="pairs-'):page.html.index('id="topics"')]
    assert "<td>&lt;0.0001</td>" in pairs and "<td>0.0000</td>" not in pairs
    assert tiny[0]["p"] == pytest.approx(5.881e-9, rel=1e-3)
    # the --tables files keep the full value
    from unjudged.report.html.tables import text_tables

    tsv = text_tables(*page.tables["pairs-nDCG_10"])["tsv"].splitlines()
    last = dict(zip(tsv[0].split("\t"), tsv[-1].split("\t"), strict=True))
    assert last["run"] == "udel_fang_run1" and float(last["p"]) == tiny[0]["p"]


def test_figures_readable_with_a_y_axis(monkeypatch):
    """Every text of every report figure is >= 9 px at the figure's own size, and no figure is
    wider than the 772 px column of an 800 px page (so it is never shown smaller); the
    per-topic panels have a y-axis with ticks and a label."""
    import matplotlib.text

    from unjudged.report.html import figures as F
    from unjudged.report.html import render_report

    drawn = []
    monkeypatch.setattr(F, "png_bytes", lambda fig: drawn.append(fig) or b"png")
    d = _example_report(b=20, topic_panels=1)
    render_report(d, {"command": "t"})
    assert len(drawn) == 3  # leaderboard, panels, judgments (coverage draws at 110 dpi)
    for fig in drawn:
        fig.canvas.draw()
        assert fig.get_figwidth() * F.DPI <= 772
        texts = [t for t in fig.findobj(matplotlib.text.Text)
                 if t.get_visible() and t.get_text().strip()]
        assert texts and min(t.get_fontsize() for t in texts) * F.DPI / 72 >= 9
    panels = drawn[1]
    shown = [ax for ax in panels.axes if ax.get_visible()]
    assert len(shown) == 30  # the 30 topics of TREC-COVID round 1
    for i, ax in enumerate(shown):
        ticks = [t.get_text() for t in ax.get_yticklabels() if t.get_visible()]
        assert len([t for t in ticks if t]) >= 2
        assert ax.get_ylabel() == ("share of draws" if i % F.PANEL_COLUMNS == 0 else "")
    assert shown[-1].get_xlabel() == "nDCG@10"
    # a histogram's bars are shares of the draws: they sum to 1 in every panel
    for ax in shown:
        assert sum(p.get_height() for p in ax.patches) == pytest.approx(1.0)


# --- issue 32 item 6: the verdict first, colour for attention only, folded detail -----------

#: C settled first; A listed above B, but the draws put B ahead (reversed)
REVERSED = {"run_a": "A", "rank_a": 2, "run_b": "B", "rank_b": 3, "p_a_better": 0.0,
            "p_b_better": 0.97, "order": "reversed"}


def _board():
    return [{"run": r, "rank": k, "score": s, "lo": lo, "hi": hi, "judged": j, "rank_lo": a,
             "rank_hi": b, "uncertain": 0, "reversed": int(k > 1), "twin_of": None}
            for r, k, s, lo, hi, j, a, b in (("C", 1, 1.0, 1.0, 1.0, 1.0, 1, 1),
                                             ("A", 2, 0.0, 0.0, 0.0, 1.0, 3, 3),
                                             ("B", 3, 0.0, 0.4, 0.8, 0.0, 2, 2))]


def test_verdict_tiers_attention_and_twins():
    from unjudged.analysis.report_verdict import tiers, verdict

    board = _board()
    v = verdict(board, [REVERSED], [{"case": 4, "p": 0.01}, {"case": 1, "p": 0.2}])
    assert v["tiers"] == [(1, 1), (2, 3)] and [r["tier"] for r in board] == [1, 2, 2]
    assert v["breaks"] == [1] and [r["break_above"] for r in board] == [False, True, False]
    assert (v["pairs"], v["settled_pairs"], v["uncertain"], v["reversed"]) == (3, 2, 0, 1)
    assert (v["alone"], v["rank_width"], v["adjacent_open"]) == (["C"], (1, 1, 1), 1)
    assert (v["compared"], v["significant"], v["weak_significant"]) == (2, 1, 1)
    # attention: only the runs listed outside their own rank interval (A at 2, drawn at 3; B
    # at 3, drawn at 2), not C (previously every row next to an unsettled neighbour)
    assert [r["attention"] for r in board] == [False, True, True]
    assert v["misplaced"] == [(2, "A", 3, 3), (3, "B", 2, 2)]
    assert v["tier_rows"] == [{"tier": 1, "ranks": "1", "size": 1, "runs": "C"},
                              {"tier": 2, "ranks": "2-3", "size": 2, "runs": "A, B"}]
    assert v["median_gap"] == 0.5 and v["median_width"] == 0.0 and v["median_judged"] == 1.0
    # a pair spanning ranks 1-4 joins them all; disjoint pairs make separate tiers
    assert tiers(6, [{"rank_a": 1, "rank_b": 4}, {"rank_a": 2, "rank_b": 3},
                     {"rank_a": 5, "rank_b": 6}]) == [(1, 4), (5, 6)]
    # identical runs tie in every draw: settled as equal, named once as twins
    topics = [str(t) for t in range(1, 6)]
    q = read_qrels({t: {"r": 1, "n": 0} for t in topics})
    twins = [read_run({t: {"u": 1.0} for t in topics}, name=n) for n in ("X", "Y", "Z")]
    d = build_report(twins, q, ["P@1"], b=200, seed=1, topic_panels=0)
    v = d.verdicts["P@1"]
    assert [r["twin_of"] for r in d.leaderboards["P@1"]] == [None, "X", "X"]
    assert v["twins"] == {"X": ["Y", "Z"]} and v["settled_pairs"] == 3 and v["reversed"] == 0
    assert v["tiers"] == [(1, 1), (2, 2), (3, 3)] and v["alone"] == ["X", "Y", "Z"]


def test_page_states_the_verdict_first_and_folds_the_rest():
    from unjudged.analysis.report_verdict import verdict
    from unjudged.report.html import render_report

    topics = [str(t) for t in range(1, 6)]
    q = read_qrels({t: {"r": 1, "n": 0} for t in topics})
    runs = [read_run({t: {doc: 1.0} for t in topics}, name=name)
            for name, doc in (("C", "r"), ("A", "n"), ("B", "u"))]
    d = build_report(runs, q, ["P@1"], b=200, seed=1, topic_panels=0)
    # the verdict of a known order (the draws' own depends on the prior)
    board = d.leaderboards["P@1"]
    for row, fixed in zip(board, _board(), strict=True):
        row.update(fixed)
    d.orders["P@1"] = [REVERSED]
    d.verdicts["P@1"] = verdict(board, [REVERSED], d.pairs["P@1"])
    inputs = [{"file": f"run{i}", "sha256": "ab" * 32} for i in range(144)]
    page = render_report(d, {"command": "t", "inputs": inputs}).html
    body = page[page.index("<body>"):]
    # contents, then the verdict, before the leaderboard and every other section
    assert body.index('<nav class="toc">') < body.index('id="verdict"') \
        < body.index('id="leaderboard"') < body.index('id="pairs"')
    verdict_html = body[body.index('id="verdict"'):body.index('id="leaderboard"')]
    assert "<b>Settled:</b> 2 of the 3 pairs of runs" in verdict_html
    assert "1 run(s) are settled against every other run: <b>C</b>." in verdict_html
    assert "Clear breaks (every run above settled ahead of every run below): after rank 1." \
        in verdict_html
    assert "<b>Not settled:</b> 0 pairs in uncertain order and 1 reversed" in verdict_html
    assert "A run's 90% rank interval spans 1 ranks (median; 1-1)" in verdict_html
    assert ("2 runs are listed outside their own 90% rank interval" in verdict_html
            and "<b>A</b> (rank 2; interval 3-3); <b>B</b> (rank 3; interval 2-2)."
            in verdict_html)
    assert "neighbouring runs differ by 0.5000 (median)" in verdict_html
    # colour: highlighted rows are the attention rows only; a rule marks the settled break
    table = re.search(r'<table id="leaderboard-P_1" class="board">(.*?)</table>', page,
                      re.S).group(1)
    assert re.findall(r'<tr class="([^"]*)">', table) == ["run", "run mark break",
                                                          "run mark"]
    # key columns first: rank, run, score, interval, rank interval, order counts, Judged@k
    heads = re.findall(r"<th>([^<]*)</th>", table)
    assert heads[:10] == ["rank", "run", "score", "90% lo", "90% hi", "rank lo", "rank hi",
                          "uncertain vs", "reversed vs", "Judged@k"]
    # folded: the leaderboard figure, the unsettled pairs, the per-run coverage, the inputs
    assert re.search(r"<details><summary>Figure: P@1, bounds and bootstrap intervals per run"
                     r"</summary><img ", page)
    assert "<details><summary>The 0 pairs of runs in uncertain order and 1 reversed" in page
    assert "<details><summary>Judged share by rank band, 3 runs</summary>" in page
    assert "<details><summary>Inputs: 144 files with their sha256</summary><ul><li>" in page
    assert "seed 00" not in page


# --- issue 32 item 1: the notes reach the page, not only stderr --------------------------------


def test_notes_said_while_reading_and_computing_are_on_the_page(tmp_path):
    """Relevant-only qrels and a run whose first line comments its columns: each note is said
    once on stderr and listed, in the same words and order, in the page's Notes block right
    after the verdict (and linked from the contents)."""
    qrels = tmp_path / "q.txt"
    qrels.write_text("".join(f"{t} 0 d{i} 1\n" for t in (1, 2, 3) for i in range(4)))
    a, b = tmp_path / "a.run", tmp_path / "b.run"
    a.write_text("# qid Q0 docno rank score tag\n" + RUN_A)
    b.write_text(RUN_B)
    out = tmp_path / "r.html"
    r = CliRunner().invoke(main, ["report", str(qrels), str(a), str(b), "-m", "P@2", "-b",
                                  "20", "-o", str(out), "-j", "1"])
    assert r.exit_code == 0, r.output
    said = [line.removeprefix("unjudged: note: ") for line in r.stderr.splitlines()
            if line.startswith("unjudged: note: ")]
    assert len(said) == len(set(said)) == 3, said  # the comment line, the fallback, the qrels
    assert "qid Q0 docno" in said[0] and said[1].startswith("position prior:")
    assert "no non-relevant judgment" in said[2]
    page = out.read_text()
    block = page[page.index('<div class="notes" id="notes">'):]
    block = block[:block.index("</div>")]
    import html as H

    assert re.findall(r"<li>(.*?)</li>", block) == [H.escape(n) for n in said]
    assert "<h3>Notes (3)</h3>" in block
    assert page.index('id="verdict"') < page.index('id="notes"') < page.index('id="leaderboard"')
    assert '<a href="#notes">Notes</a>' in page


def test_notes_in_report_data_once_and_shown_once(recwarn):
    """build_report keeps the notes it said (each once, also when said twice) after those it
    is given; without notes the page has no Notes block."""
    from unjudged.errors import UnjudgedWarning
    from unjudged.report.html import render_report

    q = read_qrels({t: {"a": 1, "b": 1} for t in ("1", "2")})
    runs = [read_run({t: {"a": 2, "x": 1} for t in ("1", "2")}, name=n) for n in ("A", "B")]
    d = build_report(runs, q, ["P@2"], b=10, topic_panels=1, notes=["read first"])
    assert d.notes[0] == "read first" and len(d.notes) == len(set(d.notes)) == 3
    assert "no non-relevant judgment" in d.notes[2]
    shown = [str(w.message) for w in recwarn if issubclass(w.category, UnjudgedWarning)]
    assert shown == d.notes[1:]  # still shown as warnings, each once
    q2 = read_qrels({t: {"a": 1, "b": 0} for t in ("1", "2")})
    d2 = build_report(runs, q2, ["P@2"], b=10, topic_panels=0, pool_runs=runs * 3)
    assert d2.notes == []
    page = render_report(d2, {"command": "t"}).html
    assert 'id="notes"' not in page and 'href="#notes"' not in page
    assert "<b>Caution:</b>" not in page and d2.verdicts["P@2"]["only_relevant"] == (0, 2)


def test_verdict_cautions_when_topics_have_no_non_relevant_judgment():
    """Relevant-only judgments on one of two topics: the verdict says first that its order
    is the order under 'unjudged means relevant' there, not a verdict on the runs."""
    from unjudged.report.html import render_report

    q = read_qrels({"1": {"a": 1, "b": 1}, "2": {"a": 1, "b": 0}})
    runs = [read_run({t: {"a": 2, "x": 1} for t in ("1", "2")}, name=n) for n in ("A", "B")]
    d = build_report(runs, q, ["P@2"], b=10, topic_panels=0, pool_runs=runs * 3)
    assert d.verdicts["P@2"]["only_relevant"] == (1, 2)
    page = render_report(d, {"command": "t"}).html
    verdict = page[page.index('id="verdict"'):page.index('id="leaderboard"')]
    assert "<b>Caution:</b> 1 of the 2 topics have no non-relevant judgment" in verdict
    assert verdict.index("<b>Caution:</b>") < verdict.index("<b>Settled:</b>")


def test_natural_order_of_topic_ids_past_int_limits():
    """Digit runs compare by value without int(): a topic id of 5,000 digits (past Python's
    4,300-digit conversion limit) sorts, after its shorter and smaller neighbours."""
    from unjudged.data.topic_order import natural_sorted

    huge = "9" * 5000
    assert natural_sorted([huge, "10", "2", "0" + huge, "1" + "0" * 5000]) == \
        ["2", "10", "0" + huge, huge, "1" + "0" * 5000]
