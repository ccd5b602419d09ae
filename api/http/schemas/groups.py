"""Request and response models of groups and shares (CONTRACT §7 "or to a group,
visible to its members")."""

from __future__ import annotations

from pydantic import BaseModel, Field

from graph.fields import MAX_NAME, RequestModel, UtcDatetime
from graph.records import GroupRecord, ShareRecord
from graph.time import shown_end

MAX_OWNER_ID = 200


class GroupCreate(RequestModel):
    """`POST /v1/groups` body."""

    name: str = Field(min_length=1, max_length=MAX_NAME)


class MemberAdd(RequestModel):
    """`POST /v1/groups/{id}/members` body: the owner id to add."""

    owner: str = Field(min_length=1, max_length=MAX_OWNER_ID)


class ShareCreate(RequestModel):
    """`POST /v1/groups/{id}/shares` body: one of the caller's own entities."""

    entity_id: str = Field(min_length=1, max_length=200)


class SharePublic(BaseModel):
    """An entity shared with a group: `owner` is the sharer; `unshared_at` null while live."""

    group_id: str
    entity_id: str
    owner: str
    shared_at: UtcDatetime
    unshared_at: UtcDatetime | None

    @classmethod
    def of(cls, s: ShareRecord) -> SharePublic:
        """Build from an internal record."""
        return cls(
            group_id=s.group_id,
            entity_id=s.entity_id,
            owner=s.owner,
            shared_at=s.shared_at,
            unshared_at=shown_end(s.unshared_at),
        )


class GroupPublic(BaseModel):
    """A group: `owner` is its creator; `members` its current members (creator first);
    `shares` the entities shared with it now."""

    id: str
    name: str
    owner: str
    members: list[str]
    shares: list[SharePublic]
    created_at: UtcDatetime

    @classmethod
    def of(cls, g: GroupRecord) -> GroupPublic:
        """Build from an internal record."""
        return cls(
            id=g.id,
            name=g.name,
            owner=g.owner,
            members=list(g.members),
            shares=[SharePublic.of(s) for s in g.shares],
            created_at=g.created_at,
        )


class GroupList(BaseModel):
    """`GET /v1/groups`: the caller's groups, oldest first."""

    items: list[GroupPublic]
    next: str | None = None
