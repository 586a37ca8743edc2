"""Option values refused before any work, each with one line naming the option (exit 2, no
traceback): click callbacks shared by the commands."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from unjudged.errors import InvalidOptionError


def measure_names(ctx: Any, param: Any, values: tuple[str, ...]) -> tuple[str, ...]:
    """-m's values: a blank one (`-m ''`, `-m ' , '`) names no measure, which is refused rather
    than leaving a command with nothing to compute.

    Example:
        >>> measure_names(None, None, ("P@5", "nDCG@10 AP"))
        ('P@5', 'nDCG@10 AP')
        >>> try:
        ...     measure_names(None, None, ("P@5", " "))
        ... except InvalidOptionError as exc:
        ...     print(exc)
        -m: empty measure name ' '; expected names such as 'nDCG@10', or several as 'P@5 AP'
    """
    for value in values:
        if not value.replace(",", " ").split():
            raise InvalidOptionError(f"-m: empty measure name {value!r}; expected names such as "
                                     "'nDCG@10', or several as 'P@5 AP'")
    return values


def seed(ctx: Any, param: Any, value: int | None) -> int | None:
    """--seed: a whole number >= 0, as numpy's SeedSequence takes, in every command (estimate
    once took -1 while matrix --test bootstrap and infer's intervals failed on it).

    Example:
        >>> seed(None, None, 2 ** 70)
        1180591620717411303424
        >>> try:
        ...     seed(None, None, -1)
        ... except InvalidOptionError as exc:
        ...     print(exc)
        --seed: expected a whole number >= 0, not -1
    """
    if value is not None and value < 0:
        raise InvalidOptionError(f"--seed: expected a whole number >= 0, not {value}")
    return value


#: The largest whole number an option takes: numpy's and the C library's 64-bit integers end
#: here (a larger -M or pool -k stopped with OverflowError).
LARGEST = 2 ** 63 - 1


def below_2_63(ctx: Any, param: Any, value: int | None) -> int | None:
    """Whole-number options: at most LARGEST (their lower bound is the option's own type).

    Example:
        >>> class M:
        ...     opts = ["-M"]
        >>> try:
        ...     below_2_63(None, M, 2 ** 63)
        ... except InvalidOptionError as exc:
        ...     print(exc)
        -M: expected a whole number up to 9223372036854775807, not 9223372036854775808
    """
    if value is not None and value > LARGEST:
        raise InvalidOptionError(f"{param.opts[0]}: expected a whole number up to {LARGEST}, "
                                 f"not {value}")
    return value


def clamped_2_63(ctx: Any, param: Any, value: int | None) -> int | None:
    """A limit beyond LARGEST limits nothing more than LARGEST does: --max-line-length (parsed
    before any command, where an error could not be one line).

    Example:
        >>> clamped_2_63(None, None, 2 ** 70) == LARGEST
        True
    """
    return value if value is None else min(value, LARGEST)


def refuse_given(names: Iterable[str], why: str) -> None:
    """Refuse, in one line, the options among `names` (click parameter names) that the user
    gave (on the command line or through the environment) although the command ignores them
    in this use: an option either applies or is refused. `why` ends the sentence, e.g.
    "without --audit N --judge FILE".

    Example (a command whose --b applies only with --x):
        >>> import click
        >>> @click.command()
        ... @click.option("--x", is_flag=True)
        ... @click.option("--b", type=int, default=1)
        ... def cmd(x, b):
        ...     if not x:
        ...         refuse_given(["b"], "without --x")
        >>> from click.testing import CliRunner
        >>> CliRunner().invoke(cmd, ["--b", "2"]).output.splitlines()[-1]
        'Error: --b does not apply without --x'
        >>> CliRunner().invoke(cmd, []).exit_code
        0
    """
    import click
    from click.core import ParameterSource

    ctx = click.get_current_context()
    wanted = set(names)
    given = [p for p in ctx.command.params if p.name in wanted and
             ctx.get_parameter_source(p.name) in (ParameterSource.COMMANDLINE,
                                                  ParameterSource.ENVIRONMENT)]
    if given:
        flags = ", ".join("/".join(max(opts, key=len) for opts in (p.opts, p.secondary_opts)
                                   if opts) for p in given)
        verb = "does" if len(given) == 1 else "do"
        raise click.UsageError(f"{flags} {verb} not apply {why}")
