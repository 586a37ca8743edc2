"""ndeval's command line, read the way its `while (argc != 3)` loop reads it."""

from __future__ import annotations

from dataclasses import dataclass

from unjudged.errors import InvalidOptionError

USAGE = "usage: unjudged ndeval [options] qrels run"
VERSION = "version 4.5 (Mon 29 Apr 2013 20:51:02 EDT)"


@dataclass(frozen=True)
class NdevalOptions:
    """ndeval's settings (its defaults: alpha = beta = 0.5, ranks from the rank column)."""

    qrels: str = ""
    run: str = ""
    alpha: float = 0.5
    beta: float = 0.5
    traditional: bool = False
    depth: int = 0  #: -M: cut runs at this many documents per topic (0: no cut)
    baseline: str | None = None
    risk_alpha: float = 0.0
    risk_alpha_text: str = "0"  #: -riskAlpha as typed: ndeval prints it in the run column
    complete: bool = False  #: -c: average over every qrels topic
    version: bool = False  #: -version was given: print the version line only


def parse_args(args: list[str]) -> NdevalOptions:
    """ndeval's options before QRELS RUN: `-alpha x`, `-beta x`, `-M n`, `-baseline RUN`,
    `-riskAlpha x` (each needs two more arguments after it, as in ndeval), `-traditional`, and
    single-letter flags `-c` / `-a` (also combined, `-ca`; `-a` changes nothing, as in ndeval).

    Example:
        >>> o = parse_args(["-alpha", "0.3", "-c", "q", "r"])
        >>> o.qrels, o.run, o.alpha, o.beta, o.complete
        ('q', 'r', 0.3, 0.5, True)
    """
    kw: dict = {}
    rest = list(args)
    while len(rest) != 2:
        head = rest[0] if rest else ""
        if head == "-version":
            return NdevalOptions(version=True)
        if len(rest) >= 4 and head in _VALUED:
            name, convert = _VALUED[head]
            kw[name] = convert(head, rest[1])
            if head == "-riskAlpha":
                kw["risk_alpha_text"] = rest[1]
            rest = rest[2:]
        elif len(rest) >= 3 and head == "-traditional":
            kw["traditional"] = True
            rest = rest[1:]
        elif len(rest) >= 3 and head.startswith("-") and len(head) > 1 \
                and set(head[1:]) <= {"c", "a"}:
            kw["complete"] = kw.get("complete", False) or "c" in head
            rest = rest[1:]
        else:
            raise InvalidOptionError(f"ndeval: unexpected argument {head!r}; {USAGE}" if rest
                                     else f"ndeval: {USAGE}")
    return NdevalOptions(qrels=rest[0], run=rest[1], **kw)


def _number(option: str, text: str, low: float, high: float) -> float:
    try:
        value = float(text)
    except ValueError:
        raise InvalidOptionError(f"ndeval: {option} expects a number, got {text!r}") from None
    if not low <= value <= high:
        raise InvalidOptionError(f"ndeval: {option} must be in [{low:g}, {high:g}], got {text}")
    return value


def _depth(option: str, text: str) -> int:
    if not text.isdigit() or int(text) <= 0:
        raise InvalidOptionError(f"ndeval: {option} expects a positive whole number, got {text!r}")
    return int(text)


_VALUED = {
    "-alpha": ("alpha", lambda o, t: _number(o, t, 0.0, 1.0)),
    "-beta": ("beta", lambda o, t: _number(o, t, 0.0, 1.0)),
    "-M": ("depth", _depth),
    "-baseline": ("baseline", lambda o, t: t),
    "-riskAlpha": ("risk_alpha", lambda o, t: _number(o, t, 0.0, float("inf"))),
}
