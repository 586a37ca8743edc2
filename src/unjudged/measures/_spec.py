"""The measure registry: one spec per measure family, one place that drives everything.

A spec declares the name, aliases (incl. trec_eval's), typed parameters with defaults, a
description, a citation and a vectorised kernel ``kernel(judged, **params) -> (..., topics)``.
Registering it makes the measure known to the parser, ``unjudged measures``, the docs and the
common property tests.
"""

from __future__ import annotations

import importlib
import math
import sys
from collections.abc import Callable, ItemsView, Iterator, KeysView, ValuesView
from dataclasses import field
from typing import Any

import numpy as np

from unjudged._records import frozen
from unjudged.errors import MeasureSpecError

Kernel = Callable[..., np.ndarray]
CUTOFFS = ("none", "optional", "required")
AGGREGATES = ("mean", "sum", "gmean")


GRADE_LIMITS = (-(2**31), 2**31 - 1)  # grades are 32-bit: an integer parameter's default range


@frozen
class Param:
    """One parameter of a measure family and its domain, which the parser enforces (so a
    kernel never meets a misspelt name, a persistence of 2 or a grade of 1.5).

    `choices`, when given, are its only values. A number lies in [low, high] (`open_low`,
    `open_high`: the bound itself excluded); an integer's bounds default to the 32-bit range
    of grades, a float's to the finite numbers. A parameter whose default is None also takes
    None.

    Example:
        >>> p = Param("p", float, 0.8, "persistence", low=0, high=1, open_high=True)
        >>> p.domain(), p.accept(0.5), p.problem(2.0)
        ('a number in [0, 1)', 0.5, 'must be a number in [0, 1), not 2.0')
    """

    name: str
    type: type
    default: Any
    doc: str
    choices: tuple[Any, ...] = ()
    low: float | None = None
    high: float | None = None
    open_low: bool = False
    open_high: bool = False
    what: str = ""  # the domain in words, for a type that checks its own values (GainMap)

    def domain(self) -> str:
        """The values the parameter takes, in words (for messages and listings)."""
        if self.what:
            return self.what
        if self.choices:
            return "one of " + ", ".join(repr(c) for c in self.choices)
        if self.type is bool:
            return "True or False"
        if self.type is int:
            low = GRADE_LIMITS[0] if self.low is None else int(self.low)
            high = GRADE_LIMITS[1] if self.high is None else int(self.high)
            low, high = low + self.open_low, high - self.open_high
            return f"an integer in [{low}, {high}]"
        if self.type is float:
            if self.low is None and self.high is None:
                return "a finite number"
            lo = "-inf" if self.low is None else _fmt_bound(self.low)
            hi = "inf" if self.high is None else _fmt_bound(self.high)
            return (f"a number in {'(' if self.open_low or self.low is None else '['}{lo}, "
                    f"{hi}{')' if self.open_high or self.high is None else ']'}")
        return "text" if self.type is str else f"a {self.type.__name__}"

    def accept(self, value: Any) -> Any:
        """`value` converted to the parameter's type; ValueError (the reason) outside the
        domain."""
        problem = self.problem(value)
        if problem:
            raise ValueError(problem)
        return self._convert(value)

    def problem(self, value: Any) -> str | None:
        """Why `value` is outside the domain, or None."""
        if value is None:
            return None if self.default is None else f"must be {self.domain()}, not None"
        try:
            converted = self._convert(value)
        except (TypeError, ValueError, OverflowError):
            return f"must be {self.domain()}, not {value!r}"
        if self.choices and converted not in self.choices:
            return f"must be {self.domain()}, not {value!r}"
        if self.type in (int, float):
            low = self.low if self.low is not None else (
                GRADE_LIMITS[0] if self.type is int else -math.inf)
            high = self.high if self.high is not None else (
                GRADE_LIMITS[1] if self.type is int else math.inf)
            inside = (low < converted if self.open_low or self.low is None and self.type is
                      float else low <= converted) and (
                converted < high if self.open_high or self.high is None and self.type is
                float else converted <= high)
            if not inside:
                return f"must be {self.domain()}, not {value!r}"
        return None

    def _convert(self, value: Any) -> Any:
        if self.type is bool:
            if isinstance(value, (bool, np.bool_)) or value in (0, 1):
                return bool(value)
            raise ValueError(value)
        if self.type in (int, float) and isinstance(value, (bool, np.bool_)):
            raise ValueError(value)  # True is no number here (int(True) would be 1)
        if self.type is int:
            if isinstance(value, (float, np.floating)):
                if not (math.isfinite(value) and float(value).is_integer()):
                    raise ValueError(value)  # P(rel=1.5) is not P(rel=1)
                return int(value)
            return int(value)
        return self.type(value)


