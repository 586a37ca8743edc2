"""Paths of the example data shipped inside the package (see data/example/SOURCE.md)."""

from __future__ import annotations

from pathlib import Path

EXAMPLE_DIR = Path(__file__).with_name("example")


def example_paths() -> tuple[str, list[str]]:
    """(qrels path, run paths) of the TREC-COVID round-1 example.

    Example:
        >>> qrels, runs = example_paths()
        >>> len(runs)
        5
    """
    runs = sorted(str(p) for p in EXAMPLE_DIR.glob("*.run.xz"))
    return str(EXAMPLE_DIR / "qrels-rnd1.txt.xz"), runs
