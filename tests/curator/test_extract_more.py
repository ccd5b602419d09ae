"""Endings, changes, other people, memory requests, assistant preferences, secrets (issue 3).

CONTRACT §2.1 (an ending or a change is dated by when it happened), §3 (proposals;
credentials are never proposed) and §4 (the deterministic extractor). Sentences here are
written for these tests.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from committer.proposals import EntityRef, Proposal
from committer.secrets import looks_secret
from curator.extract import extract_message

# Wednesday 2024-07-03 12:00 UTC.
AT = datetime(2024, 7, 3, 12, 0, tzinfo=UTC)


def d(y: int, m: int, day: int) -> datetime:
    return datetime(y, m, day, tzinfo=UTC)


def mine(text: str) -> list[Proposal]:
    return extract_message(text, at=AT, speaker=None, message_id="m1", run_id="run-1")


def shape(p: Proposal) -> tuple[object, ...]:
    """(op, subject name, attribute, value or @object, valid_from)."""
    value = f"@{p.object.name}" if p.object else p.value
    return (p.op, p.subject.name, p.attribute, value, p.valid_from)


def shapes(text: str) -> list[tuple[object, ...]]:
    return [shape(p) for p in mine(text)]


# --- endings ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I stopped drinking green tea last month.",
         ("end", None, "habit", "drinking green tea", d(2024, 6, 1))),
        ("I no longer work at Acme.", ("end", None, "employer", "Acme", AT)),
        ("I don't work at the bakery anymore.", ("end", None, "employer", "bakery", AT)),
        ("I don't live in Oslo anymore.", ("end", None, "location", "Oslo", AT)),
        ("I'm not into podcasts anymore.", ("end", None, "likes", "podcasts", AT)),
        ("I'm not a teacher anymore.", ("end", None, "occupation", "teacher", AT)),
        ("We broke up last week.", ("end", None, "partner_of", None, d(2024, 6, 24))),
        ("I left the chess club in May.", ("end", None, "member_of", "chess club", d(2024, 5, 1))),
        ("I quit smoking in January.", ("end", None, "habit", "smoking", d(2024, 1, 1))),
        ("I don't eat meat anymore.", ("end", None, "habit", "eating meat", AT)),
        ("I sold my car yesterday.", ("end", None, "owns", "car", d(2024, 7, 2))),
        ("I stopped working on the podcast.", ("end", None, "works_on", "podcast", AT)),
    ],
)  # fmt: skip
def test_endings_end_the_earlier_fact_when_it_ended(text: str, expected: tuple[object, ...]):
    """An ending proposes op="end" of the earlier value, valid from when it ended."""
    assert shapes(text) == [expected]


@pytest.mark.parametrize(
    "text",
    [
        "I'm not a nurse.",
        "I don't live in Oslo.",
        "I don't work at Acme, my brother does.",
        "I stopped by the shop.",
        "I gave up hope.",
        "We split up the bill.",
    ],
)
def test_plain_negations_are_not_endings(text: str):
    """Without "anymore" or "no longer" a negation says nothing about before."""
    assert [p for p in mine(text) if p.op == "end"] == []


def test_breakup_asserts_no_partner():
    """'My boyfriend and I broke up' ends partner_of and does not assert a boyfriend."""
    assert shapes("My boyfriend and I broke up.") == [("end", None, "partner_of", None, AT)]


def test_a_pet_that_died_is_ended_not_asserted():
    """'my dog Rex died' ends pet 'Rex (dog)' and does not propose it as current."""
    assert shapes("My dog Rex died on Monday.") == [
        ("end", None, "pet", "Rex (dog)", d(2024, 7, 1))
    ]


# --- moves and changes -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I switched to the night shift last week.", ("shift", "night", d(2024, 6, 24))),
        ("I'm on the day shift now.", ("shift", "day", AT)),
        ("I went vegan last month.", ("diet", "vegan", d(2024, 6, 1))),
        ("I became a vegetarian in March.", ("diet", "vegetarian", d(2024, 3, 1))),
        ("I've moved to Osaka.", ("location", "Osaka", AT)),
        ("We moved into a new flat in Leeds last month.", ("location", "Leeds", d(2024, 6, 1))),
        ("We moved from Austin to Denver in May.", ("location", "Denver", d(2024, 5, 1))),
        ("I got promoted to team lead yesterday.", ("occupation", "team lead", d(2024, 7, 2))),
        ("I started a new job as a paramedic.", ("occupation", "paramedic", AT)),
        ("I changed my name to Alex.", ("name", "Alex", AT)),
        ("I've been on the late shift since Monday.", ("shift", "late", d(2024, 7, 1))),
    ],
)
def test_changes_assert_the_new_value_from_the_change(text: str, expected: tuple[object, ...]):
    """A change asserts the new value of a `one` attribute from when it changed."""
    assert [(p.attribute, p.value, p.valid_from) for p in mine(text)] == [expected]


def test_a_move_without_a_place_is_nothing():
    """'We got a new house' names no place: no location, only the house owned (issue 12)."""
    found = mine("We got a new house with a big garden!")
    assert [(p.attribute, p.value) for p in found] == [("owns", "house")]


# --- other people ----------------------------------------------------------------------


def test_a_named_relative_s_location_is_about_them():
    """'my sister Ana lives in Porto': location Porto for Ana, and the owner's sibling_of Ana."""
    assert sorted(shapes("My sister Ana lives in Porto."), key=str) == sorted(
        [("assert", "Ana", "location", "Porto", AT), ("assert", None, "sibling_of", "@Ana", AT)],
        key=str,
    )
    found = mine("My sister Ana lives in Porto.")
    assert EntityRef(name="Ana", kind="person") in {p.subject for p in found}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("My friend Priya works at Google.", ("Priya", "employer", "Google")),
        ("My dad Roberto is a carpenter.", ("Roberto", "occupation", "carpenter")),
        ("My son Theo is 12.", ("Theo", "age", 12)),
        ("My cousin Leila is from Tehran.", ("Leila", "hometown", "Tehran")),
        ("My mom Carmen loves gardening.", ("Carmen", "likes", "gardening")),
        ("Ana, my sister, lives in Porto.", ("Ana", "location", "Porto")),
        ("My colleague Raj just moved to Lyon.", ("Raj", "location", "Lyon")),
    ],
)
def test_statements_about_named_people(text: str, expected: tuple[object, ...]):
    """The statement is the named person's, next to the owner's relationship to them."""
    about = [(p.subject.name, p.attribute, p.value) for p in mine(text) if p.subject.name]
    assert about == [expected]
    assert [p for p in mine(text) if p.object == EntityRef(name=str(expected[0]))]


