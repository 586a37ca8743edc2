"""File names derived from run, topic or measure names: safe on every file system and never
two alike, so that no output silently overwrites another."""

from __future__ import annotations

import hashlib
import re
import sys
from collections.abc import Callable, Iterable

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_LONGEST = 80  # characters kept of a name; the rest is represented by the hash


def name_hash(name: str) -> str:
    """Six hex digits standing for `name`, the same in every process.

    Example:
        >>> name_hash("a/b")
        '3ec69c'
    """
    return hashlib.sha1(name.encode("utf-8", "surrogatepass")).hexdigest()[:6]


def file_stems(names: Iterable[str], unsafe: re.Pattern[str] = _UNSAFE,
               mark_changed: bool = True) -> list[str]:
    """One file-name stem per name, all distinct (also ignoring case, for file systems that
    do): characters outside [A-Za-z0-9._-] become '_'; a name that had to be changed
    (`mark_changed`), or that would share its stem with another, gets '-' and its
    `name_hash` appended. Equal names get equal stems.

    Example:
        >>> file_stems(["bm25", "a/b", "a<b", "A_B", "a_b"])
        ['bm25', 'a_b-3ec69c', 'a_b-ba66ee', 'A_B-c0cd21', 'a_b-eb2980']
    """
    names = list(names)
    distinct = list(dict.fromkeys(names))
    stems = {}
    for n in distinct:
        s = unsafe.sub("_", n).lstrip(".")[:_LONGEST] or "_"
        changed = s != n
        stems[n] = (s, changed)
    shared: dict[str, int] = {}
    for s, _ in stems.values():
        shared[s.casefold()] = shared.get(s.casefold(), 0) + 1
    out: dict[str, str] = {}
    taken: set[str] = set()
    for n in distinct:
        s, changed = stems[n]
        if (changed and mark_changed) or shared[s.casefold()] > 1:
            s = f"{s}-{name_hash(n)}"
        while s.casefold() in taken:  # a hash collision, or a name that looks like a hashed one
            s = f"{s}-{name_hash(s)}"
        taken.add(s.casefold())
        out[n] = s
    return [out[n] for n in names]


def derived_files(names: Iterable[str], make: Callable[[str], str],
                  notify: Callable[[str], None] | None = None, **stems) -> list[str]:
    """The file `make(stem)` for each name (stems from `file_stems`, which takes the keyword
    arguments), and one note listing "file <- name" for the files whose stem is not simply
    the name, so that the user can tell which file holds which name. The note goes to
    `notify`, by default to stderr.

    Example:
        >>> derived_files(["x", "a/b"], lambda s: f"est-{s}.png", notify=print)
        file names differ from the names they hold: est-a_b-3ec69c.png <- 'a/b'
        ['est-x.png', 'est-a_b-3ec69c.png']
    """
    names = list(names)
    files = [make(s) for s in file_stems(names, **stems)]
    renamed = ((f, n) for f, n in zip(files, names, strict=True) if make(n) != f)
    note_files(dict.fromkeys(renamed), notify)
    return files


def note_files(pairs: Iterable[tuple[str, str]],
               notify: Callable[[str], None] | None = None) -> None:
    """One note listing "file <- name" for the (file, name) pairs, if any; to `notify`, by
    default to stderr."""
    listing = ", ".join(f"{f} <- {n!r}" for f, n in pairs)
    if not listing:
        return
    message = f"file names differ from the names they hold: {listing}"
    if notify is not None:
        notify(message)
    else:
        sys.stderr.write(f"unjudged: note: {message}\n")
