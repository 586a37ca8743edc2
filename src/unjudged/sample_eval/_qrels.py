"""sample_eval's view of the sampled qrels: strata sizes, sampled counts and the estimates
that depend on the qrels only (estimated R and the ideal DCG)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from unjudged.sample_eval._perl import fields, number, records


@dataclass
class Topic:
    """One topic of the qrels, keyed as sample_eval keys it (strings, as read).

    Attributes:
        grade: docno -> grade string (a repeated docno keeps its last line, as a Perl hash).
        stratum: docno -> stratum label.
        size: stratum -> lines in it (N_s; repeated docnos counted each time).
        sampled: stratum -> lines with grade >= 0 (n_s).
        relevant: stratum -> lines with grade > 0 (r_s).
        per_grade: stratum -> grade string -> lines with that grade (> 0).
    """

    grade: dict[str, str] = field(default_factory=dict)
    stratum: dict[str, str] = field(default_factory=dict)
    size: dict[str, int] = field(default_factory=dict)
    sampled: dict[str, int] = field(default_factory=dict)
    relevant: dict[str, int] = field(default_factory=dict)
    per_grade: dict[str, dict[str, int]] = field(default_factory=dict)

    def strata(self) -> list[str]:
        """Stratum labels in Perl's ``sort keys`` order (byte order)."""
        return sorted(self.size)

    def estimated_relevant(self) -> float:
        """R = sum_s r_s N_s / n_s, summed over strata in byte order (n_s = 0 skipped).

        >>> t = read_qrels(b"1 0 a 1 1\\n1 0 b 1 -1\\n1 0 c 2 0\\n")["1"]
        >>> t.estimated_relevant()
        2.0
        """
        total = 0.0
        for s in self.strata():
            if self.sampled.get(s, 0) != 0:
                total += self.relevant.get(s, 0) * self.size[s] / self.sampled[s]
        return total

    def grade_estimates(self) -> dict[str, float]:
        """Estimated documents per grade, sum_s r_s(g) N_s / n_s (strata in byte order)."""
        out: dict[str, float] = {}
        for s in self.strata():
            for g in sorted(self.per_grade.get(s, {})):
                out[g] = out.get(g, 0.0) + self.per_grade[s][g] * self.size[s] / self.sampled[s]
        return out

    def ideal_dcg(self, max_result_size: int, rounded: bool) -> float:
        """The ideal DCG with linear gains (the grade) and discount 1/log2(r + 1).

        Grades go from the highest (reverse byte order of their strings) down. Each fills the
        ranks after the previous grades': ``int(x + 0.5)`` ranks from an integer start when
        `rounded` (TREC), ranks start + 1 <= r <= start + x from a fractional start otherwise
        (TRECVID). A grade stops once it has added rank maxResultSize, but a lower grade still
        adds its first rank beyond it, as both copies do (the test follows the addition).

        >>> t = read_qrels(b"1 0 a 1 2\\n1 0 b 1 1\\n1 0 c 2 1\\n1 0 d 2 -1\\n")["1"]
        >>> t.grade_estimates()
        {'1': 3.0, '2': 1.0}
        >>> round(t.ideal_dcg(1000, rounded=True), 6)   # 2/1 + 1/log2(3) + 1/2 + 1/log2(5)
        3.561606
        """
        total, start = 0.0, 0.0
        estimates = self.grade_estimates()
        for g in sorted(estimates, reverse=True):
            count = float(int(estimates[g] + 0.5)) if rounded else estimates[g]
            gain = number(g)
            r = start + 1
            while r <= start + count:
                total += gain / (math.log(r + 1) / math.log(2))
                if r >= max_result_size:
                    break
                r += 1
            start += count
        return total


def read_qrels(data: bytes) -> dict[str, Topic]:
    """Topics of a sample_eval qrels text (``topic iter docno stratum grade``), in file order.

    >>> q = read_qrels(b"7 0 a 1 1\\n7 0 b 1 -1\\n7 0 c 2 0\\n")
    >>> q["7"].size, q["7"].sampled, q["7"].relevant
    ({'1': 2, '2': 1}, {'1': 1, '2': 1}, {'1': 1})
    """
    topics: dict[str, Topic] = {}
    for topic, _, docno, stratum, grade in records(fields(data), 5):
        t = topics.setdefault(topic, Topic())
        t.grade[docno] = grade
        t.stratum[docno] = stratum
        t.size[stratum] = t.size.get(stratum, 0) + 1
        value = number(grade)
        if value >= 0:
            t.sampled[stratum] = t.sampled.get(stratum, 0) + 1
        if value > 0:
            counts = t.per_grade.setdefault(stratum, {})
            counts[grade] = counts.get(grade, 0) + 1
            t.relevant[stratum] = t.relevant.get(stratum, 0) + 1
    return topics
