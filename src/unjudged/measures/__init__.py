"""The measure registry and its kernels. Importing this package registers every measure."""

from unjudged.measures import (  # noqa: F401
                               ap,
                               assessment,
                               counts,
                               dcg,
                               divergence,
                               diversity,
                               err,
                               inferred,
                               judgments,
                               precision,
                               trec_extra,
)
from unjudged.measures._parse import parse_measure, parse_measures
from unjudged.measures._spec import REGISTRY, Measure, MeasureSpec, Param, families, register

__all__ = ["REGISTRY", "Measure", "MeasureSpec", "Param", "families", "parse_measure",
           "parse_measures", "register"]
