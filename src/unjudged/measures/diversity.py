"""Diversity measures (cascade, intent-aware). Placeholder."""
