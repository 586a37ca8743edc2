"""What the leave-one-group-out report shows besides its tables: the header's counts and the
scatter figure's points and RMSE per strategy (computed here; unjudged.report only draws)."""

from __future__ import annotations

from typing import Any

import numpy as np

from unjudged.experiments.logo import Sweep


def logo_counts(sweep: Sweep) -> dict[str, float]:
    """The header's numbers: (run, topic) pairs with a true score, those that lost judgments
    within the cutoff, and the mean of the judgments removed per group (0 without groups).

    Example:
        >>> from types import SimpleNamespace
        >>> s = SimpleNamespace(truth=np.array([[[0.5], [np.nan]]]), unjudged=np.array([[2, 1]]),
        ...                     unjudged_full=np.array([[1, 0]]), removed={"g": 3, "h": 4})
        >>> logo_counts(s)
        {'pairs': 1, 'lost': 1, 'removed_mean': 3.5}
    """
    scored = ~np.isnan(sweep.truth[..., 0])
    removed = sweep.removed
    return {"pairs": int(scored.sum()),
            "lost": int(((sweep.unjudged > sweep.unjudged_full) & scored).sum()),
            "removed_mean": sum(removed.values()) / len(removed) if removed else 0.0}


def logo_panels(sweep: Sweep, measure: int = 0) -> list[dict[str, Any]]:
    """One panel per strategy: every (run, topic) with both scores, its truth and estimate,
    whether it lost judgments within the cutoff, and the strategy's RMSE over them.

    Example:
        >>> from types import SimpleNamespace
        >>> s = SimpleNamespace(strategies=("nonrel",), measures=[SimpleNamespace(name="P@5")],
        ...                     truth=np.array([[[0.4], [0.2]]]),
        ...                     values={"nonrel": np.array([[[0.1], [0.2]]])},
        ...                     unjudged=np.array([[1, 0]]), unjudged_full=np.array([[0, 0]]))
        >>> p = logo_panels(s)[0]
        >>> p["strategy"], p["measure"], round(p["rmse"], 4), p["lost"].tolist()
        ('nonrel', 'P@5', 0.2121, [True, False])
    """
    truth = sweep.truth[..., measure].ravel()
    lost = (sweep.unjudged > sweep.unjudged_full).ravel()
    panels = []
    for name in sweep.strategies:
        est = sweep.values[name][..., measure].ravel()
        ok = ~(np.isnan(truth) | np.isnan(est))
        rmse = float(np.sqrt(np.mean((est[ok] - truth[ok]) ** 2)))
        panels.append({"strategy": name, "measure": sweep.measures[measure].name,
                       "truth": truth[ok], "estimate": est[ok], "lost": lost[ok], "rmse": rmse})
    return panels
