"""The note tools (CONTRACT §13): write, read, list, search, due, overview, history, why,
retire, close, hand over. Each is a plain function returning the JSON-able shape of
api/notes/schemas.py, shared by REST (api/http/routes/notes.py) and MCP (api/mcp/notes.py).

Reads resolve the caller's scope at their `known_at` (api.chat.tools.scope_for: a `none`
chat is refused, a restricted one sees notes only when it lists area `notes`). Reads that
serve note bodies are charged against the token's hourly ceilings (api/notes/limits.py).
Writes go through the committer, which refuses a secret in a note (committer/secrets.py).
"""

from __future__ import annotations

import binascii
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from api.chat import tools
from api.http.cursors import pack, unpack
from api.http.schemas.audit import EventPublic
from api.notes import limits as lim
from api.notes.schemas import (
    DueOut,
    HandoverOut,
    NoteCreate,
    NoteHistory,
    NoteHit,
    NoteList,
    NotePublic,
    NoteSearchOut,
    NoteSummary,
    NoteWhyOut,
    NoteWritten,
    OverviewOut,
)
from committer.apply import Committer
from committer.note_ops import NoteResult
from graph.embedding import Embedder, EmbedderUnavailable
from graph.errors import InvalidInput
from graph.notes import NoteDraft, NoteRecord, recency, source_of
from graph.read.reader import Reader
from graph.read.search import words
from graph.scope import Scope
from graph.time import AsOf, from_micros, utcnow

EXTRACT_CHARS = 160
"""Characters of a search match's extract."""


@dataclass(frozen=True, slots=True)
class NoteCaller:
    """Who asks: the token's owner and id, and the chat whose memory access applies."""

    owner: str
    chat_id: str | None = None
    token_id: str | None = None


def scope_of(reader: Reader, caller: NoteCaller, known_at: datetime | None = None) -> Scope:
    """The caller's scope at `known_at` (MemoryOff for a `none` chat, CONTRACT §7)."""
    return tools.scope_for(reader, tools.Caller(caller.owner, caller.chat_id), known_at)


def draft_of(body: NoteCreate, via: str = "rest") -> NoteDraft:
    """The committer's draft of a `NoteCreate` (source from `known_by`, graph/notes.py).

    A secret in it is refused by the committer (`Committer.write_note`, committer/secrets.py).
    """
    return NoteDraft(
        kind=body.kind,
        title=body.title,
        body=body.body,
        evidence=body.evidence,
        known_by=body.known_by,
        confidence=body.confidence,
        key=body.key,
        project=body.project,
        review_at=body.review_at,
        status=body.status,
        tier=body.tier,
        group_id=body.group_id,
        source=source_of(body.known_by, via),
        agent_id=body.agent_id,
        experiment_id=body.experiment_id,
    )


def written(result: NoteResult, limits: lim.NoteLimits) -> dict[str, Any]:
    """The public shape of a write (`NoteWritten`), with the limit's warning."""
    return NoteWritten(
        note=NotePublic.of(result.note),
        effect=result.effect,
        ended=list(result.ended),
        event_id=result.event_id,
        warning=limits.warning(result.live),
    ).model_dump(mode="json")


def write(
    committer: Committer,
    limits: lim.NoteLimits,
    caller: NoteCaller,
    body: NoteCreate,
    *,
    by: str = "rest",
    reader: Reader | None = None,
) -> dict[str, Any]:
    """Keep a note (create, replace by key, or promote the same content): `NoteWritten`.

    Raises:
        MemoryOff: `reader` given and the caller's chat has memory `none`.
        InvalidInput, NotFound, LimitExceeded: see `Committer.write_note`.
    """
    if reader is not None:
        scope_of(reader, caller)
    draft = draft_of(body)
    return written(committer.write_note(caller.owner, draft, by=by), limits)


def read(
    reader: Reader,
    committer: Committer,
    limits: lim.NoteLimits,
    caller: NoteCaller,
    note_id: str,
    as_of: AsOf,
) -> dict[str, Any]:
    """One note as it stood at `as_of` (`NotePublic`), charged to the token's ceilings.

    Raises:
        NotFound: not visible then. MemoryOff: a `none` chat. LimitExceeded: a ceiling.
    """
    note = reader.note(scope_of(reader, caller, as_of.known_at), note_id, as_of)
    lim.charge(committer, limits, caller.owner, caller.token_id, [note])
    return NotePublic.of(note).model_dump(mode="json")


