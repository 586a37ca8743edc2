"""condensed: unjudged documents removed, order kept (trec_eval -J; Sakai's condensed lists).

A cutoff then counts judged documents only, so the rankings are condensed once per run.

Example:
    >>> Condensed().by_cutoff
    False
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from unjudged.strategies.base import AtCutoff, Fill

if TYPE_CHECKING:
    from unjudged.data.judged import Judged


class Condensed(Fill):
    name = "condensed"
    order = 20
    columns = ("condensed",)
    description = "unjudged documents removed, order kept (trec_eval -J, condensed lists)"
    by_cutoff = False

    def rankings(self, at: AtCutoff) -> tuple[Judged, ...]:
        from unjudged.strategies import fill

        return (fill.condensed(at.whole),)
