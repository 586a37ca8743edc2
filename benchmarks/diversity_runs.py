"""Generate the runs and diversity qrels for the diversity-sampling evidence (docs/
diversity-sampling.md) on Cranfield-1400 (../shared/data/cranfield-noramtboraas).

Not part of the package: it needs `pip install bm25s` (the `bench` extra). Writes into OUT:

- single/runs/*.run and single/qrels.txt: each of the 225 queries a topic with one subtopic;
- multi/runs/*.run and multi/qrels.txt: the queries shuffled (seed 0) and joined two or three
  at a time into topics whose subtopics are the original queries; a joined run interleaves its
  queries' rankings round-robin, dropping repeats.

Runs: bm25s BM25 variants (Lucene with several k1/b, Robertson, ATIRE, BM25L, BM25+; one on the
titles only) and, with
numpy on unjudged.text's index, TF-IDF cosine and query likelihood (Dirichlet, Jelinek-Mercer),
100 documents per query. Qrels: cranqrel codes 1-4 are relevant (grade 1) and -1 judged
non-relevant; Cranfield's judgments cover few non-relevant documents, so the documents the runs
put in their top 20 without a judgment are added as judged non-relevant (a depth-20 pool, as a
TREC track would have judged), which gives the sampling non-relevant documents to keep.

    python benchmarks/diversity_runs.py OUT [--data ../shared/data]
"""

from __future__ import annotations

import argparse
import re
import time
from pathlib import Path

import numpy as np

DEPTH, POOL = 100, 20


def read_queries(path: Path) -> list[str]:
    """Query texts in file order (qrels number them 1..225 in that order)."""
    parts = re.split(r"^\.I .*$", path.read_text(), flags=re.M)[1:]
    return [" ".join(p.split(".W", 1)[1].split()) for p in parts]


def read_cranqrel(path: Path) -> list[tuple[str, str, int]]:
    rows = {}
    for line in path.read_text().split("\n"):
        f = line.split()
        if len(f) >= 3:
            rows[(f[0], f[1])] = max(rows.get((f[0], f[1]), -9), 1 if int(f[2]) > 0 else 0)
    return [(q, d, g) for (q, d), g in rows.items()]


def bm25s_runs(docnos, texts, queries) -> dict[str, np.ndarray]:
    """{name: (queries, DEPTH) document rows} from bm25s variants."""
    import bm25s

    corpus = bm25s.tokenize(texts, stopwords="en", show_progress=False)
    qtok = bm25s.tokenize(queries, stopwords="en", return_ids=False, show_progress=False)
    settings = {f"bm25-lucene-k{k1}-b{b}": dict(method="lucene", k1=k1, b=b)
                for k1 in (0.6, 1.2, 2.0) for b in (0.3, 0.75, 1.0)}
    settings.update({f"bm25-{m}": dict(method=m) for m in ("robertson", "atire", "bm25l",
                                                            "bm25+")})
    out = {}
    for name, kw in settings.items():
        r = bm25s.BM25(**kw)
        r.index(corpus, show_progress=False)
        out[name], _ = r.retrieve(qtok, k=DEPTH, show_progress=False, n_threads=1)
    return out


def numpy_runs(docnos, texts, queries) -> dict[str, np.ndarray]:
    """TF-IDF cosine and query-likelihood runs on unjudged.text's index (stop words removed)."""
    from scipy import sparse

    from unjudged.text import ENGLISH_STOPWORDS, Tokeniser, build_index

    tok = Tokeniser(stopwords=ENGLISH_STOPWORDS)
    ix = build_index(docnos, texts, tok)
    terms, codes, qrow = tok.encode(queries)
    col = np.searchsorted(ix.terms, terms)[codes]
    ok = ix.terms[np.minimum(col, ix.terms.size - 1)] == terms[codes]
    q = sparse.csr_matrix((np.ones(ok.sum()), (qrow[ok], col[ok])),
                          shape=(len(queries), ix.terms.size))
    q.sum_duplicates()
    tf = ix.tf.astype(np.float64).tocsr()
    pc, lengths = ix.collection_model, ix.lengths.astype(np.float64)
    out = {}
    idf = np.log(tf.shape[0] / np.maximum(np.diff(tf.tocsc().indptr), 1))
    d = tf.copy()
    d.data = np.log1p(d.data)
    d = sparse.diags(1 / np.maximum(sparse.linalg.norm(d @ sparse.diags(idf), axis=1), 1e-12)
                     ) @ d @ sparse.diags(idf)
    out["tfidf-cosine"] = _top(np.asarray((q @ d.T).todense()))
    qlen = np.asarray(q.sum(axis=1)).ravel()
    for mu in (50, 300, 2000):
        w = tf.copy()
        w.data = np.log1p(w.data / (mu * pc[w.indices]))
        s = np.asarray((q @ w.T).todense()) + qlen[:, None] * np.log(mu / (lengths + mu))
        out[f"ql-dirichlet-mu{mu}"] = _top(s)
    for lam in (0.1, 0.7):
        w = sparse.diags(1 / np.maximum(lengths, 1)) @ tf
        w.data = np.log1p((1 - lam) * w.data / (lam * pc[w.indices]))
        out[f"ql-jm-lambda{lam}"] = _top(np.asarray((q @ w.T).todense()))
    return out


