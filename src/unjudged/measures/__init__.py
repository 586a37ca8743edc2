"""The measure registry and its kernels. Importing this package registers every measure.

A measure is one module of this package that calls `register(MeasureSpec(...))` at import;
every public module here is imported (in name order), so adding a measure touches that one file
(plus its tests): the parser, `unjudged measures`, the docs and the common property tests read
the registry.
"""

import importlib
import pkgutil

from unjudged.measures._parse import measures_given, parse_measure, parse_measures
from unjudged.measures._spec import REGISTRY, Measure, MeasureSpec, Param, families, register

for _module in pkgutil.iter_modules(__path__):
    if not _module.name.startswith("_"):
        importlib.import_module(f"{__name__}.{_module.name}")

__all__ = ["REGISTRY", "Measure", "MeasureSpec", "Param", "families", "measures_given",
           "parse_measure", "parse_measures", "register"]
