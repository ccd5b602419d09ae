"""Request and response models of the review endpoints: proposals, replies,
notifications, merge suggestions and merges (CONTRACT §3, §4, §5, §10)."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, Field

from api.http.schemas.core import EntityPublic, FactPublic
from graph.fields import MAX_NAME, RequestModel, Scalar, UtcDatetime
from graph.records import MergeSuggestionRecord, NotificationRecord, ProposalRecord
from graph.time import shown_end

MAX_REPLY = 2000


class ProposalPublic(BaseModel):
    """CONTRACT §10 Proposal. `entity_id` is null (with `entity_name`) for an entity not
    known yet; `policy` names the risk rule that decided (curator.policy)."""

    id: str
    op: str
    entity_id: str | None
    entity_name: str | None
    attribute: str
    value: Scalar | None
    object_id: str | None
    object_name: str | None
    valid_from: UtcDatetime
    valid_to: UtcDatetime | None
    source: str
    type: str
    confidence: float
    evidence: str | None
    reason: str | None
    policy: str | None
    run_id: str | None
    chat_id: str | None
    status: str
    fact_id: str | None
    created_at: UtcDatetime
    decided_at: UtcDatetime | None
    note: dict[str, Any] | None = None
    """A note proposal's note (op `note`: kind, title, body, project, review_at, ...; op
    `retire_note`: `title` names the note to retire), CONTRACT §13; null for a fact."""
    note_id: str | None = None
    """The note it kept or retired, once committed or kept."""
    reply: str | None = None
    """A note request's one-line answer: what was kept and where."""

    @classmethod
    def of(cls, p: ProposalRecord) -> ProposalPublic:
        """Build from an internal record."""
        return cls(
            id=p.id,
            op=p.op,
            entity_id=p.entity_id,
            entity_name=p.entity_name,
            attribute=p.attribute,
            value=p.value,
            object_id=p.object_id,
            object_name=p.object_name,
            valid_from=p.valid_from,
            valid_to=None if p.valid_to is None else shown_end(p.valid_to),
            source=p.source,
            type=p.type,
            confidence=p.confidence,
            evidence=p.evidence,
            reason=p.reason,
            policy=p.policy,
            run_id=p.run_id,
            chat_id=p.chat_id,
            status=p.status,
            fact_id=p.fact_id,
            created_at=p.created_at,
            decided_at=p.decided_at,
            note=None if p.note is None else json.loads(p.note),
            note_id=p.note_id,
            reply=p.reply,
        )


class ProposalList(BaseModel):
    """`GET /v1/proposals` response; pass `next` as `cursor` for the next page."""

    items: list[ProposalPublic]
    next: str | None = None


class ProposalKept(BaseModel):
    """`POST /v1/proposals/{id}/keep` response."""

    proposal: ProposalPublic
    fact: FactPublic | None


class ProposalDiscarded(BaseModel):
    """`POST /v1/proposals/{id}/discard` response."""

    proposal: ProposalPublic


class ReplyIn(RequestModel):
    """`POST /v1/chats/{chat_id}/replies` body."""

    text: str = Field(min_length=1, max_length=MAX_REPLY)


class ReplyOut(BaseModel):
    """`POST /v1/chats/{chat_id}/replies` response (CONTRACT §10)."""

    understood: bool
    kept: list[str]
    discarded: list[str]
    pending: list[str]
    detail: str


class NotificationPublic(BaseModel):
    """One notification (CONTRACT §10): `kind` is `proposal`, `conflict` or
    `merge_suggestion`; `chat_id` null means the main chat."""

    id: str
    kind: str
    text: str
    at: UtcDatetime
    chat_id: str | None
    proposal_id: str | None
    suggestion_id: str | None
    fact_ids: list[str]
    acknowledged_at: UtcDatetime | None

    @classmethod
    def of(cls, n: NotificationRecord) -> NotificationPublic:
        """Build from an internal record."""
        return cls(
            id=n.id,
            kind=n.kind,
            text=n.text,
            at=n.at,
            chat_id=n.chat_id,
            proposal_id=n.proposal_id,
            suggestion_id=n.suggestion_id,
            fact_ids=list(n.fact_ids),
            acknowledged_at=n.acknowledged_at,
        )


class NotificationList(BaseModel):
    """`GET /v1/notifications` response; pass `next` as `cursor` for the next page."""

    items: list[NotificationPublic]
    next: str | None = None


class MergeSuggestionPublic(BaseModel):
    """One merge suggestion (CONTRACT §10)."""

    id: str
    entity_ids: list[str]
    reason: str
    score: float
    status: str
    created_at: UtcDatetime

    @classmethod
    def of(cls, s: MergeSuggestionRecord) -> MergeSuggestionPublic:
        """Build from an internal record."""
        return cls(
            id=s.id,
            entity_ids=list(s.entity_ids),
            reason=s.reason,
            score=s.score,
            status=s.status,
            created_at=s.created_at,
        )


class MergeSuggestionList(BaseModel):
    """`GET /v1/merge-suggestions` response."""

    items: list[MergeSuggestionPublic]


class MergeIn(RequestModel):
    """`POST /v1/entities/{id}/merge` body: the entity to merge into."""

    into: str = Field(min_length=1, max_length=MAX_NAME)


class MergeOut(BaseModel):
    """A merge's outcome: the survivor, the merged entity (with `merged_into`), how many
    rows moved, the pending proposals raised for conflicting `one` values, and the event
    that records it (`GET /v1/events/{event_id}/effects`, CONTRACT §8)."""

    entity: EntityPublic
    merged: EntityPublic
    moved: int
    conflicts: list[str]
    event_id: str | None = None


class SuggestionConfirmed(MergeOut):
    """`POST /v1/merge-suggestions/{id}/confirm` response."""

    suggestion: MergeSuggestionPublic
