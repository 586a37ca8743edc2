"""nonrel: trec_eval's reading, unjudged documents count as non-relevant (the naive lower bound).

It applies to every measure: measures about the judgments themselves (Judged@k, ...) take their
value from it under every other strategy too.

Example:
    >>> NonRel().columns, NonRel().comparable
    (('nonrel',), True)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from unjudged.strategies.base import AtCutoff, Fill

if TYPE_CHECKING:
    from unjudged.data.judged import Judged
    from unjudged.measures import Measure


class NonRel(Fill):
    name = "nonrel"
    order = 10
    columns = ("nonrel",)
    description = "unjudged documents count as non-relevant (trec_eval; the naive lower bound)"
    from_pool = True

    def applies(self, m: Measure) -> bool:
        return True

    def rankings(self, at: AtCutoff) -> tuple[Judged, ...]:
        return (at.top,)
