"""Read TREC run files (`qid Q0 docno rank score tag`), DataFrames and dicts into Runs."""

from __future__ import annotations

import os
import stat
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np
import pyarrow as pa

from unjudged.data._strings import (
    duplicated_in_groups,
    fingerprints,
    numpy_of,
    sorted_vocabulary,
    topic_blocks,
)
from unjudged.data.qrels import Qrels
from unjudged.data.run import Run, ranking_order
from unjudged.errors import FormatError, InvalidOptionError, shown
from unjudged.io import irds
from unjudged.io._columns import HEAD_BYTES, TOPIC_TYPE, load_table
from unjudged.io._csv import read_frame
from unjudged.io._frames import as_pandas
from unjudged.io._source import (
    data_lines,
    display_name,
    first_data_line,
    is_compressed,
    readable,
)
from unjudged.io._validate import (
    RANKED_RUN,
    RUN,
    SCORE_TEXT,
    field_text,
    first_bad_float,
    first_bad_int,
    line_of_row,
    row_error,
    score_number,
)
from unjudged.io.irds import dataset_name, is_irds_source
from unjudged.io.paths import (  # noqa: F401
    NameMode,
    Notify,
    RunNamer,
    expand_paths,
    frame_tag,
    not_trec,
    tabular_kind,
)
from unjudged.io.records import RUN_FIELDS, is_records, nested_mapping, record_columns
from unjudged.policies import TIE_BREAKS, TieBreak

RUN_LAYOUT = "qid Q0 docno rank score tag"
#: run files read at once by iter_runs when some are compressed (else one at a time: see
#: _inflated): each waiting run holds its columns, and 4 cost 17 MB more peak than 2 on 10 runs
#: of 250k lines at the same speed (143 compressed runs: 14 MB)
READERS = 2
_NAMES = ["qid", "q0", "docno", "rank", "score", "tag"]

def read_run(source: Any, *, name: str | None = None, ties: TieBreak = "trec_eval",
             qrels: Qrels | None = None) -> Run:
    """Read one run from a path ('-' = stdin, .gz/.bz2/.xz ok), a DataFrame or a dict.

    A DataFrame needs columns query_id (or qid), doc_id (or docno), score and optionally rank and
    run/tag; a dict is {qid: {docno: score}}. Also: an iterable of records (ir_measures'
    `ScoredDoc`, namedtuples, objects or dicts with those fields, tuples (qid, docno, score)),
    an ir_datasets dataset (anything with `scoreddocs_iter()`) or `irds:<dataset id>`, ranx's
    `Run` (anything whose `to_dict()` gives {qid: {docno: score}}; named by its `name`), and
    files with a header in ir_measures' or PyTerrier's column names: CSV, TSV, JSONL, Parquet
    (see unjudged.io._csv.table_format).

    Example:
        >>> run = read_run({"q1": {"d1": 2.0, "d2": 1.0}}, name="mine")
        >>> run.topics, run.docno.to_pylist()
        (['q1'], ['d1', 'd2'])
    """
    _check_ties(ties)
    if isinstance(source, Run):
        return source
    if isinstance(source, dict):
        return _from_dict(source, name or "run", ties, qrels)
    frame = as_pandas(source)
    if frame is not None:
        return _from_frame(frame, name, ties, qrels)
    ranx = nested_mapping(source)  # ranx's Run, or anything with a .to_dict() like it
    if ranx is not None:
        return _from_dict(ranx, name or getattr(source, "name", None) or "run", ties, qrels)
    if is_irds_source(source):
        where = dataset_name(source)
        return _from_records(irds.records(source, "scoreddocs"), name or where, where, ties,
                             qrels)
    if is_records(source):
        return _from_records(source, name or "run", "<records>", ties, qrels)
    source = readable(source, "run", "a Run, a DataFrame, a dict {qid: {docno: score}}, "
                      "records or irds:<id>")
    kind = tabular_kind(source)
    if kind is not None:
        path = display_name(source)
        return _from_frame(read_frame(source, kind, ("rank",)), name, ties, qrels,
                           source=path, default=os.path.basename(path))
    include = ["qid", "docno", "score"] + (["rank"] if ties == "rank" else [])
    if qrels is not None:
        qrels.prepare_lookup()
    try:
        table, text, head = load_table(source, _NAMES, _rules(ties), include=include,
                                       extra_ok=True,
                                       types={"score": pa.float64(), "qid": TOPIC_TYPE})
    except FormatError as exc:
        raise not_trec(exc, source, RUN_LAYOUT) from None
    rank = table["rank"] if ties == "rank" else None
    name = name or _first_tag(head, text)
    blocks = topic_blocks(table["qid"])
    docno, score = table["docno"], table["score"]
    del table  # the topic strings are not needed past this point
    return build_run(None, docno, score, rank, name=name, source=display_name(source),
                     ties=ties, data=text, qrels=qrels, blocks=blocks)


