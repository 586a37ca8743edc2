"""Assessment measures (Baillie et al. 2007). Placeholder."""
