#!/usr/bin/env bash
# Let the real OpenClaw fill its embedding cache with provider "ollama" for the committed embedding-cache
# fixture's agent, and record what it stored in tests/fixtures/openclaw-2026.9.6-embcache/ollama.json.
#
#   scripts/make_embcache_ollama.sh ROOT [PORT]     # ROOT must not exist; PORT defaults to 46102
#
# ROOT gets a copy of tests/fixtures/openclaw-2026.9.6 with agent main's database and notes from the
# embedding-cache fixture (main.sqlite, ws-main/), so OpenClaw chunks the same texts as the OpenAI run;
# the committed main.sqlite is not changed. scripts/fake_embeddings_server.py answers Ollama's /api/embed
# on 127.0.0.1:PORT. Two runs, each `openclaw memory index --agent main --force`:
#   1. memory.search.remote.baseUrl = http://127.0.0.1:PORT (no headers);
#   2. baseUrl http://127.0.0.1:PORT/v1/ (OpenClaw strips the slash and /v1) with extra headers, one of them
#      a secret one (x-api-key) that OpenClaw leaves out of the key.
# Needs /work/shared/openclaw-real (or OPENCLAW_REAL) and its installed OpenClaw kit.
set -euo pipefail
ROOT=${1:?usage: make_embcache_ollama.sh ROOT [PORT]}
PORT=${2:-46102}
[ -e "$ROOT" ] && { echo "$ROOT exists; pick a new folder" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
real=${OPENCLAW_REAL:-/work/shared/openclaw-real}
dest="$repo/tests/fixtures/openclaw-2026.9.6-embcache"
eval "$("$real/install-openclaw.sh")"  # before HOME moves: the kit stays where it is installed
mkdir -p "$ROOT/home"
ROOT=$(cd "$ROOT" && pwd)
PYTHONPATH="$repo" python3 - "$repo" "$ROOT/oc" <<'PY'
import shutil, sys
from pathlib import Path
from tests.helpers import copy_openclaw_state
repo, root = Path(sys.argv[1]), Path(sys.argv[2])
fixture = repo / "tests" / "fixtures" / "openclaw-2026.9.6-embcache"
copy_openclaw_state(repo / "tests" / "fixtures" / "openclaw-2026.9.6", root)
shutil.rmtree(root / "ws-main")
shutil.copytree(fixture / "ws-main", root / "ws-main")
shutil.copy2(fixture / "main.sqlite", root / "state" / "agents" / "main" / "agent" / "openclaw-agent.sqlite")
PY
export HOME="$ROOT/home" OPENCLAW_STATE_DIR="$ROOT/oc/state" OPENCLAW_HIDE_BANNER=1
unset OPENCLAW_CONFIG_PATH OPENAI_API_KEY OPENAI_BASE_URL OLLAMA_HOST OLLAMA_API_KEY
log="$ROOT/embeddings-requests.jsonl"
python3 "$here/fake_embeddings_server.py" "$PORT" "$log" & srv=$!
trap 'kill $srv 2>/dev/null || true' EXIT
for _ in $(seq 50); do python3 -c "import socket; socket.create_connection(('127.0.0.1', $PORT), 1)" 2>/dev/null && break; sleep 0.1; done
oc() { openclaw "$@" >>"$ROOT/make-embcache-ollama.log" 2>&1; }
db="$OPENCLAW_STATE_DIR/agents/main/agent/openclaw-agent.sqlite"
keys() { python3 -c "import sqlite3, sys; c = sqlite3.connect(f'file:{sys.argv[1]}?mode=ro', uri=True)
print(' '.join(k for (k,) in c.execute(\"SELECT DISTINCT provider_key FROM memory_embedding_cache WHERE provider = 'ollama' ORDER BY 1\")))" "$db"; }
oc config set memory.search.provider ollama
oc config set memory.search.model nomic-embed-text
oc config set memory.search.remote "{\"baseUrl\":\"http://127.0.0.1:$PORT\"}" --strict-json
oc memory index --agent main --force
wc -l <"$log" >"$ROOT/requests-1"
keys >"$ROOT/keys-1"
oc config set memory.search.remote \
   "{\"baseUrl\":\"http://127.0.0.1:$PORT/v1/\",\"headers\":{\"X-Team\":\"memtui\",\"x-api-key\":\"fake-ollama-key\",\"Accept\":\"application/json\"}}" \
   --strict-json
oc memory index --agent main --force
keys >"$ROOT/keys-2"
python3 - "$db" "$dest/ollama.json" "$PORT" "$ROOT" "$log" <<'PY'
import json, sqlite3, struct, sys
db, out, port, root, log = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
src = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
meta = json.loads(src.execute("SELECT value FROM memory_index_meta WHERE key = 'memory_index_meta_v1'").fetchone()[0])
first = open(f"{root}/keys-1").read().split()
assert len(first) == 1, first
second = [k for k in open(f"{root}/keys-2").read().split() if k not in first]
assert len(second) == 1 and second == [meta["providerKey"]], (second, meta)
rows = src.execute("SELECT model, hash, dims, embedding FROM memory_embedding_cache WHERE provider = 'ollama'"
                   " AND provider_key = ? ORDER BY hash", (first[0],)).fetchall()
requests = [json.loads(line) for line in open(log, encoding="utf-8")]
n_first = int(open(f"{root}/requests-1").read())
norms = sorted({round(sum(x * x for x in struct.unpack(f"<{len(b) // 8}d", b)) ** 0.5, 6) for *_, b in rows})
json.dump({
    "model": rows[0][0],
    "runs": [
        {"remote": {"baseUrl": f"http://127.0.0.1:{port}"}, "providerKey": first[0],
         "requests": n_first, "inputs": sum(r["inputs"] for r in requests[:n_first]),
         "paths": sorted({r["path"] for r in requests[:n_first]})},
        {"remote": {"baseUrl": f"http://127.0.0.1:{port}/v1/",
                    "headers": {"X-Team": "memtui", "x-api-key": "fake-ollama-key", "Accept": "application/json"}},
         "providerKey": second[0], "requests": len(requests) - n_first,
         "inputs": sum(r["inputs"] for r in requests[n_first:]), "paths": sorted({r["path"] for r in requests[n_first:]})},
    ],
    "dims": sorted({r[2] for r in rows}),
    "norms": norms,
    "vectors": {h: b.hex() for _, h, _, b in rows},  # the first run's rows: float64 LE, as OpenClaw stored them
}, open(out, "w", encoding="utf-8"), indent=1)
PY
echo "written: $dest/ollama.json (state: $ROOT)"
