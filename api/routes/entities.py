"""Entities: create, list, get with time travel, history (CONTRACT §2.3, §10)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query

from api.deps import AsOfDep, KnownAtDep, ReaderDep, ScopeDep, WriteOwner
from api.schemas import (
    EntityCreate,
    EntityList,
    EntityPublic,
    EntityWithFacts,
    FactList,
    FactPublic,
)
from api.write_deps import CommitterDep
from graph.errors import NotFound
from graph.names import search_key
from graph.scope import Scope

router = APIRouter(prefix="/v1/entities", tags=["entities"])
MAX_PAGE = 500
MAX_MERGE_HOPS = 20
"""A chain of merges (a into b into c) is followed this far."""


@router.post("", status_code=201, response_model=EntityPublic)
def create_entity(body: EntityCreate, owner: WriteOwner, committer: CommitterDep) -> EntityPublic:
    """Create an entity of the caller's owner.

    Body: `{name, kind, aliases?, area?}`. Returns 201 Entity. Needs scope `write`.
    """
    record = committer.create_entity(owner, body.name, body.kind, body.aliases, body.area)
    return EntityPublic.of(record)


@router.get("", response_model=EntityList)
def list_entities(
    scope: ScopeDep,
    reader: ReaderDep,
    q: Annotated[str | None, Query(max_length=200)] = None,
    kind: Annotated[str | None, Query(max_length=50)] = None,
    cursor: Annotated[str | None, Query(max_length=100)] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 100,
) -> EntityList:
    """List the owner's entities and those shared with it through groups, ordered by id.

    `q` matches names and aliases as a substring, case- and accent-insensitively;
    `kind` filters exactly. Returns `{items, next}`; pass `next` as `cursor` for the
    next page. `chat_id`: the asking chat's memory access applies (403 when `none`);
    `known_at`: the shares as known then. Needs scope `read`.
    """
    key = search_key(q) if q else None
    records = reader.entities(scope, q=key, kind=kind, after=cursor, limit=limit + 1)
    page = records[:limit]
    nxt = page[-1].id if len(records) > limit else None
    return EntityList(items=[EntityPublic.of(e) for e in page], next=nxt)


@router.get("/{entity_id}", response_model=EntityWithFacts)
def get_entity(entity_id: str, scope: ScopeDep, reader: ReaderDep, as_of: AsOfDep) -> EntityWithFacts:
    """Return an entity and its facts as of `(valid_at, known_at)` (both default to now).

    An entity merged into another (as known at `known_at`) answers with the survivor
    and says so in `merged_from` (CONTRACT §5); before the merge it answers as itself.
    An entity shared with the owner through a group answers like its own (CONTRACT §7).
    `chat_id`: the asking chat's memory access filters the facts.
    Errors: 404 when the id is neither the owner's nor shared with it (CONTRACT §7);
    403 when the chat's memory access is `none`; 422 for a timestamp without an offset.
    """
    entity = reader.entity(scope, entity_id, as_of.known_at)
    hops = 0
    while entity.merged_into is not None and hops < MAX_MERGE_HOPS:
        try:
            entity = reader.entity(scope, entity.merged_into, as_of.known_at)
        except NotFound:  # a shared entity merged into one that is not shared: the 404 names
            raise NotFound("entity", entity_id) from None  # the id asked for, never the other
        hops += 1
    facts = reader.facts(scope, entity.id, as_of)
    return EntityWithFacts(entity=EntityPublic.of(entity), facts=[FactPublic.of(f) for f in facts],
                           merged_from=entity_id if entity.id != entity_id else None)


@dataclass(frozen=True, slots=True)
class HistoryQuery:
    """The query parameters both history endpoints take (CONTRACT §2.3)."""

    known_at: datetime | None
    include_retracted: bool
    cursor: int
    limit: int


def history_query(
    known_at: KnownAtDep,
    include_retracted: bool = False,
    cursor: Annotated[int, Query(ge=0, description="offset of the page")] = 0,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = MAX_PAGE,
) -> HistoryQuery:
    """`known_at`, `include_retracted`, `cursor` (an offset) and `limit`."""
    return HistoryQuery(known_at, include_retracted, cursor, limit)


HistoryDep = Annotated[HistoryQuery, Depends(history_query)]


def _history(
    reader: ReaderDep, scope: Scope, entity_id: str, attribute: str | None, q: HistoryQuery
) -> FactList:
    reader.entity(scope, entity_id)
    rows = reader.history(scope, entity_id, attribute, q.known_at, q.include_retracted,
                          skip=q.cursor, limit=q.limit + 1)
    nxt = str(q.cursor + q.limit) if len(rows) > q.limit else None
    return FactList(items=[FactPublic.of(f) for f in rows[:q.limit]], next=nxt)


@router.get("/{entity_id}/history", response_model=FactList)
def entity_history(entity_id: str, scope: ScopeDep, reader: ReaderDep, q: HistoryDep) -> FactList:
    """Every row of every attribute of an entity (CONTRACT §2.3), by valid_from then recorded_at.

    `known_at` gives the history as known then; `include_retracted=true` lists every
    row on both axes (the audit view). Paginated by `cursor` (an offset) and `limit`.
    `chat_id`: the asking chat's memory access filters the rows (403 when `none`).
    Errors: 404 when the entity is neither the owner's nor shared with it.
    """
    return _history(reader, scope, entity_id, None, q)


@router.get("/{entity_id}/history/{attribute}", response_model=FactList)
def attribute_history(
    entity_id: str,
    attribute: Annotated[str, Path(max_length=100, pattern=r"^[a-z][a-z0-9_]*$")],
    scope: ScopeDep,
    reader: ReaderDep,
    q: HistoryDep,
) -> FactList:
    """Every value one attribute has held (CONTRACT §2.3), same order, shape, options and
    errors."""
    return _history(reader, scope, entity_id, attribute, q)
