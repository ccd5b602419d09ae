"""Request and response models: the JSON field names of CONTRACT §10 (part of the contract).

Datetimes in requests must carry an offset (`AwareDatetime`: a naive one is a 422 naming
the field, CONTRACT §2); responses are UTC with `Z`. Bounds follow CONTRACT §9 and are
listed in README.md.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, field_serializer, field_validator

from graph.records import EntityRecord, FactRecord
from graph.time import shown_end

Scalar = str | int | float | bool
MAX_NAME = 200
MAX_TEXT = 20_000
MAX_MESSAGES = 2_000


def _z(value: datetime | None) -> str | None:
    if value is None:
        return None
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")


class EntityCreate(BaseModel):
    """`POST /v1/entities` body."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=MAX_NAME)
    kind: str = Field(min_length=1, max_length=50)
    aliases: list[str] = Field(default_factory=list, max_length=50)
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

    @classmethod
    def of(cls, e: EntityRecord) -> EntityPublic:
        """Build from an internal record."""
        return cls(id=e.id, name=e.name, kind=e.kind, aliases=list(e.aliases), area=e.area,
                   merged_into=e.merged_into, archived=e.archived)


class FactPublic(BaseModel):
    """CONTRACT §10 Fact (one row). Open ends are null; times are UTC `Z`."""

    id: str
    entity_id: str
    attribute: str
    value: Scalar | None
    object_id: str | None
    cardinality: str
    valid_from: datetime
    valid_to: datetime | None
    recorded_at: datetime
    retracted_at: datetime | None
    status: str
    source: str
    evidence: str | None
    reason: str | None
    confidence: float
    run_id: str | None = None
    message_id: str | None = None

    @field_serializer("valid_from", "valid_to", "recorded_at", "retracted_at")
    def _utc(self, value: datetime | None) -> str | None:
        return _z(value)

    @classmethod
    def of(cls, f: FactRecord) -> FactPublic:
        """Build from an internal row (the FAR_FUTURE sentinel becomes null)."""
        return cls(
            id=f.id, entity_id=f.entity_id, attribute=f.attribute, value=f.value,
            object_id=f.object_id, cardinality=f.cardinality, valid_from=f.valid_from,
            valid_to=shown_end(f.valid_to), recorded_at=f.recorded_at,
            retracted_at=shown_end(f.retracted_at), status=f.status, source=f.source,
            evidence=f.evidence, reason=f.reason, confidence=f.confidence, run_id=f.run_id,
            message_id=f.message_id,
        )


class EntityWithFacts(BaseModel):
    """`GET /v1/entities/{id}` response."""

    entity: EntityPublic
    facts: list[FactPublic]


class EntityList(BaseModel):
    """`GET /v1/entities` response."""

    items: list[EntityPublic]
    next: str | None = None


class FactList(BaseModel):
    """`{items: [Fact]}` (facts, history)."""

    items: list[FactPublic]
    next: str | None = None


class FactCreate(BaseModel):
    """`POST /v1/entities/{id}/facts` body: exactly one of `value` and `object_id`."""

    model_config = ConfigDict(extra="forbid")

    attribute: str = Field(min_length=1, max_length=100, pattern=r"^[a-z][a-z0-9_]*$")
    value: Scalar | None = None
    object_id: str | None = Field(default=None, max_length=100)
    valid_from: AwareDatetime | None = None
    valid_to: AwareDatetime | None = None
    cardinality: Literal["one", "many"] | None = None
    evidence: str | None = Field(default=None, max_length=MAX_TEXT)
    reason: str | None = Field(default=None, max_length=2_000)

    @field_validator("value")
    @classmethod
    def _bounded(cls, value: Scalar | None) -> Scalar | None:
        """Bound string values (CONTRACT §9)."""
        if isinstance(value, str) and len(value) > MAX_TEXT:
            raise ValueError(f"at most {MAX_TEXT} characters")
        return value


class FactCreated(BaseModel):
    """`POST /v1/entities/{id}/facts` response."""

    fact: FactPublic
    effect: Literal["created", "duplicate", "superseded"]
    superseded: list[str]


class FactDeleted(BaseModel):
    """`DELETE /v1/facts/{id}` response."""

    retracted: list[str]
    fact: FactPublic | None


class MessageIn(BaseModel):
    """One message of a run."""

    model_config = ConfigDict(extra="forbid")

    id: str | None = Field(default=None, max_length=200)
    role: Literal["user", "assistant", "tool", "system"]
    speaker: str | None = Field(default=None, max_length=MAX_NAME)
    text: str = Field(max_length=MAX_TEXT)
    at: AwareDatetime


class RunCreate(BaseModel):
    """`POST /v1/runs` body (CONTRACT §4, §10)."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, max_length=200)
    chat_id: str = Field(min_length=1, max_length=200)
    surface: str | None = Field(default=None, max_length=100)
    messages: list[MessageIn] = Field(max_length=MAX_MESSAGES)
    observations: list[dict[str, Any]] = Field(default_factory=list, max_length=1_000)


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


class PrefetchIn(BaseModel):
    """`POST /v1/prefetch` body."""

    model_config = ConfigDict(extra="forbid")

    chat_id: str = Field(min_length=1, max_length=200)
    message: str = Field(max_length=MAX_TEXT)
    at: AwareDatetime | None = None
    max_chars: int | None = Field(default=None, ge=200, le=20_000)
    max_items: int | None = Field(default=None, ge=1, le=200)


class PrefetchOut(BaseModel):
    """`POST /v1/prefetch` response."""

    block: str
    items: list[dict[str, Any]]
    degraded: bool
