"""The note tools over MCP (CONTRACT §13, issue 15), registered by api/mcp/server.py.

Two shapes our users know, over the same notes:

* Docsbook's agent folder: `list_context`, `search_context`, `read_context`,
  `write_context` (`confidence`: told|observed|inferred, how it is known),
  `retire_context`.
* Zibby's chat memory: `memory_store`, `memory_recall`, `memory_brief`,
  `memory_end_session`, `task_log`, `task_history` (api/notes/zibby.py).

Each is a thin shell over the note tools REST shares (api/notes/service.py), so both
answer alike; reads need scope `read`, writes `write`; a `none` chat refuses every one;
`read_context` and `memory_recall` count against the token's hourly reading ceilings.
A `credential` category or kind is refused with a clear reason (we never store secrets).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context
from pydantic import Field

from api.chat.tools import Caller
from api.http.deps import Principal
from api.mcp.calls import ChatArg, Json, McpState, TimeArg, call_as, parse_time
from api.notes import service, zibby
from api.notes.schemas import NoteCreate
from graph.errors import InvalidInput
from graph.notes import KINDS, MAX_BODY, MAX_KEY, MAX_PROJECT, MAX_TITLE
from graph.time import AsOf

NoteId = Annotated[str, Field(min_length=1, max_length=200, description="a note's id")]
Project = Annotated[
    str | None,
    Field(max_length=MAX_PROJECT, description="read or write for this project (overrides)"),
]


def _who(principal: Principal, caller: Caller) -> service.NoteCaller:
    return service.NoteCaller(caller.owner, caller.chat_id, principal.token_id)


async def list_context(
    ctx: Context,
    kind: Annotated[str | None, Field(description="one of " + ", ".join(KINDS))] = None,
    project: Project = None,
    status: Literal["open", "confirmed", "rejected", "active", "retired"] | None = None,
    cursor: Annotated[str | None, Field(max_length=500)] = None,
    limit: Annotated[int, Field(ge=1, le=200)] = 50,
    chat_id: ChatArg = None,
) -> Json:
    """List the notes (decisions, hypotheses, questions, playbooks, learnings, ...):
    titles and dates, no bodies, newest first: {items, next, warning}."""
    return await call_as(
        ctx,
        "read",
        chat_id,
        lambda s, p, c: service.list_notes(
            s.reader,
            s.notes,
            _who(p, c),
            AsOf.at(),
            project=project,
            kind=kind,
            status=status,
            cursor=cursor,
            limit=limit,
        ),
    )


async def search_context(
    ctx: Context,
    query: Annotated[str, Field(min_length=1, max_length=1_000)],
    kind: Annotated[str | None, Field(description="one of " + ", ".join(KINDS))] = None,
    project: Project = None,
    limit: Annotated[int, Field(ge=1, le=50)] = 10,
    chat_id: ChatArg = None,
) -> Json:
    """Search the notes by words (stemmed): {items: [{note, extract, score, relevance,
    recency}]}; read one whole with read_context."""
    return await call_as(
        ctx,
        "read",
        chat_id,
        lambda s, p, c: service.search(
            s.reader,
            _who(p, c),
            query,
            AsOf.at(),
            project=project,
            kind=kind,
            limit=limit,
            embedder=s.embedder,
        ),
    )


async def read_context(
    ctx: Context,
    id: NoteId,
    valid_at: TimeArg = None,
    known_at: TimeArg = None,
    chat_id: ChatArg = None,
) -> Json:
    """Read one note whole, as it stood at (valid_at, known_at). Reads are capped per hour
    per token (notes, characters, playbooks)."""

    def work(s: McpState, p: Principal, c: Caller) -> Json:
        as_of = AsOf.at(parse_time(valid_at, "valid_at"), parse_time(known_at, "known_at"))
        return service.read(s.reader, s.committer, s.notes, _who(p, c), id, as_of)

    return await call_as(ctx, "read", chat_id, work)


async def write_context(
    ctx: Context,
    kind: Annotated[str, Field(description="one of " + ", ".join(KINDS))],
    title: Annotated[str, Field(min_length=1, max_length=MAX_TITLE)],
    body: Annotated[str, Field(max_length=MAX_BODY)] = "",
    confidence: Annotated[
        Literal["told", "observed", "inferred"],
        Field(description="how it is known: told by the person, observed, or inferred"),
    ] = "told",
    key: Annotated[str | None, Field(max_length=MAX_KEY, description="upsert by key")] = None,
    project: Project = None,
    review_at: Annotated[
        str | None, Field(description="a date to look again, 1-365 days out (RFC 3339)")
    ] = None,
    evidence: Annotated[str | None, Field(max_length=4_000)] = None,
    chat_id: ChatArg = None,
) -> Json:
    """Write a note (a new one, or a new version of the note with this key). Open
    hypotheses and questions need review_at; a title naming a run or a date is refused.
    {note, effect: created|replaced|promoted, ended, event_id, warning}."""

    def work(s: McpState, p: Principal, c: Caller) -> Json:
        zibby.kind_of(kind, "kind")  # a credential kind is refused with the reason
        note = NoteCreate(
            kind=kind, title=title, body=body, known_by=confidence, key=key, project=project,
            review_at=parse_time(review_at, "review_at"), evidence=evidence,
        )  # fmt: skip
        return service.write(s.committer, s.notes, _who(p, c), note, by="mcp", reader=s.reader)

    return await call_as(ctx, "write", chat_id, work)


async def retire_context(
    ctx: Context,
    id: NoteId,
    reason: Annotated[str | None, Field(max_length=1_000)] = None,
    chat_id: ChatArg = None,
) -> Json:
    """Retire a note: it stops holding now (it is kept, never deleted)."""

    def work(s: McpState, p: Principal, c: Caller) -> Json:
        who = _who(p, c)
        service.scope_of(s.reader, who)
        return service.retire(s.committer, s.notes, who, id, reason, by="mcp")

    return await call_as(ctx, "write", chat_id, work)


async def memory_store(
    ctx: Context,
    content: Annotated[str, Field(min_length=1, max_length=MAX_BODY)],
    category: Annotated[str, Field(description="a note kind, e.g. context, learning")] = "context",
    tier: Literal["short", "mid", "long"] = "mid",
    memoryKey: Annotated[str | None, Field(max_length=MAX_KEY)] = None,  # Zibby's name
    chat_id: ChatArg = None,
) -> Json:
    """Store a memory (short tier: 24 h; mid: default; long). The same content again
    promotes its tier instead of storing a duplicate. A credential category is refused.
    {stored, id, effect, category, tier, memoryKey, warning}."""
    return await call_as(
        ctx,
        "write",
        chat_id,
        lambda s, p, c: zibby.store(
            s.reader, s.committer, s.notes, _who(p, c), content, category, tier, memoryKey
        ),
    )


async def memory_recall(
    ctx: Context,
    query: Annotated[str, Field(min_length=1, max_length=1_000)],
    category: str | None = None,
    tier: Literal["short", "mid", "long"] | None = None,
    limit: Annotated[int, Field(ge=1, le=50)] = 10,
    chat_id: ChatArg = None,
) -> Json:
    """Recall memories matching `query`, ranked by relevance (decays each session by
    tier) x recency x match, each term shown: {items: [{id, content, category, tier,
    relevance, recency, match, score, ...}]}."""
    return await call_as(
        ctx,
        "read",
        chat_id,
        lambda s, p, c: zibby.recall(
            s.reader, s.committer, s.notes, _who(p, c), query, category, tier, limit, s.embedder
        ),
    )


async def memory_brief(ctx: Context, chat_id: ChatArg = None) -> Json:
    """A brief for the start of a session: recent session summaries, the top long- and
    mid-tier memories, task stats, what is due. Retires short-tier memories past 24 h."""
    return await call_as(
        ctx, "write", chat_id, lambda s, p, c: zibby.brief(s.reader, s.committer, _who(p, c))
    )


async def memory_end_session(
    ctx: Context,
    summary: Annotated[str, Field(min_length=1, max_length=MAX_BODY)],
    keyFacts: Annotated[  # Zibby's name
        str, Field(max_length=20_000, description="key facts separated by semicolons")
    ] = "",
    sessionId: Annotated[str | None, Field(max_length=200)] = None,
    chat_id: ChatArg = None,
) -> Json:
    """End the session: keep its summary, decay every memory's relevance once (long 2%,
    mid 10%, short 30%), and propose the key facts as notes for the person's yes.
    {sessionId, sessions, proposals}."""
    return await call_as(
        ctx,
        "write",
        chat_id,
        lambda s, p, c: zibby.end_session(
            s.committer, s.reader, s.policy, _who(p, c), summary, keyFacts, sessionId
        ),
    )


async def task_log(
    ctx: Context,
    task: Annotated[str, Field(min_length=1, max_length=MAX_TITLE)],
    status: Literal["done", "failed", "in_progress", "blocked", "cancelled"],
    summary: Annotated[str | None, Field(max_length=MAX_BODY)] = None,
    durationMs: Annotated[int | None, Field(ge=0, le=2**53)] = None,
    sessionId: Annotated[str | None, Field(max_length=200)] = None,
    chat_id: ChatArg = None,
) -> Json:
    """Log a task's outcome: {id, at}."""
    return await call_as(
        ctx,
        "write",
        chat_id,
        lambda s, p, c: zibby.task_log(
            s.committer, s.reader, _who(p, c), task, status, summary, durationMs, sessionId
        ),
    )


async def task_history(
    ctx: Context,
    status: Literal["done", "failed", "in_progress", "blocked", "cancelled"] | None = None,
    task: Annotated[str | None, Field(max_length=MAX_TITLE)] = None,
    limit: Annotated[int, Field(ge=1, le=200)] = 20,
    chat_id: ChatArg = None,
) -> Json:
    """The task log, newest first, with counts by status: {items, counts, meanDurationMs}."""
    return await call_as(
        ctx,
        "read",
        chat_id,
        lambda s, p, c: zibby.task_history(s.reader, _who(p, c), status, task, limit),
    )


NOTE_TOOLS: tuple[Any, ...] = (
    list_context,
    search_context,
    read_context,
    write_context,
    retire_context,
    memory_store,
    memory_recall,
    memory_brief,
    memory_end_session,
    task_log,
    task_history,
)
"""The note tools, in the order `tools/list` shows them."""

__all__ = ["NOTE_TOOLS", "InvalidInput"]
