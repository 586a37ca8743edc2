"""ndeval 4.5 compatibility (TREC Web track diversity evaluation): its readers, its floating-point
order of operations, its options and its CSV, byte for byte.

`unjudged.measures.diversity` computes the same measures for `eval`; this package is the drop-in
`unjudged ndeval`, which repeats ndeval's arithmetic step by step (sums in subtopic order, gains
by repeated multiplication, values normalised twice) so that every printed digit matches.
"""

from unjudged.ndeval._args import NdevalOptions, parse_args
from unjudged.ndeval._output import run_ndeval

__all__ = ["NdevalOptions", "parse_args", "run_ndeval"]
