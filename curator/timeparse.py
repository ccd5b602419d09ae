"""Relative and absolute time expressions resolved into valid-time windows (CONTRACT §4).

"I moved to Porto last month", said on 2023-05-08, means the move happened in
`[2023-04-01, 2023-05-01)`. This module finds such expressions in a sentence and resolves
them against the message timestamp `at`:

* Windows are half-open `[start, end)`, aware UTC, with day granularity: both ends fall
  on midnight *in the message's own offset* (the speaker's day), converted to UTC. `end=None` is open ("since May": still holds).
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
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from typing import Literal

import dateparser
from dateutil.relativedelta import relativedelta

from graph.time import to_utc

Prefer = Literal["past", "future"]
Kind = Literal["period", "since", "duration"]


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


# --- calendar helpers (dates, not datetimes) -------------------------------------------

_Dates = tuple[date, date | None]


def _midnight(d: date, tz: tzinfo | None = UTC) -> datetime:
    """Midnight starting day `d` in the zone `tz`, as aware UTC."""
    return datetime.combine(d, time(0), tzinfo=tz).astimezone(UTC)


def _day(d: date) -> _Dates:
    return d, d + timedelta(days=1)


def _week(d: date) -> _Dates:
    monday = d - timedelta(days=d.weekday())
    return monday, monday + timedelta(days=7)


def _month(d: date) -> _Dates:
    first = d.replace(day=1)
    return first, first + relativedelta(months=1)


def _year(d: date) -> _Dates:
    return date(d.year, 1, 1), date(d.year + 1, 1, 1)


_UNIT_WINDOW: dict[str, Callable[[date], _Dates]] = {
    "day": _day,
    "week": _week,
    "month": _month,
    "year": _year,
}

_SEASON_START = {"spring": 3, "summer": 6, "fall": 9, "autumn": 9, "winter": 12}


def _season(name: str, year: int) -> tuple[date, date]:
    start = date(year, _SEASON_START[name], 1)
    return start, start + relativedelta(months=3)


def _named_month(month: int, year: int) -> tuple[date, date]:
    start = date(year, month, 1)
    return start, start + relativedelta(months=1)


def _recurring(
    make: Callable[[int], tuple[date, date]], today: date, which: str, prefer: Prefer
) -> tuple[date, date]:
    """Pick one occurrence of a yearly period (a month or a season) relative to `today`.

    `which` is "last" (latest one already over), "next" (earliest not yet begun), "this"
    (the one holding today, else this calendar year's) or "in" (by `prefer`: the latest
    begun by today, or the earliest not yet over).
    """
    options = [make(y) for y in range(today.year - 2, today.year + 3)]
    if which == "last":
        return max(o for o in options if o[1] <= today)
    if which == "next":
        return min(o for o in options if o[0] > today)
    if which == "this":
        holding = [o for o in options if o[0] <= today < o[1]]
        return holding[0] if holding else make(today.year)
    if prefer == "past":
        return max(o for o in options if o[0] <= today)
    return min(o for o in options if o[1] > today)


# --- vocabulary --------------------------------------------------------------------------

_NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "a few": 3, "a couple": 2, "a couple of": 2, "couple of": 2,
}  # fmt: skip
_NUM = (
    r"(?P<n>\d{1,3}|a\s+couple(?:\s+of)?|couple\s+of|a\s+few|an?|one|two|three|four|five|"
    r"six|seven|eight|nine|ten|eleven|twelve)"
)
_UNIT = r"(?P<unit>day|week|month|year)s?"
_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_WEEKDAY = (
    r"(?P<wd>mon(?:day)?|tue(?:s(?:day)?)?|wed(?:nesday)?|thu(?:r(?:s(?:day)?)?)?|fri(?:day)?"
    r"|sat(?:urday)?|sun(?:day)?)\.?"
)
_MONTHS = {
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
    "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12,
}  # fmt: skip
# Month names must be capitalized: "may" and "march" are also verbs.
_MONTH_NAMES = (
    r"(?-i:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|"
    r"Aug(?:ust)?|Sept?(?:ember)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
)
_MONTH = rf"(?P<month>{_MONTH_NAMES})\.?"
_YEAR_NUMBER = r"(?:19|20)\d\d"
_YEAR = rf"(?P<year>{_YEAR_NUMBER})"
_PART_OF_DAY = r"(?:\s+(?:morning|afternoon|evening|night))?"


def _number(word: str) -> int:
    word = " ".join(word.lower().split())
    return int(word) if word.isdigit() else _NUMBER_WORDS[word]


def _shift(unit: str, n: int) -> relativedelta:
    return relativedelta(**{f"{unit}s": n})  # unit is day, week, month or year


# --- rules: each resolves one match to dates ---------------------------------------------

_Handler = Callable[[re.Match[str], date, Prefer], "tuple[date, date | None, Kind] | None"]


def _ago(m: re.Match[str], today: date, prefer: Prefer) -> tuple[date, date | None, Kind]:
    unit, n = m["unit"].lower(), _number(m["n"])
    start, end = _UNIT_WINDOW[unit](today - _shift(unit, n))
    return start, end, "period"


def _in_n(m: re.Match[str], today: date, prefer: Prefer) -> tuple[date, date | None, Kind]:
    unit, n = m["unit"].lower(), _number(m["n"])
    start, end = _UNIT_WINDOW[unit](today + _shift(unit, n))
    return start, end, "period"


def _for_n(m: re.Match[str], today: date, prefer: Prefer) -> tuple[date, date | None, Kind]:
    unit, n = m["unit"].lower(), _number(m["n"])
    return today - _shift(unit, n), None, "duration"


_DAY_OFFSETS = {
    "the day before yesterday": -2,
    "yesterday": -1,
    "last night": -1,
    "today": 0,
    "tonight": 0,
    "this morning": 0,
    "this afternoon": 0,
    "this evening": 0,
    "earlier today": 0,
    "tomorrow": 1,
    "the day after tomorrow": 2,
}


def _named_day(m: re.Match[str], today: date, prefer: Prefer) -> tuple[date, date | None, Kind]:
    offset = _DAY_OFFSETS[" ".join(m[0].lower().split())]
    start, end = _day(today + timedelta(days=offset))
    return start, end, "period"


def _relative_period(
    m: re.Match[str], today: date, prefer: Prefer
) -> tuple[date, date | None, Kind]:
    which, unit = " ".join(m["which"].lower().split()), m["unit"].lower()
    window = _UNIT_WINDOW[unit]
    if which in ("earlier this", "so far this"):
        return window(today)[0], today + timedelta(days=1), "period"
    if which in ("this past", "the past"):
        return today - _shift(unit, 1) + timedelta(days=1), today + timedelta(days=1), "period"
    step = {"last": -1, "this": 0, "next": 1}[which]
    start, end = window(today + _shift(unit, step))
    return start, end, "period"


def _weekend(m: re.Match[str], today: date, prefer: Prefer) -> tuple[date, date | None, Kind]:
    which = " ".join((m["which"] or "the").lower().split())
    saturday = today - timedelta(days=today.weekday()) + timedelta(days=5)  # this ISO week's
    in_weekend = today >= saturday
    if which == "last":
        saturday -= timedelta(days=7)
    elif which == "next":
        saturday += timedelta(days=7)
    elif not in_weekend and (
        which in ("this past", "over the", "the") or (which == "this" and prefer == "past")
    ):
        saturday -= timedelta(days=7)
    return saturday, saturday + timedelta(days=2), "period"


def _weekday(m: re.Match[str], today: date, prefer: Prefer) -> tuple[date, date | None, Kind]:
    which = (m["which"] or "on").lower()
    target = [d[:3] for d in _WEEKDAYS].index(m["wd"][:3].lower())
    back = (today.weekday() - target) % 7 or 7  # days to the latest such day before today
    ahead = (target - today.weekday()) % 7 or 7  # days to the next such day after today
    if which in ("last", "since") or (which == "on" and prefer == "past"):
        d = today - timedelta(days=back)
    elif which == "next" or which == "on":
        d = today + timedelta(days=ahead)
    else:  # "this": today if it is that day, else by tense
        d = (
            today
            if target == today.weekday()
            else (
                today - timedelta(days=back) if prefer == "past" else today + timedelta(days=ahead)
            )
        )
    start, end = _day(d)
    return start, end, "period"


def _month_name(m: re.Match[str], today: date, prefer: Prefer) -> tuple[date, date | None, Kind]:
    month = _MONTHS[m["month"][:3].lower()]
    if m["year"]:
        start, end = _named_month(month, int(m["year"]))
    else:
        which = (m["which"] or "in").lower()
        which = which if which in ("last", "this", "next") else "in"
        start, end = _recurring(lambda y: _named_month(month, y), today, which, prefer)
    return start, end, "period"


def _season_name(m: re.Match[str], today: date, prefer: Prefer) -> tuple[date, date | None, Kind]:
    name, which = m["season"].lower(), m["which"].lower()
    start, end = _recurring(lambda y: _season(name, y), today, which, prefer)
    return start, end, "period"


def _year_number(m: re.Match[str], today: date, prefer: Prefer) -> tuple[date, date | None, Kind]:
    start, end = _year(date(int(m["year"]), 1, 1))
    return start, end, "period"


def _absolute_date(
    m: re.Match[str], today: date, prefer: Prefer
) -> tuple[date, date | None, Kind] | None:
    # dateparser picks the year of a date given without one: the latest on or before today
    # (past), or the earliest on or after today (future; its base is the day before, since
    # it prefers strictly later dates).
    base = today if prefer == "past" else today - timedelta(days=1)
    fragment = m["date"].removeprefix("the ").removeprefix("The ")
    parsed = dateparser.parse(
        fragment,
        languages=["en"],
        settings={
            "PREFER_DATES_FROM": prefer,
            "RELATIVE_BASE": datetime.combine(base, time(0)),
            "REQUIRE_PARTS": ["day", "month"],
            "TIMEZONE": "UTC",
            "RETURN_AS_TIMEZONE_AWARE": False,
        },
    )
    if parsed is None:
        return None
    start, end = _day(parsed.date())
    return start, end, "period"


_ORD = r"(?:st|nd|rd|th)?"
_RULES: list[tuple[re.Pattern[str], _Handler]] = [
    (re.compile(rf"\b{_NUM}\s+{_UNIT}\s+(?:ago|back)\b", re.IGNORECASE), _ago),
    (re.compile(rf"\bin\s+{_NUM}\s+{_UNIT}(?!\s+(?:ago|old|time))\b", re.IGNORECASE), _in_n),
    (re.compile(rf"\bfor\s+(?:the\s+(?:past|last)\s+)?{_NUM}\s+{_UNIT}\b", re.IGNORECASE), _for_n),
    (
        re.compile(
            r"\b(?:the\s+day\s+(?:before\s+yesterday|after\s+tomorrow)|yesterday|last\s+night|"
            r"today|tonight|this\s+(?:morning|afternoon|evening)|earlier\s+today|tomorrow)\b",
            re.IGNORECASE,
        ),
        _named_day,
    ),
    (
        re.compile(
            r"\b(?P<which>last|this\s+past|the\s+past|earlier\s+this|so\s+far\s+this|this|next)"
            r"\s+(?P<unit>week|month|year)\b",
            re.IGNORECASE,
        ),
        _relative_period,
    ),
    (
        re.compile(
            r"\b(?P<which>last|this\s+past|this|next|over\s+the|the)\s+weekend\b", re.IGNORECASE
        ),
        _weekend,
    ),
    (
        re.compile(
            rf"\b(?P<which>last|this|next|on|since)\s+{_WEEKDAY}{_PART_OF_DAY}\b", re.IGNORECASE
        ),
        _weekday,
    ),
    (
        re.compile(
            r"\b(?P<which>last|this|next)\s+(?P<season>summer|winter|spring|fall|autumn)\b",
            re.IGNORECASE,
        ),
        _season_name,
    ),
    (
        re.compile(
            rf"\b(?:on\s+)?(?P<date>\b(?:the\s+)?\d{{1,2}}{_ORD}\s+(?:of\s+)?{_MONTH_NAMES}\.?"
            rf"(?:,?\s+{_YEAR_NUMBER})?|\b{_MONTH_NAMES}\.?\s+\d{{1,2}}{_ORD}"
            rf"(?:,?\s+{_YEAR_NUMBER})?)\b",
            re.IGNORECASE,
        ),
        _absolute_date,
    ),
    (
        re.compile(
            rf"\b(?:(?P<which>in|during|since|last|this|next|early|late|mid-?)\s+)?{_MONTH}"
            rf"(?:,?\s+{_YEAR})?\b",
            re.IGNORECASE,
        ),
        _month_name,
    ),
    (re.compile(rf"\b(?:in|during|back\s+in|since)\s+{_YEAR}\b", re.IGNORECASE), _year_number),
]
_SINCE = re.compile(r"\bsince\s+$", re.IGNORECASE)


def _month_match_is_time(m: re.Match[str]) -> bool:
    """A bare month name counts only with a preposition or a year ("in May", "May 2023")."""
    return bool(m["which"] or m["year"])


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
    found: list[tuple[int, int, re.Match[str], _Handler]] = []
    for pattern, handler in _RULES:
        for m in pattern.finditer(text):
            if handler is _month_name and not _month_match_is_time(m):
                continue
            found.append((m.start(), m.end(), m, handler))
    found.sort(key=lambda f: (f[0], -(f[1] - f[0])))
    windows: list[Window] = []
    taken_to = -1
    for begin, end, m, handler in found:
        if begin < taken_to:
            continue
        resolved = handler(m, today, prefer)
        if resolved is None:
            continue
        start, stop, kind = resolved
        since = _SINCE.search(text, 0, begin)
        if kind == "period" and (since is not None or m[0].lower().startswith("since")):
            begin, stop, kind = begin if since is None else since.start(), None, "since"
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
