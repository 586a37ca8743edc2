"""Strategies for unjudged documents: what an unjudged document counts as when a run is scored.

One module per strategy in `builtin` (nonrel, condensed, upper, bootstrap, guaranteed), each a
class of `base`; `registry.STRATEGIES` finds them. The deterministic kernels they share are in
`fill`, the bootstrap's sampling in `bootstrap` (its priors in `priors`), and the summaries of
samples in `summaries`.
"""
