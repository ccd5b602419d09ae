"""Reads of proposals, notifications and merge suggestions (CONTRACT §3, §4, §10).

A mixin of `graph.read.reader.Reader`: READ transactions only, every query scoped by owner.
Pending proposals are read only here, by the review endpoints; no fact read path
(prefetch, facts, search) ever touches a Proposal node (CONTRACT §3).
"""

from __future__ import annotations

from graph.cypher import merges as mc
from graph.cypher import proposals as pc
from graph.errors import NotFound
from graph.read.base import ReadBase
from graph.records import MergeSuggestionRecord, NotificationRecord, ProposalRecord


class ProposalReads(ReadBase):
    """Proposal, notification and merge-suggestion reads."""

    def proposal(self, owner: str, proposal_id: str) -> ProposalRecord:
        """Return one proposal of `owner`.

        Raises:
            NotFound: no such proposal for this owner (another owner's looks the same).
        """
        rows = self._rows(pc.PROPOSAL_BY_ID, owner=owner, id=proposal_id)
        if not rows:
            raise NotFound("proposal", proposal_id)
        return pc.proposal_from_record(rows[0]["n"])

    def proposals(
        self,
        owner: str,
        *,
        status: str | None = None,
        chat_id: str | None = None,
        run_id: str | None = None,
        after: ProposalRecord | None = None,
        limit: int = 100,
    ) -> list[ProposalRecord]:
        """Return proposals oldest first, filtered; page after `after` (exclusive)."""
        rows = self._rows(
            pc.LIST_PROPOSALS,
            owner=owner,
            status=status,
            chat_id=chat_id,
            run_id=run_id,
            after_t=None if after is None else after.created_at,
            after_seq=None if after is None else after.seq,
            after_id=None if after is None else after.id,
            limit=limit,
        )
        return [pc.proposal_from_record(r["n"]) for r in rows]

    def last_surfaced(self, owner: str, chat_id: str) -> list[ProposalRecord]:
        """The pending proposals last surfaced in a chat, in the order they were shown."""
        rows = self._rows(pc.LAST_SURFACED, owner=owner, chat_id=chat_id)
        return [pc.proposal_from_record(r["n"]) for r in rows]

    def notification(self, owner: str, notification_id: str) -> NotificationRecord:
        """Return one notification. Raises NotFound."""
        rows = self._rows(pc.NOTIFICATION_BY_ID, owner=owner, id=notification_id)
        if not rows:
            raise NotFound("notification", notification_id)
        return pc.notification_from_record(rows[0]["x"])

    def notifications(
        self,
        owner: str,
        *,
        chat_id: str | None = None,
        include_acknowledged: bool = False,
        after: NotificationRecord | None = None,
        limit: int = 100,
    ) -> list[NotificationRecord]:
        """Return notifications oldest first (unacknowledged unless asked), after `after`."""
        rows = self._rows(
            pc.LIST_NOTIFICATIONS,
            owner=owner,
            chat_id=chat_id,
            include_acknowledged=include_acknowledged,
            after_t=None if after is None else after.at,
            after_seq=None if after is None else after.seq,
            after_id=None if after is None else after.id,
            limit=limit,
        )
        return [pc.notification_from_record(r["x"]) for r in rows]

    def suggestion(self, owner: str, suggestion_id: str) -> MergeSuggestionRecord:
        """Return one merge suggestion. Raises NotFound."""
        rows = self._rows(mc.SUGGESTION_BY_ID, owner=owner, id=suggestion_id)
        if not rows:
            raise NotFound("merge suggestion", suggestion_id)
        return mc.suggestion_from_record(rows[0]["s"])

    def suggestions(
        self, owner: str, status: str | None = "open", limit: int = 200
    ) -> list[MergeSuggestionRecord]:
        """Return merge suggestions oldest first (open ones by default)."""
        rows = self._rows(mc.LIST_SUGGESTIONS, owner=owner, status=status, limit=limit)
        return [mc.suggestion_from_record(r["s"]) for r in rows]

    def suggested_keys(self, owner: str, keys: list[str]) -> set[str]:
        """Return which pair keys were suggested before (in any status)."""
        if not keys:
            return set()
        return {r["key"] for r in self._rows(mc.SUGGESTED_KEYS, owner=owner, keys=keys)}
