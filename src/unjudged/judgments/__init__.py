"""Judgments and pools: statistics, editing and diffs of qrels, pools, sampling designs and
how much of each ranking is judged.

    stats      judgment_stats(): judged, per grade, fraction relevant per topic
    edit       merge_qrels() and filter_qrels()
    diff       diff_qrels(): judgments added, removed and regraded
    pools      build_pool(): the (topic, document) pairs a set of runs brings to the assessors
    sampling   sample_qrels(): seed 002's sampling designs over a complete pool
    coverage   coverage(): judged fraction per rank band, judged depth, cost of judging

Nothing here reads or writes files. The public functions that accept paths as well as parsed
qrels (judgment_stats, merge_qrels, filter_qrels, diff_qrels) convert them once, on entry,
with unjudged.io.read_qrels (which passes a Qrels through); topic lists are read by
unjudged.io.topics and groups files by unjudged.io.groups, in the caller; text is written by
unjudged.cli.
"""
