"""Request and response models of workflow state and usage records (CONTRACT §14)."""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, Field

from graph.fields import ChatId, RequestModel, Timestamp, UtcDatetime
from graph.held import StateRecord, UsageSum

MAX_TOKENS = 10**9
MAX_COST = 10**6
MAX_DURATION_MS = 24 * 3600 * 1000
MAX_LABEL = 200


class StatePut(RequestModel):
    """`PUT /v1/state/{workflow}/{key}` body: `{value}`, any JSON value (at most 64 KB as
    compact UTF-8 JSON; checked by the committer, a 422 naming `value`)."""

    value: Any


class StatePublic(BaseModel):
    """A workflow state value: `version` is what `If-Match` names (also the `ETag`)."""

    workflow: str
    key: str
    group: str | None
    value: Any
    version: int
    author: str
    recorded_at: UtcDatetime
    event_id: str | None

    @classmethod
    def of(cls, s: StateRecord) -> StatePublic:
        """Build from an internal record (a deletion shows `value: null`)."""
        return cls(
            workflow=s.workflow,
            key=s.key,
            group=s.group_id,
            value=None if s.value is None else json.loads(s.value),
            version=s.version,
            author=s.author,
            recorded_at=s.recorded_at,
            event_id=s.cause,
        )


class StateDeleted(BaseModel):
    """`DELETE`: the deletion's version (reads with `known_at` before it see the value)."""

    workflow: str
    key: str
    group: str | None
    version: int
    deleted_at: UtcDatetime


class UsageCreate(RequestModel):
    """`POST /v1/usage` body: one turn's usage, never its content."""

    id: str | None = Field(
        default=None, min_length=1, max_length=MAX_LABEL, description="yours, for retries"
    )
    at: Timestamp
    surface: str | None = Field(default=None, min_length=1, max_length=50)
    chat_id: ChatId | None = None
    model: str | None = Field(default=None, min_length=1, max_length=MAX_LABEL)
    input_tokens: int = Field(default=0, ge=0, le=MAX_TOKENS)
    output_tokens: int = Field(default=0, ge=0, le=MAX_TOKENS)
    cost: float = Field(default=0.0, ge=0, le=MAX_COST, allow_inf_nan=False)
    duration_ms: int = Field(default=0, ge=0, le=MAX_DURATION_MS)


class UsagePublic(BaseModel):
    """A stored usage record."""

    id: str
    at: UtcDatetime
    surface: str | None
    chat_id: str | None
    model: str | None
    input_tokens: int
    output_tokens: int
    cost: float
    duration_ms: int
    recorded_at: UtcDatetime


class UsageGroup(BaseModel):
    """Usage summed over one surface, model or UTC day (`key` null: records without one)."""

    key: str | None
    turns: int
    input_tokens: int
    output_tokens: int
    tokens: int
    cost: float
    duration_ms: int

    @classmethod
    def of(cls, s: UsageSum) -> UsageGroup:
        """Build from an internal sum."""
        return cls(
            key=s.key,
            turns=s.turns,
            input_tokens=s.input_tokens,
            output_tokens=s.output_tokens,
            tokens=s.input_tokens + s.output_tokens,
            cost=round(s.cost, 6),
            duration_ms=s.duration_ms,
        )


class UsageSummary(BaseModel):
    """`GET /v1/usage/summary`: sums per group, and over all of them."""

    from_: UtcDatetime = Field(serialization_alias="from")
    to: UtcDatetime
    group_by: Literal["surface", "model", "day"]
    items: list[UsageGroup]
    total: UsageGroup
