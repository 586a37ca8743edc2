"""The bootstrap's priors: where an unjudged document's grade is drawn from.

Kept apart from the sampling kernels (`unjudged.strategies.bootstrap`, numpy) so that the
strategy table and the command line can name them without loading numpy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from unjudged.errors import InvalidOptionError

if TYPE_CHECKING:
    from unjudged.strategies.base import DrawOptions

#: Where an unjudged document's grade is drawn from: the topic's judged documents, the ranking's,
#: their average, or the document's position among the runs (unjudged.strategies.position).
PRIORS = ("pool", "run", "pool+run", "position")
#: The prior read from a file of relevance estimates made elsewhere (an LLM judge, a
#: cross-encoder; unjudged.strategies.external), named "estimates:FILE".
ESTIMATES = "estimates"
#: The priors whose probabilities come from a model of the documents rather than counts.
MODEL_PRIORS = ("position", ESTIMATES)
#: The priors that depend on the document only (not on the run): the ones whose draws can add to
#: a normaliser shared by every run. With them, normalisers grow by default (the calibration
#: bench: the truth's ideal DCG and R count relevant documents no pool found); the run priors
#: keep the pool's.
GROW_PRIORS = ("pool", "position", ESTIMATES)
#: The run prior of a ranking without judged documents: grade 0 (the default, chosen by the
#: calibration bench), or the pool's.
EMPTY_RUN = ("zero", "pool")
#: Which measures' drawn grades come from what the pool still has (seed 000 caps every measure):
#: only the normalised ones (the default, chosen by the calibration bench: a shallow pool holds
#: fewer relevant documents than the runs' unjudged ones may), or all.
CAPS = ("normalised", "all")


def check_prior(prior: str) -> None:
    """Refuse a prior that is not one of PRIORS.

    Example:
        >>> check_prior("uniform")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        unjudged.errors.InvalidOptionError: prior must be one of pool, run, ..., not 'uniform'
    """
    if prior not in PRIORS and prior != ESTIMATES:
        raise InvalidOptionError(f"prior must be one of {', '.join(PRIORS)} or "
                                 f"{ESTIMATES}:FILE, not {prior!r}")


def split_prior(text: str) -> tuple[str, str | None]:
    """(prior, estimates file) of a prior as the user writes it: "estimates:FILE" names the
    file of the estimates prior; every other prior stands alone.

    Example:
        >>> split_prior("estimates:llm.tsv"), split_prior("pool")
        (('estimates', 'llm.tsv'), ('pool', None))
    """
    name, sep, path = text.partition(":")
    if name == ESTIMATES and sep:
        if not path:
            raise InvalidOptionError("the estimates prior names its file: estimates:FILE")
        return ESTIMATES, path
    return text, None


def default_grow(prior: str) -> bool:
    """Whether normalisers grow when the user does not say: wherever the prior allows it.

    Example:
        >>> default_grow("position"), default_grow("pool+run")
        (True, False)
    """
    return prior in GROW_PRIORS


def check_draw_options(options: DrawOptions) -> None:
    """Refuse settings the bootstrap cannot draw with.

    Example:
        >>> from types import SimpleNamespace as S
        >>> check_draw_options(S(prior="pool", spread=-1.0, shared_spread=0.0, empty_run="pool",
        ...                      interval=0.9, grow=False, cap="all"))
        Traceback (most recent call last):
        ...
        unjudged.errors.InvalidOptionError: spread must lie in [0, 10] (an sd in log-odds), not -1.0
    """
    check_prior(options.prior)
    for name in ("spread", "shared_spread"):
        value = getattr(options, name)
        if not 0 <= value <= MAX_SPREAD:  # NaN too
            raise InvalidOptionError(f"{name} must lie in [0, {MAX_SPREAD:g}] (an sd in "
                                     f"log-odds), not {value!r}")
    if options.empty_run not in EMPTY_RUN:
        raise InvalidOptionError(f"empty_run must be one of {', '.join(EMPTY_RUN)}, "
                                 f"not {options.empty_run!r}")
    if options.cap not in CAPS:
        raise InvalidOptionError(f"cap must be one of {', '.join(CAPS)}, not {options.cap!r}")
    if options.grow and options.prior not in GROW_PRIORS:
        raise InvalidOptionError(f"growing normalisers needs a prior of the document "
                                 f"({', '.join(GROW_PRIORS)}), not {options.prior!r}")
    if not 0.0 < options.interval < 1.0:
        raise InvalidOptionError(f"interval must lie strictly between 0 and 1, "
                                 f"not {options.interval!r}")


#: The largest --spread and --shared-spread: an sd of 10 in log-odds already draws every
#: unjudged document of a topic all relevant or all not. It also bounds the shifts the
#: requests multiply into the odds (exp of at most about 580 with the run's misfit and the
#: depth shift of 3 x the shared spread, at 8.7 sd, the largest normal drawn), so that no
#: product overflows or underflows (an infinite --spread gave NaN intervals and warnings)
MAX_SPREAD = 10.0

#: The defaults the calibration bench chose (docs/calibration.md).
DEFAULT_PRIOR = "position"
DEFAULT_SPREAD = 1.0
DEFAULT_SHARED_SPREAD = 0.5
DEFAULT_CAP = "normalised"
