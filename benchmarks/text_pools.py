"""The settings shared by the benches (calibration, planning, estimates prior, expected): on
the text collections unjudged's retrieval models as runs and a shallow pool of three of them;
TREC-COVID round 1's runs on qrels-rnd1 with the complete qrels as the truth."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from unjudged.io import read_qrels

#: the runs whose top documents are pooled (the others are "new" systems)
POOL_MODELS = ("bm25", "ql-dir", "tfidf")


def shallow_pool(c: Any, runs: list, depth: int = 10, models: tuple[str, ...] = POOL_MODELS):
    """The qrels of the top `depth` documents (trec_eval's order: score descending, then docno
    descending) of the runs named `models`, graded by the collection's qrels (0 when not
    listed)."""
    full = c.qrels.to_dict()
    pooled: dict[str, dict[str, int]] = {t: {} for t in c.topics}
    for r in runs:
        if r.name in models:
            for t, docs in r.to_dict().items():
                top = sorted(docs.items(), key=lambda x: (x[1], x[0]), reverse=True)[:depth]
                for d, _ in top:
                    pooled.setdefault(t, {})[d] = full.get(t, {}).get(d, 0)
    return read_qrels({t: v for t, v in pooled.items() if v})


def text_setting(name: str, data: Path, depth: int = 10):
    """(collection, its runs at depth 100, the depth-`depth` pool)."""
    from unjudged.text.collections import load_collection
    from unjudged.text.retrieval import generate_runs

    c = load_collection(name, data)
    runs = generate_runs(c, depth=100)
    return c, runs, shallow_pool(c, runs, depth)


def covid_setting(data: Path) -> tuple[list, Any, Any]:
    """TREC-COVID round 1: (the 143 runs, qrels-rnd1, the complete qrels on its topics)."""
    from unjudged.io import read_runs

    round1 = data / "castorini-TREC-COVID" / "round1"
    q1 = read_qrels(round1 / "qrels" / "qrels-rnd1.txt")
    complete = read_qrels(data / "anserini-tools" / "qrels" / "qrels.covid-complete.txt")
    full = complete.to_dict()
    truth = read_qrels({t: full[t] for t in q1.topics})
    return read_runs([round1 / "runs"], qrels=q1), q1, truth
