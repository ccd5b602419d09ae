"""Request and response models: the JSON field names of CONTRACT §10 (part of the contract).

Datetimes in requests must carry an offset (`AwareDatetime`: a naive one is a 422 naming
the field, CONTRACT §2); responses are UTC with `Z`. Bounds follow CONTRACT §9 and are
listed in README.md.
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    Field,
    field_validator,
)

from curator.observations import Observation
from graph.errors import InvalidInput
from graph.fields import (
    INT64,
    MAX_NAME,
    MAX_TEXT,
    ChatId,
    RequestModel,
    RunId,
    Scalar,
    Timestamp,
    UtcDatetime,
)
from graph.records import EntityRecord, FactRecord
from graph.time import shown_end, to_utc

MAX_MESSAGES = 2_000


class EntityCreate(RequestModel):
    """`POST /v1/entities` body."""

    name: str = Field(min_length=1, max_length=MAX_NAME)
    kind: str = Field(min_length=1, max_length=50)
    aliases: list[Annotated[str, Field(min_length=1, max_length=MAX_NAME)]] = Field(
        default_factory=list, max_length=50
    )
    area: str | None = Field(default=None, max_length=50)


class EntityPublic(BaseModel):
    """CONTRACT §10 Entity."""

    id: str
    name: str
    kind: str
    aliases: list[str]
    area: str | None
    merged_into: str | None
    archived: bool
    archived_at: UtcDatetime | None = None
    """When a full integration sync stopped reporting it (CONTRACT §5), while archived."""

    @classmethod
    def of(cls, e: EntityRecord) -> EntityPublic:
        """Build from an internal record."""
        return cls(
            id=e.id,
            name=e.name,
            kind=e.kind,
            aliases=list(e.aliases),
            area=e.area,
            merged_into=e.merged_into,
            archived=e.archived,
            archived_at=e.archived_at,
        )


class FactPublic(BaseModel):
    """CONTRACT §10 Fact (one row). Open ends are null; times are UTC `Z`."""

    id: str
    entity_id: str
    attribute: str
    value: Scalar | None
    object_id: str | None
    cardinality: str
    valid_from: UtcDatetime
    valid_to: UtcDatetime | None
    recorded_at: UtcDatetime
    retracted_at: UtcDatetime | None
    status: str
    source: str
    evidence: str | None
    reason: str | None
    confidence: float
    run_id: str | None = None
    message_id: str | None = None

    @classmethod
    def of(cls, f: FactRecord) -> FactPublic:
        """Build from an internal row (the FAR_FUTURE sentinel becomes null)."""
        return cls(
            id=f.id,
            entity_id=f.entity_id,
            attribute=f.attribute,
            value=f.value,
            object_id=f.object_id,
            cardinality=f.cardinality,
            valid_from=f.valid_from,
            valid_to=shown_end(f.valid_to),
            recorded_at=f.recorded_at,
            retracted_at=shown_end(f.retracted_at),
            status=f.status,
            source=f.source,
            evidence=f.evidence,
            reason=f.reason,
            confidence=f.confidence,
            run_id=f.run_id,
            message_id=f.message_id,
        )


class CorroborationPublic(BaseModel):
    """A later assertion of what a row already says (CONTRACT §2.1 rule 1): no new row, but
    its provenance is kept."""

    id: str
    source: str
    evidence: str | None = None
    reason: str | None = None
    confidence: float
    run_id: str | None = None
    message_id: str | None = None
    event_id: str | None = None
    """The decision, action or sync it was asserted for (CONTRACT §8)."""
    valid_from: UtcDatetime
    valid_to: UtcDatetime | None
    recorded_at: UtcDatetime


class FactDetail(FactPublic):
    """`GET /v1/facts/{id}`: the row and the assertions that corroborated it."""

    corroborations: list[CorroborationPublic]


class EntityWithFacts(BaseModel):
    """`GET /v1/entities/{id}` response."""

    entity: EntityPublic
    facts: list[FactPublic]
    merged_from: str | None = None
    """The id asked for, when it was merged into `entity` (CONTRACT §5), else null."""


class EntityList(BaseModel):
    """`GET /v1/entities` response."""

    items: list[EntityPublic]
    next: str | None = None


class FactList(BaseModel):
    """`{items: [Fact]}` (facts, history)."""

    items: list[FactPublic]
    next: str | None = None
    entity_id: str | None = None
    """The entity the rows are about: the survivor when the id asked for was merged."""
    merged_from: str | None = None
    """The id asked for, when it was merged into `entity_id` (CONTRACT §5), else null."""


class Erased(BaseModel):
    """`DELETE /v1/owners/me` response (CONTRACT §10)."""

    removed: int
    remaining: int


class FactCreate(RequestModel):
    """`POST /v1/entities/{id}/facts` body: exactly one of `value` and `object_id`."""

    attribute: str = Field(min_length=1, max_length=100, pattern=r"^[a-z][a-z0-9_]*$")
    value: Scalar | None = None
    object_id: str | None = Field(default=None, max_length=100)
    valid_from: Timestamp | None = None
    valid_to: Timestamp | None = None
    cardinality: Literal["one", "many"] | None = None
    evidence: str | None = Field(default=None, max_length=MAX_TEXT)
    reason: str | None = Field(default=None, max_length=2_000)

    @field_validator("value")
    @classmethod
    def _bounded(cls, value: Scalar | None) -> Scalar | None:
        """Bound values (CONTRACT §9): text length, 64-bit integers, finite numbers."""
        if isinstance(value, str) and len(value) > MAX_TEXT:
            raise ValueError(f"at most {MAX_TEXT} characters")
        if (
            isinstance(value, int)
            and not isinstance(value, bool)
            and not (INT64[0] <= value <= INT64[1])
        ):
            raise ValueError("integers must fit in 64 bits (-2**63 .. 2**63-1)")
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError("numbers must be finite (no NaN or Infinity)")
        return value


class FactCreated(BaseModel):
    """`POST /v1/entities/{id}/facts` response; `event_id` is the action that records it
    (`GET /v1/events/{event_id}/effects`, CONTRACT §8)."""

    fact: FactPublic
    effect: Literal["created", "duplicate", "superseded"]
    superseded: list[str]
    event_id: str | None = None


class FactDeleted(BaseModel):
    """`DELETE /v1/facts/{id}` response; `event_id` as in `FactCreated`."""

    retracted: list[str]
    fact: FactPublic | None
    event_id: str | None = None


RESERVED_SPEAKERS = frozenset({"you", "me", "myself"})
"""Words a message's `speaker` may not be: they name the owner in provenance tags."""


