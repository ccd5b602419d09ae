"""The default extractor's statement rules, by area (CONTRACT §4).

Each area module holds its rules in a `Rules` list; `RULES` chains them in the order that
breaks ties between matches starting at the same position of a sentence (see
`curator.extract`). Shared machinery is in `curator.rules.base` (sentence, finding,
registry, who speaks) and `curator.rules.phrases` (cutting and tidying values); word
lists and pattern fragments are in `curator.lexicon`.
"""

from __future__ import annotations

from curator.rules import (
    actions,
    assistant,
    changes,
    endings,
    events,
    family,
    habits,
    health,
    identity,
    people,
    place,
    plans,
    tastes,
    trips,
    work,
)
from curator.rules.base import Found, Mode, Rule, Sentence, speaks_for_self

__all__ = ["RULES", "Found", "Mode", "Rule", "Sentence", "speaks_for_self"]

RULES: tuple[Rule, ...] = (
    *identity.RULES,
    *work.RULES,
    *place.RULES,
    *family.RULES,
    *health.RULES,
    *tastes.RULES,
    *assistant.RULES,
    *plans.RULES,
    *events.RULES,
    *trips.RULES,
    *actions.RULES,
    *habits.RULES,
    *endings.RULES,
    *changes.RULES,
    *people.RULES,
)
"""Every statement rule, in tie-breaking order."""
