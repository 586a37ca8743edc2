"""Runs and qrels from ir_datasets: dataset objects, and `irds:<dataset id>` names.

Anything with a `qrels_iter()` method (an ir_datasets dataset, or an object of your own) reads
as qrels; anything with `scoreddocs_iter()` as a run. A string `irds:msmarco-passage/
trec-dl-2019/judged` names a dataset of ir_datasets' registry (ir_datasets must be installed).
Only data already in ir_datasets' cache is read: nothing is downloaded (a download would start
silently in the middle of an evaluation and may need credentials), and data missing from the
cache is an InputError of one line that says how to fetch it.

Example:
    >>> class Mine:
    ...     def qrels_iter(self):
    ...         yield ("q1", "d1", 1)
    >>> is_irds_source(Mine()), is_irds_source("irds:x/y"), is_irds_source("x.txt")
    (True, True, False)
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import Any

from unjudged.errors import InputError

PREFIX = "irds:"


def is_irds_source(source: Any) -> bool:
    """Whether `source` is an `irds:` name or an object with qrels_iter()/scoreddocs_iter()."""
    if isinstance(source, str):
        return source.startswith(PREFIX)
    return callable(getattr(source, "qrels_iter", None)) or callable(
        getattr(source, "scoreddocs_iter", None))


def dataset_name(source: Any) -> str:
    """How a dataset source is named in messages and as a run's default name."""
    if isinstance(source, str):
        return source
    ds_id = getattr(source, "dataset_id", None)
    if callable(ds_id):
        with contextlib.suppress(Exception):
            return f"{PREFIX}{ds_id()}"
    return f"<{type(source).__name__}>"


def load(source: Any) -> Any:
    """The dataset object of an `irds:` name (other sources pass through)."""
    if not isinstance(source, str):
        return source
    ident = source[len(PREFIX):]
    try:
        import ir_datasets
    except ImportError:
        raise InputError(source, "reading an ir_datasets dataset needs ir_datasets "
                         "(pip install ir_datasets)") from None
    try:
        return ir_datasets.load(ident)
    except KeyError:
        raise InputError(source, f"ir_datasets has no dataset {ident!r} "
                         "(list them with `ir_datasets list`)") from None


def records(source: Any, what: str) -> Iterator[Any]:
    """The records of a dataset: what="qrels" or "scoreddocs", from the cache only."""
    name = dataset_name(source)
    ds = load(source)
    method = getattr(ds, f"{what}_iter", None)
    has = getattr(ds, f"has_{what}", None)
    if not callable(method) or (callable(has) and not has()):
        raise InputError(name, f"the dataset provides no {what}")
    with _cache_only(name, what):
        try:
            yield from method()
        except _NotCached as exc:
            raise InputError(name, f"the {what} are not in ir_datasets' cache ({exc}); "
                             "nothing is downloaded here: fetch them first, e.g. "
                             f"`ir_datasets export {name[len(PREFIX):] or name} {what}`"
                             ) from None


class _NotCached(Exception):
    pass


@contextlib.contextmanager
def _cache_only(name: str, what: str) -> Iterator[None]:
    """ir_datasets' downloads raise _NotCached while the block runs (files in the cache read
    as usual). Without ir_datasets (an object of one's own) nothing changes."""
    try:
        from ir_datasets.util import download
    except ImportError:
        yield
        return
    cls = download.Download
    original_path, original_stream = cls.path, cls.stream

    def check(self: Any) -> None:
        cached = self._path or self._cache_path
        if cached is None or not os.path.exists(cached):
            raise _NotCached(f"missing {cached or 'a file that would be downloaded'}")

    def path(self: Any, force: bool = True) -> Any:
        if force:
            check(self)
        return original_path(self, force)

    def stream(self: Any) -> Any:
        check(self)
        return original_stream(self)

    cls.path, cls.stream = path, stream
    try:
        yield
    finally:
        cls.path, cls.stream = original_path, original_stream
