"""Notes the library gives about its inputs without failing: a file skipped, a run renamed, a
damaged cache rebuilt. They are warnings of one category, which the command line prints as
``unjudged: note: ...`` lines.

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


class UnjudgedWarning(UserWarning):
    """Something about the inputs the user should know; the result is still sound."""


def note(message: str) -> None:
    """Issue `message` as an UnjudgedWarning (pointing at the library's caller)."""
    warnings.warn(message, UnjudgedWarning, stacklevel=3)
