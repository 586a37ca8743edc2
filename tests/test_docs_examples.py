"""Every shell example of the documentation is a valid `unjudged` command.

The examples are the `unjudged ...` lines (or `$ unjudged ...`) of the fenced sh/bash/console/
shell blocks of README.md and docs/**/*.md, with `\\` continuations joined and comments, pipes
and redirections cut off. Each is parsed by the CLI itself (click's `make_context` down the
command path, which checks options, choices, types and the number of arguments without running
anything); measure names are parsed by the measure grammar, and ndeval's own options by its
parser. The cheap ones (`measures`, `--help`, and `eval`, `trec_eval`, `qrels stats`, `coverage`
on trec_eval's test files) are also run, on ../shared/data when it is present.

Also here: `unjudged measures` wraps to the terminal's width and never cuts a sentence.
"""

from __future__ import annotations

import contextlib
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from shared_data import DATA
from unjudged.cli import main

ROOT = Path(__file__).resolve().parents[1]
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.M | re.S)
SHELL = {"sh", "bash", "console", "shell"}
# commands whose -m values are measures of the registry (text divergence has its own)
MEASURE_COMMANDS = {("eval",), ("estimate",), ("report",), ("compare-qrels",), ("infer",),
                    ("demo",), ("matrix",), ("experiment", "leave-one-group-out"),
                    ("experiment", "sampling")}
# run when every file argument exists in ../shared/data/trec_eval (cwd of the run)
CHEAP = {("eval",), ("trec_eval",), ("qrels", "stats"), ("coverage",), ("measures",)}
CUT = {"|", "||", "&&", ";", ">", ">>", "<", "2>", "&"}


@dataclass(frozen=True)
class Example:
    source: str  # file:line
    args: tuple[str, ...]  # after `unjudged`

    def __str__(self) -> str:
        return "unjudged " + " ".join(self.args)


def _doc_files() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def examples() -> list[Example]:
    """The `unjudged` command lines of every fenced shell block."""
    found: list[Example] = []
    for path in _doc_files():
        text = path.read_text(encoding="utf-8")
        for block in FENCE.finditer(text):
            if block.group(1) not in SHELL:
                continue
            first = text.count("\n", 0, block.start(2)) + 1
            lines = block.group(2).splitlines()
            # NAME=value lines of the block expand $NAME in its commands
            assigned = dict(re.findall(r"^(\w+)=(\S+)$", block.group(2), re.M))
            i = 0
            while i < len(lines):
                start = i
                line = lines[i]
                while line.rstrip().endswith("\\") and i + 1 < len(lines):
                    i += 1
                    line = line.rstrip()[:-1] + " " + lines[i]
                i += 1
                line = line.strip()
                if line.startswith("$ "):
                    line = line[2:].lstrip()
                if not line.startswith("unjudged "):
                    continue  # make, pip, python, comments, output lines: not our commands
                for name, value in assigned.items():
                    line = line.replace("${" + name + "}", value).replace("$" + name, value)
                lexer = shlex.shlex(line, posix=True, punctuation_chars="|&;<>")
                lexer.whitespace_split = True
                lexer.commenters = "#"
                tokens: list[str] = []
                for token in lexer:
                    if token in CUT or set(token) <= set("|&;<>"):
                        break
                    tokens.append(token)
                if any(t.startswith(("[", "<")) or "$" in t for t in tokens):
                    continue  # a synopsis ([-q] QRELS RUN) or a shell loop's $variable
                rel = path.relative_to(ROOT)
                found.append(Example(f"{rel}:{first + start}", tuple(tokens[1:])))
    return found


EXAMPLES = examples()


def _resolve(args: list[str]) -> tuple[list[str], click.Context]:
    """Parse `args` down the command path without invoking anything; the path and the leaf."""
    ctx = main.make_context("unjudged", list(args))
    cmd: click.Command = main
    path: list[str] = []
    while isinstance(cmd, click.Group):
        rest = [*getattr(ctx, "_protected_args", []), *ctx.args]
        if not rest:
            break
        name, sub, rest = cmd.resolve_command(ctx, rest)
        assert sub is not None and name is not None
        path.append(name)
        ctx = sub.make_context(name, rest, parent=ctx)
        cmd = sub
    return path, ctx


