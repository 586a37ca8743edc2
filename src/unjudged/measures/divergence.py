"""Language-model divergence measures (Hui et al. 2017). Placeholder."""
