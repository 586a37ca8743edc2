"""Readers: TREC runs and qrels from files, DataFrames and dicts."""

from unjudged.io.qrels import read_qrels
from unjudged.io.runs import read_run, read_runs

__all__ = ["read_qrels", "read_run", "read_runs"]
