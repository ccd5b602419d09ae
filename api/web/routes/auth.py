"""Sign in with a pasted token, sign out (issue 14: "Sign-in").

The sign-in form is protected against cross-site posts by a double-submit token: a
random value in an HttpOnly, SameSite=Strict cookie that the form must repeat. A
successful sign-in opens a new session (a fresh id, so no id set before sign-in
survives it) and drops the sign-in cookie.
"""

from __future__ import annotations

import secrets
from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from api.web.deps import PosterDep, sessions
from api.web.render import PageRoute, page, see_other
from api.web.sessions import (
    SESSION_COOKIE,
    SIGNIN_COOKIE,
    clear_cookie,
    same_token,
    set_cookie,
)
from graph.names import token_hash

router = APIRouter(prefix="/memory", route_class=PageRoute, include_in_schema=False)
MAX_TOKEN = 500


def _safe_next(target: str | None) -> str:
    """Where to go after signing in: a path of the Memory page, never another site."""
    if target and target.startswith("/memory") and not target.startswith("//"):
        return target
    return "/memory"


def _form(request: Request, error: str | None, next_: str | None, status: int) -> HTMLResponse:
    csrf = secrets.token_urlsafe(32)
    response = page(
        request,
        None,
        "sign_in.html",
        status=status,
        signin_csrf=csrf,
        error=error,
        next=_safe_next(next_),
    )
    set_cookie(response, request, SIGNIN_COOKIE, csrf)
    return response


@router.get("/sign-in")
def sign_in_form(request: Request, next: str | None = None) -> HTMLResponse:
    """The sign-in form: one password field for the token (`worldstate token create`)."""
    return _form(request, None, next, 200)


@router.post("/sign-in", response_model=None)
def sign_in(
    request: Request,
    token: Annotated[str, Form(max_length=MAX_TOKEN)] = "",
    csrf: Annotated[str | None, Form()] = None,
    next: Annotated[str | None, Form(max_length=500)] = None,
) -> HTMLResponse | RedirectResponse:
    """Check the pasted token (as a bearer token is checked) and open a session.

    Answers the form again with 401 for an unknown or revoked token, 403 when the form's
    CSRF token does not match its cookie.
    """
    if not same_token(request.cookies.get(SIGNIN_COOKIE, ""), csrf):
        return _form(request, "The form expired; paste the token again.", next, 403)
    digest = token_hash(token.strip())
    record = request.app.state.token_cache.lookup(digest) if token.strip() else None
    if record is None:
        return _form(request, "That token is unknown or revoked.", next, 401)
    sid, _ = sessions(request).open(digest)
    response = see_other(_safe_next(next))
    set_cookie(response, request, SESSION_COOKIE, sid)
    clear_cookie(response, request, SIGNIN_COOKIE)
    return response


@router.post("/sign-out")
def sign_out(request: Request, viewer: PosterDep) -> RedirectResponse:
    """End the session at once (its id stops working) and clear the cookie."""
    sessions(request).close(viewer.sid)
    response = see_other("/memory/sign-in")
    clear_cookie(response, request, SESSION_COOKIE)
    return response