def _fmt_bound(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


JUDGED_ONLY = Param("judged_only", bool, False, "rank only the documents the qrels list "
                    "(trec_eval -J: retrieved documents outside the qrels are removed first, "
                    "so a cutoff counts judged documents)")


@frozen
class MeasureSpec:
    """A measure family.

    Attributes:
        name: canonical name in the ir_measures grammar (``nDCG``, ``P``, ``AP``...).
        kernel: pure vectorised function of a Judged batch and the parameters.
        description: one paragraph for `unjudged measures` and the docs.
        params: parameters besides the cutoff.
        cutoff: "none", "optional" or "required" for the ``@k`` part.
        aliases: other names (trec_eval's first), case sensitive.
        aggregate: how per-topic values combine into the run's value: "mean", "sum" or
            "gmean" (geometric mean with values floored at 1e-5, as trec_eval's gm_*).
        integer: values are counts, printed without decimals. Only with aggregate "sum": a
            mean of counts (7.43 documents) is not a count, and trec_eval prints means with
            decimals.
        bounded: (low, high) range of a per-topic value, None when unbounded.
        citation: where the definition comes from.
        suffix: what a trec_eval-style suffix (``P_10``, ``iprec_at_recall_0.10``) sets.
        estimable: the measure depends on the grades of the ranked documents only, so filling
            in unjudged documents (upper bounds, bootstrap) is meaningful. False for measures
            about judgments themselves (Judged@k, bpref, infAP, ...).
        monotone: with the pool fixed, a higher grade for any ranked document never lowers the
            value; only then is the comparable upper bound a bound.
        guaranteed: the value is a gain over a normaliser that both grow with the grades (a
            cutoff not tied to R), so the guaranteed bounds' construction holds.
        normalised: the value divides by counts of the pool's judged documents (R, the ideal
            DCG). The bootstrap's drawn grades then come from what the pool still has, so that
            the normaliser holds; False for measures of the ranking alone (P@k, RR, Success,
            RBP), whose drawn grades need no such cap (`--cap normalised`).
        whole: given a sampled batch that knows its distinct rankings (strategies.rows) and
            the kernel's keywords, whether the kernel's temporaries there are a value per
            (iteration, topic), so that the batch goes through in one call instead of slices
            of topics (None: always in slices).

    A spec that contradicts itself raises MeasureSpecError when it is built, so a bad measure
    module fails at import rather than printing wrong numbers.

    Example:
        >>> try:
        ...     MeasureSpec("Hits", np.sum, "Relevant documents retrieved.", integer=True)
        ... except MeasureSpecError as exc:
        ...     print(exc)
        measure Hits: integer values need aggregate="sum", not 'mean'
    """

    name: str
    kernel: Kernel
    description: str
    params: tuple[Param, ...] = ()
    cutoff: str = "none"
    aliases: tuple[str, ...] = ()
    aggregate: str = "mean"
    integer: bool = False
    bounded: tuple[float, float] | None = (0.0, 1.0)
    citation: str = ""
    higher_is_better: bool = True
    suffix: str = "cutoff"  # what trec_eval's `name_X` / `name.X` sets: the cutoff or a parameter
    estimable: bool = True
    monotone: bool = True
    guaranteed: bool = True
    normalised: bool = True
    whole: Callable[[Any, dict[str, Any]], bool] | None = None

    def __post_init__(self) -> None:
        if self.cutoff not in CUTOFFS:
            raise MeasureSpecError(f"measure {self.name}: cutoff must be one of "
                                   f"{', '.join(CUTOFFS)}, not {self.cutoff!r}")
        if self.aggregate not in AGGREGATES:
            raise MeasureSpecError(f"measure {self.name}: aggregate must be one of "
                                   f"{', '.join(AGGREGATES)}, not {self.aggregate!r}")
        if self.integer and self.aggregate != "sum":
            # the tables print an integer measure's aggregate without decimals: a mean of
            # 7.43 would show as "7" (trec_eval sums its counts and prints means with decimals)
            raise MeasureSpecError(f"measure {self.name}: integer values need "
                                   f"aggregate=\"sum\", not {self.aggregate!r}")

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)


