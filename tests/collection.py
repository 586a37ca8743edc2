"""Tiny collections: written to a temporary folder for command-line tests, or drawn by
Hypothesis for property tests."""

from __future__ import annotations

from pathlib import Path

from hypothesis import strategies as st

TOPICS = ["q1", "q2", "q10"]
DOCS = ["d0", "d1", "d2", "d10", "d11", "D3", "a", "z9", "b-1", "c", "e", "f"]


@st.composite
def collections(draw):
    """(qrels, run) dicts over three topics; grades -1..3, some ranked documents unjudged."""
    qrels = {t: draw(st.dictionaries(st.sampled_from(DOCS), st.integers(-1, 3), min_size=1,
                                     max_size=10)) for t in TOPICS}
    run = {}
    for t in TOPICS:
        docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=10, unique=True))
        run[t] = {d: float(len(docs) - i) for i, d in enumerate(docs)}
    return qrels, run


def write_collection(folder: Path, qrels: str, runs: dict[str, str]) -> tuple[str, Path]:
    """Write `qrels` and each run (file name -> text) into `folder`; (qrels path, runs dir)."""
    (folder / "qrels").write_text(qrels)
    run_dir = folder / "runs"
    run_dir.mkdir()
    for name, text in runs.items():
        (run_dir / name).write_text(text)
    return str(folder / "qrels"), run_dir
