"""The `unjudged` command line. Presentation only: every number comes from the library.

One module per family of commands; each registers its commands on `main` when imported, and
`main` imports a command's module when the command is asked for (cli._base.COMMAND_MODULES), so
that `unjudged CMD` pays only for its own. Modules import only click at the top so that
`unjudged --help` starts fast; this package itself loads click only when `main` is asked for,
so that `python -m unjudged trec_eval` can run without it (cli._fast).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from unjudged.cli._base import main, write_output

__all__ = ["entry", "main", "write_output"]


def entry() -> None:
    """The `unjudged` console script: a plain `unjudged trec_eval QRELS RUN` call runs
    without click (cli._fast), as `python -m unjudged` does; any other call is click's."""
    import sys

    try:
        from unjudged.cli._fast import main as plain_trec_eval

        plain_trec_eval(sys.argv[1:])  # returns unless argv is a plain `trec_eval` call
        from unjudged.cli._base import main as click_main

        click_main()
    except OSError as exc:  # writing the output itself (a full disk): every command, --help
        from unjudged.cli._process import output_failed

        output_failed(exc)


def __getattr__(name: str) -> Any:
    if name in ("main", "write_output"):
        from unjudged.cli import _base

        return getattr(_base, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
