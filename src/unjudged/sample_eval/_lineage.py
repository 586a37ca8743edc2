"""The two lineages of sample_eval.pl and the rules in which they differ."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

LineageName = Literal["trec", "trecvid"]


@dataclass(frozen=True)
class Lineage:
    """One copy's conventions.

    Attributes:
        name: "trec" (NIST's TREC copy, change log up to 10 Oct 2011) or "trecvid" (the TRECVID
            copy, change log up to 5 Sep 2012).
        rounded_ideal: the ideal DCG holds ``int(x + 0.5)`` documents of a grade estimated at x,
            placed from integer start ranks (TREC); otherwise the fractional counts (TRECVID).
        strip_zeros: leading zeros are removed from the run's topic ids (TREC only).
        rescale_ap: infAP is multiplied by R / maxResultSize when the estimated R exceeds it
            (TRECVID only).
        header: every evaluated topic is preceded by three lines naming the qrels, the run and
            maxResultSize (TRECVID only).
        cutoffs: the iP cut-offs printed, maxResultSize written as None.

    >>> LINEAGES["trec"].cutoffs_for(1000)
    (10, 50, 1000)
    >>> LINEAGES["trecvid"].cutoffs_for(2000)
    (10, 100, 1000, 2000)
    """

    name: LineageName
    rounded_ideal: bool
    strip_zeros: bool
    rescale_ap: bool
    header: bool
    cutoffs: tuple[int | None, ...]

    def cutoffs_for(self, max_result_size: int) -> tuple[int, ...]:
        return tuple(max_result_size if c is None else c for c in self.cutoffs)


LINEAGES: dict[str, Lineage] = {
    "trec": Lineage("trec", rounded_ideal=True, strip_zeros=True, rescale_ap=False,
                    header=False, cutoffs=(10, 50, None)),
    "trecvid": Lineage("trecvid", rounded_ideal=False, strip_zeros=False, rescale_ap=True,
                       header=True, cutoffs=(10, 100, 1000, None)),
}
