"""Values outside a measure's range (issue 32): statAP and statNDCG of a run made of sampled
documents exceed 1, infNDCG's interval could reach below 0. Point estimates are kept and flagged
with a note that says why; intervals are clipped to the range of what the measure estimates."""

from __future__ import annotations

import io
import warnings

import numpy as np
from click.testing import CliRunner

from unjudged.cli import main
from unjudged.engine.results import z_value
from unjudged.errors import UnjudgedWarning
from unjudged.inference.infer import infer_runs
from unjudged.io import read_run
from unjudged.io.sampled import read_prels, read_sampled_qrels
from unjudged.measures import parse_measures

# a and b relevant, sampled with probability 0.1 and 0.2; c judged non-relevant for sure; d
# relevant for sure but not retrieved: the run holds only sampled documents
PRELS = b"t a 1 1 0.1\nt b 1 1 0.2\nt c 0 1 1\nt d 1 1 1\n"
PRELS_RUN = b"t Q0 a 1 3 r\nt Q0 b 2 2 r\nt Q0 c 3 1 r\n"

# one stratum of 40 documents, 5 sampled, the one relevant among them ranked 10th
SAMPLED = "".join(f"t 0 d{i} 1 {(1 if i == 9 else 0) if i in (9, 20, 25, 30, 35) else -1}\n"
                  for i in range(40)).encode()
SAMPLED_RUN = "".join(f"t Q0 d{i} {i + 1} {100 - i} r\n" for i in range(40)).encode()


def _inference(qrels, run_bytes, measures):
    run = read_run(io.BytesIO(run_bytes), qrels=qrels)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        inf = next(iter(infer_runs([run], qrels, parse_measures(measures), level=0.95)))
    return inf, [str(w.message) for w in caught if issubclass(w.category, UnjudgedWarning)]


def test_statap_above_one_is_kept_and_flagged():
    inf, notes = _inference(read_prels(io.BytesIO(PRELS)), PRELS_RUN, ["statAP", "statNDCG@10"])
    values = inf.values[0]
    assert values[0] > 1 and values[1] > 1  # Horvitz-Thompson: 1/0.1 and 1/0.2 weigh in
    assert notes == [
        f"run r: statAP {values[0]:.4f} (a topic: {values[0]:.4f}), statNDCG@10 "
        f"{values[1]:.4f} (a topic: {values[1]:.4f}) outside [0, 1], the range of what they "
        "estimate (statAP, statNDCG: each sampled document counts 1/(its inclusion "
        "probability), so a run made mostly of sampled documents can score above 1); kept "
        "unclipped, as clipping would bias them; their intervals are clipped "
        "(docs/sampled-judgments.md)"]
    rows = [r for r in inf.rows(per_topic=False)]
    half = z_value(0.95) * np.sqrt(inf.variance[0])
    for r, v, h in zip(rows, values, half, strict=True):
        assert r["value"] == v  # not clipped
        assert (r["lo"], r["hi"]) == (min(max(v - h, 0.0), 1.0), 1.0)
        assert 0.0 <= r["lo"] <= r["hi"] == 1.0 < v + h


def test_infndcg_interval_is_clipped_to_ndcgs_range():
    inf, notes = _inference(read_sampled_qrels(io.BytesIO(SAMPLED)), SAMPLED_RUN, ["infNDCG@10"])
    assert notes == []  # the point estimate is within [0, 1]
    (row,) = inf.rows(per_topic=False)
    half = z_value(0.95) * np.sqrt(inf.variance[0, 0])
    value = inf.values[0, 0]
    assert 0 < value < 1 and value - half < 0 and value + half > 1  # unclipped: both ends out
    assert (row["lo"], row["hi"]) == (0.0, 1.0)


def test_infer_prels_prints_the_note_once(tmp_path):
    prels, run = tmp_path / "prels", tmp_path / "run"
    prels.write_bytes(PRELS)
    run.write_bytes(PRELS_RUN)
    res = CliRunner().invoke(main, ["infer", str(prels), str(run), "--prels", "--ci", "0.95",
                                    "-f", "tsv"])
    assert res.exit_code == 0, res.output
    notes = [line for line in res.stderr.splitlines() if line.startswith("unjudged: note:")]
    assert len(notes) == 1 and "statAP" in notes[0] and "kept unclipped" in notes[0]
    rows = [line.split("\t") for line in res.stdout.splitlines()[1:]]
    assert all(0.0 <= float(lo) <= float(hi) <= 1.0 for *_, lo, hi in rows)
