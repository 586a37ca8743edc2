"""Readers: TREC runs and qrels from files, DataFrames and dicts.

The readers load on first use: the command line imports unjudged.io._source (the line limit)
before it parses a command's arguments, and `unjudged CMD --help` must not pay for numpy and
pyarrow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from unjudged.io._source import max_line_length, set_max_line_length

if TYPE_CHECKING:
    from unjudged.io.qrels import read_qrels
    from unjudged.io.runs import read_run, read_runs

__all__ = ["max_line_length", "read_qrels", "read_run", "read_runs", "set_max_line_length"]

_LAZY = {"read_qrels": "unjudged.io.qrels", "read_run": "unjudged.io.runs",
         "read_runs": "unjudged.io.runs"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'unjudged.io' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
