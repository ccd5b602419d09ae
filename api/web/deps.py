"""Who looks at the Memory page, and what they may do: the page's request dependencies.

The signed-in person is a `Viewer`: the owner and scopes of the token they pasted,
checked again on every request through the app's `TokenCache` (the same check as a
bearer token on REST, api/http/deps.py). Reads resolve their scope through
`api.chat.tools.scope_for`, the function behind REST's `ScopeDep`; writes need the same
scopes as the REST routes they call (CONTRACT §7), and every POST carries the session's
CSRF token.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Annotated

from fastapi import Depends, Form, Request

from api.chat import tools
from api.web.sessions import SESSION_COOKIE, Session, SessionStore, SignedSessions, same_token
from graph.errors import Forbidden, WorldstateError
from graph.read.reader import Reader
from graph.scope import Scope


class SignInNeeded(WorldstateError):
    """No live session (never signed in, signed out, expired, or its token revoked):
    answered by a redirect to the sign-in form."""


class BadCsrf(Forbidden):
    """A form came without this session's CSRF token (maps to 403)."""

    def __init__(self) -> None:
        super().__init__(
            "This form is out of date or did not come from the Memory page "
            "(its CSRF token is missing or wrong); reload the page and try again."
        )


@dataclass(frozen=True, slots=True)
class Viewer:
    """The signed-in person.

    Attributes:
        owner: the owner id the token is bound to.
        scopes: the token's scopes (`read`, `write`, `curate`, `admin`).
        sid: the session id (from the cookie).
        session: the server-side session (CSRF token, flash).
    """

    owner: str
    scopes: frozenset[str]
    sid: str
    session: Session

    def can(self, scope: str) -> bool:
        """Whether the token has `scope` (or `admin`), as REST's `require` decides."""
        return scope in self.scopes or "admin" in self.scopes

    def need(self, scope: str) -> str:
        """The owner id, when the token has `scope`.

        Raises:
            Forbidden: 403 naming the missing scope (the page shows no control for it,
                so only a forged request gets here).
        """
        if not self.can(scope):
            raise Forbidden(f"This token lacks the {scope!r} scope.")
        return self.owner

    def flash(self, text: str, kind: str = "ok") -> None:
        """Keep a message (the committer's answer) for the next page shown."""
        self.session.flash.append((kind, text))


def sessions(request: Request) -> SessionStore | SignedSessions:
    """The process's session store (`app.state.web_sessions`)."""
    return request.app.state.web_sessions  # type: ignore[no-any-return]


def get_viewer(request: Request) -> Viewer:
    """The signed-in person of this request.

    Raises:
        SignInNeeded: no session, or its token is unknown or revoked now.
    """
    sid = request.cookies.get(SESSION_COOKIE)
    session = sessions(request).get(sid)
    if sid is None or session is None:
        raise SignInNeeded("sign in")
    token = request.app.state.token_cache.lookup(session.token_digest)
    if token is None:
        sessions(request).close(sid)
        raise SignInNeeded("token revoked")
    viewer = Viewer(token.owner, frozenset(token.scopes), sid, session)
    request.state.viewer = viewer  # error pages show the signed-in header too
    return viewer


ViewerDep = Annotated[Viewer, Depends(get_viewer)]


def get_poster(viewer: ViewerDep, csrf: Annotated[str | None, Form()] = None) -> Viewer:
    """The signed-in person of a POST whose form carries this session's CSRF token.

    Raises:
        BadCsrf: 403 when the token is missing or wrong; nothing is done.
    """
    if not same_token(viewer.session.csrf, csrf):
        raise BadCsrf()
    return viewer


PosterDep = Annotated[Viewer, Depends(get_poster)]


def get_reader(request: Request) -> Reader:
    """The process's read-only store handle (the REST routes' `ReaderDep`)."""
    return request.app.state.reader  # type: ignore[no-any-return]


ReaderDep = Annotated[Reader, Depends(get_reader)]


def scope_of(reader: Reader, viewer: Viewer, known_at: datetime | None = None) -> Scope:
    """What the page may show at `known_at` (default now): the owner's memory and what is
    shared with it, as REST without `chat_id` (`ScopeDep`); needs scope `read`."""
    return tools.scope_for(reader, tools.Caller(viewer.need("read")), known_at)
