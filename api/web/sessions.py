"""Sign-in sessions of the Memory page: a pasted token becomes a server-side session.

The browser holds only a random session id in a cookie (HttpOnly, SameSite=Strict,
Secure when the page is served over https). The server keeps, per session, the hash of
the token it was opened with (never the token: STYLE "secrets never stored"), a CSRF
token put in every form, and one flash message for the next page. Each request checks
the token again through the app's `TokenCache` (api/http/deps.py), so a revoked token
ends its sessions within the cache's 5 seconds.

Sessions live in this process's memory: `worldstate serve` is one process; a restart
signs everyone out. Idle sessions expire after `IDLE_SECONDS`; at most `MAX_SESSIONS`
are kept (the oldest idle one goes first).
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

from fastapi import Request, Response

SESSION_COOKIE = "ws_session"
"""Holds the session id of a signed-in person."""
SIGNIN_COOKIE = "ws_signin"
"""Holds the CSRF token of the sign-in form (double-submit: before there is a session)."""
IDLE_SECONDS = 12 * 3600.0
"""A session unused this long is signed out."""
MAX_SESSIONS = 10_000
"""Sessions kept at most in one process."""
PATH = "/memory"
"""The cookies are sent to the Memory page only, never to the REST API."""


@dataclass(slots=True)
class Session:
    """One signed-in browser.

    Attributes:
        token_digest: `graph.names.token_hash` of the pasted token.
        csrf: the token every form of this session carries.
        last_seen: monotonic seconds of the last request.
        flash: a message for the next page shown (the committer's answer), then dropped.
    """

    token_digest: str
    csrf: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    last_seen: float = 0.0
    flash: list[tuple[str, str]] = field(default_factory=list)


class SessionStore:
    """Sessions by id, with idle expiry and a bound (thread-safe: routes run in a pool).

    Args:
        idle: seconds after which an unused session is gone.
        limit: most sessions kept.
        clock: monotonic seconds (injected by tests).
    """

    def __init__(
        self,
        idle: float = IDLE_SECONDS,
        limit: int = MAX_SESSIONS,
        clock: Callable[[], float] = time.monotonic,
    ):
        self._idle = idle
        self._limit = limit
        self._clock = clock
        self._sessions: OrderedDict[str, Session] = OrderedDict()
        self._lock = threading.Lock()

    def open(self, token_digest: str) -> tuple[str, Session]:
        """Start a session for a verified token; returns its new id and the session."""
        sid = secrets.token_urlsafe(32)
        session = Session(token_digest, last_seen=self._clock())
        with self._lock:
            self._sessions[sid] = session
            while len(self._sessions) > self._limit:
                self._sessions.popitem(last=False)
        return sid, session

    def get(self, sid: str | None) -> Session | None:
        """The live session with this id (its idle clock restarts), or None."""
        if not sid:
            return None
        now = self._clock()
        with self._lock:
            session = self._sessions.get(sid)
            if session is None:
                return None
            if now - session.last_seen > self._idle:
                del self._sessions[sid]
                return None
            session.last_seen = now
            self._sessions.move_to_end(sid)
            return session

    def close(self, sid: str | None) -> None:
        """Sign out: the session id stops working at once."""
        if sid:
            with self._lock:
                self._sessions.pop(sid, None)

    def close_digest(self, token_digest: str) -> None:
        """End every session opened with this token (its owner was erased)."""
        with self._lock:
            for sid in [s for s, v in self._sessions.items() if v.token_digest == token_digest]:
                del self._sessions[sid]


def same_token(expected: str, given: str | None) -> bool:
    """Compare CSRF tokens in constant time; a missing one never matches."""
    return bool(given) and hmac.compare_digest(expected.encode(), str(given).encode())


def is_https(request: Request) -> bool:
    """Whether the page is served over https (the Secure flag is set then)."""
    return request.url.scheme == "https"


def set_cookie(response: Response, request: Request, name: str, value: str) -> None:
    """Set one of the page's cookies: HttpOnly, SameSite=Strict, path /memory, Secure over
    https; a browser session cookie (no Max-Age: closing the browser forgets it)."""
    response.set_cookie(
        name,
        value,
        path=PATH,
        httponly=True,
        samesite="strict",
        secure=is_https(request),
    )


def clear_cookie(response: Response, request: Request, name: str) -> None:
    """Remove one of the page's cookies."""
    response.delete_cookie(
        name, path=PATH, httponly=True, samesite="strict", secure=is_https(request)
    )
