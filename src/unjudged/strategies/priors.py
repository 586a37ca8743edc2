"""The bootstrap's priors: where an unjudged document's grade is drawn from.

Kept apart from the sampling kernels (`unjudged.strategies.bootstrap`, numpy) so that the
strategy table and the command line can name them without loading numpy.
"""

from __future__ import annotations

from unjudged.errors import InvalidOptionError

#: Where an unjudged document's grade is drawn from: the topic's judged documents, the ranking's,
#: or their average.
PRIORS = ("pool", "run", "pool+run")


def check_prior(prior: str) -> None:
    """Refuse a prior that is not one of PRIORS.

    Example:
        >>> check_prior("uniform")
        Traceback (most recent call last):
        ...
        unjudged.errors.InvalidOptionError: prior must be one of pool, run, pool+run, not 'uniform'
    """
    if prior not in PRIORS:
        raise InvalidOptionError(f"prior must be one of {', '.join(PRIORS)}, not {prior!r}")
