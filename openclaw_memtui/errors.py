"""The app's errors: `UserError` for problems the CLI and the app phrase themselves, and `describe`."""

from __future__ import annotations

from .engine.errors import MemtuiError, describe

__all__ = ["MemtuiError", "UserError", "describe"]


class UserError(MemtuiError):
    """An error already phrased for the user."""
