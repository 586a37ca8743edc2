"""How Perl reads the tokens sample_eval.pl works on: whitespace fields and numeric strings.

sample_eval.pl slurps each file and splits it on runs of whitespace, then takes fields five (qrels)
or six (run) at a time, whatever the line breaks; comparisons such as ``$rel > 0`` convert the
string to a number by its longest numeric prefix. Reproducing both keeps odd inputs printing
what the program prints.
"""

from __future__ import annotations

import math
import re

_SPACE = re.compile(rb"[ \t\n\r\f\v]+")
_NUMBER = re.compile(r"\s*([+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?))")
# Perl's infinities and NaNs: "inf", "nan", "snan", "qnan" with anything after, and the
# Windows C library's "1.#INF", "1.#IND", "1.#QNAN" (old runs written on Windows print these)
_SPECIAL = re.compile(r"\s*([+-]?)(1\.?#)?(inf|ind|[sq]?nan)", re.IGNORECASE)


def fields(data: bytes) -> list[str]:
    """Perl's ``split(/\\s+/, $text)``: a leading empty field is kept, trailing ones dropped.

    Bytes are decoded as Latin-1 so that string order is byte order, as Perl's ``cmp``.

    >>> fields(b"1 0 d1 1 2\\n1 0 d2  1 -1\\n")
    ['1', '0', 'd1', '1', '2', '1', '0', 'd2', '1', '-1']
    >>> fields(b" a b")
    ['', 'a', 'b']
    """
    parts = _SPACE.split(data)
    while parts and not parts[-1]:
        parts.pop()
    return [p.decode("latin-1") for p in parts]


def records(tokens: list[str], width: int) -> list[list[str]]:
    """The tokens ``width`` at a time, the last record padded with empty strings (Perl's undef).

    >>> records(["a", "b", "c"], 2)
    [['a', 'b'], ['c', '']]
    """
    out = [tokens[i:i + width] for i in range(0, len(tokens), width)]
    if out and len(out[-1]) < width:
        out[-1] = out[-1] + [""] * (width - len(out[-1]))
    return out


def number(text: str) -> float:
    """The number Perl reads from a string: its longest numeric prefix, 0 if none.

    >>> number("2"), number("0.5e1x"), number("abc"), number(" -3")
    (2.0, 5.0, 0.0, -3.0)
    >>> number("-Infinity"), number("1.#INF"), number("1.#IND"), number("qnan"), number("ind")
    (-inf, inf, nan, nan, 0.0)
    """
    special = _SPECIAL.match(text)
    if special and (special.group(2) or special.group(3).lower() != "ind"):
        return float(special.group(1) + "inf") if special.group(3).lower() == "inf" else math.nan
    match = _NUMBER.match(text)
    if match:
        return float(match.group(1))
    return 0.0


def strip_zeros(topic: str) -> str:
    """``$topic =~ s/^0*//``: leading zeros removed (so "0" becomes the empty string).

    >>> strip_zeros("007"), strip_zeros("0"), strip_zeros("10")
    ('7', '', '10')
    """
    return topic.lstrip("0")
