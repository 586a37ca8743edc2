"""trec_eval 10 compatibility: its measure table, parameter syntax and output layout, on qrels
and on its preference formats (-R prefs, qrels_prefs, qrels_jg)."""

from unjudged.trec_eval._prefs import run_trec_eval_prefs
from unjudged.trec_eval._run import run_trec_eval

__all__ = ["run_trec_eval", "run_trec_eval_prefs"]
