"""Response models of the pull read tools (CONTRACT §6 "Pull", §10): the JSON shapes the
REST routes and the MCP tools both answer with (api/chat/tools.py builds them)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from api.http.schemas.core import EntityPublic, FactPublic
from graph.fields import UtcDatetime


class EntityFacts(BaseModel):
    """An entity and its rows at a point on both axes: `{entity, facts, merged_from}`."""

    entity: EntityPublic
    facts: list[FactPublic]
    merged_from: str | None = None
    """The id asked for, when it was merged into `entity` (CONTRACT §5), else null."""


class LookupOut(BaseModel):
    """`GET /v1/lookup`: `{items: [{entity, facts}]}`, oldest entity first."""

    items: list[EntityFacts]


class Neighbor(BaseModel):
    """An entity reached by traversal and the relationship rows of the path reaching it,
    from the start, in order (CONTRACT §10 neighbors)."""

    entity: EntityPublic
    via: list[FactPublic]


class NeighborsOut(BaseModel):
    """`GET /v1/entities/{id}/neighbors`: `{items: [{entity, via: [Fact]}]}`, nearest
    first (then by entity id)."""

    items: list[Neighbor]


class ChangePublic(BaseModel):
    """An attribute whose value changed: the rows before (T1) and after (T2)."""

    entity_id: str
    attribute: str
    before: list[FactPublic]
    after: list[FactPublic]


class DiffOut(BaseModel):
    """`GET /v1/entities/{id}/diff`: what changed between `from` and `to` on one axis.

    `valid_at` is set (or null: all of valid time) on the known axis; `known_at` on the
    valid axis. Times are UTC `Z`.
    """

    entity: EntityPublic
    axis: Literal["valid", "known"]
    from_: UtcDatetime = Field(alias="from")
    to: UtcDatetime
    valid_at: UtcDatetime | None
    known_at: UtcDatetime | None
    added: list[FactPublic]
    removed: list[FactPublic]
    changed: list[ChangePublic]

    model_config = ConfigDict(populate_by_name=True)
