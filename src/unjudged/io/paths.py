"""Which files are runs, and what each run is called.

Directories and glob patterns expand to the files they hold. A file found that way is first
sniffed (its first data line, from a small head read), and one that is clearly not a run (a
README, an image, a qrels file) is skipped with a note; a file named explicitly is always read
strictly. Run names are the first line's tag (`names="tag"`), or the file name
(`names="file"`); runs whose tags collide fall back to their file names, so that no two runs
ever print as the same row.

Notes go to a `notify` callable (the command line prints them, or fails under --strict); the
default issues an :class:`unjudged.errors.UnjudgedWarning`.
"""

from __future__ import annotations

import dataclasses
import os
import stat
from collections import Counter
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any, cast

from unjudged.errors import FormatError, InputError, InvalidOptionError
from unjudged.errors import note as warn
from unjudged.io._csv import TABULAR_HINT, table_format
from unjudged.io._source import DECOMPRESS_ERRORS, compression, decompressor, first_data_line
from unjudged.policies import NAME_MODES, NameMode

Notify = Callable[[str], None]

_HEAD = 64 * 1024
_FIRST_READ = 1024
_MAGIC_NAMES = ((b"\x89PNG", "a PNG image"), (b"\xff\xd8\xff", "a JPEG image"),
                (b"GIF8", "a GIF image"), (b"%PDF", "a PDF file"), (b"PK\x03\x04", "a zip file"))


def expand_paths(sources: Iterable[Any], notify: Notify | None = None) -> list[Any]:
    """Sources with directories and glob patterns replaced by the run files they hold.

    Files found by expansion that are clearly not runs are left out, each with a note; if none
    is left, that is an error. Anything else (files named explicitly, '-', DataFrames, dicts)
    passes through unchanged.

    Example:
        >>> expand_paths([{"q1": {"d1": 1.0}}, "-"])
        [{'q1': {'d1': 1.0}}, '-']
    """
    notify = notify or warn
    out: list[Any] = []
    sources = list(sources)
    if sum(isinstance(s, (str, os.PathLike)) and str(s) == "-" for s in sources) > 1:
        raise InputError("<stdin>", "given more than once; standard input can be read only once")
    for s in sources:
        if isinstance(s, (str, os.PathLike)) and str(s) != "-":
            p = os.fspath(s)
            if os.path.isdir(p):
                files = _regular(sorted(os.path.join(p, f) for f in os.listdir(p)
                                        if not f.startswith(".")), notify)
                if not files:
                    raise InputError(p, "directory contains no run files")
                out.extend(_runs_only(p, files, notify, "of its"))
                continue
            if any(c in p for c in "*?[") and not os.path.exists(p):
                import glob  # patterns only (1.5M instructions a call otherwise)

                matches = _regular(sorted(glob.glob(p)), notify)
                if not matches:
                    raise InputError(p, "pattern matches no file")
                out.extend(_runs_only(p, matches, notify, "it matches"))
                continue
        out.append(s)
    return out


def _regular(paths: list[str], notify: Notify) -> list[str]:
    """The regular files among what a folder or pattern holds; anything else is passed over
    with a note: a folder (not searched), a FIFO, socket, device or broken link (reading a
    FIFO nobody writes to would wait for ever; one named on its own is read, as a pipe)."""
    kept = []
    for path in paths:
        try:
            mode = os.stat(path).st_mode
        except OSError:
            what = "a broken symbolic link" if os.path.islink(path) else "unreadable"
            notify(f"skipped {path}: not a regular file ({what})")
            continue
        if stat.S_ISREG(mode):
            kept.append(path)
        elif stat.S_ISDIR(mode):
            notify(f"skipped {path}: a folder (folders in a folder or pattern are not "
                   "searched; name it to read its runs)")
        else:
            what = ("a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode)
                    else "a device")
            notify(f"skipped {path}: not a regular file ({what})")
    return kept


def _runs_only(where: str, files: list[str], notify: Notify, found: str) -> list[str]:
    kept = []
    for f in files:
        why = not_a_run(f)
        if why is None:
            kept.append(f)
        else:
            notify(f"skipped {f}: not a run file ({why})")
    if not kept:
        raise InputError(where, f"no run file among the {len(files)} file(s) {found} "
                         "(`qid Q0 docno rank score tag` lines)")
    return kept


