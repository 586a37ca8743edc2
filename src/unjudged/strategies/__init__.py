"""Strategies for unjudged documents: deterministic fills (nonrel, condensed, upper, guaranteed
bounds) and bootstrapped score distributions."""
