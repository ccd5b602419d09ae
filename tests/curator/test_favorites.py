"""A favourite named before "is my favorite" / "is my top pick" is a `favorite`, and a
favourite of a named kind a `favorite_<kind>` (CONTRACT §4, graph/attributes.py)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from curator.extract import extract_message

# Monday 2023-05-08 13:56 UTC.
AT = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def favorites(text: str) -> list[tuple[str, object]]:
    """(attribute, value) of each `favorite`, `favorite_<kind>` or `likes` proposal in
    `text`, in order."""
    found = extract_message(text, at=AT, speaker=None, message_id="m1", run_id="run-fav")
    return [
        (p.attribute, p.value)
        for p in found
        if p.attribute in ("favorite", "likes") or p.attribute.startswith("favorite_")
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Blues is my top pick.", "Blues"),
        ("The Hobbit is my favorite.", "Hobbit"),
        ("Yeah, lemon tart is my favourite!", "lemon tart"),
        ("Honestly, ramen has always been my fave.", "ramen"),
        ("Sailing is definitely my all-time favorite, by far.", "Sailing"),
    ],
)
def test_a_thing_named_first_is_a_favorite(text: str, expected: str):
    """'<thing> is my top pick' / '<thing> is my favorite' -> favorite '<thing>'."""
    assert favorites(text) == [("favorite", expected)]


def test_the_kind_after_favorite_names_the_kind():
    """'Dune is my favorite novel' -> favorite_novel 'Dune', as 'my favorite novel is Dune'."""
    assert favorites("Dune is my favorite novel.") == [("favorite_novel", "Dune")]
    assert favorites("My favorite novel is Dune.") == [("favorite_novel", "Dune")]
    assert favorites("Tango is my favorite style of dance, hands down.") == [
        ("favorite_style_of_dance", "Tango")
    ]


def test_the_kind_is_taken_from_an_earlier_all_of_them():
    """'I like all sports, but rugby is my top pick' -> favorite_sport 'rugby'.

    The "all ..." phrase must end its clause ("all dances we learned" names no kind).
    """
    assert ("favorite_sport", "rugby") in favorites("I like all sports, but rugby is my top pick.")
    assert ("favorite_cheese", "brie") in favorites(
        "I enjoy all kinds of cheeses, but brie is my favorite."
    )
    learned = "I love all dances we learned, but tango is my top pick."
    assert ("favorite", "tango") in favorites(learned)
    assert ("favorite_movie", "Alien") in favorites("Of all the movies, Alien is my favorite.")
    # The same kind when the favourite comes last.
    assert ("favorite_sport", "rugby") in favorites("I like all sports, but my top pick is rugby.")


def test_a_favorite_activity_is_a_like():
    """'Knitting is my favorite hobby' -> likes 'Knitting', as 'my favorite hobby is ...'."""
    assert favorites("Knitting is my favorite hobby.") == [("likes", "Knitting")]


@pytest.mark.parametrize(
    "text",
    [
        "That is my favorite.",
        "This one is my top pick.",
        "Your garden is my favorite!",
        "I think tango is my favorite.",
        "If tango is my favorite, so be it.",
        "I know tango is my favorite.",
        "She said tango is my favorite.",
        "Tango was my favorite back then.",
        "Is tango my favorite?",
        "Tango is my favorite, what's yours?",
        "Autumn, which is my favorite season, is here.",
        "Monday is my favorite day.",
        "The last scene is my favorite part.",
        "My garden is my favorite.",
        "Tango is my favorite way to unwind after a long week at the office.",
    ],
)
def test_unclear_favorites_are_skipped(text: str):
    """Pronouns, hedges, reported speech, the past, questions and parts propose nothing."""
    assert [f for f in favorites(text) if f[0] == "favorite"] == []
