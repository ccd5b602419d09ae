"""Cause and effect: why a fact exists, what an event changed (CONTRACT §8, §10)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from api.http.deps import PathId, ReaderDep, ScopeDep
from api.http.schemas.audit import EffectPublic, EffectsOut, EventPublic, WhyOut
from api.http.schemas.core import CorroborationPublic, FactPublic
from api.http.schemas.episodes import EpisodePublic
from graph.fields import MAX_PAGE

router = APIRouter(prefix="/v1", tags=["audit"])


@router.get("/facts/{fact_id}/why", response_model=WhyOut)
def why(fact_id: PathId, scope: ScopeDep, reader: ReaderDep) -> WhyOut:
    """Why a row exists: `{fact, source, reason, evidence, chain, trigger, decided_by,
    corroborations, episodes}` (CONTRACT §8, §10, §12).

    `chain` lists the events that led to the row itself, oldest cause first: its own message
    (naming its `episode_id`), proposal, decision and commit (e.g. run -> message ->
    curation -> proposal -> decision -> commit, then the edit and the forget that made
    this row of it), each `{id, kind, at, actor, ...}`; the run's other messages and
    proposals are reached through `GET /v1/events/{run_id}/effects`. `episodes` is what
    was said in that message (its own words, and a pasted part), as the memory access
    lets the caller see it. `decided_by` is the decision, action or sync the row was
    written for, `trigger` the event that set it off. With `chat_id`, the chat's memory
    access applies: a row it keeps out answers 404, memory `none` answers 403.
    `known_at` sets which group shares apply (a row of an entity shared later answers
    404). Errors: 404 unknown id or another owner's. Needs scope `read`.
    """
    found = reader.why(scope, fact_id)
    corroborations = (
        reader.corroborations(scope, fact_id) if found.fact.owner == scope.owner else []
    )
    return WhyOut(
        fact=FactPublic.of(found.fact),
        source=found.fact.source,
        reason=found.fact.reason,
        evidence=found.fact.evidence,
        chain=[EventPublic.of(e) for e in found.chain],
        trigger=None if found.trigger is None else EventPublic.of(found.trigger),
        decided_by=None if found.cause is None else EventPublic.of(found.cause),
        corroborations=[CorroborationPublic(**c) for c in corroborations],
        episodes=[EpisodePublic.of(e) for e in found.episodes],
    )


@router.get("/events/{event_id}/effects", response_model=EffectsOut)
def effects(
    event_id: PathId,
    scope: ScopeDep,
    reader: ReaderDep,
    cursor: Annotated[int, Query(ge=0, description="offset of the page")] = 0,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = MAX_PAGE,
) -> EffectsOut:
    """What an event went on to change, transitively: `{event, items: [{fact_id, op,
    change, entity_id, at, commit_id, cause_id, fact}], next}` (CONTRACT §8, §10).

    `event_id` is a run id, a sync id, or any event id a `why` chain or a write's
    `event_id` names. Items are every row the commits it led to wrote (`created`,
    `remainder`, `restored`) or ended (`superseded`, `coalesced`, `invalidated`,
    `retracted`, `moved`), every episode they filed (a run's messages, op `recorded`,
    while not forgotten, CONTRACT §12) or forgot (`forgotten`), and every entity they
    archived, unarchived, merged or split off, oldest commit first; a run kept later
    counts (its proposal caused the keep).
    A run not applied yet answers `{event: null, items: []}`. With `chat_id`, rows the
    chat's memory access keeps out are left out; memory `none` answers 403.
    Paginated by `cursor` (an offset) and `limit`. Errors: 404 unknown id or another
    owner's. Needs scope `read`.
    """
    event, found = reader.effects(scope, event_id, skip=cursor, limit=limit + 1)
    nxt = str(cursor + limit) if len(found) > limit else None
    return EffectsOut(
        event=None if event is None else EventPublic.of(event),
        items=[EffectPublic.of(e) for e in found[:limit]],
        next=nxt,
    )
