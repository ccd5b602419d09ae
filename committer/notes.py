"""Notes as committer commands (CONTRACT §13): write, retire, close, hand over a project,
end a session, expire short-tier notes, log a task, charge a token's reading ceiling.

A command group of `committer.apply.Committer`: each method is one write transaction that
locks the owner first (`begin_commit`) and records its cause and effect (`Trail`), like
every other commit. A group note's write also takes the group's note lock, after the
owner's (the order `committer.groups` uses), and a commit time later than the group's last
note write, so one group's note versions are serialized and strictly ordered.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import TypeVar

from committer import filing
from committer import note_ops as ops
from committer.base import CommitterBase
from committer.owners import ensure_owner
from committer.proposals import Reviewed
from committer.rules import notes as rules
from committer.secrets import refuse_secrets
from committer.trail import Trail
from graph.errors import Conflict, InvalidInput, LimitExceeded, NotFound
from graph.notes import SHORT_LIFE, NoteDraft, NoteRecord, norm
from graph.records import ProposalRecord
from graph.time import FAR_FUTURE, utcnow
from graph.write.writer import WriteTx, new_id

T = TypeVar("T")
TICK = timedelta(microseconds=1)


@dataclass(frozen=True, slots=True)
class Handover:
    """What a handover moved (one audited event, CONTRACT §13).

    Attributes:
        note_ids: the notes now held by the receiving owner.
        rows: version rows moved (every row of current knowledge of those notes).
        event_id: the `handover` action event, recorded under both owners.
        at: the commit time (reads with `known_at` before it see the notes where they were).
    """

    note_ids: tuple[str, ...]
    rows: int
    event_id: str
    at: datetime


@dataclass(frozen=True, slots=True)
class Ceilings:
    """A token's hourly reading ceilings (issue 15; api/notes/limits.py configures them)."""

    notes: int = 40
    chars: int = 120_000
    playbooks: int = 6


