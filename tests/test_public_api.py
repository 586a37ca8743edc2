"""The public names of unjudged: `__all__`, the lazy-import map and `dir()` agree, every name
resolves, and importing the command line loads none of the heavy libraries."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys

import pytest

import unjudged

EAGER = {"__version__"}  # defined in unjudged/__init__.py itself, not loaded lazily


def test_all_is_the_lazy_map_and_the_eager_names():
    assert len(unjudged.__all__) == len(set(unjudged.__all__))
    assert set(unjudged.__all__) == set(unjudged._LAZY) | EAGER


def test_every_public_name_resolves():
    for name in unjudged.__all__:
        value = getattr(unjudged, name)
        assert value is not None, name
        if name in unjudged._LAZY:
            # the name is the object of that module, not a copy of something else
            assert value is getattr(importlib.import_module(unjudged._LAZY[name]), name)
    assert unjudged.__version__ == "0.1.0"
    assert unjudged.evaluate.__module__ == "unjudged.engine.score"


def test_dir_lists_the_public_names():
    listed = dir(unjudged)
    assert set(unjudged.__all__) <= set(listed)
    assert listed == sorted(listed)


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="module 'unjudged' has no attribute 'nosuch'"):
        unjudged.nosuch  # noqa: B018 -- the attribute access is the test


def _packages_with_all() -> list[str]:
    names = ["unjudged"] + [i.name for i in pkgutil.walk_packages(unjudged.__path__, "unjudged.")
                            if i.name != "unjudged.__main__"]
    return [n for n in names if hasattr(importlib.import_module(n), "__all__")]


@pytest.mark.parametrize("name", _packages_with_all())
def test_each_modules_all_names_only_what_exists(name):
    module = importlib.import_module(name)
    missing = [n for n in module.__all__ if not hasattr(module, n)]
    assert not missing, f"{name}.__all__ names what it lacks: {missing}"
    assert len(module.__all__) == len(set(module.__all__)), f"{name}.__all__ repeats a name"


def test_packages_with_all_include_the_documented_ones():
    found = _packages_with_all()
    for name in ("unjudged", "unjudged.parallel", "unjudged.stats.significance",
                 "unjudged.measures", "unjudged.io"):
        assert name in found


def test_the_command_line_loads_no_heavy_library():
    """`unjudged --help` stays fast: numpy, pandas and matplotlib load only when a command
    needs them."""
    code = ("import sys, unjudged.cli; "
            "print(' '.join(m for m in ('numpy', 'pandas', 'matplotlib', 'scipy', 'pyarrow')"
            " if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == ""
