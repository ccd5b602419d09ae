"""One local OpenAI-compatible server for the tests (a test double shipped on purpose, no
monkeypatching): `POST /v1/embeddings` and `POST /v1/chat/completions`.

Embeddings come from the real local model (all-MiniLM-L6-v2, `graph.embedding.LocalEmbedder`),
so a search behind it is as real as with `WORLDSTATE_EMBEDDER=local`: only the transport
differs. Chat completions answer what each test sets (`complete`, `statements`, `stall`).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

from graph.embedding import Embedder, LocalEmbedder

LLM_MODEL = "tiny-test-model"
EMBED_MODEL = "minilm-over-http"
KEY = "test-key-123"


class FakeOpenAI:
    """The server, on 127.0.0.1 at an ephemeral port; use it as a context manager.

    Attributes:
        requests: (path, headers, parsed JSON body) of every request received.
        embeddings_status: the HTTP status `/v1/embeddings` answers (200 serves vectors).
        reply: what `/v1/chat/completions` answers: (status, body bytes), or None to hang up.
    """

    def __init__(self) -> None:
        self.requests: list[tuple[str, dict[str, str], Any]] = []
        self.embeddings_status = 200
        self.reply: Callable[[], tuple[int, bytes] | None] = lambda: (500, b"{}")
        self.release = threading.Event()
        self._embedder: Embedder | None = None
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output quiet
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                fake.requests.append((self.path, dict(self.headers), body))
                answer = fake.answer(self.path, body)
                if answer is None:  # hang up without answering
                    self.close_connection = True
                    return
                status, payload = answer
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
        """The OpenAI base URL, e.g. `http://127.0.0.1:41234/v1`."""
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def answer(self, path: str, body: Any) -> tuple[int, bytes] | None:
        """The response to one request."""
        if path == "/v1/chat/completions":
            return self.reply()
        if path == "/v1/embeddings":
            return self._embeddings(body)
        return 404, b'{"error": {"message": "not found"}}'

    def _embeddings(self, body: Any) -> tuple[int, bytes]:
        if self.embeddings_status != 200:
            return self.embeddings_status, b'{"error": {"message": "the embedder is down"}}'
        if self._embedder is None:
            self._embedder = LocalEmbedder()
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        vectors = self._embedder.embed(texts)
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

    def complete(self, content: str) -> None:
        """Answer every chat completion with a message whose content is `content`."""
        body = json.dumps(
            {
                "id": "chatcmpl-test",
                "object": "chat.completion",
                "created": 1683554160,
                "model": LLM_MODEL,
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": content},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
            }
        ).encode()
        self.reply = lambda: (200, body)

    def statements(self, *items: Any) -> None:
        """Answer with `{"statements": [...items]}`."""
        self.complete(json.dumps({"statements": list(items)}))

    def stall(self) -> None:
        """Answer only once the test is over (a timeout for the client)."""

        def wait() -> None:
            self.release.wait(10)  # the client gave up long ago: hang up

        self.reply = wait

    def start(self) -> Self:
        """Start serving (in a daemon thread)."""
        self.thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket."""
        self.release.set()
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
