"""The knowledge tools of the MCP server (CONTRACT §14): `list_knowledge`, `read_knowledge`
(api/chat/knowledge.py, as over REST) and the gated `remember(topic, content)`
(committer/remember.py, as `POST /v1/knowledge/remember`)."""

from __future__ import annotations

from typing import Annotated, cast

import anyio
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from api.chat import knowledge as docs
from api.http.schemas.knowledge import AccessLogPublic, DocumentPublic, RememberOut
from api.mcp.calls import ChatArg, Json, McpState, TimeArg, call, describe, parse_time, principal_of
from committer.remember import RememberCall
from graph.errors import WorldstateError


async def learn(ctx: Context, topic: str, content: str, group: str | None) -> Json:
    """The gated `remember(topic, content)`: the committer checks, writes and logs."""
    state = cast(McpState, ctx.request_context.lifespan_context)
    headers = ctx.headers

    def run() -> Json:
        principal = principal_of(state, headers)
        surface = state.surface or (headers or {}).get("x-worldstate-surface")
        call = RememberCall(
            owner=principal.owner,
            token_id=principal.token_id,
            scopes=principal.scopes,
            surface=surface,
            group_id=group,
            topic=topic,
            content=content,
        )
        outcome = state.committer.remember_learning(call, state.surfaces)
        assert outcome.document is not None
        return RememberOut(
            document=DocumentPublic.of(outcome.document),
            access=AccessLogPublic.of(outcome.entry),
        ).model_dump(mode="json")

    try:
        return await anyio.to_thread.run_sync(run)
    except WorldstateError as exc:
        raise ToolError(describe(exc)) from exc


GroupArg = Annotated[
    str | None, Field(description="a group id: only its documents", max_length=200)
]


async def list_knowledge(ctx: Context, group: GroupArg = None, chat_id: ChatArg = None) -> Json:
    """The knowledge documents you may read (yours and your teams'): names and one-line
    descriptions, no bodies: {items: [{name, group, description, ...}], next}. Read one
    with read_knowledge."""
    return await call(ctx, "read", chat_id, lambda s, c: docs.list_knowledge(s.reader, c, group))


async def read_knowledge(
    ctx: Context,
    name: Annotated[str, Field(min_length=1, max_length=200, description="e.g. billing/x")],
    group: GroupArg = None,
    known_at: TimeArg = None,
    chat_id: ChatArg = None,
) -> Json:
    """One knowledge document, whole: {name, group, description, body, version, ...}.
    `known_at` reads it as it was then."""
    return await call(
        ctx,
        "read",
        chat_id,
        lambda s, c: docs.read_knowledge(
            s.reader, c, name, group, parse_time(known_at, "known_at")
        ),
    )
