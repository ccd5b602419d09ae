"""The default extractor proposes what a person plainly says about themselves (CONTRACT §3, §4)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from committer.proposals import EntityRef, Proposal
from curator.extract import extract_message, extract_run, split_sentences
from graph.attributes import FAVORITE_OF_A_KIND, REGISTRY, spec

# Monday 2023-05-08 13:56 UTC.
AT = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def d(y: int, m: int, day: int) -> datetime:
    return datetime(y, m, day, tzinfo=UTC)


def mine(text: str, speaker: str | None = None, at: datetime = AT) -> list[Proposal]:
    return extract_message(text, at=at, speaker=speaker, message_id="m1", run_id="run-1")


def facts(text: str) -> list[tuple[str, object]]:
    """(attribute, value or object name) of each proposal, in order."""
    return [(p.attribute, p.object.name if p.object else p.value) for p in mine(text)]


def one(text: str) -> Proposal:
    found = mine(text)
    assert len(found) == 1, [(p.attribute, p.value) for p in found]
    return found[0]


# --- identity --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Hi, I'm Ana.", [("name", "Ana")]),
        ("My name is Ana Lucia and I run a bakery.", [("name", "Ana Lucia")]),
        ("Please call me Bo.", [("name", "Bo")]),
        ("I am a transgender woman.", [("identity", "transgender woman")]),
        ("As a gay man, I found the film moving.", [("identity", "gay man")]),
        ("This painting shows my journey as a queer woman.", [("identity", "queer woman")]),
        ("I'm vegan, by the way.", [("identity", "vegan")]),
        ("I'm 32.", [("age", 32)]),
        ("I am 45 years old and tired.", [("age", 45)]),
    ],
)
def test_identity_statements(text: str, expected: list[tuple[str, object]]):
    """Names, identities and ages stated in the first person are proposed."""
    assert facts(text) == expected


def test_im_with_an_adjective_is_not_a_name():
    """'I'm Swedish' is not a name; 'I'm glad' is nothing."""
    assert facts("I'm Swedish.") == []
    assert facts("I'm glad you came.") == []


def test_number_that_is_not_an_age():
    """'I'm 5 minutes away' is not an age."""
    assert facts("I'm 5 minutes away.") == []


# --- place -----------------------------------------------------------------------------


def test_lives_in_starts_at_message_time():
    """'I live in Berlin' proposes location = Berlin from the message time."""
    p = one("I live in Berlin with two cats named after painters.")
    assert (p.attribute, p.value, p.valid_from, p.valid_to) == ("location", "Berlin", AT, None)
    assert p.type == "location" and REGISTRY[p.attribute].cardinality == "one"


def test_moved_is_dated_by_its_time_expression():
    """'I moved to Porto last month' starts the location at the start of last month."""
    p = one("I moved to Porto last month.")
    assert (p.attribute, p.value, p.valid_from) == ("location", "Porto", d(2023, 4, 1))


def test_lived_for_years_starts_years_ago():
    """'I've lived in New York for 3 years' starts three years before the message day."""
    p = one("I've lived in New York for 3 years.")
    assert (p.value, p.valid_from) == ("New York", d(2020, 5, 8))


def test_moving_next_month_is_a_future_location():
    """'I'm moving to Lisbon next month' starts the location next month."""
    p = one("I'm moving to Lisbon next month!")
    assert (p.value, p.valid_from) == ("Lisbon", d(2023, 6, 1))


def test_moving_without_a_date_is_not_proposed():
    """A move with no date says nothing about when the location changes."""
    assert facts("I'm moving to Lisbon.") == []


def test_hometown():
    """'I'm from Sweden' and 'I grew up in X' propose hometown."""
    assert facts("I'm originally from Sweden.") == [("hometown", "Sweden")]
    assert facts("I grew up in Rio de Janeiro, then left.") == [("hometown", "Rio de Janeiro")]


def test_lowercase_place_is_not_a_location():
    """'I live in a small flat' names no place."""
    assert facts("I live in a small flat.") == []


