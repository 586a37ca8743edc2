"""`unjudged measures` and the docs' measure catalogue: the registry rendered as text.

The listing wraps to a width (the terminal's by default) and shows whole sentences only: the
first sentence of each description, found without splitting at "e.g." or inside brackets, and
never cut at the edge of the screen. The catalogue is the same registry as Markdown, generated
when the documentation is built.
"""

from __future__ import annotations

import re
import shutil
import textwrap

from unjudged.errors import MeasureSpecError
from unjudged.measures import REGISTRY, MeasureSpec, families
from unjudged.measures.divergence import CITATION, FAMILIES, PARAM_DOCS, SHARED, family

# a full stop after one of these does not end a sentence
_ABBREVIATIONS = ("e.g", "i.e", "cf", "vs", "al", "eq", "etc", "fig", "no", "approx", "resp")
_OPEN, _CLOSE = "([{", ")]}"


def _usage(spec) -> str:
    cut = {"none": "", "optional": "[@k]", "required": "@k"}[spec.cutoff]
    params = ",".join(f"{p.name}={p.default!r}" for p in spec.params)
    return spec.name + (f"({params})" if params else "") + cut


def sentences(text: str) -> list[str]:
    """Split a description into sentences, keeping "e.g.", "0.1" and brackets whole.

    Example:
        >>> sentences("Mean at 0, 0.1, ..., 1 (or the levels given, e.g. levels='.5'). Next one.")
        ["Mean at 0, 0.1, ..., 1 (or the levels given, e.g. levels='.5').", 'Next one.']
    """
    out: list[str] = []
    depth = 0
    quoted = False
    start = 0
    for i, ch in enumerate(text):
        if ch == "`":
            quoted = not quoted
        elif ch in _OPEN and not quoted:
            depth += 1
        elif ch in _CLOSE and not quoted:
            depth = max(0, depth - 1)
        elif ch in ".!?" and depth == 0 and not quoted:
            after = text[i + 1:i + 2]
            if after not in ("", " ", "\n"):
                continue
            word = re.split(r"\s", text[start:i])[-1].lower()
            if word in _ABBREVIATIONS or word.endswith(".."):
                continue
            out.append(text[start:i + 1].strip())
            start = i + 1
    rest = text[start:].strip()
    if rest:
        out.append(rest)
    return out


def _first_sentence(text: str) -> str:
    found = sentences(text)
    return found[0] if found else ""


def terminal_width(default: int = 80) -> int:
    """The width to wrap at: $COLUMNS, else the terminal's, else `default` (at least 40).

    Example:
        >>> terminal_width() >= 40
        True
    """
    return max(40, shutil.get_terminal_size((default, 24)).columns)


