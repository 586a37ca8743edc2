"""Document text: readers, tokenisation, the sparse index and its on-disk cache."""

from __future__ import annotations

import doctest
import gzip
import os
import time
from collections import namedtuple

import numpy as np
import pytest

from shared_data import DATA, need
from unjudged.errors import FormatError, InputError
from unjudged.text import (
    ENGLISH_STOPWORDS,
    Tokeniser,
    build_index,
    corpus_index,
    read_docs,
    read_ir_datasets,
    read_stopwords,
    readers,
    tokenise,
)
from unjudged.text import index as index_mod


@pytest.mark.parametrize("module", [readers, tokenise, index_mod])
def test_doctests(module):
    assert doctest.testmod(module).failed == 0


TREC = b"""<DOC>
<DOCNO> FT911-1 </DOCNO>
<HEADLINE>Wind tunnels</HEADLINE>
<TEXT>Lift and drag.</TEXT>
</DOC>
<DOC><DOCNO>FT911-2</DOCNO><TEXT>Shock waves</TEXT></DOC>
"""


def test_trectext(tmp_path):
    p = tmp_path / "c.trec"
    p.write_bytes(TREC)
    docnos, texts = read_docs(p)
    assert docnos == ["FT911-1", "FT911-2"]
    assert Tokeniser().tokens(texts[0]) == ["wind", "tunnels", "lift", "and", "drag"]
    assert Tokeniser().tokens(texts[1]) == ["shock", "waves"]


def test_jsonl_tsv_npl_smart_and_gzip(tmp_path):
    (tmp_path / "c.jsonl").write_text('{"docno": "a", "text": "x y"}\n\n{"doc_id": 7, '
                                      '"text": "z"}\n')
    assert read_docs(tmp_path / "c.jsonl") == (["a", "7"], ["x y", "z"])
    (tmp_path / "c.tsv.gz").write_bytes(gzip.compress(b"a\tx y\nb\tz\n"))
    assert read_docs(tmp_path / "c.tsv.gz") == (["a", "b"], ["x y", "z"])
    (tmp_path / "npl").write_text("1\nalpha beta\ngamma\n   /\n2\ndelta\n   /\n")
    assert read_docs(tmp_path / "npl") == (["1", "2"], ["alpha beta\ngamma\n", "delta\n"])
    (tmp_path / "smart").write_text(".I 1\n.T\ntitle one\n.A\nauthor\n.W\nbody one\n"
                                    ".I 2\n.T\ntitle two\n")
    docnos, texts = read_docs(tmp_path / "smart")
    assert docnos == ["1", "2"]
    assert [Tokeniser().tokens(t) for t in texts] == [["title", "one", "body", "one"],
                                                     ["title", "two"]]
    _, texts = read_docs(tmp_path / "smart", fields=["A"])
    assert Tokeniser().tokens(texts[0]) == ["author"]


@pytest.mark.parametrize("name, content, fmt, line, expected", [
    ("bad.jsonl", '{"docno": "a", "text": "x"}\n{"text": "y"}\n', None, 2, '{"docno"'),
    ("bad.tsv", "a\tx\nno tab here\n", "tsv", 2, "docno<TAB>text"),
    ("bad.trec", "<DOC><TEXT>x</TEXT></DOC>\n", None, 1, "<DOCNO>"),
    ("bad.npl", "1\nx\n   /\n2\ny\n", "npl", 4, "`/` line"),
    ("bad.smart", ".I 1\nstray\n.T\nx\n", None, 2, "field marker"),
    ("bad2.npl", "1\nx\n   /\n\nstray words\n2\ny\n   /\n", "npl", 5, "number on its own"),
])
def test_format_errors_name_file_and_line(tmp_path, name, content, fmt, line, expected):
    p = tmp_path / name
    p.write_text(content)
    with pytest.raises(FormatError) as err:
        read_docs(p, fmt)
    assert err.value.line == line and expected in err.value.message
    assert str(err.value).startswith(f"{p}:{line}: ")


