"""Analyses over many runs: comparisons that decide whether a result can be trusted.

    matrix       decision_matrix(): seed 001's System Evaluation Decision Matrix
    cases        the matrix's case for every pair of runs at one (measure, depth)
    baseline     baseline_comparison(): runs against one baseline, with A_p beside
    compare      compare_qrels(): system rankings under two sets of qrels
    report_data  everything `unjudged report` shows, computed here and only presented there
"""
