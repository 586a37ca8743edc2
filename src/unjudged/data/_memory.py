"""Requests too large for this machine are refused with one line before numpy tries them:
`-m P@1000000000000` once asked numpy for 9 TiB, `-b 1000000000` for 56 GiB, and failed with a
MemoryError traceback (or swapped) instead."""

from __future__ import annotations

import os

from unjudged.errors import InvalidOptionError


def available_memory() -> int:
    """Bytes this process may still allocate: the kernel's MemAvailable (physical memory where
    there is none), and no more than an address-space limit (ulimit -v) leaves."""
    avail = None
    try:
        with open("/proc/meminfo", "rb") as f:
            for line in f:
                if line.startswith(b"MemAvailable:"):
                    avail = int(line.split()[1]) * 1024
                    break
    except (OSError, ValueError, IndexError):
        pass
    if avail is None:
        try:
            avail = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (ValueError, OSError, AttributeError):
            avail = 1 << 62  # unknown: let numpy decide
    try:
        import resource

        limit = resource.getrlimit(resource.RLIMIT_AS)[0]
        if limit != resource.RLIM_INFINITY:
            avail = min(avail, limit)
    except (ImportError, OSError, ValueError):
        pass
    return avail


def check_fits(nbytes: float, what: str) -> None:
    """Refuse `what` when it needs more than the memory available (InvalidOptionError).

    Example:
        >>> check_fits(1024, "a small table")
        >>> try:
        ...     check_fits(2.0 ** 70, "P@1e21 on 1 topic")
        ... except InvalidOptionError as exc:
        ...     print(str(exc).split(";")[0])
        P@1e21 on 1 topic needs 1024.0 EiB of memory
    """
    avail = available_memory()
    if nbytes > avail:
        raise InvalidOptionError(f"{what} needs {size(nbytes)} of memory; {size(avail)} are "
                                 "available")


def size(nbytes: float) -> str:
    """Bytes as people read them.

    Example:
        >>> size(3 * 2 ** 30), size(512)
        ('3.0 GiB', '512 B')
    """
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if nbytes < 1024:
            return f"{nbytes:.0f} {unit}" if unit == "B" else f"{nbytes:.1f} {unit}"
        nbytes /= 1024
    return f"{nbytes:.1f} EiB"
