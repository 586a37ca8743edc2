"""What one call of a command pays before its work: `--help` imports neither numpy nor pyarrow,
a command loads only its own module, and trec_eval's own test run (tab- and space-aligned,
scores out of order) needs neither pyarrow.compute nor numpy.ma (0.1 s and 0.03 s a call)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from shared_data import TREC_EVAL, need
from unjudged.cli import main
from unjudged.cli._base import COMMAND_MODULES, load_commands


def _probe(code: str, *args: str) -> list[str]:
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


def _all_commands() -> list[list[str]]:
    load_commands()
    paths = []
    for name, cmd in sorted(main.commands.items()):
        paths.append([name])
        for sub in sorted(getattr(cmd, "commands", {})):
            paths.append([name, sub])
    return paths


def test_every_help_imports_neither_numpy_nor_pyarrow():
    commands = _all_commands()
    assert len(commands) > 25  # the groups' subcommands too
    code = ("import sys\nfrom unjudged.cli import main\nheavy = ('numpy', 'pyarrow', 'pandas')\n"
            f"for command in {commands!r}:\n"
            "    try:\n        main([*command, '--help'])\n    except SystemExit:\n        pass\n"
            "    print('@', ' '.join(command), [m for m in heavy if m in sys.modules])\n")
    loaded = [line for line in _probe(code) if line.startswith("@ ")]
    assert len(loaded) == len(commands)
    assert all(line.endswith(" []") for line in loaded), loaded


def test_a_command_loads_only_its_own_module():
    code = ("import sys\nfrom unjudged.cli import main\ntry:\n    main(sys.argv[1:])\n"
            "except SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.startswith('unjudged.cli.') "
            "and not m.startswith('unjudged.cli._')))")
    assert _probe(code, "ndeval", "--help")[-1] == "['unjudged.cli.ndeval']"
    assert _probe(code, "trec_eval", "--help")[-1] == "['unjudged.cli.trec_eval']"
    assert _probe(code, "eval", "--help")[-1] == \
        "['unjudged.cli.evaluate', 'unjudged.cli.matrix']"  # evaluate imports matrix's options


def test_command_modules_name_where_each_command_is_defined():
    load_commands()
    assert set(main.commands) == set(COMMAND_MODULES)
    for name, cmd in main.commands.items():
        subs = list(getattr(cmd, "commands", {}).values())
        for c in [cmd, *subs]:
            assert c.callback is not None
            module = c.callback.__module__.removeprefix("unjudged.cli.")
            assert module in COMMAND_MODULES[name], (name, c.name, module)


def test_unknown_command_still_lists_the_choices():
    from click.testing import CliRunner

    out = CliRunner().invoke(main, ["trec-eval"])
    assert out.exit_code == 2 and "No such command 'trec-eval'" in out.output


def _aligned_files(tmp_path):
    """A run laid out as trec_eval's results.test: tabs, padded scores, lines out of score order
    (so the reader's careful path and the ranking sort both run), with ties."""
    (tmp_path / "qrels").write_text("1 0 b 1\n1 0 aa 0\n2 0 x 2\n")
    (tmp_path / "run").write_text(
        "1\tQ0\tc\t3\t  1.500000\tr\n1\tQ0\tb\t1\t  2.000000\tr\n"
        "1\tQ0\taa\t2\t  2.000000\tr\n2\tQ0\tx\t2\t  0.250000\tr\n"
        "2\tQ0\ty\t1\t  3.000000\tr\n1\tQ0\tab\t9\t  1.500000\tr\n")
    return tmp_path / "qrels", tmp_path / "run"


def test_aligned_run_reads_without_arrow_compute(tmp_path):
    qrels, run = _aligned_files(tmp_path)
    code = ("import sys\nfrom unjudged.cli import main\ntry:\n    main(sys.argv[1:])\n"
            "except SystemExit:\n    pass\n"
            "print([m for m in ('pyarrow.compute', 'numpy.ma') if m in sys.modules])")
    lines = _probe(code, "trec_eval", "-q", "-m", "P.1,2,3", str(qrels), str(run))
    assert lines[-1] == "[]"
    # topic 1 in trec_eval's order: b and aa tie at 2.0 (docno descending: b first), then
    # c and ab tie at 1.5 (c first)
    assert [line.split() for line in lines[:3]] == [
        ["P_1", "1", "1.0000"], ["P_2", "1", "0.5000"], ["P_3", "1", "0.3333"]]


@pytest.mark.parametrize("ties", ["trec_eval", "docno"])
def test_out_of_order_runs_sort_as_arrow_does(monkeypatch, ties):
    """The numpy sort of small out-of-order runs gives Arrow's order (which larger runs keep)."""
    import pyarrow as pa

    from unjudged.data import run as run_module

    rng = np.random.default_rng(7)
    n = 5000
    tcode = rng.integers(0, 40, n).astype(np.int32)
    score = rng.integers(0, 50, n).astype(np.float32) / 4 - 3
    score[rng.random(n) < 0.01] = -0.0
    docs = [f"d{rng.integers(0, 10**rng.integers(1, 14))}" for _ in range(n)]
    docs[:3] = ["a-docno-longer-than-sixteen-bytes", "a-docno-longer-than-sixteen-bytez", ""]
    docno = pa.chunked_array([pa.array(docs[:2000]), pa.array(docs[2000:])])
    mine = run_module.ranking_order(tcode, score, docno, None, ties)
    monkeypatch.setattr(run_module, "_NUMPY_SORT_ROWS", 0)
    arrow = run_module.ranking_order(tcode, score, docno, None, ties)
    assert mine is not None and arrow is not None
    assert mine.tolist() == arrow.tolist()


def test_results_test_as_trec_eval_prints_it_without_arrow_compute():
    data = need(TREC_EVAL)
    code = ("import sys\nfrom unjudged.cli import main\ntry:\n    main(sys.argv[1:])\n"
            "except SystemExit:\n    pass\n"
            "print([m for m in ('pyarrow.compute', 'numpy.ma', 'unjudged.measures.prefs') "
            "if m in sys.modules])")
    lines = _probe(code, "trec_eval", str(data / "qrels.test"), str(data / "results.test"))
    assert lines[-1] == "[]"
    assert "\n".join(lines[:-1]) + "\n" == (data / "out.test").read_text()


def test_trec_eval_families_copy_the_prefs_names():
    """trec_eval's table writes the preference measures' names out, so that a call without -R
    does not import their module: the copy must stay the module's list."""
    from unjudged.measures.prefs import NAMES
    from unjudged.trec_eval._families import PREFS

    assert PREFS == NAMES
