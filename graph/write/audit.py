"""Write primitives for cause and effect, the archive and splits (CONTRACT §5, §8).

A mixin of `graph.write.writer.WriteTx` (for `committer` only, like the rest of the write
side): every method runs inside the caller's write transaction and is scoped by owner.
The event model is described in `graph.cypher.events`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from graph.cypher import archive as ac
from graph.cypher import events as vc
from graph.records import EventRecord, event_key, run_key
from graph.write.base import WriteBase


class AuditWrites(WriteBase):
    """Event, archive and split writes inside one transaction."""

    def record_trail(
        self,
        owner: str,
        *,
        events: Sequence[dict[str, Any]],
        links: Sequence[dict[str, str]],
        commit: str | None,
        wrote: Sequence[dict[str, Any]],
        ended: Sequence[dict[str, Any]],
        changed: Sequence[dict[str, Any]],
        moved: Sequence[dict[str, str]] = (),
        noted: Sequence[dict[str, Any]] = (),
        forgot: Sequence[dict[str, Any]] = (),
        filed: Sequence[dict[str, Any]] = (),
    ) -> None:
        """Record events, their CAUSED links and a commit's effects in one round trip.

        Args:
            owner: the owner id.
            events: maps of key, id, kind, at, actor and each of
                `graph.cypher.events.EVENT_FIELDS` (None when unset); idempotent on key.
            links: maps `{from, to}` of event keys (cause -> effect).
            commit: the commit event's key, or None when nothing changed.
            wrote: `{fact_id, op, cause}` of each row recorded.
            ended: `{fact_id, op, cause}` of each row retracted.
            changed: `{entity_id, op, cause}` of each entity archived, unarchived,
                merged or split off.
            moved: `{from, to}`: a row a merge or split recorded, the row it moved.
            noted: `{note_id, owner, rel, op, cause}` of each note row recorded (rel
                `WROTE`) or retracted (`ENDED`), CONTRACT §13.
            forgot: `{episode_id, op, cause}` of each episode forgotten (CONTRACT §12).
            filed: `{episode_id, op, cause}` of each episode filed (a curated run's
                message, CONTRACT §12).
        """
        if not (events or links or wrote or ended or changed or moved or noted or forgot or filed):
            return
        trail = {
            "events": list(events),
            "links": list(links),
            "commit": commit,
            "wrote": list(wrote),
            "ended": list(ended),
            "changed": list(changed),
            "moved": list(moved),
            "noted": list(noted),
            "forgot": list(forgot),
            "filed": list(filed),
        }
        # One map parameter: one cached plan whatever the lists' lengths (RECORD_TRAIL).
        self._run(vc.RECORD_TRAIL, owner=owner, trail=trail)

    def event(self, owner: str, event_id: str) -> EventRecord | None:
        """Return an event of `owner`, or None."""
        rows = self._run(vc.EVENT_BY_KEY, owner=owner, key=event_key(owner, event_id))
        return vc.event_from_record(rows[0]["e"]) if rows else None

    def stored_sync(self, owner: str, event_id: str) -> tuple[str | None, dict[str, Any]]:
        """Return (the digest stored on a sync event, its stored outcome: proposals,
        committed, held, archived, unarchived), or (None, {}) when there is none."""
        rows = self._run(vc.EVENT_BY_KEY, owner=owner, key=event_key(owner, event_id))
        if not rows:
            return None, {}
        node = rows[0]["e"]
        outcome = {
            k: node.get(k) for k in ("proposals", "committed", "held", "archived", "unarchived")
        }
        return node.get("digest"), outcome

    def run_exists(self, owner: str, run_id: str) -> bool:
        """Whether `owner` has a run with this id (queued or done)."""
        return bool(self._run(vc.RUN_EXISTS, owner=owner, run_key=run_key(owner, run_id)))

    def set_sync_outcome(
        self,
        owner: str,
        sync_id: str,
        *,
        digest: str,
        proposals: int,
        committed: int,
        held: int,
        archived: Sequence[str],
        unarchived: Sequence[str],
    ) -> None:
        """Store what a sync did on its event, so posting it again answers the same."""
        self._run(
            vc.SET_SYNC_OUTCOME,
            owner=owner,
            key=event_key(owner, sync_id),
            digest=digest,
            proposals=proposals,
            committed=committed,
            held=held,
            archived=list(archived),
            unarchived=list(unarchived),
        )

    def mark_reported(self, owner: str, integration: str, entity_ids: Sequence[str]) -> list[str]:
        """Mark live entities as reported by `integration`; return those that were archived
        and are back now (CONTRACT §5)."""
        if not entity_ids:
            return []
        rows = self._run(
            ac.MARK_REPORTED, owner=owner, integration=integration, entity_ids=list(entity_ids)
        )
        return sorted(r["id"] for r in rows if r["was_archived"])

    def archive_unreported(
        self, owner: str, integration: str, reported: Sequence[str], self_id: str, t: datetime
    ) -> list[str]:
        """Archive the live entities `integration` reported before and not in `reported`
        (never the owner's own entity); return their ids (CONTRACT §5)."""
        rows = self._run(
            ac.ARCHIVE_UNREPORTED,
            owner=owner,
            integration=integration,
            reported=list(reported),
            self_id=self_id,
            t=t,
        )
        return [r["id"] for r in rows]
