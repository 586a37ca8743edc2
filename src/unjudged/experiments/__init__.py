"""Experiments that replay the papers' evaluations of collections and strategies at scale."""
