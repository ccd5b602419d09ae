"""Sign-in sessions of the Memory page: a pasted token becomes a server-side session.

The browser holds only a random session id in a cookie (HttpOnly, SameSite=Strict,
Secure when the page is served over https). The server keeps, per session, the hash of
the token it was opened with (never the token: STYLE "secrets never stored"), a CSRF
token put in every form, and one flash message for the next page. Each request checks
the token again through the app's `TokenCache` (api/http/deps.py), so a revoked token
ends its sessions within the cache's 5 seconds.

`SessionStore` keeps sessions in this process's memory: `worldstate serve` is one
process; a restart signs everyone out. Idle sessions expire after `IDLE_SECONDS`; at most
`MAX_SESSIONS` are kept (the oldest idle one goes first).

`SignedSessions` is for `serve --workers N`, where the next request may reach another
process: the session itself (token hash, CSRF token, flash, last use) is the cookie,
signed with HMAC-SHA256 under `WORLDSTATE_WEB_SESSION_SECRET`, so any process can read
it and none can be forged. What it cannot do: make a copy of the cookie taken before
sign-out stop working (sign-out clears the browser's cookie; a copy lives until it is idle
for `IDLE_SECONDS`, or until its token is revoked, which every request checks).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
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


class SignedSessions:
    """Sessions carried by the browser in a signed cookie (`serve --workers N`).

    The cookie is `<base64url JSON [token_digest, csrf, last_seen, flash]>.<HMAC>`; a
    wrong signature, a bad shape or `idle` seconds unused read as no session.

    Args:
        secret: the signing key, the same in every process.
        idle: seconds after which an unused session is gone.
        clock: wall-clock seconds (injected by tests).
    """

    REFRESH_SECONDS = 60.0
    """A session's idle clock is written back to its cookie at most this often."""

    def __init__(
        self, secret: bytes, idle: float = IDLE_SECONDS, clock: Callable[[], float] = time.time
    ):
        self._secret = secret
        self._idle = idle
        self._clock = clock

    def open(self, token_digest: str) -> tuple[str, Session]:
        """Start a session for a verified token; returns its cookie value and the session."""
        session = Session(token_digest, last_seen=self._clock())
        return self.seal(session), session

    def get(self, sid: str | None) -> Session | None:
        """The session this cookie carries, when its signature holds and it is not idle."""
        if not sid or "." not in sid:
            return None
        body, mac = sid.rsplit(".", 1)
        if not hmac.compare_digest(mac, self._mac(body)):
            return None
        try:
            digest, csrf, last_seen, flash = json.loads(base64.urlsafe_b64decode(body))
            session = Session(
                str(digest),
                csrf=str(csrf),
                last_seen=float(last_seen),
                flash=[(str(k), str(t)) for k, t in flash],
            )
        except (ValueError, TypeError):
            return None
        if self._clock() - session.last_seen > self._idle:
            return None
        return session

    def close(self, sid: str | None) -> None:
        """Sign out: nothing to drop here (the route clears the cookie)."""

    def close_digest(self, token_digest: str) -> None:
        """End every session of this token: its revocation does (every request checks)."""

    def seal(self, session: Session) -> str:
        """The cookie value carrying `session`."""
        body = json.dumps(
            [session.token_digest, session.csrf, session.last_seen, session.flash],
            separators=(",", ":"),
        )
        encoded = base64.urlsafe_b64encode(body.encode()).decode()
        return f"{encoded}.{self._mac(encoded)}"

    def reseal(self, sid: str, session: Session) -> str | None:
        """A new cookie value when the request changed the session (a flash kept or
        shown) or its idle clock is due a refresh; else None (the cookie stands)."""
        now = self._clock()
        before = self.get(sid)
        if before is None:
            return None
        if before.flash == session.flash and now - before.last_seen < self.REFRESH_SECONDS:
            return None
        session.last_seen = now
        return self.seal(session)

    def _mac(self, body: str) -> str:
        mac = hmac.new(self._secret, body.encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(mac).decode().rstrip("=")


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
