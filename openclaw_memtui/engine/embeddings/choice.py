"""Which embedding provider an index uses: the configured one, or OpenClaw's `fallback` when that fails.

OpenClaw's rules (spec §5.4), with a fallback set (not `none`, not the provider itself):

* the provider cannot be created (no API key, a model it refuses) → the fallback is made with the same
  model string (its default when none is configured) — memtui also tries the fallback's default when
  it refuses that string (`local` ships one model);
* an embedding call fails during a sync → the fallback, with its default model, takes over and the
  index is rebuilt with it; a failing query embedding switches too (that search stays keyword-only:
  the index has no vectors of the fallback's model until the next sync).

Each switch happens once and is recorded (`FallbackRecord`: from, to, the reason without any secret).
The record is kept in the index, so the next process goes on with the fallback whose vectors the index
holds, and retries the configured provider once, at its first sync (`probe_primary`).

Only the fallback's own credentials are used: the `remote` block's base URL, API key and headers were
set for the configured provider and are never sent to another service (timeouts and retries apply).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from ..scrub import scrub
from .base import EmbeddingError, EmbeddingProvider
from .registry import make_provider

if TYPE_CHECKING:
    import numpy as np

# the `remote` keys that belong to the configured provider's service, never sent to the fallback's
PRIMARY_ONLY_REMOTE = ("baseUrl", "apiKey", "headers")


@dataclass(frozen=True)
class FallbackRecord:
    """The configured provider failed and the fallback took over."""

    from_id: str
    to_id: str
    model: str  # the fallback's model
    reason: str  # one line, scrubbed of keys

    def line(self) -> str:
        return f"fallback from {self.from_id}: {self.reason}"

    def to_dict(self) -> dict[str, str]:
        return {"from": self.from_id, "to": self.to_id, "model": self.model, "reason": self.reason}

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @staticmethod
    def from_json(text: str | None) -> FallbackRecord | None:
        try:
            data = json.loads(text or "")
            return FallbackRecord(**{k: str(data[k]) for k in ("from_id", "to_id", "model", "reason")})
        except (ValueError, TypeError, KeyError):
            return None  # none stored, or written by another version: start from the configured provider


def describe_fallback(fallback: dict[str, str]) -> str:
    """`Status.fallback` as one line: "fallback from openai: <reason> (now ollama / nomic-embed-text)"."""
    return f"fallback from {fallback['from']}: {fallback['reason']} (now {fallback['to']} / {fallback['model']})"


def one_line(reason: BaseException | str) -> str:
    """A failure's message on one line, scrubbed of keys (a provider's reason in a FallbackRecord)."""
    return " ".join(scrub(str(reason)).split())


class ProviderChoice:
    """Makes the provider, and the fallback when it fails; remembers the switch. The index holds the
    provider in use (and serialises the calls)."""

    def __init__(self, name: str, model: str = "", remote: dict[str, Any] | None = None, fallback: str = "none",
                 sleep: Callable[[float], None] | None = None,
                 stored: Callable[[], FallbackRecord | None] = lambda: None) -> None:
        """`stored`: the fallback record the index was last built with (read when the provider is made)."""
        self.name, self.model, self.remote = name, model, remote or {}
        self.fallback = fallback or "none"
        self.sleep = sleep
        self._stored = stored
        self.record: FallbackRecord | None = None
        self.error = ""  # why there is no provider at all
        self._held_primary: EmbeddingProvider | None = None  # made, but the index is on the fallback: probed at sync

    def _make(self, name: str, model: str, remote: dict[str, Any]) -> EmbeddingProvider | None:
        return make_provider(name, model, remote, sleep=self.sleep)

    def _fallback_remote(self) -> dict[str, Any]:
        return {k: v for k, v in self.remote.items() if k not in PRIMARY_ONLY_REMOTE}

    def can_fall_back(self, current: str) -> bool:
        return self.fallback not in ("", "none", "auto") and self.fallback != current and self.record is None

    def first(self) -> EmbeddingProvider | None:
        """The provider to start with: the configured one; the fallback when it cannot be made, or when
        the index was last built by the fallback after this provider failed."""
        try:
            primary = self._make(self.name, self.model, self.remote)
        except EmbeddingError as exc:
            reason = one_line(exc)
            self.error = reason
            if not self.can_fall_back(self.name):
                return None
            return self._fall_back(self.name, reason, (self.model, ""))
        if primary is None or not self.can_fall_back(primary.id):
            return primary  # no fallback to go on with: the index's record is not even read
        stored = self._stored()
        if stored is not None and stored.from_id == primary.id and stored.to_id == self.fallback:
            # the index holds the fallback's vectors: search with it; the first sync tries the primary again
            try:
                held = self._make(stored.to_id, stored.model, self._fallback_remote())
            except EmbeddingError:
                return primary
            self._held_primary, self.record = primary, stored
            return held
        return primary

    def _fall_back(self, from_id: str, reason: str, models: tuple[str, ...]) -> EmbeddingProvider | None:
        """Make the fallback (the first of `models` it accepts) and record the switch; None when it fails too."""
        failure = ""
        for model in dict.fromkeys(models):
            try:
                provider = self._make(self.fallback, model, self._fallback_remote())
            except EmbeddingError as exc:
                failure = failure or one_line(exc)
                continue
            if provider is not None:
                self.record = FallbackRecord(from_id, provider.id, provider.model, reason)
                self.error = ""
                return provider
        self.error = f"{reason}; fallback to {self.fallback} failed: {failure}"
        return None

    def switch(self, failed: EmbeddingProvider, error: str) -> EmbeddingProvider | None:
        """`failed` could not embed (`error`): the fallback (its default model) when one is set and
        unused, else None. The caller re-embeds with it."""
        if not self.can_fall_back(failed.id):
            return None
        return self._fall_back(failed.id, one_line(error), ("",))

    def probe_primary(self) -> EmbeddingProvider | None:
        """Once per process, while the index is on the fallback: one query embedding to the configured
        provider. Returns it when it answers (it takes over again: the caller rebuilds), else None."""
        primary, self._held_primary = self._held_primary, None
        if primary is None:
            return None
        try:
            primary.embed_query("memtui provider check")
        except EmbeddingError as exc:
            if self.record is not None:
                self.record = FallbackRecord(self.record.from_id, self.record.to_id, self.record.model,
                                             one_line(exc))
            return None
        self.record = None
        return primary


class SwitchOnQueryFailure:
    """The provider a search gets when a fallback is ready: a failing query embedding is reported to
    `on_failure` (the index switches to the fallback) before it propagates (the search goes on with
    keywords, as without a fallback)."""

    def __init__(self, inner: EmbeddingProvider, on_failure: Callable[[EmbeddingProvider, str], object]) -> None:
        self.inner, self.on_failure = inner, on_failure
        self.id, self.model = inner.id, inner.model
        self.max_input_tokens, self.batch_max_items, self.batch_max_bytes = (
            inner.max_input_tokens, inner.batch_max_items, inner.batch_max_bytes)

    @property
    def dims(self) -> int | None:
        return self.inner.dims

    def provider_key(self) -> str:
        return self.inner.provider_key()

    def embed_query(self, text: str) -> np.ndarray:
        try:
            return self.inner.embed_query(text)
        except EmbeddingError as exc:
            self.on_failure(self.inner, str(exc))
            raise

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        return self.inner.embed_batch(texts)


def where_embedded(provider_id: str) -> str:
    """Where the notes' text goes to be embedded, in words (`status`, the status screen)."""
    if provider_id == "none":
        return "keywords only, nothing embedded"
    if provider_id == "local":
        return "offline: notes stay on this machine"
    if provider_id == "ollama":
        return "notes are sent to the Ollama server"
    return f"remote: notes are sent to {provider_id}"
