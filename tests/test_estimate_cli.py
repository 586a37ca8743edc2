"""`unjudged estimate` and `unjudged eval --unjudged`: formats, samples, plots, errors."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from unjudged.cli import main
from unjudged.engine.estimate import expand_methods
from unjudged.strategies.registry import STRATEGIES

sys.path.insert(0, str(Path(__file__).parent))
from collection import write_collection  # noqa: E402

QRELS = "1 0 a 2\n1 0 b 0\n1 0 c 1\n2 0 d 1\n2 0 e 0\n"
RUN_A = "1 Q0 a 1 3.0 A\n1 Q0 x 2 2.0 A\n1 Q0 b 3 1.0 A\n2 Q0 d 1 1.0 A\n"
RUN_B = "1 Q0 b 1 3.0 B\n1 Q0 a 2 2.0 B\n2 Q0 y 1 1.0 B\n"


#: seed 000's bootstrap, whose values these tests work out by hand
SEED_DRAWS = ("--prior", "pool+run", "--spread", "0", "--shared-spread", "0")


def _files(tmp_path):
    return write_collection(tmp_path, QRELS, {"a.run": RUN_A, "b.run": RUN_B})


def _run(*args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result


def test_jsonl_keys_and_values(tmp_path):
    qrels, runs = _files(tmp_path)
    r = _run("estimate", qrels, runs / "a.run", "-m", "P@2", "-b", "2000", "-q", "-f", "jsonl",
             *SEED_DRAWS)
    assert r.exit_code == 0, r.output
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    by = {(x["topic"], x["method"]): x for x in rows}
    shown = expand_methods(STRATEGIES.names())
    assert set(by) == {(t, m) for t in ("1", "2", "all") for m in shown}
    assert by["1", "nonrel"]["value"] == 0.5 and by["1", "upper"]["value"] == 1.0
    assert by["all", "nonrel"]["value"] == 0.5  # topic 2: d relevant, one document: 1/2
    boot = by["1", "bootstrap"]
    assert set(boot) == {"run", "topic", "measure", "method", "value", "lo", "hi", "mean",
                         "mode", "std", "p5", "p25", "p50", "p75", "p90", "p95", "p_lo", "p_hi"}
    assert (boot["lo"], boot["hi"]) == (0.5, 1.0)  # x unjudged: P@2 is 1/2 or 1
    # every draw sits on an end: 1/2 when x is drawn non-relevant (1/6), else 1
    assert boot["p_lo"] == pytest.approx(1 / 6, abs=0.02)
    assert boot["p_lo"] + boot["p_hi"] == pytest.approx(1.0)
    assert boot["run"] == "A" and boot["measure"] == "P@2"
    assert boot["mean"] == pytest.approx(0.5 + 0.5 * 5 / 6, abs=0.02)
    assert by["2", "bootstrap"]["std"] == 0.0  # topic 2 is fully judged
    assert set(by["1", "upper"]) == {"run", "topic", "measure", "method", "value"}


def test_table_marks_incomparable_bounds(tmp_path):
    qrels, runs = _files(tmp_path)
    r = _run("estimate", qrels, runs, "-m", "nDCG@3", "-m", "Bpref", "-b", "100")
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert lines[0].split() == ["run", "topic", "measure", "nonrel", "condensed", "upper",
                                "bootstrap(mean)", "lo-hi(90%)", "guaranteed_lower",
                                "guaranteed_upper"]
    assert lines[1].split()[:4] == ["A", "all", "nDCG@3", "0.8801"]
    assert lines[2].split()[2:5] == ["Bpref", "0.7500", "-"]  # not estimable: nonrel only
    assert "NOT comparable" in r.stdout


def test_same_seed_same_output_different_seed_different(tmp_path):
    qrels, runs = _files(tmp_path)
    args = ["estimate", qrels, runs, "-m", "nDCG@3", "-b", "500", "-f", "tsv"]
    one, two = _run(*args, "--seed", "4"), _run(*args, "--seed", "4")
    three = _run(*args, "--seed", "5", "--workers", "2")
    assert one.stdout == two.stdout
    assert one.stdout != three.stdout
    assert _run(*args, "--seed", "4", "--workers", "2").stdout == one.stdout


def test_eval_with_a_strategy(tmp_path):
    qrels, runs = _files(tmp_path)
    plain = _run("eval", qrels, runs / "a.run", "-m", "P@2", "-m", "Judged@2")
    upper = _run("eval", qrels, runs / "a.run", "-m", "P@2", "-m", "Judged@2",
                 "--unjudged", "upper")
    assert plain.stdout.splitlines()[1].split() == ["A", "0.5000", "0.7500"]
    assert upper.stdout.splitlines()[1].split() == ["A", "0.7500", "0.7500"]
    boot = _run("eval", qrels, runs / "a.run", "-m", "P@2", "--unjudged", "bootstrap",
                "--point", "mode", "-b", "300", *SEED_DRAWS)
    assert boot.exit_code == 0, boot.output
    assert boot.stdout.splitlines()[1].split() == ["A", "0.7500"]


@pytest.mark.parametrize("ext", ["npz", "parquet"])
def test_samples_file(tmp_path, ext):
    qrels, runs = _files(tmp_path)
    out = tmp_path / f"samples.{ext}"
    r = _run("estimate", qrels, runs, "-m", "P@2", "-b", "50", "--samples", out)
    assert r.exit_code == 0, r.output
    if ext == "npz":
        data = np.load(out)
        assert str(data["run0_name"]) == "A"
        assert data["run0_samples"].shape == (50, 2, 1)
        assert list(data["run0_topics"]) == ["1", "2"]
    else:
        import pyarrow.parquet as pq

        table = pq.read_table(out).to_pydict()
        assert table["run"] == ["A", "A", "B", "B"]
        assert all(len(s) == 50 for s in table["samples"])


def test_normalisers_grow_by_default_and_the_note_says_so(tmp_path):
    """x (unjudged) above a (relevant), the pool prior 1/2: grown, x relevant makes R = 2 and
    AP = (1/1 + 2/2) / 2 = 1, else 1/2: mean 3/4. --no-grow (and the run priors, which cannot
    grow a normaliser every run shares) keep R = 1: no relevant grade is left for x, AP 1/2."""
    qrels, runs = write_collection(tmp_path, "1 0 a 1\n1 0 b 0\n",
                                   {"r.run": "1 Q0 x 1 3.0 r\n1 Q0 a 2 2.0 r\n"})
    args = ["estimate", qrels, runs, "-m", "AP", "-b", "4000", "--methods", "bootstrap",
            "-f", "jsonl", "--spread", "0", "--shared-spread", "0"]
    grown = _run(*args, "--prior", "pool")
    assert grown.exit_code == 0, grown.output
    assert json.loads(grown.stdout.splitlines()[0])["value"] == pytest.approx(0.75, abs=0.02)
    for extra in (["--prior", "pool", "--no-grow"], ["--prior", "run"]):
        fixed = _run(*args, *extra)
        assert json.loads(fixed.stdout.splitlines()[0])["value"] == 0.5
    table = _run(*args[:-6], "--prior", "pool")
    assert "normalisers grown by the drawn relevant documents" in table.stdout
    table = _run(*args[:-6], "--no-grow")
    assert "normalisers the pool's (comparable with scores on the pool)" in table.stdout
    refused = _run(*args, "--prior", "run", "--grow")
    assert refused.exit_code == 2 and "growing normalisers needs a prior" in refused.output


def test_plot_files(tmp_path):
    qrels, runs = _files(tmp_path)
    out = tmp_path / "fig.png"
    r = _run("estimate", qrels, runs, "-m", "nDCG@3", "-b", "100", "--plot", out)
    assert r.exit_code == 0, r.output
    for name in ("fig-A.png", "fig-B.png"):
        assert (tmp_path / name).read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize("args,message", [
    (["--methods", "nonrel,bogus"], "unknown method 'bogus'"),
    (["--point", "q1.5"], "point must be"),
    (["--prior", "uniform"], "uniform"),
    (["--samples", "x.csv"], "expected a file name ending in .parquet or .npz"),
    (["--methods", "nonrel", "--plot", "x.png"], "need the bootstrap"),
])
def test_bad_options_exit_2(tmp_path, args, message):
    qrels, runs = _files(tmp_path)
    r = _run("estimate", qrels, runs, "-m", "P@2", *args)
    assert r.exit_code == 2
    assert message in r.output
    assert "Traceback" not in r.output


def test_fit_truth_switches_the_point_estimate(tmp_path):
    qrels, runs = _files(tmp_path)
    truth = tmp_path / "truth"
    truth.write_text(QRELS + "1 0 x 0\n2 0 y 1\n")  # x is not relevant after all, y is
    r = _run("estimate", qrels, runs, "-m", "P@2", "-b", "400", "--methods", "bootstrap",
             "--fit-truth", truth, "-q", "-f", "jsonl")
    assert r.exit_code == 0, r.output
    assert "P@2: quantile" in r.stderr and "on 4 fully judged (run, topic) pairs" in r.stderr
    rows = {(x["run"], x["topic"]): x for x in map(json.loads, r.stdout.splitlines())}
    # x (run A, topic 1) is really 0: the fitted level sits low, predicting A's topic 1 at 0.5
    assert rows["A", "1"]["value"] == 0.5
