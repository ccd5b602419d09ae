"""Write primitives for groups, memberships, shares and token revocation (CONTRACT §7).

A mixin of `graph.write.writer.WriteTx` (for `committer` only, like the rest of the write
side): every method runs inside the caller's write transaction. Ends of memberships and
shares are set once; nothing is deleted (graph/cypher/groups.py).
"""

from __future__ import annotations

import uuid
from datetime import datetime

from graph.cypher import entities as ec
from graph.cypher import groups as gc
from graph.cypher import runs as rc
from graph.records import GroupRecord, ShareRecord, TokenRecord
from graph.time import FAR_FUTURE
from graph.write.base import WriteBase


class GroupWrites(WriteBase):
    """Group and token writes inside one transaction."""

    def create_group(
        self, owner: str, *, group_id: str, membership_id: str, name: str, t: datetime
    ) -> None:
        """Create a group whose creator `owner` is its first member, at `t`."""
        self._run(
            gc.CREATE_GROUP,
            id=group_id,
            name=name,
            owner=owner,
            membership_id=membership_id,
            t=t,
            far=FAR_FUTURE,
        )

    def group_of(self, member: str, group_id: str) -> GroupRecord | None:
        """Return the group as `member` sees it now (members, live shares), or None when
        `member` does not belong to it."""
        rows = self._run(gc.GROUPS_OF_MEMBER, owner=member, group_id=group_id, far=FAR_FUTURE)
        return (
            gc.group_from_record(rows[0]["g"], rows[0]["members"], rows[0]["shares"])
            if rows
            else None
        )

    def lock_group(self, group_id: str) -> str | None:
        """Take the group's write lock (to the end of the transaction); return its
        creator, or None when no such group exists."""
        rows = self._run(gc.LOCK_GROUP, group_id=group_id, tx_id=uuid.uuid4().hex)
        return rows[0]["owner"] if rows else None

    def owner_exists(self, owner: str) -> bool:
        """True when an Owner node with this id exists (graph/cypher/entities.py OWNER)."""
        return bool(self._run(ec.OWNER, owner=owner))

    def is_member(self, group_id: str, member: str) -> bool:
        """True when `member` belongs to the group now."""
        return bool(self._run(gc.MEMBER_OF, group_id=group_id, member=member, far=FAR_FUTURE))

    def add_member(
        self, group_id: str, member: str, *, membership_id: str, by: str, t: datetime
    ) -> None:
        """Record that `member` joined the group at `t`, added by `by`."""
        self._run(
            gc.ADD_MEMBER,
            id=membership_id,
            group_id=group_id,
            member=member,
            owner=by,
            t=t,
            far=FAR_FUTURE,
        )

    def end_membership(self, group_id: str, member: str, t: datetime) -> int:
        """End `member`'s stay in the group at `t`, and every share it made there with it.

        Returns:
            The number of memberships ended (0 when it was not a member).
        """
        ended = self._run(gc.END_MEMBERSHIP, group_id=group_id, member=member, t=t, far=FAR_FUTURE)[
            0
        ]["ended"]
        if ended:
            self._run(gc.END_SHARES_OF, group_id=group_id, member=member, t=t, far=FAR_FUTURE)
        return int(ended)

    def live_share(self, group_id: str, entity_id: str, owner: str) -> ShareRecord | None:
        """Return `owner`'s live share of `entity_id` with the group, or None."""
        rows = self._run(
            gc.LIVE_SHARE, group_id=group_id, entity_id=entity_id, owner=owner, far=FAR_FUTURE
        )
        return gc.share_from_record(rows[0]["s"]) if rows else None

    def create_share(
        self, group_id: str, entity_id: str, owner: str, *, share_id: str, t: datetime
    ) -> ShareRecord:
        """Share `owner`'s entity with the group from `t` on."""
        row = self._run(
            gc.CREATE_SHARE,
            id=share_id,
            group_id=group_id,
            owner=owner,
            entity_id=entity_id,
            t=t,
            far=FAR_FUTURE,
        )[0]
        return gc.share_from_record(row["s"])

    def end_share(
        self, group_id: str, entity_id: str, owner: str, t: datetime
    ) -> ShareRecord | None:
        """End `owner`'s live share of `entity_id` with the group at `t`; None if none."""
        rows = self._run(
            gc.END_SHARE, group_id=group_id, entity_id=entity_id, owner=owner, t=t, far=FAR_FUTURE
        )
        return gc.share_from_record(rows[0]["s"]) if rows else None

    def revoke_token(self, token_id: str, t: datetime) -> tuple[TokenRecord, bool] | None:
        """Revoke a token at `t` (once); return (token, True if this call revoked it), or
        None for an unknown id."""
        rows = self._run(rc.REVOKE_TOKEN, id=token_id, t=t)
        return (rc.token_from_record(rows[0]["k"]), bool(rows[0]["live"])) if rows else None
