"""Write primitives for proposals, suppressions, notifications and merges (CONTRACT §3-§5).

A mixin of `graph.write.writer.WriteTx` (for `committer` only, like the rest of the write
side): every method runs inside the caller's write transaction and is scoped by owner.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from graph.cypher import entities as ec
from graph.cypher import facts as fc
from graph.cypher import lifecycle as lc
from graph.cypher import merges as mc
from graph.cypher import proposals as pc
from graph.records import MergeSuggestionRecord, ProposalRecord
from graph.scope import params as own
from graph.time import FAR_FUTURE, FAR_PAST
from graph.write.base import WriteBase


class ProposalWrites(WriteBase):
    """Proposal, suppression, notification and merge writes inside one transaction."""

    def create_proposals(
        self, owner: str, items: Sequence[dict[str, Any]], t: datetime
    ) -> set[str]:
        """Store proposals (maps with the fields of `CREATE_PROPOSALS`); idempotent on id.

        Returns:
            The ids stored by this call (an id stored before is left untouched).
        """
        if not items:
            return set()
        rows = self._run(pc.CREATE_PROPOSALS, owner=owner, items=list(items), t=t)
        return {r["id"] for r in rows if r["created"]}

    def proposal(self, owner: str, proposal_id: str) -> ProposalRecord | None:
        """Return a proposal of `owner`, or None."""
        rows = self._run(pc.PROPOSAL_BY_ID, owner=owner, id=proposal_id)
        return pc.proposal_from_record(rows[0]["n"]) if rows else None

    def decide_proposal(
        self,
        owner: str,
        proposal_id: str,
        *,
        status: str,
        by: str,
        fact_id: str | None,
        entity_id: str | None,
        object_id: str | None,
        t: datetime,
        note_id: str | None = None,
        reply: str | None = None,
    ) -> ProposalRecord | None:
        """Mark a pending proposal `kept` or `discarded`; None when it was not pending."""
        rows = self._run(
            pc.DECIDE_PROPOSAL,
            owner=owner,
            id=proposal_id,
            status=status,
            by=by,
            fact_id=fact_id,
            entity_id=entity_id,
            object_id=object_id,
            t=t,
            note_id=note_id,
            reply=reply,
        )
        return pc.proposal_from_record(rows[0]["n"]) if rows else None

    def suppress(self, owner: str, items: Sequence[dict[str, Any]], t: datetime) -> None:
        """Record (or re-activate) suppressions: maps of subject, attribute, value_key,
        proposal_id (CONTRACT §3 discard; key forms in `graph.cypher.proposals`)."""
        if items:
            self._run(pc.UPSERT_SUPPRESSIONS, owner=owner, items=list(items), t=t)

    def clear_suppressions(self, owner: str, items: Sequence[dict[str, Any]], t: datetime) -> int:
        """Clear the active suppressions of asserted values (maps: entity_id, attribute,
        value_norm, object_id or None) in any key form; return how many were cleared."""
        if not items:
            return 0
        rows = self._run(pc.CLEAR_SUPPRESSIONS, owner=owner, items=list(items), t=t)
        return sum(int(r["cleared"]) for r in rows)

    def suppressed(self, owner: str, items: Sequence[dict[str, Any]]) -> set[int]:
        """Return the `idx` of each item (idx, attribute, subjects, values) that matches an
        active suppression."""
        if not items:
            return set()
        return {r["idx"] for r in self._run(pc.ACTIVE_SUPPRESSIONS, owner=owner, items=list(items))}

    def notify(self, owner: str, items: Sequence[dict[str, Any]], t: datetime) -> None:
        """Record notifications (maps: id, kind, text, chat_id, proposal_id, suggestion_id,
        fact_ids); idempotent on id."""
        if items:
            full = [
                {
                    "chat_id": None,
                    "proposal_id": None,
                    "suggestion_id": None,
                    "fact_ids": [],
                    "seq": 0,
                    **m,
                }
                for m in items
            ]
            self._run(pc.CREATE_NOTIFICATIONS, owner=owner, items=full, t=t)

    def acknowledge(
        self,
        owner: str,
        *,
        ids: Sequence[str] = (),
        proposal_ids: Sequence[str] = (),
        suggestion_ids: Sequence[str] = (),
        t: datetime,
    ) -> list[str]:
        """Acknowledge notifications by id or by the proposal/suggestion they are about."""
        rows = self._run(
            pc.ACKNOWLEDGE,
            owner=owner,
            ids=list(ids),
            proposal_ids=list(proposal_ids),
            suggestion_ids=list(suggestion_ids),
            t=t,
        )
        return [r["id"] for r in rows]

    def notification_exists(self, owner: str, notification_id: str) -> bool:
        """Whether `owner` has a notification with this id."""
        return bool(self._run(pc.NOTIFICATION_BY_ID, owner=owner, id=notification_id))

    # --- merges --------------------------------------------------------------------------

    def suggest_merge(
        self,
        owner: str,
        *,
        key: str,
        suggestion_id: str,
        entity_ids: tuple[str, str],
        reason: str,
        score: float,
        t: datetime,
    ) -> tuple[MergeSuggestionRecord, bool]:
        """Store a merge suggestion unless the pair was suggested before; (record, created)."""
        row = self._run(
            mc.CREATE_SUGGESTION,
            owner=owner,
            key=key,
            id=suggestion_id,
            entity_ids=list(entity_ids),
            reason=reason,
            score=score,
            t=t,
        )[0]
        return mc.suggestion_from_record(row["s"]), bool(row["created"])

    def suggestion(self, owner: str, suggestion_id: str) -> MergeSuggestionRecord | None:
        """Return a merge suggestion of `owner`, or None."""
        rows = self._run(mc.SUGGESTION_BY_ID, owner=owner, id=suggestion_id)
        return mc.suggestion_from_record(rows[0]["s"]) if rows else None

    def decide_suggestion(
        self, owner: str, suggestion_id: str, status: str, t: datetime
    ) -> MergeSuggestionRecord | None:
        """Mark an open suggestion `confirmed` or `declined`; None when it was not open."""
        rows = self._run(mc.DECIDE_SUGGESTION, owner=owner, id=suggestion_id, status=status, t=t)
        return mc.suggestion_from_record(rows[0]["s"]) if rows else None

    def mark_merged(self, owner: str, loser: str, survivor: str, t: datetime) -> None:
        """Point the loser at the survivor at `t` (the loser is kept, never deleted)."""
        self._run(mc.MARK_MERGED, owner=owner, loser=loser, survivor=survivor, t=t)

    def set_names(
        self,
        owner: str,
        entity_id: str,
        *,
        name: str,
        aliases: Sequence[str],
        search_names: Sequence[str],
        t: datetime,
    ) -> None:
        """Give an entity new names from `t`, keeping the ones they replace as a version
        that reads with an earlier `known_at` still see (graph/cypher/lifecycle.py)."""
        self._run(
            lc.SET_NAMES,
            owner=owner,
            entity_id=entity_id,
            version_id=f"nam_{uuid.uuid4().hex[:24]}",
            name=name,
            aliases=list(aliases),
            search_names=list(search_names),
            t=t,
        )

    def current_row_ids(self, owner: str, entity_id: str) -> tuple[list[str], list[str]]:
        """Return (ids of the entity's rows under current knowledge, ids of current rows of
        other entities whose object is this entity)."""
        own = self._run(
            mc.ENTITY_ROWS_CURRENT, owner=owner, entity_id=entity_id, far=FAR_FUTURE, since=FAR_PAST
        )
        about = self._run(mc.CURRENT_ROWS_ABOUT, owner=owner, entity_id=entity_id, far=FAR_FUTURE)
        return [r["id"] for r in own], [r["id"] for r in about]

    def entity_names(self, owner: str, ids: Sequence[str]) -> dict[str, str]:
        """Return the display name of each entity id of `owner` (for messages)."""
        if not ids:
            return {}
        rows = self._run(ec.ENTITIES_BY_IDS, **own(owner), entity_ids=list(ids))
        return {r["e"]["id"]: r["e"]["name"] for r in rows}

    def self_entity_id(self, owner: str) -> str | None:
        """Return the owner's own person entity id (None for an owner not yet made)."""
        rows = self._run(ec.OWNER, owner=owner)
        return rows[0]["self_entity_id"] if rows else None

    def facts_by_ids(self, owner: str, ids: Sequence[str]) -> list[Any]:
        """Return the fact rows with these ids (FactRecord), in no particular order."""
        if not ids:
            return []
        return [
            fc.fact_from_record(r["row"])
            for r in self._run(fc.FACTS_BY_IDS, owner=owner, ids=list(ids))
        ]
