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

__all__ = ["main", "write_output"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from unjudged.cli import _base

        return getattr(_base, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
