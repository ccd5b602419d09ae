"""The period a search query names, as evidence of when a candidate was said (CONTRACT §6
"Pull", §12; used by api/chat/search.py).

"What did Gina find for her store on 1 February, 2023?" asks about what was said then: a
message said on that day holds the query's date as surely as it would hold one of its
words, though its text never writes the date. The query's first bounded period becomes one
more term of the lexical evidence, `WHEN`, which a candidate holds when it was said (an
episode's `said_at`) or became true (a fact's `valid_from`) within `SLACK_DAYS` of that
period: what happened on a day is often told a few days later, and people name a day
loosely.

The period is read by the curator's own time words (curator/timeparse.py, dateparser
underneath), against the search's valid time `at`, so a query and a message mean the same
by "on 8 May", "in December 2023", "last weekend" or "three days ago"; a date without a
year is its latest occurrence on or before `at`, as the curator reads it. Only bounded
periods count ("since May" and "for 3 years" name no period).

Pure functions of the query, `at` and a candidate's time: no clock, no store.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from curator.timeparse import find_all
from graph.read.search import words

SLACK_DAYS = 3
"""A candidate said this many days before or after the named period still holds it."""
WHEN = "@when"
"""The term a candidate said within the named period holds (no word stems to it: words are
letters and digits)."""


@dataclass(frozen=True, slots=True)
class Period:
    """A period a query names.

    Attributes:
        start: its first instant, aware UTC (midnight of its first day).
        end: the instant after it, aware UTC, exclusive.
        words: the query's words that name it (folded, as `words` gives them).
    """

    start: datetime
    end: datetime
    words: frozenset[str]

    def holds(self, at: datetime | None) -> bool:
        """Whether a time (aware UTC) falls within `SLACK_DAYS` of this period."""
        if at is None:
            return False
        slack = timedelta(days=SLACK_DAYS)
        return self.start - slack <= at < self.end + slack


def named_period(q: str, at: datetime) -> Period | None:
    """The first bounded period `q` names, resolved against `at` (aware; the search's valid
    time) by curator.timeparse.find_all; None when it names none."""
    for window in find_all(q, at):
        if window.kind == "period" and window.end is not None:
            return Period(window.start, window.end, frozenset(words(window.text, limit=None)))
    return None
