"""Tiny collections written to a temporary folder, for command-line tests."""

from __future__ import annotations

from pathlib import Path


def write_collection(folder: Path, qrels: str, runs: dict[str, str]) -> tuple[str, Path]:
    """Write `qrels` and each run (file name -> text) into `folder`; (qrels path, runs dir)."""
    (folder / "qrels").write_text(qrels)
    run_dir = folder / "runs"
    run_dir.mkdir()
    for name, text in runs.items():
        (run_dir / name).write_text(text)
    return str(folder / "qrels"), run_dir
