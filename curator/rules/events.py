"""What the speaker did: events they took part in, and groups they joined.

"I went to a support group yesterday", "we went camping last weekend", "I ran a
marathon in May", "I joined a choir". An event covers the day or period its time
expression names (the message's day when there is none); joining a group is a state.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from curator.lexicon import GROUPS, NP, PAST, PROPER, RACES, TRIVIAL_PLACES
from curator.rules.base import Found, Rules, Sentence, event, state
from curator.rules.phrases import cut, phrase, tidy
from curator.rules.trips import is_place

RULES = Rules()

_TRIP = r"(?:trip|vacation|holiday|getaway|journey|tour)"


def _trivial(value: str) -> bool:
    head = re.sub(r"^(?:the|my|a|an)\s+", "", value.lower())
    return head in TRIVIAL_PLACES or head.split()[0] in ("see", "get", "grab", "pick", "bed")


@RULES.add(
    rf"{PAST}(?:went\s+(?:out\s+)?to|attended|participated\s+in|took\s+part\s+in|competed\s+in"
    rf"|went\s+on|just\s+got\s+back\s+from|got\s+back\s+from)\s+{NP}"
)
def _went_to(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    value = phrase(s, m, "obj", 7, purpose=True, company=True)
    raw = m["obj"].lstrip()
    if not value or _trivial(value) or re.match(rf"(?-i:[A-Z])|{PROPER}\s*$", raw):
        return  # a named place is a visit (rules.trips)
    if re.search(rf"\b{_TRIP}\s+(?:to|in)\s+(?-i:[A-Z])", value, re.IGNORECASE):
        return  # "a solo trip to Portugal": a visit too
    yield event(value, s, m)


@RULES.add(
    rf"{PAST}went\s+(?P<obj>(?!going\b|through\b|nothing\b|something\b)[a-z]+ing\b[^,.;!?]*)"
)
def _went_doing(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    value = phrase(s, m, "obj", 6, purpose=True, company=True)
    if value:
        yield event(value, s, m)


@RULES.add(
    rf"{PAST}(?P<verb>visited|volunteered\s+(?:at|for|with)|performed\s+(?:at|in)|spoke\s+at"
    rf"|gave\s+a\s+(?:talk|speech|presentation)\s+(?:at|on|about)|hosted|organi[sz]ed"
    rf"|celebrated|graduated\s+from|won|ran|completed|finished)\s+{NP}"
)
def _did(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    verb = " ".join(m["verb"].lower().split())
    value = tidy(cut(s, m.start("obj"), m.end("obj"), purpose=True), 7, keep_article=True)
    if not value or value.lower().startswith(("them", "it ")):
        return
    if verb == "visited" and is_place(value):
        return  # a named place is rules.trips' visit; "I visited Sarah" stays an event
    if verb in ("ran", "completed", "finished") and not re.search(rf"\b(?:{RACES})\b", value,
                                                                  re.IGNORECASE):  # fmt: skip
        return
    yield event(f"{verb} {value}", s, m)


@RULES.add(rf"{PAST}joined\s+(?P<det>a|an|the|our)\s+{NP}")
def _joined(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "I joined a climbing gym last week", "I joined a church in my neighborhood"."""
    value = phrase(s, m, "obj", 5, purpose=True)
    head = re.split(r"\s(?:in|at|for|of|near|with|on|about)\s", value)[0] if value else ""
    if value and re.search(rf"\b(?:{GROUPS})(?:es|s)?$", head, re.IGNORECASE):
        yield state("member_of", value, "membership", f"joined {value}", 0.8, s, m,
                    change=True)  # fmt: skip
