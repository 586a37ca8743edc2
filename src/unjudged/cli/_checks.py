"""Option values refused before any work, each with one line naming the option (exit 2, no
traceback): click callbacks shared by the commands."""

from __future__ import annotations

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
