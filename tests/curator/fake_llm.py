"""A local OpenAI-compatible HTTP server for the LLM extractor's tests (no monkeypatching)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODEL = "tiny-test-model"
KEY = "test-key-123"


class FakeLlm:
    """A local OpenAI-compatible server: `POST /v1/chat/completions` answers per test.

    Set `reply` to a callable returning (status, body bytes), or use the helpers.
    `requests` holds (path, headers, parsed JSON body) of every request received.
    """

    def __init__(self) -> None:
        self.requests: list[tuple[str, dict[str, str], Any]] = []
        self.reply: Callable[[], tuple[int, bytes] | None] = lambda: (500, b"{}")
        self.release = threading.Event()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output quiet
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                fake.requests.append((self.path, dict(self.headers), json.loads(body)))
                answer = fake.reply() if self.path == "/v1/chat/completions" else (404, b"{}")
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
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def complete(self, content: str) -> None:
        """Answer every request with a chat completion whose message is `content`."""
        body = json.dumps(
            {
                "id": "chatcmpl-test",
                "object": "chat.completion",
                "created": 1683554160,
                "model": MODEL,
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