def not_a_run(path: str) -> str | None:
    """Why the file at `path` is clearly not a run, or None (it may be one).

    Only the head of the file is read, decompressed if need be; the verdict rests on its first
    data line. Anything unsure is left for the reader, which names the exact problem.
    """
    head, complete = _head(path)
    if head is None:
        return None
    for magic, what in _MAGIC_NAMES:
        if head.startswith(magic):
            return what
    if table_format(head, path) is not None:
        return None  # a table with a header (CSV, TSV, JSONL, Parquet)
    if b"\x00" in head:
        return "binary data"
    number, fields = first_data_line(head, complete)
    if number is None:
        return "no data lines" if complete else None
    if len(fields) < 6:
        return (f"line {number} has {len(fields)} field{'s' * (len(fields) != 1)}"
                + (", like a qrels line" if len(fields) == 4 else "")
                + "; a run line has 6")
    try:
        float(fields[4])
    except ValueError:
        text = fields[4].decode("utf-8", "replace")
        return f"line {number}: score {text!r} is not a number"
    return None


def first_tag(path: str) -> str | None:
    """The tag of a run file's first data line, from its head; None when unsure.

    Example:
        >>> import tempfile
        >>> with tempfile.NamedTemporaryFile("w", suffix=".run", delete=False) as fh:
        ...     _ = fh.write("# a comment\\n1 Q0 d1 1 2.5 bm25\\n")
        >>> first_tag(fh.name)
        'bm25'
    """
    head, complete = _head(path)
    if head is None:
        return None
    kind = table_format(head, path)
    if kind is not None:
        return _table_tag(head, kind)
    _, fields = first_data_line(head, complete)
    return fields[5].decode("utf-8", "replace") if fields and len(fields) >= 6 else None


def tabular_kind(source: Any) -> str | None:
    """The table format of a regular file with a header ("csv", "tsv", "ssv" for blanks,
    "jsonl", "parquet"), or None: a TREC file, a pipe, data in memory.

    Example:
        >>> import tempfile
        >>> with tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False) as fh:
        ...     _ = fh.write("qid\\tdocno\\tscore\\n1\\td1\\t2.5\\n")
        >>> tabular_kind(fh.name), tabular_kind({"q": {"d": 1.0}})
        ('tsv', None)
    """
    if not isinstance(source, (str, os.PathLike)) or str(source) == "-":
        return None
    path = os.fspath(source)
    head, _ = _head(path)
    kind = None if head is None else table_format(head, path)
    if kind is None and head is not None:
        _note_commented_header(head, path)
    return kind


def _note_commented_header(head: bytes, path: str) -> None:
    """Say so when a TREC file's first line is a `#` comment naming the columns (such as
    `# qid Q0 docno rank score tag`): it is skipped, as every `#` line is, where trec_eval would
    read it as a line of topic '#' (and its qrels every topic into one)."""
    text = head.lstrip(b"\xef\xbb\xbf")
    for number, line in enumerate(text.split(b"\n")[:50], 1):
        if not line.strip():
            continue
        fields = line.lstrip().lstrip(b"#").lower().split()
        if line.lstrip().startswith(b"#") and len(fields) >= 2 and (
                {b"qid", b"topic", b"query_id"} & set(fields)) and (
                {b"docno", b"doc_id", b"doc", b"docid"} & set(fields)):
            shown = line.strip().decode("utf-8", "replace")[:80]
            warn(f"{path}:{number}: skipped the comment `{shown}` naming the columns "
                 "(trec_eval would read it as a line of topic '#')")
        return


def not_trec(exc: FormatError, source: Any, layout: str) -> FormatError:
    """`exc` from reading `source` as a TREC file, naming the table formats too when its first
    line is wrong (the file is likely neither a TREC file nor a table that was recognised)."""
    path = exc.path
    head = _head(os.fspath(source))[0] if isinstance(source, (str, os.PathLike)) and \
        str(source) != "-" else None
    first = first_data_line(head, True)[0] if head is not None else None
    if exc.line is None or first is None or exc.line != first or layout not in exc.message:
        return exc  # a later line, or not a question of layout (too long, binary, ...)
    return FormatError(path, exc.line, f"{exc.message}; this file is neither TREC "
                       f"(`{layout}` lines) nor {TABULAR_HINT}")