def _path_types(cmd: click.Command):
    for param in cmd.params:
        if isinstance(param.type, click.Path):
            yield param.type
    if isinstance(cmd, click.Group):
        for sub in cmd.commands.values():
            yield from _path_types(sub)


@contextlib.contextmanager
def _files_need_not_exist():
    """The documented files (qrels.txt, runs/) are placeholders: parse without looking."""
    types = [(t, t.exists) for t in _path_types(main)]
    for t, _ in types:
        t.exists = False
    try:
        yield
    finally:
        for t, exists in types:
            t.exists = exists


def check(example: Example) -> tuple[str, ...]:
    """Parse one example as the CLI would; its command path. Raises on an invalid one."""
    try:
        with _files_need_not_exist():
            path, ctx = _resolve(list(example.args))
    except click.exceptions.Exit as stop:  # --help, --version: valid when they exit 0
        assert stop.exit_code == 0, f"{example}: exit {stop.exit_code}"
        return ("--help",)
    key = tuple(path)
    if key in MEASURE_COMMANDS and ctx.params.get("measures"):
        from unjudged.measures import parse_measures

        parse_measures(list(ctx.params["measures"]))
    if key == ("matrix",):
        from unjudged.measures import parse_measures

        parse_measures(list(ctx.params["families"]))
    if key == ("ndeval",):
        from unjudged.ndeval import parse_args

        parse_args(list(ctx.params["args"]))
    return key


def _runnable(example: Example, key: tuple[str, ...], cwd: Path) -> bool:
    if key in (("--help",), ("measures",)):
        return True
    if key not in CHEAP:
        return False
    files = [a for a in example.args if "/" in a or "." in a]
    return bool(files) and all((cwd / f).exists() for f in files if not f.startswith("-"))


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.source for e in EXAMPLES])
def test_example_parses(example):
    """Each documented command line parses: options, choices, arguments, measure names."""
    key = check(example)
    assert key, example


def test_examples_checked_and_run(monkeypatch, capsys):
    """Every example parses; the cheap ones also run on the shared data, exit code 0."""
    assert len(EXAMPLES) >= 80, len(EXAMPLES)
    documented = {e.args[0] for e in EXAMPLES if e.args and not e.args[0].startswith("-")}
    missing = set(main.commands) - documented
    assert not missing, f"commands without an example: {sorted(missing)}"
    cwd = DATA / "trec_eval"
    ran = []
    runner = CliRunner()
    for example in EXAMPLES:
        key = check(example)
        if not cwd.exists() and key not in (("--help",), ("measures",)):
            continue
        if _runnable(example, key, cwd):
            monkeypatch.chdir(cwd if cwd.exists() else ROOT)
            result = runner.invoke(main, list(example.args))
            assert result.exit_code == 0, f"{example.source}: {example}\n{result.output}"
            assert result.output.strip(), example
            ran.append(example)
    with capsys.disabled():
        print(f"\ndocs examples: {len(EXAMPLES)} checked (parsed by the CLI), "
              f"{len(ran)} run" + ("" if cwd.exists() else " (no shared data)"))
    assert len(ran) >= (8 if cwd.exists() else 3), [str(e) for e in ran]


def test_trec_eval_example_matches_trec_eval(monkeypatch):
    """The docs' `trec_eval` examples on trec_eval's test files print trec_eval's own bytes."""
    cwd = DATA / "trec_eval"
    if not cwd.exists():
        pytest.skip(f"shared data not found at {cwd}")
    monkeypatch.chdir(cwd)
    cases = {("trec_eval", "test/qrels.test", "test/results.test"): "out.test",
             ("trec_eval", "-m", "all_trec", "-q", "-c", "test/qrels.test",
              "test/results.trunc"): "out.test.aqc"}
    for args, expected in cases.items():
        assert any(e.args == args for e in EXAMPLES), args
        result = CliRunner().invoke(main, list(args))
        assert result.exit_code == 0
        assert result.output == (cwd / "test" / expected).read_text(), expected


def test_invalid_examples_are_caught():
    """The checker refuses what the CLI refuses (a typo'd option, a bad measure, a bad choice)."""
    bad = [("eval", "q.txt", "r.txt", "-m", "nDCG@10", "--no-such-option"),
           ("eval", "q.txt", "r.txt", "-m", "nDGC@10"),
           ("eval", "q.txt", "r.txt", "-m", "AP", "--unjudged", "maybe"),
           ("qrels", "stat", "q.txt"),
           ("ndeval", "-alpha", "q.txt", "r.txt")]
    for args in bad:
        with pytest.raises(Exception):  # noqa: B017 - click's or unjudged's own errors
            check(Example("test", args))


