"""`@dataclass` with its methods written once here, for the classes every command loads.

dataclass compiles each class's __init__, __repr__, __eq__ (and a frozen class's __setattr__)
from source at every import: 2-8M instructions a class, a noticeable part of what one call of
`unjudged trec_eval` pays above numpy's and pyarrow's imports. `frozen` stands for
`@dataclass(frozen=True)`, `plain` for `@dataclass(eq=False)`; each class is still a dataclass
(`dataclasses.fields` and `replace` work). Fields take plain defaults only (no
default_factory).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import MISSING, FrozenInstanceError, dataclass, field, fields
from typing import TYPE_CHECKING, Any, TypeVar

_T = TypeVar("_T", bound=type)

if TYPE_CHECKING:
    from typing_extensions import dataclass_transform
else:
    def dataclass_transform(**_: Any) -> Callable[[_T], _T]:
        return lambda f: f


def _methods(cls: type, setter: Callable[[Any, str, Any], None]) -> tuple[Callable, Callable]:
    """A keyword-or-positional __init__ (defaults, then __post_init__) and a dataclass-like
    __repr__ over cls's fields; `setter` stores a value."""
    dataclass(init=False, repr=False, eq=False)(cls)  # fields(), replace(): in place
    names = tuple(f.name for f in fields(cls))
    if any(f.default_factory is not MISSING for f in fields(cls)):
        raise TypeError(f"{cls.__name__}: default_factory is not supported here")
    defaults = {f.name: f.default for f in fields(cls) if f.default is not MISSING}
    post_init = getattr(cls, "__post_init__", None)

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if len(args) > len(names):
            raise TypeError(f"{cls.__name__}() takes {len(names)} arguments, not {len(args)}")
        values = dict(zip(names, args, strict=False))  # the rest by keyword or default
        for key, value in kwargs.items():
            if key not in names or key in values:
                raise TypeError(f"{cls.__name__}() got an unexpected or repeated argument {key!r}")
            values[key] = value
        for name in names:
            if name not in values and name not in defaults:
                raise TypeError(f"{cls.__name__}() missing argument {name!r}")
            setter(self, name, values[name] if name in values else defaults[name])
        if post_init is not None:
            post_init(self)

    def __repr__(self: Any) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
        return f"{cls.__qualname__}({shown})"

    return __init__, __repr__


def _install(cls: type, methods: tuple[Callable, ...]) -> None:
    for method in methods:
        method.__qualname__ = f"{cls.__qualname__}.{method.__name__}"
        setattr(cls, method.__name__, method)


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
def frozen(cls: _T) -> _T:
    """`@dataclass(frozen=True)`: __init__, repr, eq and hash over the fields, no assignment."""
    __init__, __repr__ = _methods(cls, object.__setattr__)
    names = tuple(f.name for f in fields(cls))

    def key(self: Any) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in names)

    def __eq__(self: Any, other: object) -> bool:
        return key(self) == key(other) if other.__class__ is self.__class__ else NotImplemented

    def __hash__(self: Any) -> int:
        return hash(key(self))

    def __setattr__(self: Any, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self: Any, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    _install(cls, (__init__, __eq__, __hash__, __repr__, __setattr__, __delattr__))
    return cls


@dataclass_transform(eq_default=False, field_specifiers=(field,))
def plain(cls: _T) -> _T:
    """`@dataclass(eq=False)`: __init__ and repr over the fields; instances compare by
    identity and can be changed."""
    _install(cls, _methods(cls, setattr))
    return cls
