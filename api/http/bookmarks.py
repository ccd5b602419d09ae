"""Reading your own writes across API replicas: the `Worldstate-Bookmark` header.

A response to a request that wrote carries `Worldstate-Bookmark: <bookmarks>` (opaque,
comma-separated). A request that sends it back is served only once the Neo4j member
serving it has applied that write: every transaction of the request waits for it
(graph/bookmarks.py). Within one API process the wait is automatic; the header is for
a client whose next request may reach another replica (README "Reading your own
writes"). On a single Neo4j server the wait costs nothing.
"""

from __future__ import annotations

import re
from typing import Any

from starlette.datastructures import Headers, MutableHeaders

from api.http.errors import problem
from graph.bookmarks import causal

HEADER = "Worldstate-Bookmark"
"""The request and response header that carries bookmarks."""
MAX_BOOKMARKS = 16
"""Most bookmarks one request may send back (a write answers one per database)."""
_BOOKMARK = re.compile(r"[A-Za-z0-9:+/=_.\-]{1,512}")
"""The characters Neo4j's bookmarks are made of (base64 with a short prefix); anything
else is refused before it reaches the store."""

Scope = dict[str, Any]
Message = dict[str, Any]


def parse(value: str | None) -> tuple[str, ...] | None:
    """Split a header value into bookmarks; None when it is malformed.

    Args:
        value: the header's value, or None when absent.

    Returns:
        The bookmarks (empty when absent or blank), or None for a malformed value.
    """
    if value is None or not value.strip():
        return ()
    found = tuple(part.strip() for part in value.split(",") if part.strip())
    if len(found) > MAX_BOOKMARKS or not all(_BOOKMARK.fullmatch(b) for b in found):
        return None
    return found


class BookmarkHeaders:
    """Pure ASGI middleware: each request is one causal unit (graph.bookmarks.causal).

    Its transactions wait for the bookmarks sent in `Worldstate-Bookmark`; when it wrote,
    the response carries the write's bookmarks in the same header. A malformed header is
    a 422 problem+json naming it; one Neo4j cannot parse is the same 422, from the store
    (graph.errors.InvalidBookmark).

    Args:
        app: the wrapped ASGI app.
    """

    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        """Run the request inside its causal unit and add the header to its response."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        after = parse(Headers(scope=scope).get(HEADER))
        if after is None:
            detail = f"{HEADER}: send back, comma-separated, the bookmarks a response carried"
            response = problem(
                422,
                "Invalid request",
                detail,
                errors=[{"field": HEADER, "message": "not a list of bookmarks"}],
            )
            await response(scope, receive, send)
            return
        with causal(after, source=HEADER) as unit:

            async def send_with_bookmark(message: Message) -> None:
                if message["type"] == "http.response.start" and unit.written:
                    MutableHeaders(scope=message).append(HEADER, ",".join(unit.written))
                await send(message)

            await self.app(scope, receive, send_with_bookmark)
