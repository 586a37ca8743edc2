"""Statistics over per-topic scores, vectorised over pairs of runs.

    significance  paired_test(), pairwise_tests(), significance_matrix()
    paired        paired tests over the rows of a (pairs, topics) array of differences
    resampling    randomisation and bootstrap tests over the same rows
    pairs         every pair of runs at once (the engine behind pairwise_tests)
    tukey         Tukey's HSD with the studentised range distribution
    correlation   rank correlations between two system rankings (tau, tau_AP, rho)
"""