def test_unknown_format_and_duplicates(tmp_path):
    (tmp_path / "x").write_text("just words\n")
    with pytest.raises(InputError, match="corpus format"):
        read_docs(tmp_path / "x")
    (tmp_path / "d.tsv").write_text("a\tx\na\ty\n")
    with pytest.raises(InputError, match="'a' occurs more than once"):
        read_docs(tmp_path / "d.tsv")


def test_ir_datasets_docs_iter():
    Doc = namedtuple("Doc", "doc_id title body")

    class Fake:
        def docs_iter(self):
            return iter([Doc("d1", "Wing", "lift"), Doc("d2", "", "drag")])

    assert read_ir_datasets(Fake()) == (["d1", "d2"], ["Wing lift", " drag"])


def test_tokeniser_stopwords_and_separator_inside_text():
    tok = Tokeniser(stopwords=frozenset({"of", "the"}))
    assert tok.tokens("The Theory of FLOW-3") == ["theory", "flow", "3"]
    terms, codes, doc = Tokeniser().encode(["a\x1eb", "", "c"])
    assert terms[codes].tolist() == ["a", "b", "c"] and doc.tolist() == [0, 0, 2]
    assert {"the", "of", "and"} <= ENGLISH_STOPWORDS
    assert Tokeniser().key != tok.key


def test_stemming():
    pytest.importorskip("Stemmer", reason="stemming needs the `text` extra (PyStemmer)")
    tok = Tokeniser(stopwords=ENGLISH_STOPWORDS, stem="english")
    assert tok.tokens("The flows were flowing over the wings") == ["flow", "flow", "wing"]
    with pytest.raises(InputError, match="no stemmer for 'klingon'"):
        Tokeniser(stem="klingon").tokens("x")


def test_index_counts_and_lengths():
    ix = build_index(["d1", "d2", "d3"], ["b a b", "", "c a"])
    assert ix.terms.tolist() == ["a", "b", "c"]
    assert ix.tf.toarray().tolist() == [[1, 2, 0], [0, 0, 0], [1, 0, 1]]
    assert ix.lengths.tolist() == [3, 0, 2]
    assert ix.collection_model.tolist() == [0.4, 0.4, 0.2]
    assert ix.rows(["d3", "zz", "d1"]).tolist() == [2, -1, 0]


def test_cache_reused_and_invalidated(tmp_path):
    p = tmp_path / "c.tsv"
    p.write_text("d1\twing lift\nd2\tlift drag\n")
    first = corpus_index(p)
    assert not first.reused and first.cache.parent == tmp_path
    assert first.cache.name.endswith(".unjudged-index.npz")
    again = corpus_index(p)
    assert again.reused and (again.tf != first.tf).nnz == 0
    assert again.terms.tolist() == first.terms.tolist()
    other = corpus_index(p, tokeniser=Tokeniser(stopwords=frozenset({"lift"})))
    assert not other.reused and other.cache != first.cache  # options have their own file
    p.write_text("d1\twing lift\nd2\tlift drag\nd3\tnew\n")
    os.utime(p, ns=(time.time_ns(), time.time_ns() + 10**9))
    changed = corpus_index(p)
    assert not changed.reused and changed.tf.shape == (3, 4)
    assert corpus_index(p, cache=False).cache is None


def test_cache_trusts_the_corpus_bytes_not_size_and_mtime(tmp_path, monkeypatch):
    """An edit that keeps the size and the modification time is seen (the cache stores the
    corpus's sha256); a cache whose arrays were altered is rebuilt, with a note."""
    p = tmp_path / "c.tsv"
    p.write_text("d1\twing lift\nd2\tlift drag\n")
    first = corpus_index(p)
    st = p.stat()
    p.write_text("d1\twing LIFT\nd2\tdrag drag\n")  # same size
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))
    edited = corpus_index(p)
    assert not edited.reused and edited.tf.toarray().tolist() == [[0, 1, 1], [2, 0, 0]]
    # tamper with the arrays, keeping the key (the corpus's sha256) and the stored digest
    with np.load(first.cache) as z:
        saved = {k: z[k] for k in z.files}
    saved["data"] = saved["data"] * 7
    with open(first.cache, "wb") as fh:
        np.savez(fh, **saved)
    note = []
    monkeypatch.setattr(index_mod, "note", note.append)
    again = corpus_index(p)
    assert not again.reused and again.tf.toarray().tolist() == [[0, 1, 1], [2, 0, 0]]
    assert note == [f"the index cache {first.cache} is damaged (ValueError: its arrays do "
                    "not match their sha256); rebuilding it"]
    assert corpus_index(p).reused


