"""Request size limit as pure ASGI middleware (CONTRACT §9: over a bound is 413).

Counts the bytes actually received, so a chunked body without `Content-Length` is held
to the same bound as one that declares its length; nothing of an oversized request
reaches a route, so nothing is half-written.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.exceptions import HTTPException

Scope = dict[str, Any]
Message = dict[str, Any]


class BodyTooLarge(HTTPException):
    """Raised inside `receive` once more than the allowed bytes arrived.

    An HTTPException, so FastAPI's body reading passes it on to the problem+json
    handler as a 413 rather than turning it into a 400.
    """

    def __init__(self, max_bytes: int):
        super().__init__(413, f"The body is over {max_bytes} bytes.")


class BodyLimit:
    """Refuse request bodies over `max_bytes` with a 413 problem+json.

    Args:
        app: the wrapped ASGI app.
        max_bytes: the largest body accepted, in bytes.
    """

    def __init__(self, app: Any, max_bytes: int):
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        """Pass the request on, counting body bytes; answer 413 past the limit."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await self._refuse(send, int(declared))
            return
        received = 0
        started = False

        async def counting_receive() -> Message:
            nonlocal received
            message: Message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    raise BodyTooLarge(self.max_bytes)
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counting_receive, tracking_send)
        except BodyTooLarge:
            if not started:
                await self._refuse(send, received)

    async def _refuse(self, send: Any, size: int) -> None:
        body = json.dumps(
            {
                "type": "about:blank",
                "title": "Request too large",
                "status": 413,
                "detail": f"The body is over {self.max_bytes} bytes (at least {size} received).",
            }
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [
                    (b"content-type", b"application/problem+json"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
