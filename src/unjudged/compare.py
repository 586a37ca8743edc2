"""Compare system rankings: rank correlations, and runs scored under two sets of qrels.

    kendall_tau(x, y, variant="b")   Kendall's tau (tau-b, or tau-a)
    tau_ap(x, y)                     AP correlation, x the reference (Yilmaz et al. 2008)
    spearman_rho(x, y)               Spearman's rho
    correlations(X, Y)               all of them for each column of (systems x measures) arrays
    rank_changes(x, y)               each system's rank under x and under y
"""

from __future__ import annotations

from unjudged.compare_stats import (RankChanges, correlations, kendall_tau, rank_changes, ranks,
                                    spearman_rho, tau_ap)

__all__ = ["kendall_tau", "tau_ap", "spearman_rho", "correlations", "ranks", "rank_changes",
           "RankChanges"]