def listing(width: int | None = None) -> str:
    """Every measure family: its usage, its first sentence and its aliases, wrapped to `width`.

    Long usages put the description on the next line; no sentence is cut, and no line is
    longer than `width` unless a single word is.

    Example:
        >>> text = listing(width=60)
        >>> max(len(line) for line in text.splitlines()) <= 60
        True
        >>> "e.g. levels='.25,.5,.75')." in " ".join(listing(width=200).split())
        True
    """
    width = terminal_width() if width is None else max(40, width)
    rows = [(_usage(s), _first_sentence(s.description), s.aliases) for s in families()]
    rows += [(usage, sentence, ()) for usage, sentence in FAMILIES.values()]
    column = min(max(len(u) for u, _, _ in rows), max(12, width // 3))
    indent = " " * (column + 2)
    out: list[str] = []
    for usage, sentence, aliases in rows:
        text = sentence + (f" Aliases: {', '.join(aliases)}." if aliases else "")
        lines = textwrap.wrap(text, width - len(indent), break_on_hyphens=False,
                              break_long_words=False)
        if len(usage) > column:
            out += _wrap_usage(usage, width)
            out += [indent + line for line in lines]
        else:
            out.append(usage.ljust(column) + "  " + lines[0])
            out += [indent + line for line in lines[1:]]
    return "".join(line.rstrip() + "\n" for line in out)


def _wrap_usage(usage: str, width: int) -> list[str]:
    """A usage longer than the width, broken after commas; continuation lines indented."""
    lines = [""]
    for piece in re.split(r"(?<=,)", usage):
        if lines[-1].strip() and len(lines[-1]) + len(piece) > width:
            lines.append("    ")
        lines[-1] += piece
    return lines


def describe(name: str, width: int | None = None) -> str:
    """Everything the registry knows about one family, wrapped to `width`; `name` is any of
    its names, in any case where that is not another measure's (also the text measures).

    Example:
        >>> describe("recip_rank", width=60).split()[:2]
        ['RR', 'usage:']
    """
    width = terminal_width() if width is None else max(40, width)
    spec = REGISTRY.get(name)
    if spec is None:
        from unjudged.measures import parse_measure

        try:
            spec = parse_measure(name).spec
        except MeasureSpecError:
            text_family = family(name)
            if text_family is not None:
                return _describe_divergence(text_family, width)
            spec = _by_any_case(name)
    wrap = textwrap.TextWrapper(width, break_on_hyphens=False, break_long_words=False,
                                subsequent_indent="    ")
    out = [f"{spec.name}   usage: {_usage(spec)}", ""]
    out += textwrap.wrap(spec.description, width, break_on_hyphens=False,
                         break_long_words=False) + [""]
    if spec.aliases:
        out += wrap.wrap("aliases: " + ", ".join(spec.aliases))
    if spec.cutoff != "none":
        out.append(f"cutoff @k: {spec.cutoff}")
    for p in spec.params:
        out += wrap.wrap(f"  {p.name} ({p.type.__name__}, default {p.default!r}): {p.doc}")
    out += wrap.wrap(f"aggregate over topics: {spec.aggregate}; "
                     f"{'higher' if spec.higher_is_better else 'lower'} is better")
    if spec.citation:
        out += wrap.wrap(f"source: {spec.citation}")
    return "\n".join(out) + "\n"


def _by_any_case(name: str) -> MeasureSpec:
    """The one family one of whose names is `name` but for case (with or without parameters
    and @k), a family's own name first (`ap` is AP; `Ap`, Judged's alias, is exact); the
    parser's error where none is, and an error naming them where several are."""
    from unjudged.measures import parse_measure

    base = re.split(r"[(@]", name.strip(), maxsplit=1)[0].casefold()
    # trec_eval's names carry the cutoff after an underscore: ndcg_cut_10, P_5
    spellings = {name.strip().casefold(), base, re.sub(r"_[0-9.]+$", "", base)}
    found: dict[int, tuple[str, MeasureSpec]] = {}
    for key, spec in REGISTRY.items():
        if key.casefold() in spellings:
            found.setdefault(id(spec), (key, spec))
    named = [spec for key, spec in found.values() if key == spec.name]
    if len(found) == 1 or len(named) == 1:  # a family's own name before another's alias
        return named[0] if len(named) == 1 else next(iter(found.values()))[1]
    if found:
        names = ", ".join(sorted(k for k, _ in found.values()))
        raise MeasureSpecError(f"{name!r} is one of several measures but for case: {names}; "
                               "give the name in its own case")
    return parse_measure(name).spec  # raises the parser's error, with its suggestions


def _describe_divergence(name: str, width: int) -> str:
    """`unjudged measures ABS-NB`: the divergence families are not in the registry."""
    usage, sentence = FAMILIES[name]
    wrap = textwrap.TextWrapper(width, break_on_hyphens=False, break_long_words=False,
                                subsequent_indent="    ")
    out = [f"{name}   usage: {usage}", ""]
    out += textwrap.wrap(f"{sentence} {SHARED}", width, break_on_hyphens=False,
                         break_long_words=False) + ["", "cutoff @k: required"]
    for p in ("mu", "theta") if name.endswith("RB") else ("mu",):
        default = usage.split(f"{p}=")[1].split(",")[0].split(")")[0]
        out += wrap.wrap(f"  {p} (float, default {default}): {PARAM_DOCS[p]}")
    out += wrap.wrap("aggregate over topics: mean of the scored topics; higher is better")
    out += wrap.wrap(f"source: {CITATION}")
    return "\n".join(out) + "\n"


def _md(text: str) -> str:
    """Escape what Markdown would read as markup in a registry string (outside `code`)."""
    parts = text.split("`")
    for i in range(0, len(parts), 2):
        parts[i] = re.sub(r"([\\*_<>|\[\]])", r"\\\1", parts[i])
    return "`".join(parts)


def catalogue_markdown() -> str:
    """The measure catalogue as Markdown: one section per family, from the registry.

    Generated when the documentation is built (docs/gen_pages.py), so it cannot go stale.

    Example:
        >>> text = catalogue_markdown()
        >>> "## nDCG" in text and "Järvelin & Kekäläinen" in text
        True
    """
    out = ["# Measure catalogue", "",
           "Every measure family in unjudged's registry, generated from the registry when the "
           "site is built (the same text as `unjudged measures NAME`). Names follow the "
           "ir_measures grammar: `Name(param=value,...)@k`; aliases (trec_eval's names first) "
           "are accepted wherever a measure is.", ""]
    specs = families()
    out += ["| measure | usage | aliases |", "|---|---|---|"]
    for s in specs:
        anchor = re.sub(r"[^a-z0-9-]", "", s.name.lower())
        aliases = ", ".join(f"`{a}`" for a in s.aliases) or "-"
        out.append(f"| [{_md(s.name)}](#{anchor}) | `{_usage(s)}` | {aliases} |")
    # they read document text (`unjudged text divergence`), so their page is their own
    out += [f"| [{name}](divergence.md) | `{usage}` | - |"
            for name, (usage, _) in FAMILIES.items()]
    out.append("")
    for s in specs:
        out += [f"## {s.name}", "", f"Usage: `{_usage(s)}`", "", _md(s.description), ""]
        if s.aliases:
            out += ["Aliases: " + ", ".join(f"`{a}`" for a in s.aliases) + ".", ""]
        cutoff = {"none": "none", "optional": "optional (`@k`)", "required": "required (`@k`)"}
        out += [f"- cutoff: {cutoff[s.cutoff]}"]
        out += [f"- aggregate over topics: {s.aggregate}; "
                f"{'higher' if s.higher_is_better else 'lower'} is better"]
        if s.params:
            out.append("- parameters:")
            for p in s.params:
                choices = (" (one of " + ", ".join(f"`{c!r}`" for c in p.choices) + ")"
                           if p.choices else "")
                out.append(f"    - `{p.name}` ({p.type.__name__}, default `{p.default!r}`)"
                           f"{choices}: {_md(p.doc)}")
        if s.citation:
            out.append(f"- source: {_md(s.citation)}")
        out.append("")
    return "\n".join(out)
