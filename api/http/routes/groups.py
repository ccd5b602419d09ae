"""Groups: owners who share entities with each other (CONTRACT §7 "or to a group,
visible to its members").

A group's creator adds and removes members; any member shares its own entities with
the group. Members read a shared entity and its facts through every read (the read
layer's scope, graph/scope.py); nobody but its owner writes to it. A group the caller
does not belong to answers 404, exactly as one that does not exist.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path

from api.http.deps import PathId, ReaderDep, ReadOwner, WriteOwner
from api.http.schemas.groups import (
    MAX_OWNER_ID,
    GroupCreate,
    GroupList,
    GroupPublic,
    MemberAdd,
    ShareCreate,
    SharePublic,
)
from api.http.write_deps import CommitterDep

router = APIRouter(prefix="/v1/groups", tags=["groups"])
OwnerId = Annotated[str, Path(min_length=1, max_length=MAX_OWNER_ID)]


@router.post("", status_code=201, response_model=GroupPublic)
def create_group(body: GroupCreate, owner: WriteOwner, committer: CommitterDep) -> GroupPublic:
    """Create a group; the caller is its creator and first member.

    Body: `{name}`. Returns 201 `{id, name, owner, members, shares, created_at}`.
    Errors: 422 naming the field. Needs scope `write`.
    """
    return GroupPublic.of(committer.create_group(owner, body.name))


@router.get("", response_model=GroupList)
def list_groups(owner: ReadOwner, reader: ReaderDep) -> GroupList:
    """The groups the caller belongs to now, oldest first, with their current members and
    live shares. Returns `{items, next: null}`. Needs scope `read`."""
    return GroupList(items=[GroupPublic.of(g) for g in reader.groups(owner)])


@router.post("/{group_id}/members", status_code=201, response_model=GroupPublic)
def add_member(
    group_id: PathId, body: MemberAdd, owner: WriteOwner, committer: CommitterDep
) -> GroupPublic:
    """Add an owner to the group (a current member is left as it is); returns the group.

    Body: `{owner}`. Errors: 404 when the caller does not belong to the group (as for an
    unknown id); 403 when the caller is a member but not the creator; 422 naming the
    field. Needs scope `write`.
    """
    return GroupPublic.of(committer.add_member(owner, group_id, body.owner))


@router.delete("/{group_id}/members/{member}", response_model=GroupPublic)
def remove_member(
    group_id: PathId, member: OwnerId, owner: WriteOwner, committer: CommitterDep
) -> GroupPublic:
    """Remove an owner from the group; the shares it made there end with it. Returns the
    group. Errors: 404 unknown group (for the caller) or not a member; 403 the caller is
    not the creator; 409 removing the creator. Needs scope `write`.
    """
    return GroupPublic.of(committer.remove_member(owner, group_id, member))


@router.post("/{group_id}/shares", status_code=201, response_model=SharePublic)
def share(
    group_id: PathId, body: ShareCreate, owner: WriteOwner, committer: CommitterDep
) -> SharePublic:
    """Share one of the caller's own entities with a group it belongs to (idempotent).

    Members see it and its facts from now on, in every read; reads with `known_at`
    before now do not. Body: `{entity_id}`. Returns 201 `{group_id, entity_id, owner,
    shared_at, unshared_at: null}`. Errors: 404 when the group is not the caller's or
    the entity is not the caller's own (one shared with it cannot be passed on).
    Needs scope `write`.
    """
    return SharePublic.of(committer.share(owner, group_id, body.entity_id))


@router.delete("/{group_id}/shares/{entity_id}", response_model=SharePublic)
def unshare(
    group_id: PathId, entity_id: PathId, owner: WriteOwner, committer: CommitterDep
) -> SharePublic:
    """Stop sharing an entity with the group: members stop seeing it from now (reads with
    `known_at` before now still do). Returns the share with its `unshared_at`.
    Errors: 404 when the group is not the caller's or the caller has no live share of
    that entity there. Needs scope `write`.
    """
    return SharePublic.of(committer.unshare(owner, group_id, entity_id))
