"""The columnar model: runs, qrels and judged rankings as arrays."""