def _first_tag(head: bytes, text: Any = None) -> str:
    """The run tag: the sixth field of the first data line.

    `head` is the start of the file; only its complete lines count (a tag cut in two would be
    another name). When they hold no data line, `text` (the file, or a function reading it)."""
    partial = len(head) >= HEAD_BYTES  # else the head is the whole file
    fields = first_data_line(head, complete=not partial)[1]
    tag = fields[5] if len(fields) >= 6 else None
    if tag is None and partial and text is not None:
        data = text() if callable(text) else text
        tag = next((f[5] for _, f in data_lines(data) if len(f) >= 6), None)
    return "run" if tag is None else tag.decode("utf-8", "replace")


def read_runs(sources: Iterable[Any], *, ties: TieBreak = "trec_eval",
              qrels: Qrels | None = None, names: NameMode = "tag",
              notify: Notify | None = None) -> list[Run]:
    """Read several runs; directories and glob patterns expand to the run files they contain.

    Every run gets a distinct name: its tag, or its file name when tags collide or
    `names="file"` (see unjudged.io.paths). Notes (files skipped, runs renamed) go to
    `notify`, by default as warnings.
    """
    return list(iter_runs(sources, ties=ties, qrels=qrels, names=names, notify=notify))


def _check_ties(ties: Any) -> None:
    if ties not in TIE_BREAKS:
        raise InvalidOptionError(f"ties: expected one of {', '.join(TIE_BREAKS)}, got {ties!r}")


def iter_runs(sources: Iterable[Any], *, ties: TieBreak = "trec_eval",
              qrels: Qrels | None = None, names: NameMode = "tag",
              notify: Notify | None = None) -> Iterator[Run]:
    """Read runs one at a time, so that a long list never has to fit in memory at once."""
    _check_ties(ties)
    if isinstance(sources, (str, bytes)) or not isinstance(sources, Iterable):
        raise InvalidOptionError(f"runs: expected a list of paths, Runs, DataFrames, dicts "
                                 f"or records, got {type(sources).__name__} {shown(sources)}")
    paths = expand_paths(sources, notify)
    namer = RunNamer(paths, names, notify)
    if qrels is not None:
        qrels.prepare_lookup()  # built once, before reader threads share it

    def read(i: int) -> Run:
        return read_run(paths[i], name=namer.names[i], ties=ties, qrels=qrels)

    ahead = READERS if any(_inflated(p) for p in paths) else 1
    # one run at a time, held by nothing here while the next is read: enumerate (or zip)
    # keeps its last (i, run) tuple until its next item exists, and a loop variable would
    # hold the run too (10 runs of 250k lines: a run's columns, 6-7 MB more at peak)
    runs = _read_ahead(read, len(paths), ahead)  # yields exactly one run per path
    for i in range(len(paths)):
        yield namer.settle(i, next(runs))


