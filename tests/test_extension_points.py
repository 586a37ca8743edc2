"""Adding a measure or a strategy touches one file: a copy of the package gets one new module
in measures/ and one in strategies/builtin/, and nothing else; the parser, `unjudged measures`,
`estimate`'s choices and output, and `eval --unjudged` then know them.

The copy runs in a subprocess (PYTHONPATH), so the installed package is never modified.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import unjudged

MEASURE = '''"""Reciprocal of the first relevant rank, halved: a toy measure for tests."""

from unjudged.measures._common import level
from unjudged.measures._spec import MeasureSpec, register


def half_rr(j, cutoff=None, rel=1):
    import numpy as np

    g = j.cut(cutoff)
    hit = g >= level(j, rel)
    first = np.where(hit.any(axis=-1), hit.argmax(axis=-1) + 1.0, np.inf)
    return 0.5 / first


register(MeasureSpec("HalfRR", half_rr, "Half the reciprocal rank of the first relevant "
                     "document.", cutoff="optional"))
'''

STRATEGY = '''"""half: every unjudged document has grade 1 (a toy strategy for tests)."""

from unjudged.strategies.base import AtCutoff, Fill


class Half(Fill):
    name = "half"
    order = 35
    columns = ("half",)
    description = "every unjudged document counts as grade 1 (toy)"

    def rankings(self, at: AtCutoff):
        import numpy as np

        from unjudged.strategies.fill import unknown

        g = at.top.grades
        return (at.top.with_grades(np.where(unknown(g), 1, g).astype(g.dtype)),)
'''


def _copy_with_extensions(tmp_path: Path) -> Path:
    root = tmp_path / "src"
    shutil.copytree(Path(unjudged.__file__).parent, root / "unjudged",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (root / "unjudged" / "measures" / "halfrr.py").write_text(MEASURE)
    (root / "unjudged" / "strategies" / "builtin" / "half.py").write_text(STRATEGY)
    return root


def _run(root: Path, *args: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run([sys.executable, "-m", "unjudged", *args], env=env, cwd=root,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_one_new_file_each_for_a_measure_and_a_strategy(tmp_path):
    root = _copy_with_extensions(tmp_path)
    (tmp_path / "qrels").write_text("1 0 a 1\n1 0 b 0\n")
    (tmp_path / "run").write_text("1 Q0 x 1 3.0 r\n1 Q0 a 2 2.0 r\n1 Q0 b 3 1.0 r\n")
    qrels, run = str(tmp_path / "qrels"), str(tmp_path / "run")

    assert "HalfRR" in _run(root, "measures")
    # trec_eval's reading: the unjudged x counts as non-relevant, a at rank 2
    assert _run(root, "eval", qrels, run, "-m", "HalfRR", "-f", "tsv").splitlines()[1:] == [
        "r\tall\tHalfRR\t0.25"]
    assert "half" in _run(root, "estimate", "--help")
    # --no-grow: the bootstrap takes what the pool still has, no relevant document left for x
    table = _run(root, "estimate", qrels, run, "-m", "HalfRR", "-b", "20",
                 "--no-grow").splitlines()
    # its place in the table: after upper (30), before the bootstrap (40)
    assert table[0].split()[5:8] == ["upper", "half", "bootstrap(mean)"]
    assert table[1].split()[5:8] == ["0.2500", "0.5000", "0.2500"]
    # under the toy strategy the unjudged x at rank 1 is relevant
    assert _run(root, "eval", qrels, run, "-m", "HalfRR", "--unjudged", "half",
                "-f", "tsv").splitlines()[1:] == ["r\tall\tHalfRR\t0.5"]