class NoteCommands(CommitterBase):
    """Note commands."""

    def _note_commit(
        self, owner: str, group_id: str | None, work: Callable[[WriteTx, datetime], T]
    ) -> T:
        """Run `work(w, t)` in one transaction with the owner locked and, for a group note,
        the group's note lock held (NotFound when the owner is no member of it)."""

        def run(w: WriteTx) -> T:
            ensure_owner(w, owner)
            t = w.begin_commit(owner, utcnow())
            if group_id is not None:
                exists, last = w.lock_group_notes(group_id)
                if not exists or not w.is_member(group_id, owner):
                    raise NotFound("group", group_id)
                if last is not None and last >= t:
                    t = last + TICK
                    w.set_commit_time(owner, t)
                w.set_group_note_clock(group_id, t)
            return work(w, t)

        return self._writer.transaction(run)

    def write_note(self, owner: str, draft: NoteDraft, by: str = "rest") -> ops.NoteResult:
        """Keep a note: create it, replace the note of its key (in its scope and project),
        or promote a note of the same normalized content (CONTRACT §13, issue 15).

        Args:
            owner: the writer (created if new).
            draft: the note; `draft.group_id` writes a group's note (the writer a member).
            by: who asked (`rest`, `mcp`, `chat:<id>`), recorded on the action event.

        Raises:
            InvalidInput: a rule of committer/rules/notes.py (422 naming the field).
            SecretRefused: the title, body or evidence carries a credential (never stored).
            NotFound: `draft.group_id` is no group of the writer.
            LimitExceeded: a new note past the owner's limit (409).
        """
        refuse_secrets({"title": draft.title, "body": draft.body, "evidence": draft.evidence})

        def work(w: WriteTx, t: datetime) -> ops.NoteResult:
            trail = Trail(w, owner, t)
            act = trail.act("action", actor=by, action="note")
            result = ops.keep_note(w, owner, draft, t, trail, max_notes=self.note_limit)
            trail.flush()
            return replace(result, event_id=act)

        return self._note_commit(owner, draft.group_id, work)

    def _change(
        self,
        owner: str,
        note_id: str,
        action: str,
        by: str,
        change: Callable[[WriteTx, NoteRecord, datetime, Trail], ops.NoteResult],
    ) -> ops.NoteResult:
        group = self._writer.transaction(lambda w: ops.writable(w, owner, note_id).group_id)

        def work(w: WriteTx, t: datetime) -> ops.NoteResult:
            note = ops.writable(w, owner, note_id)
            trail = Trail(w, owner, t)
            act = trail.act("action", actor=by, action=action)
            result = change(w, note, t, trail)
            trail.flush()
            return replace(result, event_id=act)

        return self._note_commit(owner, group, work)

    def retire_note(
        self, owner: str, note_id: str, reason: str | None = None, by: str = "rest"
    ) -> ops.NoteResult:
        """Retire a note: its validity ends now; nothing is deleted (CONTRACT §13).

        Raises:
            NotFound: no such note for this owner. Conflict: retired already.
            SecretRefused: the reason carries a credential.
        """
        refuse_secrets({"reason": reason})
        return self._change(
            owner, note_id, "retire", by, lambda w, n, t, tr: ops.retire(w, owner, n, t, tr, reason)
        )

    def close_note(
        self, owner: str, note_id: str, status: str, reason: str, by: str = "rest"
    ) -> ops.NoteResult:
        """Close an open hypothesis or question as `confirmed` or `rejected`, recording
        when and why (CONTRACT §13).

        Raises:
            NotFound: no such note. InvalidInput: another status, no reason.
            Conflict: not an open claim. SecretRefused: the reason carries a credential.
        """
        refuse_secrets({"reason": reason})
        return self._change(
            owner,
            note_id,
            "close",
            by,
            lambda w, n, t, tr: ops.close(w, owner, n, status, reason, t, tr),
        )

    def hand_over(self, owner: str, project: str, to: str, by: str = "rest") -> Handover:
        """Move the owner's own notes of `project` to owner `to`, as one audited event
        (CONTRACT §13): each row of current knowledge is retracted from `owner` and
        recorded for `to` with the same valid times (`HANDED_OVER_FROM`), so reads with
        `known_at` before the handover see the notes with `owner`, and after it with `to`.

        Raises:
            InvalidInput: no project, `to` is the owner itself or no existing owner.
            NotFound: the owner has no note of the project.
            Conflict: `to` already holds a note of the project under one of their keys.
        """
        project_norm = norm(project)
        if project_norm is None:
            raise InvalidInput("project", "name the project whose notes to hand over")
        if to == owner:
            raise InvalidInput("to", "the notes are yours already; name another owner")

        def work(w: WriteTx) -> Handover:
            ensure_owner(w, owner)
            if not w.owner_exists(to):  # a typo must not create an owner
                raise InvalidInput("to", f"no owner {to!r}")
            first, second = sorted((owner, to))
            t = w.begin_commit(second, w.begin_commit(first, utcnow()))
            w.set_commit_time(first, t)
            rows = w.project_rows(owner, project_norm)
            if not rows:
                raise NotFound("project", project)
            keys = sorted({k for r, k in rows if k and r.valid_to >= FAR_FUTURE})
            taken = w.note_keys_taken(to, project_norm, keys)
            if taken:
                raise Conflict(f"{to!r} already keeps notes of {project!r} with the keys {taken}")
            event = new_id("act")
            give, take = Trail(w, owner, t), Trail(w, to, t)
            for trail, other in ((give, to), (take, owner)):
                trail.act("action", event_id=event, actor=by, action="handover", target_id=other)
            moved = [rules.copy(r, id=new_id("nov"), owner=to) for r, _ in rows]
            w.retract_notes([r.id for r, _ in rows], t)
            w.create_notes(moved, t)
            w.copy_note_vectors(
                [{"from": r.id, "to": m["id"]} for m, (r, _) in zip(moved, rows, strict=True)]
            )
            w.link_notes(
                moved=[{"from": m["id"], "to": r.id} for m, (r, _) in zip(moved, rows, strict=True)]
            )
            note_ids = sorted({r.note_id for r, _ in rows})
            w.move_note_heads(note_ids, to)
            give.noted("ENDED", [(r.id, owner, "moved") for r, _ in rows])
            take.noted("WROTE", [(m["id"], to, "moved") for m in moved])
            give.flush()
            take.flush()
            return Handover(tuple(note_ids), len(rows), event, t)

        return self._writer.transaction(work)

    def retire_expired(self, owner: str, now: datetime | None = None) -> list[ops.NoteResult]:
        """Retire (never delete) the owner's short-tier notes older than 24 hours: what the
        next brief does first (issue 15). One transaction; nothing when none expired."""

        def work(w: WriteTx) -> list[ops.NoteResult]:
            ensure_owner(w, owner)
            t = w.begin_commit(owner, now or utcnow())
            expired = w.short_notes_expired(owner, t - SHORT_LIFE)
            if not expired:
                return []
            trail = Trail(w, owner, t)
            act = trail.act("action", actor="brief", action="expire")
            done = [
                ops.retire(w, owner, replace(n, tier="short"), t, trail, "short tier, past 24 h")
                for n in expired
            ]
            trail.flush()
            return [replace(r, event_id=act) for r in done]

        return self._writer.transaction(work)

    def end_session(
        self,
        owner: str,
        *,
        session_id: str,
        chat_id: str | None,
        summary: str,
        facts: Sequence[str],
        reviewed: Sequence[Reviewed],
        by: str = "mcp",
    ) -> tuple[int, list[ProposalRecord]]:
        """End a session (issue 15, `memory_end_session`): keep its summary, count the end
        (every note's relevance decays once, by its tier's rate), and file the key facts'
        proposals through the risk policy's decisions (held ones wait for a yes).

        Returns:
            (the owner's session count now, the proposals stored for the key facts).

        Raises:
            SecretRefused: the summary or a key fact carries a credential (the tool's
                fields `summary`, `keyFacts`); nothing is written.
        """
        refuse_secrets({"summary": summary, "keyFacts": list(facts)})

        def work(w: WriteTx) -> tuple[int, list[ProposalRecord]]:
            self_id, _ = ensure_owner(w, owner)
            t = w.begin_commit(owner, utcnow())
            trail = Trail(w, owner, t)
            act = trail.act("action", actor=by, action="end_session", chat_id=chat_id)
            sessions = w.end_note_session(owner)
            w.create_note_session(
                owner,
                session_id=session_id,
                chat_id=chat_id,
                summary=summary,
                facts=facts,
                t=t,
                ident=new_id("ses"),
            )
            filing.store_reviewed(
                w, owner, self_id, chat_id, reviewed, t, trail, lambda _: [act],
                note_limit=self.note_limit,
            )  # fmt: skip
            found = [w.proposal(owner, filing.public_id(owner, r.proposal.id)) for r in reviewed]
            return sessions, [p for p in found if p is not None]

        return self._writer.transaction(work)

    def log_task(
        self,
        owner: str,
        *,
        task: str,
        status: str,
        summary: str | None,
        duration_ms: int | None,
        session_id: str | None,
    ) -> tuple[str, datetime]:
        """Log one task's outcome (issue 15, `task_log`); return (its id, when).

        Raises:
            SecretRefused: the task or its summary carries a credential.
        """
        refuse_secrets({"task": task, "summary": summary})

        def work(w: WriteTx) -> tuple[str, datetime]:
            ensure_owner(w, owner)
            t = w.begin_commit(owner, utcnow())
            ident = new_id("tsk")
            w.create_note_task(
                owner,
                ident=ident,
                t=t,
                task=task,
                status=status,
                summary=summary,
                duration_ms=duration_ms,
                session_id=session_id,
            )
            return ident, t

        return self._writer.transaction(work)

    def charge_reads(
        self,
        owner: str,
        token_id: str,
        hour: datetime,
        *,
        notes: int,
        chars: int,
        playbooks: int,
        ceilings: Ceilings,
        retry_after: int,
    ) -> tuple[int, int, int]:
        """Count a read of notes against the token's ceilings for `hour` (UTC), in the store,
        so every process serving the token counts together; nothing is counted when the
        read would pass a ceiling.

        Returns:
            (notes, chars, playbooks) read this hour, this read included.

        Raises:
            LimitExceeded: 429 naming the ceiling, with `retry_after` seconds.
        """

        def work(w: WriteTx) -> tuple[int, int, int]:
            used = w.lock_read_ledger(owner, token_id, hour)
            asked = (notes, chars, playbooks)
            names = ("notes_read_per_hour", "note_chars_read_per_hour", "playbooks_read_per_hour")
            settings = ("NOTES", "CHARS", "PLAYBOOKS")
            for name, setting, have, want, cap in zip(
                names, settings, used, asked, (ceilings.notes, ceilings.chars, ceilings.playbooks),
                strict=True,
            ):  # fmt: skip
                if want and have + want > cap:
                    raise LimitExceeded(
                        name,
                        cap,
                        have,
                        f"hourly reading ceiling reached: this token read {have} of {cap} "
                        f"{name.split('_read')[0].replace('_', ' ')} this hour and this read "
                        f"asks {want} more (WORLDSTATE_NOTES_READ_{setting}_PER_HOUR); it "
                        f"resets in {retry_after} s",
                        retry_after=retry_after,
                    )
            return w.charge_read_ledger(owner, token_id, hour, notes, chars, playbooks)

        return self._writer.transaction(work)
