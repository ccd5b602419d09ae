"""The vocabulary of time expressions: patterns and the calendar arithmetic behind them.

Each entry of `RULES` is a pattern and a handler that resolves one match against the
speaker's day (`today`) into dates `(start, end or None, kind)`; `curator.timeparse`
finds the matches, settles overlaps and makes aware windows of the dates. The conventions
are stated in `curator.timeparse`'s module docstring.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, datetime, time, timedelta
from typing import Any, Literal

import dateparser
from dateutil.relativedelta import relativedelta

__all__ = ["RULES", "Handler", "Kind", "Prefer"]

Prefer = Literal["past", "future"]
Kind = Literal["period", "since", "duration"]


# --- calendar helpers (dates, not datetimes) -------------------------------------------

_Dates = tuple[date, date | None]


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
    shift: dict[str, Any] = {f"{unit}s": n}  # unit is day, week, month or year
    return relativedelta(**shift)


# --- rules: each resolves one match to dates ---------------------------------------------

Handler = Callable[[re.Match[str], date, Prefer], "tuple[date, date | None, Kind] | None"]


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


def _weekends_ago(m: re.Match[str], today: date, prefer: Prefer) -> tuple[date, date | None, Kind]:
    """ "two weekends ago": the weekend N ISO weeks before this week's (said on any day)."""
    saturday = today - timedelta(days=today.weekday()) + timedelta(days=5 - 7 * _number(m["n"]))
    return saturday, saturday + timedelta(days=2), "period"


def _day_of_month(
    m: re.Match[str], today: date, prefer: Prefer
) -> tuple[date, date | None, Kind] | None:
    """ "on the 15th": the latest such day up to today (past), or the next from today on."""
    dom, step = int(m["dom"]), (-1 if prefer == "past" else 1)
    for months in range(0, 13 * step, step):
        first = today.replace(day=1) + relativedelta(months=months)
        if dom > (first + relativedelta(months=1) - timedelta(days=1)).day:
            continue
        d = first.replace(day=dom)
        if (d <= today) if prefer == "past" else (d >= today):
            start, end = _day(d)
            return start, end, "period"
    return None


def _weekday(m: re.Match[str], today: date, prefer: Prefer) -> tuple[date, date | None, Kind]:
    which = " ".join((m["which"] or "on").lower().split())
    which = "last" if which == "this past" else which
    target = [d[:3] for d in _WEEKDAYS].index(m["wd"][:3].lower())
    back = (today.weekday() - target) % 7 or 7  # days to the latest such day before today
    ahead = (target - today.weekday()) % 7 or 7  # days to the next such day after today
    if which in ("last", "since") or (which == "on" and prefer == "past"):
        d = today - timedelta(days=back)
    elif which in {"next", "on"}:
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


def _month_name(
    m: re.Match[str], today: date, prefer: Prefer
) -> tuple[date, date | None, Kind] | None:
    if not (m["which"] or m["year"]):
        return None  # a bare month name counts only with a preposition or a year ("in May")
    month = _MONTHS[m["month"][:3].lower()]
    if m["year"]:
        start, end = _named_month(month, int(m["year"]))
    else:
        which = (m["which"] or "in").lower()
        which = which if which in ("last", "this", "next") else "in"
        start, end = _recurring(lambda y: _named_month(month, y), today, which, prefer)
    return start, end, "period"


def _season_name(m: re.Match[str], today: date, prefer: Prefer) -> tuple[date, date | None, Kind]:
    name, which = m["season"].lower(), " ".join(m["which"].lower().split())
    if which == "this past":
        prefer = "past"
    which = which if which in ("last", "this", "next") else "in"  # "over the summer": by tense
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
RULES: list[tuple[re.Pattern[str], Handler]] = [
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
    (re.compile(rf"\b{_NUM}\s+weekends?\s+(?:ago|back)\b", re.IGNORECASE), _weekends_ago),
    (
        re.compile(
            r"\bon\s+the\s+(?P<dom>[1-9]|[12]\d|3[01])(?:st|nd|rd|th)\b"
            r"(?!\s+(?:of\s+)?[A-Z]|\s+(?:floor|place|time|row|century|anniversary|birthday"
            r"|try|attempt|day|round|grade|lap)\b)",
            re.IGNORECASE,
        ),
        _day_of_month,
    ),
    (
        re.compile(
            rf"\b(?P<which>last|this\s+past|this|next|on|since)\s+{_WEEKDAY}{_PART_OF_DAY}\b",
            re.IGNORECASE,
        ),
        _weekday,
    ),
    (
        re.compile(
            r"\b(?P<which>last|this\s+past|this|next|over\s+the|during\s+the)\s+"
            r"(?P<season>summer|winter|spring|fall|autumn)\b",
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
