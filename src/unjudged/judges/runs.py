"""`unjudged.estimate_runs`: the engine's estimate of the strategies for unjudged documents,
and with `judge=` the judges' prediction-powered estimates beside them, as `unjudged estimate
--judge J --audit S` prints them (docs/judges.md). Apart from the engine, which sits below
the judges."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from unjudged.data.qrels import Qrels
from unjudged.data.run import Run
from unjudged.engine.estimate import Estimates
from unjudged.engine.estimate import estimate_runs as _estimate_runs
from unjudged.errors import InvalidOptionError
from unjudged.measures import Measure
from unjudged.measures._parse import measures_given


def estimate_runs(runs: Iterable[Run], qrels: Qrels, measures: list[Measure] | Any, *,
                  judge: Any = None, audit: Any = None, audit_qrels: Any = None,
                  design: Any = None, **kwargs: Any) -> Estimates:
    """unjudged.engine.estimate.estimate_runs (the same arguments in `kwargs`), and with
    `judge` (a label file, bytes or Judge; a list for several judges) its prediction-powered
    estimates as rows of method `ppi` (`ppi[NAME]` with several judges) in `.rows()` and
    `.to_pandas()`: corrected by the human `audit` sample (`topic docno pi`; its grades in
    `qrels` or `audit_qrels`; `design`: every judge-labelled document's pi), with normal
    intervals at the estimate's `interval` level (0.9 by default). Without an audit they are
    the judge's scores as points, and a note says its errors are not covered.
    `.judged.pair_rows()`: their P(A > B) from `b` coupled draws (the estimate's seed).

    Example:
        >>> from unjudged.io import read_qrels, read_run
        >>> from unjudged.measures import parse_measures
        >>> q = read_qrels({"1": {"a": 1, "b": 0}})
        >>> run = read_run({"1": {"a": 3.0, "b": 2.0, "c": 1.0}}, name="r")
        >>> est = estimate_runs([run], q, parse_measures(["P@3"]), methods=["nonrel"],
        ...                     judge=b"1 0 c 1\\n")  # doctest: +SKIP
        >>> [(x["method"], round(x["value"], 4)) for x in est.rows(per_topic=False)]
        ...                                                  # doctest: +SKIP
        [('nonrel', 0.3333), ('ppi', 0.6667)]
    """
    measures = measures_given(measures)  # names too, as unjudged.estimate takes them
    if judge is None:
        if audit is not None or audit_qrels is not None or design is not None:
            raise InvalidOptionError("audit, audit_qrels and design go with judge")
        return _estimate_runs(runs, qrels, measures, **kwargs)
    from unjudged.judges.options import judge_estimates

    runs = list(runs)
    # the judges' inputs are checked before the bootstrap runs: bad inputs stop at once
    judged = judge_estimates(runs, qrels, judge, measures, audit=audit,
                             audit_qrels=audit_qrels, design=design)
    est = _estimate_runs(runs, qrels, measures, **kwargs)
    judged.level, judged.b, judged.seed = est.interval, est.b, est.seed
    est.judged = judged
    return est
