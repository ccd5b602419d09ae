"""The attribute registry: each attribute's default cardinality and its area (CONTRACT §2.1).

Pure data, kept in `graph` (which imports nothing of ours) so the committer and the
read path (prefetch) share it without the read path importing the committer.

The curator writes under these snake_case names, so facts from chat and from REST meet
on one attribute (where someone lives is always `location`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class AttributeSpec:
    """How one attribute behaves.

    Attributes:
        cardinality: "one" (a new value supersedes) or "many" (values sit side by side).
        area: the life area it belongs to (used by access policies and prefetch).
        preference: True when it says how the owner wants the assistant to behave.
    """

    cardinality: str
    area: str
    preference: bool = False


REGISTRY: dict[str, AttributeSpec] = {
    # identity
    "name": AttributeSpec("one", "identity"),
    "full_name": AttributeSpec("one", "identity"),
    "nickname": AttributeSpec("many", "identity"),
    "age": AttributeSpec("one", "identity"),
    "birthday": AttributeSpec("one", "identity"),
    "gender": AttributeSpec("one", "identity"),
    "nationality": AttributeSpec("one", "identity"),
    "identity": AttributeSpec("many", "identity"),
    "pronouns": AttributeSpec("one", "identity"),
    "relationship_status": AttributeSpec("one", "family"),
    # place
    "location": AttributeSpec("one", "place"),
    "hometown": AttributeSpec("one", "place"),
    # work
    "employer": AttributeSpec("one", "work"),
    "occupation": AttributeSpec("one", "work"),
    "studies": AttributeSpec("one", "work"),
    "works_on": AttributeSpec("many", "work"),
    # people
    "knows": AttributeSpec("many", "family"),
    "family": AttributeSpec("many", "family"),
    "parent_of": AttributeSpec("many", "family"),
    "child_of": AttributeSpec("many", "family"),
    "sibling_of": AttributeSpec("many", "family"),
    "partner_of": AttributeSpec("one", "family"),
    "married_to": AttributeSpec("one", "family"),
    "pet": AttributeSpec("many", "family"),
    "member_of": AttributeSpec("many", "social"),
    # tastes
    "likes": AttributeSpec("many", "preferences"),
    "dislikes": AttributeSpec("many", "preferences"),
    "favorite": AttributeSpec("many", "preferences"),
    "hobby": AttributeSpec("many", "preferences"),
    "goal": AttributeSpec("many", "preferences"),
    # life
    "participated_in": AttributeSpec("many", "events"),
    "owns": AttributeSpec("many", "possessions"),
    # how the assistant should behave
    "answer_style": AttributeSpec("one", "assistant", preference=True),
    "language": AttributeSpec("one", "assistant", preference=True),
    "units": AttributeSpec("one", "assistant", preference=True),
    "preference": AttributeSpec("many", "assistant", preference=True),
    # added for the extractor's changes, endings and memory requests (issue 3)
    "shift": AttributeSpec("one", "work"),
    "diet": AttributeSpec("one", "lifestyle"),
    "habit": AttributeSpec("many", "lifestyle"),
    "note": AttributeSpec("many", "notes"),
    "tone": AttributeSpec("one", "assistant", preference=True),
    # added for the extractor's past actions, health and hobbies (issue 12)
    "visited": AttributeSpec("many", "place"),
    "life_event": AttributeSpec("many", "events"),
    "practices": AttributeSpec("many", "preferences"),
    "condition": AttributeSpec("many", "health"),
    "allergy": AttributeSpec("many", "health"),
}

DEFAULT = AttributeSpec("many", "general")
"""An attribute the registry does not know keeps distinct values side by side."""

KNOWLEDGE = "knowledge"
"""The area of knowledge documents (CONTRACT §14): a restricted memory access lists it to let
a chat read them (graph/scope.py `knowledge_allowed`)."""
CONVERSATION = "conversation"
"""The area of episodes, what was said (CONTRACT §12): a restricted memory access lists it
among its areas to let a chat read earlier conversations (graph/scope.py)."""


def known_areas() -> frozenset[str]:
    """Every area a memory access may list (CONTRACT §7): the registry's, `general` (an
    attribute the registry does not know), `conversation` (episodes) and `knowledge`
    (knowledge documents)."""
    return frozenset(
        {spec.area for spec in REGISTRY.values()} | {DEFAULT.area, CONVERSATION, KNOWLEDGE}
    )


FAVORITE_PREFIX = "favorite_"
"""A favourite of a named kind is its own attribute (`favorite_color`, `favorite_novel`):
one value at a time, so a new favourite colour supersedes the old one. A favourite of no
named kind stays `favorite`, many values side by side."""
FAVORITE_OF_A_KIND = AttributeSpec("one", "preferences")

_SPELLINGS = {"favourite": "favorite", "colour": "color", "flavour": "flavor"}
"""British spellings written the American way in attribute names, so "my favourite
colour" and "the user's favorite color" meet on one attribute."""


def attribute_name(words: str) -> str:
    """Return the snake_case attribute named by `words` ("Favourite colour" ->
    "favorite_color"): lower-cased, British spellings of `_SPELLINGS` written the
    American way, every run of characters that is not a letter or digit one underscore.

    Returns "" for words with no letter or digit.
    """
    parts = re.findall(r"[0-9a-z]+", words.lower())
    return "_".join(_SPELLINGS.get(w, w) for w in parts)


def favorite_attribute(kind: str) -> str:
    """The attribute of a favourite of `kind` ("colour" -> "favorite_color"), or
    "favorite" when `kind` names nothing."""
    name = attribute_name(kind)
    return FAVORITE_PREFIX + name if name else "favorite"


def spec(attribute: str) -> AttributeSpec:
    """Return the registry entry for `attribute` (snake_case): the registry's own, else
    `FAVORITE_OF_A_KIND` for a `favorite_<kind>`, else `DEFAULT`."""
    found = REGISTRY.get(attribute)
    if found is not None:
        return found
    return FAVORITE_OF_A_KIND if attribute.startswith(FAVORITE_PREFIX) else DEFAULT


def cardinality(attribute: str, stated: str | None = None) -> str:
    """Return the cardinality to use: the assertion's own, else the registry's (CONTRACT §2.1)."""
    return stated if stated is not None else spec(attribute).cardinality
