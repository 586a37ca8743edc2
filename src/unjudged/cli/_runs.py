"""Reading runs on the command line: the shared --names and --strict options, the notes and
warnings about what was read, and --baseline's choice of run."""

from __future__ import annotations

import os

import click

from unjudged.cli._base import say
from unjudged.errors import IncompatibleInputsError, UnjudgedError
from unjudged.policies import NAME_MODES, NameMode, Policies


def run_options(fn):
    """--names and --strict, for every command that reads runs."""
    options = [
        click.option("--names", type=click.Choice(NAME_MODES), default="tag",
                     show_default=True, help="Name runs by their tag (the first line's last "
                     "field; runs sharing a tag are named by their files) or by file name."),
        click.option("--strict", is_flag=True, help="Fail (exit 2) instead of warning: a run "
                     "sharing no topic with the qrels, a file skipped as not a run, a run "
                     "renamed because its tag was taken."),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


POOL_RUNS = click.option(
    "--pool-runs", "pool_runs", multiple=True, metavar="RUNS",
    help="Runs (files, directories or globs; repeat the option for more) that define the pool "
    "context: the position prior's features and the unjudged documents whose drawn grades grow "
    "the normalisers. Without it each run's context is the qrels and that run alone, so a "
    "run's estimate never depends on the other runs passed beside it (pass the same runs "
    "here as positionally to let them inform each other).")


def pool_runs_of(sources, qrels, policies: Policies | None = None,
                 strict: bool = False) -> list | None:
    """The --pool-runs, read with the command's ties (their ranks are the prior's
    features); None when none was named. Files a directory or glob held that are not runs
    are said to be skipped, as for the runs (errors under --strict)."""
    if not sources:
        return None
    from unjudged.io.runs import iter_runs

    notes = Notes(strict)
    ties = (policies or Policies()).ties
    return list(iter_runs(list(sources), ties=ties, qrels=qrels, names="file",
                          notify=lambda message: notes.note(f"--pool-runs: {message}")))


def runs_and_pool(sources, pool_sources, qrels, *, policies: Policies | None = None,
                  names: NameMode = "tag", strict: bool = False):
    """(the runs to estimate, the --pool-runs or None): when both name the same files (the
    common `RUNS... --pool-runs RUNS...`), they are read once and are the same Run objects."""
    if not pool_sources:
        return cli_runs(sources, qrels, policies=policies, names=names, strict=strict), None
    from unjudged.io.paths import expand_paths

    def files(given) -> list | None:
        """The regular files named, or None when anything else is (stdin, a FIFO)."""
        found = expand_paths(list(given), lambda message: None)
        if not all(isinstance(p, str) and os.path.isfile(p) for p in found):
            return None
        return sorted(os.path.realpath(p) for p in found)

    mine = files(sources)
    if mine and mine == files(pool_sources):
        runs = list(cli_runs(sources, qrels, policies=policies, names=names, strict=strict))
        return runs, runs
    return (cli_runs(sources, qrels, policies=policies, names=names, strict=strict),
            pool_runs_of(pool_sources, qrels, policies, strict))


class Notes:
    """Prints notes and warnings on stderr; under --strict each one is an error instead."""

    def __init__(self, strict: bool = False) -> None:
        self.strict = strict

    def note(self, message: str) -> None:
        self._say("note", message)

    def warning(self, message: str) -> None:
        self._say("warning", message)

    def _say(self, kind: str, message: str) -> None:
        if self.strict:
            raise UnjudgedError(f"{message} (--strict)")
        say(f"unjudged: {kind}: {message}")


def cli_runs(sources, qrels=None, *, policies: Policies | None = None,
             names: NameMode = "tag", strict: bool = False):
    """Read runs one at a time, with notes on stderr (errors under --strict): files skipped,
    runs renamed, topics the qrels lack, and runs that share no topic with them. The runs'
    ties are broken by `policies` (trec_eval's by default), the command's one Policies."""
    from unjudged.io.runs import iter_runs

    notes = Notes(strict)
    ties = (policies or Policies()).ties
    runs = iter_runs(sources, ties=ties, qrels=qrels, names=names, notify=notes.note)
    return runs if qrels is None else checking_topics(runs, qrels, notes)


def checking_topics(runs, qrels, notes: Notes):
    """Pass runs through one at a time, noting topics the qrels lack (trec_eval ignores them)
    and warning of runs that share none: their scores say nothing about them."""
    for run in runs:
        check_topics(run.name, run.topics, run.source, qrels, notes)
        yield run
        del run  # not kept alive while the next run is read


def check_topics(name: str, topics: list[str], source: str, qrels, notes: Notes) -> None:
    """Note the topics of run `name` that the qrels lack; warn when it shares none."""
    extra = [t for t in topics if t not in qrels.topic_index]
    if extra and len(extra) == len(topics):
        notes.warning(f"run {name} (file {source}) shares no topic with the qrels "
                      f"{qrels.source}; its scores are meaningless")
    elif extra:
        shown = ", ".join(extra[:5]) + (" ..." if len(extra) > 5 else "")
        say(f"unjudged: note: run {name}: {len(extra)} topic(s) not in the qrels are "
            f"ignored ({shown})")


def baseline_name(runs, wanted: str) -> str:
    """The name of the run `wanted` names, by run name or by the file it came from."""
    for r in runs:
        if wanted in (r.name, r.source) or (not r.source.startswith("<") and
                                            os.path.abspath(wanted) == os.path.abspath(r.source)):
            return r.name
    names = ", ".join(r.name for r in runs[:10]) + (" ..." if len(runs) > 10 else "")
    raise IncompatibleInputsError(f"--baseline {wanted}: not among the runs (by name or file), "
                                  f"which are: {names}")
