#!/usr/bin/env python3
"""An embeddings server (OpenAI `/embeddings`, Gemini `:batchEmbedContents`, Ollama `/api/embed`) on 127.0.0.1
for building fixtures with the real OpenClaw.

    fake_embeddings_server.py PORT LOG

Each vector is a pure function of the text (sha256-seeded, 16 dims), so a fixture rebuilt later holds
the same vectors. Every request is appended to LOG as one JSON line (path, header names and values
except Authorization, number of inputs), which is how the fixture's README knows what OpenClaw sent.
"""

from __future__ import annotations

import hashlib
import json
import struct
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DIMS = 16


def vector(text: str) -> list[float]:
    digest = hashlib.sha256(text.encode("utf-8")).digest() * 2  # 64 bytes → 16 signed 32-bit ints
    return [v / 2**31 for v in struct.unpack("<16i", digest)]


def main() -> None:
    port, log = int(sys.argv[1]), sys.argv[2]

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            if self.path.split("?")[0].endswith(":batchEmbedContents"):  # Gemini
                inputs = [r["content"]["parts"][0]["text"] for r in body["requests"]]
                answer: object = {"embeddings": [{"values": vector(t)} for t in inputs]}
            elif self.path.split("?")[0].endswith(":embedContent"):
                inputs = [body["content"]["parts"][0]["text"]]
                answer = {"embedding": {"values": vector(inputs[0])}}
            else:  # OpenAI's /embeddings and Ollama's /api/embed
                inputs = body.get("input") or []
                inputs = [inputs] if isinstance(inputs, str) else inputs
                data = [{"object": "embedding", "index": i, "embedding": vector(t)} for i, t in enumerate(inputs)]
                answer = {"object": "list", "data": data, "model": body.get("model"), "embeddings": [vector(t) for t in inputs],
                          "usage": {"prompt_tokens": 0, "total_tokens": 0}}
            with open(log, "a", encoding="utf-8") as f:
                headers = {k: v for k, v in self.headers.items() if k.lower() != "authorization"}
                f.write(json.dumps({"path": self.path, "model": body.get("model"), "inputs": len(inputs),
                                    "headers": headers}) + "\n")
            raw = json.dumps(answer).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()


if __name__ == "__main__":
    main()
