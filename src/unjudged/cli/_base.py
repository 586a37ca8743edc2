"""The `unjudged` command line. Presentation only: every number comes from the library.

User mistakes (bad files, unknown measures) become one line on stderr and exit code 2; output is
assembled completely before anything is written, so a failure leaves nothing half-written.
"""

from __future__ import annotations

import sys

import click

from unjudged import __version__
from unjudged.cli import _checks

# fail, lean_arrow and say live in cli._process (no click); the command modules take them here
from unjudged.cli._process import fail as fail
from unjudged.cli._process import guarded
from unjudged.cli._process import lean_arrow as lean_arrow
from unjudged.cli._process import say as say
from unjudged.policies import NEGATIVES, TIE_BREAKS
from unjudged.strategies.priors import (
    CAPS,
    DEFAULT_CAP,
    DEFAULT_PRIOR,
    DEFAULT_SHARED_SPREAD,
    DEFAULT_SPREAD,
    EMPTY_RUN,
    MAX_SPREAD,
    PRIORS,
)

FORMATS = ("table", "tsv", "csv", "jsonl", "trec")


def check_suffix(path: str | None, suffixes: tuple[str, ...], option: str,
                 any_case: bool = False) -> None:
    """A usage error unless `path` (when given) ends in one of `suffixes`; an OutputError
    unless it, and the command's -o (and --unjudged-out) file, can be written. Commands call this
    for their side outputs before any work, so no output is written when another one cannot
    be."""
    from unjudged.io.atomic import check_targets

    ctx = click.get_current_context(silent=True)
    outputs = [ctx.params.get(p) for p in ("output", "unjudged_out")] if ctx else []
    if path is not None and not (path.lower() if any_case else path).endswith(suffixes):
        either = ", ".join(suffixes[:-1]) + " or " + suffixes[-1] if len(suffixes) > 1 \
            else suffixes[0]
        raise click.BadParameter(f"{path}: expected a file name ending in {either}",
                                 param_hint=option)
    check_targets([path] + [p for p in outputs if isinstance(p, str)])


PLOT_SUFFIXES = (".png", ".pdf", ".svg")


def write_output(text: str | bytes, path: str | None) -> None:
    """Write all of `text` to stdout (None or '-') or to `path` by the rules of
    unjudged.io.atomic.write_file: atomically for files, in place for devices and FIFOs."""
    from unjudged.io.atomic import write_file

    write_file("-" if path is None else path, text)


#: The modules of unjudged.cli that define each command (experiment's subcommands live in four).
#: `unjudged CMD` imports only CMD's: all of them cost a tenth of a second on every call. Whatever
#: lists the commands (`unjudged --help`, `main.commands`) loads them all.
COMMAND_MODULES: dict[str, tuple[str, ...]] = {
    "eval": ("evaluate",), "estimate": ("evaluate",), "trec_eval": ("trec_eval",),
    "measures": ("evaluate",), "demo": ("evaluate",), "compare-qrels": ("compare",),
    "matrix": ("matrix",), "ndeval": ("ndeval",), "plan": ("plan",), "pool": ("pool",),
    "coverage": ("pool",), "qrels": ("qrels",), "report": ("report",), "infer": ("sampling",),
    "sample": ("sampling",), "sample_eval": ("sample_eval",), "text": ("text",),
    "experiment": ("experiment", "plan", "sampling", "text"), "judge": ("judge",),
}


def load_commands(modules=None) -> None:
    """Import the command modules named (all by default), which register their commands."""
    import importlib

    for module in sorted(set(modules or (m for ms in COMMAND_MODULES.values() for m in ms))):
        importlib.import_module(f"unjudged.cli.{module}")


class _Group(click.Group):
    """Turns the library's errors into one clear line and exit code 2; loads a command's module
    when the command is asked for (COMMAND_MODULES)."""

    @property  # type: ignore[override]
    def commands(self) -> dict[str, click.Command]:
        load_commands()
        return self._commands

    @commands.setter
    def commands(self, value: dict[str, click.Command]) -> None:
        self._commands = value

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        # click's own, but not through `commands`, which would load every module (and no
        # check for chained groups: main does not chain)
        name = name or cmd.name
        if name is None:
            raise TypeError("Command has no name.")
        self._commands[name] = cmd

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        # every module of the command, even when it is known already: `experiment` is
        # registered by the first of its four modules imported (infer's loads it), and its
        # subcommands in the others would stay missing in a process that ran infer before
        if cmd_name in COMMAND_MODULES:
            load_commands(COMMAND_MODULES[cmd_name])
        return self._commands.get(cmd_name)

    def invoke(self, ctx: click.Context):
        return guarded(lambda: super(_Group, self).invoke(ctx))


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="unjudged")
@click.option("--max-line-length", type=click.IntRange(min=1), default=None, metavar="BYTES",
              callback=_checks.clamped_2_63,
              help="Refuse input lines longer than this (default 1 MiB, or the environment "
              "variable UNJUDGED_MAX_LINE).")
