"""Relative and absolute time expressions resolved into valid-time windows (CONTRACT §4).

"I moved to Porto last month", said on 2023-05-08, means the move happened in
`[2023-04-01, 2023-05-01)`. This module finds such expressions in a sentence and resolves
them against the message timestamp `at`:

* Windows are half-open `[start, end)`, aware UTC, with day granularity: both ends fall
  on midnight *in the message's own offset* (the speaker's day), converted to UTC.
  `end=None` is open ("since May": still holds).
* A unit picks the window's size: "3 days ago" is one day, "2 weeks ago" the ISO week
  (Monday to Monday) that held that day, "3 months ago" that calendar month.
* Tense decides ambiguous expressions through `prefer`: "on Friday", "in May", "on 8 May"
  and "this weekend" (said on a weekday) look back with `prefer="past"` (the default) and
  forward with `prefer="future"`.
* Conventions: "a few" is 3 and "a couple (of)" is 2; "last night" is yesterday; "tonight"
  and "this morning" are today; "last <weekday>" is the latest such day before today;
  "last weekend" is the Saturday and Sunday before the current ISO week; seasons follow the
  northern hemisphere (summer = June to August, winter = December to February); "this
  past week" is the seven days ending today.
* "since X" opens the window at X's start ("since May": the latest May 1st not after
  `at`). "for 3 years" / "for the past 3 years" gives a window of kind "duration" that
  opens 3 years before `at`'s day, still open; callers use it only with present-perfect
  verbs ("I've lived here for 3 years").

Absolute dates ("8 May", "May 8th, 2023", "the 8th of May") are read with dateparser,
which also chooses the year for a date given without one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo

from curator.timewords import RULES, Handler, Kind, Prefer
from graph.time import to_utc

__all__ = ["Kind", "Prefer", "Window", "day_start", "day_window", "find_all", "resolve"]


@dataclass(frozen=True, slots=True)
class Window:
    """A resolved time expression.

    Attributes:
        start: inclusive start, aware UTC midnight.
        end: exclusive end, aware UTC midnight, or None for an open end.
        text: the matched expression as written ("last Saturday", "since May").
        span: `(begin, end)` character offsets of `text` in the searched string.
        kind: "period" (a bounded window when something happened or will happen),
            "since" (opens at `start`, still holds) or "duration" ("for 3 years":
            opens at `start`, still holds if the verb says so).
    """

    start: datetime
    end: datetime | None
    text: str
    span: tuple[int, int]
    kind: Kind = "period"

    def is_future(self, at: datetime) -> bool:
        """Return True when the window starts after the speaker's day of `at`."""
        return self.start > day_start(at)


def day_start(at: datetime) -> datetime:
    """Return the start of the day of `at` in `at`'s own offset (the speaker's local
    midnight), as an aware UTC datetime."""
    to_utc(at, "at")
    return _midnight(at.date(), at.tzinfo)


def day_window(at: datetime) -> tuple[datetime, datetime]:
    """Return `[midnight, next midnight)` around `at`, local to `at`'s offset, in UTC."""
    start = day_start(at)
    return start, start + timedelta(days=1)


def _midnight(d: date, tz: tzinfo | None = UTC) -> datetime:
    """Midnight starting day `d` in the zone `tz`, as aware UTC."""
    return datetime.combine(d, time(0), tzinfo=tz).astimezone(UTC)


_SINCE = re.compile(r"\bsince\s+$", re.IGNORECASE)


def find_all(text: str, at: datetime, *, prefer: Prefer = "past") -> list[Window]:
    """Find every time expression in `text` and resolve it against `at`.

    Args:
        text: a sentence or a whole message.
        at: the message timestamp, aware; its offset decides where the speaker's days
            begin ("yesterday" at 08:00+09:00 starts at 00:00+09:00).
        prefer: the tense of the statement, for expressions that could point either way.

    Returns:
        Non-overlapping windows in text order; where two matches overlap, the longer wins.

    Raises:
        graph.errors.NaiveTimestamp: `at` has no offset.
    """
    to_utc(at, "at")  # validates: aware and in range
    # Days are the speaker's: "yesterday" said at 08:00+09:00 is the local yesterday.
    today, zone = at.date(), at.tzinfo
    found: list[tuple[int, int, re.Match[str], Handler]] = []
    for pattern, handler in RULES:
        for m in pattern.finditer(text):
            found.append((m.start(), m.end(), m, handler))
    found.sort(key=lambda f: (f[0], -(f[1] - f[0])))
    windows: list[Window] = []
    taken_to = -1
    for at_char, end, m, handler in found:
        if at_char < taken_to:
            continue
        resolved = handler(m, today, prefer)
        if resolved is None:
            continue
        start, stop, kind = resolved
        begin = at_char
        since = _SINCE.search(text, 0, begin)
        if kind == "period" and (since is not None or m[0].lower().startswith("since")):
            stop, kind = None, "since"
            if since is not None:
                begin = since.start()
        windows.append(
            Window(
                start=_midnight(start, zone),
                end=None if stop is None else _midnight(stop, zone),
                text=text[begin:end],
                span=(begin, end),
                kind=kind,
            )
        )
        taken_to = end
    return windows


def resolve(text: str, at: datetime, *, prefer: Prefer = "past") -> Window | None:
    """Return the first time expression in `text` resolved against `at`, or None.

    Example: `resolve("I moved to Porto last month", at=2023-05-08T13:56Z)` gives
    `Window(start=2023-04-01T00:00Z, end=2023-05-01T00:00Z, text="last month", ...)`.

    Args:
        text: a sentence or an expression.
        at: the message timestamp, aware.
        prefer: "past" or "future", the statement's tense (see the module docstring).
    """
    windows = find_all(text, at, prefer=prefer)
    return windows[0] if windows else None
