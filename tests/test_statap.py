"""statAP and statNDCG from TREC's prels (issue 21): the reader, hand-worked examples on lines of
the Web 2009 and Million Query files, a per-document reference on real topics, complete
judgments, the variance against simulation, and `infer --prels`."""

from __future__ import annotations

import math

import numpy as np
import pytest
from click.testing import CliRunner

from shared_data import DATA, need
from unjudged.cli import main
from unjudged.data.judged import judge
from unjudged.data.sampled import SampledQrels, judge_sampled
from unjudged.errors import FormatError, UnjudgedWarning
from unjudged.inference.infer import infer_runs
from unjudged.inference.statistical import statap_variance, statndcg_variance
from unjudged.io import read_qrels, read_run
from unjudged.io.sampled import read_prels, read_sampled_qrels
from unjudged.measures import parse_measures

PRELS = DATA / "anserini-tools" / "qrels"

# five lines of topic 1 of prels.web.1-50.txt (Web 2009): four sampled by statAP, one by MTC
WEB = b"""1 clueweb09-en0010-57-32930 1 1 0.264608416840008
1 clueweb09-enwp01-75-07456 1 1 0.095962949338481
1 clueweb09-enwp01-06-03485 2 1 0.264608416840008
1 clueweb09-enwp00-28-05840 1 1 0.0255204175962503
1 clueweb09-en0003-55-31884 0 0 1
"""
A, B, C, D, MTC = ("clueweb09-en0010-57-32930", "clueweb09-enwp01-75-07456",
                   "clueweb09-enwp01-06-03485", "clueweb09-enwp00-28-05840",
                   "clueweb09-en0003-55-31884")


def value(name: str, j) -> float:
    return float(parse_measures(name)[0].compute(j)[0])


@pytest.fixture
def web():
    q = read_prels(WEB)
    # C, an unjudged document, A, the MTC document, B; D is not retrieved
    run = read_run({"1": {C: 5.0, "unjudged": 4.0, A: 3.0, MTC: 2.0, B: 1.0}})
    return judge_sampled(run, q)


def test_reader_keeps_every_line_and_the_sample_apart():
    q = read_prels(WEB)
    assert q.to_dict() == {"1": {A: 1, B: 1, C: 2, D: 1, MTC: 0}}
    pi = dict(zip(q.docs.to_pylist(), q.key_inclusion.tolist(), strict=True))
    assert pi[MTC] == 0.0  # method 0 (MTC's) is outside the probability sample
    assert pi[B] == pytest.approx(0.095962949338481)


def test_statap_by_hand_on_web_2009_lines(web):
    wa = wc = 1 / 0.264608416840008
    wb, wd = 1 / 0.095962949338481, 1 / 0.0255204175962503
    r_hat = wa + wb + wc + wd  # every sampled relevant document, retrieved or not
    # C at rank 1, A at rank 3, B at rank 5: each counts itself once, the ones above as 1/pi
    numerator = wc * 1 / 1 + wa * (1 + wc) / 3 + wb * (1 + wc + wa) / 5
    assert value("statAP", web) == pytest.approx(numerator / r_hat)
    assert value("statAP", web) == pytest.approx(0.483462, abs=1e-6)
    # the SIGIR 2006 form counts the document itself as 1/pi too
    ht = wc * wc / 1 + wa * (wa + wc) / 3 + wb * (wb + wc + wa) / 5
    assert value("statAP(pc='ht')", web) == pytest.approx(ht / r_hat)


def test_statndcg_by_hand_on_web_2009_lines(web):
    wa = wc = 1 / 0.264608416840008
    wb, wd = 1 / 0.095962949338481, 1 / 0.0255204175962503
    dcg = 2 * wc / math.log2(2) + wa / math.log2(4) + wb / math.log2(6)
    # ideal: R_2 = wc = 3.78 documents of grade 2 fill ranks 1-3 and 0.78 of rank 4; then
    # R_1 = 53.4 of grade 1 fill the rest of rank 4 and rank 5 (the cutoff)
    frac = wc - 3
    ideal = 2 * (1 + 1 / math.log2(3) + 1 / math.log2(4) + frac / math.log2(5)) + \
        (1 - frac) / math.log2(5) + 1 / math.log2(6)
    assert wa + wb + wd > 2
    assert value("statNDCG@5", web) == pytest.approx(dcg / ideal)
    assert value("statNDCG@5", web) == pytest.approx(2.489252, abs=1e-6)


