"""One HTTP client for every remote provider: timeouts, retries with backoff, Retry-After.

Retries: 429 and 5xx responses, timeouts and connection errors, up to `max_retries` more attempts.
The wait is the server's Retry-After when it sends one (seconds or an HTTP date, capped at 60 s),
else 0.5 s × 2^attempt with up to 20 % jitter, capped at 8 s — OpenClaw's schedule. API keys live
only in request headers; every error message leaves through `_fail`, which scrubs them (and
anything shaped like a key) out: a provider may echo our Authorization header in its error body.
"""

from __future__ import annotations

import email.utils
import random
import time
from collections.abc import Callable
from typing import Any

import httpx

from ..scrub import scrub
from .base import EmbeddingError

RETRY_AFTER_CAP = 60.0
BACKOFF_CAP = 8.0


def retry_after_seconds(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return min(RETRY_AFTER_CAP, max(0.0, float(value)))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return min(RETRY_AFTER_CAP, max(0.0, when.timestamp() - time.time()))


def backoff_seconds(attempt: int, rand: Callable[[], float] = random.random) -> float:
    return float(min(BACKOFF_CAP, 0.5 * (2**attempt) * (1 + 0.2 * rand())))


class HttpEmbedClient:
    def __init__(self, label: str, base_url: str, headers: dict[str, str], timeout: float = 60.0,
                 max_retries: int = 3, sleep: Callable[[float], None] = time.sleep, key_hint: str = "",
                 secrets: tuple[str, ...] = ()) -> None:
        self.label = label
        self.base_url = base_url.rstrip("/")
        self.max_retries = max_retries
        self.sleep = sleep
        self.key_hint = key_hint
        self.secrets = tuple(secrets)  # the key and sensitive header values this client sends
        self.requests = 0
        self._client = httpx.Client(headers=headers, timeout=httpx.Timeout(timeout, connect=min(timeout, 10.0)),
                                    follow_redirects=False)

    def _fail(self, message: str) -> EmbeddingError:
        """The one way out for an error: scrubbed before anyone can print or store it."""
        return EmbeddingError(scrub(message, self.secrets))

    def post(self, path: str, body: dict[str, Any]) -> Any:
        url = f"{self.base_url}{path}"
        attempt = 0
        while True:
            self.requests += 1
            try:
                response = self._client.post(url, json=body)
            except httpx.TimeoutException:
                problem, wait = "timed out", None
            except httpx.TransportError as exc:
                problem, wait = f"cannot reach {self.base_url} ({type(exc).__name__})", None
            else:
                status = response.status_code
                if status < 300:
                    try:
                        return response.json()
                    except ValueError:
                        raise self._fail(f"{self.label}: malformed response (not JSON) from {self.base_url}") from None
                if status in (401, 403):
                    raise self._fail(f"{self.label}: {status} invalid or unauthorised API key{self.key_hint}")
                if status != 429 and status < 500:
                    # scrub before shortening: a cut could leave a key's head that no longer matches
                    raise self._fail(f"{self.label}: HTTP {status}: {_short(scrub(response.text, self.secrets))}")
                problem = f"HTTP {status}" + (" rate limited" if status == 429 else "")
                wait = retry_after_seconds(response.headers.get("retry-after"))
            if attempt >= self.max_retries:
                raise self._fail(f"{self.label}: {problem} after {attempt + 1} attempts")
            self.sleep(wait if wait is not None else backoff_seconds(attempt))
            attempt += 1

    def close(self) -> None:
        self._client.close()


def _short(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "…"