class MessageIn(RequestModel):
    """One message of a run."""

    id: str | None = Field(default=None, max_length=200)
    role: Literal["user", "assistant", "tool", "system"]
    speaker: str | None = Field(default=None, max_length=MAX_NAME)
    text: str = Field(max_length=MAX_TEXT)
    at: Timestamp

    @field_validator("speaker")
    @classmethod
    def _not_the_owners_word(cls, value: str | None) -> str | None:
        """A speaker is never named "you" or "me": those words tag the owner's own
        statements ("told by you", CONTRACT §12), and the owner speaking names no speaker."""
        if value is not None and value.strip().casefold() in RESERVED_SPEAKERS:
            raise ValueError(
                f"{value.strip()!r} names the owner in provenance tags: leave `speaker` out "
                "for the owner's own words, or give the person's name"
            )
        return value

    @field_validator("at")
    @classmethod
    def _in_range(cls, value: datetime) -> datetime:
        """The message time must be representable in UTC (CONTRACT §2)."""
        try:
            to_utc(value, "at")
        except InvalidInput as exc:
            raise ValueError(exc.detail) from exc
        return value


class RunCreate(RequestModel):
    """`POST /v1/runs` body (CONTRACT §4, §10)."""

    id: RunId
    chat_id: ChatId
    surface: str | None = Field(default=None, max_length=100)
    messages: list[MessageIn] = Field(max_length=MAX_MESSAGES)
    observations: list[Observation] = Field(default_factory=list, max_length=1_000)
    project: str | None = Field(
        default=None,
        min_length=1,
        max_length=200,
        description="the project the run worked on: a note asked to be kept 'for this "
        "project only' is scoped to it (CONTRACT §13)",
    )

    @field_validator("messages")
    @classmethod
    def _ids_unique(cls, value: list[MessageIn]) -> list[MessageIn]:
        """Message ids are unique within a run: a fact's `message_id` names one message
        (CONTRACT §1 provenance, §12)."""
        seen: set[str] = set()
        for m in value:
            if m.id is not None:
                if m.id in seen:
                    raise ValueError(f"message id {m.id!r} is given twice in this run")
                seen.add(m.id)
        return value


class RunAccepted(BaseModel):
    """`POST /v1/runs` response (202)."""

    id: str
    status: str


class RunStatus(BaseModel):
    """`GET /v1/runs/{id}` response."""

    id: str
    status: Literal["queued", "curating", "done", "failed", "skipped"]
    proposals: int
    committed: int
    held: int
    notes: list[str] = Field(
        default_factory=list,
        description="one line per note request of the run: what was kept and where",
    )
    created_at: datetime | None = Field(default=None, description="when the run was queued (UTC)")
    finished_at: datetime | None = Field(
        default=None,
        description="when a curator worker closed it (done, failed or skipped; UTC), "
        "null while it is queued or being curated",
    )


class PrefetchIn(RequestModel):
    """`POST /v1/prefetch` body."""

    chat_id: ChatId
    message: str = Field(max_length=MAX_TEXT)
    at: Timestamp | None = None
    max_chars: int | None = Field(default=None, ge=200, le=20_000)
    max_items: int | None = Field(default=None, ge=1, le=200)
    project: str | None = Field(
        default=None,
        min_length=1,
        max_length=200,
        description="the project the turn works on: its notes stand before the general notes "
        "of the same key (CONTRACT §13); without it, general notes only",
    )


class PrefetchOut(BaseModel):
    """`POST /v1/prefetch` response."""

    block: str
    items: list[dict[str, Any]]
    degraded: bool


MemoryMode = Literal["none", "restricted", "full"]
AccessName = Annotated[str, Field(min_length=1, max_length=100)]


class MemoryAccessIn(RequestModel):
    """`PUT /v1/chats/{chat_id}/memory-access` and `PUT /v1/profile/memory-access` body.

    CONTRACT §7: `none` is a clean room, `full` lets everything through, `restricted`
    lets through a fact that passes both lists; an omitted (or null) list is empty and
    lets nothing through (fail-closed). The lists apply only under `restricted`: with
    `full` or `none` a list that names anything is a 422 naming it
    (`Committer.set_memory_access`); an empty or null one is accepted.
    """

    mode: MemoryMode
    areas: list[AccessName] | None = Field(default=None, max_length=100)
    sources: list[AccessName] | None = Field(default=None, max_length=100)


class MemoryAccessPublic(BaseModel):
    """Memory access response: `{mode, areas, sources, origin}` (CONTRACT §7, §10).

    `origin` says where the effective setting comes from: `chat` (the chat's own),
    `profile` (the owner's default) or `default` (nothing set: `full`).
    """

    mode: MemoryMode
    areas: list[str]
    sources: list[str]
    origin: Literal["chat", "profile", "default"]
