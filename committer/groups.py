"""Groups, memberships, shares and token revocation, as committer commands (CONTRACT §7).

A mixin of `committer.apply.Committer`. Each method is one write transaction. Group
changes lock the caller's owner node first (`begin_commit`, which also gives the change
its transaction time) and then the group node, so the changes of one group are
serialized and no two transactions take the same two locks in opposite orders.

Who may do what (another owner's group looks absent, CONTRACT §7):

| command | group | who |
|---|---|---|
| create | new | any owner (token scope `write`); it becomes the first member |
| add / remove a member | caller is a member, else 404 | only the creator, else 403 |
| share an entity | caller is a member, else 404 | only the entity's owner, else 404 |
| unshare | caller is a member, else 404 | only the owner who shared it, else 404 |

A member who is removed takes its shares with it. Members read shared entities through
every read (graph/scope.py); nobody writes to another owner's entity: the committer's
own reads stay owner-only.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TypeVar

from committer.base import CommitterBase
from committer.owners import ensure_owner, live_entity
from graph.errors import Conflict, Forbidden, InvalidInput, NotFound
from graph.records import GroupRecord, ShareRecord, TokenRecord
from graph.time import utcnow
from graph.write.writer import WriteTx, new_id

T = TypeVar("T")
MAX_GROUP_NAME = 200
MAX_OWNER_ID = 200


class GroupCommands(CommitterBase):
    """Group and token commands."""

    def _in_group(
        self, owner: str, group_id: str, work: Callable[[WriteTx, str, datetime], T]
    ) -> T:
        """Run `work(w, creator, t)` in one transaction, with `owner` a member of the group.

        Raises:
            NotFound: no such group, or `owner` is not a member of it.
        """

        def run(w: WriteTx) -> T:
            ensure_owner(w, owner)
            t = w.begin_commit(owner, utcnow())
            creator = w.lock_group(group_id)
            if creator is None or not w.is_member(group_id, owner):
                raise NotFound("group", group_id)
            return work(w, creator, t)

        return self._writer.transaction(run)

    @staticmethod
    def _seen_by(w: WriteTx, owner: str, group_id: str) -> GroupRecord:
        group = w.group_of(owner, group_id)
        if group is None:  # pragma: no cover - the caller checked membership under the lock
            raise NotFound("group", group_id)
        return group

    def create_group(self, owner: str, name: str) -> GroupRecord:
        """Create a group; `owner` is its creator and first member.

        Raises:
            InvalidInput: the name is empty or longer than 200 characters.
        """
        name = name.strip()
        if not name or len(name) > MAX_GROUP_NAME:
            raise InvalidInput("name", f"must be 1 to {MAX_GROUP_NAME} characters")

        def work(w: WriteTx) -> GroupRecord:
            ensure_owner(w, owner)
            t = w.begin_commit(owner, utcnow())
            group_id = new_id("grp")
            w.create_group(owner, group_id=group_id, membership_id=new_id("mem"), name=name, t=t)
            return self._seen_by(w, owner, group_id)

        return self._writer.transaction(work)

    def add_member(self, owner: str, group_id: str, member: str) -> GroupRecord:
        """Add `member` (an owner id) to the group; a current member is left as it is.

        Raises:
            NotFound: no such group for `owner`.
            Forbidden: `owner` is a member but not the group's creator.
            InvalidInput: `member` is empty, too long, or not an existing owner.
        """
        member = member.strip()
        if not member or len(member) > MAX_OWNER_ID:
            raise InvalidInput("owner", f"must be 1 to {MAX_OWNER_ID} characters")

        def work(w: WriteTx, creator: str, t: datetime) -> GroupRecord:
            if creator != owner:
                raise Forbidden("Only the group's creator adds or removes members.")
            if not w.owner_exists(member):  # a typo must not pre-grant a future owner
                raise InvalidInput("owner", f"no owner {member!r}")
            if not w.is_member(group_id, member):
                w.add_member(group_id, member, membership_id=new_id("mem"), by=owner, t=t)
            return self._seen_by(w, owner, group_id)

        return self._in_group(owner, group_id, work)

    def remove_member(self, owner: str, group_id: str, member: str) -> GroupRecord:
        """Remove `member` from the group; the shares it made there end with it.

        Raises:
            NotFound: no such group for `owner`, or `member` is not a member.
            Forbidden: `owner` is a member but not the group's creator.
            Conflict: `member` is the creator (a group keeps its creator).
        """

        def work(w: WriteTx, creator: str, t: datetime) -> GroupRecord:
            if creator != owner:
                raise Forbidden("Only the group's creator adds or removes members.")
            if member == creator:
                raise Conflict("The group's creator cannot be removed from it.")
            if not w.end_membership(group_id, member, t):
                raise NotFound("member", member)
            return self._seen_by(w, owner, group_id)

        return self._in_group(owner, group_id, work)

    def share(self, owner: str, group_id: str, entity_id: str) -> ShareRecord:
        """Share one of `owner`'s entities with a group it belongs to (idempotent: a live
        share is returned as it is). A merged id shares its survivor (CONTRACT §5).

        Raises:
            NotFound: no such group for `owner`, or the entity is not `owner`'s own (an
                entity shared with `owner` by someone else cannot be passed on).
        """

        def work(w: WriteTx, _creator: str, t: datetime) -> ShareRecord:
            entity = live_entity(w, owner, entity_id)
            existing = w.live_share(group_id, entity.id, owner)
            if existing is not None:
                return existing
            return w.create_share(group_id, entity.id, owner, share_id=new_id("shr"), t=t)

        return self._in_group(owner, group_id, work)

    def unshare(self, owner: str, group_id: str, entity_id: str) -> ShareRecord:
        """End `owner`'s share of an entity with a group; members stop seeing it from now
        (reads with `known_at` before now still do).

        Raises:
            NotFound: no such group for `owner`, or no live share of that entity by `owner`.
        """

        def work(w: WriteTx, _creator: str, t: datetime) -> ShareRecord:
            ended = w.end_share(group_id, entity_id, owner, t)
            if ended is None:
                raise NotFound("share", entity_id)
            return ended

        return self._in_group(owner, group_id, work)

    def revoke_token(self, token_id: str) -> tuple[TokenRecord, bool]:
        """Revoke a token by id (CONTRACT §7); it stops authenticating at once in new
        processes, and within the token cache's TTL in running ones (api/http/deps.py).

        Returns:
            (the token, True if this call revoked it; False if it was revoked before).

        Raises:
            NotFound: no token with this id.
        """
        found = self._writer.transaction(lambda w: w.revoke_token(token_id, utcnow()))
        if found is None:
            raise NotFound("token", token_id)
        return found
