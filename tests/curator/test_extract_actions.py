"""Past actions, acquisitions, visits and life events, dated by their clause (issue 12).

CONTRACT §4: a past action becomes an event or a fact on the speaker, dated by the time
expression that governs its clause. Sentences here are written for these tests, the
issue's regression cases among them in our own words.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from committer.proposals import Proposal
from curator.extract import extract_message

# Wednesday 2024-07-03 12:00 UTC.
AT = datetime(2024, 7, 3, 12, 0, tzinfo=UTC)
TODAY, TOMORROW = datetime(2024, 7, 3, tzinfo=UTC), datetime(2024, 7, 4, tzinfo=UTC)


def d(y: int, m: int, day: int) -> datetime:
    return datetime(y, m, day, tzinfo=UTC)


def mine(text: str) -> list[Proposal]:
    return extract_message(text, at=AT, speaker=None, message_id="m1", run_id="run-1")


def facts(text: str) -> list[tuple[object, ...]]:
    """(attribute, value or @object, valid_from, valid_to) of each proposal."""
    return [
        (p.attribute, f"@{p.object.name}" if p.object else p.value, p.valid_from, p.valid_to)
        for p in mine(text)
    ]


# --- the issue's regression cases, in our own words -------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I picked up a second-hand telescope at a flea market.",
         [("owns", "second-hand telescope", AT, None)]),
        ("I signed up for a pottery class yesterday.",
         [("member_of", "pottery class", d(2024, 7, 2), None)]),
        ("I just started learning the cello, my fingers hurt!",
         [("practices", "cello", AT, None)]),
        ("Last weekend I tried that new ramen place near the station.",
         [("participated_in", "tried new ramen place near the station", d(2024, 6, 29),
           d(2024, 7, 1))]),
        ("I took the kids to the lake on Sunday.",
         [("participated_in", "lake", d(2024, 6, 30), d(2024, 7, 1))]),
        ("Lisbon two years ago was the best trip I've had.",
         [("visited", "Lisbon", d(2022, 1, 1), d(2023, 1, 1))]),
        ("That's the church where we got married.",
         [("relationship_status", "married", AT, None)]),
        ("My grandmother passed away three days ago.",
         [("family", "grandmother", AT, None),
          ("life_event", "grandmother passed away", d(2024, 6, 30), d(2024, 7, 1))]),
    ],
)  # fmt: skip
def test_the_issue_s_regression_cases(text: str, expected: list[tuple[object, ...]]) -> None:
    """Each statement the issue lists is heard, dated by its own time expression."""
    assert facts(text) == expected


# --- events --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I took my family camping by the river last week.",
         ("participated_in", "camping by the river", d(2024, 6, 24), d(2024, 7, 1))),
        ("Some friends and I took a bouldering class on Sunday.",
         ("participated_in", "bouldering class", d(2024, 6, 30), d(2024, 7, 1))),
        ("I finally finished my first novel draft last Friday.",
         ("participated_in", "finished first novel draft", d(2024, 6, 28), d(2024, 6, 29))),
        ("I recently finished rereading \"Dune\".",
         ("participated_in", "finished rereading Dune", TODAY, TOMORROW)),
        ("I won my first chess tournament last week.",
         ("participated_in", "won first chess tournament", d(2024, 6, 24), d(2024, 7, 1))),
        ("I ran my first half marathon on Sunday.",
         ("participated_in", "ran first half marathon", d(2024, 6, 30), d(2024, 7, 1))),
        ("I've signed up for a sourdough workshop next month.",
         ("participated_in", "sourdough workshop", d(2024, 8, 1), d(2024, 9, 1))),
        ("I enrolled in an evening Spanish course last week.",
         ("member_of", "evening Spanish course", d(2024, 6, 24), None)),
        ("Just yesterday I joined a church in my neighborhood.",
         ("member_of", "church in my neighborhood", d(2024, 7, 2), None)),
        ("I got into the exchange program in Madrid!",
         ("member_of", "exchange program in Madrid", AT, None)),
        ("I met Ines at the climbing gym yesterday.", ("knows", "@Ines", d(2024, 7, 2), None)),
        ("We had a baby girl two weeks ago.",
         ("life_event", "had a baby girl", d(2024, 6, 17), d(2024, 6, 24))),
        ("Our second child was born on Tuesday!",
         ("life_event", "second child was born", d(2024, 7, 2), d(2024, 7, 3))),
        ("We got engaged on the beach last weekend!",
         ("relationship_status", "engaged", d(2024, 6, 29), None)),
    ],
)  # fmt: skip
def test_past_actions_are_events_or_facts(text: str, expected: tuple[object, ...]) -> None:
    """An action is dated by its clause's time expression: a window for an event, a start
    for a state it begins."""
    assert facts(text) == [expected]


def test_an_undated_event_is_the_message_day_and_held() -> None:
    """Without a time expression an event covers the message's day, below the threshold."""
    [p] = mine("I took a screenwriting class recently.")
    assert (p.valid_from, p.valid_to, p.provenance.confidence) == (TODAY, TOMORROW, 0.7)


