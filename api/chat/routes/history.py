"""A chat's thread: `GET /v1/chats/{chat_id}/history` (issue 16 "Per-chat history").

For surfaces that do not replay the conversation, the service keeps it: the visible text of
a chat's user and assistant messages, in order, read from its episodes (CONTRACT §12, the
messages of its curated runs). No tool, document or system entries and no pasted text; a
forgotten message is gone from it. Two settings bound it: `WORLDSTATE_CHAT_HISTORY_MAX_TURNS`
(200: the most messages one answer holds, whatever `limit` asks) and
`WORLDSTATE_CHAT_HISTORY_MAX_AGE_DAYS` (30: older messages are left out).

History is separate per chat, and the chat's own memory access applies: `none` is a 403
(the curator never stored its messages anyway), `restricted` shows it only when its areas
list `conversation`. A chat read route: it never imports the committer.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated

from fastapi import APIRouter, Path, Query, Request
from pydantic import BaseModel, Field

from api.chat import tools
from api.http.cursors import decode_episodes, encode_episodes
from api.http.deps import ReaderDep, ReadOwner
from graph.fields import ChatId, Timestamp, UtcDatetime
from graph.records import EpisodeRecord
from graph.time import to_utc, utcnow

router = APIRouter(prefix="/v1", tags=["episodes"])

HISTORY_QUERY = "chat-history"
"""What a history cursor is bound to, with its chat id: an episode listing's cursor is no
history cursor, nor is another chat's."""


class HistoryMessage(BaseModel):
    """One message of a chat's thread."""

    id: str = Field(description="the episode's id (GET /v1/episodes/{id})")
    role: str = Field(description="`user` or `assistant`")
    speaker: str | None = Field(description="who spoke (a user message's person), or null")
    text: str = Field(description="what was said, credentials replaced by [redacted]")
    said_at: UtcDatetime
    run_id: str
    message_id: str | None

    @classmethod
    def of(cls, e: EpisodeRecord) -> HistoryMessage:
        """Build from an episode."""
        return cls(
            id=e.id,
            role=e.role,
            speaker=e.speaker,
            text=e.text,
            said_at=e.said_at,
            run_id=e.run_id,
            message_id=e.message_id,
        )


class ChatHistory(BaseModel):
    """`GET /v1/chats/{chat_id}/history`: the thread, oldest first."""

    chat_id: str
    items: list[HistoryMessage]
    before: UtcDatetime | None = Field(
        description="the oldest message's `said_at`; null when there are no older messages "
        "(as `before` it leaves out older messages said at that same instant: page with "
        "`cursor`)"
    )
    cursor: str | None = Field(
        default=None,
        description="pass as `cursor` for the older messages, those said at the same "
        "instant as this page's oldest included; null when there are none",
    )


@router.get("/chats/{chat_id}/history", response_model=ChatHistory)
def chat_history(
    chat_id: Annotated[ChatId, Path()],
    owner: ReadOwner,
    reader: ReaderDep,
    request: Request,
    limit: Annotated[int, Query(ge=1, le=10_000, description="the most messages")] = 50,
    before: Annotated[
        Timestamp | None, Query(description="only messages said before this; default now")
    ] = None,
    cursor: Annotated[
        str | None,
        Query(max_length=1_000, description="the `cursor` of the newer page: the older messages"),
    ] = None,
) -> ChatHistory:
    """The chat's thread, oldest first: the latest `limit` user and assistant messages said
    before `before` (default now), as known now: `{chat_id, items: [{id, role, speaker,
    text, said_at, run_id, message_id}], before}`. Only this chat's messages; only their
    visible text (no tool entries, no pasted text). At most
    `WORLDSTATE_CHAT_HISTORY_MAX_TURNS` (200) messages, none older than
    `WORLDSTATE_CHAT_HISTORY_MAX_AGE_DAYS` (30).
    Errors: 403 when the chat's memory access is `none`; 422 a timestamp without an
    offset; 422 naming `cursor` when it is not a cursor of this chat's history. Page back
    with the answer's `cursor` (`before` is kept for clients that page by time: it leaves
    out older messages said at the very instant of a page's oldest). Needs scope `read`.
    """
    settings = request.app.state.settings
    scope = tools.scope_for(reader, tools.Caller(owner, chat_id))
    now = utcnow()
    oldest = now - timedelta(days=settings.chat_history_max_age_days)
    end = now if before is None else min(to_utc(before, "before"), now)
    most = min(limit, settings.chat_history_max_turns)
    query = [HISTORY_QUERY, chat_id]
    older_than = None
    if cursor is not None:
        said_at, run_id, seq, _ = decode_episodes(cursor, query).after
        older_than = (said_at, run_id, seq)
    found = reader.chat_history(
        scope, chat_id, before=end, oldest=oldest, limit=most + 1, older_than=older_than
    )
    page = found[-most:]
    more = len(found) > most and bool(page)
    return ChatHistory(
        chat_id=chat_id,
        items=[HistoryMessage.of(e) for e in page],
        before=page[0].said_at if more else None,
        cursor=encode_episodes(query, now, now, page[0]) if more else None,
    )
