"""Remote embedding APIs, each in its own wire format.

| provider | endpoint | batch limit |
|---|---|---|
| openai  | POST {base}/embeddings {model, input[]} → data[i].embedding | 2048 items, 8000 bytes (OpenClaw's budget) |
| mistral | same as openai, base api.mistral.ai/v1 | 512 items |
| voyage  | POST {base}/embeddings {model, input[], input_type} | 1000 items |
| gemini  | POST {base}/models/{m}:batchEmbedContents / :embedContent | 100 items (#134015) |
| ollama  | POST {host}/api/embed {model, input[]} → embeddings[] (host without a trailing /v1) | 64 items |
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from ..scrub import register_headers, register_secret
from ..settings import API_KEY_ENV, RemoteProviderName
from .base import EmbeddingError, fingerprint, normalize_rows, plan_batches
from .http import HttpEmbedClient

# (base URL, default model, API key variable) of each remote provider; the key names come from
# the one provider table in settings.py
DEFAULTS: dict[RemoteProviderName, tuple[str, str, str]] = {
    "openai": ("https://api.openai.com/v1", "text-embedding-3-small", API_KEY_ENV["openai"]),
    "mistral": ("https://api.mistral.ai/v1", "mistral-embed", API_KEY_ENV["mistral"]),
    "voyage": ("https://api.voyageai.com/v1", "voyage-4-large", API_KEY_ENV["voyage"]),
    "gemini": ("https://generativelanguage.googleapis.com/v1beta", "gemini-embedding-001", API_KEY_ENV["gemini"]),
    "ollama": ("http://127.0.0.1:11434", "nomic-embed-text", API_KEY_ENV["ollama"]),
}
ITEM_LIMITS = {"openai": 2048, "mistral": 512, "voyage": 1000, "gemini": 100, "ollama": 64}
BYTE_LIMIT = 8000 * 8  # per request; each input is separately capped by the provider's token limit
MAX_INPUT_TOKENS = {"openai": 8192, "mistral": 8192, "voyage": 32000, "gemini": 2048, "ollama": 8192}


def _check_sendable(what: str, *values: str) -> None:
    """An HTTP header carries printable ASCII only: a key pasted with a line break, a non-breaking
    space or an accented letter used to end the whole command in httpx's UnicodeEncodeError, or in
    retries of a request that could never be sent. The message names where the value comes from,
    never the value."""
    for value in values:
        if any(not (" " <= ch <= "~" or ch == "\t") for ch in value):
            raise EmbeddingError(f"{what} holds a character an HTTP header cannot carry (a line break, a control "
                                 "character or a non-ASCII letter): check it for a stray character")


class RemoteProvider:
    """Shared batching, concurrency and validation; subclasses only speak their wire format."""

    sync_batch_items = 256

    def __init__(self, provider_id: RemoteProviderName, model: str, base_url: str, api_key: str, headers: dict[str, str],
                 timeout: float, max_retries: int, concurrency: int, sleep: Callable[[float], None] | None = None) -> None:
        self.id: str = provider_id
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.max_input_tokens = MAX_INPUT_TOKENS[provider_id]
        self.batch_max_items = ITEM_LIMITS[provider_id]
        self.batch_max_bytes = BYTE_LIMIT
        self.concurrency = max(1, concurrency)
        self.extra_headers = dict(headers)
        self._dims: int | None = None
        self._dims_lock = threading.Lock()
        env = DEFAULTS[provider_id][2]
        hint = f" (check {env} or remote.apiKey)" if env else ""
        kwargs = {"sleep": sleep} if sleep else {}
        _check_sendable(f"the API key{hint}", api_key)
        for name, value in self.extra_headers.items():
            _check_sendable(f"remote.headers: {name[:40]!r}", name, value)
        # Registered process-wide too: the sync and the CLI scrub text they never got from this client.
        register_secret(api_key)
        register_headers(self.extra_headers)
        secrets = tuple(v for k, v in self.extra_headers.items() if k.lower() in ("authorization", "x-goog-api-key"))
        self.client = HttpEmbedClient(provider_id, self.base_url, self._headers(api_key) | self.extra_headers,
                                      timeout, max_retries, key_hint=hint, secrets=(api_key, *secrets), **kwargs)

    def _headers(self, api_key: str) -> dict[str, str]:
        return {"Content-Type": "application/json", **({"Authorization": f"Bearer {api_key}"} if api_key else {})}

    @property
    def dims(self) -> int | None:
        return self._dims

    def provider_key(self) -> str:
        headers = sorted((k, v) for k, v in self.extra_headers.items() if k.lower() not in ("authorization", "x-goog-api-key"))
        return fingerprint({"provider": self.id, "model": self.model, "baseUrl": self.base_url, "headers": headers})

    # -- the wire format (subclasses) -------------------------------------------------------
    def _request_batch(self, texts: list[str]) -> list[Any]:
        raise NotImplementedError

    def _request_query(self, text: str) -> Any:
        return self._request_batch([text])[0]

    # -- shared ---------------------------------------------------------------------------------
    def _check(self, vectors: list[Any], expected: int) -> np.ndarray:
        if not isinstance(vectors, list) or len(vectors) != expected:
            got = len(vectors) if isinstance(vectors, list) else "no"
            raise EmbeddingError(f"{self.id}: malformed response ({got} vectors for {expected} inputs)")
        try:
            arr = np.asarray(vectors, dtype=np.float32)
        except (TypeError, ValueError):
            raise EmbeddingError(f"{self.id}: malformed response (vectors are not lists of numbers)") from None
        if arr.ndim != 2 or arr.shape[1] == 0:
            raise EmbeddingError(f"{self.id}: malformed response (vectors of different or zero length)")
        with self._dims_lock:
            if self._dims is None:
                self._dims = arr.shape[1]
            elif arr.shape[1] != self._dims:
                raise EmbeddingError(f"{self.id}: wrong dimensions ({arr.shape[1]}, expected {self._dims}); "
                                     "did the model change? run memtui index --force")
        return normalize_rows(arr)

    def embed_query(self, text: str) -> np.ndarray:
        vector: np.ndarray = self._check([self._request_query(text)], 1)[0]
        return vector

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, self._dims or 0), dtype=np.float32)
        plan = plan_batches(texts, self.batch_max_items, self.batch_max_bytes)

        def run(indexes: list[int]) -> np.ndarray:
            part = [texts[i] for i in indexes]
            return self._check(self._request_batch(part), len(part))

        if len(plan) == 1:
            return run(plan[0])
        with ThreadPoolExecutor(max_workers=min(self.concurrency, len(plan))) as pool:  # bounded in flight
            parts = list(pool.map(run, plan))
        return np.vstack(parts)


def _field(data: Any, *path: Any) -> Any:
    for key in path:
        try:
            data = data[key]
        except (KeyError, IndexError, TypeError):
            return None
    return data


class OpenAIStyleProvider(RemoteProvider):
    """OpenAI, Mistral and Voyage share `POST /embeddings` → `data[i].embedding`."""

    input_type: str | None = None

    def _body(self, texts: list[str], kind: str) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "input": texts}
        if self.id == "voyage":
            body["input_type"] = kind
        return body

    def _parse(self, data: Any, n: int) -> list[Any]:
        items = _field(data, "data")
        if not isinstance(items, list):
            raise EmbeddingError(f"{self.id}: malformed response (no 'data' list)")
        if all(isinstance(i, dict) and isinstance(i.get("index"), int) for i in items):
            items = sorted(items, key=lambda i: i["index"])
        return [i.get("embedding") if isinstance(i, dict) else None for i in items]

    def _request_batch(self, texts: list[str]) -> list[Any]:
        return self._parse(self.client.post("/embeddings", self._body(texts, "document")), len(texts))

    def _request_query(self, text: str) -> Any:
        return self._parse(self.client.post("/embeddings", self._body([text], "query")), 1)[0]


class GeminiProvider(RemoteProvider):
    def _headers(self, api_key: str) -> dict[str, str]:
        return {"Content-Type": "application/json", **({"x-goog-api-key": api_key} if api_key else {})}

    def _request_batch(self, texts: list[str]) -> list[Any]:
        body = {"requests": [{"model": f"models/{self.model}", "content": {"parts": [{"text": t}]},
                              "taskType": "RETRIEVAL_DOCUMENT"} for t in texts]}
        data = self.client.post(f"/models/{self.model}:batchEmbedContents", body)
        items = _field(data, "embeddings")
        if not isinstance(items, list):
            raise EmbeddingError("gemini: malformed response (no 'embeddings' list)")
        return [_field(i, "values") for i in items]

    def _request_query(self, text: str) -> Any:
        body = {"content": {"parts": [{"text": text}]}, "taskType": "RETRIEVAL_QUERY"}
        values = _field(self.client.post(f"/models/{self.model}:embedContent", body), "embedding", "values")
        if values is None:
            raise EmbeddingError("gemini: malformed response (no embedding.values)")
        return values


class OllamaProvider(RemoteProvider):
    def _request_batch(self, texts: list[str]) -> list[Any]:
        data = self.client.post("/api/embed", {"model": self.model, "input": texts})
        items = _field(data, "embeddings")
        if not isinstance(items, list):
            raise EmbeddingError("ollama: malformed response (no 'embeddings' list)")
        return items


CLASSES = {"openai": OpenAIStyleProvider, "mistral": OpenAIStyleProvider, "voyage": OpenAIStyleProvider,
           "gemini": GeminiProvider, "ollama": OllamaProvider}


def _strip_prefix(provider_id: str, model: str) -> str:
    for prefix in (f"{provider_id}/", "models/", "google/", "gemini/"):
        if model.startswith(prefix):
            model = model[len(prefix):]
    return model


def _ollama_api_base(url: str) -> str:
    """Ollama's native API sits at the server's root: OpenClaw drops a trailing slash and `/v1` (the
    OpenAI-compatible address people paste) before asking `{base}/api/embed`, and so does memtui."""
    url = url.rstrip("/")
    return url[:-3] if url.lower().endswith("/v1") else url


def resolve_base_url(provider_id: RemoteProviderName, configured: str) -> str:
    if provider_id == "ollama":
        if not configured and os.environ.get("OLLAMA_HOST"):
            host = os.environ["OLLAMA_HOST"]
            configured = host if "://" in host else f"http://{host}"
        return _ollama_api_base(configured) if configured else DEFAULTS[provider_id][0]
    if configured:
        return configured
    if provider_id == "openai" and os.environ.get("OPENAI_BASE_URL"):
        return os.environ["OPENAI_BASE_URL"]
    return DEFAULTS[provider_id][0]


def make_remote(provider_id: RemoteProviderName, model: str, remote: dict[str, Any],
                sleep: Callable[[float], None] | None = None) -> RemoteProvider:
    base_default, model_default, key_env = DEFAULTS[provider_id]
    api_key = remote.get("apiKey") or (os.environ.get(key_env, "") if key_env else "")
    if key_env and not api_key:
        raise EmbeddingError(f"No API key found for provider {provider_id}: set {key_env} or remote.apiKey, "
                             "or use --provider local")
    return CLASSES[provider_id](
        provider_id, _strip_prefix(provider_id, model or model_default), resolve_base_url(provider_id, remote.get("baseUrl", "")),
        api_key, remote.get("headers") or {}, float(remote.get("timeoutSeconds", 60.0)), int(remote.get("maxRetries", 3)),
        int(remote.get("concurrency", 2)), sleep,
    )