def test_statap_variance_by_hand():
    q = read_prels(b"t a 1 1 0.5\nt b 0 1 1\nt c 1 1 0.25\nt d 1 1 1\n")
    j = judge_sampled(read_run({"t": {"a": 3.0, "b": 2.0, "c": 1.0}}), q)
    v = 6 / 7  # (2 * 1/1 + 4 * (1 + 2)/3) / (2 + 4 + 1)
    assert value("statAP", j) == pytest.approx(v)
    # what each sampled document adds to the numerator: its own term and its pairs' shares
    n_a, n_c = 1 + 4 / 3, (1 + 2) / 3
    c_a, c_c, c_d = 0.5 / 0.25, 0.75 / 0.0625, 0.0
    total = c_a * (n_a - v) ** 2 + c_c * (n_c - v) ** 2 + c_d * v ** 2
    assert float(statap_variance(j)[0]) == pytest.approx(total / 7 ** 2)
    assert float(statap_variance(j)[0]) == pytest.approx(0.093942, abs=1e-6)


def test_one_relevant_document_on_million_query_lines():
    """Topic 14527 of prels.mq.10001-20000.txt (MQ 2008): its only relevant document was
    sampled with pi = 0.003; whatever R^ is, statAP is the precision at its rank."""
    q = read_prels(b"""14527 GX049-11-1019452 0 1 0.00942322445633825
14527 GX029-87-1226749 0 1 0.00290436167576369
14527 GX244-22-14928313 0 0 1
14527 GX261-51-12219677 1 1 0.00301768513175081
14527 GX021-37-14795282 0 0 1
""")
    run = read_run({"14527": {"GX049-11-1019452": 2.0, "GX261-51-12219677": 1.0}})
    j = judge_sampled(run, q)
    assert value("statAP", j) == pytest.approx(0.5)
    assert q.inclusion_totals[0, 0].tolist() == pytest.approx(
        [1 / 0.00942322445633825 + 1 / 0.00290436167576369, 1 / 0.00301768513175081])
    assert float(statap_variance(j)[0]) == pytest.approx(0.0, abs=1e-12)


def reference(prels: dict, ranking: list[str], lv: int = 1, k: int = 10
              ) -> tuple[float, float]:
    """statAP and statNDCG@k document by document, from {docno: (grade, pi)}."""
    r_hat = sum(1 / p for g, p in prels.values() if p > 0 and g >= lv)
    counts: dict[int, float] = {}
    for g, p in prels.values():
        if p > 0:
            counts[g] = counts.get(g, 0.0) + 1 / p
    total, above, dcg = 0.0, 0.0, 0.0
    for r, d in enumerate(ranking, start=1):
        g, p = prels.get(d, (-1, 0.0))
        if p > 0 and g >= lv:
            total += (1 + above) / (r * p)
            above += 1 / p
        if p > 0 and r <= k and g > 0:
            dcg += g / (p * math.log2(r + 1))
    ideal, start = 0.0, 0.0
    for g in sorted(counts, reverse=True):  # rank p covers [p - 1, p) of the line
        if g <= 0:
            continue
        end = start + counts[g]
        for p in range(int(start) + 1, min(math.ceil(end), k) + 1):
            ideal += g * (min(end, p) - max(start, p - 1)) / math.log2(p + 1)
        start = end
    return (total / r_hat if r_hat else 0.0), (dcg / ideal if ideal else 0.0)


@pytest.mark.parametrize("name", ["prels.web.1-50.txt", "prels.mq.1-10000.txt",
                                  "prels.mq.10001-20000.txt", "prels.mq.20001-60000.txt"])