def main(max_line_length: int | None) -> None:
    """Evaluate rankings honestly when relevance judgments are incomplete."""
    from unjudged.io._source import line_limit

    # for this command only: a caller invoking commands in-process keeps its own limit
    click.get_current_context().with_resource(line_limit(max_line_length))


def policy_options(fn):
    """The options that set trec_eval's conventions, shared by eval and estimate."""
    options = [
        click.option("-c", "--complete", is_flag=True, help="Average over all qrels topics; "
                     "topics a run lacks score 0 (trec_eval -c)."),
        click.option("-l", "--rel-level", type=int, default=1, show_default=True,
                     help="Smallest grade counted as relevant."),
        click.option("-M", "--depth", type=int, default=None, callback=_checks.below_2_63,
                     help="Keep only the top N per topic."),
        ties_option(),
        click.option("--negative", type=click.Choice(NEGATIVES),
                     default="unjudged", show_default=True,
                     help="Meaning of negative grades in the qrels."),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


def ties_option(default: str = "trec_eval", help: str = "Tie-breaking policy."):
    """--ties with the choices of unjudged.policies.TIE_BREAKS, `default` listed first.

    Example:
        >>> ties_option("file")(lambda ties: ties).__click_params__[0].type.choices
        ('file', 'trec_eval', 'trec_eval9', 'docno', 'rank', 'sample_eval')
    """
    choices = (default,) + tuple(t for t in TIE_BREAKS if t != default)
    return click.option("--ties", type=click.Choice(choices), default=default,
                        show_default=True, help=help)


def executor_options(fn):
    """--jobs and --dask: where the work runs. Results never depend on them."""
    options = [
        click.option("-j", "--jobs", type=click.IntRange(1), default=None,
                     callback=_checks.below_2_63,
                     help="Processes to spread the work over, at most the CPUs not busy "
                     "with other work (default: all of those; 1 runs in this process; with "
                     "--dask local, the cluster's workers)."),
        click.option("--dask", default=None, metavar="local|tcp://HOST:PORT",
                     help="Run on Dask: 'local' starts a cluster on this machine, an address "
                     "uses a running scheduler (needs unjudged[dask])."),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


def executor_from_options(jobs: int | None, dask: str | None):
    """The executor chosen by executor_options, to use as a context manager.

    Example:
        >>> with executor_from_options(1, None) as ex:
        ...     ex.map(len, ["ab"])
        [2]
    """
    from unjudged.parallel import local_jobs, make_executor

    # local processes only where processors are free (a Dask cluster sizes itself)
    return make_executor(jobs if dask else local_jobs(jobs), dask)


def _check_point(ctx, param, value):
    from unjudged.errors import InvalidOptionError
    from unjudged.strategies.summaries import parse_point

    try:
        parse_point(value)
    except InvalidOptionError as exc:
        raise click.BadParameter(str(exc)) from None
    return value


MEASURES = click.option("-m", "--measure", "measures", multiple=True, required=True,
                         callback=_checks.measure_names,
                         help="Measure, e.g. nDCG@10, P@5, AP, 'P(rel=2)@10', ndcg_cut_10. "
                         "Repeatable.")
def _check_prior(ctx, param, value: str) -> str:
    from unjudged.errors import InvalidOptionError
    from unjudged.strategies.priors import check_prior, split_prior

    if value == "text":  # the estimate command's text prior (with --corpus)
        return value
    try:
        check_prior(split_prior(value)[0])
        if value == "estimates":
            split_prior("estimates:")  # names the missing file
    except InvalidOptionError as exc:
        raise click.BadParameter(str(exc)) from None
    return value


PRIOR = click.option("--prior", default=DEFAULT_PRIOR, show_default=True,
                      callback=_check_prior,
                      metavar="|".join(PRIORS) + "|estimates:FILE|text",
                      help="Grade distribution the bootstrap draws from: the topic's judged "
                      "documents (pool), the ranking's (run), their average, by the document's "
                      "position among all the runs given (position), or relevance estimates "
                      "made elsewhere, blended with the topic's (estimates:FILE: `topic docno "
                      "p`, `topic docno g0:p0,g1:p1,...` or fractional qrels), or from the "
                      "documents' text (text, with --corpus; `unjudged estimate` only; "
                      "docs/unjudged-documents.md).")


def draw_options(f):
    """--interval, --spread, --shared-spread, --empty-run, --grow, --misfit, --trust, --cap: how
    the bootstrap draws and what interval it reports (docs/calibration.md says how the defaults
    were chosen). The command takes them as `**draw`, EstimateSettings' keyword arguments of the
    same names."""
    for option in reversed([
        click.option("--interval", type=click.FloatRange(0, 1, min_open=True, max_open=True),
                     default=0.9, show_default=True,
                     help="Level of the lo-hi interval given with every bootstrap value."),
        click.option("--spread", type=click.FloatRange(0, MAX_SPREAD), default=DEFAULT_SPREAD,
                     show_default=True, help="The prior's uncertainty per topic: sd of a "
                     "shift of its log-odds drawn per topic and iteration."),
        click.option("--shared-spread", type=click.FloatRange(0, MAX_SPREAD),
                     default=DEFAULT_SHARED_SPREAD,
                     show_default=True, help="The prior's uncertainty for the whole collection: "
                     "sd of a shift drawn per iteration, shared by all topics; documents ranked "
                     "past the judged ones take another of 3 times this sd (the depth shift)."),
        click.option("--empty-run", type=click.Choice(EMPTY_RUN), default="zero",
                     show_default=True, help="The run prior of a ranking with no judged "
                     "document: grade 0 (as the seed authors' code), or the pool's."),
        click.option("--grow/--no-grow", default=None, help="Drawn relevant documents add "
                     "to the normalisers (ideal DCG, number of relevant documents), as a "
                     "deeper judging would: the default with --prior pool or position (the "
                     "others cannot). --no-grow keeps the pool's normalisers, so that "
                     "estimates compare with scores on the pool (seed 000)."),
        click.option("--population", type=click.Choice(["these", "topics"]), default="these",
                     show_default=True, help="What run-level intervals, P(A > B) and rank "
                     "intervals cover: these topics' unjudged documents, or also the sampling "
                     "of topics (a bootstrap over topics in every iteration)."),
        click.option("--misfit/--no-misfit", default=True, show_default=True,
                     help="Shift each run's prior (position, estimates) by how its judged top-30 "
                     "documents deviate from the pool runs', with that shift's uncertainty "
                     "drawn in every iteration, so a run unlike the pool gets a wider "
                     "interval (docs/unjudged-documents.md)."),
        click.option("--trust", type=click.FloatRange(0, 1), default=None,
                     help="With --prior estimates:FILE, the weight of the estimates against the "
                     "topic prior [default: fitted on the judged documents that have an "
                     "estimate, and reported]."),
        click.option("--cap", type=click.Choice(CAPS), default=DEFAULT_CAP, show_default=True,
                     help="Whose drawn grades come from what the pool still has: measures with "
                     "a normaliser (nDCG, AP, recall...; P@k, RR, Success and RBP take the "
                     "grades as drawn), or all (seed 000)."),
    ]):
        f = option(f)
    return f
TABLE_FORMAT = click.option("-f", "--format", "fmt",
                            type=click.Choice(["table", "tsv", "csv", "jsonl"]),
                            default="table", show_default=True)
OUTPUT = click.option("-o", "--output", default=None,
                      help="Write to this file instead of stdout.")
B = click.option("-b", "--iterations", "b", type=click.IntRange(1), default=10_000,
                  show_default=True, help="Bootstrap iterations (the same default in eval, "
                  "estimate and report).")
SEED = click.option("--seed", type=int, default=0, show_default=True, callback=_checks.seed,
                     help="Random seed; results depend only on it and the inputs.")
POINT = click.option("--point", default="mean", show_default=True, callback=_check_point,
                      help="Bootstrap point estimate: mean, mode (the exact most frequent "
                      "value), most-likely (seed 000's: top of the fullest of 20 bins, binned "
                      "twice), median or a quantile such as q0.75.")


def progress(items, label: str):
    """Progress over `items` on stderr: a bar on a terminal, shown after two seconds;
    otherwise a line every 10 s and one at the end (unjudged.parallel.base.ProgressLog), so
    that long work piped to a file is not silent.

    Example:
        >>> list(progress(["a", "b"], "scoring"))
        ['a', 'b']
    """
    if not sys.stderr.isatty():
        from unjudged.parallel.base import ProgressLog

        total = len(items) if hasattr(items, "__len__") else None
        return ProgressLog(total, label, unit="runs", items=items)
    from tqdm import tqdm

    return tqdm(items, desc=label, unit="run", delay=2.0, leave=False, disable=None)
