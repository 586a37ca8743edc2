"""expected: the exact expectation and variance of a measure when every unjudged document's
grade is an independent draw from the prior (unjudged.strategies.expected), beside the
bootstrap's distribution; only when asked for (`--methods expected`).

Example:
    >>> s = Expected()
    >>> s.random, s.default, s.columns
    (False, False, ('expected',))
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from unjudged.strategies.base import AtCutoff, Drawing, Moments

if TYPE_CHECKING:
    import numpy as np

    from unjudged.measures import Measure


class Expected(Moments):
    name = "expected"
    order = 45
    columns = ("expected",)
    description = ("the exact expectation and variance when unjudged documents draw their "
                   "grades independently from the prior (P@k, nDCG@k, RBP, AP; MTC's expected "
                   "measures); only when asked for")
    default = False
    note = ("# expected: prior={prior}; value = the expectation when every unjudged document "
            "draws its grade independently from the prior (nDCG and AP: over the normaliser's "
            "expectation); {interval} interval: normal, from its variance and the prior's "
            "uncertainty (the bootstrap's spreads).")

    def applies(self, m: Measure) -> bool:
        from unjudged.strategies.expected import supports

        return bool(m.spec.estimable) and supports(m)

    def moments(self, at: AtCutoff, measures: list[Measure], options: Drawing
                ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        import numpy as np

        from unjudged.strategies import expected as ex
        from unjudged.strategies.fill import unknown
        from unjudged.strategies.growth import shift_grades

        base = at.top
        levels = ex.levels_of(base)
        keys = at.cell_keys(base.depth) if at.keys is not None else None
        dist = ex.grade_distributions(base, options, at.model, keys, levels)
        whole = None if at.expected is not None else \
            ex.grade_distributions(at.whole, options, at.model, at.keys, levels)

        def at_shift(d: float) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
            """The distributions and the normalisers' growth with every unjudged document's
            log-odds moved by d."""
            moved = np.where(unknown(base.grades)[..., None], shift_grades(dist, d), dist)
            if at.expected is not None:
                return moved, at.expected.of(base.topics, levels, d)
            assert whole is not None  # the normalisers grow by this run's own documents
            return moved, ex.own_growth(at.whole, shift_grades(whole, d))

        spread = bool(options.spread or options.shared_spread)
        states = {d: at_shift(d) for d in (ex.SHIFTS if spread else (0.0,))}
        total = options.spread ** 2 + options.shared_spread ** 2
        out = []
        for m in measures:
            mean, var = ex.moments(m, base, *states[0.0])
            if not spread:
                out.append((mean, var, np.zeros_like(mean)))
                continue
            # the prior's own uncertainty (the bootstrap's per-topic and shared shifts of
            # every log-odds): the law of total variance, the expectation linear in the shift
            slope = (ex.moments(m, base, *states[ex.SHIFT])[0]
                     - ex.moments(m, base, *states[-ex.SHIFT])[0]) / (2 * ex.SHIFT)
            out.append((mean, var + total * slope ** 2, options.shared_spread * slope))
        return out
