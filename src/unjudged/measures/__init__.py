"""The measure registry and its kernels.

A measure is one module of this package that calls `register(MeasureSpec(...))` at import.
The modules load when one of their names is first parsed, or all of them when the registry is
listed (`_names` says which module registers which names: `python tests/test_measure_names.py`
rewrites it after a measure is added or renamed, and that test checks it). Adding a measure
touches its one file (plus its tests and that table): the parser, `unjudged measures`, the docs
and the common property tests read the registry.
"""

from unjudged.measures._parse import measures_given, parse_measure, parse_measures
from unjudged.measures._spec import REGISTRY, Measure, MeasureSpec, Param, families, register

__all__ = ["REGISTRY", "Measure", "MeasureSpec", "Param", "families", "measures_given",
           "parse_measure", "parse_measures", "register"]
