"""The examples in the docstrings of every module of unjudged run, and give what they show.

One case per module (a failure names the module and prints doctest's report). Examples that
need an optional extra (dask, PyStemmer) run because the test extra installs them; examples
that write files write them in a temporary folder.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import unjudged

# __main__ runs the command line when imported
SKIP = {"unjudged.__main__"}

MODULES = sorted(
    info.name for info in pkgutil.walk_packages(unjudged.__path__, prefix="unjudged.")
    if info.name not in SKIP
)

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE

# examples run per module; the total is checked (and printed) once all modules have run
_RUN: dict[str, int] = {}


def test_every_package_is_found():
    assert "unjudged.engine.score" in MODULES and "unjudged.io.runs" in MODULES
    assert len(MODULES) > 100


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # examples that write files write them here
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    report: list[str] = []
    for test in finder.find(module, name):
        runner.run(test, out=report.append)
    _RUN[name] = runner.tries
    assert runner.failures == 0, f"{name}: {runner.failures} example(s) failed\n" + "".join(report)


def test_doctest_total(capsys):
    """Runs after the modules (pytest keeps the file's order): the number of examples run."""
    if len(_RUN) < len(MODULES):
        pytest.skip("only part of the modules ran")
    total = sum(_RUN.values())
    with capsys.disabled():
        print(f"\n{total} doctest examples in {sum(n > 0 for n in _RUN.values())} modules")
    assert total >= 140
