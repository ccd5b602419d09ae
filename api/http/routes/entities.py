"""Entities: create, list, get with time travel, history (CONTRACT §2.3, §5, §10)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query

from api.http.cursors import decode_entities, decode_history, encode_entities, encode_history
from api.http.deps import AsOfDep, KnownAtDep, PathId, ReaderDep, ScopeDep, WriteOwner
from api.http.openapi import SECRET_REFUSED
from api.http.schemas.core import (
    EntityCreate,
    EntityList,
    EntityPublic,
    EntityWithFacts,
    FactList,
    FactPublic,
)
from api.http.write_deps import CommitterDep
from graph.errors import InvalidInput
from graph.fields import MAX_PAGE
from graph.names import search_key
from graph.read.lifecycle import HistoryKey
from graph.scope import Scope
from graph.time import AsOf, utcnow

router = APIRouter(prefix="/v1/entities", tags=["entities"])


@router.post("", status_code=201, response_model=EntityPublic, responses=SECRET_REFUSED)
def create_entity(body: EntityCreate, owner: WriteOwner, committer: CommitterDep) -> EntityPublic:
    """Create an entity of the caller's owner.

    Body: `{name, kind, aliases?, area?}`. Returns 201 Entity. Errors: 422 a name or
    alias that carries a secret (a password, PIN ...; never stored), naming `name` or
    `aliases`. Needs scope `write`.
    """
    record = committer.create_entity(owner, body.name, body.kind, body.aliases, body.area)
    return EntityPublic.of(record)


@router.get("", response_model=EntityList)
def list_entities(
    scope: ScopeDep,
    reader: ReaderDep,
    known_at: KnownAtDep,
    q: Annotated[str | None, Query(max_length=200)] = None,
    kind: Annotated[str | None, Query(max_length=50)] = None,
    cursor: Annotated[str | None, Query(max_length=1000)] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 100,
) -> EntityList:
    """List the owner's entities and those shared with it through groups, ordered by id.

    `q` matches names and aliases as a substring, case- and accent-insensitively;
    `kind` filters exactly. With `known_at`, the entities that existed then, as they
    were (not yet merged, with the names and aliases they had: CONTRACT §5), and the
    shares as known then. `chat_id`: the asking chat's memory access applies (403 when
    `none`). Returns `{items, next}`; pass `next` as `cursor` (opaque) with the same
    `q`, `kind` and `known_at` for the next page; 422 `cursor` for one this listing did
    not give. Needs scope `read`.
    """
    key = search_key(q) if q else None
    after = None if cursor is None else decode_entities(cursor, q, kind, known_at)
    if known_at is None:
        records = reader.entities(scope, q=key, kind=kind, after=after, limit=limit + 1)
    else:
        records = reader.entities_as_of(
            scope, known_at, q=key, kind=kind, after=after, limit=limit + 1
        )
    page = records[:limit]
    nxt = encode_entities(q, kind, known_at, page[-1].id) if len(records) > limit else None
    return EntityList(items=[EntityPublic.of(e) for e in page], next=nxt)


def _known(as_of: AsOf) -> datetime | None:
    """`known_at` of a read, or None when it is now (the current entity, no look-back)."""
    return None if as_of.current else as_of.known_at


@router.get("/{entity_id}", response_model=EntityWithFacts)
def get_entity(
    entity_id: PathId, scope: ScopeDep, reader: ReaderDep, as_of: AsOfDep
) -> EntityWithFacts:
    """Return an entity and its facts as of `(valid_at, known_at)` (both default to now).

    An entity merged into another (as known at `known_at`) answers with the survivor
    and says so in `merged_from` (CONTRACT §5); before the merge it answers as itself.
    An entity shared with the owner through a group answers like its own (CONTRACT §7).
    `chat_id`: the asking chat's memory access filters the facts.
    Errors: 404 when the id is neither the owner's nor shared with it (CONTRACT §7);
    403 when the chat's memory access is `none`; 422 for a timestamp without an offset.
    """
    resolved = reader.resolve(scope, entity_id, _known(as_of))
    facts = reader.facts(scope, resolved.entity.id, as_of)
    return EntityWithFacts(
        entity=EntityPublic.of(resolved.entity),
        facts=[FactPublic.of(f) for f in facts],
        merged_from=resolved.merged_from,
    )


@dataclass(frozen=True, slots=True)
class HistoryQuery:
    """The query parameters both history endpoints take (CONTRACT §2.3)."""

    known_at: datetime | None
    include_retracted: bool
    cursor: str | None
    limit: int


def history_query(
    known_at: KnownAtDep,
    include_retracted: bool = False,
    cursor: Annotated[
        str | None, Query(max_length=1000, description="`next` of the previous page")
    ] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = MAX_PAGE,
) -> HistoryQuery:
    """`known_at`, `include_retracted`, `cursor` (opaque, `next` of a page) and `limit`."""
    return HistoryQuery(known_at, include_retracted, cursor, limit)


HistoryDep = Annotated[HistoryQuery, Depends(history_query)]


def _history(
    reader: ReaderDep, scope: Scope, entity_id: PathId, attribute: str | None, q: HistoryQuery
) -> FactList:
    known_at, after = q.known_at or utcnow(), None
    if q.cursor is not None:
        page = decode_history(q.cursor, entity_id, attribute, q.include_retracted)
        if q.known_at is not None and q.known_at != page.known_at:
            raise InvalidInput(
                "cursor", "it was made for another known_at; ask again without cursor"
            )
        known_at, after = page.known_at, page.after
        if q.known_at is None:  # a later page reads the first page's knowledge and shares
            shared = reader.scope(scope.owner, None, known_at).shared
            scope = Scope(scope.owner, scope.access, shared)
    resolved = reader.resolve(scope, entity_id, known_at)
    rows = reader.history(
        scope,
        resolved.entity.id,
        attribute,
        known_at,
        q.include_retracted,
        after=after,
        limit=q.limit + 1,
    )
    items = rows[: q.limit]
    nxt = None
    if len(rows) > q.limit:
        nxt = encode_history(
            entity_id, attribute, q.include_retracted, known_at, HistoryKey.of(items[-1])
        )
    return FactList(
        items=[FactPublic.of(f) for f in items],
        next=nxt,
        entity_id=resolved.entity.id,
        merged_from=resolved.merged_from,
    )


@router.get("/{entity_id}/history", response_model=FactList)
def entity_history(
    entity_id: PathId, scope: ScopeDep, reader: ReaderDep, q: HistoryDep
) -> FactList:
    """Every row of every attribute of an entity (CONTRACT §2.3): value, both time axes,
    status and provenance, ordered by valid_from, then recorded_at (then attribute, id).

    `known_at` gives the history as known then (default now); `include_retracted=true`
    lists every row recorded by then on both axes (the audit view, which also shows the
    rows of entities merged into this one). A merged id answers for its survivor
    (`entity_id`, `merged_from`: CONTRACT §5); before the merge, for itself as it was.
    Paginated: `{items, next}`; pass `next` back as `cursor` (with the same query) for
    the next page; every page reads the knowledge of the first. `chat_id`: the asking
    chat's memory access filters the rows (403 when `none`). Errors: 404 when the entity
    is neither the owner's nor shared with it; 422 `cursor` from another listing or
    altered, or a naive `known_at`.
    """
    return _history(reader, scope, entity_id, None, q)


@router.get("/{entity_id}/history/{attribute}", response_model=FactList)
def attribute_history(
    entity_id: PathId,
    attribute: Annotated[str, Path(max_length=100, pattern=r"^[a-z][a-z0-9_]*$")],
    scope: ScopeDep,
    reader: ReaderDep,
    q: HistoryDep,
) -> FactList:
    """Every value one attribute has held (CONTRACT §2.3), same order, shape, options and
    errors."""
    return _history(reader, scope, entity_id, attribute, q)
