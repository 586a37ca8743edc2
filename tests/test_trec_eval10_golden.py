"""`unjudged trec_eval` against trec_eval 10.0's own outputs on real runs (tests/data/trec_eval10,
see its SOURCES.md): eight TREC-COVID round-1 runs, `-q -m all_trec` and `-q -l 2 -m all_trec`,
byte for byte. These runs once told the drop-in from trec_eval 10.0 (score ties compared in
float, and the order of floating-point sums); tests/test_trec_eval10_reference.py compares all
143 runs where a trec_eval 10.0 executable is given."""

from __future__ import annotations

import lzma
from pathlib import Path

import pytest
from click.testing import CliRunner

from shared_data import COVID1, need
from unjudged.cli import main

HERE = Path(__file__).parent / "data" / "trec_eval10"
RUNS = ["BERT", "tm_lda400", "BioinfoUA-noadapt", "PL2c1.0_Bo1", "PL2c1.0", "Tetralogie1Fr",
        "dmis-rnd1-run2", "xj4wang_run1"]
OPTIONS = {"all_trec": ["-q", "-m", "all_trec"], "l2.all_trec": ["-q", "-l", "2", "-m",
                                                                  "all_trec"]}


@pytest.mark.parametrize("kind", sorted(OPTIONS))
@pytest.mark.parametrize("run", RUNS)
def test_real_run_byte_for_byte(run: str, kind: str, tmp_path: Path) -> None:
    need(COVID1)
    path = tmp_path / run
    path.write_bytes(lzma.decompress((COVID1 / "runs" / f"{run}.xz").read_bytes()))
    want = lzma.decompress((HERE / f"{run}.{kind}.xz").read_bytes()).decode()
    got = CliRunner().invoke(main, ["trec_eval", *OPTIONS[kind],
                                    str(COVID1 / "qrels" / "qrels-rnd1.txt"), str(path)])
    assert got.exit_code == 0, got.output
    assert got.output == want
