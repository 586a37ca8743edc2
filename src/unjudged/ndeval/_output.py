"""ndeval's CSV: a header, one row per run topic, the `amean` row; risk-sensitive rows against a
baseline run. Numbers are printed as C's "%.6f" (NaN as glibc's "-nan"/"nan")."""

from __future__ import annotations

import math

from unjudged.ndeval._args import NdevalOptions
from unjudged.ndeval._read import QrelsTopic, read_qrels, read_run
from unjudged.ndeval._score import TopicScores, c_div, ideal_scores, score_topic

HEADER = (b"runid,topic,ERR-IA@5,ERR-IA@10,ERR-IA@20,nERR-IA@5,nERR-IA@10,nERR-IA@20,"
          b"alpha-DCG@5,alpha-DCG@10,alpha-DCG@20,alpha-nDCG@5,alpha-nDCG@10,alpha-nDCG@20,"
          b"NRBP,nNRBP,MAP-IA,P-IA@5,P-IA@10,P-IA@20,strec@5,strec@10,strec@20\n")


def c_format(x: float) -> str:
    """C's printf("%.6f", x) under glibc.

    Example:
        >>> c_format(0.5), c_format(-math.nan), c_format(-1e-9)
        ('0.500000', '-nan', '-0.000000')
    """
    if math.isnan(x):
        return "-nan" if math.copysign(1.0, x) < 0 else "nan"
    return f"{x:.6f}"


def risk(run: float, base: float, risk_alpha: float) -> float:
    """ndeval's RiskBased: the difference, losses weighted by 1 + riskAlpha.

    Example:
        >>> risk(0.5, 0.25, 1.0), risk(0.25, 0.5, 1.0)
        (0.25, -0.5)
    """
    return run - base if run >= base else (risk_alpha + 1) * (run - base)


def score_run(qrels: dict[int, QrelsTopic], ideals: dict[int, TopicScores],
              ranked: dict[int, list[bytes]], opts: NdevalOptions
              ) -> tuple[list[tuple[int, TopicScores]], int]:
    """(per run topic its scores, topics shared with the qrels) as ndeval's applyQrels."""
    rows, matched = [], 0
    for topic, docs in ranked.items():
        if topic in qrels:
            matched += 1
            rows.append((topic, score_topic(docs, qrels[topic], ideals[topic], opts.alpha,
                                            opts.beta)))
        else:  # printed with zeros, left out of the mean's count
            rows.append((topic, TopicScores()))
    return rows, matched


def run_ndeval(opts: NdevalOptions, qrels_data: bytes, run_data: bytes,
               baseline_data: bytes | None = None) -> bytes:
    """ndeval's output for the given options and file contents.

    Example:
        >>> q = b"1 1 a 1\\n1 2 b 1\\n"
        >>> out = run_ndeval(NdevalOptions("q", "r"), q, b"1 Q0 a 1 3 r1\\n1 Q0 x 2 2 r1\\n")
        >>> out.splitlines()[1][:40]
        b'r1,1,0.363086,0.360717,0.360674,0.666667'
    """
    qrels = read_qrels(qrels_data, opts.qrels)
    ideals = {t: ideal_scores(q, opts.alpha, opts.beta) for t, q in qrels.items()}
    runid, ranked = read_run(run_data, opts.run, opts.traditional, opts.depth)
    rows, actual = score_run(qrels, ideals, ranked, opts)
    base: list[tuple[int, TopicScores]] = []
    label = runid
    if baseline_data is not None:
        bid, branked = read_run(baseline_data, opts.baseline or "", opts.traditional, opts.depth)
        base, _ = score_run(qrels, ideals, branked, opts)
        label = b"%s (rel to. %s; rs=1+a; a=%s)" % (runid, bid, opts.risk_alpha_text.encode())
    if opts.complete:
        actual = len(qrels)
    lines, totals, shown = [HEADER], [0.0] * 21, 0
    for topic, values in _merge(rows, base, opts.complete, opts.risk_alpha):
        lines.append(_line(label, str(topic).encode(), values))
        totals = [t + v for t, v in zip(totals, values, strict=True)]
        shown += 1
    if base and shown > actual:  # the baseline brought topics the run lacks
        actual = shown
    lines.append(_line(label, b"amean", [c_div(t, float(actual)) for t in totals]))
    return b"".join(lines)


def _merge(rows, base, complete, risk_alpha):
    """(topic, risk-weighted values) in ndeval's order: every run topic; a baseline topic the
    run lacks only with -c (it then scores as a run of zeros)."""
    zero = TopicScores().row()
    i = j = 0
    while i < len(rows) or (complete and j < len(base)):
        if i < len(rows) and (j >= len(base) or rows[i][0] <= base[j][0]):
            topic, run = rows[i][0], rows[i][1].row()
            same = j < len(base) and base[j][0] == topic
            b = base[j][1].row() if same else zero
            i, j = i + 1, j + same
        else:
            topic, run, b = base[j][0], zero, base[j][1].row()
            j += 1
            if not complete:
                continue
        yield topic, [risk(r, x, risk_alpha) for r, x in zip(run, b, strict=True)]


def _line(label: bytes, topic: bytes, values: list[float]) -> bytes:
    return label + b"," + topic + b"," + ",".join(c_format(v) for v in values).encode() + b"\n"
