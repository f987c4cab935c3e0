"""Pick the embedding provider from config: explicit name, `auto`, or `none` (keywords only)."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from ..settings import API_KEY_ENV, PROVIDERS, REMOTE_PROVIDERS
from .base import EmbeddingError, EmbeddingProvider
from .local_base import USE_MODEL, is_local_model

# `auto` tries the remote providers that need a key, in the table's order
REMOTE_KEYS = {name: env for name, env in API_KEY_ENV.items() if env}


def make_provider(name: str, model: str = "", remote: dict[str, Any] | None = None,
                  sleep: Callable[[float], None] | None = None) -> EmbeddingProvider | None:
    """Build the named provider. `none` returns None; `auto` prefers a remote key, else local.
    `sleep` (tests) replaces the wait between a remote provider's retries."""
    remote = remote or {}
    if name == "none":
        return None
    if name == "auto":
        for candidate, env in REMOTE_KEYS.items():
            if os.environ.get(env):
                return make_provider(candidate, model, remote, sleep)
        return make_provider("local", model if is_local_model(model) else "", remote, sleep)
    if name == "local":
        if model.startswith("multilingual-e5"):
            from .local import LocalE5Provider

            return LocalE5Provider(model)
        from .local_use import LocalUSEProvider

        return LocalUSEProvider(model or USE_MODEL)
    if name in REMOTE_PROVIDERS:
        from .remote import make_remote

        return make_remote(name, model, remote, sleep)
    raise EmbeddingError(f"unknown provider '{name}' (choose {', '.join(PROVIDERS[1:-1])}, auto or none)")
