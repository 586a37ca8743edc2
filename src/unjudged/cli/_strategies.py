"""Command-line choices read from the strategy registry (unjudged.strategies.registry), so a
registered strategy is offered by `eval --unjudged`, `estimate --methods` and `experiment
leave-one-group-out --strategies` without editing the commands."""

from __future__ import annotations

from typing import Any

import click

from unjudged.strategies.registry import STRATEGIES


class StrategyColumn(click.Choice):
    """A reported column of any registered strategy (nonrel ... guaranteed_upper), read from
    the registry when the option is parsed."""

    def __init__(self) -> None:
        super().__init__(())

    @property  # click stores a tuple; this one is read live
    def choices(self) -> tuple[str, ...]:
        return STRATEGIES.columns()

    @choices.setter
    def choices(self, value: Any) -> None:
        pass  # click's __init__ sets it; the registry is the source


def all_methods() -> str:
    """`estimate --methods`' default: every registered strategy."""
    return ",".join(STRATEGIES.names())


def all_comparable() -> str:
    """`experiment leave-one-group-out --strategies`' default."""
    return ",".join(STRATEGIES.comparable())


def methods_help() -> str:
    """Each strategy's one line and the default, for `estimate --help` (the default as click
    shows a static one: the value itself is read from the table when the option is parsed)."""
    return ("Comma-separated strategies to report: "
            + "; ".join(f"{s.name}: {s.description}" for s in STRATEGIES)
            + f".  [default: {all_methods()}]")
