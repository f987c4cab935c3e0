#!/usr/bin/env bash
# Build a state where the real OpenClaw filled its embedding cache, and copy agent main's database
# into tests/fixtures/openclaw-2026.9.6-embcache/ (read through SQLite's backup API: ROOT is not written).
#
#   scripts/make_embcache_fixture.sh ROOT [PORT]     # ROOT must not exist; PORT defaults to 46100
# Then scripts/make_embcache_ollama.sh (ROOT-ollama, PORT + 2) records the Ollama run on the copied fixture.
# Needs /work/shared/openclaw-real (or OPENCLAW_REAL) and its installed OpenClaw kit.
set -euo pipefail
ROOT=${1:?usage: make_embcache_fixture.sh ROOT [PORT]}
PORT=${2:-46100}
here=$(cd "$(dirname "$0")" && pwd)
real=${OPENCLAW_REAL:-/work/shared/openclaw-real}
dest="$here/../tests/fixtures/openclaw-2026.9.6-embcache"
OPENCLAW_FAKE_PORT=$((PORT + 1)) "$real/make-state.sh" "$ROOT"
. "$ROOT/env.sh"
log="$ROOT/embeddings-requests.jsonl"
python3 "$here/fake_embeddings_server.py" "$PORT" "$log" & srv=$!
trap 'kill $srv 2>/dev/null || true' EXIT
for _ in $(seq 50); do python3 -c "import socket; socket.create_connection(('127.0.0.1', $PORT), 1)" 2>/dev/null && break; sleep 0.1; done
oc() { openclaw "$@" >>"$ROOT/make-embcache.log" 2>&1; }
oc config set memory.search.provider openai
oc config set memory.search.model text-embedding-3-small
oc config set memory.search.remote "{\"baseUrl\":\"http://127.0.0.1:$PORT/v1\",\"apiKey\":\"sk-fake-embcache\"}" --strict-json
oc memory index --agent main --force
openclaw memory status --agent main --json > "$ROOT/status-main.json" 2>>"$ROOT/make-embcache.log"
mkdir -p "$dest"
python3 - "$ROOT/state/agents/main/agent/openclaw-agent.sqlite" "$dest/main.sqlite" <<'PY'
import sqlite3, sys
src = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
dst = sqlite3.connect(sys.argv[2])
src.backup(dst)
dst.execute("PRAGMA journal_mode=DELETE")  # no VACUUM: OpenClaw's schema uses octet_length, unknown to older SQLite
dst.close()
PY
cp "$log" "$dest/requests.jsonl"
rm -rf "$dest/ws-main" && mkdir -p "$dest/ws-main"
cp -r "$ROOT/ws-main/MEMORY.md" "$ROOT/ws-main/USER.md" "$ROOT/ws-main/memory" "$dest/ws-main/"
# then the same agent with Gemini (gemini-embedding-001) on the fake, to record the key OpenClaw derives for it
oc config set memory.search.provider gemini
oc config set memory.search.model gemini-embedding-001
oc config set memory.search.remote "{\"baseUrl\":\"http://127.0.0.1:$PORT/v1beta\",\"apiKey\":\"fake-gemini-key\"}" --strict-json
oc memory index --agent main --force
python3 - "$ROOT/state/agents/main/agent/openclaw-agent.sqlite" "$dest/gemini.json" "$PORT" <<'PY'
import json, sqlite3, sys
src = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
rows = src.execute("SELECT provider, model, provider_key, hash, dims FROM memory_embedding_cache WHERE provider = 'gemini'"
                   " ORDER BY hash").fetchall()
norms = [sum(x * x for x in __import__("struct").unpack(f"<{len(b) // 8}d", b)) ** 0.5
         for (b,) in src.execute("SELECT embedding FROM memory_embedding_cache WHERE provider = 'gemini'")]
json.dump({"baseUrl": f"http://127.0.0.1:{sys.argv[3]}/v1beta", "model": rows[0][1], "providerKey": rows[0][2],
           "hashes": [r[3] for r in rows], "dims": sorted({r[4] for r in rows}),
           "norms": sorted({round(n, 6) for n in norms})}, open(sys.argv[2], "w"), indent=1)
PY
kill $srv 2>/dev/null || true
"$here/make_embcache_ollama.sh" "$ROOT-ollama" $((PORT + 2))
echo "fixture written: $dest (state: $ROOT)"
