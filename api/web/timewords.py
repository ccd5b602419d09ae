"""Times as the Memory page shows and reads them (CONTRACT §2: UTC inside, offsets required).

The page's time controls are `datetime-local` inputs read as UTC (their labels say so);
links between pages carry RFC 3339 with an offset. Shown times are UTC: a date alone
when the time is midnight, else the date and time with "UTC".
"""

from __future__ import annotations

from datetime import UTC, datetime

from graph.errors import InvalidInput
from graph.time import to_utc

MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]


def read_time(text: str | None, field: str) -> datetime | None:
    """A time from a form or a link: empty is None (now); `2024-03-01`, `2024-03-01T09:30`
    and `2024-03-01T09:30:15` are UTC; RFC 3339 with an offset is taken as given.

    Raises:
        InvalidInput: 422 naming `field` when the text is no such time.
    """
    if text is None or not text.strip():
        return None
    raw = text.strip()
    if raw.endswith(("Z", "z")):
        raw = raw[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(raw)
    except ValueError as exc:
        raise InvalidInput(
            field, "give a date and time such as 2024-03-01T09:30 (UTC) or 2024-03-01"
        ) from exc
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return to_utc(parsed, field)


def field_value(value: datetime | None) -> str:
    """The value of a `datetime-local` input showing `value` in UTC (empty for None)."""
    if value is None:
        return ""
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S")


def rfc3339(value: datetime | None) -> str:
    """`value` in UTC with `Z`, for links (empty for None)."""
    if value is None:
        return ""
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")


def moment(value: datetime | None, open_word: str = "open") -> str:
    """A compact time: `2024-03-01` at midnight UTC, else `2024-03-01 09:30:15 UTC`
    (microseconds dropped); `open_word` for None (an open end)."""
    if value is None:
        return open_word
    utc = value.astimezone(UTC)
    if (utc.hour, utc.minute, utc.second, utc.microsecond) == (0, 0, 0, 0):
        return utc.strftime("%Y-%m-%d")
    return utc.strftime("%Y-%m-%d %H:%M:%S UTC")


def day(value: datetime) -> str:
    """A time in words: `1 March 2024`, with `at 09:30:15 UTC` unless it is midnight."""
    utc = value.astimezone(UTC)
    text = f"{utc.day} {MONTHS[utc.month - 1]} {utc.year}"
    if (utc.hour, utc.minute, utc.second) != (0, 0, 0):
        text += f" at {utc.strftime('%H:%M:%S')} UTC"
    return text


def window(start: datetime | None, end: datetime | None) -> str:
    """A half-open window `2024-01-01 → 2024-06-01` (`→ open` when it has no end)."""
    return f"{moment(start, 'the beginning')} → {moment(end)}"


def as_of_words(valid_at: datetime | None, known_at: datetime | None) -> str:
    """Say in words what a read at `(valid_at, known_at)` shows (None = now), e.g. "what
    was true on 1 March 2024, as the service knew it on 10 March 2024" (CONTRACT §2)."""
    if valid_at is None and known_at is None:
        return "what is true now, as the service knows it now"
    if known_at is None:
        return f"what was true on {day(valid_at)}, as the service knows it now"  # type: ignore[arg-type]
    if valid_at is None:
        return f"what is true now, as the service knew it on {day(known_at)}"
    if valid_at == known_at:
        return f"what was true on {day(valid_at)}, as the service knew it then"
    return f"what was true on {day(valid_at)}, as the service knew it on {day(known_at)}"
