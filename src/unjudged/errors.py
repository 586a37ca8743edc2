"""Errors raised by unjudged.

Every error a user can cause derives from :class:`UnjudgedError`; the CLI turns each into one line
on stderr and exit code 2, never a traceback::

    UnjudgedError
    ├── InputError            a file is missing, unreadable or not text
    │   └── FormatError       a line does not have the expected layout (path, line, expected)
    ├── MeasureSpecError      unknown or malformed measure names (all of them at once)
    ├── IncompatibleInputsError  inputs that cannot be evaluated together
    ├── InvalidOptionError    an argument outside its choices, range or shape (also a ValueError)
    └── OutputError           an output cannot be written (path and reason)

Notes the library gives about its inputs without failing (a file skipped, a run renamed, a
damaged cache rebuilt) are warnings of one category, :class:`UnjudgedWarning`, which the command
line prints as ``unjudged: note: ...`` lines.

Example:
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as seen:
    ...     warnings.simplefilter("always")
    ...     note("skipped README: not a run file")
    >>> [str(w.message) for w in seen]
    ['skipped README: not a run file']
"""

from __future__ import annotations

import warnings


class UnjudgedError(Exception):
    """Root of every error a user can cause."""


class InputError(UnjudgedError):
    """A file is missing, unreadable, empty or binary."""

    def __init__(self, path: str, message: str) -> None:
        self.path = path
        self.message = message
        super().__init__(f"{path}: {message}")


class FormatError(InputError):
    """A line of an input file is not of the expected layout."""

    def __init__(self, path: str, line: int | None, message: str) -> None:
        self.line = line
        where = f"{path}:{line}" if line is not None else path
        self.path = path
        self.message = message
        UnjudgedError.__init__(self, f"{where}: {message}")


class MeasureSpecError(UnjudgedError):
    """One or more measure names could not be parsed; lists all of them with suggestions."""


class IncompatibleInputsError(UnjudgedError):
    """Inputs that cannot be evaluated together (e.g. no topic in common)."""


class InvalidOptionError(UnjudgedError, ValueError):
    """A library function was given an argument it cannot take: a name outside its choices
    (an unknown test or method), a number out of its range, or score arrays of the wrong shape.

    Also a ValueError, as these were before the error tree covered them.

    Example:
        >>> isinstance(InvalidOptionError("alpha: expected a value in (0, 1), got 2"), ValueError)
        True
    """


class OutputError(UnjudgedError):
    """An output file or folder cannot be written: `path` and the `reason` in a few words.

    Example:
        >>> str(OutputError("out/x.tsv", "folder out does not exist"))
        'cannot write out/x.tsv: folder out does not exist'
    """

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"cannot write {path or repr(path)}: {reason}")


class UnjudgedWarning(UserWarning):
    """Something about the inputs the user should know; the result is still sound."""


def shown(value: object, width: int = 40) -> str:
    """A value as an error message quotes it: its repr on one line, at most `width` characters.

    Example:
        >>> shown("a\\nb"), shown(list(range(30)), 20)
        ("'a\\\\nb'", '[0, 1, 2, 3, 4, 5...')
    """
    text = " ".join(repr(value).split())
    return text if len(text) <= width else text[:width - 3] + "..."


def note(message: str) -> None:
    """Issue `message` as an UnjudgedWarning (pointing at the library's caller)."""
    warnings.warn(message, UnjudgedWarning, stacklevel=3)
