"""The options of automatic judges that several commands take (`judge`, `estimate`, `eval`,
`report`, `plan`): apart from `unjudged.cli.judge`, so that those commands do not load it."""

from __future__ import annotations

import click

_JUDGE = click.option("--judge", "judges", multiple=True, required=True, metavar="FILE",
                      help="Automatic labels: `topic iter docno grade`, `topic docno p` or "
                      "`topic docno g0:p0,g1:p1,...` lines (repeat for several judges).")
_AUDIT = [
    click.option("--audit", default=None, metavar="SAMPLE",
                 help="The audit sample (`topic docno pi`, from `judge audit`); its human "
                 "grades are read from QRELS unless --audit-qrels gives them apart."),
    click.option("--audit-qrels", default=None, metavar="FILE",
                 help="The audited documents' human grades, if not merged into QRELS."),
    click.option("--design", default=None, metavar="FILE",
                 help="Every document the audit was drawn from with its pi (`judge audit "
                 "--design-out`); without it the undrawn documents' pi is estimated."),
]
_MEASURES = click.option("-m", "--measure", "measures", multiple=True,
                         help="P@k, RBP or nDCG (repeatable; default nDCG@10).")
_LEVEL = click.option("--ci", "level", type=click.FloatRange(0, 1, min_open=True,
                                                             max_open=True),
                      default=0.95, show_default=True, help="Interval level.")


def _audit_options(fn):
    for option in reversed(_AUDIT):
        fn = option(fn)
    return fn


#: --judge on estimate, eval, report and plan: optional, one per judge
JUDGE_OPTION = click.option(
    "--judge", "judges", multiple=True, metavar="FILE",
    help="An automatic judge's labels (LLM relevance labels): `topic iter docno grade`, "
    "`topic docno p` or `topic docno g0:p0,...` lines; repeat for several judges. Human "
    "qrels stay the truth wherever they exist (docs/judges.md).")


def judge_estimate_options(fn):
    """--judge, --audit SAMPLE, --audit-qrels and --design (estimate and report)."""
    for option in reversed([JUDGE_OPTION, *_AUDIT]):
        fn = option(fn)
    return fn


def check_judge_options(judges, audit, audit_qrels, design) -> None:
    """--audit and its companions need --judge; --audit-qrels and --design need --audit."""
    if not judges and (audit or audit_qrels or design):
        raise click.UsageError("--audit, --audit-qrels and --design go with --judge")
    if not audit and (audit_qrels or design):
        raise click.UsageError("--audit-qrels and --design go with --audit")
