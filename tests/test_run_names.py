"""Run identity (issue 15, item 14): every run gets a distinct name, on the command line
(`--names tag|file`, tag collisions fall back to file names with a note) and in the Python API
({name: run} mappings, unnamed runs numbered)."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import unjudged
from unjudged.cli import main
from unjudged.errors import InputError, UnjudgedWarning
from unjudged.io import read_run
from unjudged.io.paths import file_names, unique_names

QRELS = "1 0 a 1\n1 0 b 0\n1 0 c 1\n"
# two toolkits' default tag on different rankings: P@1 1.0 and 0.0
FIRST = "1 Q0 a 1 3.0 Anserini\n1 Q0 b 2 2.0 Anserini\n"
SECOND = "1 Q0 b 1 3.0 Anserini\n1 Q0 a 2 2.0 Anserini\n"


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "first.run").write_text(FIRST)
    (tmp_path / "runs" / "second.run").write_text(SECOND)
    return tmp_path


def _eval(tmp_path, *args: str):
    return CliRunner().invoke(main, ["eval", str(tmp_path / "qrels.txt"), *args])


def _table(text: str) -> list[list[str]]:
    return [line.split() for line in text.splitlines()]


def test_colliding_tags_fall_back_to_file_names(files):
    r = _eval(files, str(files / "runs"), "-m", "P@1")
    assert r.exit_code == 0, r.output
    assert _table(r.stdout) == [["run", "P@1"], ["first.run", "1.0000"], ["second.run", "0.0000"]]
    first, second = files / "runs" / "first.run", files / "runs" / "second.run"
    assert r.stderr.splitlines() == [
        f"unjudged: note: 2 runs share the tag 'Anserini': {first} is named first.run, "
        f"{second} is named second.run"]


def test_names_file_names_every_run_by_its_file(files):
    (files / "own.run").write_text("1 Q0 c 1 1.0 mine\n")
    r = _eval(files, str(files / "own.run"), str(files / "runs" / "first.run"), "-m", "P@1",
              "--names", "file")
    assert r.exit_code == 0, r.output
    assert _table(r.stdout) == [["run", "P@1"], ["own.run", "1.0000"], ["first.run", "1.0000"]]
    assert r.stderr == ""


def test_same_basename_in_two_folders_gets_the_folder_too(files):
    for folder, text in (("x", FIRST), ("y", SECOND)):
        (files / folder).mkdir()
        (files / folder / "run.txt").write_text(text)
    r = _eval(files, str(files / "x" / "run.txt"), str(files / "y" / "run.txt"), "-m", "P@1")
    assert _table(r.stdout) == [["run", "P@1"], ["x/run.txt", "1.0000"],
                                ["y/run.txt", "0.0000"]]


def test_one_file_twice_is_numbered(files):
    path = str(files / "runs" / "first.run")
    r = _eval(files, path, path, "-m", "P@1")
    assert r.exit_code == 0, r.output
    assert _table(r.stdout) == [["run", "P@1"], ["first.run", "1.0000"],
                                ["first.run#2", "1.0000"]]


def test_a_piped_run_with_a_taken_tag_is_renamed_once_read(files):
    r = CliRunner().invoke(main, ["eval", str(files / "qrels.txt"), "-",
                                  str(files / "runs" / "second.run"), "-m", "P@1"], input=FIRST)
    assert r.exit_code == 0, r.output
    assert _table(r.stdout) == [["run", "P@1"], ["<stdin>", "1.0000"], ["Anserini", "0.0000"]]
    assert r.stderr == ("unjudged: note: <stdin> has the tag 'Anserini' of another run: named "
                        "<stdin>\n")


def test_baseline_by_renamed_run_compares_the_other(files):
    r = _eval(files, str(files / "runs"), "-m", "P@1", "--baseline", "first.run", "-f", "tsv")
    assert r.exit_code == 0, r.output
    rows = [line.split("\t") for line in r.stdout.splitlines()]
    pair = [row for row in rows if row[0] == "second.run" and "first.run" in row]
    assert pair, r.stdout  # the comparison table is not empty


def test_baseline_by_file_path(files):
    r = _eval(files, str(files / "runs"), "-m", "P@1", "--baseline",
              str(files / "runs" / "second.run"), "-f", "tsv")
    assert r.exit_code == 0, r.output
    assert any(line.startswith("first.run\tsecond.run") for line in r.stdout.splitlines())


def test_unknown_baseline_lists_the_names(files):
    r = _eval(files, str(files / "runs"), "-m", "P@1", "--baseline", "Anserini")
    assert r.exit_code == 2
    assert r.stdout == ""
    assert "Anserini: not among the runs (by name or file), which are: first.run, " \
        "second.run" in r.stderr


def test_strict_refuses_to_rename(files):
    r = _eval(files, str(files / "runs"), "-m", "P@1", "--strict")
    assert r.exit_code == 2
    assert r.stdout == ""
    assert r.stderr.startswith("unjudged: error: 2 runs share the tag 'Anserini'")
    assert r.stderr.rstrip().endswith("(--strict)")


@pytest.mark.parametrize("command", [
    ["estimate", "-m", "P@1", "-f", "tsv", "--methods", "nonrel"],
    ["coverage", "-f", "tsv"],
])
def test_other_commands_name_runs_alike(files, command):
    name, *options = command
    r = CliRunner().invoke(main, [name, str(files / "qrels.txt"), str(files / "runs"),
                                  *options])
    assert r.exit_code == 0, r.output
    assert "first.run" in r.stdout and "second.run" in r.stdout
    assert "Anserini" not in r.stdout


def test_pool_names_runs_alike(files):
    r = CliRunner().invoke(main, ["pool", str(files / "runs"), "--depth", "1",
                                  "--summary", "tsv"])
    assert r.exit_code == 0, r.output
    assert "first.run" in r.stderr and "second.run" in r.stderr


# ---- the Python API -----------------------------------------------------------------------

RUN_A = {"1": {"a": 2.0, "b": 1.0}}
RUN_B = {"1": {"b": 2.0, "a": 1.0}}
Q = {"1": {"a": 1, "b": 0}}


def _p1(df) -> dict[str, float]:
    return dict(df[["run", "value"]].itertuples(index=False))


def test_api_single_dict_is_one_run():
    assert _p1(unjudged.evaluate(RUN_A, Q, "P@1", per_topic=False)) == {"run": 1.0}


def test_api_unnamed_dicts_are_numbered():
    df = unjudged.evaluate([RUN_A, RUN_B], Q, "P@1", per_topic=False)
    assert _p1(df) == {"run1": 1.0, "run2": 0.0}


def test_api_mapping_of_names(tmp_path):
    path = tmp_path / "b.run"
    path.write_text("1 Q0 b 1 2.0 tagb\n1 Q0 a 2 1.0 tagb\n")
    frame = pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "score": [2.0, 1.0],
                          "run": ["tagged", "tagged"]})
    runs = {"dict": RUN_A, "path": str(path), "frame": frame,
            "object": read_run(RUN_B, name="other")}
    df = unjudged.evaluate(runs, Q, "P@1", per_topic=False)
    assert _p1(df) == {"dict": 1.0, "path": 0.0, "frame": 1.0, "object": 0.0}
    est = unjudged.estimate({"x": RUN_A, "y": RUN_B}, Q, "P@1", methods=["nonrel"],
                            per_topic=False)
    assert _p1(est) == {"x": 1.0, "y": 0.0}


def test_api_mapping_keeps_the_callers_run_unchanged():
    run = read_run(RUN_A, name="kept")
    unjudged.evaluate({"renamed": run}, Q, "P@1")
    assert run.name == "kept"


def test_api_mixed_dict_is_an_input_error():
    with pytest.raises(InputError, match="expected one run"):
        unjudged.evaluate({"1": {"a": 1.0}, "named": "some.run"}, Q, "P@1")


def test_api_colliding_tags_warn_and_rename(tmp_path):
    (tmp_path / "x.run").write_text(FIRST)
    (tmp_path / "y.run").write_text(SECOND)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        df = unjudged.evaluate([tmp_path / "x.run", tmp_path / "y.run"], Q, "P@1",
                               per_topic=False)
    assert _p1(df) == {"x.run": 1.0, "y.run": 0.0}
    assert [w.category for w in seen] == [UnjudgedWarning]
    assert "share the tag 'Anserini'" in str(seen[0].message)


def test_file_names_shortest_distinct_suffix():
    assert file_names(["a/b/run", "c/b/run", "d/other"]) == ["a/b/run", "c/b/run", "other"]


_ids = st.one_of(st.none(), st.sampled_from(["A", "B", "run1", "x.run", "A#2"]))
_paths = st.one_of(st.none(), st.sampled_from(["x.run", "d/x.run", "e/x.run", "y.run"]))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_ids, _paths), min_size=1, max_size=8),
       st.sampled_from(["tag", "file"]))
def test_names_are_always_distinct(runs, mode):
    tags = [t for t, _ in runs]
    paths = [p for _, p in runs]
    names = unique_names(tags, paths, mode, notify=lambda message: None)
    known = [n for n in names if n is not None]
    assert len(set(known)) == len(known)
    # a name is left open only for a run whose tag is read later (a pipe)
    assert all((n is None) == (t is None and p is not None and mode == "tag")
               for n, t, p in zip(names, tags, paths, strict=True))
    if mode == "tag" and None not in tags and len(set(tags)) == len(tags):
        assert names == tags  # distinct tags are kept as they are


def test_compare_qrels_takes_runs_by_name_and_numbers_unnamed_ones():
    from unjudged.analysis.compare import compare_qrels

    named = compare_qrels({"x": RUN_A, "y": RUN_B}, Q, {"1": {"b": 1}}, "P@1")
    assert named.runs == ["x", "y"]
    assert named.orig[:, 0].tolist() == [1.0, 0.0] and named.new[:, 0].tolist() == [0.0, 1.0]
    assert compare_qrels([RUN_A, RUN_B], Q, Q, "P@1").runs == ["run1", "run2"]


# ---- issue 19, item 4: names with the new input types ----------------------------------------

def _csv(path, rows, run=None):
    lines = ["qid,docno,score" + (",run" if run else "")]
    lines += [f"{q},{d},{s}" + (f",{run}" if run else "") for q, d, s in rows]
    path.write_text("\n".join(lines) + "\n")


# FIRST and SECOND as rows
ROWS_FIRST = [("1", "a", 3.0), ("1", "b", 2.0)]
ROWS_SECOND = [("1", "b", 3.0), ("1", "a", 2.0)]


def test_named_runs_of_every_new_kind(files):
    from collections import namedtuple

    ScoredDoc = namedtuple("ScoredDoc", "query_id doc_id score")

    class Dataset:
        def scoreddocs_iter(self):
            return (ScoredDoc(*r) for r in ROWS_SECOND)

    _csv(files / "t.csv", ROWS_FIRST)
    runs = {"records": [ScoredDoc(*r) for r in ROWS_FIRST], "dataset": Dataset(),
            "table": str(files / "t.csv"), "generator": (ScoredDoc(*r) for r in ROWS_SECOND)}
    df = unjudged.evaluate(runs, str(files / "qrels.txt"), "P@1", per_topic=False)
    assert df[["run", "value"]].values.tolist() == [
        ["records", 1.0], ["dataset", 0.0], ["table", 1.0], ["generator", 0.0]]
    # unnamed: records are one run, named like a dict
    one = unjudged.evaluate([ScoredDoc(*r) for r in ROWS_FIRST], str(files / "qrels.txt"),
                            "P@1", per_topic=False)
    assert one[["run", "value"]].values.tolist() == [["run", 1.0]]


def test_names_of_tables_on_the_command_line(files):
    _csv(files / "a.csv", ROWS_FIRST, run="bm25")
    _csv(files / "b.csv", ROWS_SECOND, run="bm25")
    (files / "c.tsv").write_text("query_id\tdoc_id\tscore\n1\tb\t3.0\n")
    paths = [str(files / n) for n in ("a.csv", "b.csv", "c.tsv")]
    r = _eval(files, *paths, "-m", "P@1", "--names", "file")
    assert r.exit_code == 0, r.output
    assert _table(r.stdout) == [["run", "P@1"], ["a.csv", "1.0000"], ["b.csv", "0.0000"],
                                ["c.tsv", "0.0000"]]
    # by tag: a table's run column (read ahead from its head, like a TREC file's tag); runs
    # sharing it are named by their files, with a note; a table without one by its file
    r = _eval(files, *paths, "-m", "P@1")
    assert r.exit_code == 0, r.output
    assert _table(r.stdout) == [["run", "P@1"], ["a.csv", "1.0000"], ["b.csv", "0.0000"],
                                ["c.tsv", "0.0000"]]
    assert "2 runs share the tag 'bm25'" in r.stderr
    r = _eval(files, paths[0], paths[2], "-m", "P@1")
    assert _table(r.stdout) == [["run", "P@1"], ["bm25", "1.0000"], ["c.tsv", "0.0000"]]
