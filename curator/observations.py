"""An integration's structured observation inside a run: the one model of it (CONTRACT §4).

`POST /v1/runs` validates its `observations` with `Observation`, and the curator reads the
stored run back with the same model (curator.propose), so what the API accepts the curator
proposes: one set of bounds (CONTRACT §9). No committer import here: the REST schemas, which
the chat read path shares, import this module.
"""

from __future__ import annotations

from pydantic import Field, model_validator

from graph.errors import InvalidInput
from graph.fields import (
    MAX_NAME,
    MAX_TEXT,
    AttributeName,
    BoundedScalar,
    IntegrationName,
    RequestModel,
    Timestamp,
)
from graph.time import to_utc


class ObservedEntity(RequestModel):
    """An entity named by an observation: by name and kind (resolved or created); no
    name means the owner's own person entity."""

    name: str | None = Field(default=None, min_length=1, max_length=MAX_NAME, pattern=r"\S")
    kind: str = Field(default="person", min_length=1, max_length=50, pattern=r"\S")


class Observation(RequestModel):
    """An integration's structured observation in a run (CONTRACT §4): exactly one of
    `value` and `object`; `valid_from` defaults to the run's time."""

    integration: IntegrationName
    entity: ObservedEntity
    attribute: AttributeName
    value: BoundedScalar | None = None
    object: ObservedEntity | None = None
    valid_from: Timestamp | None = None
    valid_to: Timestamp | None = None
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    evidence: str | None = Field(default=None, max_length=MAX_TEXT)

    @model_validator(mode="after")
    def _one_value_and_a_window(self) -> Observation:
        """Exactly one of value/object; times representable in UTC; a non-empty window."""
        if (self.value is None) == (self.object is None):
            raise ValueError("give exactly one of value and object")
        for name in ("valid_from", "valid_to"):
            when = getattr(self, name)
            if when is not None:
                try:
                    to_utc(when, name)
                except InvalidInput as exc:
                    raise ValueError(f"{name}: {exc.detail}") from exc
        if self.valid_from and self.valid_to and self.valid_to <= self.valid_from:
            raise ValueError("valid_to must be later than valid_from")
        return self
