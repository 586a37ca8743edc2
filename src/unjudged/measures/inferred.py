"""Inferred measures from sampled judgments (Yilmaz et al. 2008). Placeholder."""
