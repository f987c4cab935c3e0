"""Remote providers against a real HTTP server on 127.0.0.1 speaking each provider's wire format."""

from __future__ import annotations

import numpy as np
import pytest

from openclaw_memtui.engine.embeddings.base import EmbeddingError
from openclaw_memtui.engine.embeddings.http import retry_after_seconds
from openclaw_memtui.engine.embeddings.registry import make_provider
from openclaw_memtui.engine.embeddings.remote import make_remote
from openclaw_memtui.engine.index import MemoryIndex

from .fake_api import DIMS, FakeAPI, vec_for
from .helpers import write


@pytest.fixture(params=["openai", "gemini", "voyage", "mistral", "ollama"])
def api(request):
    server = FakeAPI(request.param)
    yield server
    server.close()


def provider_for(api, monkeypatch, **remote):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret-key-123456")
    for env in ("GEMINI_API_KEY", "VOYAGE_API_KEY", "MISTRAL_API_KEY"):
        monkeypatch.setenv(env, "test-secret-key-123456")
    waits: list[float] = []
    provider = make_remote(api.flavour, "", {"baseUrl": api.url, "timeoutSeconds": 2.0, "maxRetries": 3,
                                             "concurrency": 2, **remote}, sleep=waits.append)
    return provider, waits


def test_success_and_wire_format(api, monkeypatch):
    provider, _ = provider_for(api, monkeypatch)
    vecs = provider.embed_batch(["alpha", "beta", "gamma"])
    assert vecs.shape == (3, DIMS) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    expected = np.asarray(vec_for("beta"), dtype=np.float32)
    assert np.allclose(vecs[1], expected / np.linalg.norm(expected), atol=1e-5)  # order follows `index`
    q = provider.embed_query("alpha")
    assert np.allclose(q, vecs[0], atol=1e-5)
    first, last = api.requests[0], api.requests[-1]
    if api.flavour == "gemini":
        assert first["path"].endswith("/models/gemini-embedding-001:batchEmbedContents")
        assert first["body"]["requests"][0]["taskType"] == "RETRIEVAL_DOCUMENT"
        assert last["path"].endswith(":embedContent") and first["headers"]["x-goog-api-key"] == "test-secret-key-123456"
    elif api.flavour == "ollama":
        assert first["path"] == "/api/embed" and first["body"]["model"] == "nomic-embed-text"
    else:
        assert first["path"] == "/embeddings" and first["body"]["input"] == ["alpha", "beta", "gamma"]
        assert first["headers"]["Authorization"].startswith("Bearer ")
    if api.flavour == "voyage":
        assert first["body"]["input_type"] == "document" and last["body"]["input_type"] == "query"


def test_batches_respect_item_limits(api, monkeypatch):
    provider, _ = provider_for(api, monkeypatch)
    provider.batch_max_items = 100 if api.flavour == "gemini" else 7
    texts = [f"text {i}" for i in range(150)]
    vecs = provider.embed_batch(texts)
    assert vecs.shape[0] == 150
    sizes = [len(r["body"].get("requests") or r["body"].get("input")) for r in api.requests]
    assert max(sizes) <= provider.batch_max_items and sum(sizes) == 150
    assert np.allclose(vecs[149], provider.embed_batch(["text 149"])[0], atol=1e-5)


def test_gemini_sends_at_most_100_items_per_request(monkeypatch):
    api = FakeAPI("gemini")  # batchEmbedContents accepts 100 requests at most
    try:
        provider, _ = provider_for(api, monkeypatch)  # the provider's own limit, not one set by the test
        vecs = provider.embed_batch([f"text {i}" for i in range(250)])
        sizes = sorted((len(r["body"]["requests"]) for r in api.requests), reverse=True)
        assert sizes == [100, 100, 50] and vecs.shape == (250, DIMS)
        expected = np.asarray(vec_for("text 249"), dtype=np.float32)
        assert np.allclose(vecs[249], expected / np.linalg.norm(expected), atol=1e-5)
    finally:
        api.close()


def test_429_honours_retry_after_and_500_retries(api, monkeypatch):
    provider, waits = provider_for(api, monkeypatch)
    api.script = [(429, {"Retry-After": "3"}, {"error": "rate limit"}, 0), (500, {}, {"error": "oops"}, 0)]
    vecs = provider.embed_batch(["one"])
    assert vecs.shape == (1, DIMS)
    assert waits[0] == 3.0 and 0.5 <= waits[1] <= 1.2
    assert len(api.requests) == 3


def test_gives_up_after_retries_with_one_line(api, monkeypatch):
    provider, waits = provider_for(api, monkeypatch)
    api.script = [(503, {}, {"error": "down"}, 0)] * 4
    with pytest.raises(EmbeddingError, match=r"HTTP 503 after 4 attempts") as err:
        provider.embed_batch(["one"])
    assert "\n" not in str(err.value) and len(waits) == 3


def test_timeout_is_retried_then_reported(api, monkeypatch):
    provider, _ = provider_for(api, monkeypatch, timeoutSeconds=0.1, maxRetries=1)  # each answer comes far later
    api.script = [(None, {}, None, 0.8), (None, {}, None, 0.8)]
    with pytest.raises(EmbeddingError, match="timed out after 2 attempts"):
        provider.embed_batch(["slow"])


