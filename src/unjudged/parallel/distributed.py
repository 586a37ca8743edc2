"""The Dask executor of unjudged.parallel: a LocalCluster started here, or a running scheduler.

dask and distributed are imported only when a DaskExecutor is created.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from typing import Any

from unjudged.errors import UnjudgedError, note, shown
from unjudged.parallel.base import (
    NOTHING,
    _PoolExecutor,
    _run_chunk,
    _sigint_ignored,
    _signals_deferred,
)


class DaskExecutor(_PoolExecutor):
    """Dask distributed: "local" starts a LocalCluster of `jobs` single-threaded processes (one
    per CPU by default), an address such as "tcp://HOST:PORT" connects to a running scheduler,
    whose workers need unjudged installed. The shared object is scattered once to every worker.

    Example:
        >>> with DaskExecutor("local", jobs=2) as ex:
        ...     ex.map(abs, [-1, 2])
        [1, 2]
    """

    inline_single = False  # the user asked for the cluster (its memory, its machines)

    def __init__(self, address: str, jobs: int | None = None) -> None:
        if address != "local":
            _check_address(address)
        try:
            import distributed
        except ImportError:
            raise UnjudgedError("the Dask executor needs dask.distributed: "
                                "pip install 'unjudged[dask]'") from None
        if address.startswith("tls://") and distributed.security.Security(
                ).get_connection_args("client")["ssl_context"] is None:
            raise UnjudgedError(f"--dask {address}: TLS needs Dask's TLS settings (a CA file, "
                                "a client certificate and key under distributed.comm.tls in "
                                "the Dask configuration); none are set")
        self._cluster = None
        self._client: Any = None
        self._scratch: str | None = None
        self._scattered: tuple[Any, Any] | None = None
        if address == "local":
            # the workers' scratch space is a private folder removed on exit, so that nothing
            # is left behind in $TMPDIR (not even Dask's lock files), however the run ended
            self._scratch = tempfile.mkdtemp(prefix="unjudged-dask-")
            try:
                with _signals_deferred():
                    self._cluster = _local_cluster(jobs or os.cpu_count() or 1, self._scratch)
                    self._client = distributed.Client(self._cluster)
            except BaseException:  # an error or a signal while starting: stop what started
                self._close()
                raise
        else:
            try:
                self._client = distributed.Client(address, timeout="10s")
            except (OSError, ValueError, TypeError) as exc:  # unreachable, or refused by Dask
                raise UnjudgedError(
                    f"cannot reach the Dask scheduler at {address}: {exc}") from exc
        self.jobs = max(1, sum(self._client.nthreads().values()))

    def _prepare(self, shared: Any) -> Callable[..., Any]:
        args: tuple = ()
        if shared is not NOTHING:
            if self._scattered is None or self._scattered[0] is not shared:
                # in a list, so that a shared tuple or dict travels whole
                [future] = self._client.scatter([shared], broadcast=True, hash=False)
                self._scattered = (shared, future)
            args = (self._scattered[1],)  # the worker passes the object, not the future
        return lambda fn, chunk: self._client.submit(_run_chunk, fn, chunk, args, pure=False)

    def _completed(self, futures: list[Any]) -> Iterable[Any]:
        from distributed import as_completed

        return as_completed(futures)

    def _cancel(self, futures: list[Any]) -> None:
        if futures:
            self._client.cancel(futures)

    def _key(self, future: Any) -> Any:
        return future.key

    def _collect(self, futures: list[Any], bar: Any) -> list[list[Any]]:
        from distributed import KilledWorker
        from distributed.client import FutureCancelledError
        from distributed.comm.core import CommClosedError

        # (a task's own exception comes back as a value and is raised as it is; these are the
        # cluster's: a worker that died twice on a chunk, a scheduler gone)
        try:
            return super()._collect(futures, bar)
        except (KilledWorker, CommClosedError, FutureCancelledError) as exc:
            raise UnjudgedError(f"the Dask cluster failed: {type(exc).__name__}: "
                                f"{shown(str(exc), 200)}") from exc

    def __exit__(self, *exc: Any) -> None:
        self._scattered = None
        self._close()

    def _close(self) -> None:
        # Shutting down is ours: under load a worker's heartbeat can race the closing scheduler
        # and log a traceback ("Failed to communicate with scheduler during heartbeat") after
        # every result is in. The local cluster's processes are told to keep quiet first.
        failed: list[str] = []
        with _quiet_here():
            if self._client is not None:
                if self._cluster is not None:
                    for nanny in (True, False):
                        with suppress(Exception):  # a broken cluster: nothing left to quiet
                            self._client.run(_quiet, nanny=nanny)
                try:
                    self._client.close()
                except Exception as exc:
                    failed.append(f"{type(exc).__name__}: {exc}")
            if self._cluster is not None:
                try:
                    self._cluster.close()
                except Exception as exc:
                    failed.append(f"{type(exc).__name__}: {exc}")
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
        if failed:
            note(f"the Dask cluster did not close cleanly ({shown(failed[0], 200)}); the results "
                 "were complete before it")


#: The loggers whose shutdown chatter _quiet silences.
_CHATTY = ("distributed", "tornado")


def _quiet() -> None:
    """Silence Dask's loggers in this process (run on each worker and nanny before closing)."""
    import logging

    for name in _CHATTY:
        logging.getLogger(name).setLevel(logging.CRITICAL)


@contextmanager
def _quiet_here() -> Iterator[None]:
    """Dask's loggers silenced in this process (the local scheduler's) while the cluster closes."""
    import logging

    loggers = [logging.getLogger(name) for name in _CHATTY]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)


#: The schemes --dask takes: Dask's TCP, and TCP with TLS (which needs Dask's TLS settings).
SCHEMES = ("tcp", "tls")


def _check_address(address: str) -> None:
    """SCHEME://HOST:PORT with a scheme of SCHEMES and a port in 1..65535, checked before any
    connection is tried (Dask would try http:// and others and fail with a traceback).

    Example:
        >>> _check_address("tcp://10.0.0.5:8786")
        >>> try:
        ...     _check_address("http://example.org:80")
        ... except UnjudgedError as exc:
        ...     print(exc)
        --dask expects 'local' or a scheduler address tcp://HOST:PORT or tls://HOST:PORT, not 'http://example.org:80'
    """
    scheme, _, rest = address.partition("://")
    host, _, port = rest.rpartition(":")
    if scheme not in SCHEMES or not host or "/" in rest or not (
            port.isascii() and port.isdigit() and 0 < int(port) < 65536):
        raise UnjudgedError("--dask expects 'local' or a scheduler address "
                            + " or ".join(f"{s}://HOST:PORT" for s in SCHEMES)
                            + f", not {address!r}")


def _local_cluster(workers: int, scratch: str):
    import logging

    import dask
    import distributed

    # Dask makes glibc return freed memory at once (MALLOC_TRIM_THRESHOLD_=65536), which maps
    # and faults in every large temporary array anew: the bootstrap took twice as long.
    # Workers keep glibc's default unless the user's environment sets it.
    settings = {"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None,
                # the scheduler's scratch space (lock files) too, not only the workers'
                "temporary-directory": scratch}
    with _sigint_ignored(), dask.config.set(settings):
        return distributed.LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
            local_directory=scratch,
            silence_logs=logging.WARNING,
            # the scheduler's HTTP server (health checks) runs even without a dashboard; a
            # free port avoids a warning when 8787 is taken
            scheduler_kwargs={"dashboard_address": "127.0.0.1:0"})
