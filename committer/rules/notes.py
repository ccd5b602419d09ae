"""The committer's rules for notes, as pure functions (CONTRACT §13; STYLE "Rules as pure
functions": the clock and ids are passed in, no database).

* `check` validates a draft against the registry (graph/notes.py): bounds, kinds, dates to
  look again (1-365 calendar days out, required on an open hypothesis or question), and
  titles that name a moment instead of a lesson ("run-2026-09-14", "cycle-3": a diary of
  runs teaches the next run nothing).
* `row`, `remainder` and `moved` build the maps of version rows to record
  (graph/cypher/note_rows.py CREATE_NOTE_ROWS): a new version, the part of an old version
  that stood until a replacement or a retirement, a handed-over copy.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime
from typing import Any

from graph.errors import InvalidInput
from graph.notes import (
    CLOSED,
    KINDS,
    KNOWN_BY,
    MAX_BODY,
    MAX_EVIDENCE,
    MAX_KEY,
    MAX_PROJECT,
    MAX_TITLE,
    REVIEW_DAYS,
    TIERS,
    NoteDraft,
    NoteRecord,
    content_norm,
    initial_status,
    is_claim,
    norm,
)
from graph.time import FAR_FUTURE, to_utc

_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)
_NUMBER = re.compile(r"^(?:\d+(?:st|nd|rd|th)?|t?\d{1,2}h\d{0,2}|\d+[ap]m|[vr]\d+)$")
_MOMENT_WORDS = frozenset(
    re.findall(
        r"\w+",
        """run runs cycle cycles session sessions iteration iter round step pass batch build
        job day daily log logs entry update report standup stand up diary journal note notes
        checkpoint snapshot tick epoch attempt try turn shift status sprint week weekly hour
        hourly nightly morning evening night today yesterday tonight am pm utc gmt z at on of
        the a and jan feb mar apr may jun jul aug sep sept oct nov dec january february march
        april june july august september october november december mon tue wed thu fri sat
        sun monday tuesday wednesday thursday friday saturday sunday""",
    )
)


def names_a_moment(title: str) -> bool:
    """True when a title names an hour, a date or a numbered run instead of what was
    learned: it holds a number or a date and, that and words such as run, cycle,
    session, log, day or a month left out, nothing ("run-2026-09-14", "cycle-3",
    "Session 12 notes", "2026-09-14 14:00"). "Run 5 failed on auth" names a lesson."""
    tokens = [t.casefold() for t in _TOKEN.findall(title)]
    numbers = [t for t in tokens if _NUMBER.match(t)]
    rest = [t for t in tokens if not _NUMBER.match(t) and t not in _MOMENT_WORDS]
    return bool(numbers) and not rest


def review_bounds_ok(review_at: datetime, now: datetime) -> bool:
    """Whether a date to look again lies 1 to 365 calendar days (UTC) after `now`'s day."""
    days = (review_at.date() - now.date()).days
    return REVIEW_DAYS[0] <= days <= REVIEW_DAYS[1]


def check(draft: NoteDraft, now: datetime) -> NoteDraft:
    """Validate a draft and return it normalized (texts trimmed, status set, times UTC).

    Args:
        draft: what the writer asked to keep.
        now: the commit time, aware UTC (dates to look again count from its day).

    Returns:
        The draft to write.

    Raises:
        InvalidInput: naming the field at fault (422, CONTRACT §9, §13).
    """
    if draft.kind not in KINDS:
        raise InvalidInput("kind", f"unknown kind {draft.kind!r}; one of {', '.join(KINDS)}")
    title = _title(draft.title)
    _bounds(draft)
    status, review, said = _dates(draft, now)
    return replace(
        draft,
        title=title,
        body=(draft.body or "").strip(),
        key=None if draft.key is None else draft.key.strip(),
        project=None if draft.project is None else draft.project.strip(),
        status=status,
        review_at=review,
        valid_from=said,
    )


def _title(raw: str) -> str:
    title = " ".join(raw.split())
    if not 0 < len(title) <= MAX_TITLE:
        raise InvalidInput("title", f"give a title of 1 to {MAX_TITLE} characters")
    if names_a_moment(title):
        raise InvalidInput(
            "title",
            f"{title!r} names a moment, not what was learned: a diary of runs teaches the "
            "next run nothing; title the note after its lesson (e.g. 'Deploys need the "
            "migration lock')",
        )
    return title


def _bounds(draft: NoteDraft) -> None:
    if len((draft.body or "").strip()) > MAX_BODY:
        raise InvalidInput("body", f"at most {MAX_BODY} characters")
    if draft.evidence is not None and len(draft.evidence) > MAX_EVIDENCE:
        raise InvalidInput("evidence", f"at most {MAX_EVIDENCE} characters")
    if draft.known_by not in KNOWN_BY:
        raise InvalidInput("known_by", f"one of {', '.join(KNOWN_BY)}")
    if not 0.0 <= draft.confidence <= 1.0:
        raise InvalidInput("confidence", "a number from 0 to 1")
    for field, value, bound in (
        ("key", draft.key, MAX_KEY),
        ("project", draft.project, MAX_PROJECT),
    ):
        if value is not None and (len(value) > bound or norm(value) is None):
            raise InvalidInput(field, f"give 1 to {bound} characters with a letter or digit")
    if draft.tier not in TIERS:
        raise InvalidInput("tier", f"one of {', '.join(TIERS)}")


