"""matplotlib, loaded on first use with a backend that needs no screen."""

from __future__ import annotations


def pyplot():
    """matplotlib.pyplot with the Agg backend (figures go to files, never to a window)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt
