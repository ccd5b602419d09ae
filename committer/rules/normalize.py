"""Normalized values: what "the same value" means for dedupe (CONTRACT §2.1 rule 1).

Strings compare after Unicode NFKC, case folding and collapsing white space; numbers
by value (1 and 1.0 are one number) and booleans by their JSON text; a relationship by its
object entity id. A type tag
keeps the string "1" apart from the number 1.

What a person says in chat is looser: "my own online clothing store", "my online store" and
"online clothing store" name one store. `near_duplicate` says when two text values of a
`many` attribute are one value, so the committer corroborates the row it has instead of
adding another (`committer.rules.plan.plan_assert`, for statements the curator proposes).
"""

from __future__ import annotations

import json
import re
import unicodedata

from graph.fields import Scalar


def normalize_text(text: str) -> str:
    """Return `text` NFKC-normalized, case-folded, with runs of white space made one space."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def value_norm(value: Scalar | None, object_id: str | None) -> str:
    """Return the normalized form of a fact's value.

    Args:
        value: the JSON scalar, or None for a relationship.
        object_id: the object entity's id for a relationship, else None.

    Returns:
        A tagged string: "e:<id>", "s:<text>", "b:true", "n:<json number>".
    """
    if object_id is not None:
        return f"e:{object_id}"
    if isinstance(value, str):
        return f"s:{normalize_text(value)}"
    if isinstance(value, bool):
        return f"b:{json.dumps(value)}"
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # 1.0 and 1 are the same number
    if isinstance(value, int | float):
        return f"n:{json.dumps(value)}"
    raise TypeError(f"not a JSON scalar: {value!r}")


# --- near-duplicates (CONTRACT §2.1 rule 1, for what a person says in chat) --------------

_FUNCTION = frozenset(
    ["a", "an", "the", "my", "our", "your", "his", "her", "their", "own", "very", "some"]
)
"""Words that name nothing: "my own online store" is "online store"."""

_DISTINCT = frozenset(
    [
        "first",
        "second",
        "third",
        "fourth",
        "fifth",
        "sixth",
        "another",
        "other",
        "next",
        "last",
        "previous",
        "former",
        "old",
        "ex",
        "non",
        "not",
        "no",
        "new",
    ]
)
"""Words that tell two things apart: "dance studio" and "second dance studio" are two."""

_SHORT = 3
"""Words this short are never made singular ("bus", "gas", "yes")."""
_MIN_WORDS = 2
"""A shorter value must have at least this many words to be a near-duplicate of a longer one."""


def _singular(word: str) -> str:
    """A word's naive singular ("classes" -> "class", "stories" -> "story"), for keys only."""
    if len(word) <= _SHORT or word.endswith(("ss", "us", "is")):
        return word
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("sses", "ches", "shes", "xes")):
        return word[:-2]
    return word.removesuffix("s")


def value_key(norm: str) -> tuple[str, ...] | None:
    """The content words of a normalized text value, singular, in order; None for a number,
    a boolean or a relationship (they are never near-duplicates).

    Args:
        norm: a `value_norm` ("s:my own online stores" -> ("online", "store")).
    """
    if not norm.startswith("s:"):
        return None
    words = re.findall(r"[\w'-]+", norm[2:])
    return tuple(_singular(w) for w in words if w not in _FUNCTION)


def near_duplicate(a: str, b: str) -> bool:
    """True when two normalized text values name one thing (CONTRACT §2.1 rule 1).

    Either their content words are the same ("my online store", "online stores"), or the
    shorter one has at least two content words, all in the longer one, the same last word
    (its head noun), and the longer one adds no word that tells things apart ("online
    store" and "online clothing store" are one; "dance studio" and "second dance studio",
    "tea" and "green tea", "Harry Potter" and "Harry Potter books" are two).

    Args:
        a: a `value_norm`.
        b: another `value_norm`.
    """
    ka, kb = value_key(a), value_key(b)
    if not ka or not kb:
        return False
    if ka == kb:
        return True
    short, long = (ka, kb) if len(ka) <= len(kb) else (kb, ka)
    if len(short) < _MIN_WORDS or short[-1] != long[-1] or not set(short) <= set(long):
        return False
    extra = set(long) - set(short)
    return not any(w in _DISTINCT or any(c.isdigit() for c in w) for w in extra)
