"""Presentation: tables, trec_eval text, JSON lines. Never computes a measure."""
