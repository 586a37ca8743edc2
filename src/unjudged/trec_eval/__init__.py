"""trec_eval 10 compatibility: its measure table, parameter syntax and output layout."""

from unjudged.trec_eval._run import run_trec_eval

__all__ = ["run_trec_eval"]
