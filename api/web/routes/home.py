"""The Memory page's start: proposals to confirm, conflict notes and merge suggestions
(CONTRACT §3, §4, §2.1 rule 5; issue 14 "Proposals to confirm, at the top").

Reads and writes go through the REST routes' own functions (api/http/routes/), so the
page and REST answer alike: `list_proposals`, `keep_proposal`, `discard_proposal`,
`list_notifications`, `acknowledge`, `list_suggestions`, `confirm`, `decline`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from api.http.deps import PathId
from api.http.routes import merges, notifications, proposals
from api.web.answers import describe
from api.web.deps import PosterDep, ReaderDep, ViewerDep, scope_of
from api.web.render import PageRoute, page, see_other
from api.web.routes.audit import effects_of
from api.web.timewords import window

router = APIRouter(prefix="/memory", route_class=PageRoute, include_in_schema=False)
NOTE_KINDS = ("conflict", "merge_suggestion")
"""Notification kinds shown as notes (proposals are shown as proposals)."""
SHOWN = 50
"""Most proposals and most notes shown, the newest."""
PAGE, PAGES = 500, 20
"""The REST lists are oldest first: they are read page by page (at most 10,000 items) to
find the newest."""


def _newest(fetch: Callable[[str | None], Any]) -> tuple[list[Any], int]:
    """The newest `SHOWN` items of an oldest-first REST list, newest first, and the count."""
    items: list[Any] = []
    cursor = None
    for _ in range(PAGES):
        found = fetch(cursor)
        items.extend(found.items)
        cursor = found.next
        if cursor is None:
            break
    return list(reversed(items))[:SHOWN], len(items)


@router.get("")
def home(request: Request, viewer: ViewerDep, reader: ReaderDep) -> HTMLResponse:
    """Pending proposals, newest first, then the unacknowledged notes of the main chat and
    the open merge suggestions, newest first."""
    owner = viewer.need("read")
    pending, pending_count = _newest(
        lambda c: proposals.list_proposals(owner, reader, "pending", None, None, c, PAGE)
    )
    all_notes, _ = _newest(
        lambda c: notifications.list_notifications(owner, reader, None, False, c, PAGE)
    )
    notes = [n for n in all_notes if n.kind in NOTE_KINDS]
    open_ = merges.list_suggestions(owner, reader, "open").items
    ids = {i for s in open_ for i in s.entity_ids}
    ids |= {p.entity_id for p in pending if p.entity_id}
    ids |= {p.object_id for p in pending if p.object_id}
    names = {
        k: e.name for k, e in reader.entities_by_ids(scope_of(reader, viewer), list(ids)).items()
    }
    open_ids = {s.id for s in open_}
    noted = {n.suggestion_id for n in notes if n.suggestion_id}
    return page(
        request,
        viewer,
        "home.html",
        proposals=pending,
        pending_count=pending_count,
        notes=notes[:SHOWN],
        notes_count=len(notes),
        open_suggestions=open_ids,
        suggestions=[s for s in reversed(open_) if s.id not in noted],
        by_id={s.id: s for s in open_},
        names=names,
    )


@router.post("/proposals/{proposal_id}/keep")
def keep(proposal_id: PathId, viewer: PosterDep, request: Request) -> RedirectResponse:
    """Keep a proposal: the committer writes it (CONTRACT §3); the answer says what it did."""
    committer = request.app.state.committer
    kept = proposals.keep_proposal(proposal_id, viewer.need("curate"), committer)
    fact = kept.fact
    if fact is None:
        viewer.flash(f"kept: {kept.proposal.attribute} had nothing to end")
    else:
        viewer.flash(
            f"kept {fact.attribute} = "
            f"{fact.value if fact.value is not None else 'a relationship'} "
            f"({window(fact.valid_from, fact.valid_to)})"
        )
    return see_other("/memory")


@router.post("/proposals/{proposal_id}/discard")
def discard(proposal_id: PathId, viewer: PosterDep, request: Request) -> RedirectResponse:
    """Discard a proposal: it is suppressed and never proposed again (CONTRACT §3)."""
    committer = request.app.state.committer
    out = proposals.discard_proposal(proposal_id, viewer.need("curate"), committer)
    p = out.proposal
    viewer.flash(f"discarded {p.attribute} = {p.value}: it will not be proposed again")
    return see_other("/memory")


@router.post("/notes/{notification_id}/acknowledge")
def acknowledge(
    notification_id: PathId, viewer: PosterDep, request: Request, reader: ReaderDep
) -> RedirectResponse:
    """Acknowledge a note; it leaves the list (CONTRACT §10)."""
    committer = request.app.state.committer
    notifications.acknowledge(notification_id, viewer.need("curate"), reader, committer)
    viewer.flash("acknowledged")
    return see_other("/memory")


@router.post("/suggestions/{suggestion_id}/confirm")
def confirm(
    suggestion_id: PathId, viewer: PosterDep, request: Request, reader: ReaderDep
) -> RedirectResponse:
    """Confirm a merge suggestion: the younger entity merges into the older (CONTRACT §5)."""
    committer = request.app.state.committer
    done = merges.confirm(suggestion_id, viewer.need("curate"), committer)
    names = {done.entity.id: done.entity.name, done.merged.id: done.merged.name}
    said = describe(effects_of(reader, viewer, done.event_id), names) if done.event_id else []
    viewer.flash(
        f"merged {done.merged.name} into {done.entity.name}: {done.moved} facts moved; "
        + "; ".join(said)
    )
    return see_other(f"/memory/entities/{done.entity.id}")


@router.post("/suggestions/{suggestion_id}/decline")
def decline(suggestion_id: PathId, viewer: PosterDep, request: Request) -> RedirectResponse:
    """Decline a merge suggestion: the pair is never suggested again (CONTRACT §4)."""
    merges.decline(suggestion_id, viewer.need("curate"), request.app.state.committer)
    viewer.flash("declined: these two will not be suggested again")
    return see_other("/memory")