# --- work ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I work at Acme.", [("employer", "Acme")]),
        ("I work at a children's hospital.", [("employer", "children's hospital")]),
        ("I work at the moment, sadly.", []),
        ("I work for Globex Corporation.", [("employer", "Globex Corporation")]),
        ("I'm a nurse.", [("occupation", "nurse")]),
        ("I'm a registered nurse at the clinic.", [("occupation", "registered nurse")]),
        ("I work as a dog groomer.", [("occupation", "dog groomer")]),
        ("I'm a terrible cook.", []),
        ("I'm a big fan of jazz.", [("likes", "jazz")]),
    ],
)
def test_work_statements(text: str, expected: list[tuple[str, object]]):
    """Employer and occupation come from explicit first-person statements only."""
    assert facts(text) == expected


def test_occupation_held_for_years_is_dated():
    """'I've been a teacher for ten years' starts the occupation ten years before."""
    p = one("I've been a teacher for ten years.")
    assert (p.attribute, p.value, p.valid_from) == ("occupation", "teacher", d(2013, 5, 8))


def test_figures_of_speech_are_not_occupations():
    """'a student of life' and 'an artist at heart' are not jobs."""
    assert facts("I'm a student of life.") == []
    assert facts("I'm an artist at heart.") == []


def test_lost_job_as_ends_the_occupation_at_the_stated_day():
    """'I lost my job as a banker yesterday' ends occupation=banker at the start of yesterday."""
    p = one("I lost my job as a banker yesterday, so things are hard.")
    assert (p.op, p.attribute, p.value, p.type) == ("end", "occupation", "banker", "work_end")
    assert p.valid_from == d(2023, 5, 7)


def test_quit_job_at_ends_the_employer():
    """'I quit my job at Acme' ends employer=Acme at the message time."""
    p = one("I quit my job at Acme.")
    assert (p.op, p.attribute, p.value, p.valid_from) == ("end", "employer", "Acme", AT)


def test_sentence_without_subject_still_counts():
    """Chat drops the subject: 'Lost my job at Initech today.' is the speaker's."""
    p = one("Lost my job at Initech today.")
    assert (p.op, p.attribute, p.value, p.valid_from) == (
        "end",
        "employer",
        "Initech",
        d(2023, 5, 8),
    )


# --- family ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "attribute", "name"),
    [
        ("I'm visiting my sister Ana next week.", "sibling_of", "Ana"),
        ("My husband Tom cooked dinner.", "married_to", "Tom"),
        ("My son Leo started school.", "parent_of", "Leo"),
        ("My mom Rita called.", "child_of", "Rita"),
        ("This is Ana, my cousin.", "family", "Ana"),
    ],
)
def test_named_relatives_are_relationships(text: str, attribute: str, name: str):
    """A named relative is a relationship to a person entity named in the proposal."""
    p = one(text)
    assert (p.attribute, p.value, p.object) == (attribute, None, EntityRef(name=name))
    assert p.type == "family"


def test_unnamed_relative_is_a_family_value():
    """'my husband' with no name proposes family = husband."""
    assert facts("My husband made soup.") == [("family", "husband")]


def test_have_children_counts():
    """'I have two kids' proposes family = '2 kids'; 'a sister' is 'sister'."""
    assert facts("I have two kids.") == [("family", "2 kids")]
    assert facts("I have a sister named Ines.") == [("sibling_of", "Ines")]


def test_vocative_is_not_a_name():
    """'Hey Sam, my husband and I ...' does not make Sam the husband."""
    assert ("married_to", "Sam") not in facts("Hey Sam, my husband and I went bowling.")


def test_pets():
    """'my dog Rex' proposes pet 'Rex (dog)'; 'my dog painting' is not a pet."""
    assert facts("My dog Rex loves the snow.") == [("pet", "Rex (dog)")]
    assert facts("Here is my dog painting.") == []


def test_got_a_pet_is_dated():
    """'Guess what - I got a puppy two weeks ago!' proposes a pet from that week."""
    p = one("Guess what - I got a puppy two weeks ago!")
    assert (p.attribute, p.value, p.valid_from) == ("pet", "puppy", d(2023, 4, 24))


def test_relationship_status():
    """'I'm married' and 'I got engaged last month' propose relationship_status."""
    assert facts("I'm married.") == [("relationship_status", "married")]
    p = one("I got engaged last month.")
    assert (p.attribute, p.value, p.valid_from) == ("relationship_status", "engaged", d(2023, 4, 1))


