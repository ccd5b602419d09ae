"""Request and response models of notes (CONTRACT §13): the JSON field names of
`/v1/notes` and of the note tools over MCP (one model per concept, graph/fields.py types).

Times in requests need an offset (422 naming the field, CONTRACT §2); responses are UTC
`Z`. Open ends (`valid_to`, `retracted_at`) are null.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from api.http.schemas.audit import EventPublic
from graph.fields import MAX_NAME, RequestModel, Timestamp, UtcDatetime
from graph.notes import (
    KINDS,
    MAX_BODY,
    MAX_EVIDENCE,
    MAX_KEY,
    MAX_PROJECT,
    MAX_REASON,
    MAX_TITLE,
    NoteRecord,
)
from graph.time import shown_end

KIND_DOC = "one of " + ", ".join(KINDS)


class NoteCreate(RequestModel):
    """`POST /v1/notes`: a new note, or a new version of the note with this `key` (in the
    same scope and project); the same content again promotes the note's tier."""

    kind: str = Field(max_length=50, description=KIND_DOC)
    title: str = Field(min_length=1, max_length=MAX_TITLE)
    body: str = Field(default="", max_length=MAX_BODY)
    evidence: str | None = Field(default=None, max_length=MAX_EVIDENCE)
    known_by: Literal["told", "observed", "inferred"] = "told"
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    key: str | None = Field(default=None, min_length=1, max_length=MAX_KEY)
    project: str | None = Field(default=None, min_length=1, max_length=MAX_PROJECT)
    review_at: Timestamp | None = Field(
        default=None, description="a date to look again, 1-365 days out (open claims need one)"
    )
    status: Literal["open", "confirmed", "rejected", "active"] | None = None
    tier: Literal["short", "mid", "long"] = "mid"
    group_id: str | None = Field(default=None, min_length=1, max_length=MAX_NAME)
    agent_id: str | None = Field(default=None, min_length=1, max_length=MAX_NAME)
    experiment_id: str | None = Field(default=None, min_length=1, max_length=MAX_NAME)


class NotePublic(BaseModel):
    """One note version (CONTRACT §13): `id` is the note's id across versions,
    `version_id` this version's row; both time axes; `first_learned_at` kept by every
    replacement; `tier` and `relevance` (decayed by sessions) its standing."""

    id: str
    version_id: str
    version: int
    kind: str
    title: str
    body: str
    evidence: str | None
    known_by: str
    source: str
    confidence: float
    key: str | None
    project: str | None
    group_id: str | None
    status: str
    review_at: UtcDatetime | None
    closed_at: UtcDatetime | None
    close_reason: str | None
    first_learned_at: UtcDatetime
    valid_from: UtcDatetime
    valid_to: UtcDatetime | None
    recorded_at: UtcDatetime
    retracted_at: UtcDatetime | None
    row_status: str
    tier: str
    relevance: float
    agent_id: str | None = None
    experiment_id: str | None = None
    run_id: str | None = None
    message_id: str | None = None

    @classmethod
    def of(cls, n: NoteRecord) -> NotePublic:
        """Build from an internal record (the FAR_FUTURE sentinel becomes null)."""
        return cls(
            id=n.note_id,
            version_id=n.id,
            version=n.version,
            kind=n.kind,
            title=n.title,
            body=n.body,
            evidence=n.evidence,
            known_by=n.known_by,
            source=n.source,
            confidence=n.confidence,
            key=n.key,
            project=n.project,
            group_id=n.group_id,
            status=n.status,
            review_at=n.review_at,
            closed_at=n.closed_at,
            close_reason=n.close_reason,
            first_learned_at=n.first_learned_at,
            valid_from=n.valid_from,
            valid_to=shown_end(n.valid_to),
            recorded_at=n.recorded_at,
            retracted_at=shown_end(n.retracted_at),
            row_status=n.row_status,
            tier=n.tier,
            relevance=n.relevance,
            agent_id=n.agent_id,
            experiment_id=n.experiment_id,
            run_id=n.run_id,
            message_id=n.message_id,
        )


