"""What a strategy for unjudged documents is: one class that declares its name, the columns it
reports, the measures it applies to, whether it is random, a one-line description, and how it
computes.

Three kinds:

* a :class:`Fill` is deterministic: at each cutoff it builds judged rankings (one per reported
  column) whose unjudged positions hold grades, and a measure scores each of them;
* a :class:`Sampled` strategy is random: it writes b samples of every measure's value into the
  engine's (b, topics, measures) array, from which the engine takes the statistics;
* a :class:`Moments` strategy is deterministic too but reports an expectation with its
  variance (the engine adds a normal interval).

The declarations are plain class attributes and the computations import numpy-heavy modules
inside their methods: the command line reads the table for its choices and ``--help``, which
must not import numpy.

Example:
    >>> from unjudged.strategies.registry import STRATEGIES
    >>> s = STRATEGIES["guaranteed"]
    >>> s.columns, s.random, s.comparable
    (('guaranteed_lower', 'guaranteed_upper'), False, False)
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

if TYPE_CHECKING:
    import numpy as np

    from unjudged.data.judged import Judged
    from unjudged.measures import Measure


@dataclass(frozen=True)
class AtCutoff:
    """One run's judged rankings at one cutoff: `whole` (every ranked position), the cutoff `k`
    (None: the whole ranking) and `top`, the rankings cut to k (trec_eval's view).

    Random strategies also get `keys`, the (topics, depth) key of each ranked (topic, document)
    of `whole` (unjudged.strategies.keys: what couples draws across runs), and `model`, the
    position prior's model of all the runs estimated together (None when not asked for)."""

    whole: Judged
    k: int | None
    top: Judged
    keys: np.ndarray | None = None
    model: Any = None
    growth: Any = None  # unjudged.strategies.growth.Growth, when normalisers grow
    #: unjudged.strategies.growth.Expected: the expected grade counts of the unjudged
    #: documents some run retrieves (what the normalisers grow by, in expectation)
    expected: Any = None
    #: unjudged.strategies.misfit.RunShift: this run's log-odds shift of the prior (None: none)
    run_shift: Any = None

    def cell_keys(self, depth: int) -> np.ndarray:
        """`keys` cut or padded (with 0, never read: padding is not unjudged) to `depth`."""
        import numpy as np

        if self.keys is None:
            raise ValueError("the estimate did not compute document keys")  # a bug, not input
        k = self.keys
        if k.shape[1] >= depth:
            return k[:, :depth]
        return np.pad(k, ((0, 0), (0, depth - k.shape[1])))


class Drawing(Protocol):
    """What a grade request reads: the prior and its uncertainty, and the seed (a bootstrap
    Draw, or the engine's EstimateSettings)."""

    @property
    def prior(self) -> str: ...

    @property
    def empty_run(self) -> str: ...

    @property
    def seed(self) -> int: ...

    @property
    def spread(self) -> float: ...

    @property
    def shared_spread(self) -> float: ...


class DrawOptions(Drawing, Protocol):
    """The settings a random strategy draws with (the engine's EstimateSettings has them)."""

    @property
    def b(self) -> int: ...

    @property
    def interval(self) -> float: ...

    @property
    def grow(self) -> bool | None: ...  # None: the prior's default (priors.default_grow)

    @property
    def cap(self) -> str: ...


class Strategy(ABC):
    """A strategy for unjudged documents. Subclass :class:`Fill` or :class:`Sampled`."""

    #: the name users pass (`estimate --methods`, `eval --unjudged`)
    name: ClassVar[str]
    #: its place in the table, hence in every report and default (smaller first)
    order: ClassVar[int] = 1000
    #: one line for --help and the docs
    description: ClassVar[str]
    #: the values it reports, in report order (usually just its name)
    columns: ClassVar[tuple[str, ...]]
    #: True when the values are drawn (a distribution), False when computed
    random: ClassVar[bool] = False
    #: False when the values use another normaliser than fully judged runs' scores
    comparable: ClassVar[bool] = True
    #: True when unjudged documents only take grades the pool still has (none counts as one)
    #: for normalised measures (`spec.normalised`; every measure under `--cap all`): then, for
    #: those that never fall when a grade rises (`spec.monotone`), the values lie within
    #: [nonrel, upper], and within the guaranteed bounds (tests/test_strategy_registry.py)
    from_pool: ClassVar[bool] = False
    #: printed under the estimate table when the strategy is reported; format fields
    #: {b} {prior} {seed} {point} {interval} are the estimate's settings
    note: ClassVar[str] = ""
    #: False when only asked for by name: not among the defaults of `estimate --methods`,
    #: leave-one-group-out's strategies or the report's leaderboard
    default: ClassVar[bool] = True
    #: True when it reads the prior (the position model of all the runs estimated together,
    #: and the grown normalisers), which the engine then builds once for all the runs
    uses_prior: ClassVar[bool] = False

    def applies(self, m: Measure) -> bool:
        """Whether the strategy can estimate `m` (default: measures of relevance, not of the
        judgments themselves)."""
        return bool(m.spec.estimable)

    def __repr__(self) -> str:
        return f"<strategy {self.name}>"


class Fill(Strategy):
    """A deterministic strategy: judged rankings per reported column, scored by the measure."""

    #: False when the rankings are the same at every cutoff (built once per run)
    by_cutoff: ClassVar[bool] = True

    @abstractmethod
    def rankings(self, at: AtCutoff) -> tuple[Judged, ...]:
        """One batch of judged rankings per column of `columns`."""

    def values(self, m: Measure, rankings: tuple[Judged, ...]) -> tuple[np.ndarray, ...]:
        """(topics,) values of `m` per column (default: `m` on each ranking)."""
        return tuple(m.compute(r) for r in rankings)


class Moments(Strategy):
    """A deterministic strategy that reports, per (topic, measure), an expectation and its
    variance under the prior."""

    uses_prior: ClassVar[bool] = True

    @abstractmethod
    def moments(self, at: AtCutoff, measures: list[Measure], options: Drawing
                ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """(expectation, variance, shared) of each of `measures` (all of this cutoff), each
        (topics,): `shared` is the standard deviation of the part of each topic's value that
        moves with every other topic's (perfectly correlated across topics; 0 when the topics
        are independent)."""


class Sampled(Strategy):
    """A random strategy: b samples per (topic, measure)."""

    random: ClassVar[bool] = True
    uses_prior: ClassVar[bool] = True
    #: the named variants of its draws (the bootstrap's priors), for experiments comparing them
    variants: ClassVar[tuple[str, ...]] = ()

    @abstractmethod
    def check(self, options: DrawOptions) -> None:
        """Raise InvalidOptionError for settings the strategy cannot draw with."""

    @abstractmethod
    def draw(self, at: AtCutoff, measures: list[Measure], cols: list[int], out: np.ndarray,
             options: DrawOptions) -> None:
        """Write the samples of `measures` into out[:, :, cols] ((b, topics, all measures))."""
