"""`unjudged measures`: the registry rendered as text."""

from __future__ import annotations

import textwrap

from unjudged.errors import MeasureSpecError
from unjudged.measures import REGISTRY, families


def _usage(spec) -> str:
    cut = {"none": "", "optional": "[@k]", "required": "@k"}[spec.cutoff]
    params = ",".join(f"{p.name}={p.default!r}" for p in spec.params)
    return spec.name + (f"({params})" if params else "") + cut


def listing() -> str:
    """One line per family: usage and the first sentence of the description."""
    rows = [(_usage(s), s.description.split(". ")[0].rstrip(".")) for s in families()]
    width = max(len(u) for u, _ in rows)
    return "".join(f"{u.ljust(width)}  {d}\n" for u, d in rows)


def describe(name: str) -> str:
    """Everything the registry knows about one family."""
    spec = REGISTRY.get(name)
    if spec is None:
        from unjudged.measures import parse_measure

        try:
            spec = parse_measure(name).spec
        except MeasureSpecError:
            raise
    out = [f"{spec.name}   usage: {_usage(spec)}", ""]
    out += textwrap.wrap(spec.description, 88) + [""]
    if spec.aliases:
        out.append("aliases: " + ", ".join(spec.aliases))
    if spec.cutoff != "none":
        out.append(f"cutoff @k: {spec.cutoff}")
    for p in spec.params:
        out.append(f"  {p.name} ({p.type.__name__}, default {p.default!r}): {p.doc}")
    out.append(f"aggregate over topics: {spec.aggregate}; "
               f"{'higher' if spec.higher_is_better else 'lower'} is better")
    if spec.citation:
        out.append(f"source: {spec.citation}")
    return "\n".join(out) + "\n"
