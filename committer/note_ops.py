"""Writing notes inside a commit (CONTRACT §13): keep, replace, promote, retire, close.

Functions over an open write transaction (owner locked, `begin_commit` done) and the
commit's `Trail`, so a REST write (committer/notes.py), a run's note proposals and a kept
proposal (committer/filing.py) write notes the same way, with the same audit trail:

* a new note: one version row (`created`), its standing at the draft's tier;
* the same key (same scope and project): the current version is superseded: retracted,
  recorded again ending now (`remainder`), and the new version keeps `first_learned_at`
  (`replaced`);
* the same normalized content again: no row, the note moves up a tier with relevance 1.0
  (`promoted`, issue 15: "instead of writing a duplicate");
* retire: the current version is retracted and recorded again ending now, `retired`;
* close (confirmed or rejected): a new version saying when and why.
"""

from __future__ import annotations

import logging
from collections.abc import Collection
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from committer.rules import notes as rules
from committer.trail import Trail
from graph.embedding import EmbedderUnavailable
from graph.errors import Conflict, InvalidInput, LimitExceeded, NotFound
from graph.notes import (
    CLOSED,
    MAX_REASON,
    NoteDraft,
    NoteRecord,
    content_norm,
    is_claim,
    next_tier,
    norm,
)
from graph.time import FAR_FUTURE
from graph.write.writer import WriteTx, new_id

log = logging.getLogger("worldstate.committer")

MAX_NOTES = 600
"""Notes one owner may hold (issue 15; `WORLDSTATE_NOTES_MAX_PER_OWNER` configures it)."""


@dataclass(frozen=True, slots=True)
class NoteResult:
    """What one note write did.

    Attributes:
        note: the version standing for the note now (for a retire: the ended version).
        effect: `created`, `replaced`, `promoted`, `retired` or `closed`.
        ended: ids of the version rows this write retracted.
        live: the notes the writer holds after the write (for the limit's warning).
        tier: the note's tier after the write.
        event_id: the action event that records it (CONTRACT §8), when known.
    """

    note: NoteRecord
    effect: str
    ended: tuple[str, ...]
    live: int
    tier: str
    event_id: str | None = None


def record(row: dict[str, Any], t: datetime, tier: str = "mid") -> NoteRecord:
    """The `NoteRecord` of a row map just recorded at `t` (open in transaction time)."""
    fields = {k: row[k] for k in NoteRecord.__slots__ if k in row}
    return NoteRecord(**{**fields, "recorded_at": t, "retracted_at": FAR_FUTURE, "tier": tier})


def draft_of(note: NoteRecord) -> NoteDraft:
    """The draft that would write `note` again (a close writes its next version from it)."""
    return NoteDraft(
        kind=note.kind,
        title=note.title,
        body=note.body,
        evidence=note.evidence,
        known_by=note.known_by,
        confidence=note.confidence,
        key=note.key,
        project=note.project,
        review_at=note.review_at,
        status=note.status,
        tier=note.tier,
        group_id=note.group_id,
        source=note.source,
        run_id=note.run_id,
        chat_id=note.chat_id,
        message_id=note.message_id,
        agent_id=note.agent_id,
        experiment_id=note.experiment_id,
    )


def _unchanged(old: NoteRecord, draft: NoteDraft) -> bool:
    return (
        content_norm(old.title, old.body) == content_norm(draft.title, draft.body)
        and old.kind == draft.kind
        and old.status == draft.status
        and old.review_at == draft.review_at
    )


