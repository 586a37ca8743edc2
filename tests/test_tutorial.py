"""The tutorial docs/tutorial-new-run.md runs as written: its Python blocks, in order and in one
namespace, print exactly the text blocks that follow them, with no warning (issue 32 item 15).
Its shell block is checked with the other documented commands (test_docs_examples)."""

from __future__ import annotations

import contextlib
import io
import re
import warnings
from pathlib import Path

import pytest

from unjudged.errors import UnjudgedWarning

PAGE = Path(__file__).resolve().parents[1] / "docs" / "tutorial-new-run.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)


def steps(text: str) -> list[tuple[str, str | None, int]]:
    """(code, the output shown after it or None, line) of each python block."""
    blocks = [(m.group(1), m.group(2), text.count("\n", 0, m.start()) + 1)
              for m in FENCE.finditer(text)]
    out = []
    for k, (lang, body, line) in enumerate(blocks):
        if lang == "python":
            shown = blocks[k + 1][1] if k + 1 < len(blocks) and blocks[k + 1][0] == "text" \
                else None
            out.append((body, shown, line))
    return out


def run_steps(text: str):
    """Run the page's python blocks in order in one namespace, warnings of unjudged and numpy
    as errors; yield (line, output shown, output printed) per block."""
    namespace: dict = {"__name__": "tutorial"}
    for code, shown, line in steps(text):
        buf = io.StringIO()
        with warnings.catch_warnings():
            warnings.simplefilter("error", UnjudgedWarning)  # a user would see these
            warnings.simplefilter("error", RuntimeWarning)  # numpy's
            with contextlib.redirect_stdout(buf):
                exec(compile(code, f"{PAGE.name}:{line}", "exec"), namespace)  # noqa: S102
        yield line, shown, buf.getvalue()


def update() -> None:
    """Rewrite the page's output blocks with what its code prints now (after a deliberate
    change of the numbers: `python tests/test_tutorial.py`); the prose is left to the reader
    of the diff."""
    text = PAGE.read_text(encoding="utf-8")
    printed = {line: out for line, _, out in run_steps(text)}
    blocks = list(FENCE.finditer(text))
    parts, at = [], 0
    for k, m in enumerate(blocks[:-1]):
        line = text.count("\n", 0, m.start()) + 1
        after = blocks[k + 1]
        if m.group(1) == "python" and after.group(1) == "text" and line in printed:
            parts += [text[at:after.start(2)], printed[line]]
            at = after.end(2)
    PAGE.write_text("".join(parts) + text[at:], encoding="utf-8")


def test_steps_pair_code_with_output():
    text = "```python\nprint(1)\n```\n\n```text\n1\n```\n```python\nx = 2\n```\n"
    assert steps(text) == [("print(1)\n", "1\n", 1), ("x = 2\n", None, 8)]


def test_tutorial_runs_as_written(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # anything it wrote would land here
    found = steps(PAGE.read_text(encoding="utf-8"))
    assert len(found) >= 6 and all(shown is not None for _, shown, _ in found)
    for line, shown, printed in run_steps(PAGE.read_text(encoding="utf-8")):
        assert printed == shown, (f"{PAGE.name}:{line}: the output differs (after a deliberate "
                                  "change: python tests/test_tutorial.py rewrites it)")


def test_tutorial_is_in_the_site_navigation_and_index():
    root = PAGE.parents[1]
    assert "tutorial-new-run.md" in (root / "mkdocs.yml").read_text()
    assert "(tutorial-new-run.md)" in (root / "docs" / "index.md").read_text()


def test_tutorial_shell_block_parses():
    from test_docs_examples import EXAMPLES, check

    mine = [e for e in EXAMPLES if e.source.startswith("docs/tutorial-new-run.md")]
    assert len(mine) == 5, [str(e) for e in mine]
    for example in mine:
        assert check(example)
    if not any("--pool-runs" in e.args for e in mine):
        pytest.fail("the estimate examples lost --pool-runs")


if __name__ == "__main__":
    update()
