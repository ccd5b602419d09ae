"""Semantic recall over facts: `GET /v1/search` (CONTRACT §6 "Pull", §10).

A chat read route: it reads through `graph.read.reader` and embeds the query with the
process's embedder (`graph.embedding`); it never imports the committer.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request

from api.chat import tools
from api.chat.schemas.search import SearchOut
from api.http.deps import AsOfDep, ReaderDep, ScopeDep

router = APIRouter(prefix="/v1", tags=["search"])

MAX_QUERY_CHARS = 1_000
"""Longest `q` (CONTRACT §9): longer is a 422 naming `q`."""


@router.get("/search", response_model=SearchOut)
def search(
    request: Request,
    scope: ScopeDep,
    reader: ReaderDep,
    as_of: AsOfDep,
    q: Annotated[
        str, Query(min_length=1, max_length=MAX_QUERY_CHARS, description="what to recall, in words")
    ],
    limit: Annotated[int, Query(ge=1, le=100)] = 10,
) -> Any:
    """Facts relevant to `q`, as of `(valid_at, known_at)` (both default to now).

    Combines semantic similarity (the embedder's vectors) and full-text matches of the
    words of `q`, fused by reciprocal rank fusion, ties by fact id (api/chat/search.py).
    Only rows visible at the as-of point (CONTRACT §2) that the chat's memory access lets
    through (CONTRACT §7); never pending proposals (they are not facts).

    Returns `{items: [{fact, entity, score, semantic_score, fulltext_score}], mode,
    degraded, detail, embedder}`: `mode` is `hybrid`, or `fulltext` with `detail` saying
    why (no embedder configured; or it failed, then `degraded` is true).
    `chat_id`: the asking chat's memory access applies; `known_at` also sets which group
    shares apply. The MCP tool `search` answers the same (api/chat/tools.py). Errors: 403
    when the chat's memory access is `none`; 422 for a blank or too long `q`, a `limit`
    outside 1-100, or a timestamp without an offset. Needs scope `read`.
    """
    return tools.search_in(reader, request.app.state.embedder, scope, q, as_of, limit)