_CURSOR = "notes/1"


def _cursor(query: list[Any], as_of: AsOf, last: NoteRecord) -> str:
    t = (as_of.known_at, as_of.valid_at, last.valid_from)
    micros = [int(x.timestamp() * 1_000_000) for x in t]
    body = {
        "k": _CURSOR,
        "q": query,
        "t": micros[0],
        "v": micros[1],
        "p": [micros[2], last.note_id],
    }
    return pack(body)


def _uncursor(cursor: str, query: list[Any]) -> tuple[AsOf, tuple[datetime, str]]:
    try:
        body = unpack(cursor)
        vf, note_id = body["p"]
        if body["k"] == _CURSOR and body["q"] == query and isinstance(note_id, str):
            as_of = AsOf(from_micros(int(body["v"])), from_micros(int(body["t"])))
            return as_of, (from_micros(int(vf)), note_id)
    except (ValueError, TypeError, KeyError, binascii.Error, OverflowError):
        pass
    raise InvalidInput("cursor", "not a cursor of this listing (other filters, or altered)")


def list_notes(
    reader: Reader,
    limits: lim.NoteLimits,
    caller: NoteCaller,
    as_of: AsOf,
    *,
    project: str | None = None,
    kind: str | None = None,
    status: str | None = None,
    tier: str | None = None,
    cursor: str | None = None,
    limit: int = 100,
) -> dict[str, Any]:
    """Titles and dates of the notes the caller sees (no bodies), newest first, one per
    key under `project` (`NoteList`). A cursor pins the first page's `valid_at` and
    `known_at` (a page read later is of the same list, whatever the clock says).

    Raises:
        InvalidInput: a cursor of another listing. MemoryOff: a `none` chat.
    """
    query = [caller.chat_id, project, kind, status, tier]
    after = None
    if cursor is not None:
        as_of, after = _uncursor(cursor, query)
    scope = scope_of(reader, caller, as_of.known_at)
    found = reader.notes(
        scope, as_of, project=project, kind=kind, status=status, tier=tier, after=after,
        limit=limit + 1,
    )  # fmt: skip
    page = found[:limit]
    nxt = _cursor(query, as_of, page[-1]) if len(found) > limit else None
    warning = limits.warning(reader.note_count(caller.owner))
    return NoteList(items=[NoteSummary.of(n) for n in page], next=nxt, warning=warning).model_dump(
        mode="json"
    )


