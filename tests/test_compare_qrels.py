"""compare_qrels and `unjudged compare-qrels`: a hand-worked collection, and seed 003's
TREC-COVID round-1 pool extension (Voorhees 2020) on real data."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from collection import write_collection
from shared_data import COVID1, DATA, need
from unjudged.analysis.compare import QrelsComparison, compare_qrels

# --- compare_qrels on a hand-worked collection ---------------------------------------------------

ORIG = "1 0 a 1\n1 0 b 0\n2 0 c 1\n"
NEW = ORIG + "1 0 x 1\n2 0 y 1\n"
RUNS = {  # two topics, two documents each
    "r1": "1 Q0 a 1 2.0 r1\n1 Q0 b 2 1.0 r1\n2 Q0 c 1 2.0 r1\n2 Q0 z 2 1.0 r1\n",
    "r2": "1 Q0 x 1 2.0 r2\n1 Q0 a 2 1.0 r2\n2 Q0 y 1 2.0 r2\n2 Q0 c 2 1.0 r2\n",
    "r3": "1 Q0 b 1 2.0 r3\n1 Q0 x 2 1.0 r3\n2 Q0 z 1 2.0 r3\n2 Q0 y 2 1.0 r3\n",
}


@pytest.fixture
def tiny(tmp_path):
    """tmp_path with `orig` and `new` qrels and a folder `runs`."""
    orig, _ = write_collection(tmp_path, ORIG, RUNS)
    Path(orig).rename(tmp_path / "orig")
    (tmp_path / "new").write_text(NEW)
    return tmp_path


def test_compare_qrels_by_hand(tiny):
    cmp = compare_qrels([tiny / "runs"], tiny / "orig", tiny / "new", ["P@1", "AP"])
    assert cmp.runs == ["r1", "r2", "r3"]
    # P@1: r2 and r3 lead with unjudged x / y, which the new qrels judge relevant for r2
    assert cmp.orig[:, 0].tolist() == [1.0, 0.0, 0.0]
    assert cmp.new[:, 0].tolist() == [1.0, 1.0, 0.0]
    # AP: new qrels have two relevant per topic; r2 finds both, r1 one at rank 1, r3 one at 2
    assert cmp.orig[:, 1].tolist() == [1.0, 0.5, 0.0]
    assert cmp.new[:, 1].tolist() == [0.5, 1.0, 0.25]
    p1, ap = cmp.summary()
    # P@1: orig [1,0,0] vs new [1,1,0]: one concordant pair, one tied in each ranking
    assert p1["kendall_tau"] == pytest.approx(0.5)
    assert p1["kendall_tau_a"] == pytest.approx(1 / 3)
    # walking new: (r1, r2) either way round gives +1 or -1 at position 2, r3 then scores 1/2
    assert p1["tau_ap"] == pytest.approx(0.25)
    assert p1["spearman_rho"] == pytest.approx(0.5)
    assert p1["max_rank_change"] == 1
    # AP: orig ranks 1,2,3 and new ranks 2,1,3: the top pair swaps
    assert ap["kendall_tau"] == pytest.approx(1 / 3)
    assert ap["tau_ap"] == pytest.approx(0.0)
    assert ap["spearman_rho"] == pytest.approx(0.5)
    assert [r["rank_change"] for r in cmp.per_run(1)] == [1, -1, 0]
    assert [(r["run"], r["orig_rank"], r["new_rank"]) for r in cmp.per_run(0)] == \
        [("r1", 1, 1), ("r2", 2, 1), ("r3", 2, 3)]
    df = cmp.to_pandas()
    assert df.columns.tolist()[:3] == ["measure", "runs", "kendall_tau"]
    assert df.kendall_tau.tolist() == pytest.approx([0.5, 1 / 3])
    assert len(cmp.to_pandas(per_run=True)) == 6


def test_compare_qrels_lower_is_better_and_iterators(tiny):
    from unjudged.io import read_qrels, read_runs

    orig = read_qrels(tiny / "orig")
    runs = read_runs([tiny / "runs"], qrels=orig)
    cmp = compare_qrels(iter(runs), orig, tiny / "new", ["P@1"], decimals=None)
    assert cmp.new[:, 0].tolist() == [1.0, 1.0, 0.0]
    m = cmp.measures[0]
    lower = dataclasses.replace(m, spec=dataclasses.replace(m.spec, higher_is_better=False))
    flipped = type(cmp)(cmp.runs, [lower], cmp.orig, cmp.new)
    assert flipped.rank_changes(0).rank_x.tolist() == [3, 1, 1]  # 0 is best when lower wins
    assert flipped.stats["kendall_tau"][0] == pytest.approx(0.5)


def _cli(*args):
    from click.testing import CliRunner

    from unjudged.cli import main

    return CliRunner().invoke(main, ["compare-qrels", *map(str, args)])


def test_cli_formats(tiny):
    base = ["--orig", tiny / "orig", "--new", tiny / "new", tiny / "runs", "-m", "P@1", "-m", "AP"]
    out = _cli(*base, "-f", "jsonl", "--top", "1")
    assert out.exit_code == 0, out.output
    lines = [json.loads(x) for x in out.stdout.splitlines()]
    assert [x["measure"] for x in lines] == ["P@1", "AP"]
    assert lines[0]["kendall_tau"] == pytest.approx(0.5)
    assert lines[1]["tau_ap"] == pytest.approx(0.0)
    assert lines[1]["largest_changes"] == [{"measure": "AP", "run": "r1", "orig": 1.0, "new": 0.5,
                                            "orig_rank": 1, "new_rank": 2, "rank_change": 1}]
    out = _cli(*base, "-f", "csv")
    assert out.stdout.splitlines() == [
        "measure,runs,kendall_tau,kendall_tau_a,tau_ap,spearman_rho,max_rank_change",
        "P@1,3,0.49999999999999994,0.3333333333333333,0.25,0.5000000000000001,1",
        "AP,3,0.33333333333333337,0.3333333333333333,0.0,0.5,1"]
    out = _cli(*base, "-f", "tsv", "--per-run")
    assert out.stdout.splitlines()[:2] == [
        "measure\trun\torig\tnew\torig_rank\tnew_rank\trank_change",
        "P@1\tr1\t1.0\t1.0\t1\t1\t0"]
    out = _cli(*base, "--per-run", "--top", "2")
    text = out.stdout
    assert text.splitlines()[1].split() == ["measure", "runs", "kendall_tau", "kendall_tau_a",
                                            "tau_ap", "spearman_rho", "max_rank_change"]
    assert text.splitlines()[2].split() == ["P@1", "3", "0.5000", "0.3333", "0.2500", "0.5000",
                                            "1"]
    assert "Largest rank changes (top 2 per measure" in text
    assert "Every run, by original rank" in text


def test_cli_plot_and_errors(tiny):
    base = ["--orig", tiny / "orig", "--new", tiny / "new", tiny / "runs", "-m", "P@1"]
    out = _cli(*base, "--plot", tiny / "fig.png", "-o", tiny / "out.txt")
    assert out.exit_code == 0, out.output
    assert (tiny / "fig.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (tiny / "out.txt").read_text().startswith("3 runs")
    out = _cli(*base, "--plot", tiny / "fig.gif")
    assert out.exit_code == 2 and "fig.gif: expected a file name ending in .png" in out.output
    (tiny / "bad").write_text("1 0 a 1\n1 0 b x\n")
    out = _cli("--orig", tiny / "orig", "--new", tiny / "bad", tiny / "runs", "-m", "P@1",
               "-o", tiny / "never.txt")
    assert out.exit_code == 2
    assert out.output.startswith("unjudged: error: ") and "bad" in out.output and ":2" in out.output
    assert not (tiny / "never.txt").exists()
    (tiny / "more").write_text(NEW + "3 0 q 1\n")
    out = _cli("--orig", tiny / "orig", "--new", tiny / "more", tiny / "runs", "-m", "P@1")
    assert "1 topic(s) only in --new qrels" in out.stderr


# --- real data: seed 003, TREC-COVID round 1 under qrels-rnd1 and the Extended qrels -------------

ROUND2 = DATA / "anserini-tools" / "qrels" / "qrels.covid-round2.txt"
MEASURES = ["P@5", "nDCG@10", "Bpref", "AP"]
# seed 003, Figures 1-4 (Voorhees 2020): Kendall's tau between the two rankings
PUBLISHED = {"P@5": 0.9604, "nDCG@10": 0.9703, "Bpref": 0.9638, "AP": 0.9636}
# ours: tau-b, tau-a, tau_ap (orig the reference), Spearman's rho, largest rank change
OURS = {"P@5": (0.9608, 0.9504, 0.9160, 0.9953, 17),
        "nDCG@10": (0.9702, 0.9697, 0.9190, 0.9982, 9),
        "Bpref": (0.9620, 0.9615, 0.9217, 0.9973, 15),
        "AP": (0.9637, 0.9633, 0.9168, 0.9972, 16)}


def write_extended_qrels(path: Path) -> int:
    """qrels-rnd1 plus the iteration-1.5 lines of qrels-rnd2 (Judgment Set 1.5); its size."""
    extra = [line for line in need(ROUND2).read_text().splitlines(keepends=True)
             if line.split()[1:2] == ["1.5"]]
    path.write_text((COVID1 / "qrels" / "qrels-rnd1.txt").read_text() + "".join(extra))
    return len(extra)


@pytest.fixture(scope="module")
def covid(tmp_path_factory):
    from unjudged.io import read_qrels, read_runs

    need(COVID1)
    extended = tmp_path_factory.mktemp("qrels") / "qrels-extended.txt"
    assert write_extended_qrels(extended) == 5734  # the note says 5770 judgments
    orig = read_qrels(COVID1 / "qrels" / "qrels-rnd1.txt")
    runs = read_runs([COVID1 / "runs"], qrels=orig)
    return runs, orig, extended, compare_qrels(runs, orig, extended, MEASURES)


def _r4(x) -> float:
    return round(float(x), 4)


def test_covid_round1_extended_pools(covid):
    runs, _, _, cmp = covid
    assert len(cmp.runs) == 143 and all(len(r.topics) == 30 for r in runs)
    got = {s["measure"]: (_r4(s["kendall_tau"]), _r4(s["kendall_tau_a"]), _r4(s["tau_ap"]),
                          _r4(s["spearman_rho"]), s["max_rank_change"]) for s in cmp.summary()}
    assert got == OURS
    for name, tau in PUBLISHED.items():  # within 0.002 of the note; see docs/compare-qrels.md
        assert abs(got[name][0] - tau) < 0.002
    # the largest move in P@5: sab20.1.blind, an unjudged run, climbs 17 places
    top = cmp.per_run(0, cmp.rank_changes(0).largest(1))[0]
    assert (top["run"], top["orig_rank"], top["new_rank"], _r4(top["orig"]), _r4(top["new"])) \
        == ("sab20.1.blind", 68, 51, 0.54, 0.5867)


def test_covid_round1_ties_and_complete(covid):
    from unjudged.policies import Policies

    runs, orig, extended, cmp = covid
    # every run has all 30 topics, so trec_eval -c changes nothing
    complete = compare_qrels(runs, orig, extended, MEASURES, Policies(complete=True))
    assert np.array_equal(complete.orig, cmp.orig) and np.array_equal(complete.new, cmp.new)
    # float noise in the means splits equal P@5 scores: tau-b falls without snapping ties
    raw = QrelsComparison(cmp.runs, cmp.measures, cmp.orig, cmp.new, decimals=None)
    assert [_r4(v) for v in raw.stats["kendall_tau"]] == [0.9573, 0.9702, 0.9620, 0.9637]
    # ties of trec_eval's printed 4 decimals
    printed = QrelsComparison(cmp.runs, cmp.measures, cmp.orig, cmp.new, decimals=4)
    assert [_r4(v) for v in printed.stats["kendall_tau"]] == [0.9608, 0.9703, 0.9628, 0.9637]
    # tied pairs under orig, new and both: many for P@5, identical submissions elsewhere
    tied = [np.round(v, 10)[:, None, :] == np.round(v, 10)[None, :, :] for v in (cmp.orig, cmp.new)]
    upper = np.triu(np.ones((143, 143), dtype=bool), 1)[:, :, None]
    counts = [(t & upper).sum(axis=(0, 1)).tolist() for t in (*tied, tied[0] & tied[1])]
    assert counts == [[116, 6, 5, 5], [105, 6, 5, 5], [35, 6, 5, 5]]