def _table_tag(head: bytes, kind: str) -> str | None:
    """The run/tag/run_id value of a table's first row, from its head (None: none, or unsure).

    Example:
        >>> _table_tag(b"qid,docno,score,run\\n1,d1,2.0,bm25\\n", "csv")
        'bm25'
    """
    lines = head.decode("utf-8", "replace").replace("\r\n", "\n").split("\n")
    if kind == "jsonl":
        import json

        try:
            row = json.loads(lines[0]) if len(lines) > 1 else None
        except (ValueError, RecursionError):  # deeply nested: the reader names the line
            return None
        found = [row.get(c) for c in ("run", "tag", "run_id")] if isinstance(row, dict) else []
        return next((str(v) for v in found if v is not None), None)
    if kind not in ("csv", "tsv", "ssv") or len(lines) < 3:  # a header and a whole row
        return None
    sep = {"csv": ",", "tsv": "\t"}.get(kind)
    header = [c.strip().strip('"') for c in lines[0].split(sep)]
    row = [c.strip().strip('"') for c in lines[1].split(sep)]
    for col in ("run", "tag", "run_id"):
        if col in header and header.index(col) < len(row):
            return row[header.index(col)]
    return None


def _head(path: str) -> tuple[bytes | None, bool]:
    """(the first bytes of a regular file, decompressed; whether that is the whole file).

    (None, False) for anything that is not a readable regular file: a pipe must not be read
    twice, and the reader reports missing or unreadable files itself. A few KiB are read first
    (a run's first line is short); more only when they hold no complete data line.
    """
    try:
        info = os.stat(path)
    except OSError:
        return None, False
    if not stat.S_ISREG(info.st_mode):
        return None, False
    return _head_of(path, info.st_mtime_ns, info.st_size)


@lru_cache(maxsize=1024)  # sniffing and naming look at the same heads, one after the other
def _head_of(path: str, mtime_ns: int, size: int) -> tuple[bytes | None, bool]:
    for want in (_FIRST_READ, _HEAD):
        head, complete = _read_head(path, want)
        if head is None or complete or first_data_line(head, False)[0] is not None:
            break
    return head, complete


def _read_head(path: str, want: int) -> tuple[bytes | None, bool]:
    try:
        with open(path, "rb") as fh:
            raw = fh.read(want)
            whole = len(raw) < want or not fh.read(1)
    except OSError:
        return None, False
    kind = compression(raw)
    if kind is None:
        return raw, whole
    unit = decompressor(kind)
    try:
        text = unit.decompress(raw, want)  # no more: inflating costs time
    except DECOMPRESS_ERRORS:
        return None, False  # the reader names the corrupt data
    return text, whole and unit.eof and len(text) < want


def file_names(paths: list[str]) -> list[str]:
    """Each path's base name, or the shortest trailing part of it that no other path shares.

    Example:
        >>> file_names(["runs/a/bm25.run", "runs/b/bm25.run", "x/dense.run"])
        ['a/bm25.run', 'b/bm25.run', 'dense.run']
    """
    parts = [tuple(os.path.normpath(os.path.abspath(p)).split(os.sep)) for p in paths]
    out: list[str | None] = [None] * len(paths)
    todo, k = list(range(len(paths))), 1
    while todo:
        # one file given twice counts once here (its names are numbered later)
        counts = Counter(whole[-k:] for whole in {parts[i] for i in todo})
        left = []
        for i in todo:
            if counts[parts[i][-k:]] == 1 or k >= len(parts[i]):
                out[i] = "/".join(p for p in parts[i][-k:] if p)
            else:
                left.append(i)
        todo, k = left, k + 1
    return [o or p for o, p in zip(out, paths, strict=True)]


