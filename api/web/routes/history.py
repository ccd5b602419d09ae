"""The history of one attribute: a table and the bitemporal chart (CONTRACT §2.3; issue 14
"History of an attribute").

The rows come from the REST route's function (`attribute_history`, paginated by its
opaque cursor); the chart (api/web/chart.py) draws the rows of the page shown.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import HTMLResponse

from api.http.deps import PathId
from api.http.routes import entities as rest
from api.http.schemas.core import FactPublic
from api.web import chart
from api.web.deps import ReaderDep, ViewerDep, scope_of
from api.web.render import PageRoute, page
from api.web.routes.audit import entity_names
from api.web.timewords import field_value, read_time, rfc3339
from graph.time import AsOf, utcnow

router = APIRouter(prefix="/memory", route_class=PageRoute, include_in_schema=False)
PAGE, MAX_PAGE = 100, 200


@router.get("/entities/{entity_id}/history/{attribute}")
def history(
    entity_id: PathId,
    attribute: Annotated[str, Path(max_length=100, pattern=r"^[a-z][a-z0-9_]*$")],
    request: Request,
    viewer: ViewerDep,
    reader: ReaderDep,
    known_at: Annotated[str | None, Query(max_length=40)] = None,
    include_retracted: bool = False,
    cursor: Annotated[str | None, Query(max_length=1000)] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = PAGE,
) -> HTMLResponse:
    """Every value `attribute` has held (as known at `known_at`, default now), `limit` rows
    a page (100, at most 200), retracted rows too with `include_retracted` (the audit
    view); the chart draws the page's rows."""
    k = read_time(known_at, "known_at")
    scope = scope_of(reader, viewer, k)
    query = rest.HistoryQuery(k, include_retracted, cursor, limit)
    found = rest.attribute_history(entity_id, attribute, scope, reader, query)
    entity = rest.get_entity(entity_id, scope, reader, AsOf.at(known_at=k)).entity
    objects = {f.object_id for f in found.items if f.object_id}
    names = entity_names(reader, viewer, objects) if objects else {}

    def label(row: FactPublic) -> str:
        if row.object_id is not None:
            return names.get(row.object_id, "another entity")
        return str(row.value)

    svg = chart.render(
        found.items, utcnow(), label, f"Bitemporal chart of {entity.name}'s {attribute}"
    )
    return page(
        request,
        viewer,
        "history.html",
        entity=entity,
        attribute=attribute,
        rows=found.items,
        label=label,
        chart=svg,
        next=found.next,
        cursor=cursor,
        known_at=k,
        include_retracted=include_retracted,
        limit=limit,
        field_value=field_value,
        rfc3339=rfc3339,
        style_of=chart.style_of,
    )
