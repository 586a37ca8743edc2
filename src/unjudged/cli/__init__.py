"""The `unjudged` command line. Presentation only: every number comes from the library.

One module per family of commands; each registers its commands on `main` when imported, and
`main` imports a command's module when the command is asked for (cli._base.COMMAND_MODULES), so
that `unjudged CMD` pays only for its own. Modules import only click at the top so that
`unjudged --help` starts fast.
"""

from unjudged.cli._base import main, write_output

__all__ = ["main", "write_output"]
