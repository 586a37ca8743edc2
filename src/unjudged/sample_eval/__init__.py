"""sample_eval.pl compatibility: NIST's TREC copy and the TRECVID copy, printed byte for byte."""

from unjudged.sample_eval._lineage import LINEAGES, Lineage
from unjudged.sample_eval._run import run_sample_eval, sample_eval_text

__all__ = ["LINEAGES", "Lineage", "run_sample_eval", "sample_eval_text"]
