"""The Memory page (issue 14): server-rendered HTML on the REST routes' own functions.

`mount(app)` adds it to the API app under `/memory`, with its static files under
`/memory/static`. Templates and static files are package data beside this module:
`pip install` gives the whole page; it loads nothing from another host.
"""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from api.web.render import HERE
from api.web.routes import ROUTERS
from api.web.sessions import SessionStore


def mount(app: FastAPI) -> None:
    """Add the Memory page to `app`: its session store, routes and static files."""
    app.state.web_sessions = SessionStore()
    for router in ROUTERS:
        app.include_router(router)
    app.mount("/memory/static", StaticFiles(directory=HERE / "static"), name="memory-static")
