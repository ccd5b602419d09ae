"""Reads of tokens and groups (CONTRACT §7).

A mixin of `graph.read.reader.Reader`: READ transactions only. What a read may see of facts
and entities is `graph.scope` (resolved by `Reader.scope`); this module answers who
belongs to which group and which tokens an owner holds.
"""

from __future__ import annotations

from graph.cypher import groups as gc
from graph.cypher import runs as rc
from graph.errors import NotFound
from graph.read.base import ReadBase
from graph.records import GroupRecord, TokenRecord
from graph.time import FAR_FUTURE


class GroupReads(ReadBase):
    """Token and group reads."""

    def tokens(self, owner: str) -> list[TokenRecord]:
        """Return every token of `owner`, live and revoked, oldest first (never a secret:
        only its hash is stored, and it is not returned)."""
        return [rc.token_from_record(r["k"]) for r in self._rows(rc.TOKENS_OF_OWNER, owner=owner)]

    def groups(self, owner: str) -> list[GroupRecord]:
        """Return the groups `owner` belongs to now, oldest first, with their current
        members and live shares."""
        rows = self._rows(gc.GROUPS_OF_MEMBER, owner=owner, group_id=None, far=FAR_FUTURE)
        return [gc.group_from_record(r["g"], r["members"], r["shares"]) for r in rows]

    def group(self, owner: str, group_id: str) -> GroupRecord:
        """Return one group `owner` belongs to now.

        Raises:
            NotFound: no such group, or `owner` is not a member (the same answer,
                CONTRACT §7).
        """
        rows = self._rows(gc.GROUPS_OF_MEMBER, owner=owner, group_id=group_id, far=FAR_FUTURE)
        if not rows:
            raise NotFound("group", group_id)
        return gc.group_from_record(rows[0]["g"], rows[0]["members"], rows[0]["shares"])
