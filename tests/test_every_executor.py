"""Common test: every registered measure works with every executor (serial, local processes,
Dask local) and gives the same numbers, byte for byte. Diversity measures once could not be
sent to worker processes (their kernels were closures), so `estimate -j 2` crashed."""

from __future__ import annotations

import pickle

import pytest
from click.testing import CliRunner

import unjudged.measures  # noqa: F401  (registers every measure)
from unjudged.cli import main
from unjudged.measures._spec import MeasureSpec, families

# Diversity qrels (topic, subtopic, docno, grade) read by every measure: the diversity ones
# use the subtopics, the others each document's grade. Two runs, so that -j 2 makes two chunks
# and the measures really travel to the workers.
QRELS = "".join(f"{t} {s} d{d} {g}\n" for t, s, d, g in [
    (1, 1, 0, 1), (1, 2, 0, 2), (1, 2, 1, 1), (1, 3, 2, 1), (1, 1, 3, 0), (1, 1, 4, -1),
    (2, 1, 1, 2), (2, 2, 5, 1), (2, 1, 6, 0), (2, 2, 2, 1),
    (3, 1, 7, 1), (3, 1, 8, 0)])
RUNS = {"A": {1: [1, 3, 0, 9, 2, 4], 2: [5, 9, 1, 6], 3: [8, 7, 9]},
        "B": {1: [9, 2, 0, 1], 2: [6, 2, 1], 3: [7, 10, 8]}}


def _usage(spec: MeasureSpec) -> str:
    return spec.name + ("@5" if spec.cutoff == "required" and "@" not in spec.name else "")


MEASURES = [_usage(spec) for spec in families()]


@pytest.mark.parametrize("spec", families(), ids=_usage)
def test_every_measure_travels_to_workers(spec):
    # the kernel is found by name in the worker: a closure or a lambda cannot be
    back = pickle.loads(pickle.dumps(spec))
    assert back.name == spec.name and type(back.kernel) is type(spec.kernel)


@pytest.fixture(scope="module")
def collection(tmp_path_factory):
    folder = tmp_path_factory.mktemp("every")
    (folder / "qrels").write_text(QRELS)
    paths = []
    for name, ranking in RUNS.items():
        path = folder / f"{name}.run"
        path.write_text("".join(f"{t} Q0 d{d} {r + 1} {len(docs) - r} {name}\n"
                                for t, docs in ranking.items() for r, d in enumerate(docs)))
        paths.append(str(path))
    return [str(folder / "qrels"), *paths]


def _estimate(collection: list[str], *how: str) -> str:
    args = ["estimate", *collection, "-b", "20", "--seed", "5", "-f", "tsv", "-q"]
    for m in MEASURES:
        args += ["-m", m]
    result = CliRunner().invoke(main, args + list(how))
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture(scope="module")
def serial(collection):
    out = _estimate(collection, "-j", "1")
    rows = [line.split("\t") for line in out.splitlines()[1:]]
    assert {r[2] for r in rows} == set(MEASURES)  # every measure is in the output
    value = {(r[0], r[2], r[3]): r[4] for r in rows if r[1] == "all"}
    # by hand, run A: S-recall@20 covers every subtopic of the three topics; P-IA@20 finds
    # (1 + 2 + 1) / 3 subtopic-relevant documents in topic 1, (1 + 1) / 2 in topic 2 (d2 is not
    # retrieved), 1 in topic 3, each over 20
    assert float(value["A", "S-recall", "nonrel"]) == 1.0
    assert float(value["A", "P-IA", "nonrel"]) == pytest.approx((4 / 3 + 1 + 1) / 60)
    return out


@pytest.mark.parametrize("how", [["-j", "2"], ["--dask", "local", "-j", "2"]],
                         ids=["processes", "dask"])
def test_every_measure_same_on_every_executor(collection, serial, how, monkeypatch):
    if "--dask" in how:
        pytest.importorskip("distributed")
    # two worker processes even on a loaded machine (--jobs counts only free processors)
    monkeypatch.setattr("os.getloadavg", lambda: (0.0, 0.0, 0.0))
    monkeypatch.setattr("os.sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr("unjudged.parallel.busy_elsewhere", lambda mask, window=0.1: 0.0)
    assert _estimate(collection, *how) == serial
