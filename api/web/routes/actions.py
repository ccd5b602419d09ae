"""Changing memory from the page: Edit, Forget, Retract, Merge into…, Split (CONTRACT
§2.1, §2.2, §5; issue 14 "Actions").

Each action is two posts: the first shows what it will do and asks (a page with the
consequences and a confirm button), the second (`confirmed=1`) calls the REST route's
function, which calls the committer, and the next page shows the committer's answer
read back from the write's effects ("superseded Paris (2024-01-01 → 2024-06-01)").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from api.http.deps import PathId
from api.http.routes import entities as rest_entities
from api.http.routes import facts as rest_facts
from api.http.routes import merges, splits
from api.http.schemas.audit import SplitIn
from api.http.schemas.core import FactCreate
from api.http.schemas.proposals import MergeIn
from api.web.answers import describe
from api.web.deps import PosterDep, ReaderDep, Viewer, scope_of
from api.web.render import PageRoute, page, see_other
from api.web.routes.audit import effects_of, entity_names
from api.web.timewords import read_time, window
from graph.read.reader import Reader
from graph.time import AsOf

router = APIRouter(prefix="/memory", route_class=PageRoute, include_in_schema=False)
Text = Annotated[str, Form(max_length=20_000)]
Flag = Annotated[bool, Form()]


def _ask(
    request: Request,
    viewer: Viewer,
    title: str,
    lines: list[str],
    action: str,
    fields: Mapping[str, str | list[str]],
    button: str,
    back: str,
) -> HTMLResponse:
    """The confirmation page: what the action will do, a confirm button, a way back."""
    return page(
        request,
        viewer,
        "confirm.html",
        title=title,
        lines=lines,
        action=action,
        fields=fields,
        button=button,
        back=back,
    )


def _answer(reader: Reader, viewer: Viewer, event_id: str | None, prefix: str = "") -> None:
    """Flash the committer's answer for `event_id`, read back from its effects, after
    `prefix` when one is given."""
    if event_id is None:
        viewer.flash(prefix or "done")
        return
    found = effects_of(reader, viewer, event_id)
    ids = {e.entity_id for e in found.items if e.entity_id}
    ids |= {e.fact.object_id for e in found.items if e.fact and e.fact.object_id}
    said = describe(found, entity_names(reader, viewer, ids))
    viewer.flash((f"{prefix}: " if prefix else "") + "; ".join(said))


@router.post("/entities/{entity_id}/facts", response_model=None)
def edit(
    entity_id: PathId,
    request: Request,
    viewer: PosterDep,
    reader: ReaderDep,
    attribute: Annotated[str, Form(max_length=100)],
    value: Text,
    valid_from: Annotated[str, Form(max_length=40)] = "",
    valid_to: Annotated[str, Form(max_length=40)] = "",
    confirmed: Flag = False,
) -> HTMLResponse | RedirectResponse:
    """Edit: assert `attribute = value` from `valid_from` (default now) with source
    `user_edit`; a single-valued attribute's current value is superseded (CONTRACT §2.1)."""
    owner = viewer.need("write")
    body = FactCreate(
        attribute=attribute.strip(),
        value=value,
        valid_from=read_time(valid_from, "valid_from"),
        valid_to=read_time(valid_to, "valid_to"),
    )
    back = f"/memory/entities/{entity_id}"
    if not confirmed:
        current = rest_entities.get_entity(entity_id, scope_of(reader, viewer), reader, AsOf.at())
        same = [f for f in current.facts if f.attribute == body.attribute]
        lines = [f"Record {body.attribute} = {value} for {window(body.valid_from, body.valid_to)}."]
        lines += [
            f"It may supersede {f.value} ({window(f.valid_from, f.valid_to)}) where the windows "
            "overlap, if the attribute holds one value at a time."
            for f in same
        ]
        lines.append("The old value stays in the history; time travel still shows it.")
        fields = {"attribute": body.attribute, "value": value, "valid_from": valid_from}
        fields["valid_to"] = valid_to
        return _ask(
            request, viewer, "Edit a fact", lines, request.url.path, fields, "Record it", back
        )
    created = rest_facts.assert_fact(entity_id, body, owner, request.app.state.committer)
    _answer(reader, viewer, created.event_id)
    return see_other(back)