@pytest.mark.parametrize(
    "text",
    [
        "My sister lives in Porto.",
        "Does your sister Ana live in Porto?",
        "If my brother Luis moved to Seattle, I'd visit.",
        "Priya told me she works at Google.",
    ],
)
def test_unnamed_questioned_or_hypothetical_people_give_no_statement(text: str):
    """Nobody named, a question, a hypothetical or hearsay: no fact about another person."""
    assert [p for p in mine(text) if p.subject.name] == []


# --- memory requests -------------------------------------------------------------------


def test_remember_mines_the_clause_as_a_memory_request():
    """'Remember that I moved to Berlin last month' is the move, typed memory_request."""
    (p,) = mine("Remember that I moved to Berlin last month.")
    assert shape(p) == ("assert", None, "location", "Berlin", d(2024, 6, 1))
    assert p.type == "memory_request" and p.provenance.confidence >= 0.95


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Remember that I'm allergic to peanuts.", ("assert", "allergy", "peanuts")),
        ("Please note that the recital is on June 14.",
         ("note", "note", "the recital is on June 14")),
        ("Could you remember that I take my coffee black?",
         ("note", "note", "I take my coffee black")),
        ("Forget that I like jazz.", ("end", "likes", "jazz")),
        ("Forget that I said I live in Oslo.", ("end", "location", "Oslo")),
        ("Forget that my brother lives in Madrid.",
         ("retire_note", "note", "my brother lives in Madrid")),
    ],
)  # fmt: skip
def test_memory_requests_note_or_forget(text: str, expected: tuple[object, ...]):
    """No rule reads the clause: a note (CONTRACT §13) with its words; "forget": the note
    those words name is retired; a fact a rule reads is asserted or ended as ever."""
    found = [p for p in mine(text) if p.type == "memory_request"]
    assert [(p.op, p.attribute, p.value) for p in found] == [expected]
    assert all(p.valid_from == AT and p.provenance.confidence >= 0.95 for p in found)
    notes = [p.note for p in found if p.op in ("note", "retire_note")]
    assert all(n is not None and n.title.casefold() == str(expected[2]).casefold() for n in notes)


