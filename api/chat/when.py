"""The period a search query names, as evidence of when a candidate was said (CONTRACT §6
"Pull", §12; used by api/chat/search.py).

"What did Gina find for her store on 1 February, 2023?" asks about what was said then: a
message said on that day holds the query's date as surely as it would hold one of its
words, though its text never writes the date. The query's first date (a month name, with a
day, a year or both: "in June", "May 23, 2023", "1 February 2023", "December 2023") becomes
one more term of the lexical evidence, `WHEN`, which a candidate holds when it was said
(an episode's `said_at`) or became true (a fact's `valid_from`) within `SLACK_DAYS` of
that period: what happened on a day is often told a few days later, and people name a day
loosely. A month without a year (with a day or not) is that month in any year. "may" and
"march" are months only beside a day or a year ("what may she do" names no period).

Pure functions of the query and a candidate's time: no clock, no store.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from graph.read.search import words

SLACK_DAYS = 3
"""A candidate said this many days before or after the named period still holds it."""
WHEN = "@when"
"""The term a candidate said within the named period holds (no word stems to it: words are
letters and digits)."""

_MONTHS = (
    *("january", "february", "march", "april", "may", "june"),
    *("july", "august", "september", "october", "november", "december"),
)
_AMBIGUOUS = frozenset({"may", "march"})
_ORDINAL = r"(?:st|nd|rd|th)?"
_DATE = re.compile(
    rf"(?:\b(\d{{1,2}}){_ORDINAL}\s+)?\b({'|'.join(_MONTHS)})\b"
    rf"(?:\s+(\d{{1,2}}){_ORDINAL}\b)?(?:,?\s+(\d{{4}})\b)?",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Period:
    """A period a query names.

    Attributes:
        month: 1-12.
        first: its first day, or None for a month of any year.
        last: its last day, or None for a month of any year.
        words: the query's words that name it (folded, as `words` gives them).
    """

    month: int
    first: date | None
    last: date | None
    words: frozenset[str]

    def holds(self, at: datetime | None) -> bool:
        """Whether a time (aware UTC) falls within `SLACK_DAYS` of this period."""
        if at is None:
            return False
        day = at.date()
        slack = timedelta(days=SLACK_DAYS)
        if self.first is None or self.last is None:
            return any(d.month == self.month for d in (day - slack, day, day + slack))
        return self.first - slack <= day <= self.last + slack


def named_period(q: str) -> Period | None:
    """The first period `q` names (module docstring), or None."""
    for m in _DATE.finditer(q):
        day_text, name, year_text = m.group(1) or m.group(3), m.group(2).lower(), m.group(4)
        if name in _AMBIGUOUS and not (day_text or year_text):
            continue
        month = _MONTHS.index(name) + 1
        named = frozenset(words(m.group(0), limit=None))
        if year_text is None:
            return Period(month, None, None, named)
        year = int(year_text)
        if day_text is None:
            last = date(year + month // 12, month % 12 + 1, 1) - timedelta(days=1)
            return Period(month, date(year, month, 1), last, named)
        try:
            day = date(year, month, int(day_text))
        except ValueError:
            continue
        return Period(month, day, day, named)
    return None
