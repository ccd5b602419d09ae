"""The assistant's read tools (CONTRACT §6 "Pull"), shared by the REST routes
(api/chat/routes/pull.py) and the MCP server (api/mcp/server.py), so both answer alike.

Each tool is a plain function `(reader, caller, **arguments) -> dict` returning the
JSON-able shape of CONTRACT §10 (times UTC `Z`, open ends null). A tool resolves the
caller's `graph.scope.Scope` itself, at the `known_at` it reads (group shares are
resolved as known then), so a chat's memory access holds for every tool: `none`
raises `MemoryOff` (403 / a tool error), `restricted` lets through only the facts its
lists allow (CONTRACT §7). Pending proposals are never read here (CONTRACT §3).

Adding a tool is one function here (plus its route and its MCP registration).
This module never imports the committer (the chat read path, STYLE).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from api.chat import search as recall
from api.chat.schemas.pull import (
    ChangePublic,
    DiffOut,
    EntityFacts,
    LookupOut,
    Neighbor,
    NeighborsOut,
)
from api.chat.schemas.search import SearchOut
from api.http.schemas.core import EntityPublic, FactPublic
from graph.embedding import Embedder
from graph.errors import InvalidInput, MemoryOff, NotFound
from graph.fields import MAX_NAME
from graph.read.diff import diff_rows
from graph.read.pull import MAX_DEPTH
from graph.read.reader import Reader
from graph.records import EntityRecord, FactRecord
from graph.scope import Scope
from graph.time import AsOf, to_utc, utcnow

MAX_LOOKUP = 50
"""Most entities one lookup returns."""


@dataclass(frozen=True, slots=True)
class Caller:
    """Who asks: the token's owner and, optionally, the chat whose memory access applies.

    Attributes:
        owner: the owner id the bearer token is bound to.
        chat_id: the chat the assistant runs in, or None (the owner's full memory, as
            REST without `chat_id`).
    """

    owner: str
    chat_id: str | None = None


def scope_for(reader: Reader, caller: Caller, known_at: datetime | None = None) -> Scope:
    """Resolve what `caller` may read at `known_at` (default now).

    Raises:
        MemoryOff: the chat's memory access is `none` (CONTRACT §7 clean room).
    """
    scope = reader.scope(caller.owner, caller.chat_id, known_at)
    if scope.closed:
        raise MemoryOff(caller.chat_id)
    return scope


def _facts(rows: list[FactRecord]) -> list[FactPublic]:
    return [FactPublic.of(f) for f in rows]


def _entity_facts(reader: Reader, scope: Scope, entity_id: str, as_of: AsOf) -> EntityFacts:
    entity = reader.resolve(scope, entity_id, as_of.known_at).entity
    rows = reader.entity_rows(scope, [entity.id], as_of.known_at, as_of.valid_at)
    return EntityFacts(
        entity=EntityPublic.of(entity),
        facts=_facts(rows),
        merged_from=entity_id if entity.id != entity_id else None,
    )


def entity_facts(
    reader: Reader,
    caller: Caller,
    entity_id: str,
    valid_at: datetime | None = None,
    known_at: datetime | None = None,
) -> dict[str, Any]:
    """An entity and its facts at `(valid_at, known_at)`, both defaulting to now (§2).

    The time-travel tool: "what was true on Monday?" is `valid_at=Monday`, "what did you
    know on Monday?" is `known_at=Monday`. A merged id answers with its survivor and
    `merged_from` (CONTRACT §5).

    Returns:
        `{entity: Entity, facts: [Fact], merged_from: id | null}`.

    Raises:
        MemoryOff: memory access `none`. NotFound: the entity is not visible to the
        caller at `known_at`. NaiveTimestamp: a time without an offset.
    """
    as_of = AsOf.at(valid_at, known_at)
    scope = scope_for(reader, caller, as_of.known_at)
    return _entity_facts(reader, scope, entity_id, as_of).model_dump(mode="json")


def current_facts(
    reader: Reader,
    caller: Caller,
    entity_id: str,
    valid_at: datetime | None = None,
    known_at: datetime | None = None,
) -> dict[str, Any]:
    """The entity's facts at `(valid_at, known_at)` (default now), CONTRACT §10
    `GET /v1/entities/{id}/facts`: `{items: [Fact], next: null, entity_id, merged_from}`
    (one page). A merged id reads its survivor and says so.

    Raises:
        MemoryOff, NotFound, NaiveTimestamp: as `entity_facts`.
    """
    found = entity_facts(reader, caller, entity_id, valid_at, known_at)
    return {
        "items": found["facts"],
        "next": None,
        "entity_id": found["entity"]["id"],
        "merged_from": found["merged_from"],
    }


def lookup_entity(
    reader: Reader,
    caller: Caller,
    name: str,
    valid_at: datetime | None = None,
    known_at: datetime | None = None,
    limit: int = 10,
) -> dict[str, Any]:
    """Entities called `name`, by name or alias, with their facts (CONTRACT §6 lookup).

    The match is exact after normalization (`graph.names.search_key`: accents stripped,
    case folded, white space collapsed), so "zoe" finds "Zoë" and an alias finds its
    entity; entities merged into another by `known_at` are left out (their names live
    on as the survivor's aliases).

    Returns:
        `{items: [{entity, facts, merged_from: null}]}`, oldest entity first; facts at
        `(valid_at, known_at)`, both defaulting to now.

    Raises:
        InvalidInput: `name` blank or over 200 characters, `limit` outside 1..50.
        MemoryOff: memory access `none`.
    """
    if not name.strip() or len(name) > MAX_NAME:
        raise InvalidInput("name", f"give a name of 1 to {MAX_NAME} characters")
    if not 1 <= limit <= MAX_LOOKUP:
        raise InvalidInput("limit", f"must be 1..{MAX_LOOKUP}")
    as_of = AsOf.at(valid_at, known_at)
    scope = scope_for(reader, caller, as_of.known_at)
    with reader.snapshot() as tx:
        entities = tx.entities_named(scope, name, as_of.known_at, limit)
        rows = tx.entity_rows(scope, [e.id for e in entities], as_of.known_at, as_of.valid_at)
    by_entity: dict[str, list[FactRecord]] = {e.id: [] for e in entities}
    for row in rows:
        by_entity[row.entity_id].append(row)
    items = [
        EntityFacts(entity=EntityPublic.of(e), facts=_facts(by_entity[e.id])) for e in entities
    ]
    return LookupOut(items=items).model_dump(mode="json")


def neighbors(
    reader: Reader,
    caller: Caller,
    entity_id: str,
    depth: int = 1,
    valid_at: datetime | None = None,
    known_at: datetime | None = None,
) -> dict[str, Any]:
    """Entities related to `entity_id` within `depth` hops (CONTRACT §6 traversal, §10).

    Relationship rows (facts whose value is another entity) are followed in either
    direction, only when visible at `(valid_at, known_at)` and under the chat's memory
    access, and only to entities the caller may see. Each entity comes with `via`: the
    rows of a shortest path from the start, in order (ties broken by the smallest fact
    ids). A merged start id stands for its survivor.

    Returns:
        `{items: [{entity: Entity, via: [Fact]}]}`, nearest first, then by entity id.

    Raises:
        InvalidInput: `depth` not in 1..3. MemoryOff: memory access `none`.
        NotFound: the start entity is not visible. NaiveTimestamp: a time without offset.
    """
    if isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= MAX_DEPTH:
        raise InvalidInput("depth", f"must be an integer from 1 to {MAX_DEPTH}")
    as_of = AsOf.at(valid_at, known_at)
    scope = scope_for(reader, caller, as_of.known_at)
    start = reader.resolve(scope, entity_id, as_of.known_at).entity
    found = reader.neighbors(scope, start.id, depth, as_of)
    items = [Neighbor(entity=EntityPublic.of(e), via=_facts(list(path))) for e, path in found]
    return NeighborsOut(items=items).model_dump(mode="json")


def _rows_at(
    reader: Reader, caller: Caller, entity_id: str, known_at: datetime, valid_at: datetime | None
) -> tuple[EntityRecord | None, list[FactRecord]]:
    """The entity `entity_id` stands for at `known_at` and its rows then (None, [] when it
    was not visible then)."""
    scope = scope_for(reader, caller, known_at)
    try:
        entity = reader.resolve(scope, entity_id, known_at).entity
    except NotFound:
        return None, []
    return entity, reader.entity_rows(scope, [entity.id], known_at, valid_at)


def diff(
    reader: Reader,
    caller: Caller,
    entity_id: str,
    from_: datetime,
    to: datetime,
    axis: Literal["valid", "known"] = "valid",
    valid_at: datetime | None = None,
    known_at: datetime | None = None,
) -> dict[str, Any]:
    """What changed about an entity between `from_` (T1) and `to` (T2) on one time axis.

    * `axis="valid"` (what changed in the world): the facts holding at `valid_at=T1`
      against those holding at `valid_at=T2`, both under the knowledge of `known_at`
      (default now). `valid_at` must not be given.
    * `axis="known"` (what the service learned or unlearned): the rows believed at
      `known_at=T1` (`recorded_at <= T1 < retracted_at`) against those believed at T2,
      i.e. the rows recorded or retracted in between. With `valid_at` both reads are
      the as-of reads at that point in the world; without it they span all of valid
      time, so a valid window that moved counts as a change. `known_at` must not be given.

    Rows are compared by content (`graph.read.diff`): `added` rows are only in the T2 read,
    `removed` only in the T1 read, and `changed` pairs them per attribute of
    cardinality `one` (per value for `many`): location Paris -> Berlin is one change.
    The entity is read as it stands at each point (a merged id is its survivor); an
    entity that did not exist at T1 has no rows then. Group shares are taken as known
    at each read's `known_at`.

    Returns:
        `{entity, axis, from, to, valid_at, known_at, added: [Fact], removed: [Fact],
        changed: [{entity_id, attribute, before: [Fact], after: [Fact]}]}`.

    Raises:
        InvalidInput: `from` later than `to`; `valid_at` with the valid axis or
            `known_at` with the known axis; an unknown axis.
        NaiveTimestamp: a time without an offset (CONTRACT §2).
        MemoryOff: memory access `none`.
        NotFound: the entity is visible at neither point.
    """
    t1, t2 = to_utc(from_, "from"), to_utc(to, "to")
    if t1 > t2:
        raise InvalidInput("from", "must not be later than `to`")
    if axis == "valid":
        if valid_at is not None:
            raise InvalidInput(
                "valid_at",
                "the valid axis compares valid_at=from with valid_at=to; give known_at instead",
            )
        k = utcnow() if known_at is None else to_utc(known_at, "known_at")
        v = None
        first, before = _rows_at(reader, caller, entity_id, k, t1)
        second, after = _rows_at(reader, caller, entity_id, k, t2)
    elif axis == "known":
        if known_at is not None:
            raise InvalidInput(
                "known_at",
                "the known axis compares known_at=from with known_at=to; give valid_at instead",
            )
        k = None
        v = None if valid_at is None else to_utc(valid_at, "valid_at")
        first, before = _rows_at(reader, caller, entity_id, t1, v)
        second, after = _rows_at(reader, caller, entity_id, t2, v)
    else:
        raise InvalidInput("axis", "must be `valid` or `known`")
    entity = second or first
    if entity is None:
        raise NotFound("entity", entity_id)
    result = diff_rows(before, after, windows=axis == "known" and v is None)
    out = DiffOut(
        entity=EntityPublic.of(entity),
        axis=axis,
        from_=t1,
        to=t2,
        valid_at=v,
        known_at=k,
        added=_facts(list(result.added)),
        removed=_facts(list(result.removed)),
        changed=[
            ChangePublic(
                entity_id=c.entity_id,
                attribute=c.attribute,
                before=_facts(list(c.before)),
                after=_facts(list(c.after)),
            )
            for c in result.changed
        ],
    )
    return out.model_dump(mode="json", by_alias=True)


def search(
    reader: Reader,
    embedder: Embedder | None,
    caller: Caller,
    q: str,
    valid_at: datetime | None = None,
    known_at: datetime | None = None,
    limit: int = 10,
) -> dict[str, Any]:
    """Recall over the facts and episodes the caller sees (CONTRACT §6, §10 `GET /v1/search`,
    §12): `{items: [{kind: "fact", fact, entity, score, ...} | {kind: "episode", episode,
    score, ...}], mode, degraded, detail, embedder}`, one ranking scored on semantic and
    lexical evidence (api/chat/search.py).

    Raises:
        MemoryOff: memory access `none`. InvalidInput: a blank `q`.
        NaiveTimestamp: a time without an offset.
    """
    as_of = AsOf.at(valid_at, known_at)
    return search_in(reader, embedder, scope_for(reader, caller, as_of.known_at), q, as_of, limit)


def search_in(
    reader: Reader, embedder: Embedder | None, scope: Scope, q: str, as_of: AsOf, limit: int
) -> dict[str, Any]:
    """`search` for an already resolved (open) scope: the REST route's, whose `ScopeDep`
    resolved it. Same shape.

    Raises:
        InvalidInput: a blank `q`.
    """
    if not q.strip():
        raise InvalidInput("q", "must contain something to search for")
    return SearchOut.of(recall.search(reader, embedder, scope, q, as_of, limit)).model_dump(
        mode="json"
    )