@frozen
class Measure:
    """A measure family with its parameters bound, e.g. ``nDCG@10`` or ``P(rel=2)@5``."""

    spec: MeasureSpec
    cutoff: int | None = None
    params: tuple[tuple[str, Any], ...] = field(default=())

    @property
    def name(self) -> str:
        """Canonical name: family, non-default parameters in order, then @cutoff."""
        defaults = {p.name: p.default for p in self.spec.params}
        shown = [(k, v) for k, v in self.params if defaults.get(k) != v]
        text = self.spec.name
        if shown:
            text += "(" + ",".join(f"{k}={_fmt(v)}" for k, v in shown) + ")"
        if self.cutoff is not None:
            text += f"@{self.cutoff}"
        return text

    def kwargs(self) -> dict[str, Any]:
        out = {p.name: p.default for p in self.spec.params}
        out.update(dict(self.params))
        return out

    def compute(self, judged) -> np.ndarray:
        """Per-topic values, shape judged.grades.shape[:-1].

        Topics are independent, so large batches go through the kernel a slice of topics at a
        time: the kernels' float temporaries then stay small (and in cache) however many topics
        and samples there are.
        """
        kw = self.kwargs()
        if self.spec.cutoff != "none":
            kw["cutoff"] = self.cutoff
        if kw.pop("judged_only", False):
            from unjudged.measures._common import judged_only

            judged = judged_only(judged)
        g = judged.grades
        n = g.shape[-2] if g.ndim >= 2 else 0
        if self.spec.whole is not None and getattr(judged, "rows", None) is not None \
                and self.spec.whole(judged, kw):
            # each value from its own distinct ranking (the same whatever the slice): in
            # slices, the kernel's fixed costs were most of its time (15 calls a run)
            return np.asarray(self.spec.kernel(judged, **kw), dtype=np.float64)
        step = max(1, (_CHUNK if g.ndim > 2 else _CHUNK_RANKINGS) // max(1, g.size // max(n, 1)))
        if n <= step:
            return np.asarray(self.spec.kernel(judged, **kw), dtype=np.float64)
        parts = [np.asarray(self.spec.kernel(judged.topic_slice(a, min(a + step, n)), **kw),
                            dtype=np.float64) for a in range(0, n, step)]
        return np.concatenate(parts, axis=-1)

    def __str__(self) -> str:
        return self.name


_CHUNK = 1 << 18  # grade cells per kernel call: float temporaries of 2 MB (smaller slices pay
#   the kernel's fixed costs too often: 1 ms a call, 13 topics a call at b = 1,000)
#: the same for plain rankings (no sample axis), whose slices are many topics each: bpref's
#: temporaries at 2 MB apiece were the peak of scoring 10 runs of 250 topics x 1,000 (-5 MB)
_CHUNK_RANKINGS = 1 << 16


def _fmt(v: Any) -> str:
    if isinstance(v, str):
        return repr(v)
    if isinstance(v, float) and v.is_integer():
        return repr(v)
    return str(v)


class _Registry(dict[str, MeasureSpec]):
    """Every measure name and alias -> its family, filled as the measure modules are imported.

    A name's module is imported when the name is first asked for (`_names` says which module
    registers which names), and every module when the registry is listed: importing all of
    them cost a one-file `unjudged trec_eval` call 30M instructions (4%), for the few families it
    prints. Listed, the registry is in the order importing every module gives (by module name).
    """

    _complete = False

    def load(self, key: object, companions: bool = True) -> None:
        """Import the module that registers `key` and (`companions`) the modules that add
        names to its families, unless they are imported or being imported."""
        modules = _names_of().get(key) if isinstance(key, str) else None
        for module in (modules or ())[: None if companions else 1]:
            if f"{__package__}.{module}" not in sys.modules:
                importlib.import_module(f"{__package__}.{module}")

    def load_all(self) -> None:
        """Import every measure module, then put the names in a full import's order."""
        if self._complete:
            return
        from unjudged.measures._names import MODULES

        for module in MODULES:
            self.load(MODULES[module].split()[0])
        # a measure module dropped into the package after the table was generated (one new
        # file is all a measure needs): imported too, after the table's
        import pkgutil

        package = sys.modules[__package__]
        for info in pkgutil.iter_modules(package.__path__):
            if not info.name.startswith("_") and info.name not in MODULES:
                importlib.import_module(f"{__package__}.{info.name}")
        known = dict(dict.items(self))
        dict.clear(self)
        for module_names in MODULES.values():
            for key in module_names.split():
                if key in known:
                    dict.__setitem__(self, key, known.pop(key))
        dict.update(self, known)  # names registered by other code, in their order
        self._complete = True

    def __getitem__(self, key: str) -> MeasureSpec:
        self.load(key)  # also when present: a family's aliases from other modules come too
        return dict.__getitem__(self, key)

    def get(self, key: str, default: Any = None) -> Any:
        self.load(key)
        return dict.get(self, key, default)

    def __contains__(self, key: object) -> bool:
        return dict.__contains__(self, key) or key in _names_of()

    @property
    def complete(self) -> bool:
        """Every measure module is imported (load_all)."""
        return self._complete

    def __iter__(self) -> Iterator[str]:
        self.load_all()
        return dict.__iter__(self)

    def __len__(self) -> int:
        self.load_all()
        return dict.__len__(self)

    def keys(self) -> KeysView[str]:  # type: ignore[override]
        self.load_all()
        return dict.keys(self)

    def values(self) -> ValuesView[MeasureSpec]:  # type: ignore[override]
        self.load_all()
        return dict.values(self)

    def items(self) -> ItemsView[str, MeasureSpec]:  # type: ignore[override]
        self.load_all()
        return dict.items(self)

    def __repr__(self) -> str:
        self.load_all()
        return dict.__repr__(self)


_NAMES: dict[str, tuple[str, ...]] = {}


def _names_of() -> dict[str, tuple[str, ...]]:
    """name -> the modules to import for it: the one that registers it, then the ones that add
    names to that module's families."""
    if not _NAMES:
        from unjudged.measures._names import EXTENDS, MODULES

        for module, names in MODULES.items():
            for key in names.split():
                _NAMES[key] = (module, *EXTENDS.get(module, ()))
    return _NAMES


REGISTRY = _Registry()


def register(spec: MeasureSpec) -> MeasureSpec:
    """Add a family to the registry (names and aliases must be unique)."""
    for key in (spec.name, *spec.aliases):
        REGISTRY.load(key, companions=False)  # a built-in family of that name comes first
        old = dict.get(REGISTRY, key)
        if old is not None and old is not spec:
            raise MeasureSpecError(f"measure name {key!r} registered twice")
        dict.__setitem__(REGISTRY, key, spec)
    return spec


def add_aliases(name: str, *aliases: str) -> MeasureSpec:
    """More names for a registered family (registered elsewhere): the parser and every listing
    then know them, as if the spec had declared them.

    Example:
        >>> spec = add_aliases("P", "Precision")
        >>> REGISTRY["Precision"] is spec and "Precision" in spec.aliases
        True
    """
    spec = REGISTRY[name]
    for key in aliases:
        REGISTRY.load(key, companions=False)
        old = dict.get(REGISTRY, key)
        if old is not None and old is not spec:
            raise MeasureSpecError(f"measure name {key!r} registered twice")
    new = tuple(a for a in aliases if a not in spec.aliases and a != spec.name)
    # the spec is shared by identity (the registry, Measure objects): extend it in place
    object.__setattr__(spec, "aliases", spec.aliases + new)
    for key in new:
        dict.__setitem__(REGISTRY, key, spec)
    return spec


def families() -> list[MeasureSpec]:
    """Every registered family once, in registration order (a full import's: every module's)."""
    seen: dict[int, MeasureSpec] = {}
    for spec in REGISTRY.values():
        seen.setdefault(id(spec), spec)
    return list(seen.values())
