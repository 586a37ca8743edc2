"""Assessment measures (Baillie, Azzopardi & Ruthven 2007, seed 001 sections 2-3).

Two families, both about which documents carry a judgment ("assessed", the set A):

- how much of a ranking is assessed -- the measures of the System Evaluation Decision Matrix:
  ``Judged@d`` (Assessment Precision A_p@d, eq. 8; alias ``Ap``, registered with the core),
  ``Ar@d`` (Assessment Recall, eq. 9) and ``AA@d`` (Average Assessment; its mean over topics is
  MAA, so ``MAA`` is an alias). Footnote 13 of the paper computes them by marking every judged
  document relevant: Ar is recall and AA is average precision with "assessed" in place of
  "relevant", normalised by |A|, the topic's number of assessed documents, as AP is by R.
- performance on the assessed documents only (eq. 5-7 read as condensed lists, Sakai 2007):
  ``AssessedP@d``, ``AssessedR@d`` and ``AssessedAP@d`` look at the top d of the ranking as
  retrieved and then ignore its unassessed documents. They equal trec_eval -M d -J's set_P,
  set_recall and map (without a cutoff: -J's set_P, set_recall and map; both ignore
  pooled-but-unjudged documents, those with a negative grade). AssessedR
  equals R:
  an unassessed document is never relevant, so ignoring it changes nothing.

Assessed means a grade >= 0. Under the default negative-grade policy a negative grade (pooled but
unjudged) is not assessed; with ``--negative nonrel`` it is a judged non-relevant document.
"""

from __future__ import annotations

import numpy as np

from unjudged.measures._common import divide, level, relevant
from unjudged.measures._spec import MeasureSpec, register
from unjudged.measures.ap import average_precision
from unjudged.measures.precision import REL, recall

SEED_001 = ("Baillie, Azzopardi & Ruthven, Evaluating epistemic uncertainty under incomplete "
            "assessments, 2007 (seed 001)")
ASSESSED = 0  # the smallest grade of an assessed document: as a relevance level, "judged"


def assessment_recall(j, cutoff=None):
    """A_r@d = |X_d ∩ A| / |A|: the share of the topic's assessed documents in the top d."""
    return recall(j, cutoff, rel=ASSESSED)


def average_assessment(j, cutoff=None):
    """AP with every assessed document counted as relevant: sum over assessed documents in
    the top d of the fraction assessed up to their rank, divided by |A|."""
    return average_precision(j, cutoff, rel=ASSESSED)


def assessed_precision(j, cutoff=None, rel=None):
    """|R ∩ X_d ∩ A| / |X_d ∩ A|: precision among the assessed documents of the top d."""
    g = j.cut(cutoff)
    return divide(relevant(j, cutoff, rel).sum(axis=-1), (g >= ASSESSED).sum(axis=-1))


def assessed_recall(j, cutoff=None, rel=None):
    """|R ∩ X_d ∩ A| / |R ∩ A|, which is R@d."""
    return recall(j, cutoff, rel)


def assessed_average_precision(j, cutoff=None, rel=None):
    """AP of the condensed top d: each relevant document contributes the precision among the
    assessed documents ranked up to it, divided by R (Sakai's AP')."""
    assessed = j.cut(cutoff) >= ASSESSED
    r = relevant(j, cutoff, rel)
    hits = np.cumsum(r, axis=-1, dtype=np.float64)
    seen = np.cumsum(assessed, axis=-1, dtype=np.float64)
    prec = divide(hits, seen)
    return divide(np.where(r, prec, 0.0).sum(axis=-1), j.pool.num_rel(level(j, rel)))


register(MeasureSpec(
    "Ar", assessment_recall, "Assessment recall A_r@d: the fraction of the topic's assessed "
    "(judged) documents that appear in the top d (all retrieved without a cutoff). Negative "
    "grades (pooled but unjudged) are not assessed.",
    cutoff="optional", aliases=("AssessmentRecall", "A_r", "JudgedRecall"), estimable=False,
    citation=SEED_001 + ", eq. 9"))
register(MeasureSpec(
    "AA", average_assessment, "Average Assessment: average precision with 'assessed' in place "
    "of 'relevant' -- for each assessed document in the top d, the fraction of assessed "
    "documents up to its rank; summed and divided by the topic's number of assessed "
    "documents. Its mean over topics is MAA, Mean Average Assessment.",
    cutoff="optional", aliases=("MAA", "AverageAssessment"), estimable=False,
    citation=SEED_001 + ", section 3.1"))
register(MeasureSpec(
    "AssessedP", assessed_precision, "Precision over the assessed documents of the top d: "
    "relevant ones divided by assessed ones (unassessed documents ignored; 0 when none is "
    "assessed). trec_eval -M d -J set_P.",
    params=(REL,), cutoff="optional", aliases=("AssessedPrecision", "assessed_P"),
    estimable=False, monotone=False, guaranteed=False, citation=SEED_001 + ", eq. 5"))
register(MeasureSpec(
    "AssessedR", assessed_recall, "Recall over the assessed documents: relevant documents in "
    "the top d divided by the topic's assessed relevant ones. Equal to R@d, as an unassessed "
    "document is never relevant; listed for eq. 6.",
    params=(REL,), cutoff="optional", aliases=("AssessedRecall", "assessed_recall"),
    estimable=False, citation=SEED_001 + ", eq. 6"))
register(MeasureSpec(
    "AssessedAP", assessed_average_precision, "Average precision over the assessed documents "
    "of the top d (a condensed list): precision at each relevant document counts assessed "
    "documents only; divided by R. trec_eval -M d -J map.",
    params=(REL,), cutoff="optional", aliases=("AssessedMAP", "assessed_map"),
    estimable=False, monotone=False, guaranteed=False,
    citation=SEED_001 + ", eq. 7; Sakai, SIGIR 2007 (condensed lists)"))