# --- acquisitions ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I bought a used camper van last month.", ("used camper van", d(2024, 6, 1))),
        ("We bought a sailboat in April.", ("sailboat", d(2024, 4, 1))),
        ("I finally got a new bike, a bright orange one.", ("bike", AT)),
        ("I got a kayak for my birthday.", ("kayak", AT)),
        ("Yesterday I bought a vintage film camera at a garage sale.",
         ("vintage film camera", d(2024, 7, 2))),
        ("These little clay birds I bought yesterday make me smile.",
         ("little clay birds", d(2024, 7, 2))),
        ("We bought our first flat in Leeds in March.", ("first flat in Leeds", d(2024, 3, 1))),
    ],
)  # fmt: skip
def test_acquisitions_are_owned_from_then_on(text: str, expected: tuple[object, ...]) -> None:
    """What one buys and keeps is `owns`, from the purchase on."""
    assert [(v, f) for a, v, f, _ in facts(text) if a == "owns"] == [expected]


@pytest.mark.parametrize(
    "text",
    [
        "I bought some groceries and went home.",
        "I bought tickets for the concert yesterday.",
        "I bought it on a whim.",
        "I got a text from my landlord.",
        "I bought a necklace for my sister.",
        "I bought my dad a scarf.",
        "I picked up a few new recipes.",
        "If I had the money I'd buy a boat.",
        "This is the restaurant where we got married.",
    ],
)
def test_errands_gifts_and_wishes_are_not_owned(text: str) -> None:
    """Consumables, gifts, pronouns and wishes own nothing."""
    assert [f for f in facts(text) if f[0] == "owns"] == []


# --- visits ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Took a short trip last week to Vienna.", ("Vienna", d(2024, 6, 24), d(2024, 7, 1))),
        ("We flew to Tokyo in April.", ("Tokyo", d(2024, 4, 1), d(2024, 5, 1))),
        ("I took that photo on my trip to the Dolomites last year.",
         ("the Dolomites", d(2023, 1, 1), d(2024, 1, 1))),
        ("I visited Kyoto two weeks ago.", ("Kyoto", d(2024, 6, 17), d(2024, 6, 24))),
        ("We spent a week in Crete in April.", ("Crete", d(2024, 4, 1), d(2024, 5, 1))),
        ("I went to Paris for a conference in April.", ("Paris", d(2024, 4, 1), d(2024, 5, 1))),
        ("I just got back from Morocco!", ("Morocco", TODAY, TOMORROW)),
    ],
)  # fmt: skip
def test_named_places_are_visited(text: str, expected: tuple[object, ...]) -> None:
    """A named destination is `visited`, within the clause's past period."""
    assert [(v, f, t) for a, v, f, t in facts(text) if a == "visited"] == [expected]
    assert [f for f in facts(text) if f[0] == "participated_in"] == []


@pytest.mark.parametrize(
    "text",
    [
        "My trip to Iceland next spring is booked.",
        "I'm planning a trip to Rome.",
        "I'd love to visit Japan one day.",
        "Did you ever go to Lisbon?",
        "I went to the Harry Potter festival last week.",
        "I visited Sarah on Sunday.",
    ],
)
def test_plans_wishes_questions_and_people_are_no_visits(text: str) -> None:
    """Only a past visit to a place: not a plan, a wish, a question, an event, a person."""
    assert [f for f in facts(text) if f[0] == "visited"] == []


@pytest.mark.parametrize(
    "text",
    [
        "I won't give up, no matter what!",
        "I got the idea from a travel magazine.",
        "I took it at the lake last month.",
        "I tried to stay calm and called for help.",
        "I took a deep breath and kept going.",
        "I met some investors and got good feedback.",
        "I finished it in one sitting!",
        "I went to the dentist yesterday.",
        "I started the car and drove off.",
        "Have you tried the new bakery on the corner?",
    ],
)
def test_chatter_states_no_action(text: str) -> None:
    """Figures of speech, pronouns, errands and questions propose nothing."""
    assert facts(text) == []
