"""Field types that every edge model shares: one spelling of each concept (STYLE "One model
per concept at every edge").

REST schemas (api/http/schemas, api/chat/schemas), the committer's proposals and the
curator's run models all validate with these, so a bound is stated once and the same input
is accepted or refused the same way everywhere (CONTRACT §9). `graph` is the one package
every other may import, hence the home of these pydantic types; no Cypher here.
"""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    field_validator,
)

Scalar = str | int | float | bool
"""A fact's value: a JSON scalar (CONTRACT §10 Fact.value)."""

MAX_NAME = 200
"""Entity names, aliases, speakers (characters)."""
MAX_TEXT = 20_000
"""Message text, fact values, evidence (characters)."""
MAX_PAGE = 500
"""The largest page a list route serves (`limit`)."""
INT64 = (-(2**63), 2**63 - 1)
"""The integers Neo4j stores (CONTRACT §9: 64-bit integers)."""

_RFC3339 = re.compile(
    r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:[Zz]|[+-]\d{2}:\d{2})$"
)
_PLUS_AS_SPACE = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d{1,9})? \d{2}:\d{2}$")
"""A timestamp whose `+` offset arrived as a space: a URL query decodes an unencoded `+`
to a space (application/x-www-form-urlencoded), so `?valid_at=...+02:00` reads so."""


def z(value: datetime) -> str:
    """Format an aware datetime as RFC 3339 in UTC with `Z` (CONTRACT §2: responses use UTC)."""
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _rfc3339(value: Any) -> Any:
    """Accept only RFC 3339 text for timestamps (CONTRACT §2): no numbers.

    Date and time are separated by `T`, `t` or one space (RFC 3339 §5.6 NOTE:
    "2024-05-01 09:00:00+00:00"), alike in query parameters, JSON bodies and MCP
    arguments, which all validate with `Timestamp`. A timestamp without an offset fails
    later, in `AwareDatetime`, with its own message (a 422 naming the field). One whose
    `+` offset came as a space (an unencoded `+` in a URL) is refused saying so.
    """
    if isinstance(value, datetime):
        return value
    if not isinstance(value, str):
        # ValueError, not TypeError: pydantic turns only ValueError into a 422 naming the field.
        raise ValueError("a timestamp must be an RFC 3339 string, e.g. 2024-05-01T09:00:00Z")
    if _PLUS_AS_SPACE.match(value):
        raise ValueError(
            "the offset's '+' arrived as a space: in a URL query an unencoded '+' means a "
            "space, so send it as %2B (e.g. 2024-05-01T09:00:00%2B02:00) or use Z"
        )
    naive = _RFC3339.match(value + "Z") and not _RFC3339.match(value)
    if not _RFC3339.match(value) and not naive:
        raise ValueError("a timestamp must be RFC 3339, e.g. 2024-05-01T09:00:00Z or +02:00")
    return value


Timestamp = Annotated[AwareDatetime, BeforeValidator(_rfc3339)]
"""A request timestamp: RFC 3339 with an offset, `T` or a space between date and time
(CONTRACT §2; a naive one is a 422). The one timestamp type of every entry point."""

UtcDatetime = Annotated[datetime, PlainSerializer(z, return_type=str)]
"""A response timestamp: an aware datetime, shown in UTC with `Z` (CONTRACT §2)."""


def _bounded(value: Scalar) -> Scalar:
    """Bound a value (CONTRACT §9): text length, 64-bit integers, finite numbers."""
    if isinstance(value, str) and len(value) > MAX_TEXT:
        raise ValueError(f"at most {MAX_TEXT} characters")
    if isinstance(value, int) and not isinstance(value, bool) and not INT64[0] <= value <= INT64[1]:
        raise ValueError("integers must fit in 64 bits (-2**63 .. 2**63-1)")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError("numbers must be finite (no NaN or Infinity)")
    return value


BoundedScalar = Annotated[Scalar, AfterValidator(_bounded)]
"""A fact value as a request may send it (CONTRACT §9 bounds)."""

INTEGRATION_PATTERN = r"^[a-z0-9][a-z0-9_.\-]*$"
IntegrationName = Annotated[str, Field(min_length=1, max_length=100, pattern=INTEGRATION_PATTERN)]
"""The `<name>` of an `integration:<name>` source: lower case, digits, `_ . -`."""

AttributeName = Annotated[str, Field(min_length=1, max_length=100, pattern=r"^[a-z][a-z0-9_]*$")]
"""An attribute: snake_case, at most 100 characters (CONTRACT §2.1 registry names)."""

ChatId = Annotated[
    str,
    Field(
        min_length=1,
        max_length=200,
        pattern=r"^[^/]+$",
        description="1-200 characters, no '/' (a chat id is part of URL paths)",
    ),
]
"""A chat's id as the assistant names it: 1-200 characters, no "/", since routes such as
`/v1/chats/{chat_id}/history` name it in their path."""

RunId = Annotated[
    str,
    Field(
        min_length=1,
        max_length=200,
        pattern=r"^[^/]+$",
        description="1-200 characters, no '/' (a run id is part of URL paths)",
    ),
]
"""A run's id as the assistant names it: 1-200 characters, no "/" (`/v1/runs/{id}`)."""


def _no_lone_surrogates(value: Any) -> Any:
    """Reject text that cannot be stored as UTF-8 (a lone surrogate such as "\\ud800")."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ValueError("text contains an unpaired surrogate; send valid Unicode") from exc
    elif isinstance(value, list | tuple):
        for item in value:
            _no_lone_surrogates(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            _no_lone_surrogates(key)
            _no_lone_surrogates(item)
    return value


class RequestModel(BaseModel):
    """Base of every input model: unknown fields are refused; all text must be valid Unicode."""

    model_config = ConfigDict(extra="forbid")

    @field_validator("*", mode="after")
    @classmethod
    def _valid_text(cls, value: Any) -> Any:
        return _no_lone_surrogates(value)
