"""A period the query names is evidence of when a candidate was said (api/chat/when.py, used
by api/chat/search.py; CONTRACT §6 "Pull", §12), no database."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime

from api.chat.search import fuse
from api.chat.when import SLACK_DAYS, WHEN, named_period
from tests.api.test_search_fusion import said


def at(y: int, m: int, d: int) -> datetime:
    """Noon UTC of a day."""
    return datetime(y, m, d, 12, tzinfo=UTC)


def test_a_day_a_month_or_a_month_of_any_year() -> None:
    """ "1 February, 2023" and "May 23, 2023" are days, "December 2023" a month, "in June"
    June of any year; the period's words are the query's (folded)."""
    day = named_period("What did Ana find for her shop on 1 February, 2023?")
    assert day is not None and (day.first, day.last) == (date(2023, 2, 1), date(2023, 2, 1))
    assert day.words == {"1", "february", "2023"}
    other = named_period("What was Ana accepted for on May 23rd, 2023?")
    assert other is not None and other.first == other.last == date(2023, 5, 23)
    month = named_period("What did Ana donate in December 2023?")
    assert month is not None and (month.first, month.last) == (
        date(2023, 12, 1),
        date(2023, 12, 31),
    )
    june = named_period("When did Ana go camping in June?")
    assert june is not None and (june.month, june.first, june.words) == (6, None, {"june"})


def test_may_and_march_are_months_only_beside_a_day_or_a_year() -> None:
    """ "what may she do" and "did they march" name no period; "May 3" does; a day that is
    not a date ("February 30, 2023") names none; nor does a query without a month."""
    assert named_period("What may Ana do next?") is None
    assert named_period("Did they march downtown?") is None
    may = named_period("Who did Ana meet on May 3?")
    assert may is not None and may.month == 5
    assert named_period("What happened on February 30, 2023?") is None
    assert named_period("What did Ana paint?") is None


def test_a_candidate_said_within_slack_days_holds_the_period() -> None:
    """A day holds from SLACK_DAYS before to SLACK_DAYS after; a month of any year holds a
    time within SLACK_DAYS of that month, whatever its year; no time holds nothing."""
    day = named_period("on 10 April 2023")
    assert day is not None and SLACK_DAYS == 3
    assert day.holds(at(2023, 4, 7)) and day.holds(at(2023, 4, 13))
    assert not day.holds(at(2023, 4, 6)) and not day.holds(at(2023, 4, 14))
    june = named_period("in June")
    assert june is not None
    assert june.holds(at(2021, 6, 15)) and june.holds(at(2023, 7, 2))
    assert not june.holds(at(2023, 7, 5)) and not june.holds(None)


def test_what_was_said_in_the_named_period_outranks_the_same_words_said_later() -> None:
    """Two messages about the same painting, as near to the query: the one said on the
    named day ranks first, and its lexical evidence counts the period as a term it holds
    (the date's words are not asked of the text, which never writes them)."""
    early = said("e1", 0.7, "Ana: I painted a sunset by the lake", 0.7, "m1", seq=1)
    late = said("e2", 0.7, "Ana: I painted a sunset again", 0.7, "m2", seq=9)
    early = replace(early, episode=replace(early.episode, said_at=at(2023, 10, 13)))
    late = replace(late, episode=replace(late.episode, said_at=at(2023, 11, 20)))
    q = "What did Ana paint on October 13, 2023?"
    out = fuse(q, ([], []), ([late, early], []), 10, True)
    assert [f.id for f in out] == ["e1", "e2"]
    assert out[0].lexical == 1.0 and 0 < out[1].lexical < 1.0
    assert WHEN.startswith("@")  # no word of a text stems to it
    plain = fuse("What did Ana paint?", ([], []), ([late, early], []), 10, True)
    assert plain[0].score == plain[1].score
