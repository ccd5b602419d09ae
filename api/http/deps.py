"""Request dependencies as `Annotated` aliases (STYLE): store handles, the caller, scopes."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated

from fastapi import Depends, Path, Query, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from api.chat import tools
from api.http.abuse import AbuseLimits
from graph.errors import Forbidden, StoreUnavailable, Unauthenticated
from graph.fields import ChatId, Timestamp
from graph.names import token_hash
from graph.read.reader import Reader
from graph.records import TokenRecord
from graph.scope import Scope
from graph.time import AsOf

_bearer = HTTPBearer(auto_error=False)


@dataclass(frozen=True, slots=True)
class Principal:
    """The caller: the owner its token is bound to, the token's scopes (CONTRACT §7), and the
    token's id (the hourly note-reading ceilings count per token, api/notes/limits.py; the
    access log of `remember` names it, CONTRACT §14)."""

    owner: str
    scopes: frozenset[str]
    token_id: str | None = None


def get_reader(request: Request) -> Reader:
    """The process's read-only store handle."""
    return request.app.state.reader  # type: ignore[no-any-return]


ReaderDep = Annotated[Reader, Depends(get_reader)]

PathId = Annotated[str, Path(min_length=1, max_length=200)]
"""An id in a route's path (entity, fact, event, proposal, group, chat...): 1-200 characters."""


TOKEN_CACHE_SECONDS = 5.0
"""How long a verified token is trusted without asking the store again."""


class TokenCache:
    """Recently verified tokens, so that a turn's prefetch still authenticates while the
    store is briefly down (CONTRACT §6: memory never breaks a run). Unknown tokens are
    never cached.

    Revocation bound: a token revoked in the store (`worldstate token revoke`, from any
    process) stops authenticating in this process within `ttl` seconds (default
    `TOKEN_CACHE_SECONDS`, 5 s): an entry older than that is checked against the store
    before it is used again. While the store cannot be reached, a cached token keeps
    working past `ttl` (the store is down, so it can read nothing but a degraded
    prefetch anyway).

    Args:
        reader: the store's read side.
        ttl: seconds a verified token is served from memory.
        clock: monotonic seconds (injected by tests).
    """

    def __init__(
        self,
        reader: Reader,
        ttl: float = TOKEN_CACHE_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ):
        self._reader = reader
        self._ttl = ttl
        self._clock = clock
        self._entries: dict[str, tuple[float, TokenRecord]] = {}
        self._lock = threading.Lock()

    def lookup(self, digest: str, reader: Reader | None = None) -> TokenRecord | None:
        """Return the live token with this hash, from the cache when fresh.

        Args:
            digest: the token's sha256 hex hash.
            reader: the reader to ask the store with (default: the cache's own); prefetch
                passes its own, which does not retry, so a turn never waits on the store
                past its deadline.
        """
        now = self._clock()
        with self._lock:
            hit = self._entries.get(digest)
        if hit is not None and now - hit[0] < self._ttl:
            return hit[1]
        try:
            token = (reader or self._reader).token(digest)
        except StoreUnavailable:
            if hit is not None:
                return hit[1]
            raise
        with self._lock:
            if token is None:
                self._entries.pop(digest, None)
            else:
                self._entries[digest] = (now, token)
        return token

    def cached(self, digest: str) -> TokenRecord | None:
        """Return the token with this hash if this process verified it before (fresh or
        not), without asking the store."""
        with self._lock:
            hit = self._entries.get(digest)
        return None if hit is None else hit[1]

    def forget_owner(self, owner: str) -> None:
        """Drop every cached token of `owner` (its tokens were just erased, CONTRACT §9)."""
        with self._lock:
            for digest in [d for d, (_, k) in self._entries.items() if k.owner == owner]:
                del self._entries[digest]


def authenticate(
    tokens: TokenCache,
    authorization: str | None,
    *,
    limits: AbuseLimits | None = None,
    client: str = "unknown",
    reader: Reader | None = None,
) -> Principal:
    """Resolve an `Authorization: Bearer <token>` header value to its owner and scopes: the
    one reading of a bearer token, for REST, the Memory page and MCP (CONTRACT §7).

    Args:
        tokens: the process's token cache.
        authorization: the header's value, or None.
        limits: the abuse limits to count against (api/http/abuse.py), or None.
        client: the caller's address, for the bad-token budget.
        reader: asks the store for a token not cached (default: the cache's own);
            prefetch passes its own, which does not retry past its deadline.

    Raises:
        Unauthenticated: no bearer token, or one that is unknown or revoked (401).
        TooBusy: the token spent its requests of the last minute, or the client presented
            too many bad tokens and this one was not verified here before (429).
        StoreUnavailable: the token could not be checked (503).
    """
    scheme, _, secret = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or not secret.strip():
        raise Unauthenticated("Send Authorization: Bearer <token> (see `worldstate token create`).")
    digest = token_hash(secret.strip())
    if limits is not None and tokens.cached(digest) is None:
        limits.check_client(client)
    token = tokens.lookup(digest, reader)
    if token is None:
        if limits is not None:
            limits.bad_token(client)
        raise Unauthenticated("The bearer token is unknown or revoked.")
    if limits is not None:
        limits.admit(token.id)
    return Principal(token.owner, frozenset(token.scopes), token.id)


