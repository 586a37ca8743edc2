"""The README's sequence `text index CORPUS --stopwords english --stem english` then `text
divergence ... --corpus CORPUS` tokenises once (issue 32, item 9): a divergence command given
no tokenisation option reuses the index built last for the corpus, and says so."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from unjudged.cli import main

pytest.importorskip("Stemmer")

# stemming and stop words change the model: "wing" and "wings" are one term only when stemmed,
# and "the" weighs on every model unless dropped
CORPUS = ("d1\tthe wings of the plane\n"
          "d2\tthe wing drag and the lift\n"
          "d3\tshock waves at the nose of the body\n"
          "d4\tthe heat of the boundary layer\n")
QRELS = "q1 s1 d1 1\nq1 s2 d3 1\n"
RUN = "q1 Q0 d2 1 3.0 sys\nq1 Q0 d1 2 2.0 sys\nq1 Q0 d4 3 1.0 sys\n"
MEASURES = ["-m", "ABS-NB(mu=5)@3", "-m", "DELTA-RB(mu=5)@3", "-f", "tsv"]


def _files(tmp_path):
    (tmp_path / "c.tsv").write_text(CORPUS)
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "r.run").write_text(RUN)
    return ["text", "divergence", str(tmp_path / "qrels"), str(tmp_path / "r.run"),
            "--corpus", str(tmp_path / "c.tsv")]


def _caches(folder):
    return sorted(p.name for p in folder.glob("*.unjudged-index.npz"))


@pytest.mark.parametrize("cache_dir", [False, True])
def test_divergence_reuses_the_index_text_index_built(tmp_path, cache_dir):
    where = ["--cache-dir", str(tmp_path / "cache")] if cache_dir else []
    folder = tmp_path / "cache" if cache_dir else tmp_path
    cmd = _files(tmp_path)
    built = CliRunner().invoke(main, ["text", "index", str(tmp_path / "c.tsv"), "--stopwords",
                                      "english", "--stem", "english", *where])
    assert built.exit_code == 0 and "(written)" in built.output, built.output
    assert len(_caches(folder)) == 1
    reused = CliRunner().invoke(main, cmd + MEASURES + where)
    assert reused.exit_code == 0, reused.output
    assert len(_caches(folder)) == 1  # no second index
    assert "unjudged: note: reusing the index of" in reused.stderr
    assert "built with --stopwords english --stem english" in reused.stderr
    explicit = CliRunner().invoke(main, cmd + MEASURES + where + ["--stopwords", "english",
                                                                  "--stem", "english"])
    assert reused.stdout == explicit.stdout and "reusing" not in explicit.stderr
    # the options matter: the default tokenisation gives other values, in a second index
    plain = CliRunner().invoke(main, cmd + MEASURES + where + ["--stopwords", "none"])
    assert plain.exit_code == 0 and plain.stdout != reused.stdout
    assert len(_caches(folder)) == 2
    # and is now the index built last, which the next command without options reuses
    again = CliRunner().invoke(main, cmd + MEASURES + where)
    assert again.stdout == plain.stdout and "built with the default options" in again.stderr


def test_without_an_index_the_defaults_and_no_note(tmp_path):
    cmd = _files(tmp_path)
    first = CliRunner().invoke(main, cmd + MEASURES)
    assert first.exit_code == 0 and "reusing" not in first.stderr
    assert len(_caches(tmp_path)) == 1
    explicit = CliRunner().invoke(main, cmd + MEASURES + ["--stopwords", "none", "--stem",
                                                          "none"])
    assert explicit.stdout == first.stdout and len(_caches(tmp_path)) == 1
    assert "reusing" not in CliRunner().invoke(main, cmd + MEASURES + ["--no-cache"]).stderr
