"""bootstrap: score distributions under unjudged documents (seed 000, section 3.2), drawn by the
kernels of `unjudged.strategies.bootstrap`; reported as a point estimate with the statistics of
the distribution.

Example:
    >>> Bootstrap().random, Bootstrap().variants
    (True, ('pool', 'run', 'pool+run', 'position'))
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from unjudged.strategies.base import AtCutoff, DrawOptions, Sampled
from unjudged.strategies.priors import PRIORS, check_draw_options

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
    note = ("# bootstrap: b={b}, prior={prior}, seed={seed}, normalisers {normalisers}; "
            "value = {point} of the "
            "distribution; {interval} interval: its equal-tailed quantiles ({covers}).")

    def check(self, options: DrawOptions) -> None:
        check_draw_options(options)

    def draw(self, at: AtCutoff, measures: list[Measure], cols: list[int], out: np.ndarray,
             options: DrawOptions) -> None:
        from unjudged.strategies import bootstrap as bs

        base = at.top
        how = bs.Draw(options.prior, options.seed, at.cell_keys(base.depth), at.model,
                      options.spread, options.shared_spread, options.empty_run, at.growth,
                      at.run_shift)
        # a measure without a normaliser takes the grades as drawn, unless every one is capped;
        # growing normalisers take every drawn grade (one batch serves all measures)
        capped = [at.growth is None and (options.cap == "all" or m.spec.normalised)
                  for m in measures]
        kinds = tuple(dict.fromkeys(capped))
        for t0, t1, i0, i1 in bs.batches(len(base.topics), options.b, base.depth):
            batch = bs.samples(base, how, t0, t1, i0, i1, kinds)
            for col, m, cap in zip(cols, measures, capped, strict=True):
                out[i0:i1, t0:t1, col] = m.compute(batch[cap])
