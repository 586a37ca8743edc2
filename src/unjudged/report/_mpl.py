"""matplotlib, loaded on first use with a backend that needs no screen."""

from __future__ import annotations


def pyplot():
    """matplotlib.pyplot with the Agg backend (figures go to files, never to a window)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig, path, **savefig: object) -> None:
    """Write `fig` to `path` through the one writer (format from the ending), then close it:
    a figure is drawn for one file and never shown."""
    from unjudged.io.atomic import write_figure

    try:
        write_figure(fig, path, **savefig)
    finally:
        pyplot().close(fig)


def shown(name: object) -> str:
    r"""A name from the inputs as figure text: controls as escapes (no missing-glyph noise) and
    '$' escaped, so that a name is never parsed as (possibly invalid) math.

    Example:
        >>> shown("a$x$\x1b")
        'a\\$x\\$\\x1b'
    """
    from unjudged.report.rows import terminal_text

    return terminal_text(str(name)).replace("$", "\\$")


def short(name: object, width: int = 40) -> str:
    r"""shown(name), with the middle of a name longer than `width` characters replaced by an
    ellipsis: a 150-character run name must not squeeze a figure's plot to nothing.

    Example:
        >>> short("x" * 30 + "$" + "y" * 30, width=11)
        'xxxxx…yyyyy'
        >>> short("run$1")
        'run\\$1'
    """
    text = str(name)
    if len(text) > width:
        keep = width - 1
        text = text[:keep - keep // 2] + "…" + text[len(text) - keep // 2:]
    return shown(text)