def test_examples_parser_joins_continuations_and_cuts_comments(tmp_path, monkeypatch):
    doc = ("```sh\n# a comment\nunjudged eval q.txt r.txt \\\n    -m AP  # trailing comment\n"
           "$ unjudged measures | head\nmake docs\n```\n\n```python\nunjudged eval x\n```\n")
    monkeypatch.setattr("test_docs_examples._doc_files", lambda: [tmp_path / "README.md"])
    monkeypatch.setattr("test_docs_examples.ROOT", tmp_path)
    (tmp_path / "README.md").write_text(doc)
    assert [e.args for e in examples()] == [("eval", "q.txt", "r.txt", "-m", "AP"),
                                            ("measures",)]
    assert [e.source for e in examples()] == ["README.md:3", "README.md:5"]


# --- `unjudged measures`: wrapped to the width, sentences whole ------------------------------

@pytest.mark.parametrize("width", [60, 120])
def test_measures_listing_wraps_to_width(width):
    from unjudged.measures import families
    from unjudged.measures.divergence import FAMILIES
    from unjudged.report.catalogue import sentences

    result = CliRunner().invoke(main, ["measures"], env={"COLUMNS": str(width)})
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert max(len(line) for line in lines) <= width
    assert max(len(line) for line in lines) > width - 15  # the width is used, not 80
    flat = " ".join(result.output.split())
    specs = families()
    for spec in specs:
        first = " ".join(sentences(spec.description)[0].split())
        assert first.endswith((".", "!", "?", ")")), first
        assert first in flat, f"{spec.name}: sentence cut: {first}"
        for alias in spec.aliases:
            assert re.search(rf"[ ,:]{re.escape(alias)}[,.]", flat), alias
    starts = [line for line in lines if not line.startswith(" ")]
    # one entry per family (and per text measure), continuation lines indented
    assert len(starts) == len(specs) + len(FAMILIES)


def test_measures_width_option_and_describe():
    result = CliRunner().invoke(main, ["measures", "--width", "60", "11ptAP"])
    assert result.exit_code == 0
    assert max(len(line) for line in result.output.splitlines()) <= 60
    flat = " ".join(result.output.split())
    assert "(or at the levels given, e.g. levels='.25,.5,.75')." in flat
    assert "aliases: 11pt_avg" in flat


def test_sentences_keep_abbreviations_and_brackets():
    from unjudged.report.catalogue import sentences

    assert sentences("A (x. Y) b, e.g. c. trec_eval -J map. Last") == [
        "A (x. Y) b, e.g. c.", "trec_eval -J map.", "Last"]
    assert sentences("Baillie et al. 2007 define it. Eq. 9 gives it.") == [
        "Baillie et al. 2007 define it.", "Eq. 9 gives it."]


def test_site_builds_strict(tmp_path):
    """`make docs`: the site builds with warnings as errors (needs the docs extra)."""
    pytest.importorskip("mkdocs")
    pytest.importorskip("mkdocstrings")
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q",
                          "-d", str(tmp_path / "site")], cwd=ROOT, capture_output=True,
                         text=True, env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr[-3000:]
    site = tmp_path / "site"
    catalogue = (site / "catalogue.html").read_text()
    from unjudged.measures import families

    assert all(f'id="{re.sub(r"[^a-z0-9-]", "", s.name.lower())}"' in catalogue
               for s in families())
    eval_page = (site / "commands" / "eval.html").read_text()
    assert "--unjudged" in eval_page and "--stream" in eval_page
    # opened from disk, every internal link names a file: no folder (a directory listing)
    pages = list(site.rglob("*.html"))
    links = {(page, href) for page in pages
             for href in re.findall(r'href="([^"#?]*)[^"]*"', page.read_text())
             if href and not href.startswith(("http:", "https:", "mailto:", "data:"))}
    folders = [(p.relative_to(site), h) for p, h in links if (p.parent / h).resolve().is_dir()]
    assert len(links) > 500 and folders == []
    # option tables: pipes inside code show as pipes, never as a literal \|
    assert "<code>-f, --format [table&#124;tsv&#124;csv" in eval_page
    assert not [p.name for p in pages if "\\|" in p.read_text()]
