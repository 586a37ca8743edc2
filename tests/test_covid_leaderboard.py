"""Real data: every TREC-COVID round-1 run, scored with qrels-rnd1 over all 30 topics,
reproduces the official leaderboard (ndcg@10, p@5, bpref, MAP) to 4 decimals with trec_eval 9's
rule (scores compared as C floats), which the 2020 leaderboard was computed with."""

from __future__ import annotations

import csv

import unjudged
from shared_data import COVID1, need


def test_round1_leaderboard():
    folder = need(COVID1)
    with open(folder / "leaderboard.csv") as fh:
        rows = list(csv.DictReader(fh))
    runs = sorted((folder / "runs").glob("*.xz"))
    assert len(runs) == len(rows) == 143
    df = unjudged.evaluate(runs, folder / "qrels" / "qrels-rnd1.txt",
                           ["nDCG@10", "P@5", "Bpref", "AP"], per_topic=False, complete=True,
                           ties="trec_eval9")
    got = {(r.run, r.measure): r.value for r in df.itertuples()}
    columns = {"nDCG@10": "ndcg@10", "P@5": "p@5", "Bpref": "bpref", "AP": "MAP"}
    wrong = [(row["run"], m, round(got[(row["run"], m)], 4), float(row[c]))
             for row in rows for m, c in columns.items()
             if round(got[(row["run"], m)], 4) != float(row[c])]
    assert wrong == []


def test_single_precision_ties_match_trec_eval9():
    """BERT's scores differ only beyond float precision: trec_eval 9 (the leaderboard's) ranks
    them as ties, trec_eval 10.0 (the default) apart."""
    folder = need(COVID1)
    run, qrels = folder / "runs" / "BERT.xz", folder / "qrels" / "qrels-rnd1.txt"
    df = unjudged.evaluate(run, qrels, ["nDCG@10", "AP"], per_topic=False, complete=True,
                           ties="trec_eval9")
    assert [round(v, 4) for v in df.value] == [0.1731, 0.0653]
    ten = unjudged.evaluate(run, qrels, ["nDCG@10", "AP"], per_topic=False, complete=True)
    assert [round(v, 4) for v in ten.value] == [0.1736, 0.0652]
    exact = unjudged.evaluate(run, qrels, ["nDCG@10"], per_topic=False, complete=True,
                              ties="docno")
    assert round(exact.value[0], 4) == 0.1736
