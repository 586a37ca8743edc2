"""trec_eval 10 compatibility: its measure table, parameter syntax and output layout, on qrels
and on its preference formats (-R prefs, qrels_prefs, qrels_jg).

The two entry points load on first use: `unjudged trec_eval` on qrels needs only `_run`."""

from typing import Any

__all__ = ["run_trec_eval", "run_trec_eval_prefs"]


def __getattr__(name: str) -> Any:
    if name == "run_trec_eval":
        from unjudged.trec_eval._run import run_trec_eval

        return run_trec_eval
    if name == "run_trec_eval_prefs":
        from unjudged.trec_eval._prefs import run_trec_eval_prefs

        return run_trec_eval_prefs
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
