"""upper: the comparable naive upper bound (seed 000, section 3.1): walking the unjudged documents
from the top, each takes the highest grade the pool still has.

Only measures that never decrease when a document's grade rises (`spec.monotone`) are bounded
by it.

Example:
    >>> from unjudged.measures import parse_measure
    >>> Upper().applies(parse_measure("P@5")), Upper().applies(parse_measure("Judged@5"))
    (True, False)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from unjudged.strategies.base import AtCutoff, Fill

if TYPE_CHECKING:
    from unjudged.data.judged import Judged
    from unjudged.measures import Measure


class Upper(Fill):
    name = "upper"
    order = 30
    columns = ("upper",)
    description = "each unjudged document takes the best grade the pool still has (upper bound)"
    from_pool = True

    def applies(self, m: Measure) -> bool:
        return bool(m.spec.estimable and m.spec.monotone)

    def rankings(self, at: AtCutoff) -> tuple[Judged, ...]:
        from unjudged.strategies import fill

        return (fill.upper(at.top),)
