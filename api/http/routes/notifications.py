"""Notifications for the main chat: proposals to confirm, conflicts, merge suggestions
(CONTRACT §2.1 rule 5, §3, §4, §10)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from api.http.cursors import cursor_row
from api.http.deps import ChatIdQuery, CurateOwner, PathId, ReaderDep, ReadOwner
from api.http.schemas.proposals import NotificationList, NotificationPublic
from api.http.write_deps import CommitterDep
from graph.fields import MAX_PAGE

router = APIRouter(prefix="/v1/notifications", tags=["notifications"])


@router.get("", response_model=NotificationList)
def list_notifications(
    owner: ReadOwner,
    reader: ReaderDep,
    chat_id: ChatIdQuery = None,
    include_acknowledged: bool = False,
    cursor: Annotated[str | None, Query(max_length=100)] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 100,
) -> NotificationList:
    """Notifications oldest first: unacknowledged ones unless `include_acknowledged`.

    `chat_id` keeps those addressed to one chat (proposals surface in the chat their
    run came from; conflicts and merge suggestions go to the main chat, `chat_id`
    null, and are listed when no `chat_id` is given). Returns `{items, next}`; pass
    `next` as `cursor`. Errors: 422 for a cursor this list did not give. Needs scope `read`.
    """
    after = None if cursor is None else cursor_row(lambda: reader.notification(owner, cursor))
    found = reader.notifications(
        owner,
        chat_id=chat_id,
        include_acknowledged=include_acknowledged,
        after=after,
        limit=limit + 1,
    )
    page = found[:limit]
    return NotificationList(
        items=[NotificationPublic.of(n) for n in page],
        next=page[-1].id if len(found) > limit else None,
    )


@router.post("/{notification_id}/acknowledge", response_model=NotificationPublic)
def acknowledge(
    notification_id: PathId,
    owner: CurateOwner,
    reader: ReaderDep,
    committer: CommitterDep,
) -> NotificationPublic:
    """Acknowledge a notification (idempotent); returns it. 404 if not the owner's.
    Needs scope `curate`."""
    committer.acknowledge(owner, notification_id)
    return NotificationPublic.of(reader.notification(owner, notification_id))
