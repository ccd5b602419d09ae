"""Entities: search and browse; one entity with time travel, what changed, and why
(CONTRACT §2, §5, §6, §8; issue 14 "Entities", "Entity detail").

Reads go through the REST routes' functions and the shared tool layer: `list_entities`,
`get_entity`, `audit.why` (api/http/routes/) and `tools.neighbors`, `tools.diff`
(api/chat/tools.py), each with the scope REST resolves (`tools.scope_for`).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse

from api.chat import tools
from api.http.deps import PathId
from api.http.routes import audit
from api.http.routes import entities as rest
from api.web.deps import ReaderDep, ViewerDep, scope_of
from api.web.render import PageRoute, page
from api.web.timewords import as_of_words, field_value, read_time, rfc3339
from graph.errors import NotFound
from graph.time import AsOf, utcnow

router = APIRouter(prefix="/memory", route_class=PageRoute, include_in_schema=False)
PAGE = 50
KINDS = ("person", "place", "organization", "project", "pet", "event", "device", "thing")
"""Kinds offered as suggestions in the filter (any kind can be typed)."""
TimeText = Annotated[str | None, Query(max_length=40)]


@router.get("/entities")
def entity_list(
    request: Request,
    viewer: ViewerDep,
    reader: ReaderDep,
    q: Annotated[str | None, Query(max_length=200)] = None,
    kind: Annotated[str | None, Query(max_length=50)] = None,
    cursor: Annotated[str | None, Query(max_length=1000)] = None,
) -> HTMLResponse:
    """Entities by name or alias (`q`, case- and accent-insensitive) and kind, 50 a page;
    archived and merged ones are marked."""
    q = (q or "").strip() or None
    kind = (kind or "").strip() or None
    found = rest.list_entities(scope_of(reader, viewer), reader, None, q, kind, cursor, PAGE)
    return page(
        request,
        viewer,
        "entities.html",
        items=found.items,
        next=found.next,
        q=q or "",
        kind=kind or "",
        kinds=KINDS,
    )


@router.get("/entities/{entity_id}")
def entity(
    entity_id: PathId,
    request: Request,
    viewer: ViewerDep,
    reader: ReaderDep,
    valid_at: TimeText = None,
    known_at: TimeText = None,
    open: Annotated[str | None, Query(max_length=200)] = None,
    changes: Literal["valid", "known"] | None = None,
    from_: Annotated[str | None, Query(alias="from", max_length=40)] = None,
    to: TimeText = None,
) -> HTMLResponse:
    """An entity as of `(valid_at, known_at)` (both default to now; form times are UTC):
    its facts and relationships, the as-of in words, the diff between two times when
    `changes` names an axis, and the `why` chain of the fact named by `open`."""
    v, k = read_time(valid_at, "valid_at"), read_time(known_at, "known_at")
    as_of = AsOf.at(v, k)
    scope = scope_of(reader, viewer, k)
    unknown_then = False
    try:
        found = rest.get_entity(entity_id, scope, reader, as_of)
    except NotFound:
        if k is None:
            raise
        # Not known yet at known_at: show it as it is now, with nothing known then.
        now = rest.get_entity(entity_id, scope_of(reader, viewer), reader, AsOf.at())
        found = now.model_copy(update={"facts": []})
        unknown_then = True
    me = tools.Caller(viewer.owner)
    near = [] if unknown_then else tools.neighbors(reader, me, found.entity.id, 1, v, k)["items"]
    names = {n["entity"]["id"]: n["entity"]["name"] for n in near}
    why = None
    if open:
        why = audit.why(open, scope_of(reader, viewer), reader)
    diff = _diff(reader, me, found.entity.id, changes, from_, to, v, k)
    attributes: dict[str, list[Any]] = {}
    for f in found.facts:
        attributes.setdefault(f.attribute, []).append(f)
    return page(
        request,
        viewer,
        "entity.html",
        entity=found.entity,
        merged_from=found.merged_from,
        unknown_then=unknown_then,
        attributes=attributes,
        facts=found.facts,
        neighbors=near,
        names=names,
        why=why,
        open=open,
        diff=diff,
        changes=changes,
        valid_at=v,
        known_at=k,
        travelling=v is not None or k is not None,
        words=as_of_words(v, k),
        field_value=field_value,
        rfc3339=rfc3339,
        query=_query(v, k),
        editable=v is None and k is None,
    )


def _query(v: Any, k: Any) -> str:
    """The as-of query string to keep in the page's links."""
    parts = []
    if v is not None:
        parts.append(f"valid_at={rfc3339(v)}")
    if k is not None:
        parts.append(f"known_at={rfc3339(k)}")
    return "&".join(parts)


def _diff(
    reader: Any,
    caller: tools.Caller,
    entity_id: str,
    axis: str | None,
    from_: str | None,
    to: str | None,
    v: Any,
    k: Any,
) -> dict[str, Any] | None:
    """The "what changed" panel: `tools.diff` on `axis` from `from_` (default: the page's
    time on that axis, else a week before now) to `to` (default now)."""
    if axis is None:
        return None
    end = read_time(to, "to") or utcnow()
    start = read_time(from_, "from") or (v if axis == "valid" else k)
    if start is None:
        start = end - timedelta(days=7)
    if axis == "valid":
        out = tools.diff(reader, caller, entity_id, start, end, "valid", known_at=k)
    else:
        out = tools.diff(reader, caller, entity_id, start, end, "known", valid_at=v)
    out["from_time"], out["to_time"] = start, end
    return out