def _dates(draft: NoteDraft, now: datetime) -> tuple[str, datetime | None, datetime]:
    """(status, date to look again, when it was said) of a draft, checked."""
    status = draft.status or initial_status(draft.kind)
    allowed = ("open", *CLOSED) if is_claim(draft.kind) else ("active",)
    if status not in allowed:
        raise InvalidInput(
            "status", f"a {draft.kind} is written as {' or '.join(allowed)} (retire it instead)"
        )
    review = None if draft.review_at is None else to_utc(draft.review_at, "review_at")
    said = now if draft.valid_from is None else min(to_utc(draft.valid_from), now)
    if status == "open" and review is None:
        raise InvalidInput(
            "review_at",
            f"an open {draft.kind} needs a date to look again, {REVIEW_DAYS[0]} to "
            f"{REVIEW_DAYS[1]} days out",
        )
    if status in CLOSED:
        return status, None, said  # a closed claim is looked at again no more
    if review is not None and not review_bounds_ok(review, said):
        raise InvalidInput(
            "review_at",
            f"must be {REVIEW_DAYS[0]} to {REVIEW_DAYS[1]} days after today "
            f"({said.date().isoformat()}, UTC); got {review.date().isoformat()}",
        )
    return status, review, said


def search_text(title: str, body: str, key: str | None, project: str | None) -> str:
    """The text the full-text index holds besides the title: body, key and project."""
    return " ".join(x for x in (body, key, project) if x)


def row(
    draft: NoteDraft,
    *,
    ident: str,
    note_id: str,
    owner: str,
    version: int,
    first_learned_at: datetime,
    t: datetime,
    closed_at: datetime | None = None,
    close_reason: str | None = None,
) -> dict[str, Any]:
    """A new version row of a checked draft, valid from when it was said (`valid_from`,
    at most `t`) and open."""
    assert draft.status is not None  # `check` sets it
    return {
        "id": ident,
        "note_id": note_id,
        "owner": owner,
        "group_id": draft.group_id,
        "kind": draft.kind,
        "title": draft.title,
        "body": draft.body,
        "evidence": draft.evidence,
        "known_by": draft.known_by,
        "source": draft.source,
        "confidence": draft.confidence,
        "key": draft.key,
        "key_norm": norm(draft.key),
        "project": draft.project,
        "project_norm": norm(draft.project),
        "content_norm": content_norm(draft.title, draft.body),
        "search_text": search_text(draft.title, draft.body, draft.key, draft.project),
        "status": draft.status,
        "review_at": draft.review_at,
        "closed_at": closed_at,
        "close_reason": close_reason,
        "first_learned_at": first_learned_at,
        "valid_from": draft.valid_from or t,
        "valid_to": FAR_FUTURE,
        "row_status": "active",
        "version": version,
        "run_id": draft.run_id,
        "chat_id": draft.chat_id,
        "message_id": draft.message_id,
        "agent_id": draft.agent_id,
        "experiment_id": draft.experiment_id,
    }


def copy(old: NoteRecord, **changes: Any) -> dict[str, Any]:
    """A row map with every field of `old` (its norms derived again), then `changes`."""
    out = {
        "id": old.id,
        "note_id": old.note_id,
        "owner": old.owner,
        "group_id": old.group_id,
        "kind": old.kind,
        "title": old.title,
        "body": old.body,
        "evidence": old.evidence,
        "known_by": old.known_by,
        "source": old.source,
        "confidence": old.confidence,
        "key": old.key,
        "key_norm": norm(old.key),
        "project": old.project,
        "project_norm": norm(old.project),
        "content_norm": content_norm(old.title, old.body),
        "search_text": search_text(old.title, old.body, old.key, old.project),
        "status": old.status,
        "review_at": old.review_at,
        "closed_at": old.closed_at,
        "close_reason": old.close_reason,
        "first_learned_at": old.first_learned_at,
        "valid_from": old.valid_from,
        "valid_to": old.valid_to,
        "row_status": old.row_status,
        "version": old.version,
        "run_id": old.run_id,
        "chat_id": old.chat_id,
        "message_id": old.message_id,
        "agent_id": old.agent_id,
        "experiment_id": old.experiment_id,
    }
    out.update(changes)
    return out


def remainder(old: NoteRecord, ident: str, t: datetime, ended: str) -> dict[str, Any]:
    """The part of current version `old` that stood until `t`: valid to `t`, with row
    status `ended` (`superseded` by a replacement, `retired`); a retired note's status
    reads `retired`."""
    status = "retired" if ended == "retired" else old.status
    return copy(old, id=ident, valid_to=t, row_status=ended, status=status)


_SUFFIX = re.compile(r"(?:ing|ed|es|s)$")
_SHORT = 4
"""Words this long or shorter keep their ending ("bus", "news")."""
_FILLER = frozenset(
    re.findall(
        r"\w+",
        """the a an of about on for to in at my our your its it this that note notes page old
        new is was were be been and or with from""",
    )
)


def _stems(text: str) -> set[str]:
    words = (t.casefold() for t in _TOKEN.findall(text))
    return {_SUFFIX.sub("", w) if len(w) > _SHORT else w for w in words if w not in _FILLER}


def best_match(words: str, notes: list[NoteRecord]) -> NoteRecord | None:
    """The note "the note about <words>" names ("Forget the note about the old pricing
    page"): the one whose title (counted twice) and body share the most of the words'
    stems, when they share at least half of them; ties go to the newest version, then
    the smallest id. None when no note shares enough (nothing is retired on a guess)."""
    wanted = _stems(words)
    if not wanted:
        return None
    scored = []
    for note in notes:
        title, body = _stems(note.title), _stems(note.body)
        shared = len(wanted & (title | body))
        if shared * 2 >= len(wanted):
            score = 2 * len(wanted & title) + len(wanted & body)
            scored.append((-score, -note.valid_from.timestamp(), note.note_id, note))
    return min(scored, key=lambda s: s[:3])[3] if scored else None