def test_kernels_equal_the_reference_on_real_topics(name):
    lines = need(PRELS / name).read_text().splitlines()
    by_topic: dict[str, dict[str, tuple[int, float]]] = {}
    for line in lines:
        t, d, g, m, p = line.split()
        if len(by_topic) < 6 or t in by_topic:
            by_topic.setdefault(t, {})[d] = (int(g), 0.0 if m == "0" else float(p))
    text = "".join(f"{t} {d} {g} {1 if p > 0 else 0} {p if p > 0 else 1}\n"
                   for t, docs in by_topic.items() for d, (g, p) in docs.items())
    q = read_prels(text.encode())
    rng = np.random.default_rng(7)
    for trial in range(3):
        ranking = {t: {d: float(rng.normal()) + (0.5 * g if trial else 0)
                       for d, (g, _) in docs.items()} for t, docs in by_topic.items()}
        j = judge_sampled(read_run(ranking), q)
        ap = parse_measures("statAP")[0].compute(j)
        ndcg = parse_measures("statNDCG@10")[0].compute(j)
        for i, t in enumerate(j.topics):
            order = sorted(ranking[t], key=lambda d: -ranking[t][d])
            want = reference(by_topic[t], order)
            assert ap[i] == pytest.approx(want[0], rel=1e-9)
            assert ndcg[i] == pytest.approx(want[1], rel=1e-9)


def test_complete_judgments_give_ap_and_ndcg_with_zero_variance():
    need(PRELS / "prels.web.1-50.txt")
    q = read_prels(PRELS / "prels.web.1-50.txt")
    complete = SampledQrels.from_qrels(q, inclusion=np.ones(q.keys.size))
    rng = np.random.default_rng(0)
    ranking = {t: {d: float(max(g, 0) + rng.normal()) for d, g in docs.items()}
               for t, docs in q.to_dict().items()}
    run = read_run(ranking)
    j, full = judge_sampled(run, complete), judge(run, complete)
    for stat, target in (("statAP", "AP"), ("statNDCG@10", "nDCG@10"), ("statNDCG", "nDCG")):
        assert parse_measures(stat)[0].compute(j) == pytest.approx(
            parse_measures(target)[0].compute(full), abs=1e-12)
    assert np.abs(statap_variance(j)).max() == 0.0
    assert np.abs(statndcg_variance(j, 10)).max() == 0.0


def test_stratified_samples_read_pi_from_the_strata():
    """Without prels, a sampled document of stratum s has pi = n_s / N_s."""
    q = read_sampled_qrels({"t": {"a": ("1", 1), "b": ("1", 0), "c": ("2", 1), "d": ("2", -1),
                                  "e": ("2", -1), "f": ("2", 0)}})
    j = judge_sampled(read_run({"t": {"a": 3.0, "c": 2.0, "d": 1.0}}), q)
    # stratum 1 fully sampled (pi 1), stratum 2: 2 of 4 (pi 1/2): R^ = 1 + 2
    assert value("statAP", j) == pytest.approx((1 / 1 + 2 * (1 + 1) / 2) / 3)


def test_the_variance_covers_in_simulation():
    """A 300-document topic sampled by Poisson sampling 400 times: the 90% intervals of
    statAP and statNDCG@20 cover the population's AP and nDCG@20 about 90% of the time."""
    rng = np.random.default_rng(1)
    n = 300
    docs = [f"d{i:04d}" for i in range(n)]
    rel = rng.random(n) < 0.6 * np.exp(-np.arange(n) / 60)
    grades = rel * rng.choice([1, 2], size=n, p=[0.6, 0.4])
    full = read_qrels({"t": {d: int(g) for d, g in zip(docs, grades, strict=True)}})
    run = read_run({"t": {d: float(n - i) for i, d in enumerate(docs)}})
    pi = np.clip(0.9 * np.exp(-np.arange(n) / 80) + 0.1, 0, 1)
    pi[:5] = 1.0  # keys are in docno order, which is rank order here
    truth = [value(m, judge(run, full)) for m in ("AP", "nDCG@20")]
    inside = np.zeros(2)
    trials = 400
    for _ in range(trials):
        drawn = rng.random(n) < pi
        j = judge_sampled(run, SampledQrels.from_qrels(full, inclusion=np.where(drawn, pi, 0)))
        est = [value("statAP", j), value("statNDCG@20", j)]
        sd = np.sqrt([statap_variance(j)[0], statndcg_variance(j, 20)[0]])
        inside += np.abs(np.array(est) - truth) <= 1.6449 * sd
    cover = inside / trials
    # observed with this seed: 0.85 and 0.77 (docs/sampled-judgments.md: the linearised
    # variance runs short for small samples)
    assert 0.8 <= cover[0] <= 0.95 and 0.72 <= cover[1] <= 0.95, cover


