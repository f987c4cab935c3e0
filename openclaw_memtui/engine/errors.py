"""One base for every error memtui phrases for its user.

`errors.describe()` passes a `MemtuiError`'s text through unchanged and explains anything else, so
an error class only has to subclass this base to reach the user as its own one line.
"""

from __future__ import annotations


class MemtuiError(Exception):
    """An error whose message is already one line a user can act on."""
