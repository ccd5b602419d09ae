"""Recall over facts and episodes: `GET /v1/search` (CONTRACT §6 "Pull", §10, §12).

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
    """Facts and episodes (what was said) relevant to `q`, in one ranking, as of
    `(valid_at, known_at)` (both default to now).

    Candidates are the semantic (the embedder's vectors) and full-text (the words of `q`)
    hits among facts and among episodes; each is scored on its own evidence: `score =
    0.42 x max(cosine, 0) + 0.42 x lexical_score + 0.16 x named`, where `lexical_score`
    is the share of the query's content words (English stems, weighed by rarity among
    the candidates) the item holds and `named` whether the query names an episode's
    speaker (full-text mode: 0.84 x lexical_score + 0.16 x named), rounded to 6 places;
    ties by kind (facts first) then id; one item per message (api/chat/search.py). Only
    rows and episodes visible at the as-of point (CONTRACT §2, §12) that the chat's
    memory access lets through (CONTRACT §7: episodes are area `conversation`); never
    pending proposals (they are not facts).

    Returns `{items, mode, degraded, detail, embedder}`; each item has `kind`: a `fact`
    item is `{kind, fact, entity, score, semantic_score, fulltext_score, lexical_score}`,
    an `episode` item `{kind, episode: {id, text, speaker, said_at, chat_id, run_id,
    message_id, source, ...}, score, semantic_score, fulltext_score, lexical_score}`.
    `mode` is `hybrid`, or `fulltext` with `detail` saying why (no embedder configured;
    or it failed, then `degraded` is true).
    `chat_id`: the asking chat's memory access applies; `known_at` also sets which group
    shares apply. The MCP tool `search` answers the same (api/chat/tools.py). Errors: 403
    when the chat's memory access is `none`; 422 for a blank or too long `q`, a `limit`
    outside 1-100, or a timestamp without an offset. Needs scope `read`.
    """
    return tools.search_in(reader, request.app.state.embedder, scope, q, as_of, limit)
