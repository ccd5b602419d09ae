"""A period the query names is evidence of when a candidate was said (api/chat/when.py, used
by api/chat/search.py; CONTRACT §6 "Pull", §12), no database."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from api.chat.search import fuse
from api.chat.when import SLACK_DAYS, WHEN, named_period
from tests.api.test_search_fusion import said

NOW = datetime(2026, 12, 2, 9, tzinfo=UTC)
"""The search's valid time in these tests (a Wednesday)."""


def at(y: int, m: int, d: int) -> datetime:
    """Noon UTC of a day."""
    return datetime(y, m, d, 12, tzinfo=UTC)


def midnight(y: int, m: int, d: int) -> datetime:
    """Midnight UTC starting a day."""
    return datetime(y, m, d, tzinfo=UTC)


def test_a_day_a_month_and_a_relative_period_are_read_as_the_curator_reads_them() -> None:
    """ "1 February, 2023" and "May 23rd, 2023" are days, "December 2023" a month, "in
    June" the latest June before the search's valid time, "last weekend" the weekend
    before it; the period's words are the query's (folded)."""
    day = named_period("What did Ana find for her shop on 1 February, 2023?", NOW)
    assert day is not None and (day.start, day.end) == (midnight(2023, 2, 1), midnight(2023, 2, 2))
    assert {"february", "2023"} <= day.words
    other = named_period("What was Ana accepted for on May 23rd, 2023?", NOW)
    assert other is not None and other.start == midnight(2023, 5, 23)
    month = named_period("What did Ana donate in December 2023?", NOW)
    assert month is not None and (month.start, month.end) == (
        midnight(2023, 12, 1),
        midnight(2024, 1, 1),
    )
    june = named_period("When did Ana go camping in June?", NOW)
    assert june is not None and june.start == midnight(2026, 6, 1)
    weekend = named_period("What did Ana cook last weekend?", NOW)
    assert weekend is not None and weekend.start == midnight(2026, 11, 28)


def test_a_query_without_a_bounded_period_names_none() -> None:
    """No time words, or an open one ("since May"): no period, so no extra term."""
    assert named_period("What did Ana paint?", NOW) is None
    assert named_period("What may Ana do next?", NOW) is None
    assert named_period("Where has Ana lived since May?", NOW) is None


def test_a_candidate_said_within_slack_days_holds_the_period() -> None:
    """A day holds from SLACK_DAYS before it to SLACK_DAYS after it; no time holds nothing."""
    day = named_period("on 10 April 2023", NOW)
    assert day is not None and SLACK_DAYS == 3
    assert day.holds(at(2023, 4, 7)) and day.holds(at(2023, 4, 13))
    assert not day.holds(at(2023, 4, 6)) and not day.holds(at(2023, 4, 14))
    assert not day.holds(None)


def test_what_was_said_in_the_named_period_outranks_the_same_words_said_later() -> None:
    """Two messages about the same painting, as near to the query: the one said on the
    named day ranks first, and its lexical evidence counts the period as a term it holds
    (the date's words are not asked of the text, which never writes them). Without the
    search's valid time, or without a period in the query, the two tie."""
    early = said("e1", 0.7, "Ana: I painted a sunset by the lake", 0.7, "m1", seq=1)
    late = said("e2", 0.7, "Ana: I painted a sunset again", 0.7, "m2", seq=9)
    early = replace(early, episode=replace(early.episode, said_at=at(2023, 10, 13)))
    late = replace(late, episode=replace(late.episode, said_at=at(2023, 11, 20)))
    q = "What did Ana paint on October 13, 2023?"
    out = fuse(q, ([], []), ([late, early], []), 10, True, NOW)
    assert [f.id for f in out] == ["e1", "e2"]
    assert out[0].lexical == 1.0 and 0 < out[1].lexical < 1.0
    assert WHEN.startswith("@")  # no word of a text stems to it
    plain = fuse("What did Ana paint?", ([], []), ([late, early], []), 10, True, NOW)
    assert plain[0].score == plain[1].score
    unread = fuse(q, ([], []), ([late, early], []), 10, True)
    assert unread[0].score == unread[1].score
