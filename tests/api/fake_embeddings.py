"""A local OpenAI-compatible embeddings server for the search tests (no monkeypatching).

It answers `POST /v1/embeddings` with vectors from the real local model (all-MiniLM-L6-v2,
through `graph.embedding.LocalEmbedder`), so the search behind it is as real as with
`WORLDSTATE_EMBEDDER=local`: only the transport differs. `fail()` makes it answer 500.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

from graph.embedding import LocalEmbedder

MODEL = "minilm-over-http"
KEY = "embed-key-456"


class FakeEmbeddings:
    """`POST /v1/embeddings` served on 127.0.0.1 from the real local model.

    `requests` holds (path, headers, parsed JSON body) of every request; `status` is the
    HTTP status to answer (200 serves vectors, anything else an error body).
    """

    def __init__(self) -> None:
        self.requests: list[tuple[str, dict[str, str], Any]] = []
        self.status = 200
        self.model = LocalEmbedder()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output quiet
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                fake.requests.append((self.path, dict(self.headers), body))
                status, payload = fake.answer(self.path, body)
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def answer(self, path: str, body: Any) -> tuple[int, bytes]:
        """The OpenAI embeddings response for `body`, or an error."""
        if path != "/v1/embeddings":
            return 404, b'{"error": {"message": "not found"}}'
        if self.status != 200:
            return self.status, b'{"error": {"message": "the embedder is down"}}'
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        vectors = self.model.embed(texts)
        return 200, json.dumps(
            {
                "object": "list",
                "model": body["model"],
                "data": [
                    {"object": "embedding", "index": i, "embedding": v}
                    for i, v in enumerate(vectors)
                ],
                "usage": {"prompt_tokens": len(texts), "total_tokens": len(texts)},
            }
        ).encode()

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