def _top(scores: np.ndarray) -> np.ndarray:
    # stable on -score: ties go to the earlier document, the same in every run
    return np.argsort(-scores, axis=1, kind="stable")[:, :DEPTH]


def interleave(rankings: list[np.ndarray]) -> np.ndarray:
    """Round-robin merge of rankings, keeping each document's first occurrence."""
    merged = np.stack(rankings, axis=1).ravel()
    _, first = np.unique(merged, return_index=True)
    return merged[np.sort(first)][:DEPTH]


def write_run(path: Path, name: str, topics: list[str], ranked: list[np.ndarray], docnos):
    lines = [f"{t} Q0 {docnos[d]} {r + 1} {len(row) - r} {name}"
             for t, row in zip(topics, ranked, strict=True) for r, d in enumerate(row)]
    path.write_text("\n".join(lines) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--data", type=Path, default=Path("../shared/data"))
    args = ap.parse_args()
    from unjudged.text import read_docs

    t0 = time.perf_counter()
    base = args.data / "cranfield-noramtboraas"
    docnos, texts = read_docs(base / "cran.all.1400", "smart")
    docnos = np.asarray(docnos, dtype=object)
    queries = read_queries(base / "cran.qry")
    qids = [str(i + 1) for i in range(len(queries))]
    runs = {**bm25s_runs(docnos, texts, queries), **numpy_runs(docnos, texts, queries)}
    # weaker systems widen the spread: BM25 on the titles alone
    _, titles = read_docs(base / "cran.all.1400", "smart", fields=["T"])
    runs["bm25-titles"] = bm25s_runs(docnos, titles, queries)["bm25-robertson"]
    judged = read_cranqrel(base / "cranqrel")
    known = {(q, d) for q, d, _ in judged}
    pool = {(qids[i], docnos[d]) for r in runs.values() for i, row in enumerate(r)
            for d in row[:POOL]}
    judged += [(q, d, 0) for q, d in sorted(pool - known)]
    relevant = {q for q, _, g in judged if g > 0}
    # joined topics: the queries with a relevant document, shuffled, in twos and threes
    order = [qids[i] for i in np.random.default_rng(0).permutation(len(qids))
             if qids[i] in relevant]
    groups, i = [], 0
    while i < len(order):
        size = 2 + len(groups) % 2
        groups.append(order[i:i + size])
        i += size
    groups = [g for g in groups if len(g) > 1]
    for kind in ("single", "multi"):
        (args.out / kind / "runs").mkdir(parents=True, exist_ok=True)
    (args.out / "single" / "qrels.txt").write_text(
        "".join(f"{q} 1 {d} {g}\n" for q, d, g in judged if q in relevant))
    member = {q: f"m{k + 1}" for k, g in enumerate(groups) for q in g}
    (args.out / "multi" / "qrels.txt").write_text(
        "".join(f"{member[q]} {q} {d} {g}\n" for q, d, g in judged if q in member))
    row_of = {q: i for i, q in enumerate(qids)}
    for name, ranked in runs.items():
        keep = [row_of[q] for q in qids if q in relevant]
        write_run(args.out / "single" / "runs" / f"{name}.run", name,
                  [qids[i] for i in keep], [ranked[i] for i in keep], docnos)
        write_run(args.out / "multi" / "runs" / f"{name}.run", name,
                  [f"m{k + 1}" for k in range(len(groups))],
                  [interleave([ranked[row_of[q]] for q in g]) for g in groups], docnos)
    print(f"{len(runs)} runs, {len(relevant)} single topics, {len(groups)} joined topics, "
          f"{time.perf_counter() - t0:.1f} s -> {args.out}")


if __name__ == "__main__":
    main()
