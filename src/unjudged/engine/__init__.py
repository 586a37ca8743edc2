"""The engine: runs and qrels in, labelled values out.

    score      evaluate(): trec_eval's measures over judged rankings (was the façade's core)
    estimate   estimate(): every strategy for unjudged documents, per run, topic and measure
    stream     evaluate_stream(): runs bigger than memory, a batch of topics at a time
    results    Results: run x topic x measure values and their run-level aggregates
    pairs      P(A > B) and rank intervals from the coupled bootstrap draws of many runs
"""