def _inflated(source: Any) -> bool:
    """Whether reading `source` is worth overlapping with the work on the run before: a
    compressed file (inflating is most of its reading), or a pipe or device (it may wait).
    Plain files are read one at a time: reading ahead held a second run's columns and parse
    buffers (10 runs of 250k lines: 146 -> 116 MB peak) for no CPU saved."""
    if not isinstance(source, (str, os.PathLike)):
        return False  # Runs, frames, dicts: already in memory, or read under the GIL
    if source == "-":
        return True
    try:
        if not stat.S_ISREG(os.stat(source).st_mode):
            return True
        with open(source, "rb") as fh:
            return is_compressed(fh.read(8))
    except OSError:
        return False  # read_run names the problem


def _read_ahead(read: Callable[[int], Run], n: int, threads: int = READERS) -> Iterator[Run]:
    """read(0), ..., read(n - 1) in order, with up to `threads` files read at once: inflating
    and parsing release the GIL (143 compressed TREC-COVID runs: 3.9 s alone, 2.0 s with 4
    threads on 2 cores). At most `threads` runs wait in memory; the first failure in file
    order is the one raised, as when reading one file at a time."""
    if n < 2 or threads < 2:
        yield from (read(i) for i in range(n))
        return
    from concurrent.futures import ThreadPoolExecutor

    pool = ThreadPoolExecutor(max_workers=threads)
    pending = deque(pool.submit(read, i) for i in range(min(n, threads)))
    following, finished = len(pending), False
    try:
        while pending:
            run = pending.popleft().result()
            if following < n:
                pending.append(pool.submit(read, following))
                following += 1
            yield run
            del run  # not kept alive while the next run is read
        finished = True
    finally:
        for future in pending:
            future.cancel()
        # after an error, Ctrl-C or a signal a reader still blocked (a FIFO nobody writes to)
        # is left behind rather than waited for: it would hold up the stop for ever
        pool.shutdown(wait=finished, cancel_futures=True)


