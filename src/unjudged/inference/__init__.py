"""Inferred measures for sampled judgments (seed 002), with variances and intervals.

    infer      infer(): infAP, xinfAP, infNDCG, iP@k with variances and intervals
    infap      variances of infAP and xinfAP
    counts     variances of the inferred counts and of infNDCG
    rescaling  Rao and Wu's rescaling bootstrap of stratified samples
"""