def unique_names(tags: list[str | None], files: list[str | None], mode: NameMode = "tag",
                 notify: Notify | None = None) -> list[str | None]:
    """One distinct name per run.

    `tags[i]` is run i's own name (None: not known yet, e.g. a pipe, or none, e.g. a dict);
    `files[i]` its file (None for data in memory). Runs named by a tag that another run shares
    are named by their files instead, with a note; runs with neither a tag nor a file are
    `run1`, `run2`, ... by position (`run` when it is the only run). A name still taken gets
    `#2`, `#3`. With mode "file", every run with a file is named by it. Unknown tags stay None.

    Example:
        >>> unique_names(["Anserini", "Anserini", "dph"], ["a/x.run", "b/y.run", "z.run"],
        ...              notify=print)
        2 runs share the tag 'Anserini': a/x.run is named x.run, b/y.run is named y.run
        ['x.run', 'y.run', 'dph']
    """
    if mode not in NAME_MODES:
        raise InvalidOptionError(f"names must be one of {', '.join(NAME_MODES)}, not {mode!r}")
    notify = notify or warn
    names = _by_file(list(tags), files, range(len(files))) if mode == "file" else list(tags)
    counts = Counter(n for n in names if n is not None)
    for tag in [t for t, c in counts.items() if c > 1] if mode == "tag" else []:
        clash = [i for i, n in enumerate(names) if n == tag]
        with_file = [i for i in clash if files[i] is not None]
        if not with_file:
            continue  # numbered below
        names = _by_file(names, files, with_file)
        shown = ", ".join(f"{files[i]} is named {names[i]}" for i in with_file[:5])
        more = f", and {len(with_file) - 5} more" if len(with_file) > 5 else ""
        notify(f"{len(clash)} runs share the tag {tag!r}: {shown}{more}")
    for i, (t, f) in enumerate(zip(tags, files, strict=True)):
        if t is None and f is None:
            names[i] = "run" if len(tags) == 1 else f"run{i + 1}"
    return _distinct(names)


def _by_file(names: list[str | None], files: list[str | None], which) -> list[str | None]:
    out = list(names)
    which = [i for i in which if files[i] is not None]
    for i, name in zip(which, file_names([files[i] for i in which]), strict=True):
        out[i] = name
    return out


def _distinct(names: list[str | None]) -> list[str | None]:
    """`#2`, `#3`, ... after a name already taken (e.g. one file given twice)."""
    seen: set[str] = {n for n in names if n is not None}
    used: Counter[str] = Counter()
    out: list[str | None] = []
    for n in names:
        if n is None:
            out.append(None)
            continue
        used[n] += 1
        if used[n] == 1:
            out.append(n)
            continue
        k = used[n]
        while f"{n}#{k}" in seen:
            k += 1
        seen.add(f"{n}#{k}")
        out.append(f"{n}#{k}")
    return out


class RunNamer:
    """Names for the runs of `sources` (expanded), fixed before any is read where possible.

    Tags are read ahead from the files' heads only when there are several runs and names come
    from tags; a pipe's tag is known only once it is read, and `settle` then renames it if
    another run has that name already.
    """

    def __init__(self, sources: list[Any], mode: NameMode = "tag",
                 notify: Notify | None = None) -> None:
        self.notify = notify or warn
        ahead = mode == "tag" and len(sources) > 1
        tags = [_own_name(s, ahead) for s in sources]
        self.files = [_file_of(s) for s in sources]
        self.names = unique_names(tags, self.files, mode, self.notify)
        self.taken = {n for n in self.names if n is not None}

    def settle(self, i: int, run: Any) -> Any:
        """Run i under its unique name (a renamed copy where the name had to change)."""
        want = self.settle_name(i, run.name)
        return run if run.name == want else dataclasses.replace(run, name=want)

    def settle_name(self, i: int, own: str) -> str:
        """The unique name of run i, which calls itself `own` once read."""
        want = self.names[i]
        if want is None:
            want = own
            if want in self.taken:
                names: list[str | None] = [*self.taken, self.files[i] or want]
                want = cast(str, _distinct(names)[-1])  # the last name given is a string
                self.notify(f"{self.files[i]} has the tag {own!r} of another run: "
                            f"named {want}")
            self.taken.add(want)
        return want


def _own_name(source: Any, ahead: bool) -> str | None:
    """What the run calls itself: a Run's name, a DataFrame's run column, a file's tag."""
    kind = type(source).__name__
    if kind == "Run":
        return source.name
    if kind == "DataFrame":
        return frame_tag(source)
    if ahead and isinstance(source, (str, os.PathLike)) and str(source) != "-":
        return first_tag(os.fspath(source))
    return None


def frame_tag(frame: Any) -> str | None:
    """A DataFrame run's name: its first row's run, tag or run_id column, if it has one."""
    for col in ("run", "tag", "run_id"):
        if col in frame.columns and len(frame):
            return str(frame[col].iloc[0])
    return None


def _file_of(source: Any) -> str | None:
    if type(source).__module__ == "unjudged.data.run":  # ours (a ranx Run is read as a dict)
        return None if source.source.startswith("<") else source.source
    if isinstance(source, (str, os.PathLike)):
        return "<stdin>" if str(source) == "-" else os.fspath(source)
    name = getattr(source, "name", None)  # an open file
    return name if isinstance(name, str) else None