def keep_note(
    w: WriteTx, owner: str, draft: NoteDraft, t: datetime, trail: Trail, *, max_notes: int
) -> NoteResult:
    """Keep a note: create it, replace the note of its key, or promote the same content.

    Raises:
        InvalidInput: the draft breaks a rule (committer/rules/notes.py `check`).
        LimitExceeded: a new note past `max_notes` for this owner (409).
    """
    draft = rules.check(draft, t)
    key_norm = norm(draft.key)
    found = w.notes_in_slot(
        owner, draft.group_id, norm(draft.project), key_norm, content_norm(draft.title, draft.body)
    )
    keyed = next((r for r, by_key, _ in found if by_key), None)
    same = next(
        (
            r
            for r, _, s in found
            if s and (key_norm is None or r.key is None or norm(r.key) == key_norm)
        ),
        None,
    )
    sessions = w.note_session_count(owner)
    if keyed is not None and not _unchanged(keyed, draft):
        return supersede(w, owner, keyed, draft, t, trail, "replaced", sessions=sessions)
    target = keyed or same
    if target is not None:
        tier, _ = w.promote_note(
            target.note_id, max_tier(next_tier(target.tier), draft.tier), t, sessions
        )
        live = w.count_live_notes(owner)
        return NoteResult(replace(target, tier=tier), "promoted", (), live, tier)
    live = w.count_live_notes(owner)
    if live >= max_notes:
        raise LimitExceeded(
            "notes_per_owner",
            max_notes,
            live,
            f"you keep {live} notes, the most one owner may keep ({max_notes}, "
            "WORLDSTATE_NOTES_MAX_PER_OWNER); retire notes that no longer help first",
            status=409,
        )
    note_id, vid = new_id("nte"), new_id("nov")
    row = rules.row(draft, ident=vid, note_id=note_id, owner=owner, version=1,
                    first_learned_at=draft.valid_from or t, t=t)  # fmt: skip
    w.create_notes([row], t)
    embed(w, [row])
    w.create_note_head(owner, note_id, draft.tier, t, sessions)
    trail.noted("WROTE", [(vid, owner, "created")])
    return NoteResult(record(row, t, draft.tier), "created", (), live + 1, draft.tier)


def max_tier(a: str, b: str) -> str:
    """The higher of two tiers."""
    order = ("short", "mid", "long")
    return a if order.index(a) >= order.index(b) else b


def supersede(
    w: WriteTx,
    owner: str,
    old: NoteRecord,
    draft: NoteDraft,
    t: datetime,
    trail: Trail,
    effect: str,
    *,
    sessions: int,
    closed: tuple[datetime, str] | None = None,
) -> NoteResult:
    """Replace the current version `old` with a new one from a checked `draft` (keeping
    `first_learned_at`): `old` is retracted and recorded again ending at `t`.

    Raises:
        Conflict: `old` is no longer current (nothing is written).
    """
    if w.retract_notes([old.id], t) != 1:
        raise Conflict(f"note {old.note_id!r} changed meanwhile; nothing was written")
    # The new version holds from when it was said, unless that is not after the old one's
    # start (then from now): the old version stands until then.
    start = draft.valid_from if draft.valid_from and draft.valid_from > old.valid_from else t
    draft = replace(draft, valid_from=start)
    rest, vid = new_id("nov"), new_id("nov")
    first = rules.remainder(old, rest, start, "superseded") | {"owner": owner}
    new = rules.row(
        draft,
        ident=vid,
        note_id=old.note_id,
        owner=owner,
        version=old.version + 1,
        first_learned_at=old.first_learned_at,
        t=t,
        closed_at=None if closed is None else closed[0],
        close_reason=None if closed is None else closed[1],
    )
    w.create_notes([first, new], t)
    w.copy_note_vectors([{"from": old.id, "to": rest}])
    embed(w, [new])
    w.link_notes(supersedes=[{"from": vid, "to": old.id}], replaces=[{"from": rest, "to": old.id}])
    tier, _ = w.promote_note(old.note_id, old.tier, t, sessions)
    trail.noted("ENDED", [(old.id, old.owner, "superseded")])
    trail.noted("WROTE", [(rest, owner, "remainder"), (vid, owner, effect)])
    live = w.count_live_notes(owner)
    return NoteResult(record(new, t, tier), effect, (old.id,), live, tier)


def writable(w: WriteTx, owner: str, note_id: str) -> NoteRecord:
    """The note's row of current knowledge that ends last, if `owner` may change it (its
    own, or its group's).

    Raises:
        NotFound: no such note for this owner (another owner's looks the same).
    """
    found = w.note_now(owner, note_id, w.live_groups(owner))
    if found is None:
        raise NotFound("note", note_id)
    return found[0]


def retire(
    w: WriteTx, owner: str, note: NoteRecord, t: datetime, trail: Trail, reason: str | None
) -> NoteResult:
    """Retire a note: its validity ends at `t`; reads before `t` still see it.

    Raises:
        Conflict: it is retired already.
        InvalidInput: a reason over 1,000 characters.
    """
    if note.valid_to < FAR_FUTURE:
        raise Conflict(f"note {note.note_id!r} is retired already")
    if reason is not None and len(reason) > MAX_REASON:
        raise InvalidInput("reason", f"at most {MAX_REASON} characters")
    if w.retract_notes([note.id], t) != 1:
        raise Conflict(f"note {note.note_id!r} changed meanwhile; nothing was written")
    rest = new_id("nov")
    row = rules.remainder(note, rest, t, "retired") | {
        "owner": owner,
        "closed_at": t,
        "close_reason": reason,
    }
    w.create_notes([row], t)
    w.copy_note_vectors([{"from": note.id, "to": rest}])
    w.link_notes(replaces=[{"from": rest, "to": note.id}])
    trail.noted("ENDED", [(note.id, note.owner, "retired")])
    trail.noted("WROTE", [(rest, owner, "retired")])
    live = w.count_live_notes(owner)
    return NoteResult(record(row, t, note.tier), "retired", (note.id,), live, note.tier)