def test_cache_never_follows_a_planted_symlink(tmp_path, monkeypatch):
    """Another user's symlink at the cache's name (in a shared corpus folder) is neither read
    nor written through: the planted index is not loaded, the link's target is unchanged, and
    the cache goes to the user's cache folder instead."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user"))
    shared, elsewhere = tmp_path / "shared", tmp_path / "elsewhere"
    shared.mkdir()
    elsewhere.mkdir()
    p = shared / "c.tsv"
    p.write_text("d1\twing lift\n")
    name = corpus_index(p).cache.name
    (shared / name).unlink()
    # a planted index: a real cache of this very corpus's bytes but other counts
    decoy = elsewhere / "c.tsv"
    decoy.write_text("d1\twing lift\n")
    planted = corpus_index(decoy).cache
    with np.load(planted) as z:
        saved = {k: z[k] for k in z.files}
    saved["data"] = saved["data"] * 9
    saved["digest"] = np.array(index_mod._digest(saved))
    with open(planted, "wb") as fh:
        np.savez(fh, **saved)
    before = planted.read_bytes()
    (shared / name).symlink_to(planted)
    notes = []
    monkeypatch.setattr(index_mod, "note", notes.append)
    ix = corpus_index(p)
    assert not ix.reused and ix.tf.toarray().tolist() == [[1, 1]]
    assert planted.read_bytes() == before and (shared / name).is_symlink()
    assert ix.cache.parent == tmp_path / "user" / "unjudged"
    assert notes == [f"the index cache {shared / name} is a symbolic link; not used",
                     f"the index cache {shared / name} is a symbolic link; not replaced"]
    # a dangling symlink: not created through either
    (shared / name).unlink()
    (shared / name).symlink_to(tmp_path / "created-by-us")
    ix.cache.unlink()
    again = corpus_index(p)
    assert not again.reused and again.cache == ix.cache
    assert not (tmp_path / "created-by-us").exists()


def test_cranfield_index_and_cache(tmp_path):
    """Real collection: 1400 documents; the second run loads the cache, no re-tokenising."""
    corpus = need(DATA / "cranfield-noramtboraas" / "cran.all.1400")
    t0 = time.perf_counter()
    ix = corpus_index(corpus, cache_dir=tmp_path)
    built = time.perf_counter() - t0
    assert ix.tf.shape[0] == 1400 and ix.docnos[0] == "1" and ix.docnos[-1] == "1400"
    assert not ix.reused and ix.cache.parent == tmp_path
    t0 = time.perf_counter()
    again = corpus_index(corpus, cache_dir=tmp_path)
    loaded = time.perf_counter() - t0
    assert again.reused and (again.tf != ix.tf).nnz == 0
    # document 1's title and abstract: "experimental investigation of the aerodynamics..."
    row = ix.tf[0].toarray().ravel()
    col = {t: i for i, t in enumerate(ix.terms.tolist())}
    assert row[col["slipstream"]] == 6 and row[col["wing"]] == 4
    print(f"cranfield: index built in {built:.3f} s, loaded from cache in {loaded:.4f} s")


@pytest.mark.parametrize("path, n", [("cacm-atcherepanov/cacm.all", 3204),
                                     ("cisi-shakiba-alipour/CISI.ALL", 1460),
                                     ("npl-vaswani-stefreschke/npl/doc-text", 11426)])
def test_classic_collections(path, n):
    docnos, texts = read_docs(need(DATA / path))
    assert len(docnos) == n and len(texts) == n and all(isinstance(t, str) for t in texts[:5])


def test_cacm_stopword_file():
    words = read_stopwords(need(DATA / "cacm-atcherepanov" / "common_words"))
    assert {"the", "of"} <= words and len(words) > 400


def test_cli_index_then_cached(tmp_path):
    from click.testing import CliRunner

    from unjudged.cli import main

    p = tmp_path / "c.tsv"
    p.write_text("d1\tThe wing and the lift\nd2\tlift drag lift\n")
    args = ["text", "index", str(p), "--stopwords", "english", "--top", "2"]
    first = CliRunner().invoke(main, args)
    assert first.exit_code == 0, first.output
    lines = dict(x.split(None, 1) for x in first.output.splitlines() if " " in x)
    assert lines["documents"] == "2" and lines["terms"] == "3" and lines["tokens"] == "5"
    assert "(written)" in first.output and "top terms   lift:3 drag:1" in first.output
    assert "(loaded)" in CliRunner().invoke(main, args).output


def test_cli_divergence_and_errors(tmp_path):
    from click.testing import CliRunner

    from unjudged.cli import main

    (tmp_path / "c.tsv").write_text("d1\ta a\nd2\tb\nd3\tc c c c c\n")
    (tmp_path / "qrels").write_text("q1 s1 d1 1\nq1 s2 d3 0\n")
    (tmp_path / "r.run").write_text("q1 Q0 d1 1 2.0 sys\nq1 Q0 d2 2 1.0 sys\n")
    base = ["text", "divergence", str(tmp_path / "qrels"), str(tmp_path / "r.run"), "--corpus",
            str(tmp_path / "c.tsv"), "--cache-dir", str(tmp_path / "cache")]
    out = CliRunner().invoke(main, base + ["-m", "ABS-NB(mu=2)@2", "-m", "DELTA-RB(mu=2)@2",
                                           "-q", "-f", "tsv"])
    assert out.exit_code == 0, out.output
    # the hand-worked toy of test_divergence: g = (1, 0.6081430)
    assert out.output.splitlines() == ["run\ttopic\tABS-NB(mu=2)@2\tDELTA-RB(mu=2)@2",
                                       "sys\tq1\t1.608143602757029\t0.19999999999999996",
                                       "sys\tall\t1.608143602757029\t0.19999999999999996"]
    bad = CliRunner().invoke(main, base + ["-m", "ABS@2"])
    assert bad.exit_code == 2 and "unknown divergence measure(s) 'ABS@2'" in bad.output
    (tmp_path / "bad.tsv").write_text("d1 no tab\n")
    bad = CliRunner().invoke(main, base[:4] + ["--corpus", str(tmp_path / "bad.tsv"),
                                               "--corpus-format", "tsv", "--no-cache"])
    assert bad.exit_code == 2 and f"{tmp_path / 'bad.tsv'}:1: expected `docno<TAB>text`" \
        in bad.output


def test_cache_falls_back_to_user_cache(tmp_path, monkeypatch):
    """A corpus folder that cannot be written: the cache goes to $XDG_CACHE_HOME/unjudged and
    is found there the next time."""
    corpus_dir, user = tmp_path / "ro", tmp_path / "user"
    corpus_dir.mkdir()
    p = corpus_dir / "c.tsv"
    p.write_text("d1\twing lift\n")
    monkeypatch.setenv("XDG_CACHE_HOME", str(user))
    from unjudged.errors import OutputError
    from unjudged.io import atomic

    real = atomic.open_output

    def refuse(path, **kw):
        if os.path.samefile(os.path.dirname(path), corpus_dir):
            raise OutputError(str(path), "read-only file system")
        return real(path, **kw)

    monkeypatch.setattr(atomic, "open_output", refuse)
    first = corpus_index(p)
    assert first.cache.parent == user / "unjudged" and list(corpus_dir.iterdir()) == [p]
    assert corpus_index(p).reused
