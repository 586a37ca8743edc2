"""`unjudged sample_eval`: sample_eval.pl's output, byte for byte, for either lineage."""

from __future__ import annotations

from unjudged.errors import IncompatibleInputsError, InvalidOptionError
from unjudged.io._source import read_bytes
from unjudged.sample_eval._lineage import LINEAGES
from unjudged.sample_eval._perl import number
from unjudged.sample_eval._qrels import read_qrels
from unjudged.sample_eval._score import TopicScore, interpolated, read_run, score_topic


def _read(path: str) -> bytes:
    # the readers' one way in: "-" for stdin, pipes, compressed files, the line-length limit,
    # and one clear InputError naming the file
    return read_bytes(path)


def _topic_lines(s: TopicScore, cutoffs: tuple[int, ...]) -> list[str]:
    t = s.topic
    return [f"infAP\t\t{t}\t\t{s.inf_ap:6.4f}", f"infNDCG\t\t{t}\t\t{s.inf_ndcg:6.4f}",
            *(f"iP{c}\t\t{t}\t\t{s.precision[c]:6.4f}" for c in cutoffs),
            f"inum_rel_ret\t{t}\t{s.num_rel_ret:14.4f}", f"inum_rel\t{t}\t{s.num_rel:14.4f}",
            f"num_ret\t\t{t}\t{s.num_ret:9d}"]


def sample_eval_text(qrels: bytes, run: bytes, *, lineage: str = "trec",
                     per_topic: bool = False, max_result_size: int = 1000,
                     cutoffs: tuple[int, ...] | None = None, qrels_name: str = "",
                     run_name: str = "") -> str:
    """What sample_eval.pl prints for `run` (a TREC run text) on `qrels` (its 5-column text).

    `lineage` "trec" is NIST's TREC copy (change log up to 10 Oct 2011): rounded ideal-DCG
    counts, leading zeros stripped from run topic ids, iP at 10, 50 and maxResultSize.
    "trecvid" is the TRECVID copy (to 5 Sep 2012): fractional counts, AP rescaled by
    R/maxResultSize when R exceeds it, iP at 10, 100, 1000 and maxResultSize, and three lines
    naming `qrels_name`, `run_name` and maxResultSize before every evaluated topic.
    `cutoffs` replaces the copy's iP cut-offs (other tracks' copies edit that list).

    Raises IncompatibleInputsError when no run topic is in the qrels (the program dies
    dividing by zero there).

    >>> q = b"1 0 a 1 1\\n1 0 b 1 0\\n1 0 c 2 1\\n1 0 d 2 -1\\n"
    >>> sample_eval_text(q, b"1 Q0 a 1 2 r\\n1 Q0 d 2 1 r\\n").splitlines()[0].split("\\t")
    ['infAP', '', 'all', '', '0.3333']
    """
    if lineage not in LINEAGES:
        raise InvalidOptionError(f"lineage: expected one of {', '.join(LINEAGES)}, "
                                 f"got {lineage!r}")
    if max_result_size < 1:
        raise InvalidOptionError(f"max result size: expected a positive integer, got "
                                 f"{max_result_size}")
    rules = LINEAGES[lineage]
    cuts = tuple(cutoffs) if cutoffs else rules.cutoffs_for(max_result_size)
    topics = read_qrels(qrels)
    docs, lines = read_run(run, rules)
    num_rel = {t: q.estimated_relevant() for t, q in topics.items()}
    out: list[str] = []
    scores: list[TopicScore] = []
    for topic in sorted(docs, key=lambda t: (number(t), t)):
        if topic not in topics:
            continue
        q = topics[topic]
        s = score_topic(topic, q, docs[topic], lines[topic], lineage=rules,
                        max_result_size=max_result_size, cutoffs=cuts,
                        ideal=q.ideal_dcg(max_result_size, rules.rounded_ideal),
                        num_rel=num_rel[topic])
        scores.append(s)
        if rules.header:
            out += [f"qrel_file:{qrels_name}", f"trec_file:{run_name}",
                    f"maxResultSize:{max_result_size}"]
        if per_topic:
            out += _topic_lines(s, cuts)
    if not scores:
        raise IncompatibleInputsError("sample_eval: no topic of the run is in the qrels "
                                      "(sample_eval.pl stops on a division by zero)")
    n = len(scores)
    ap = ndcg = rel_ret = 0.0
    means = [0.0] * len(cuts)
    for s in scores:
        ap += s.inf_ap
        ndcg += s.inf_ndcg
        rel_ret += s.num_rel_ret
        for i, c in enumerate(cuts):
            means[i] += s.precision[c]
    total_rel = 0.0
    for t in sorted(topics):  # every qrels topic, run or not, in byte order
        total_rel += num_rel[t]
    out += [f"infAP\t\tall\t\t{ap / n:6.4f}", f"infNDCG\t\tall\t\t{ndcg / n:6.4f}"]
    out += [f"iprec@rec{i / 10:4.2f}\tall\t\t{v / n:6.4f}"
            for i, v in enumerate(interpolated(scores))]
    out += [f"iP{c}\t\tall\t\t{m / n:6.4f}" for c, m in zip(cuts, means, strict=True)]
    out += [f"inum_rel_ret\tall\t{rel_ret:14.4f}", f"inum_rel\tall\t{total_rel:14.4f}",
            f"num_ret\t\tall\t{sum(s.ranked for s in scores):9d}"]
    return "\n".join(out) + "\n"


def run_sample_eval(qrels: str, run: str, **options) -> str:
    """`sample_eval_text` on two files, named in the TRECVID header as given."""
    return sample_eval_text(_read(qrels), _read(run), qrels_name=qrels, run_name=run, **options)