# --- tastes ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I love hiking.", [("likes", "hiking")]),
        ("I really like pottery!", [("likes", "pottery")]),
        ("I hate spiders.", [("dislikes", "spiders")]),
        ("I don't like loud bars, honestly.", [("dislikes", "loud bars")]),
        (
            "I love hiking, cycling and chess.",
            [("likes", "hiking"), ("likes", "cycling"), ("likes", "chess")],
        ),
        ("I love baking bread because it calms me.", [("likes", "baking bread")]),
        ("I'm passionate about birdwatching.", [("likes", "birdwatching")]),
        ("I'm not really into golf.", [("dislikes", "golf")]),
    ],
)
def test_likes_and_dislikes(text: str, expected: list[tuple[str, object]]):
    """Likes and dislikes keep the person's phrase, trimmed of the trailing clause."""
    assert facts(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "I love it!",
        "I love that you did that.",
        "I love the colors in this one.",
        "I love your garden.",
        "I love how calm it is.",
        "I like to think so.",
        "I love Rosa.",
        "I love my job, it's fine.",
    ],
)
def test_reactions_are_not_tastes(text: str):
    """Reactions to what is at hand, people and pronouns are not standing likes."""
    assert facts(text) == []


def test_favorite_names_the_kind_of_thing():
    """'my favorite dance style is contemporary' -> favorite_dance_style 'contemporary';
    'my favourite colour' and 'my favorite color' name one attribute."""
    assert facts("My favorite dance style is contemporary.") == [
        ("favorite_dance_style", "contemporary")
    ]
    assert facts("My favourite colour is green.") == [("favorite_color", "green")]
    assert facts("My favorite color is green.") == [("favorite_color", "green")]
    assert facts("My top pick is jazz.") == [("favorite", "jazz")]
    assert facts("My favorite part was the ending.") == []


def test_assistant_preferences():
    """Requests about answers are assistant preferences (answer_style, language)."""
    assert facts("Please keep answers short.") == [("answer_style", "short")]
    assert facts("Please answer in Spanish from now on.") == [("language", "Spanish")]
    p = one("I prefer detailed answers.")
    assert (p.attribute, p.value, p.type) == ("answer_style", "detailed", "preference")


def test_polite_requests_count_even_as_questions():
    """'Could you please answer in German?' is a request, not a question to skip."""
    assert facts("Could you please answer in German?") == [("language", "German")]
    assert facts("Can you keep your replies brief?") == [("answer_style", "brief")]


def test_negated_or_reported_requests_do_not_count():
    """'Don't answer in German' and 'she said keep answers short' set no preference."""
    assert facts("Please don't answer in German.") == []
    assert facts("She said keep answers short.") == []


# --- projects and plans ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I'm starting a dance studio.", [("works_on", "dance studio")]),
        ("I'm working on a novel about sailors.", [("works_on", "novel about sailors")]),
        ("I'm working on my thesis.", [("works_on", "thesis")]),  # no "my" (issue 12)
        ("I'm starting a new job at Umbrella.", [("employer", "Umbrella")]),
        ("I'm working on it.", []),
    ],
)
def test_projects(text: str, expected: list[tuple[str, object]]):
    """Ongoing projects are works_on values."""
    assert facts(text) == expected


def test_clear_plan_is_a_goal_but_a_wish_is_not():
    """'I'm planning to learn Italian' is a goal; 'I want to' and 'I hope to' are not."""
    assert facts("I'm planning to learn the cello.") == [("goal", "learn the cello")]
    assert facts("I want to learn the cello.") == []
    assert facts("I hope to visit Japan.") == []


# --- events ----------------------------------------------------------------------------


def test_event_with_yesterday_covers_that_day():
    """'I went to a support group yesterday' covers yesterday, [May 7, May 8)."""
    p = one("I went to a support group yesterday and it was so good.")
    assert (p.attribute, p.value, p.type) == ("participated_in", "support group", "event")
    assert (p.valid_from, p.valid_to) == (d(2023, 5, 7), d(2023, 5, 8))


