"""A loopback HTTP server that answers like each remote embedding provider (OpenAI, Gemini, Voyage, Mistral, Ollama)."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np

DIMS = 8


def vec_for(text: str, dims: int = DIMS) -> list[float]:
    rng = np.random.default_rng(abs(hash(text)) % (2**32))
    return [float(x) for x in rng.standard_normal(dims)]


class FakeAPI:
    """Answers like the real service; `script` queues special answers (status, headers, body, delay)."""

    def __init__(self, flavour: str) -> None:
        self.flavour = flavour
        self.script: list[tuple] = []
        self.requests: list[dict] = []
        self.dims = DIMS
        api = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                api.requests.append({"path": self.path, "body": body, "headers": dict(self.headers)})
                if api.script:
                    status, headers, payload, delay = api.script.pop(0)
                    time.sleep(delay)
                    if status is not None:
                        return self._send(status, payload, headers)
                self._send(200, api.answer(self.path, body), {})

            def _send(self, status, payload, headers):
                raw = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    for k, v in headers.items():
                        self.send_header(k, v)
                    self.send_header("Content-Length", str(len(raw)))
                    self.end_headers()
                    self.wfile.write(raw)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()

    def answer(self, path: str, body: dict):
        if self.flavour == "gemini":
            if path.endswith(":embedContent"):
                return {"embedding": {"values": vec_for(body["content"]["parts"][0]["text"], self.dims)}}
            return {"embeddings": [{"values": vec_for(r["content"]["parts"][0]["text"], self.dims)} for r in body["requests"]]}
        if self.flavour == "ollama":
            return {"model": body["model"], "embeddings": [vec_for(t, self.dims) for t in body["input"]]}
        data = [{"object": "embedding", "index": i, "embedding": vec_for(t, self.dims)} for i, t in enumerate(body["input"])]
        return {"object": "list", "data": list(reversed(data)), "model": body["model"]}  # index order, not list order

    def close(self):
        self.server.shutdown()
