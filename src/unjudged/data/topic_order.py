"""Natural order of topic ids: numeric parts compare as numbers, so 2 comes before 10.

Topic ids are strings (TREC's are often numbers, sometimes with a prefix: "q7", "1.2"); the
data model keeps them in byte order, which lists 1, 10, 11, ..., 2. Tables and figures meant
for reading list them in this order instead.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_DIGITS = re.compile(r"([0-9]+)")


def natural_key(name: str) -> tuple:
    """A sort key for `name`: runs of ASCII digits compare as integers, the rest as text, and
    the name itself breaks ties ("7" before "07"), so the order is total.

    Example:
        >>> sorted(["10", "2", "1", "q10", "q9", "07", "7"], key=natural_key)
        ['1', '2', '07', '7', '10', 'q9', 'q10']
    """
    parts = _DIGITS.split(name)  # text, digits, text, digits, ..., text: types line up
    # a digit run as (its length without leading zeros, those digits): the order of int()
    # without its limit of 4,300 digits (a longer topic id raised ValueError)
    return (tuple(_number(p) if i % 2 else p for i, p in enumerate(parts)), name)


def _number(digits: str) -> tuple[int, str]:
    significant = digits.lstrip("0")
    return len(significant), significant


def natural_sorted(names: Iterable[str]) -> list[str]:
    """`names` in natural order.

    Example:
        >>> natural_sorted(["11", "1", "10", "2", "all"])
        ['1', '2', '10', '11', 'all']
    """
    return sorted(names, key=natural_key)


def natural_ranks(names: Iterable[str]) -> list[int]:
    """The place of each of `names` in their natural order (0 = first): a numeric key for
    sorting rows by something else first and by topic second.

    Example:
        >>> natural_ranks(["10", "9", "b", "a"])
        [1, 0, 3, 2]
    """
    names = list(names)
    ranks = [0] * len(names)
    for place, i in enumerate(sorted(range(len(names)), key=lambda i: natural_key(names[i]))):
        ranks[i] = place
    return ranks
