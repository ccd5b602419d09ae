"""Notes: what the assistant keeps (decisions, hypotheses, questions, playbooks, ...), by
kind and project, with what is due for a second look (CONTRACT §13; issue 15 "a Notes tab
belongs there when both exist").

Reads go through the note service REST uses (api/notes/service.py `list_notes`, `due`), so
the page and `GET /v1/notes` answer alike. Titles and dates only: no body is read, so the
page does not count against a token's hourly reading ceilings.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse

from api.notes import service
from api.web.deps import ReaderDep, ViewerDep
from api.web.render import PageRoute, page
from graph.notes import KINDS
from graph.time import AsOf

router = APIRouter(prefix="/memory", route_class=PageRoute, include_in_schema=False)
PAGE = 50
"""Notes a page lists, and due notes it shows at most."""


@router.get("/notes")
def note_list(
    request: Request,
    viewer: ViewerDep,
    reader: ReaderDep,
    kind: Annotated[str | None, Query(max_length=50)] = None,
    project: Annotated[str | None, Query(max_length=200)] = None,
    cursor: Annotated[str | None, Query(max_length=500)] = None,
) -> HTMLResponse:
    """The notes the owner sees now, newest first, 50 a page (one per key: with `project`,
    its notes stand before the general ones), and the notes due for a second look.

    Raises:
        Forbidden: the token lacks scope `read`. InvalidInput: a cursor of another listing
            (both shown as error pages).
    """
    caller = service.NoteCaller(viewer.need("read"))
    kind = (kind or "").strip() or None
    project = (project or "").strip() or None
    as_of = AsOf.at()
    listed = service.list_notes(
        reader, request.app.state.note_limits, caller, as_of,
        project=project, kind=kind, cursor=cursor, limit=PAGE,
    )  # fmt: skip
    due = service.due(reader, caller, as_of, project=project, limit=PAGE)
    return page(
        request,
        viewer,
        "notes.html",
        items=listed["items"],
        next=listed["next"],
        warning=listed["warning"],
        due=due["items"],
        kind=kind or "",
        project=project or "",
        kinds=tuple(KINDS),
    )
