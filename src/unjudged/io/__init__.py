"""Readers: TREC runs and qrels from files, DataFrames and dicts."""

from unjudged.io._source import max_line_length, set_max_line_length
from unjudged.io.qrels import read_qrels
from unjudged.io.runs import read_run, read_runs

__all__ = ["max_line_length", "read_qrels", "read_run", "read_runs", "set_max_line_length"]
