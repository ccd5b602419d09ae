"""Relative times resolve against the message timestamp into valid-time windows (CONTRACT §4)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from curator.timeparse import day_start, day_window, find_all, resolve
from graph.errors import NaiveTimestamp

# Monday 2023-05-08 13:56 UTC: the reference message time of the table below.
AT = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def d(y: int, m: int, day: int) -> datetime:
    return datetime(y, m, day, tzinfo=UTC)


@pytest.mark.parametrize(
    ("sentence", "start", "end", "text"),
    [
        ("I went there yesterday", d(2023, 5, 7), d(2023, 5, 8), "yesterday"),
        ("it is raining today", d(2023, 5, 8), d(2023, 5, 9), "today"),
        ("we're out tonight", d(2023, 5, 8), d(2023, 5, 9), "tonight"),
        ("I slept badly last night", d(2023, 5, 7), d(2023, 5, 8), "last night"),
        ("I ran a race last Saturday", d(2023, 5, 6), d(2023, 5, 7), "last Saturday"),
        ("I went to a reading last Fri", d(2023, 5, 5), d(2023, 5, 6), "last Fri"),
        ("we hiked last weekend", d(2023, 5, 6), d(2023, 5, 8), "last weekend"),
        ("we hiked this weekend", d(2023, 5, 6), d(2023, 5, 8), "this weekend"),
        ("we hiked over the weekend", d(2023, 5, 6), d(2023, 5, 8), "over the weekend"),
        ("it happened two days ago", d(2023, 5, 6), d(2023, 5, 7), "two days ago"),
        ("it happened 2 days ago", d(2023, 5, 6), d(2023, 5, 7), "2 days ago"),
        ("it happened a few days ago", d(2023, 5, 5), d(2023, 5, 6), "a few days ago"),
        ("a couple of days ago", d(2023, 5, 6), d(2023, 5, 7), "a couple of days ago"),
        ("3 weeks ago", d(2023, 4, 17), d(2023, 4, 24), "3 weeks ago"),
        ("two months ago", d(2023, 3, 1), d(2023, 4, 1), "two months ago"),
        ("a few years back", d(2020, 1, 1), d(2021, 1, 1), "a few years back"),
        ("busy this month", d(2023, 5, 1), d(2023, 6, 1), "this month"),
        ("I moved last month", d(2023, 4, 1), d(2023, 5, 1), "last month"),
        ("it was last week", d(2023, 5, 1), d(2023, 5, 8), "last week"),
        ("all of this week", d(2023, 5, 8), d(2023, 5, 15), "this week"),
        ("since last year", d(2022, 1, 1), None, "since last year"),
        ("last year was hard", d(2022, 1, 1), d(2023, 1, 1), "last year"),
        ("I've lived here since May", d(2023, 5, 1), None, "since May"),
        ("we married in 2019", d(2019, 1, 1), d(2020, 1, 1), "in 2019"),
        ("since 2016", d(2016, 1, 1), None, "since 2016"),
        ("it opened on 8 May", d(2023, 5, 8), d(2023, 5, 9), "on 8 May"),
        ("on May 2nd", d(2023, 5, 2), d(2023, 5, 3), "on May 2nd"),
        ("the 3rd of March, 2021", d(2021, 3, 3), d(2021, 3, 4), "the 3rd of March, 2021"),
        ("it was in April", d(2023, 4, 1), d(2023, 5, 1), "in April"),
        ("last summer", d(2022, 6, 1), d(2022, 9, 1), "last summer"),
        ("I'm moving next month", d(2023, 6, 1), d(2023, 7, 1), "next month"),
        ("tomorrow then", d(2023, 5, 9), d(2023, 5, 10), "tomorrow"),
        ("in two weeks", d(2023, 5, 22), d(2023, 5, 29), "in two weeks"),
    ],
)
def test_resolves_expression(sentence: str, start: datetime, end: datetime | None, text: str):
    """Each expression resolves to the expected half-open UTC window and reports its span."""
    w = resolve(sentence, AT)
    assert w is not None
    assert (w.start, w.end, w.text) == (start, end, text)
    assert sentence[w.span[0] : w.span[1]] == text


def test_since_is_open_and_marked():
    """'since May' opens at the latest May 1st not after the message, with an open end."""
    w = resolve("I have been vegan since May", datetime(2023, 3, 2, tzinfo=UTC))
    assert w is not None and w.kind == "since"
    assert (w.start, w.end) == (d(2022, 5, 1), None)


def test_duration_opens_n_units_before():
    """'for 3 years' opens three years before the message day, still open."""
    w = resolve("I've lived in Porto for 3 years", AT)
    assert w is not None and w.kind == "duration"
    assert (w.start, w.end) == (d(2020, 5, 8), None)


def test_date_without_year_prefers_the_past():
    """A day and month without a year is the latest one on or before the message day."""
    w = resolve("on 9 May", AT)
    assert w is not None and w.start == d(2022, 5, 9)


def test_future_preference_looks_forward():
    """With prefer='future', 'on Friday', 'in May' and '9 May' point forward."""
    friday = resolve("on Friday", AT, prefer="future")
    may = resolve("in June", AT, prefer="future")
    day = resolve("on 7 May", AT, prefer="future")
    assert friday is not None and friday.start == d(2023, 5, 12)
    assert may is not None and may.start == d(2023, 6, 1)
    assert day is not None and day.start == d(2024, 5, 7)


def test_past_weekday_is_before_today():
    """'on Friday' in the past is the latest Friday strictly before the message day."""
    friday = datetime(2023, 5, 12, 9, tzinfo=UTC)
    w = resolve("I went on Friday", friday)
    assert w is not None and w.start == d(2023, 5, 5)


def test_this_weekend_on_a_saturday_is_today():
    """Said on a Saturday, 'this weekend' is that Saturday and Sunday."""
    w = resolve("this weekend", datetime(2023, 5, 13, 10, tzinfo=UTC))
    assert w is not None and (w.start, w.end) == (d(2023, 5, 13), d(2023, 5, 15))


def test_month_names_need_capitals_and_context():
    """'may' the verb and a bare 'May' without a preposition are not times."""
    assert resolve("May I ask you something?", AT) is None
    assert resolve("it may rain in the afternoon", AT) is None


def test_no_expression_gives_none():
    """A sentence without a time expression resolves to None."""
    assert resolve("I love hiking with my dog", AT) is None


def test_find_all_orders_and_prefers_longest():
    """Expressions come back in text order; an overlapping shorter one is dropped."""
    found = find_all("Last week I ran, and the day before yesterday I swam", AT)
    assert [w.text for w in found] == ["Last week", "the day before yesterday"]


def test_other_offsets_keep_the_speakers_day():
    """At 01:00+02:00 on May 9 the speaker's "today" is May 9 local: from 22:00Z on May 8."""
    at = datetime(2023, 5, 9, 1, 0, tzinfo=timezone(timedelta(hours=2)))
    w = resolve("today", at)
    assert w is not None and w.start == datetime(2023, 5, 8, 22, 0, tzinfo=UTC)
    assert w.end == datetime(2023, 5, 9, 22, 0, tzinfo=UTC)


