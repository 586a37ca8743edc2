"""ir_measures' names of the diversity measures (measures/diversity.py computes them):
MAP_IA, StRecall and the Greek α_DCG and α_nDCG."""

from __future__ import annotations

from unjudged.measures import diversity  # noqa: F401  (registers the families named here)
from unjudged.measures._spec import add_aliases

for _family, _names in (("MAP-IA", ("MAP_IA",)), ("S-recall", ("StRecall",)),
                        ("alpha-DCG", ("α_DCG",)), ("alpha-nDCG", ("α_nDCG",))):
    add_aliases(_family, *_names)