@pytest.mark.parametrize(
    "text",
    [
        "Remember that time we got lost in Rome?",
        "I'll remember that, thanks!",
        "Do you remember that I moved to Berlin?",
        "Remember that you are stronger than you think.",
    ],
)
def test_things_that_are_not_memory_requests(text: str):
    """Reminiscing, promises, questions and advice to the listener are not requests."""
    assert mine(text) == []


# --- assistant preferences -------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Don't use emojis.", ("preference", "no emojis")),
        ("No emojis please.", ("preference", "no emojis")),
        ("Stop apologizing so much.", ("preference", "no apologies")),
        ("Please use bullet points.", ("preference", "use bullet points")),
        ("Always cite your sources.", ("preference", "cite sources")),
        ("Can you be more concise?", ("answer_style", "concise")),
        ("Could you keep it brief?", ("answer_style", "brief")),
        ("I like short answers.", ("answer_style", "short")),
        ("Be more casual with me.", ("tone", "casual")),
        ("Call me Sam.", ("name", "Sam")),
    ],
)
def test_assistant_preferences(text: str, expected: tuple[object, ...]):
    """Requests about how the assistant answers are preferences about the assistant."""
    assert [(p.attribute, p.value) for p in mine(text)] == [expected]


@pytest.mark.parametrize(
    "text",
    [
        "Why do you always answer in French?",
        "My boss told me to keep answers short.",
        "I don't use emojis at work.",
        "There are no emojis in the report.",
    ],
)
def test_not_assistant_preferences(text: str):
    """Questions, hearsay and statements about the speaker's own habits are not requests."""
    assert mine(text) == []


# --- secrets ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "The user's password is hunter2.",
        "Remember that my PIN is 4321.",
        "My password is hunter2 and I live in Berlin.",
        "Note that my card number is 4111 1111 1111 1111.",
        "Please remember my API key: sk-live-9f8e7d6c5b4a3f2e1d0c.",
        "Remember that the wifi password is sunflower42.",
    ],
)
def test_statements_carrying_credentials_produce_nothing(text: str):
    """A sentence that carries a credential proposes nothing at all (CONTRACT §3)."""
    assert mine(text) == []


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("my PIN is 4321", True),
        ("api_key = abc123def456", True),
        ("4111-1111-1111-1111", True),
        ("4111 1111 1111 1112", False),  # fails the Luhn check
        ("I forgot my password again", False),
        ("I knocked down ten pins", False),
        ("I live in Berlin", False),
    ],
)
def test_looks_secret(text: str, secret: bool):
    """looks_secret flags carried credentials and Luhn-valid card numbers, not mentions."""
    assert looks_secret(text) is secret


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Last year I became allergic to cats.", []),
        ("In March I became a nurse.", [("occupation", "nurse")]),
    ],
)
def test_became_needs_an_article_to_be_an_occupation(
    text: str, expected: list[tuple[str, str]]
) -> None:
    """ "I became allergic" is no job; "I became a nurse" is (regression: occupation=allergic)."""
    found = [
        (p.attribute, p.value)
        for p in extract_message(
            text, at=datetime(2023, 5, 8, tzinfo=UTC), speaker=None, message_id="m", run_id="r"
        )
        if p.attribute == "occupation"
    ]
    assert found == expected
