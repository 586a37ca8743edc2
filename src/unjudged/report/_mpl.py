"""matplotlib, loaded on first use with a backend that needs no screen."""

from __future__ import annotations


def pyplot():
    """matplotlib.pyplot with the Agg backend (figures go to files, never to a window)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def shown(name: object) -> str:
    r"""A name from the inputs as figure text: controls as escapes (no missing-glyph noise) and
    '$' escaped, so that a name is never parsed as (possibly invalid) math.

    Example:
        >>> shown("a$x$\x1b")
        'a\\$x\\$\\x1b'
    """
    from unjudged.report.rows import terminal_text

    return terminal_text(str(name)).replace("$", "\\$")
