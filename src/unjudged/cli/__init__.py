"""The `unjudged` command line. Presentation only: every number comes from the library.

One module per family of commands; each registers its commands on `main` when imported.
Modules import only click at the top so that `unjudged --help` starts fast.
"""

from unjudged.cli import (  # noqa: F401
    compare,
    evaluate,
    experiment,
    judge,
    matrix,
    ndeval,
    plan,
    pool,
    qrels,
    report,
    sample_eval,
    sampling,
    text,
)
from unjudged.cli._base import main, write_output

__all__ = ["main", "write_output"]