def test_malformed_body_and_wrong_dims(api, monkeypatch):
    provider, _ = provider_for(api, monkeypatch)
    api.script = [(200, {}, b"<html>gateway</html>", 0)]
    with pytest.raises(EmbeddingError, match="malformed response"):
        provider.embed_batch(["x"])
    api.script = [(200, {}, {"unexpected": True}, 0)]
    with pytest.raises(EmbeddingError, match="malformed response"):
        provider.embed_batch(["x"])
    provider.embed_batch(["x"])
    api.dims = DIMS + 4
    with pytest.raises(EmbeddingError, match="wrong dimensions"):
        provider.embed_batch(["y"])


def test_invalid_key_is_not_retried_and_key_never_shown(api, monkeypatch):
    provider, waits = provider_for(api, monkeypatch)
    api.script = [(401, {}, {"error": {"message": "Incorrect API key provided"}}, 0)]
    with pytest.raises(EmbeddingError, match="401 invalid or unauthorised API key") as err:
        provider.embed_batch(["x"])
    assert waits == [] and "secret" not in str(err.value)


def test_provider_key_changes_with_settings_not_secret(api, monkeypatch):
    a, _ = provider_for(api, monkeypatch)
    b, _ = provider_for(api, monkeypatch, apiKey="another-secret-value-xyz")
    c, _ = provider_for(api, monkeypatch, baseUrl=api.url + "/v2")
    assert a.provider_key() == b.provider_key() != c.provider_key()


def test_retry_after_parsing():
    assert retry_after_seconds("7") == 7.0 and retry_after_seconds("1000") == 60.0
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0
    assert retry_after_seconds("soon") is None and retry_after_seconds(None) is None


def test_auto_prefers_a_present_key_else_local(monkeypatch):
    assert make_provider("auto").id == "local"
    monkeypatch.setenv("VOYAGE_API_KEY", "v-key-0123456789")
    assert make_provider("auto").id == "voyage"
    assert make_provider("none") is None
    monkeypatch.delenv("VOYAGE_API_KEY")
    with pytest.raises(EmbeddingError, match="No API key found for provider openai"):
        make_provider("openai")


@pytest.fixture
def openai_api(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret-key-123456")
    api = FakeAPI("openai")
    yield api
    api.close()


def notes(ws, n, template):
    for i in range(n):
        write(ws / "memory" / f"n{i}.md", template.format(i=i))
    return ws


def test_sync_degrades_and_keeps_partial_progress(tmp_path, make_settings, openai_api):
    api = openai_api
    ws = notes(tmp_path / "ws", 10, "note number {i} about topic {i}\n")
    remote = {"baseUrl": api.url, "maxRetries": 0, "timeoutSeconds": 2.0}
    index = MemoryIndex(make_settings(ws), provider_name="openai", remote=remote)
    index.provider.sync_batch_items = 2  # five batches; the third fails
    api.script = [(None, {}, None, 0), (None, {}, None, 0), (400, {}, {"error": "bad input"}, 0)]
    report = index.sync()
    assert "HTTP 400" in report.embed_error
    status = index.status()
    assert status.embedded == 4 and status.chunks == 10 and "HTTP 400" in status.provider_error
    pool = index.retrieve("note number 7")
    assert pool.candidates  # keyword search works throughout
    before = len(api.requests)
    report = index.sync()
    assert report.chunks_embedded == 6 and report.embed_error == ""
    assert len(api.requests) - before == 3  # only the 6 missing chunks were sent
    assert index.status().embedded == 10 and index.status().provider_error == ""


def test_embedding_cache_survives_rebuild(tmp_path, make_settings, openai_api):
    api = openai_api
    ws = notes(tmp_path / "ws", 5, "note {i}\n")
    remote = {"baseUrl": api.url}
    MemoryIndex(make_settings(ws), provider_name="openai", remote=remote).sync()
    sent = len(api.requests)
    index = MemoryIndex(make_settings(ws, chunk_tokens=300), provider_name="openai", remote=remote)
    report = index.sync()
    assert report.full_rebuild and report.embed_cache_hits == 5 and len(api.requests) == sent


def test_embedding_cache_is_pruned_least_recently_used_first(tmp_path, make_settings, openai_api):
    import time as _time

    from openclaw_memtui.engine.textutil import sha256_hex

    ws = notes(tmp_path / "ws", 3, "old note {i}\n")
    index = MemoryIndex(make_settings(ws, cache_max_entries=4), provider_name="openai", remote={"baseUrl": openai_api.url})
    index.sync()
    _time.sleep(0.01)
    for i in range(3):
        write(ws / "memory" / f"new{i}.md", f"new note {i}\n")
    index.sync()
    cached = {h for (h,) in index.store.conn.execute("SELECT hash FROM embedding_cache")}
    assert len(cached) == 4
    assert {sha256_hex(f"new note {i}\n") for i in range(3)} <= cached  # the newest survive
    assert index.status().embedded == 6  # pruning the cache never drops a chunk's own vector
