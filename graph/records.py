"""Internal rows (STYLE: "Records inside, pydantic at the edges").

Every row carries its `owner`. Datetimes are aware UTC; open ends are `FAR_FUTURE`
here and become `None` only at the API edge.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

Scalar = str | int | float | bool


@dataclass(frozen=True, slots=True)
class EntityRecord:
    """An entity node (CONTRACT §10 "Entity")."""

    id: str
    owner: str
    name: str
    kind: str
    aliases: tuple[str, ...]
    area: str | None
    merged_into: str | None
    archived: bool
    created_at: datetime


@dataclass(frozen=True, slots=True)
class FactRecord:
    """One fact version, a "row" (CONTRACT §2, §10 "Fact").

    Immutable except `retracted_at`, which the committer sets at most once.
    """

    id: str
    owner: str
    entity_id: str
    attribute: str
    value: Scalar | None
    object_id: str | None
    value_norm: str
    cardinality: str
    valid_from: datetime
    valid_to: datetime
    recorded_at: datetime
    retracted_at: datetime
    status: str
    source: str
    evidence: str | None
    reason: str | None
    confidence: float
    run_id: str | None
    message_id: str | None


@dataclass(frozen=True, slots=True)
class RunRecord:
    """A finished assistant run handed to the curator (CONTRACT §4)."""

    id: str
    owner: str
    chat_id: str
    surface: str | None
    status: str
    payload: str
    proposals: int
    committed: int
    held: int
    error: str | None
    created_at: datetime


@dataclass(frozen=True, slots=True)
class TokenRecord:
    """A bearer token, stored hashed (CONTRACT §7)."""

    id: str
    owner: str
    scopes: tuple[str, ...]


def run_key(owner: str, run_id: str) -> str:
    """The stored key of a run: run ids are the client's, unique per owner (CONTRACT §4)."""
    return f"{owner}/{run_id}"