def build_run(qid, docno, score, rank=None, *, name: str, source: str,
              ties: TieBreak = "trec_eval", data: Any = None, qrels: Qrels | None = None,
              blocks: tuple | None = None) -> Run:
    """Validate columns (Arrow arrays) and put them in ranking order.

    `data` is the file's text, or a function returning it, used only to name a bad line. With
    `qrels`, the documents' codes in its vocabulary are looked up while the run is sorted.
    `blocks` may give topic_blocks(qid) instead of `qid`, so a reader can free the topic
    strings first.
    """
    file_score, key = _score_key(score, ties, source, data)
    # A second thread looks the rows up in the qrels while this one sorts (numpy and Arrow
    # release the GIL): by (topic, document) pair where the qrels' pair index serves (it needs
    # the rows' topics, interned first; data/_pairs.py), else by document in the vocabulary.
    # The duplicate check below needs fingerprints: the worker computes them first when its
    # lookup uses them too, else this thread does.
    index = qrels.pair_index() if qrels is not None else None
    hashed = qrels is not None and index is None and qrels.doc_index().by_hash(len(docno))
    with _helper(len(docno)) as pool:
        if index is None:
            found = pool.submit(_prints_and_codes, docno, qrels, not hashed)
        topics, tcode, starts, block_codes = blocks if blocks is not None else topic_blocks(qid)
        del qid, blocks
        if index is not None:
            assert qrels is not None
            found = pool.submit(_prints_and_pairs, docno, index, tcode,
                                qrels.topic_codes(topics))
        ranks = _ranks(rank, source, data) if ties == "rank" else None
        order = ranking_order(tcode, key, docno, ranks, ties, blocks=(starts, block_codes))
        del key
        counts = np.bincount(tcode, minlength=len(topics))
        offsets = np.zeros(len(topics) + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        run = Run(name=name, topics=topics, offsets=offsets, file_docno=docno,
                  file_score=file_score, order=order, source=source)
        mine = fingerprints(docno) if hashed else None
        fp, looked = found.result()
        fp = mine if fp is None else fp
        assert fp is not None  # the worker computed them, or this thread did
        if looked is not None and index is not None:
            run.keep_pairs(qrels, looked)
        elif looked is not None:
            run.doc_codes(qrels, looked)
    # a document twice in one topic: checked where each topic's rows are together, which for
    # the usual file is already the file's own order
    if starts.size == len(topics):
        dup = duplicated_in_groups(np.append(starts, len(tcode)), docno, fp, own=True)
        if dup is not None:
            dup = (int(block_codes[dup[0]]), dup[1])
    else:
        dup = duplicated_in_groups(offsets, lambda: run.docno,
                                   fp if order is None else fp[order], own=True)
    if dup is not None:
        raise _duplicate_error(dup, topics, (tcode, docno), source, data, _rules(ties))
    return run


#: Runs shorter than this are looked up in the calling thread: starting a thread costs more
#: than the overlap gains (trec_eval's 1,500-line test run).
_THREAD_ROWS = 1 << 16


def _helper(rows: int):
    """A one-thread pool for build_run's lookup, or for short runs a stand-in that runs the
    work at once in this thread (the same calls, so the same result)."""
    if rows < _THREAD_ROWS:
        return _Inline()
    from concurrent.futures import ThreadPoolExecutor

    return ThreadPoolExecutor(max_workers=1)


class _Inline:
    """The part of a ThreadPoolExecutor that build_run uses, running the work on submit."""

    def __enter__(self) -> _Inline:
        return self

    def __exit__(self, *exc) -> None:
        return None

    def submit(self, fn, *args) -> _Done:
        return _Done(fn(*args))


class _Done:
    def __init__(self, value):
        self.value = value

    def result(self):
        return self.value


def _prints_and_codes(docno, qrels: Qrels | None, prints: bool
                      ) -> tuple[np.ndarray | None, np.ndarray | None]:
    fp = fingerprints(docno) if prints else None
    return fp, (qrels.doc_codes(docno, fp) if qrels is not None else None)


def _prints_and_pairs(docno, index, tcode: np.ndarray, topic_map: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray]:
    fp = fingerprints(docno)
    return fp, index.find(tcode, topic_map, docno, fp)


def _rules(ties: TieBreak):
    """The rules of a run's lines: with ties="rank" the rank column must be an integer too."""
    return RANKED_RUN if ties == "rank" else RUN


def _duplicate_error(dup, topics, original, source, data, rules) -> FormatError:
    """Name the line of the second occurrence in file order (error path only)."""
    code, value = dup
    tcode, docno = original
    import pyarrow.compute as pc  # error path

    rows = np.flatnonzero(numpy_of(pc.equal(docno, value)) & (tcode == code))
    return row_error(source, data, int(rows[1]),
                     f"docno {value!r} appears twice in topic {topics[code]!r}; "
                     "each document may be ranked once per topic", rules)


def _score_key(column, ties: TieBreak, path: str, data: Any) -> tuple[Any, np.ndarray]:
    """(scores as read, the key to rank on); scores must be finite numbers.

    trec_eval 10.0 holds scores as C doubles, trec_eval 9 as C floats: with ties="trec_eval9"
    scores equal in single precision tie (and are then ordered by docno), so ranking on float32
    keys reproduces trec_eval 9's rankings exactly; every other policy ranks on the doubles.
    """
    if not (pa.types.is_floating(column.type) or pa.types.is_integer(column.type)):
        import pyarrow.compute as pc  # scores as text (a table's cells) or not converted

        try:
            # Arrow's cast alone would take what a TREC score is not (" 1", "Infinity")
            if not pc.all(pc.match_substring_regex(column, SCORE_TEXT)).as_py():
                raise pa.ArrowInvalid("not a number")
            column = pc.cast(column, pa.float64())
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            row, msg = first_bad_float(column.to_pylist())
            raise row_error(path, data, row, msg + ", expected a number in column 5",
                            _rules(ties)) from None
    kind = np.float32 if ties == "trec_eval9" else np.float64
    values = numpy_of(column)  # one copy of the chunks (none for one chunk)
    for lo in range(0, values.size, _STEP):  # slices: the check's temporaries stay small
        part = values[lo : lo + _STEP]
        if not np.isfinite(part).all():
            row = lo + int(np.flatnonzero(~np.isfinite(part))[0])
            line = line_of_row(data, row)
            text = field_text(data, line, 4) if data is not None else str(values[row])
            raise row_error(path, data, row, f"score {text!r} is not a finite number",
                            _rules(ties))
    if values.dtype == kind:
        key = values
    else:
        with np.errstate(over="ignore"):  # beyond float's range: inf, as trec_eval's C cast
            key = values.astype(kind)
    if column.type != pa.float64():
        return numpy_of(column).astype(np.float64), key
    return column, key


#: rows a slice of the score check (its temporaries stay in cache)
_STEP = 1 << 16


def _ranks(column, path: str, data: Any) -> np.ndarray:
    """The rank column as integers by the file rules, one check per distinct text (Arrow's
    cast would read "0x10" as 16 and refuse "+1")."""
    if pa.types.is_integer(column.type):
        return numpy_of(column).astype(np.int64)
    values, codes = sorted_vocabulary(column)
    texts: list[Any] = values.to_pylist()  # strings (a null is refused below)
    problems = [first_bad_int([t], "rank")[1] for t in texts]
    bad = np.flatnonzero(np.array([bool(p) for p in problems])[codes])
    if bad.size:
        row = int(bad[0])
        raise row_error(path, data, row, problems[codes[row]] +
                        ", expected an integer rank in column 4", RANKED_RUN)
    return np.array([int(t) for t in texts], dtype=np.int64)[codes]


def _is_dataframe(obj: Any) -> bool:
    return type(obj).__name__ == "DataFrame" and hasattr(obj, "columns")


def _pick(frame, names: tuple[str, ...], what: str, source: str = "<DataFrame>") -> str:
    for n in names:
        if n in frame.columns:
            return n
    raise FormatError(source, None, f"no {what} column (expected one of {', '.join(names)}; "
                      f"columns: {', '.join(map(str, frame.columns))})")


def _from_frame(frame, name: str | None, ties: TieBreak, qrels: Qrels | None,
                source: str = "<DataFrame>", default: str = "run") -> Run:
    from unjudged.io._frames import id_column, score_column

    q = _pick(frame, ("query_id", "qid", "topic"), "query id", source)
    d = _pick(frame, ("doc_id", "docno", "doc"), "document id", source)
    s = _pick(frame, ("score",), "score", source)
    rank = frame["rank"] if "rank" in frame.columns else None
    tag = name if name is not None else frame_tag(frame)
    missing = np.flatnonzero(frame[s].isna().to_numpy())
    if missing.size:
        raise FormatError(source, None, f"missing score in row {int(missing[0])} "
                          f"(column {s})")
    qid, docno = id_column(frame[q], "query id", source), id_column(frame[d], "document id",
                                                                    source)
    return build_run(qid, docno, score_column(frame[s], source),
                     None if rank is None else pa.array(rank.astype(str)),
                     name=tag or default, source=source, ties=ties, qrels=qrels)


def _from_records(records: Any, name: str, source: str, ties: TieBreak,
                  qrels: Qrels | None) -> Run:
    cols = record_columns(records, RUN_FIELDS, source)
    scores = [score_number(v, source) for v in cols["score"]]
    return build_run(pa.array([str(v) for v in cols["qid"]], pa.string()),
                     pa.array([str(v) for v in cols["docno"]], pa.string()),
                     pa.array(scores, pa.float64()), None, name=name, source=source,
                     ties=ties, qrels=qrels)


def _from_dict(mapping: dict, name: str, ties: TieBreak, qrels: Qrels | None) -> Run:
    qids, docs, scores = [], [], []
    for q, ranking in mapping.items():
        for doc, s in ranking.items():
            qids.append(str(q))
            docs.append(str(doc))
            scores.append(score_number(s, "<dict>"))
    return build_run(pa.array(qids, pa.string()), pa.array(docs, pa.string()),
                     pa.array(scores, pa.float64()), None, name=name, source="<dict>", ties=ties,
                     qrels=qrels)


