"""unjudged._records' decorators behave as the dataclass forms they replace."""

from __future__ import annotations

import dataclasses

import pytest

from unjudged._records import frozen, plain


@frozen
class _Point:
    x: int
    y: int = 2

    def __post_init__(self) -> None:
        if self.x < 0:
            raise ValueError("x")


@plain
class _Box:
    items: list
    label: str = "box"


@dataclasses.dataclass(frozen=True)
class _DPoint:
    x: int
    y: int = 2


@dataclasses.dataclass(eq=False)
class _DBox:
    items: list
    label: str = "box"


def test_frozen_matches_a_frozen_dataclass():
    p = _Point(1)
    assert (p.x, p.y) == (1, 2) and _Point(1, y=3).y == 3
    assert repr(p) == repr(_DPoint(1)).replace("_DPoint", "_Point") == "_Point(x=1, y=2)"
    assert p == _Point(1, 2) and p != _Point(1, 3) and hash(p) == hash(_Point(x=1))
    assert dataclasses.replace(p, y=5) == _Point(1, 5)
    assert [f.name for f in dataclasses.fields(p)] == ["x", "y"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.x = 4  # type: ignore[misc]
    with pytest.raises(ValueError):
        _Point(-1)
    with pytest.raises(TypeError):
        _Point()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        _Point(1, z=2)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        _Point(1, x=2)  # type: ignore[misc]


def test_plain_matches_an_eq_false_dataclass():
    b = _Box([1])
    assert repr(b) == repr(_DBox([1])).replace("_DBox", "_Box") == "_Box(items=[1], label='box')"
    assert b != _Box([1]) and b == b
    b.label = "other"
    assert b.label == "other"
    assert dataclasses.replace(b, items=[2]).items == [2]


def test_both_pickle_and_copy():
    import copy
    import pickle

    p = _Point(1, 3)
    assert pickle.loads(pickle.dumps(p)) == p and copy.deepcopy(p) == p
    b = pickle.loads(pickle.dumps(_Box([1], "x")))
    assert (b.items, b.label) == ([1], "x")
    assert dataclasses.asdict(p) == {"x": 1, "y": 3}
