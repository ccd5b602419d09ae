"""Normalized values: what "the same value" means for dedupe (CONTRACT §2.1 rule 1).

Strings compare after Unicode NFKC, case folding and collapsing white space; numbers
by value (1 and 1.0 are one number) and booleans by their JSON text; a relationship by its object entity id. A type tag
keeps the string "1" apart from the number 1.
"""

from __future__ import annotations

import json
import unicodedata

from graph.records import Scalar


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