def test_event_last_saturday():
    """'I ran a charity race last Saturday' covers that Saturday."""
    p = one("I ran a charity race last Saturday - exhausting!")
    assert (p.value, p.valid_from, p.valid_to) == ("ran a charity race", d(2023, 5, 6),
                                                   d(2023, 5, 7))  # fmt: skip


def test_we_went_camping_last_week():
    """'we went camping last week' covers last week."""
    p = one("We went camping last week!")
    assert (p.value, p.valid_from, p.valid_to) == ("camping", d(2023, 5, 1), d(2023, 5, 8))


def test_event_without_time_covers_the_message_day():
    """Without a time expression an event covers the message's own day, less confidently."""
    p = one("I went to a pottery workshop.")
    assert (p.valid_from, p.valid_to) == (d(2023, 5, 8), d(2023, 5, 9))
    assert p.provenance.confidence < 0.8


def test_routine_trips_are_not_events():
    """'I went to bed' and 'I went to work' are not events worth remembering."""
    assert facts("I went to bed early.") == []
    assert facts("I went to work.") == []


def test_joined_a_group_is_membership():
    """'I joined a book club last week' proposes member_of from last week."""
    p = one("I joined a book club last week.")
    assert (p.attribute, p.value, p.valid_from) == ("member_of", "book club", d(2023, 5, 1))


# --- what is not mined -----------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Do you love hiking?",
        "Have you ever lived in Berlin?",
        "If I lived in Paris I would love it.",
        "I would love to live in Rome.",
        "I'd love to try pottery.",
        "I wish I worked at Acme.",
        "Maybe I'm a nurse at heart.",
        "You love hiking.",
        "You live in Berlin, right.",
        "She said I work at Acme.",
        "I think I live in the wrong city.",
        "I want to move to Berlin.",
        "I'm not a nurse.",
        "When I was a kid I lived in Oslo.",
        "The people I love are here.",
    ],
)
def test_questions_hypotheticals_and_others_are_skipped(text: str):
    """Questions, conditionals, wishes, reported speech and 'you' statements give nothing."""
    assert facts(text) == []


def test_no_longer_living_somewhere_is_an_ending():
    """'I don't live in Berlin anymore' ends location Berlin (issue 3; it was skipped before)."""
    p = one("I don't live in Berlin anymore.")
    assert (p.op, p.attribute, p.value, p.valid_from) == ("end", "location", "Berlin", AT)


# --- proposals -------------------------------------------------------------------------


def test_tag_question_is_still_a_statement():
    """'I started a podcast, huh?' asserts; the tag does not make it a question."""
    assert facts("So I started a podcast last month, pretty wild, huh?") == [
        ("works_on", "podcast")
    ]


def test_provenance_quotes_the_sentence():
    """Each proposal is user_stated, quotes its sentence and says why, with its run and message."""
    p = mine("Hello! I live in Berlin. How are you?")[0]
    prov = p.provenance
    assert prov.source == "user_stated"
    assert prov.evidence == "I live in Berlin."
    assert prov.reason == "stated: lives in Berlin"
    assert 0.5 <= prov.confidence <= 1.0
    assert (prov.run_id, prov.message_id) == ("run-1", "m1")


def test_evidence_keeps_typographic_quotes():
    """Curly apostrophes match like straight ones, and evidence keeps the original text."""
    p = one("I\u2019m from Chile.")
    assert p.value == "Chile" and p.provenance.evidence == "I\u2019m from Chile."


def test_subject_is_the_speaker_or_the_owner():
    """With a speaker the subject is that person; without, the owner (EntityRef())."""
    assert mine("I live in Berlin.", speaker="Caroline")[0].subject == EntityRef(name="Caroline")
    assert mine("I live in Berlin.")[0].subject == EntityRef()


def test_ids_are_deterministic_and_distinct():
    """The same input gives the same ids; different statements get different ids."""
    text = "I live in Berlin. I love chess. My sister Ana is great."
    first, second = mine(text), mine(text)
    assert [p.id for p in first] == [p.id for p in second]
    assert len({p.id for p in first}) == len(first) == 3
    assert all(len(p.id) == 24 for p in first)


def test_repeated_statement_is_proposed_once():
    """A statement repeated in a message is one proposal."""
    assert facts("I love chess. Honestly, I love chess!") == [("likes", "chess")]


