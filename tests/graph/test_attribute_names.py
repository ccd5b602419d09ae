"""Attribute names the curator makes from words (graph/attributes.py, CONTRACT §2.1)."""

from __future__ import annotations

import pytest

from graph.attributes import DEFAULT, FAVORITE_OF_A_KIND, REGISTRY, attribute_name, spec
from graph.attributes import favorite_attribute as fav


@pytest.mark.parametrize(
    ("words", "name"),
    [
        ("Favourite colour", "favorite_color"),
        ("home  city", "home_city"),
        ("style of dance", "style_of_dance"),
        ("top-10 flavour", "top_10_flavor"),
        ("  ", ""),
    ],
)
def test_words_become_one_snake_case_name(words: str, name: str) -> None:
    """Lower case, British spellings the American way, one underscore per gap."""
    assert attribute_name(words) == name


def test_a_favourite_of_a_kind_is_one_valued_in_preferences() -> None:
    """`favorite_<kind>` holds one value in area preferences; a favourite of no kind stays
    the registry's many-valued `favorite`; an unknown attribute stays `DEFAULT`."""
    assert fav("colour") == "favorite_color" and fav("") == "favorite"
    assert spec("favorite_color") is FAVORITE_OF_A_KIND
    assert (FAVORITE_OF_A_KIND.cardinality, FAVORITE_OF_A_KIND.area) == ("one", "preferences")
    assert spec("favorite") is REGISTRY["favorite"] and spec("favorite").cardinality == "many"
    assert spec("favoritecolor") is DEFAULT