def test_naive_at_is_rejected():
    """A naive timestamp is an error, not a guess (CONTRACT §2)."""
    with pytest.raises(NaiveTimestamp):
        resolve("yesterday", datetime(2023, 5, 8))


def test_day_window_is_the_message_day():
    """`day_window` is [midnight, next midnight) UTC around the instant."""
    assert day_window(AT) == (d(2023, 5, 8), d(2023, 5, 9))
    assert day_start(AT) == d(2023, 5, 8)


PAST_EXPRESSIONS = [
    "yesterday", "last night", "last Saturday", "last Sunday", "last weekend", "two days ago",
    "a few days ago", "3 weeks ago", "a couple of months ago", "5 years ago", "last week",
    "last month", "last year", "last summer", "last winter", "on Friday", "in May",
    "on 8 May", "since May", "since last year", "the day before yesterday", "over the weekend",
]  # fmt: skip
CURRENT_EXPRESSIONS = ["today", "tonight", "this week", "this month", "this year"]
FUTURE_EXPRESSIONS = ["tomorrow", "next week", "next month", "next year", "in 3 days"]

instants = st.datetimes(
    min_value=datetime(1990, 1, 1), max_value=datetime(2090, 12, 31), timezones=st.just(UTC)
)


@pytest.mark.slow
@given(at=instants, expression=st.sampled_from(PAST_EXPRESSIONS))
def test_past_expressions_start_no_later_than_at(at: datetime, expression: str):
    """A past expression's window is well formed, on midnights, and contains or precedes `at`."""
    w = resolve(f"it happened {expression}", at)
    assert w is not None
    assert w.start <= at
    assert w.end is None or w.start < w.end
    assert w.end is None or w.end <= day_start(at) + timedelta(days=1) or at < w.end
    assert w.start == day_start(w.start)
    assert w.end is None or w.end == day_start(w.end)


@pytest.mark.slow
@given(at=instants, expression=st.sampled_from(CURRENT_EXPRESSIONS))
def test_current_expressions_contain_at(at: datetime, expression: str):
    """'today', 'this month' ... contain the message instant."""
    w = resolve(expression, at)
    assert w is not None and w.end is not None
    assert w.start <= at < w.end


@pytest.mark.slow
@given(at=instants, expression=st.sampled_from(FUTURE_EXPRESSIONS))
def test_future_expressions_start_after_today(at: datetime, expression: str):
    """'tomorrow', 'next month' ... start after the message day."""
    w = resolve(expression, at, prefer="future")
    assert w is not None and w.end is not None
    assert w.is_future(at) and w.start < w.end


@pytest.mark.slow
@given(at=instants, expression=st.sampled_from(PAST_EXPRESSIONS + FUTURE_EXPRESSIONS))
def test_resolution_is_deterministic(at: datetime, expression: str):
    """The same sentence and instant always give the same window."""
    assert resolve(expression, at) == resolve(expression, at)


def test_relative_days_are_the_speakers_local_days() -> None:
    """Regression: "yesterday" was taken from the UTC date, not the message's own date."""
    tokyo = datetime(2024, 3, 10, 8, 0, tzinfo=timezone(timedelta(hours=9)))  # 2024-03-09T23:00Z
    w = resolve("I moved to Osaka yesterday.", tokyo)
    assert w is not None and w.start == datetime(2024, 3, 9, tzinfo=timezone(timedelta(hours=9)))
    assert w.end == datetime(2024, 3, 10, tzinfo=timezone(timedelta(hours=9)))
    denver = datetime(2024, 3, 10, 20, 0, tzinfo=timezone(timedelta(hours=-7)))  # 2024-03-11T03:00Z
    w = resolve("I moved to Denver yesterday.", denver)
    assert w is not None and w.start == datetime(2024, 3, 9, tzinfo=timezone(timedelta(hours=-7)))
