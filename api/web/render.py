"""Rendering the Memory page: the Jinja2 environment, its filters, and errors as pages.

Errors raised by the shared layers (graph.errors, validation) are answered with the
status, title and detail of the app's one error table (api/http/errors.py): the
handler registered there is asked for its problem+json, and the page shows the same
words in HTML. A missing session is a redirect to the sign-in form.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from fastapi import Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, RedirectResponse
from fastapi.routing import APIRoute
from fastapi.templating import Jinja2Templates
from pydantic import ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from api.http import errors
from api.web.deps import SignInNeeded, Viewer
from api.web.timewords import day, moment, window
from graph.errors import WorldstateError

HERE = Path(__file__).parent
FIRST_ERROR = 400
"""HTTP statuses from here on are errors, shown as the error page."""
templates = Jinja2Templates(directory=HERE / "templates")
templates.env.filters["moment"] = moment
templates.env.filters["day"] = day
templates.env.filters["window"] = window
templates.env.globals["base"] = "/memory"
NAV = {
    "home.html": "home",
    "entities.html": "entities",
    "entity.html": "entities",
    "history.html": "entities",
    "notes.html": "notes",
    "access.html": "access",
    "erase.html": "erase",
}
"""Which navigation link a page marks as the current one."""


def _scalar(value: Any) -> str:
    """A fact value as a person reads it (strings bare, others as JSON)."""
    if isinstance(value, str):
        return value
    return json.dumps(value)


templates.env.filters["scalar"] = _scalar


def page(
    request: Request,
    viewer: Viewer | None,
    template: str,
    *,
    status: int = 200,
    **context: Any,
) -> HTMLResponse:
    """Render `template` with the viewer, its CSRF token and its pending flash messages.

    Every page is `Cache-Control: no-store` (it shows private memory) and carries a
    Content-Security-Policy allowing only this server's own files.
    """
    flash: list[tuple[str, str]] = []
    if viewer is not None:
        flash, viewer.session.flash[:] = list(viewer.session.flash), []
    response = templates.TemplateResponse(
        request,
        template,
        {
            "viewer": viewer,
            "csrf": None if viewer is None else viewer.session.csrf,
            "flash": flash,
            "now": datetime.now(UTC),
            "nav": NAV.get(template),
            **context,
        },
        status_code=status,
    )
    secure_headers(response)
    return response


def secure_headers(response: Response) -> None:
    """Headers every Memory page response carries: no caching, own files only, no framing."""
    response.headers["Cache-Control"] = "no-store"
    response.headers["Content-Security-Policy"] = (
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
        "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    )
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "same-origin"


def see_other(url: str) -> RedirectResponse:
    """Redirect after a POST (303), so reloading the page never repeats the action."""
    response = RedirectResponse(url, status_code=303)
    secure_headers(response)
    return response


async def problem_of(request: Request, exc: Exception) -> tuple[int, str, str]:
    """`(status, title, detail)` of `exc`: the one error table (`api.http.errors.problem_of`)
    for ours; for anything else (validation, a bug), the app's own handler's answer."""
    if isinstance(exc, WorldstateError):
        found = errors.problem_of(exc)
        return found.status, found.title, found.detail
    handler = None
    for cls in type(exc).__mro__:
        handler = request.app.exception_handlers.get(cls)
        if handler is not None:
            break
    if handler is None:  # pragma: no cover - errors.install registers Exception itself
        raise exc
    answer = await handler(request, exc)
    body = json.loads(answer.body)
    return int(body["status"]), str(body["title"]), str(body["detail"])


class PageRoute(APIRoute):
    """A route of the Memory page: errors answer as HTML pages, a missing session as a
    redirect to the sign-in form (with `next` set to the page asked for)."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        """Wrap FastAPI's handler (dependencies, validation and the endpoint)."""
        inner = super().get_route_handler()

        async def handler(request: Request) -> Response:
            try:
                return await inner(request)
            except SignInNeeded:
                target = "/memory/sign-in"
                if request.method == "GET" and request.url.path != "/memory/sign-in":
                    target += "?next=" + quote(request.url.path, safe="/")
                return see_other(target)
            except ValidationError as exc:  # a form's model (FactCreate...): as REST's 422
                status, title, detail = await problem_of(
                    request, RequestValidationError(exc.errors(include_url=False))
                )
                viewer = getattr(request.state, "viewer", None)
                return page(
                    request, viewer, "error.html", status=status, title=title, detail=detail
                )
            except Exception as exc:
                if isinstance(exc, StarletteHTTPException) and exc.status_code < FIRST_ERROR:
                    raise
                status, title, detail = await problem_of(request, exc)
                viewer = getattr(request.state, "viewer", None)
                return page(
                    request, viewer, "error.html", status=status, title=title, detail=detail
                )

        return handler
