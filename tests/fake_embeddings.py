"""A real HTTP server speaking the OpenAI ``POST /v1/embeddings`` API, in a thread of the
test process. Its vectors are the hashed embedder's at the requested size, so rankings are
plausible; it checks plumbing, not meaning. ``mode`` makes it misbehave on purpose."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from memwarden_shared.text.embedding import HashedNgramEmbedder


@dataclass
class FakeEmbeddings:
    url: str
    dim: int
    mode: str = "ok"  # ok | reversed | wrong_dim | status_500 | status_400 | slow | garbage
    requests: list[dict[str, Any]] = field(default_factory=list)
    auth_headers: list[str | None] = field(default_factory=list)

    def body_for(self, request: dict[str, Any]) -> tuple[int, bytes]:
        if self.mode == "status_500":
            return 500, b'{"error": "overloaded"}'
        if self.mode == "status_400":
            return 400, b'{"error": "bad model"}'
        if self.mode == "garbage":
            return 200, b"<html>not json</html>"
        if self.mode == "slow":
            time.sleep(1.5)
        size = self.dim + 1 if self.mode == "wrong_dim" else self.dim
        embedder = HashedNgramEmbedder(size)
        data = [
            {"object": "embedding", "index": i, "embedding": embedder.embed_one(t).tolist()}
            for i, t in enumerate(request["input"])
        ]
        if self.mode == "reversed":
            data.reverse()
        return 200, json.dumps({"object": "list", "data": data, "model": request["model"]}).encode()


@contextmanager
def fake_embedding_server(dim: int = 32) -> Iterator[FakeEmbeddings]:
    state: dict[str, FakeEmbeddings] = {}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # the http.server API names it
            fake = state["fake"]
            raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            if self.path != "/v1/embeddings":
                self.send_response(404)
                self.end_headers()
                return
            request = json.loads(raw)
            fake.requests.append(request)
            fake.auth_headers.append(self.headers.get("Authorization"))
            status, body = fake.body_for(request)
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:  # quiet
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    state["fake"] = FakeEmbeddings(url=f"http://127.0.0.1:{server.server_port}/v1", dim=dim)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state["fake"]
    finally:
        server.shutdown()
        server.server_close()
