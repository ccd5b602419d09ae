"""The assistant's read tools over REST (CONTRACT §6 "Pull", §10): lookup by name,
relationship traversal, and the time-travel diff. Each route is a thin shell over the
shared tool layer (api/chat/tools.py), which the MCP server calls too. `chat_id` applies that
chat's memory access (CONTRACT §7): `none` answers 403. Never imports the committer.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query

from api.chat import tools
from api.chat.schemas.pull import DiffOut, LookupOut, NeighborsOut
from api.http.deps import ChatIdQuery, PathId, ReaderDep, ReadOwner
from graph.fields import Timestamp

router = APIRouter(prefix="/v1", tags=["pull"])


def get_caller(
    owner: ReadOwner,
    chat_id: ChatIdQuery = None,
) -> tools.Caller:
    """The caller of a read tool: the token's owner (scope `read`) and the optional chat."""
    return tools.Caller(owner, chat_id)


CallerDep = Annotated[tools.Caller, Depends(get_caller)]
TimeQuery = Annotated[Timestamp | None, Query(description="RFC 3339 with offset")]


@router.get("/lookup", response_model=LookupOut)
def lookup(
    caller: CallerDep,
    reader: ReaderDep,
    name: Annotated[str, Query(min_length=1, max_length=200)],
    valid_at: TimeQuery = None,
    known_at: TimeQuery = None,
    limit: Annotated[int, Query(ge=1, le=tools.MAX_LOOKUP)] = 10,
) -> Any:
    """Entities whose name or an alias is `name`, case- and accent-insensitively (an exact
    match after normalization, unlike `GET /v1/entities?q=`), each with its facts at
    `(valid_at, known_at)` (default now). Returns `{items: [{entity, facts}]}`, oldest
    entity first. Errors: 403 memory off in `chat_id`; 422 blank name or naive time.
    Needs scope `read`.
    """
    return tools.lookup_entity(reader, caller, name, valid_at, known_at, limit)


@router.get("/entities/{entity_id}/neighbors", response_model=NeighborsOut)
def neighbors(
    entity_id: PathId,
    caller: CallerDep,
    reader: ReaderDep,
    depth: int = 1,
    valid_at: TimeQuery = None,
    known_at: TimeQuery = None,
) -> Any:
    """Entities related to this one within `depth` (1-3) hops, through relationship facts
    in either direction, as of `(valid_at, known_at)` (default now), each with `via`: the
    facts of a shortest path from this entity, in order (ties: smallest fact ids).
    Only facts and entities the caller may see are followed (CONTRACT §7).
    Returns `{items: [{entity, via: [Fact]}]}`, nearest first. Errors: 404 entity not
    visible; 403 memory off in `chat_id`; 422 `depth` outside 1..3 or a naive time.
    Needs scope `read`.
    """
    return tools.neighbors(reader, caller, entity_id, depth, valid_at, known_at)


@router.get("/entities/{entity_id}/diff", response_model=DiffOut)
def diff(
    entity_id: PathId,
    caller: CallerDep,
    reader: ReaderDep,
    from_: Annotated[Timestamp, Query(alias="from", description="T1, RFC 3339 with offset")],
    to: Annotated[Timestamp, Query(description="T2, RFC 3339 with offset")],
    axis: Literal["valid", "known"] = "valid",
    valid_at: TimeQuery = None,
    known_at: TimeQuery = None,
) -> Any:
    """What changed about this entity between `from` (T1) and `to` (T2) (CONTRACT §2).

    `axis=valid`: the facts holding at T1 against those holding at T2, under the
    knowledge of `known_at` (default now). `axis=known`: what the service believed at
    T1 against what it believed at T2 (rows recorded or retracted in between), at the
    point `valid_at` in the world, or over all of valid time when it is omitted.
    Returns `{entity, axis, from, to, valid_at, known_at, added, removed, changed:
    [{entity_id, attribute, before, after}]}` (rules in api/chat/tools.py `diff`).
    Errors: 422 `from` after `to`, a naive time, `valid_at` with axis=valid or
    `known_at` with axis=known; 404 entity not visible; 403 memory off in `chat_id`.
    Needs scope `read`.
    """
    return tools.diff(reader, caller, entity_id, from_, to, axis, valid_at, known_at)
