"""Write primitives of notes (CONTRACT §13), for `committer` only.

A part of `graph.write.writer.WriteTx`: every method runs inside the caller's write
transaction, after `begin_commit`. Version rows are created and retracted, never rewritten
or deleted (graph/cypher/note_rows.py); a note's standing (`NoteHead`), session summaries,
task logs and the reading ledger are the mutable or append-only bookkeeping beside them.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from graph.cypher import entities as ec
from graph.cypher import note_memory as mc
from graph.cypher import note_rows as rc
from graph.cypher.notes import note_from_record
from graph.notes import NoteRecord
from graph.time import FAR_FUTURE, from_store
from graph.write.base import WriteBase


class NoteWrites(WriteBase):
    """Note writes inside one transaction."""

    def lock_group_notes(self, group_id: str) -> tuple[bool, datetime | None]:
        """Take the group's lock for a note write: (the group exists, its last note time)."""
        rows = self._run(rc.GROUP_NOTE_CLOCK, group_id=group_id, tx_id=uuid.uuid4().hex)
        if not rows:
            return False, None
        last = rows[0]["last"]
        return True, None if last is None else from_store(last)

    def set_group_note_clock(self, group_id: str, t: datetime) -> None:
        """Record `t` as the time of the group's latest note write."""
        self._run(rc.SET_GROUP_NOTE_CLOCK, group_id=group_id, t=t)

    def live_groups(self, owner: str) -> tuple[str, ...]:
        """The groups `owner` belongs to now, sorted."""
        return tuple(sorted(self._run(rc.LIVE_GROUPS, owner=owner, far=FAR_FUTURE)[0]["groups"]))

    def notes_in_slot(
        self,
        owner: str,
        group_id: str | None,
        project_norm: str | None,
        key_norm: str | None,
        content_norm: str,
    ) -> list[tuple[NoteRecord, bool, bool]]:
        """Current versions in one scope (the owner's own, or a group's) and project that
        carry `key_norm` or `content_norm`: (row, has the key, has the same content),
        keyed first."""
        rows = self._run(
            rc.CURRENT_IN_SLOT,
            owner=owner,
            group_id=group_id,
            project_norm=project_norm,
            key_norm=key_norm,
            content_norm=content_norm,
            far=FAR_FUTURE,
        )
        return [
            (note_from_record(r["n"], {"tier": r["tier"]}), bool(r["by_key"]), bool(r["same"]))
            for r in rows
        ]

    def set_note_vectors(self, rows: Sequence[dict[str, Any]], model: str) -> None:
        """Store the vectors of note rows just created (maps: id, embedding)."""
        if rows:
            self._run(rc.SET_NOTE_VECTORS, rows=list(rows), model=model)

    def copy_note_vectors(self, pairs: Sequence[dict[str, str]]) -> None:
        """Give rows copied from others (maps: from, to) the vectors of their sources."""
        if pairs:
            self._run(rc.COPY_NOTE_VECTORS, pairs=list(pairs))

    def own_live_notes(self, owner: str) -> list[NoteRecord]:
        """The current versions of `owner`'s own notes, every project."""
        return [
            note_from_record(r["n"]) for r in self._run(rc.LIVE_NOTES, owner=owner, far=FAR_FUTURE)
        ]

    def set_commit_time(self, owner: str, t: datetime) -> None:
        """Move the locked owner's last commit time to `t` (a commit that also holds
        another lock, a group's or a second owner's, took a later time)."""
        self._run(ec.SET_TX_TIME, owner=owner, t=t)

    def note_now(
        self, owner: str, note_id: str, groups: Sequence[str]
    ) -> tuple[NoteRecord, dict[str, Any]] | None:
        """The note's row of current knowledge that ends last, if `owner` may write it (its
        own, or a note of one of `groups`): (row, its key_norm, project_norm and
        content_norm), or None."""
        rows = self._run(
            rc.CURRENT_OF_NOTE, note_id=note_id, owner=owner, groups=list(groups), far=FAR_FUTURE
        )
        if not rows:
            return None
        r = rows[0]
        norms = {k: r[k] for k in ("key_norm", "project_norm", "content_norm")}
        return note_from_record(r["n"], {"tier": r["tier"]}), norms

    def create_notes(self, rows: Sequence[dict[str, Any]], t: datetime) -> None:
        """Record new version rows at `t` (maps of graph/cypher/note_rows.CREATE_NOTE_ROWS)."""
        if rows:
            self._run(rc.CREATE_NOTE_ROWS, rows=list(rows), t=t, far=FAR_FUTURE)

    def link_notes(
        self,
        *,
        supersedes: Sequence[dict[str, str]] = (),
        replaces: Sequence[dict[str, str]] = (),
        moved: Sequence[dict[str, str]] = (),
    ) -> None:
        """Link rows: a version to the one it replaced, a remainder to its original, a
        handed-over row to the row it moved (maps {from, to})."""
        if supersedes or replaces or moved:
            self._run(
                rc.LINK_NOTE_ROWS,
                supersedes=list(supersedes),
                replaces=list(replaces),
                moved=list(moved),
            )

    def retract_notes(self, ids: Sequence[str], t: datetime) -> int:
        """Set `retracted_at = t` on the current rows `ids`; return how many were current."""
        if not ids:
            return 0
        rows = self._run(rc.RETRACT_NOTE_ROWS, ids=list(ids), t=t, far=FAR_FUTURE)
        return int(rows[0]["retracted"])

    def create_note_head(
        self, owner: str, note_id: str, tier: str, t: datetime, sessions: int
    ) -> None:
        """The standing of a new note: `tier`, relevance 1.0 as of `sessions`."""
        self._run(rc.CREATE_HEAD, owner=owner, note_id=note_id, tier=tier, t=t, sessions=sessions)

    def promote_note(self, note_id: str, tier: str, t: datetime, sessions: int) -> tuple[str, int]:
        """Move a note up to `tier` with relevance 1.0 again; return (tier, times stored)."""
        row = self._run(rc.PROMOTE_HEAD, note_id=note_id, tier=tier, t=t, sessions=sessions)[0]
        return row["tier"], int(row["stored"])

    def move_note_heads(self, note_ids: Sequence[str], to: str) -> None:
        """Give the notes' standing to owner `to` (a handover)."""
        if note_ids:
            self._run(rc.MOVE_HEADS, note_ids=list(note_ids), to=to)

    def count_live_notes(self, owner: str) -> int:
        """How many notes `owner` holds now (its group notes included)."""
        return int(self._run(rc.COUNT_LIVE, owner=owner, far=FAR_FUTURE)[0]["live"])

    def note_session_count(self, owner: str) -> int:
        """How many sessions of `owner` have ended (0 for an unknown owner)."""
        rows = self._run(rc.SESSIONS, owner=owner)
        return int(rows[0]["sessions"]) if rows else 0

    def end_note_session(self, owner: str) -> int:
        """Count one more ended session; return the new count."""
        return int(self._run(rc.BUMP_SESSIONS, owner=owner)[0]["sessions"])

    def short_notes_expired(self, owner: str, cutoff: datetime) -> list[NoteRecord]:
        """Current versions of the owner's short-tier notes whose tier dates from `cutoff`
        or before."""
        rows = self._run(rc.SHORT_EXPIRED, owner=owner, cutoff=cutoff, far=FAR_FUTURE)
        return [note_from_record(r["n"]) for r in rows]

    def project_rows(self, owner: str, project_norm: str) -> list[tuple[NoteRecord, str | None]]:
        """Every row of current knowledge of the owner's own notes of a project, with its
        key_norm (a handover moves them)."""
        rows = self._run(rc.HANDOVER_ROWS, owner=owner, project_norm=project_norm, far=FAR_FUTURE)
        return [(note_from_record(r["n"]), r["key_norm"]) for r in rows]

    def note_keys_taken(self, to: str, project_norm: str, keys: Sequence[str]) -> list[str]:
        """Keys owner `to` already holds for the project, among `keys` (normalized)."""
        if not keys:
            return []
        rows = self._run(
            rc.KEYS_TAKEN, to=to, project_norm=project_norm, keys=list(keys), far=FAR_FUTURE
        )
        return sorted(rows[0]["taken"])

    # --- the session memory around notes ---------------------------------------------

    def create_note_session(
        self,
        owner: str,
        *,
        session_id: str,
        chat_id: str | None,
        summary: str,
        facts: Sequence[str],
        t: datetime,
        ident: str,
    ) -> None:
        """Keep a session's summary and key facts as it ends."""
        self._run(
            mc.CREATE_SESSION,
            id=ident,
            owner=owner,
            session_id=session_id,
            chat_id=chat_id,
            summary=summary,
            facts=list(facts),
            t=t,
        )

    def create_note_task(self, owner: str, *, ident: str, t: datetime, **task: Any) -> None:
        """Log one task: `task`, `status`, `summary`, `duration_ms`, `session_id`."""
        self._run(mc.CREATE_TASK, id=ident, owner=owner, t=t, **task)

    def lock_read_ledger(self, owner: str, token_id: str, hour: datetime) -> tuple[int, int, int]:
        """Lock a token's ledger of one hour (created empty if new); return what it read
        so far: (notes, chars, playbooks)."""
        row = self._run(
            mc.LOCK_LEDGER,
            key=f"{owner}/{token_id}/{hour.isoformat()}",
            ledger_id=f"{token_id}/{hour.isoformat()}",
            owner=owner,
            token_id=token_id,
            hour=hour,
            tx_id=uuid.uuid4().hex,
        )[0]
        return int(row["notes"]), int(row["chars"]), int(row["playbooks"])

    def charge_read_ledger(
        self, owner: str, token_id: str, hour: datetime, notes: int, chars: int, playbooks: int
    ) -> tuple[int, int, int]:
        """Add a read to a locked ledger; return the totals after it."""
        row = self._run(
            mc.CHARGE_LEDGER,
            key=f"{owner}/{token_id}/{hour.isoformat()}",
            notes=notes,
            chars=chars,
            playbooks=playbooks,
        )[0]
        return int(row["notes"]), int(row["chars"]), int(row["playbooks"])
