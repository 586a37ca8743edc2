"""guaranteed: bounds that hold whatever the unjudged documents' grades (seed 000, section 3.3),
reported as guaranteed_lower and guaranteed_upper.

They change the normaliser (the ideal ranking), so they are NOT comparable with other runs'
scores; each value is clipped to the measure's range.

Example:
    >>> Guaranteed().columns, Guaranteed().comparable
    (('guaranteed_lower', 'guaranteed_upper'), False)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from unjudged.strategies.base import AtCutoff, Fill

if TYPE_CHECKING:
    import numpy as np

    from unjudged.data.judged import Judged
    from unjudged.measures import Measure


class Guaranteed(Fill):
    name = "guaranteed"
    order = 50
    columns = ("guaranteed_lower", "guaranteed_upper")
    description = ("bounds that hold whatever the unjudged documents' grades (another "
                   "normaliser: not comparable)")
    comparable = False
    note = ("# guaranteed_lower/upper hold whatever the unjudged documents' grades but use "
            "another normaliser: NOT comparable with other runs' scores.")

    def applies(self, m: Measure) -> bool:
        return bool(m.spec.estimable and m.spec.guaranteed)

    def rankings(self, at: AtCutoff) -> tuple[Judged, ...]:
        from unjudged.strategies import fill

        return fill.guaranteed_lower(at.whole, at.k), fill.guaranteed_upper(at.top)

    def values(self, m: Measure, rankings: tuple[Judged, ...]) -> tuple[np.ndarray, ...]:
        import numpy as np

        lower, upper = rankings
        low_end, high_end = m.spec.bounded or (-np.inf, np.inf)
        high = np.minimum(m.compute(upper), high_end)
        if m.spec.normalised and np.isfinite(high_end):
            # no relevant document judged: the pool's normaliser is 0 and the measure with it,
            # but an unjudged one found relevant could make the score the top of its range
            empty = (upper.pool.num_rel(1) == 0) & (upper.grades > 0).any(axis=-1)
            high = np.where(empty, high_end, high)
        return np.maximum(m.compute(lower), low_end), high
