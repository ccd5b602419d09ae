"""Places the speaker visited: `visited` <place>, an event dated by its clause.

"I took a short trip last week to Vienna", "we flew to Tokyo in April", "I took that
photo on my trip to the Dolomites last year", "Lisbon two years ago was the best trip
I've had". Only named places (capitalised): "I went to the beach" is an event of
`curator.rules.events`. A trip mentioned without a past date ("my trip to Rome") may
still be ahead, so it is left alone; "I visited Sarah" names a person as often as a
place, so "visited" takes a known place or a geographic name only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from curator.lexicon import PAST, PROPER, words
from curator.rules.base import Found, Rules, Sentence, end_ok, event, g, window

RULES = Rules()

_TRIP = r"(?:trip|vacation|holiday|getaway|journey|road\s+trip|tour|visit|honeymoon|weekend)"

NOT_DESTINATIONS = words(
    "target walmart costco starbucks ikea mcdonald's aldi lidl tesco cvs walgreens kroger"
    " safeway amazon netflix youtube instagram facebook tiktok google zoom mom dad mum"
    " grandma grandpa church january february march april may june july august september"
    " october november december monday tuesday wednesday thursday friday saturday sunday"
    " christmas easter thanksgiving halloween"
)
"""Named places one "goes to" on an errand, and names that are not places at all."""

_GEOGRAPHIC = re.compile(
    r"\b(?:City|Park|Mountains?|Falls|Lake|Islands?|Beach|Valley|Canyon|Coast|Bay|Forest"
    r"|National|Peak|River|Desert|Alps|Highlands|Village|Town|County|State|Province|Island)$"
    r"|^the\s"
)
"""A proper name that reads as a place by its shape ("Yosemite Valley", "the UK")."""

PLACES = words(
    "paris london rome berlin madrid lisbon porto barcelona vienna prague budapest amsterdam"
    " brussels dublin edinburgh glasgow athens istanbul copenhagen stockholm oslo helsinki"
    " reykjavik warsaw krakow munich milan venice florence naples seville valencia nice"
    " tokyo kyoto osaka seoul beijing shanghai bangkok singapore bali hanoi delhi mumbai"
    " sydney melbourne auckland toronto vancouver montreal chicago boston seattle miami"
    " denver austin nashville vegas hawaii alaska california florida texas oregon mexico"
    " canada peru brazil chile argentina colombia cuba japan china korea india thailand"
    " vietnam indonesia australia iceland ireland scotland england wales france spain"
    " portugal italy germany greece turkey egypt morocco kenya norway sweden finland"
    " denmark poland croatia switzerland austria hungary netherlands belgium uk usa nyc"
    " europe asia africa tuscany provence cornwall yosemite"
)
"""Places "visited" may name without doubt (a person is "visited" as often as a city)."""


def _destination(name: str) -> bool:
    key = name.lower().removeprefix("the ")
    return key not in NOT_DESTINATIONS and not key.endswith("'s")


def is_place(name: str) -> bool:
    """A name "visited" takes as a place: a known one, or a geographic name by its shape."""
    return name.lower().removeprefix("the ") in PLACES or bool(_GEOGRAPHIC.search(name))


_NP_END = re.compile(
    r"\s*(?:$|[,.;:!?)\-–—]|(?:for|to|in|on|at|with|and|but|so|because|last|this|yesterday"
    r"|today|after|before|during|when|while|since|again|recently|twice|once|back|a|an|the"
    r"|from|until|over)\b)",
    re.IGNORECASE,
)
"""What may follow a place's name: "to Rome for a wedding", not "to the Harry Potter festival"."""


def visit(
    place: str, s: Sentence, m: re.Match[str], *, dated_only: bool = False
) -> Iterable[Found]:
    """`visited` <place> within the clause's past period (or on the message's day, held);
    nothing when the name goes on as a longer phrase ("the Harry Potter festival")."""
    ends = _NP_END.match(s.text, m.end("obj")) or end_ok(s, m.end("obj"))
    if not _destination(place) or not ends:
        return
    found = event(place, s, m, attribute="visited", reason="visited")
    if dated_only and found.window is None:
        return
    yield found


@RULES.add(
    rf"{PAST}(?:(?:went|flew|drove|travel(?:l)?ed|headed)(?:\s+back)?\s+to"
    rf"|(?:just\s+)?(?:got|came)\s+back\s+from|returned\s+from)\s+{PROPER}"
)
def _went_to_place(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "Went to Barcelona last month", "we flew to Tokyo in April"."""
    yield from visit(m["obj"], s, m)


@RULES.add(rf"{PAST}visited\s+{PROPER}(?!'s|\s+(?:and|&)\s+(?-i:[A-Z]))")
@RULES.add(
    rf"{PAST}(?P<stay>spent|stayed|vacationed|holidayed)\s+(?:(?:a|an|two|three|four|five|ten"
    rf"|\d+|a\s+few|a\s+couple\s+of)\s+(?:days?|weeks?|nights?|months?)|the\s+weekend"
    rf"|the\s+summer|a\s+weekend)\s+in\s+{PROPER}"
)
def _visited(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "I visited Kyoto two weeks ago" (not "I visited Sarah"), "we spent a week in Crete"."""
    if g(m, "stay") or is_place(m["obj"]):
        yield from visit(m["obj"], s, m)


@RULES.add(
    rf"{PAST}(?:took|went\s+on|had|made|did|booked|planned)\s+(?:an?|our|my)\s+"
    rf"(?:[\w-]+\s+){{0,2}}?{_TRIP}(?:\s+[\w']+){{0,3}}?\s+(?:to|in)\s+{PROPER}"
)
def _trip(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "I took a short trip last week to Vienna", "last year I went on a solo trip to Portugal"."""
    if re.search(r"\b(?:booked|planned)\b", m[0], re.IGNORECASE):
        w = window(s, m)
        if w is None or w.is_future(s.at):
            return
    yield from visit(m["obj"], s, m)


@RULES.add(
    rf"\b(?:my|our|that|the|this)\s+(?:(?:last|first|recent|big|short|solo|family|school|work"
    rf"|business|road|amazing|great|\w+-day)\s+)*{_TRIP}\s+(?:to|in)\s+{PROPER}",
    "free",
)
def _trip_mention(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "I took that photo on my trip to the Dolomites last year": dated in the past only."""
    yield from visit(m["obj"], s, m, dated_only=True)


@RULES.add(
    rf"^(?:(?:and|but|so|oh|honestly|yeah)[,\s]+)?{PROPER}(?P<rest>[^.;!?]*?)\s+(?:was|is)\s+"
    rf"(?:the|my|our)\s+(?:best|favou?rite|greatest|most\s+\w+|nicest|coolest)\s+{_TRIP}"
)
def _best_trip(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "Lisbon two years ago was the best trip I've had"."""
    if m["rest"].strip() and not any(m.start("rest") <= w.span[0] for w in s.past):
        return  # something else between the name and "was": not a trip's name
    yield from visit(m["obj"], s, m)
