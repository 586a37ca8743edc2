"""Named, documented policies for what trec_eval decides by convention.

Each option keeps trec_eval's choice as its default, so `Policies()` evaluates exactly as
trec_eval 10.0 does.
"""

from __future__ import annotations

import numbers
from dataclasses import fields, replace
from typing import Literal, get_args

from unjudged._records import frozen
from unjudged.errors import InvalidOptionError

#: How documents with equal scores are ordered within a topic.
#:  - "trec_eval": score descending, then docno descending by byte comparison (rank column
#:    ignored); scores are compared in double precision, as trec_eval 10.0 stores them in a C
#:    double (usnistgov/trec_eval commit dc0c991, 10.0-rc1 on)
#:  - "trec_eval9": trec_eval 9's rule: the same order but scores compared in single precision,
#:    as trec_eval 9.x stores them in a C float, so scores that differ only beyond about 7
#:    significant digits tie (and go by docno). The 2020 TREC-COVID leaderboards and
#:    pytrec_eval (which bundles trec_eval 9.0.8) rank this way
#:  - "docno": score descending, then docno ascending
#:  - "rank": the rank column, ascending (ties by file order)
#:  - "file": the order of the lines in the file
#:  - "sample_eval": sample_eval.pl's order (Perl compares numbers as doubles): the same as
#:    "trec_eval", named for the sample_eval compatibility
TieBreak = Literal["trec_eval", "trec_eval9", "docno", "rank", "file", "sample_eval"]

#: What a negative grade in the qrels means.
#:  - "unjudged": pooled but unjudged (trec_eval): no gain, skipped by bpref and infAP, counted
#:    as unjudged by Judged@k and by the strategies for unjudged documents
#:  - "nonrel": judged non-relevant (the seed papers' reading of the Web track's -2 "junk")
Negative = Literal["unjudged", "nonrel"]

#: How runs read together are named (not a trec_eval convention, but a choice the command line
#: lists too):
#:  - "tag": by the tag (last field of the first line); runs sharing a tag by their files
#:  - "file": by the file name
NameMode = Literal["tag", "file"]

# The choices, in the order --help lists them: read from the Literals, so each is written once.
TIE_BREAKS: tuple[TieBreak, ...] = get_args(TieBreak)
NEGATIVES: tuple[Negative, ...] = get_args(Negative)
NAME_MODES: tuple[NameMode, ...] = get_args(NameMode)


@frozen
class Policies:
    """How runs and qrels are turned into judged rankings.

    Attributes:
        ties: tie-breaking within a topic (see TieBreak).
        negative: meaning of negative grades (see Negative).
        complete: average over every qrels topic, missing topics scoring 0 (trec_eval -c);
            otherwise over the topics in both run and qrels.
        rel_level: the smallest grade that counts as relevant (trec_eval -l).
        depth: keep only the first `depth` documents of each ranking (trec_eval -M).
        judged_only: drop unjudged documents before measuring (trec_eval -J, a condensed list).

    An unknown `ties` or `negative` raises InvalidOptionError.

    Example:
        >>> Policies(rel_level=2).rel_level
        2
        >>> try:
        ...     Policies(ties="score")
        ... except InvalidOptionError as exc:
        ...     print(exc)
        ties: expected one of trec_eval, trec_eval9, docno, rank, file, sample_eval, got 'score'
    """

    ties: TieBreak = "trec_eval"
    negative: Negative = "unjudged"
    complete: bool = False
    rel_level: int = 1
    depth: int | None = None
    judged_only: bool = False

    def __post_init__(self) -> None:
        # a misspelt policy would otherwise silently act as another one
        for name, value, choices in (("ties", self.ties, TIE_BREAKS),
                                     ("negative", self.negative, NEGATIVES)):
            if value not in choices:
                raise InvalidOptionError(f"{name}: expected one of {', '.join(choices)}, "
                                         f"got {value!r}")
        for name in ("complete", "judged_only"):
            if type(getattr(self, name)).__name__ not in ("bool", "bool_"):  # numpy's too
                raise InvalidOptionError(f"{name}: expected True or False, got "
                                         f"{getattr(self, name)!r}")
        if not _is_int(self.rel_level) or not -(2**31) <= self.rel_level < 2**31:
            raise InvalidOptionError(f"rel_level: expected an integer grade, got "
                                     f"{self.rel_level!r}")
        if self.depth is not None and (not _is_int(self.depth) or self.depth < 0):
            raise InvalidOptionError(f"depth: expected None or an integer of at least 0, got "
                                     f"{self.depth!r}")

    def but(self, **changes: object) -> Policies:
        """A copy with some fields changed; an unknown field raises InvalidOptionError."""
        known = {f.name for f in fields(self)}
        unknown = sorted(set(changes) - known)
        if unknown:
            raise InvalidOptionError(f"unknown policy {unknown[0]!r}; expected some of "
                                     f"{', '.join(sorted(known))}")
        return replace(self, **changes)  # type: ignore[arg-type]


def _is_int(value: object) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def whole_number(value: object, name: str, low: int | None = None) -> int:
    """`value` as an int when it is a whole number (not a bool, not 2.5) of at least `low`,
    else InvalidOptionError naming the argument.

    Example:
        >>> whole_number(3, "b", 1)
        3
        >>> try:
        ...     whole_number(2.5, "b", 1)
        ... except InvalidOptionError as exc:
        ...     print(exc)
        b: expected an integer of at least 1, got 2.5
    """
    if not _is_int(value) or (low is not None and int(value) < low):  # type: ignore[call-overload]
        at_least = "" if low is None else f" of at least {low}"
        raise InvalidOptionError(f"{name}: expected an integer{at_least}, got {value!r}")
    return int(value)  # type: ignore[call-overload]
