"""Health, habits, hobbies taken up, a new job, and values said without "my" (issue 12).

CONTRACT §3 (health is privileged: proposed, and held for a yes) and §4 (the deterministic
extractor). Sentences here are written for these tests.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from committer.proposals import Proposal
from curator.extract import extract_message, extract_run
from curator.policy import Context, decide

# Wednesday 2024-07-03 12:00 UTC.
AT = datetime(2024, 7, 3, 12, 0, tzinfo=UTC)
CTX = Context(
    owner="dana", speaker=None, threshold=0.8,
    privileged=frozenset({"health", "finances", "credentials"}),
)  # fmt: skip


def d(y: int, m: int, day: int) -> datetime:
    return datetime(y, m, day, tzinfo=UTC)


def mine(text: str) -> list[Proposal]:
    return extract_message(text, at=AT, speaker=None, message_id="m1", run_id="run-1")


def facts(text: str) -> list[tuple[object, ...]]:
    """(op, attribute, value, valid_from) of each proposal."""
    return [(p.op, p.attribute, p.value, p.valid_from) for p in mine(text)]


# --- health ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I was diagnosed with celiac disease last year.",
         [("condition", "celiac disease", d(2023, 1, 1))]),
        ("I got diagnosed with ADHD two months ago.", [("condition", "ADHD", d(2024, 5, 1))]),
        ("I'm allergic to peanuts.", [("allergy", "peanuts", AT)]),
        ("I'm allergic to cats and most furry animals, sadly.",
         [("allergy", "cats", AT), ("allergy", "most furry animals", AT)]),
        ("I found out recently that I'm allergic to dust mites.",
         [("allergy", "dust mites", AT)]),
        ("I have a severe shellfish allergy.", [("allergy", "shellfish", AT)]),
        ("I have asthma, so cold runs are rough.", [("condition", "asthma", AT)]),
        ("I've had type 1 diabetes since I was a kid.", [("condition", "type 1 diabetes", AT)]),
        ("I'm lactose intolerant.", [("condition", "lactose intolerance", AT)]),
        ("I broke my wrist skiing last week.", [("condition", "broken wrist", d(2024, 6, 24))]),
    ],
)  # fmt: skip
def test_health_is_heard(text: str, expected: list[tuple[object, ...]]) -> None:
    """Diagnoses, allergies, conditions and injuries are proposed, dated when dated."""
    assert [f[1:] for f in facts(text)] == expected


@pytest.mark.parametrize(
    "text",
    [
        "I was diagnosed with celiac disease last year.",
        "I'm allergic to peanuts.",
        "I have asthma.",
        "Remember that I'm allergic to shellfish.",
    ],
)
def test_health_is_held_for_a_yes(text: str) -> None:
    """The privileged rule of the risk table holds every health proposal (CONTRACT §3)."""
    found = mine(text)
    assert found and all(decide(p, CTX).name == "privileged category" for p in found)
    assert all(decide(p, CTX).action == "hold" for p in found)


@pytest.mark.parametrize(
    "text",
    [
        "I'm allergic to drama, honestly.",
        "My friend is allergic to bees.",
        "If I were allergic to cats I'd be in trouble.",
        "Were you ever diagnosed with anything?",
        "I have really bad anxiety before exams.",
    ],
)
def test_no_health_from_jokes_others_or_questions(text: str) -> None:
    """A figure of speech, someone else, a hypothesis or a question is no health fact."""
    assert [f for f in facts(text) if f[1] in ("condition", "allergy")] == []


# --- habits ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I go swimming every morning before work.", [("assert", "habit", "swimming", AT)]),
        ("I meditate every night before bed.", [("assert", "habit", "meditating", AT)]),
        ("I run five kilometers every Sunday.",
         [("assert", "habit", "running five kilometers", AT)]),
        ("I do my physio exercises every day now.",
         [("assert", "habit", "doing physio exercises", AT)]),
        ("We go to the market every Saturday morning.",
         [("assert", "habit", "going to the market", AT)]),
        ("Every morning I walk the dog.", [("assert", "habit", "walking the dog", AT)]),
        ("I stopped eating meat in May.", [("end", "habit", "eating meat", d(2024, 5, 1))]),
        ("I switched from coffee to green tea last month.",
         [("end", "habit", "drinking coffee", d(2024, 6, 1)),
          ("assert", "habit", "drinking green tea", d(2024, 6, 1))]),
        ("I switched from running to cycling because of my knees.",
         [("end", "habit", "running", AT), ("assert", "habit", "cycling", AT)]),
        ("I replaced soda with sparkling water.",
         [("end", "habit", "drinking soda", AT),
          ("assert", "habit", "drinking sparkling water", AT)]),
    ],
)  # fmt: skip
def test_habits_their_ends_and_replacements(text: str, expected: list[tuple[object, ...]]) -> None:
    """A habit is what is done, without how often, so "I stopped ..." ends it."""
    assert facts(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "I used to go running every morning.",
        "Every morning I wonder why I signed up for this.",
        "You should stretch every morning.",
        "We meet every Friday at the pub, want to come?",
        "I practice and train every day to stay in shape.",
        "Yeah, we go a few times a week.",
        "I switched my major to biology.",
    ],
)
def test_no_habit_from_the_past_thoughts_advice_or_questions(text: str) -> None:
    """A past habit, a thought, advice, a question or two verbs make no habit."""
    assert [f for f in facts(text) if f[1] == "habit"] == []


# --- hobbies taken up --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I started playing the mandolin about four years ago.", ("mandolin", d(2020, 1, 1))),
        ("I started skateboarding six years ago.", ("skateboarding", d(2018, 1, 1))),
        ("I took up knitting last winter.", ("knitting", d(2023, 12, 1))),
        ("I've just started learning Japanese.", ("Japanese", AT)),
        ("I've been learning to play the drums since January.", ("drums", d(2024, 1, 1))),
        ("I picked up the guitar again after a long break.", ("guitar", AT)),
        ("I just started agility training with my dogs.", ("agility training", AT)),
        ("I just started volunteering at an animal shelter once a month.",
         ("volunteering at an animal shelter", AT)),
        ("I started going to spin classes last month.", ("going to spin classes", d(2024, 6, 1))),
    ],
)  # fmt: skip
def test_hobbies_taken_up_are_practiced(text: str, expected: tuple[object, ...]) -> None:
    """A pastime taken up is `practices`, from when it started."""
    assert [(v, f) for _, a, v, f in facts(text) if a == "practices"] == [expected]


@pytest.mark.parametrize(
    "text",
    [
        "I started to think it was a bad idea.",
        "I started crying when I saw the photos.",
        "I started feeling better after a few days.",
        "I started writing a novel.",
        "I picked up my kids from school.",
        "I wish I had started learning piano earlier.",
    ],
)
def test_no_hobby_from_moods_tasks_or_wishes(text: str) -> None:
    """A mood, a task under way, an errand or a wish is no pastime."""
    assert [f for f in facts(text) if f[1] == "practices"] == []


# --- a new job -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I started my new job at Lumen Labs last week.",
         [("employer", "Lumen Labs", d(2024, 6, 24))]),
        ("Yesterday was my first day at Hollis & Co.",
         [("employer", "Hollis & Co", d(2024, 7, 2))]),
        ("I joined Brightwave as a junior developer two weeks ago.",
         [("employer", "Brightwave", d(2024, 6, 17)),
          ("occupation", "junior developer", d(2024, 6, 17))]),
        ("I landed a job as a sous chef at Marrow.",
         [("occupation", "sous chef", AT), ("employer", "Marrow", AT)]),
        ("I'm now a full-time nurse at St. Luke's.",
         [("occupation", "full-time nurse", AT), ("employer", "St. Luke's", AT)]),
        ("I accepted an offer from Kestrel Health, I start in September.",
         [("employer", "Kestrel Health", d(2024, 9, 1))]),
    ],
)  # fmt: skip
def test_a_new_job_gives_employer_and_occupation(
    text: str, expected: list[tuple[object, ...]]
) -> None:
    """A new job or role is `employer`/`occupation` from when it starts."""
    assert [f[1:] for f in facts(text)] == expected


# --- values said without "my" ------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("I started my own online clothing store not so long ago.", "online clothing store"),
        ("I'm living my dream by running my own bike repair shop.", "bike repair shop"),
        ("I'm working on my own podcast about local history.", "podcast about local history"),
        ("I launched our own candle business.", "candle business"),
    ],
)
def test_values_drop_possessives_and_own(text: str, value: str) -> None:
    """ "my own online clothing store" is "online clothing store" (issue 12)."""
    assert [f[2] for f in facts(text) if f[1] == "works_on"] == [value]


def test_one_store_named_twice_in_a_run_is_proposed_once() -> None:
    """ "my own online store" and later "our online store": one open state, one proposal."""
    messages = [
        {"role": "user", "text": "I opened my own online store.", "at": AT},
        {"role": "user", "text": "I'm working on our online store.", "at": d(2024, 7, 4)},
    ]
    found = [(p.attribute, p.value) for p in extract_run(messages, "run-1")]
    assert found == [("works_on", "online store")]
