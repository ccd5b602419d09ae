"""One time type for the whole service (STYLE: "One time type"; CONTRACT §2).

Inside worldstate every datetime is timezone-aware and in UTC. Intervals are half-open
`[start, end)`. An open end (`valid_to` or `retracted_at` not set) is stored as
`FAR_FUTURE` so that range predicates can use an index (indexes do not store nulls),
and is shown as `None` at the edges.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from graph.errors import InvalidInput, NaiveTimestamp

FAR_FUTURE = datetime(9999, 12, 31, tzinfo=UTC)
"""Stored in place of an open interval end; never shown to a user."""

FAR_PAST = datetime(1, 1, 1, tzinfo=UTC)
"""valid_from of a fact known only by its end ("I lost my job as a banker"): start unknown."""

LATEST = datetime(9999, 1, 1, tzinfo=UTC)
"""Timestamps from users must come before this (the open-end sentinel lies beyond it)."""


def utcnow() -> datetime:
    """Return the current server time, timezone-aware UTC."""
    return datetime.now(UTC)


def to_utc(value: datetime, field: str = "timestamp") -> datetime:
    """Normalize an aware datetime to UTC with a fixed offset.

    Args:
        value: any timezone-aware datetime (neo4j.time.DateTime is converted first).
        field: the name reported if `value` is naive.

    Returns:
        The same instant as a `datetime` in `UTC`, microsecond precision.

    Raises:
        NaiveTimestamp: `value` has no offset (CONTRACT §2).
        InvalidInput: `value` is out of range in UTC or not before `LATEST`.
    """
    if hasattr(value, "to_native"):
        value = value.to_native()
    if value.tzinfo is None or value.tzinfo.utcoffset(value) is None:
        raise NaiveTimestamp(field)
    try:
        utc = value.astimezone(UTC)
    except OverflowError as exc:
        raise InvalidInput(field, "timestamp is out of range once converted to UTC") from exc
    if utc >= LATEST:
        raise InvalidInput(field, "timestamp must be before 9999-01-01T00:00:00Z")
    return utc


def from_store(value: Any) -> datetime:
    """Convert a DATETIME read from Neo4j into an aware UTC `datetime` (sentinels included)."""
    native: datetime = value.to_native() if hasattr(value, "to_native") else value
    return native.astimezone(UTC)


EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def from_micros(micros: int) -> datetime:
    """Convert integer microseconds since the Unix epoch to an aware UTC `datetime`."""
    return EPOCH + timedelta(microseconds=micros)


def epoch_parts(value: datetime) -> tuple[int, int]:
    """Split an aware datetime into (whole seconds since the epoch, nanoseconds in [0, 1e9)).

    Sent to Cypher as `datetime({epochSeconds: s, nanosecond: ns})` (UTC): integers cost
    nothing to encode, where the driver's DATETIME encoding is pure Python.
    """
    micros = (value - EPOCH) // timedelta(microseconds=1)
    seconds, rest = divmod(micros, 1_000_000)
    return seconds, rest * 1000


def open_end(value: datetime | None) -> datetime:
    """Return `value` in UTC, or `FAR_FUTURE` for an open end (`None`)."""
    return FAR_FUTURE if value is None else to_utc(value, "valid_to")


def shown_end(value: datetime) -> datetime | None:
    """Return `None` for the `FAR_FUTURE` sentinel, else `value` (for the API edge)."""
    return None if value >= FAR_FUTURE else value


@dataclass(frozen=True, slots=True)
class AsOf:
    """A point on both time axes (CONTRACT §2).

    A read at `AsOf(V, T)` sees rows with `recorded_at <= T < retracted_at` and
    `valid_from <= V < valid_to`.

    Attributes:
        valid_at: the instant in the world the question is about, aware UTC.
        known_at: the instant of the service's knowledge, aware UTC.
    """

    valid_at: datetime
    known_at: datetime
    current: bool = False
    """True when `known_at` is "now" (defaulted): reads may then use the open-row index."""

    @classmethod
    def at(cls, valid_at: datetime | None = None, known_at: datetime | None = None) -> AsOf:
        """Build an `AsOf`, each missing axis defaulting to now (CONTRACT §2).

        Raises:
            NaiveTimestamp: either argument has no offset.
        """
        now = utcnow()
        return cls(
            valid_at=now if valid_at is None else to_utc(valid_at, "valid_at"),
            known_at=now if known_at is None else to_utc(known_at, "known_at"),
            current=known_at is None,
        )
