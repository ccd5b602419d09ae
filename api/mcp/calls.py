"""How every MCP tool call runs (api/mcp/server.py, api/mcp/notes.py): the server's shared
state, authentication by bearer token, the token's scope, the chat whose memory access
applies, a worker thread for the blocking store, our errors as tool errors (the `detail` of
the one error table, api.http.errors.problem_of), and the arguments tools share.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Annotated, Any, cast

import anyio
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field, TypeAdapter, ValidationError

from api.chat import tools
from api.http.deps import Principal, TokenCache, authenticate
from api.http.errors import problem_of
from api.notes.limits import NoteLimits
from committer.apply import Committer
from committer.remember import SurfacePolicy
from curator.statements import Policy
from graph.embedding import Embedder
from graph.errors import InvalidInput, Unauthenticated, WorldstateError
from graph.fields import Timestamp
from graph.read.reader import Reader

Json = dict[str, Any]
_TIME = TypeAdapter(Timestamp)


@dataclass(frozen=True, slots=True)
class McpState:
    """What the tools share, for the server's whole life.

    Attributes:
        reader: read transactions.
        committer: the only writer (for `remember` and the note tools).
        tokens: the token cache of the REST API (`api.http.deps.TokenCache`).
        policy: the risk policy's settings (for `remember`, `memory_end_session`).
        stdio_token: the token of a stdio server (`WORLDSTATE_TOKEN`); None over HTTP,
            where each request brings its own.
        chat_id: the chat this server is pinned to (`--chat-id`), or None.
        embedder: embeds `search` queries (graph/embedding/), or None (full-text only).
        notes: the limits on notes (api/notes/limits.py): reading ceilings, notes per owner.
        surface: the surface this server answers for (`--surface`), or None: over HTTP
            the request's `X-Worldstate-Surface` header, else none.
        surfaces: which surfaces may call the gated `remember` (settings).
    """

    reader: Reader
    committer: Committer
    tokens: TokenCache
    policy: Policy
    stdio_token: str | None = None
    chat_id: str | None = None
    embedder: Embedder | None = None
    notes: NoteLimits = field(default_factory=NoteLimits)
    surface: str | None = None
    surfaces: SurfacePolicy = field(default_factory=SurfacePolicy)


def describe(exc: WorldstateError) -> str:
    """The tool-error text for one of our errors: the `detail` REST gives (one table,
    api.http.errors.problem_of)."""
    return problem_of(exc).detail


def parse_time(value: str | None, field: str) -> datetime | None:
    """Parse an RFC 3339 argument with an offset (CONTRACT §2), naming `field` if bad."""
    if value is None:
        return None
    try:
        return _TIME.validate_python(value)
    except ValidationError as exc:
        raise InvalidInput(
            field, "an RFC 3339 timestamp with an offset, e.g. 2024-05-01T09:00:00Z or +02:00"
        ) from exc


def principal_of(state: McpState, headers: Mapping[str, str] | None) -> Principal:
    """Resolve the token of this call: the request's bearer (HTTP) or the server's (stdio).

    Raises:
        Unauthenticated: no token, or one that is unknown or revoked.
    """
    if headers is not None:
        authorization = headers.get("authorization")
    elif state.stdio_token:
        authorization = "Bearer " + state.stdio_token
    else:
        raise Unauthenticated("No token: set WORLDSTATE_TOKEN (see `worldstate token create`).")
    return authenticate(state.tokens, authorization)


def caller_of(state: McpState, principal: Principal, chat_id: str | None) -> tools.Caller:
    """The owner and the chat of a call (the server's pinned chat wins; another is refused)."""
    if state.chat_id is not None and chat_id not in (None, state.chat_id):
        raise ToolError(
            f"This server is bound to chat {state.chat_id!r}; it cannot read for chat {chat_id!r}."
        )
    return tools.Caller(principal.owner, state.chat_id or chat_id)


async def call_as(
    ctx: Context,
    scope: str,
    chat_id: str | None,
    work: Callable[[McpState, Principal, tools.Caller], Json],
) -> Json:
    """Authenticate, check the token's scope, resolve the caller and run `work` in a
    worker thread (the store is blocking), mapping our errors to tool errors."""
    state = cast(McpState, ctx.request_context.lifespan_context)
    headers = ctx.headers

    def run() -> Json:
        principal = principal_of(state, headers)
        if scope not in principal.scopes and "admin" not in principal.scopes:
            raise ToolError(f"This token lacks the {scope!r} scope.")
        return work(state, principal, caller_of(state, principal, chat_id))

    try:
        return await anyio.to_thread.run_sync(run)
    except WorldstateError as exc:
        raise ToolError(describe(exc)) from exc


async def call(
    ctx: Context, scope: str, chat_id: str | None, work: Callable[[McpState, tools.Caller], Json]
) -> Json:
    """`call_as` for a tool that needs only the caller (the read tools, `remember`)."""
    return await call_as(ctx, scope, chat_id, lambda s, _, c: work(s, c))


ChatArg = Annotated[
    str | None,
    Field(description="the chat the assistant runs in: its memory access applies", max_length=200),
]
EntityArg = Annotated[
    str, Field(description="an entity id, e.g. from lookup_entity", min_length=1, max_length=100)
]
TimeArg = Annotated[str | None, Field(description="RFC 3339 with offset; default now")]