def test_infer_runs_reports_intervals():
    q = read_prels(WEB)
    run = read_run({"1": {C: 5.0, A: 3.0, B: 1.0}}, name="r")
    with pytest.warns(UnjudgedWarning, match=r"statNDCG@5 2\.7984 .* outside \[0, 1\]"):
        (inf,) = infer_runs([run], q, parse_measures(["statAP", "statNDCG@5"]), level=0.9)
    rows = inf.rows(per_topic=False)
    assert [r["measure"] for r in rows] == ["statAP", "statNDCG@5"]
    # intervals clipped to [0, 1] (statAP's would reach -0.50); statNDCG@5's value, 2.80 with
    # three documents sampled with probabilities 0.26, 0.26 and 0.10, is kept
    assert [(round(r["value"], 4), round(r["lo"], 4), r["hi"]) for r in rows] == [
        (0.7441, 0.0, 1.0), (2.7984, 0.9807, 1.0)]


@pytest.mark.parametrize(("text", "line", "words"), [
    (b"t a 1 1 x\n", 1, "probability 'x' is not a number in [0, 1]"),
    (b"t a 1 1 0.5\nt b 0 1 0\n", 2, "inclusion probability 0.0 is not in [1e-150, 1]"),
    (b"t a 1 1 0.5\nt b 0 1 1.5\n", 2, "not a number in [0, 1]"),
    (b"t a 1 1 0.5\nt a 1 1 0.4\n", 2, "appears twice with different inclusion"),
    (b"t a x 1 0.5\n", 1, "grade 'x' is not an integer"),
    (b"t a 1 1 0.5 9\n", 1, "expected 5 columns `topic docno grade method probability`"),
])
def test_bad_prels_lines_are_named(tmp_path, text, line, words):
    path = tmp_path / "p.txt"
    path.write_bytes(text)
    with pytest.raises(FormatError) as info:
        read_prels(str(path))
    assert info.value.line == line and words in str(info.value)


def test_infer_prels_cli(tmp_path):
    (tmp_path / "p.txt").write_bytes(WEB)
    (tmp_path / "r.txt").write_text(f"1 Q0 {C} 1 5 r\n1 Q0 unjudged 2 4 r\n1 Q0 {A} 3 3 r\n"
                                    f"1 Q0 {MTC} 4 2 r\n1 Q0 {B} 5 1 r\n")
    p, r = str(tmp_path / "p.txt"), str(tmp_path / "r.txt")
    out = CliRunner().invoke(main, ["infer", p, r, "--prels", "-f", "tsv", "--ci", "0.9"])
    assert out.exit_code == 0, out.output
    rows = [line.split("\t") for line in out.stdout.splitlines()]
    assert out.stderr.startswith("unjudged: note: run r: statNDCG@10 1.9228 (a topic: 1.9228) "
                                 "outside [0, 1]")
    assert rows[0] == ["run", "topic", "measure", "value", "lo", "hi"]
    assert [x[2] for x in rows[1:]] == ["statAP", "statNDCG@10", "statNDCG"]
    assert float(rows[1][3]) == pytest.approx(0.483462, abs=1e-4)
    refused = CliRunner().invoke(main, ["infer", p, r, "--prels", "--compat", "sample_eval"])
    assert refused.exit_code == 2 and "does not read prels" in refused.output


def test_qrels_without_keeps_empty_topics():
    q = read_qrels({"a": {"x": 1}, "b": {"y": 1}, "c": {"z": 0}})
    smaller = q.without(q.keys[1:])  # b and c lose every key
    assert smaller.without(smaller.keys[:0]).to_dict() == {"a": {"x": 1}, "b": {}, "c": {}}
    assert smaller.without(smaller.keys).to_dict() == {"a": {}, "b": {}, "c": {}}
