"""Preference judgments: trec_eval's `-R prefs`, `-R qrels_prefs` and `-R qrels_jg` inputs.

A line says how one judgment group (JG: one user's information need) and one of its
sub-groups (JSG) rate a document; within a JSG, a higher level is preferred to a lower one.
`qrels_prefs` reads a standard qrels this way (JG = the iter column, one JSG "0"), `qrels_jg`
reads it as one ordinary qrels per JG.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(eq=False)
class Prefs:
    """Preference lines grouped by topic.

    Attributes:
        topics: topic ids in byte order.
        offsets: rows of topic i are ``offsets[i]:offsets[i+1]`` (sorted by docno within).
        group, subgroup, docno: one string per row (subgroup "0" when the format has none).
        level: the row's relevance level (float64; integers for qrels_jg).
        kind: "prefs", "qrels_prefs" or "qrels_jg".
        source: the file name.

    Example:
        >>> p = Prefs(["q"], np.array([0, 2]), ["u", "u"], ["0", "0"], ["a", "b"],
        ...           np.array([1.0, 0.0]), "prefs", "<memory>")
        >>> p.rows("q")
        range(0, 2)
    """

    topics: list[str]
    offsets: np.ndarray
    group: list[str]
    subgroup: list[str]
    docno: list[str]
    level: np.ndarray
    kind: str
    source: str

    def rows(self, topic: str) -> range:
        """The rows of `topic` (empty when the file does not have it)."""
        try:
            i = self.topics.index(topic)
        except ValueError:
            return range(0)
        return range(int(self.offsets[i]), int(self.offsets[i + 1]))


def closure(prefer: np.ndarray) -> np.ndarray:
    """Transitive closure of a boolean preference matrix (a > b and b > c give a > c).

    Squares the reachability matrix until it stops changing (log2(n) products).

    Example:
        >>> closure(np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]], bool)).astype(int).tolist()
        [[0, 1, 1], [0, 0, 1], [0, 0, 0]]
    """
    n = prefer.shape[0]
    reach = prefer | np.eye(n, dtype=bool)
    while True:
        f = reach.astype(np.float32)  # BLAS product; counts stay exact far beyond n
        nxt = (f @ f) > 0
        if np.array_equal(nxt, reach):
            break
        reach = nxt
    np.fill_diagonal(reach, False)
    return reach