class NoteSummary(BaseModel):
    """A note in a list: titles and dates, no body (CONTRACT §13 `GET /v1/notes`)."""

    id: str
    version_id: str
    kind: str
    title: str
    key: str | None
    project: str | None
    group_id: str | None
    status: str
    tier: str
    review_at: UtcDatetime | None
    first_learned_at: UtcDatetime
    updated_at: UtcDatetime
    """When this version started (the note's last change)."""

    @classmethod
    def of(cls, n: NoteRecord) -> NoteSummary:
        """Build from an internal record."""
        return cls(
            id=n.note_id,
            version_id=n.id,
            kind=n.kind,
            title=n.title,
            key=n.key,
            project=n.project,
            group_id=n.group_id,
            status=n.status,
            tier=n.tier,
            review_at=n.review_at,
            first_learned_at=n.first_learned_at,
            updated_at=n.valid_from,
        )


class NoteWritten(BaseModel):
    """`POST /v1/notes`, retire and close: the note now, what happened, the ended rows."""

    note: NotePublic
    effect: Literal["created", "replaced", "promoted", "retired", "closed"]
    ended: list[str] = Field(description="version rows this write retracted")
    event_id: str | None
    warning: str | None = None


class NoteList(BaseModel):
    """`GET /v1/notes`: `{items, next, warning}` (pass `next` as `cursor`)."""

    items: list[NoteSummary]
    next: str | None
    warning: str | None = None


class NoteHit(BaseModel):
    """A search match: the note (no body), a short extract, the full-text score, and the
    two terms recall ranks by (relevance decayed by sessions, recency)."""

    note: NoteSummary
    extract: str
    score: float
    relevance: float
    recency: float


class NoteSearchOut(BaseModel):
    """`GET /v1/notes/search`."""

    items: list[NoteHit]


class DueOut(BaseModel):
    """`GET /v1/notes/due`: notes whose date to look again has come, soonest first."""

    items: list[NoteSummary]
    count: int


class OverviewOut(BaseModel):
    """`GET /v1/notes/overview`: counts per kind, when something was last learned, how
    many are due, and how many notes the owner keeps against the limit."""

    kinds: dict[str, int]
    total: int
    last_learned_at: UtcDatetime | None
    due: int
    held: int
    max_notes: int
    warning: str | None = None


class NoteHistory(BaseModel):
    """`GET /v1/notes/{id}/history`: every version, by valid_from then recorded_at."""

    items: list[NotePublic]


class NoteWhyOut(BaseModel):
    """`GET /v1/notes/{id}/why`: the version, its source and evidence, and the chain of
    events behind it and the versions it continues, oldest first (CONTRACT §8, §13)."""

    note: NotePublic
    source: str
    evidence: str | None
    chain: list[EventPublic]
    trigger: EventPublic | None
    decided_by: EventPublic | None


class RetireIn(RequestModel):
    """`POST /v1/notes/{id}/retire`."""

    reason: str | None = Field(default=None, max_length=MAX_REASON)


class CloseIn(RequestModel):
    """`POST /v1/notes/{id}/close`: close an open hypothesis or question."""

    status: Literal["confirmed", "rejected"]
    reason: str = Field(min_length=1, max_length=MAX_REASON)


class HandoverIn(RequestModel):
    """`POST /v1/notes/handover`: move the caller's notes of `project` to owner `to`."""

    project: str = Field(min_length=1, max_length=MAX_PROJECT)
    to: str = Field(min_length=1, max_length=MAX_NAME)


class HandoverOut(BaseModel):
    """What a handover moved, as one audited event (its id, recorded for both owners)."""

    note_ids: list[str]
    rows: int
    event_id: str
    at: UtcDatetime
