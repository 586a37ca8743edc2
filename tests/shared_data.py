"""Where the shared real TREC data lives (beside the repository); tests skip without it."""

from __future__ import annotations

from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
TREC_EVAL = DATA / "trec_eval" / "test"
COVID1 = DATA / "castorini-TREC-COVID" / "round1"


def need(path: Path) -> Path:
    """Skip the calling test with a clear message when shared data is absent."""
    if not path.exists():
        pytest.skip(f"shared data not found at {path} (clone with ../shared/data beside the repo)")
    return path
