"""The table of strategies for unjudged documents, in report order.

Every module of `unjudged.strategies.builtin` is a strategy: the table holds an instance of each
concrete `Strategy` class defined there, in the order of their `order` attribute. Adding a
strategy is adding one module there (see `unjudged.strategies.base`); the engine,
`estimate --methods`, `eval --unjudged`, the report, the experiments and
tests/test_strategy_registry.py read this table.

Example:
    >>> STRATEGIES.names()  # the defaults ("expected" only when asked for)
    ('nonrel', 'condensed', 'upper', 'bootstrap', 'guaranteed')
    >>> STRATEGIES.columns()[3:]  # every reported column
    ('bootstrap', 'expected', 'guaranteed_lower', 'guaranteed_upper')
    >>> STRATEGIES.owner("guaranteed_upper").name
    'guaranteed'
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Iterable, Iterator

from unjudged.errors import InvalidOptionError
from unjudged.strategies import builtin
from unjudged.strategies.base import Sampled, Strategy

#: The strategy plain scoring computes (trec_eval's). It is always computed: measures about the
#: judgments themselves take their value from it under every strategy, and score ranges start
#: at it.
BASELINE = "nonrel"


class Registry:
    """Strategies by name, in report order."""

    def __init__(self, strategies: Iterable[Strategy]) -> None:
        self._by_name: dict[str, Strategy] = {}
        for s in strategies:
            self.add(s)

    def add(self, strategy: Strategy) -> None:
        """Register `strategy` after the others (tests use this for toy strategies)."""
        taken = set(self.columns()) | set(self._by_name)
        if strategy.name in self._by_name or taken & set(strategy.columns):
            raise InvalidOptionError(f"strategy {strategy.name!r} is already registered")
        if strategy.random and any(s.random for s in self):
            # the estimates hold the samples of one random strategy (RunEstimate.samples)
            raise InvalidOptionError("only one random strategy can be registered")
        self._by_name[strategy.name] = strategy

    def remove(self, name: str) -> Strategy:
        """Unregister the strategy called `name` and return it."""
        return self._by_name.pop(name)

    def __iter__(self) -> Iterator[Strategy]:
        return iter(list(self._by_name.values()))

    def __len__(self) -> int:
        return len(self._by_name)

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def __getitem__(self, name: str) -> Strategy:
        return self._by_name[name]

    def names(self) -> tuple[str, ...]:
        """The default strategies' names, in report order (`every()` adds those only asked
        for by name)."""
        return tuple(n for n, s in self._by_name.items() if s.default)

    def every(self) -> tuple[str, ...]:
        """Every registered strategy's name, in report order.

        Example:
            >>> STRATEGIES.every()
            ('nonrel', 'condensed', 'upper', 'bootstrap', 'expected', 'guaranteed')
        """
        return tuple(self._by_name)

    def columns(self) -> tuple[str, ...]:
        """Every registered strategy's reported columns (guaranteed gives two), in report
        order."""
        return tuple(c for s in self for c in s.columns)

    def comparable(self) -> tuple[str, ...]:
        """Every comparable way to score a run with one value: the comparable deterministic
        strategies, and each random strategy under each of its variants (NAME:VARIANT); what
        leave-one-group-out compares.

        Example:
            >>> STRATEGIES.comparable()[2:]
            ('upper', 'bootstrap:pool', 'bootstrap:run', 'bootstrap:pool+run', 'bootstrap:position')
        """
        fixed = [s.name for s in self if s.comparable and not s.random and len(s.columns) == 1
                 and s.default]
        drawn = [f"{s.name}:{v}" for s in self if s.comparable and isinstance(s, Sampled)
                 for v in s.variants]
        return (*fixed, *drawn)

    def owner(self, column: str) -> Strategy:
        """The strategy that reports `column`."""
        for s in self:
            if column in s.columns:
                return s
        raise KeyError(column)

    def check(self, names: Iterable[str]) -> tuple[str, ...]:
        """`names` validated and put in report order.

        Example:
            >>> STRATEGIES.check(["upper", "nonrel"])
            ('nonrel', 'upper')
            >>> STRATEGIES.check(["nonrel", "bogus"])  # doctest: +ELLIPSIS
            Traceback (most recent call last):
            ...
            unjudged.errors.InvalidOptionError: unknown method 'bogus'; expected some of nonrel, ...
        """
        names = tuple(names)
        bad = [n for n in names if n not in self._by_name]
        if bad:
            raise InvalidOptionError(f"unknown method {bad[0]!r}; expected some of "
                                     f"{', '.join(self._by_name)}")
        return tuple(n for n in self._by_name if n in names)


def builtin_strategies() -> list[Strategy]:
    """An instance of every concrete Strategy class defined in a module of
    `unjudged.strategies.builtin`, ordered by `order` (then name).

    The modules only declare classes (numpy loads inside their methods), so reading the table
    stays cheap enough for `unjudged --help`.
    """
    found: list[Strategy] = []
    for info in pkgutil.iter_modules(builtin.__path__):
        module = importlib.import_module(f"{builtin.__name__}.{info.name}")
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if (issubclass(cls, Strategy) and cls.__module__ == module.__name__
                    and not inspect.isabstract(cls)):
                found.append(cls())
    return sorted(found, key=lambda s: (s.order, s.name))


STRATEGIES = Registry(builtin_strategies())
