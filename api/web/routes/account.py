"""Memory access per chat and the profile default, and erasing one's memory (CONTRACT §7,
§9; issue 14 "Memory access", "Erase my memory").

Through the REST routes' functions: `get_chat_access`, `get_profile_access`,
`put_chat_access`, `put_profile_access` and `erase_me` (which also ends the owner's
cached tokens). Setting access and erasing need scope `admin`, as on REST.
"""

from __future__ import annotations

from typing import Annotated
from urllib.parse import quote

from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from api.http.routes import memory_access, owners
from api.http.schemas.core import MemoryAccessIn
from api.web.deps import PosterDep, ReaderDep, ViewerDep, sessions
from api.web.render import PageRoute, page, see_other
from api.web.sessions import SESSION_COOKIE, clear_cookie
from committer.apply import SOURCES
from graph.attributes import known_areas

router = APIRouter(prefix="/memory", route_class=PageRoute, include_in_schema=False)
EMPTY_LIST_WARNING = "an empty list means this chat sees nothing in that axis"
"""The product's words for a restricted setting with an empty list (CONTRACT §7)."""
AREAS = tuple(sorted(known_areas()))
"""The boxes of the areas list: every area a memory access may list (`conversation` and
`knowledge` among them)."""
ChatField = Annotated[str, Form(max_length=200)]


@router.get("/access")
def access(
    request: Request,
    viewer: ViewerDep,
    reader: ReaderDep,
    chat: Annotated[str | None, Query(max_length=200)] = None,
) -> HTMLResponse:
    """The profile default and, with `chat`, that chat's effective setting and its origin."""
    owner = viewer.need("read")
    chat = (chat or "").strip() or None
    profile = memory_access.get_profile_access(owner, reader)
    chat_access = None if chat is None else memory_access.get_chat_access(chat, owner, reader)
    return page(
        request,
        viewer,
        "access.html",
        profile=profile,
        chat=chat,
        chat_access=chat_access,
        areas=AREAS,
        sources=SOURCES,
        warning=EMPTY_LIST_WARNING,
    )


@router.post("/access")
def set_access(
    request: Request,
    viewer: PosterDep,
    mode: Annotated[str, Form(max_length=20)],
    chat: ChatField = "",
    areas: Annotated[list[str], Form()] = [],  # noqa: B006 - FastAPI copies form defaults
    sources: Annotated[list[str], Form()] = [],  # noqa: B006
    more_sources: Annotated[str, Form(max_length=2000)] = "",
) -> RedirectResponse:
    """Store a chat's setting (or the profile default when `chat` is empty); under
    `restricted` the lists are the checked boxes (plus `integration:<name>` sources typed
    in), and an empty list lets nothing through. Under `full` and `none` the boxes the
    form still shows checked are not sent (the lists apply only under `restricted`)."""
    owner = viewer.need("admin")
    extra = [s.strip() for s in more_sources.split(",") if s.strip()]
    if mode != "restricted":
        areas, sources, extra = [], [], []
    body = MemoryAccessIn(mode=mode, areas=areas, sources=[*sources, *extra])
    committer = request.app.state.committer
    chat = chat.strip()
    if chat:
        stored = memory_access.put_chat_access(chat, body, owner, committer)
        where = f"chat {chat!r}"
    else:
        stored = memory_access.put_profile_access(body, owner, committer)
        where = "the profile default"
    text = f"memory access of {where} is now {stored.mode}"
    if stored.mode == "restricted":
        named = ", ".join(stored.areas) or "none"
        text += f" (areas: {named}; sources: {', '.join(stored.sources) or 'none'})"
    viewer.flash(text)
    return see_other("/memory/access" + (f"?chat={quote(chat)}" if chat else ""))


@router.get("/erase")
def erase_form(request: Request, viewer: ViewerDep) -> HTMLResponse:
    """Erase my memory: the form asks to type the owner's name."""
    viewer.need("read")
    return page(request, viewer, "erase.html", result=None)


@router.post("/erase", response_model=None)
def erase(
    request: Request,
    viewer: PosterDep,
    confirm: Annotated[str, Form(max_length=200)] = "",
) -> HTMLResponse:
    """Erase every row of the owner when `confirm` is the owner's name exactly (CONTRACT
    §9); the page reports `removed` and `remaining` and the session ends (its token is
    gone). A wrong name is a 422 and erases nothing."""
    owner = viewer.need("admin")
    result = owners.erase_me(request, owner, request.app.state.committer, confirm)
    sessions(request).close_digest(viewer.session.token_digest)
    response = page(request, None, "erased.html", result=result, owner=owner)
    clear_cookie(response, request, SESSION_COOKIE)
    return response