def close(
    w: WriteTx, owner: str, note: NoteRecord, status: str, reason: str, t: datetime, trail: Trail
) -> NoteResult:
    """Close an open hypothesis or question as `confirmed` or `rejected`, recording when
    (`closed_at`) and why (`close_reason`) in a new version (CONTRACT §13).

    Raises:
        InvalidInput: another status, or no reason.
        Conflict: the note is no claim, not open, or retired.
    """
    if status not in CLOSED:
        raise InvalidInput("status", f"close as {' or '.join(CLOSED)}")
    reason = (reason or "").strip()
    if not 0 < len(reason) <= MAX_REASON:
        raise InvalidInput("reason", f"say why, in 1 to {MAX_REASON} characters")
    if not is_claim(note.kind):
        raise Conflict(f"a {note.kind} is not closed; only hypotheses and questions are")
    if note.valid_to < FAR_FUTURE or note.status != "open":
        raise Conflict(f"note {note.note_id!r} is {note.status}, not open")
    draft = rules.check(replace(draft_of(note), status=status, review_at=None), t)
    return supersede(
        w, owner, note, draft, t, trail, "closed",
        sessions=w.note_session_count(owner), closed=(t, reason),
    )  # fmt: skip


def retire_matching(
    w: WriteTx, owner: str, words: str, t: datetime, trail: Trail
) -> NoteResult | None:
    """Retire the owner's own note that `words` name ("forget the note about <words>"),
    or nothing when none matches well enough (committer/rules/notes.py best_match)."""
    found = rules.best_match(words, w.own_live_notes(owner))
    if found is None:
        return None
    return retire(w, owner, found, t, trail, f"asked to forget the note about {words}")


def note_text(title: str, body: str) -> str:
    """The text a note row is embedded by: its title, then its body."""
    return f"{title}. {body}" if body else title


def embed(w: WriteTx, rows: list[dict[str, Any]]) -> None:
    """Embed new version rows in this transaction, when the process has an embedder (the
    vectors of semantic recall over notes). An embedder that fails does not fail the
    write: the rows keep their full text (always indexed) and no vector."""
    if w.embedder is None or not rows:
        return
    try:
        vectors = w.embedder.embed([note_text(r["title"], r["body"]) for r in rows])
    except EmbedderUnavailable as exc:
        log.warning("note rows written without vectors: %s", exc)
        return
    w.set_note_vectors(
        [{"id": r["id"], "embedding": v} for r, v in zip(rows, vectors, strict=True)],
        w.embedder.model,
    )


def where(note: NoteRecord) -> str:
    """Where a note is kept, in words: "in your general notes", "for project “X” only",
    "in the group's notes"."""
    if note.project is not None:
        return f"for project “{note.project}” only"
    return "in the group's notes" if note.group_id is not None else "in your general notes"


def reply(result: NoteResult) -> str:
    """The one-line answer to a note request (issue 15): what was kept and where."""
    note = result.note
    if result.effect == "promoted":
        return (
            f"Already noted: “{note.title}” ({where(note)}); it moves up to the {result.tier} tier."
        )
    verb = "Updated" if result.effect == "replaced" else "Kept"
    line = f"{verb} a {note.kind} note “{note.title}” {where(note)}."
    if note.review_at is not None:
        line += f" I'll bring it up again on {note.review_at.date().isoformat()}."
    return line


def note_notices(items: list[dict[str, Any]], created: Collection[str]) -> list[dict[str, Any]]:
    """The `note` notifications of stored proposals (committer/filing.py): one per note
    proposal committed now, saying its one-line answer in the chat it came from."""
    return [
        {
            "id": "ntf_" + item["id"][4:],
            "kind": "note",
            "chat_id": item["chat_id"],
            "proposal_id": item["id"],
            "seq": item["seq"],
            "text": item["reply"],
        }
        for item in items
        if item["status"] == "committed" and item["reply"] and item["id"] in created
    ]
