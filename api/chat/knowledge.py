"""Reading knowledge documents (CONTRACT §14): `list_knowledge` and `read_knowledge`, shared
by the REST routes (api/http/routes/knowledge.py) and the MCP tools (api/mcp/server.py), so
both answer alike.

A document is the caller's own, or a group's it belongs to now. A chat's memory access
holds: `none` refuses (`MemoryOff`, 403 / a tool error), `restricted` shows documents only
when its areas list `knowledge` (graph.scope.knowledge_allowed). Never imports the committer.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from api.chat.tools import Caller
from api.http.schemas.knowledge import (
    DocumentList,
    DocumentPublic,
    DocumentSummary,
    VersionList,
    VersionPublic,
)
from graph.errors import InvalidInput, MemoryOff
from graph.held import Holder
from graph.read.reader import Reader
from graph.scope import Reach
from graph.time import to_utc

MAX_LIST = 500
MAX_CURSOR_DIGITS = 9
"""A listing's cursor is an offset; more digits than this is not one we gave."""


def reach_for(reader: Reader, caller: Caller) -> Reach:
    """What `caller` may read of documents now.

    Raises:
        MemoryOff: the chat's memory access is `none` (CONTRACT §7 clean room).
    """
    access = None
    if caller.chat_id is not None:
        access = reader.memory_access(caller.owner, caller.chat_id)
        if access.mode == "none":
            raise MemoryOff(caller.chat_id)
    return reader.reach(caller.owner, access)


def _offset(cursor: str | None) -> int:
    if cursor is None:
        return 0
    if not cursor.isdigit() or len(cursor) > MAX_CURSOR_DIGITS:
        raise InvalidInput("cursor", "not a cursor of this listing; ask again without cursor")
    return int(cursor)


def list_knowledge(
    reader: Reader,
    caller: Caller,
    group: str | None = None,
    known_at: datetime | None = None,
    cursor: str | None = None,
    limit: int = 100,
) -> dict[str, Any]:
    """Names and descriptions of the documents the caller may read, never bodies:
    `{items: [{name, group, description, version, chars, author, source, recorded_at}],
    next}` by name then group (the caller's own documents have `group: null`).

    Args:
        reader: the read side.
        caller: the owner and the chat (its memory access applies).
        group: only this group's documents (one the caller belongs to; another answers
            an empty list, as an unknown one).
        known_at: the documents as believed then (default now), aware.
        cursor: `next` of the previous page.
        limit: page size, 1 to 500.

    Raises:
        MemoryOff: memory access `none`. InvalidInput: a bad cursor or limit.
    """
    if not 1 <= limit <= MAX_LIST:
        raise InvalidInput("limit", f"1 to {MAX_LIST}")
    reach = reach_for(reader, caller)
    skip = _offset(cursor)
    at = None if known_at is None else to_utc(known_at, "known_at")
    found = reader.documents(reach, group, at, skip=skip, limit=limit + 1)
    nxt = str(skip + limit) if len(found) > limit else None
    items = [DocumentSummary.of(d) for d in found[:limit]]
    return DocumentList(items=items, next=nxt).model_dump(mode="json")


def read_knowledge(
    reader: Reader,
    caller: Caller,
    name: str,
    group: str | None = None,
    known_at: datetime | None = None,
) -> dict[str, Any]:
    """One whole document: `{name, group, description, body, version, author, source,
    reason, path, restored_from, event_id, recorded_at, retracted_at}`.

    Without `group`, the caller's own document of that name, else the one group's that
    has it. `known_at` reads it as it was believed then.

    Raises:
        MemoryOff: memory access `none`.
        NotFound: no such document the caller may read (retired, another owner's, a
            group it is not in, or kept out by a restricted chat).
        Conflict: no own document and several groups have one of that name.
    """
    reach = reach_for(reader, caller)
    at = None if known_at is None else to_utc(known_at, "known_at")
    return DocumentPublic.of(reader.document(reach, name, group, at)).model_dump(mode="json")


def document_versions(
    reader: Reader,
    caller: Caller,
    name: str,
    group: str | None = None,
    cursor: str | None = None,
    limit: int = 100,
) -> dict[str, Any]:
    """Every version of a document, oldest first, with who changed it and why (no bodies;
    read one with `known_at`): `{items: [Version], next}`. Without `group`, the caller's
    own document of that name, else the one group's that has (or had) it, as in
    `read_knowledge`.

    Raises:
        MemoryOff: memory access `none`. NotFound: no such document for the caller.
        Conflict: no own document and several groups have one of that name.
    """
    if not 1 <= limit <= MAX_LIST:
        raise InvalidInput("limit", f"1 to {MAX_LIST}")
    reach = reach_for(reader, caller)
    after = _offset(cursor)
    holder = None if group is None else Holder(group_id=group)
    found = reader.versions(reach, holder, name, after=after, limit=limit + 1)
    nxt = str(found[limit - 1].version) if len(found) > limit else None
    return VersionList(items=[VersionPublic.of(d) for d in found[:limit]], next=nxt).model_dump(
        mode="json"
    )
