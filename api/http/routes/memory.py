"""Hubify's four-layer memory API on our own routes (issue 15; api/notes/hubify.py):
`GET /v1/memory?layer=messages|preferences|learnings|decisions|all`, `POST /v1/memory`."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query

from api.http.deps import ReaderDep
from api.http.openapi import SECRET_REFUSED
from api.http.routes.notes import LimitsDep, ReadCaller, WriteCaller
from api.http.write_deps import CommitterDep
from api.notes import hubify

router = APIRouter(prefix="/v1/memory", tags=["memory"])


@router.get("")
def read_memory(
    caller: ReadCaller,
    reader: ReaderDep,
    committer: CommitterDep,
    limits: LimitsDep,
    layer: Annotated[
        Literal["messages", "preferences", "learnings", "decisions", "all"], Query()
    ] = "all",
    limit: Annotated[int, Query(ge=1, le=hubify.MAX_ITEMS)] = 10,
) -> dict[str, Any]:
    """One layer `{layer, items, available}`, or with `layer=all` the four of them:
    messages (role, content, sessionId (the run), chatId, createdAt in Unix ms, newest
    first: the episodes of curated runs, area `conversation`), preferences (key, value),
    learnings (content, agentId, experimentId, confidence, createdAt), decisions (title,
    rationale, createdAt). Learnings and decisions count against the token's hourly
    reading ceilings. With `chat_id`, its memory access applies. Needs scope `read`."""
    return hubify.read(reader, committer, limits, caller, layer, limit)


@router.post("", status_code=201, responses=SECRET_REFUSED)
def write_memory(
    body: hubify.MemoryIn,
    caller: WriteCaller,
    reader: ReaderDep,
    committer: CommitterDep,
    limits: LimitsDep,
) -> dict[str, Any]:
    """Keep one item of a layer: `{layer, item}`. Preferences need key and value,
    learnings content, decisions title and rationale: a missing one is a 422 naming it,
    as is a field of another layer; the messages layer is kept from runs (POST /v1/runs),
    a 422 here, and so is a secret in any field (never stored). Needs scope `write`."""
    return hubify.write(reader, committer, limits, caller, body)
