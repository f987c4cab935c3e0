"""Worker messages can arrive while the app shuts down, after its widgets are gone: handlers that update
widgets are wrapped so such a message is dropped (and logged), not raised."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from textual.css.query import NoMatches

Handler = TypeVar("Handler", bound=Callable[..., None])


def skip_when_torn_down(method: Handler) -> Handler:
    """Worker messages can arrive while the app shuts down, after its widgets are gone."""

    @functools.wraps(method)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> None:
        try:
            method(self, *args, **kwargs)
        except NoMatches:  # the main screen's widgets are gone: nothing left to update
            self.log.warning(f"{method.__name__}: widgets gone, message dropped")

    return wrapper  # type: ignore[return-value]