def _delete(
    fact_id: str, request: Request, viewer: Viewer, reader: Reader, mode: str, confirmed: bool
) -> HTMLResponse | RedirectResponse:
    owner = viewer.need("curate")
    fact = rest_facts.get_fact(fact_id, scope_of(reader, viewer), reader)
    back = f"/memory/entities/{fact.entity_id}"
    if not confirmed:
        what = f"{fact.attribute} = {fact.value if fact.value is not None else 'a relationship'}"
        if mode == "forget":
            lines = [
                f"Forget {what}: it no longer holds from now.",
                "Reads of the past still see it; nothing it replaced comes back.",
            ]
        else:
            lines = [
                f"Retract {what}: it was never true; the assertion is undone.",
                (
                    "Values it had superseded come back where nothing else covers them. "
                    "Reads as known before now still see it."
                ),
            ]
        return _ask(
            request,
            viewer,
            f"{mode.title()} a fact",
            lines,
            request.url.path,
            {},
            mode.title(),
            back,
        )
    done = rest_facts.delete_fact(fact_id, owner, request.app.state.committer, mode)  # type: ignore[arg-type]
    _answer(reader, viewer, done.event_id)
    return see_other(back)


@router.post("/facts/{fact_id}/forget", response_model=None)
def forget(
    fact_id: PathId, request: Request, viewer: PosterDep, reader: ReaderDep, confirmed: Flag = False
) -> HTMLResponse | RedirectResponse:
    """Forget a fact: it no longer holds from now (CONTRACT §2.2)."""
    return _delete(fact_id, request, viewer, reader, "forget", confirmed)


@router.post("/facts/{fact_id}/retract", response_model=None)
def retract(
    fact_id: PathId, request: Request, viewer: PosterDep, reader: ReaderDep, confirmed: Flag = False
) -> HTMLResponse | RedirectResponse:
    """Retract a fact: it was never true; what it superseded comes back (CONTRACT §2.2)."""
    return _delete(fact_id, request, viewer, reader, "retract", confirmed)


@router.post("/entities/{entity_id}/merge", response_model=None)
def merge(
    entity_id: PathId,
    request: Request,
    viewer: PosterDep,
    reader: ReaderDep,
    find: Annotated[str, Form(max_length=200)] = "",
    into: Annotated[str, Form(max_length=200)] = "",
    confirmed: Flag = False,
) -> HTMLResponse | RedirectResponse:
    """Merge into…: first find the survivor by name (`find`), then confirm `into`
    (CONTRACT §5); the merged entity is kept, marked merged."""
    owner = viewer.need("curate")
    scope = scope_of(reader, viewer)
    me = rest_entities.get_entity(entity_id, scope, reader, AsOf.at()).entity
    back = f"/memory/entities/{me.id}"
    if not confirmed or not into:
        q = find.strip() or None
        found = rest_entities.list_entities(scope, reader, None, q, None, None, 20)
        choices = [e for e in found.items if e.id != me.id and e.merged_into is None]
        return page(
            request,
            viewer,
            "merge.html",
            entity=me,
            choices=choices,
            find=find,
            back=back,
        )
    done = merges.merge(me.id, MergeIn(into=into), owner, request.app.state.committer)
    _answer(reader, viewer, done.event_id, f"merged {done.merged.name} into {done.entity.name}")
    return see_other(f"/memory/entities/{done.entity.id}")


@router.post("/entities/{entity_id}/split", response_model=None)
def split(
    entity_id: PathId,
    request: Request,
    viewer: PosterDep,
    reader: ReaderDep,
    name: Annotated[str, Form(max_length=200)] = "",
    fact_ids: Annotated[list[str], Form()] = [],  # noqa: B006 - FastAPI copies form defaults
    confirmed: Flag = False,
) -> HTMLResponse | RedirectResponse:
    """Split: move the chosen facts to a new entity called `name` (CONTRACT §5)."""
    owner = viewer.need("curate")
    body = SplitIn(fact_ids=fact_ids, name=name.strip(), aliases=[])
    back = f"/memory/entities/{entity_id}"
    if not confirmed:
        current = rest_entities.get_entity(entity_id, scope_of(reader, viewer), reader, AsOf.at())
        chosen = [f for f in current.facts if f.id in set(fact_ids)]
        lines = [f"Move {len(chosen)} facts to a new entity called {body.name!r}:"]
        lines += [f"{f.attribute} = {f.value} ({window(f.valid_from, f.valid_to)})" for f in chosen]
        lines.append("Time travel to before now still shows them where they were.")
        fields: dict[str, str | list[str]] = {"name": body.name, "fact_ids": fact_ids}
        return _ask(
            request, viewer, "Split an entity", lines, request.url.path, fields, "Split", back
        )
    made = splits.split(entity_id, body, owner, request.app.state.committer)
    viewer.flash(f"split {len(fact_ids)} facts off into {made.name}")
    return see_other(f"/memory/entities/{made.id}")