def extract(note: NoteRecord, q: str, size: int = EXTRACT_CHARS) -> str:
    """A short extract of the note around the first word of `q` it holds (its body, else
    its title), cut at word boundaries with ellipses."""
    text = " ".join((note.body or note.title).split())
    if len(text) <= size:
        return text
    at = 0
    for word in words(q):
        m = re.search(r"\b" + re.escape(word[:5]), text, re.IGNORECASE)
        if m:
            at = m.start()
            break
    start = max(0, at - size // 3)
    start = text.rfind(" ", 0, start) + 1 if start else 0
    piece = text[start : start + size]
    if start + size < len(text):
        piece = piece[: piece.rfind(" ")] if " " in piece else piece
        piece += "…"
    return ("…" if start else "") + piece


def query_vector(embedder: Embedder | None, q: str) -> tuple[list[float] | None, str | None]:
    """The query's embedding and the embedder's id, or (None, None) without an embedder or
    when it fails (search then ranks by words alone)."""
    if embedder is None:
        return None, None
    try:
        return embedder.embed([q])[0], embedder.model
    except EmbedderUnavailable:
        return None, None


def search(
    reader: Reader,
    caller: NoteCaller,
    q: str,
    as_of: AsOf,
    *,
    project: str | None = None,
    kind: str | None = None,
    limit: int = 10,
    embedder: Embedder | None = None,
) -> dict[str, Any]:
    """Notes that match `q` by words and (with an embedder) by meaning, best first, each
    with a short extract (`NoteSearchOut`; extracts are not charged to the reading
    ceiling).

    Raises:
        InvalidInput: a blank `q`. MemoryOff: a `none` chat.
    """
    if not q.strip():
        raise InvalidInput("q", "must contain something to search for")
    scope = scope_of(reader, caller, as_of.known_at)
    vector, model = query_vector(embedder, q)
    hits = reader.search_notes(
        scope, q, as_of, project=project, kind=kind, limit=limit, vector=vector, model=model
    )
    items = [
        NoteHit(
            note=NoteSummary.of(n),
            extract=extract(n, q),
            score=round(score, 4),
            relevance=n.relevance,
            recency=recency(n.updated, as_of.valid_at),
        )
        for n, score in hits
    ]
    return NoteSearchOut(items=items).model_dump(mode="json")


def due(
    reader: Reader,
    caller: NoteCaller,
    as_of: AsOf,
    *,
    at: datetime | None = None,
    project: str | None = None,
    limit: int = 100,
) -> dict[str, Any]:
    """Notes whose date to look again is at or before `at` (default `valid_at`)."""
    scope = scope_of(reader, caller, as_of.known_at)
    found = reader.notes_due(scope, as_of, at or as_of.valid_at, project, limit)
    return DueOut(items=[NoteSummary.of(n) for n in found], count=len(found)).model_dump(
        mode="json"
    )


def overview(
    reader: Reader,
    limits: lim.NoteLimits,
    caller: NoteCaller,
    as_of: AsOf,
    *,
    project: str | None = None,
) -> dict[str, Any]:
    """Counts per kind, when something was last learned, how many are due (`OverviewOut`)."""
    scope = scope_of(reader, caller, as_of.known_at)
    rows = reader.notes_overview(scope, as_of, as_of.valid_at, project)
    held = reader.note_count(caller.owner)
    return OverviewOut(
        kinds={kind: count for kind, count, _, _ in rows},
        total=sum(count for _, count, _, _ in rows),
        last_learned_at=max((last for _, _, last, _ in rows), default=None),
        due=sum(d for _, _, _, d in rows),
        held=held,
        max_notes=limits.max_per_owner,
        warning=limits.warning(held),
    ).model_dump(mode="json")


def history(
    reader: Reader,
    caller: NoteCaller,
    note_id: str,
    known_at: datetime | None = None,
    include_retracted: bool = False,
) -> dict[str, Any]:
    """Every version of a note as known at `known_at` (`NoteHistory`); with
    `include_retracted`, every row on both axes."""
    at = known_at or utcnow()
    scope = scope_of(reader, caller, at)
    rows = reader.note_history(scope, note_id, at, all_rows=include_retracted)
    return NoteHistory(items=[NotePublic.of(n) for n in rows]).model_dump(mode="json")


def why(
    reader: Reader, caller: NoteCaller, note_id: str, version_id: str | None = None
) -> dict[str, Any]:
    """Why a note version exists (`NoteWhyOut`), through the audit trail (CONTRACT §8)."""
    found = reader.note_why(scope_of(reader, caller), note_id, version_id)
    return NoteWhyOut(
        note=NotePublic.of(found.note),
        source=found.note.source,
        evidence=found.note.evidence,
        chain=[EventPublic.of(e) for e in found.chain],
        trigger=None if found.trigger is None else EventPublic.of(found.trigger),
        decided_by=None if found.cause is None else EventPublic.of(found.cause),
    ).model_dump(mode="json")


def retire(
    committer: Committer,
    limits: lim.NoteLimits,
    caller: NoteCaller,
    note_id: str,
    reason: str | None,
    *,
    by: str = "rest",
) -> dict[str, Any]:
    """Retire a note (its validity ends now; nothing is deleted): `NoteWritten`."""
    return written(committer.retire_note(caller.owner, note_id, reason, by=by), limits)


def close(
    committer: Committer,
    limits: lim.NoteLimits,
    caller: NoteCaller,
    note_id: str,
    status: str,
    reason: str,
    *,
    by: str = "rest",
) -> dict[str, Any]:
    """Close an open hypothesis or question as confirmed or rejected: `NoteWritten`."""
    return written(committer.close_note(caller.owner, note_id, status, reason, by=by), limits)


def handover(
    committer: Committer, caller: NoteCaller, project: str, to: str, *, by: str = "rest"
) -> dict[str, Any]:
    """Hand the caller's notes of `project` over to owner `to`: `HandoverOut`."""
    done = committer.hand_over(caller.owner, project, to, by=by)
    return HandoverOut(
        note_ids=list(done.note_ids), rows=done.rows, event_id=done.event_id, at=done.at
    ).model_dump(mode="json")
