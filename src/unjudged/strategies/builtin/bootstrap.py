"""bootstrap: score distributions under unjudged documents (seed 000, section 3.2), drawn by the
kernels of `unjudged.strategies.bootstrap`; reported as a point estimate with the statistics of
the distribution.

Example:
    >>> Bootstrap().random, Bootstrap().variants
    (True, ('pool', 'run', 'pool+run'))
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from unjudged.strategies.base import AtCutoff, DrawOptions, Sampled
from unjudged.strategies.priors import PRIORS, check_prior

if TYPE_CHECKING:
    import numpy as np

    from unjudged.measures import Measure

class Bootstrap(Sampled):
    name = "bootstrap"
    order = 40
    columns = ("bootstrap",)
    description = "grades of unjudged documents drawn b times from a prior (a distribution)"
    from_pool = True
    variants = PRIORS
    note = ("# bootstrap: b={b}, prior={prior}, seed={seed}; value = {point} of the "
            "distribution.")

    def check(self, options: DrawOptions) -> None:
        check_prior(options.prior)

    def draw(self, at: AtCutoff, measures: list[Measure], cols: list[int], out: np.ndarray,
             options: DrawOptions) -> None:
        from unjudged.strategies import bootstrap as bs

        base = at.top
        # every cutoff restarts the (run, topic) streams: a measure's samples do not depend
        # on which other measures are estimated with it
        streams = [bs.stream(options.seed, base.run_name, t) for t in base.topics]
        for t0, t1, i0, i1 in bs.batches(len(base.topics), options.b, base.depth):
            batch = bs.sample(base, options.prior, streams, t0, t1, i0, i1)
            for col, m in zip(cols, measures, strict=True):
                out[i0:i1, t0:t1, col] = m.compute(batch)
