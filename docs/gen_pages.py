"""mkdocs hook: the parts of the site generated from the code when it is built (`make docs`).

- `<!-- options: eval -->` (or `<!-- options: qrels stats -->`) in a page becomes the command's
  usage and a table of its options, read from the click command itself;
- `<!-- api -->` becomes the API reference (mkdocstrings blocks) of every public name of
  `unjudged` (its `__all__`, resolved through the lazy table) and of the main packages;
- `catalogue.md` (the measure catalogue) is generated from the measure registry;
- `readme.md` is the repository's README.md, its links made relative to the site.

Nothing generated is committed, so nothing can go stale. The build fails (strict) when a
command of `unjudged` has no page in docs/commands/ or a marker names an unknown command.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import click
import griffe
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parent.parent
_OPTIONS = re.compile(r"^<!-- options: ([\w -]+?) -->$", re.M)
# packages documented whole (their __all__), after the top-level names
PACKAGES = ["unjudged.measures", "unjudged.io", "unjudged.policies", "unjudged.errors",
            "unjudged.parallel", "unjudged.planning"]


class ExampleSections(griffe.Extension):
    """Griffe extension: read the code's "Example:" sections as Google-style "Examples:".

    The docstrings (doctests run by the suite) head their examples "Example:", which the
    Google style would read as an admonition of Markdown text; as "Examples:" the `>>>` lines
    are shown as code. Registered in mkdocs.yml (mkdocstrings' `extensions`).
    """

    def on_object(self, *, obj, **kwargs) -> None:
        if obj.docstring is not None:
            obj.docstring.value = re.sub(r"^(\s*)Example:\s*$", r"\1Examples:",
                                         obj.docstring.value, flags=re.M)


def command(path: list[str]) -> click.Command:
    """The click command at `path` below `unjudged` (e.g. ["qrels", "stats"])."""
    from unjudged.cli import main

    cmd: click.Command = main
    for name in path:
        if not isinstance(cmd, click.Group) or name not in cmd.commands:
            raise PluginError(f"gen_pages: no command `unjudged {' '.join(path)}`")
        cmd = cmd.commands[name]
    return cmd


def _cell(text: str) -> str:
    """Text for a Markdown table cell. A pipe escaped as \\| inside a code span shows its
    backslash (Python-Markdown keeps code spans literal), so code spans become <code> elements
    and every pipe the character reference &#124;, which no table splits on.

    >>> _cell("one of `a|b` or c|d <x>")
    'one of <code>a&#124;b</code> or c&#124;d &lt;x&gt;'
    """
    import html

    parts = re.split(r"`([^`]*)`", text.replace("\n", " "))
    out = [f"<code>{html.escape(p, quote=False)}</code>" if i % 2 else html.escape(p, quote=False)
           for i, p in enumerate(parts)]
    return "".join(out).replace("|", "&#124;")


def options_markdown(path: list[str]) -> str:
    """Usage and options of `unjudged PATH...` as Markdown, from click's own help."""
    from unjudged.cli import main

    cmd = command(path)
    ctx = click.Context(main, info_name="unjudged")
    for name in path:
        ctx = click.Context(command(path[:path.index(name) + 1]), info_name=name, parent=ctx)
    usage = " ".join(cmd.collect_usage_pieces(ctx))
    out = ["```text", f"unjudged {' '.join(path)} {usage}".rstrip(), "```", ""]
    if isinstance(cmd, click.Group):
        out += ["| subcommand | what it does |", "|---|---|"]
        for name, sub in cmd.commands.items():
            out.append(f"| {_cell(f'`{name}`')} | {_cell(sub.get_short_help_str(200))} |")
        return "\n".join(out) + "\n"
    help_text = cmd.help or ""
    if "\b" in help_text:  # a command that parses its own options (ndeval) lists them itself
        text = inspect.cleandoc(help_text).replace("\b\n", "")
        out += ["```text", text, "```", ""]
    rows = [p.get_help_record(ctx) for p in cmd.params if isinstance(p, click.Option)]
    rows = [r for r in rows if r is not None]
    if rows:
        out += ["| option | meaning |", "|---|---|"]
        out += [f"| {_cell(f'`{names}`')} | {_cell(text)} |" for names, text in rows]
    return "\n".join(out) + "\n"


def api_markdown() -> str:
    """mkdocstrings blocks for the public names of `unjudged` and of the main packages."""
    import importlib

    import unjudged

    out = ["## Top-level names (`import unjudged`)", ""]
    for name in unjudged.__all__:
        if name.startswith("__"):
            continue
        module = unjudged._LAZY[name]
        out += [f"::: {module}.{name}", "    options:", "      show_root_heading: true",
                "      show_root_full_path: false", ""]
    for package in PACKAGES:
        mod = importlib.import_module(package)
        members = [m for m in getattr(mod, "__all__", []) if not m.startswith("_")]
        out += [f"## `{package}`", "", f"::: {package}", "    options:",
                "      show_root_heading: false", "      show_submodules: false",
                f"      members: [{', '.join(members)}]", ""]
    return "\n".join(out)


def readme_markdown() -> str:
    """README.md with its links made relative to the site (docs/X -> X)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    text = text.replace("](docs/", "](")

    def link(m: re.Match) -> str:  # a file outside docs/ is named, as code, not linked
        target = m.group(2)
        if target.startswith(("http:", "https:", "#")) or (ROOT / "docs" / target).exists():
            return m.group(0)
        return f"{m.group(1)} (`{target}` in the repository)"

    return re.sub(r"(?<!!)\[([^\]]+)\]\(([^)\s]+)\)", link, text)


def on_files(files, config):
    """Add the generated pages; refuse a build that leaves a command without a page."""
    from unjudged.cli import main
    from unjudged.report.catalogue import catalogue_markdown

    missing = [n for n in main.commands
               if files.get_file_from_path(f"commands/{n}.md") is None]
    if missing:
        raise PluginError("gen_pages: commands without a page in docs/commands/: "
                          + ", ".join(missing))
    files.append(File.generated(config, "catalogue.md", content=catalogue_markdown()))
    files.append(File.generated(config, "readme.md", content=readme_markdown()))
    return files


def on_page_markdown(markdown, page, config, files):
    """Expand the `<!-- options: ... -->` and `<!-- api -->` markers."""
    markdown = _OPTIONS.sub(lambda m: options_markdown(m.group(1).split()), markdown)
    return markdown.replace("<!-- api -->", api_markdown())