def authenticate_request(request: Request, reader: Reader | None = None) -> Principal:
    """`authenticate` for a REST request: its header, this app's token cache and abuse
    limits, the TCP peer as the client."""
    return authenticate(
        request.app.state.token_cache,
        request.headers.get("authorization"),
        limits=request.app.state.abuse,
        client=request.client.host if request.client else "unknown",
        reader=reader,
    )


def cached_principal(request: Request) -> Principal | None:
    """The caller as this process verified it before, from memory only (no store call,
    no limit counted), or None: for a turn that missed its deadline before its token was
    checked (api/chat/routes/prefetch.py)."""
    scheme, _, secret = (request.headers.get("authorization") or "").partition(" ")
    if scheme.lower() != "bearer" or not secret.strip():
        return None
    token = request.app.state.token_cache.cached(token_hash(secret.strip()))
    return None if token is None else Principal(token.owner, frozenset(token.scopes), token.id)


BearerDep = Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]
"""Declares the bearer scheme in OpenAPI (the header is read by `authenticate`)."""


def get_principal(request: Request, _: BearerDep) -> Principal:
    """The caller of a REST request (`_` declares the bearer scheme in OpenAPI).

    Raises:
        Unauthenticated: 401 when the header is missing or the token unknown or revoked.
        TooBusy: 429 past the abuse limits.
    """
    return authenticate_request(request)


def has_scope(principal: Principal, scope: str) -> str:
    """Return the principal's owner when its token has `scope` (or `admin`).

    Raises:
        Forbidden: 403 naming the missing scope.
    """
    if scope not in principal.scopes and "admin" not in principal.scopes:
        raise Forbidden(f"This token lacks the {scope!r} scope.")
    return principal.owner


PrincipalDep = Annotated[Principal, Depends(get_principal)]


def require(scope: str) -> object:
    """A dependency that returns the owner id when the token has `scope` (or `admin`).

    Raises:
        Forbidden: 403 naming the missing scope.
    """

    def check(principal: PrincipalDep) -> str:
        return has_scope(principal, scope)

    return Depends(check)


ReadOwner = Annotated[str, require("read")]
WriteOwner = Annotated[str, require("write")]
CurateOwner = Annotated[str, require("curate")]
AdminOwner = Annotated[str, require("admin")]


def get_as_of(
    valid_at: Annotated[Timestamp | None, Query(description="RFC 3339 with offset")] = None,
    known_at: Annotated[Timestamp | None, Query(description="RFC 3339 with offset")] = None,
) -> AsOf:
    """The `(valid_at, known_at)` query pair, each defaulting to now (CONTRACT §2)."""
    return AsOf.at(valid_at, known_at)


AsOfDep = Annotated[AsOf, Depends(get_as_of)]


def known_at_param(
    known_at: Annotated[Timestamp | None, Query(description="RFC 3339 with offset")] = None,
) -> datetime | None:
    """The optional `known_at` query parameter, in UTC."""
    return None if known_at is None else AsOf.at(known_at=known_at).known_at


KnownAtDep = Annotated[datetime | None, Depends(known_at_param)]


ChatIdQuery = Annotated[
    ChatId | None,
    Query(description="the chat asking: its memory access (CONTRACT §7) applies; none = the owner"),
]
"""`?chat_id=`: the one declaration of a chat id in a query (graph.fields.ChatId bounds)."""


def get_scope(
    owner: ReadOwner, reader: ReaderDep, known_at: KnownAtDep, chat_id: ChatIdQuery = None
) -> Scope:
    """What this read may see (CONTRACT §7; graph/scope.py): the token's owner, the memory
    access of `chat_id` (its own setting, else the owner's default; `full` without a
    chat), and the entities shared with the owner through groups as known at `known_at`
    (default now: time travel to before a share sees nothing of it). Needs scope `read`.

    Raises:
        MemoryOff: 403 when the chat's memory access is `none` (read tools are refused
            in a clean-room chat), the same answer as the read tools (api/chat/tools.py).
    """
    return tools.scope_for(reader, tools.Caller(owner, chat_id), known_at)


ScopeDep = Annotated[Scope, Depends(get_scope)]
