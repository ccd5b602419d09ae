"""The Memory page (issue 14): server-rendered HTML on the REST routes' own functions.

`mount(app)` adds it to the API app under `/memory`, with its static files under
`/memory/static`. Templates and static files are package data beside this module:
`pip install` gives the whole page; it loads nothing from another host.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable

from fastapi import FastAPI, Request, Response
from fastapi.staticfiles import StaticFiles

from api.web.render import HERE
from api.web.routes import ROUTERS
from api.web.sessions import SESSION_COOKIE, SessionStore, SignedSessions, set_cookie


def mount(app: FastAPI) -> None:
    """Add the Memory page to `app`: its session store, routes and static files.

    `WORLDSTATE_WEB_SESSIONS=signed` (`serve --workers N`) keeps sessions in signed
    cookies, written back after each request that changed its session."""
    settings = app.state.settings
    if settings.web_sessions == "signed":
        key = settings.web_session_secret
        secret = key.get_secret_value().encode() if key else secrets.token_bytes(32)
        app.state.web_sessions = SignedSessions(secret)
        app.middleware("http")(_carry_signed_session)
    else:
        app.state.web_sessions = SessionStore()
    for router in ROUTERS:
        app.include_router(router)
    app.mount("/memory/static", StaticFiles(directory=HERE / "static"), name="memory-static")


async def _carry_signed_session(
    request: Request, call_next: Callable[[Request], Awaitable[Response]]
) -> Response:
    """Write a signed session back to its cookie when the request changed it (a flash
    kept for the next page, or shown), unless the route cleared the cookie (sign-out)."""
    response = await call_next(request)
    viewer = getattr(request.state, "viewer", None)
    if viewer is None or not request.url.path.startswith("/memory"):
        return response
    cleared = any(
        v.startswith(f"{SESSION_COOKIE}=".encode())
        for k, v in response.raw_headers
        if k == b"set-cookie"
    )
    if not cleared:
        sealed = request.app.state.web_sessions.reseal(viewer.sid, viewer.session)
        if sealed is not None:
            set_cookie(response, request, SESSION_COOKIE, sealed)
    return response
