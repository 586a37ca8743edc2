"""The package's architecture, checked: import-linter's contracts (pyproject.toml
[tool.importlinter]), no import cycles between modules, and no import going up the layers.

Lazy imports inside functions count as imports: a lower layer that needs a higher one at run
time must be handed it (a callable, an object), not import it.
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

grimp = pytest.importorskip("grimp")
tomllib = pytest.importorskip("tomllib")

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "unjudged"


def _layers() -> list[list[str]]:
    """The layers contract of pyproject.toml, lowest first; "a | b" are independent siblings."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    (contract,) = [c for c in config["contracts"] if c["type"] == "layers"]
    return [[p.strip() for p in layer.split("|")] for layer in reversed(contract["layers"])]


@pytest.fixture(scope="module")
def graph():
    # imports under `if TYPE_CHECKING:` never run: they are no dependency (as in pyproject's
    # import-linter settings)
    return grimp.build_graph(PACKAGE, cache_dir=None, exclude_type_checking_imports=True)


def _own(graph) -> list[str]:
    return sorted(m for m in graph.modules if m == PACKAGE or m.startswith(PACKAGE + "."))


def strongly_connected(nodes: list[str], edges) -> list[list[str]]:
    """Tarjan's strongly connected components (iterative) of the graph nodes -> edges(node).

    >>> sorted(map(sorted, strongly_connected(["a", "b", "c"],
    ...                                       {"a": ["b"], "b": ["a"], "c": ["a"]}.get)))
    [['a', 'b'], ['c']]
    """
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    for start in nodes:
        if start in index:
            continue
        work = [(start, iter(sorted(edges(start) or ())))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges(child) or ()))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        top = stack.pop()
                        on_stack.discard(top)
                        component.append(top)
                        if top == node:
                            break
                    out.append(component)
    return out


def test_import_linter_contracts_hold():
    lint = Path(sys.executable).with_name("lint-imports")
    if not lint.exists():
        pytest.skip("import-linter is not installed (pip install -e .[test])")
    done = subprocess.run([str(lint), "--config", "pyproject.toml", "--no-cache"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


def test_no_import_cycles_between_modules(graph):
    own = _own(graph)
    inside = set(own)

    def imported(module: str) -> list[str]:
        return [m for m in graph.find_modules_directly_imported_by(module) if m in inside]

    cycles = [sorted(c) for c in strongly_connected(own, imported) if len(c) > 1]
    print(f"\nimport cycles between modules: {len(cycles)}")
    shown = [f"{a} -> {b} (line {d['line_number']})" for c in cycles for a in c
             for b in imported(a) if b in c
             for d in graph.get_import_details(importer=a, imported=b)[:1]]
    assert cycles == [], "\n".join(shown)


def test_no_import_goes_up_the_layers(graph):
    rank = {p: i for i, layer in enumerate(_layers()) for p in layer}
    back = []
    for module in _own(graph):
        parts = module.split(".")
        if len(parts) < 2 or parts[1] not in rank:
            continue  # the facade (unjudged/__init__, __main__) sits above every layer
        for target in graph.find_modules_directly_imported_by(module):
            tparts = target.split(".")
            if tparts[0] != PACKAGE or len(tparts) < 2 or tparts[1] not in rank:
                continue
            a, b = rank[parts[1]], rank[tparts[1]]
            if b > a or (b == a and parts[1] != tparts[1]):  # up, or across siblings
                back.append(f"{module} -> {target}")
    print(f"\nback edges against the layer order: {len(back)}")
    assert back == []


def test_modules_per_package(graph):
    """For the closing note: how many modules each package holds (printed, not asserted)."""
    counts = Counter(m.split(".")[1] if m.count(".") else "(facade)" for m in _own(graph)
                     if m != PACKAGE)
    width = max(map(len, counts))
    print("\nmodules per package:")
    for name, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"  {name:<{width}} {n}")
    print(f"  {'total':<{width}} {sum(counts.values())}")
    assert sum(counts.values()) > 0


def test_tarjan_on_a_known_graph():
    edges = {"a": ["b"], "b": ["c"], "c": ["a", "d"], "d": ["e"], "e": ["d"], "f": []}
    found = sorted(sorted(c) for c in strongly_connected(sorted(edges), edges.get))
    assert found == [["a", "b", "c"], ["d", "e"], ["f"]]
