"""Parse measure names: the ir_measures grammar and trec_eval's names.

Accepted forms::

    nDCG@10   P(rel=2)@10   nDCG(dcg='exp-log2')@10   RBP(p=0.8)   AP   α_nDCG@20
    nDCG(gains={0:0,1:1,2:3})@10   AP(judged_only=True)   IPrec@0.5 (the recall level)
    P_10   P.10   ndcg_cut_10   map   recip_rank   num_rel_ret   (trec_eval names)

Every name in ir_measures' registry parses (ir_measures 0.4.3): values are Python literals
(dicts too), and ``@x`` sets the parameter a trec_eval suffix sets when the family has no
cutoff (IPrec's recall level, as ir_measures prints ``IPrec@0.5``).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from typing import Any

from unjudged.errors import MeasureSpecError, shown
from unjudged.measures._spec import REGISTRY, Measure, MeasureSpec

_GRAMMAR = re.compile(r"^(?P<name>[\w\-]+?)(?:\((?P<args>.*)\))?(?:@(?P<cut>\d*\.?\d+))?$")
_TREC_CUT = re.compile(r"^(?P<name>[A-Za-z0-9_\-]+?)[_.](?P<cut>\d*\.?\d+)$")


def parse_measures(names: str | Measure | Iterable[str | Measure]) -> list[Measure]:
    """Parse several names; every bad name is reported at once, each with close matches.
    Measures already parsed pass through."""
    if isinstance(names, (str, Measure)):
        names = [names]
    if not isinstance(names, Iterable) or isinstance(names, (bytes, Mapping)):
        raise MeasureSpecError(f"measures: got {type(names).__name__} {shown(names)}; {_EXPECTED}")
    out: list[Measure] = []
    problems: list[str] = []
    for text in names:
        if isinstance(text, Measure):
            out += [] if text in out else [text]
            continue
        if not isinstance(text, str):
            problems.append(f"measure {shown(text)} is a {type(text).__name__}, not a name")
            continue
        for part in _split(text):
            try:
                m = parse_measure(part)
            except MeasureSpecError as exc:
                problems.append(str(exc))
                continue
            if m not in out:
                out.append(m)
    if problems:
        raise MeasureSpecError("; ".join(problems))
    return out


_EXPECTED = "expected names such as 'nDCG@10', or a list of them"


def measures_given(names: Any) -> list[Measure]:
    """parse_measures for the public functions, which need at least one measure.

    Example:
        >>> try:
        ...     measures_given([])
        ... except MeasureSpecError as exc:
        ...     print(exc)
        no measure given; expected names such as 'nDCG@10', or a list of them
    """
    out = parse_measures(names)
    if not out:
        raise MeasureSpecError(f"no measure given; {_EXPECTED}")
    return out


def _split(text: str) -> list[str]:
    """Split 'P@5 nDCG@10' or 'P@5,nDCG@10' but not commas inside parentheses."""
    parts, depth, cur = [], 0, ""
    for ch in text.strip():
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if depth == 0 and (ch.isspace() or ch == ","):
            if cur:
                parts.append(cur)
            cur = ""
            continue
        cur += ch
    if cur:
        parts.append(cur)
    return parts


def parse_measure(text: str) -> Measure:
    """One measure name to a bound Measure.

    Example:
        >>> parse_measure("ndcg_cut_10").name
        'nDCG@10'
        >>> parse_measure("P(rel=2)@5").name
        'P(rel=2)@5'
    """
    text = text.strip()
    m = _GRAMMAR.match(text)
    if m and m.group("name") in REGISTRY:
        spec = REGISTRY[m.group("name")]
        args = _args(text, m.group("args"))
        value = m.group("cut")
        if value and spec.cutoff == "none" and spec.suffix != "cutoff":
            return _bind(spec, text, None, {**args, spec.suffix: float(value)})
        if value and "." in value:
            raise MeasureSpecError(f"{text!r}: the cutoff must be a whole number")
        return _bind(spec, text, int(value) if value else None, args)
    t = _TREC_CUT.match(text)
    if t and t.group("name") in REGISTRY:
        spec = REGISTRY[t.group("name")]
        value = t.group("cut")
        if spec.suffix != "cutoff":
            return _bind(spec, text, None, {spec.suffix: float(value)})
        if "." in value:
            raise MeasureSpecError(f"{text!r}: the cutoff must be a whole number")
        return _bind(spec, text, int(value), {})
    if not REGISTRY.complete:  # a measure module added after _names was generated
        REGISTRY.load_all()
        return parse_measure(text)
    raise MeasureSpecError(f"unknown measure {text!r}{_suggest(text)}")


def _args(text: str, args: str | None) -> dict[str, object]:
    if not args:
        return {}
    out: dict[str, object] = {}
    for part in _split_commas(args):
        key, eq, value = part.partition("=")
        if not eq:
            raise MeasureSpecError(f"{text!r}: parameter {part!r} is not of the form name=value")
        try:
            out[key.strip()] = ast.literal_eval(value.strip())
        except (ValueError, SyntaxError):
            out[key.strip()] = value.strip()
    return out


def _split_commas(args: str) -> list[str]:
    """Split on the commas outside quotes and brackets (``gains={0:0,1:1},dcg='log2'``)."""
    parts, quote, cur, depth = [], "", "", 0
    for ch in args:
        if ch in "'\"":
            quote = "" if quote == ch else (quote or ch)
        elif not quote and ch in "{[(":
            depth += 1
        elif not quote and ch in "}])":
            depth -= 1
        if ch == "," and not quote and not depth:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    return [p for p in parts if p.strip()]


def _bind(spec: MeasureSpec, text: str, cut: int | None, args: dict[str, object]) -> Measure:
    if spec.cutoff == "none" and cut is not None:
        raise MeasureSpecError(f"{text!r}: {spec.name} takes no @cutoff")
    if spec.cutoff == "required" and cut is None:
        raise MeasureSpecError(f"{text!r}: {spec.name} needs a cutoff, e.g. {spec.name}@10")
    if cut is not None and cut < 1:
        raise MeasureSpecError(f"{text!r}: the cutoff must be at least 1")
    known = {p.name: p for p in spec.params}
    bound = []
    for key, value in args.items():
        if key not in known:
            names = ", ".join(known) or "none"
            raise MeasureSpecError(f"{text!r}: {spec.name} has no parameter {key!r} "
                                   f"(parameters: {names})")
        p = known[key]
        try:
            value = p.accept(value)
        except ValueError as exc:  # one line: the measure, parameter, value and domain
            raise MeasureSpecError(f"{text!r}: {spec.name}'s parameter {key} {exc}") from None
        bound.append((key, value))
    order = [p.name for p in spec.params]
    bound.sort(key=lambda kv: order.index(kv[0]))
    return Measure(spec, cut, tuple(bound))


def _suggest(text: str) -> str:
    import difflib  # error path only

    base = re.split(r"[@(_.]", text, maxsplit=1)[0]
    names = sorted(REGISTRY)
    close = difflib.get_close_matches(text, names, n=3, cutoff=0.5) or \
        difflib.get_close_matches(base, names, n=3, cutoff=0.5)
    if not close:
        lower = {n.lower(): n for n in names}
        close = [lower[base.lower()]] if base.lower() in lower else []
    return f" (did you mean {', '.join(close)}?)" if close else ""
