"""Cause and effect (CONTRACT §8): what a run or sync wrote and ended, and why a fact is
there. Both read through the REST routes' functions (`audit.effects`, `audit.why`).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse

from api.http.deps import PathId
from api.http.routes import audit
from api.http.schemas.audit import EffectsOut
from api.web.answers import describe
from api.web.deps import ReaderDep, Viewer, ViewerDep, scope_of
from api.web.render import PageRoute, page
from api.web.routes.episodes import run_messages
from graph.read.reader import Reader

router = APIRouter(prefix="/memory", route_class=PageRoute, include_in_schema=False)
PAGE = 100


def effects_of(reader: Reader, viewer: Viewer, event_id: str, skip: int = 0) -> EffectsOut:
    """An event's effects, as `GET /v1/events/{id}/effects` answers them."""
    return audit.effects(event_id, scope_of(reader, viewer), reader, skip, PAGE)


def entity_names(reader: Reader, viewer: Viewer, ids: set[str]) -> dict[str, str]:
    """Names of the entities among `ids` the viewer may see (others left out)."""
    found = reader.entities_by_ids(scope_of(reader, viewer), sorted(ids))
    return {k: e.name for k, e in found.items()}


@router.get("/events/{event_id}")
def event(
    event_id: PathId,
    request: Request,
    viewer: ViewerDep,
    reader: ReaderDep,
    skip: Annotated[int, Query(ge=0)] = 0,
) -> HTMLResponse:
    """A run's, sync's or action's cause and effect: the event, a summary in words, every
    row it wrote or ended (paginated, 100 a page), and a run's messages with "forget this
    conversation" (CONTRACT §12). 404 for another owner's id."""
    found = effects_of(reader, viewer, event_id, skip)
    ids = {e.entity_id for e in found.items if e.entity_id}
    ids |= {e.fact.object_id for e in found.items if e.fact and e.fact.object_id}
    names = entity_names(reader, viewer, ids)
    return page(
        request,
        viewer,
        "event.html",
        event_id=event_id,
        event=found.event,
        items=found.items,
        summary=describe(found, names) if found.items else [],
        names=names,
        messages=run_messages(reader, viewer, event_id),
        skip=skip,
        next_skip=None if found.next is None else int(found.next),
        page_size=PAGE,
    )