def test_proposals_come_in_text_order():
    """Proposals follow the order of the text."""
    assert [a for a, _ in facts("I love chess and I live in Oslo. I'm a nurse.")] == [
        "likes", "location", "occupation",
    ]  # fmt: skip


def test_attributes_are_registry_names():
    """Every attribute the extractor writes is known to the registry (CONTRACT §2.1): a
    registered name, or a `favorite_<kind>`."""
    text = (
        "I'm Ana. I'm 30. I'm a nurse. I work at Acme. I live in Lisbon. I'm from Chile. "
        "My sister Bia is here. I have two kids. My dog Rex barks. I love chess. I hate mud. "
        "My favorite color is green. I'm working on a novel. I went to a concert yesterday. "
        "I joined a choir. I'm planning to run a marathon. Please keep answers short. "
        "I'm married. I am a trans woman."
    )
    found = mine(text)
    assert len(found) >= 18
    assert {p.attribute for p in found} - set(REGISTRY) == {"favorite_color"}
    assert spec("favorite_color") is FAVORITE_OF_A_KIND


# --- sentences and runs ----------------------------------------------------------------


def test_split_sentences_keeps_abbreviations():
    """Sentences end at . ! ? and newlines, but not after 'Dr.' or 'St.'."""
    text = "I saw Dr. Lee today! Then I left.\nBye"
    assert [text[b:e] for b, e in split_sentences(text)] == [
        "I saw Dr. Lee today!", "Then I left.", "Bye",
    ]  # fmt: skip


def test_run_mines_only_user_messages():
    """Only role == 'user' messages are mined; an assistant's words are not the user's."""
    messages = [
        {"id": "a", "role": "user", "text": "I live in Oslo.", "at": "2023-05-08T10:00:00Z"},
        {
            "id": "b",
            "role": "assistant",
            "text": "I live in the cloud. I love chess.",
            "at": "2023-05-08T10:00:01Z",
        },
        {"id": "c", "role": "tool", "text": "I work at Acme.", "at": "2023-05-08T10:00:02Z"},
    ]
    found = extract_run(messages, "run-9")
    assert [(p.attribute, p.value, p.provenance.message_id) for p in found] == [
        ("location", "Oslo", "a")
    ]
    assert found[0].valid_from == datetime(2023, 5, 8, 10, tzinfo=UTC)


def test_run_uses_each_message_speaker():
    """Each message's speaker is the subject of what they say."""
    messages = [
        {"id": "1", "role": "user", "speaker": "Ana", "text": "I love chess.", "at": AT},
        {"id": "2", "role": "user", "speaker": "Bo", "text": "I love chess too.", "at": AT},
    ]
    subjects = [p.subject.name for p in extract_run(messages, "r")]
    assert subjects == ["Ana", "Bo"]


def test_run_proposes_a_repeated_state_once():
    """A state said twice in a run is proposed once (first time); events stay distinct."""
    messages = [
        {"id": "1", "role": "user", "text": "I love chess.", "at": AT},
        {"id": "2", "role": "user", "text": "I love chess, really.", "at": AT},
    ]
    assert len(extract_run(messages, "r")) == 1


def test_run_accepts_objects():
    """Messages may be objects with attributes instead of mappings."""

    class Msg:
        role, text, at, speaker, id = "user", "I live in Oslo.", AT, None, "x"

    assert [p.value for p in extract_run([Msg()], "r")] == ["Oslo"]


def test_two_speakers_saying_the_same_words_are_two_proposals():
    """Messages without ids: the same sentence from two speakers in one run gives two
    proposal ids (a regression: they collided and one statement was lost)."""
    at = datetime(2026, 11, 20, 10, tzinfo=UTC)
    [a] = extract_message(
        "I live in Leeds.", at=at, speaker="Catherine Mills", message_id=None, run_id="ms1"
    )
    [b] = extract_message(
        "I live in Leeds.", at=at, speaker="Katherine Mills", message_id=None, run_id="ms1"
    )
    assert a.id != b.id and (a.subject.name, b.subject.name) == (
        "Catherine Mills",
        "Katherine Mills",
    )
