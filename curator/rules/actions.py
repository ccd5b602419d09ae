"""What the speaker did: past actions, dated by the time expression that governs them.

"I picked up a second-hand telescope" (owns, from the purchase on), "last weekend I tried
that new ramen place" (an event, `participated_in` "tried new ramen place"), "I took the
kids to the lake on Sunday" (an event at the lake), "I finally finished my first novel
draft last Friday", "I met Ines at the gym yesterday" (knows Ines, from then on), "I
signed up for a pottery class yesterday" (member_of, from the sign-up), "my grandmother
passed away three days ago" (a `life_event` on that day), "that's the church where we got
married" (relationship_status married).

An event covers its day or period; undated, the message's day with a low confidence (the
person confirms it). A state that an action starts ("bought", "met", "signed up") holds
from the action's window on (CONTRACT §4).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from committer.proposals import EntityRef
from curator.lexicon import (
    GROUPS,
    IVE,
    NAME,
    NP,
    PAST,
    PETS,
    RACES,
    REL_MOD,
    RELS,
    TRIVIAL_PLACES,
    words,
)
from curator.rules.base import Found, Rules, Sentence, end_ok, event, state, window, without_praise
from curator.rules.phrases import cut, tidy

RULES = Rules()


def _value(
    s: Sentence,
    m: re.Match[str],
    max_words: int,
    *,
    article: bool = False,
    until: re.Pattern[str] | None = None,
) -> str | None:
    """The object phrase, cut at its clause's end (and at `until`), without "that"/"this"."""
    begin = m.start("obj")
    lead = re.match(
        r"(?:that|this|those|these)\s+(?=\w)", s.text[begin : m.end("obj")], re.IGNORECASE
    )
    if lead:
        begin += lead.end()
    raw = cut(s, begin, m.end("obj"), purpose=True, company=True)
    return tidy(until.sub("", raw) if until else raw, max_words, keep_article=article)


# --- acquisitions ------------------------------------------------------------------------

_NOT_OWNED = words(
    "groceries grocery food lunch dinner breakfast brunch coffee tea drink drinks snack snacks"
    " ticket tickets gift gifts present presents flowers supplies ingredients stuff things"
    " pizza cake wine beer round time idea ideas toys treats subscription insurance tip tips"
    " meal meals dessert candy chocolate milk bread fruit veggies vegetables takeout shots"
    " souvenir souvenirs card cards balloons decorations fuel gas petrol recipes recipe skills"
    " tricks habits words phrases lessons class classes course courses"
)
"""Heads of what one buys but does not keep: groceries, tickets, gifts, a round of drinks."""

_KEPT = (
    r"car|bike|bicycle|motorbike|motorcycle|scooter|house|home|apartment|flat|condo|cottage"
    r"|cabin|boat|sailboat|kayak|canoe|piano|keyboard|guitar|violin|cello|drum\s+kit|drums"
    r"|ukulele|telescope|camera|laptop|computer|tablet|phone|smartphone|tv|television|console"
    r"|truck|van|camper|camper\s+van|campervan|rv|tent|record\s+player|sewing\s+machine|drone"
    r"|e-?bike|skateboard|surfboard|snowboard|skis|watch|ring|necklace|pendant|bracelet"
    r"|espresso\s+machine|3d\s+printer|microscope|binoculars|treadmill"
)
"""Things one keeps, for the ambiguous "I got a ..." (not "I got a text", "got a job")."""


def _owned(value: str | None, s: Sentence, m: re.Match[str], after: str = "") -> Iterable[Found]:
    """`owns` <value> from the action's window on; `after` is the text right after the
    thing's name ("for my sister": a gift, not the speaker's)."""
    if not value or value.split()[-1].lower() in _NOT_OWNED or _PET.fullmatch(value):
        return  # a pet is `pet` (rules.family)
    if re.match(r"(?:few|couple|lot|bunch|pair|ton|load|lots)\b", value, re.IGNORECASE):
        return
    if _GIFT.match(after):
        return  # a gift, not the speaker's
    yield state("owns", value, "acquisition", f"owns {value}", 0.85, s, m, change=True)


_GIFT = re.compile(
    r"\s*for\s+(?:her|his|their|the|a|an|him|them|someone|my\s+(?!birthday|bday|anniversary"
    r"|christmas|graduation|self|own|new|home|house|flat|apartment|trip|commute)\w+)\b",
    re.IGNORECASE,
)
"""What the thing is for, when it is someone else's ("a necklace for my sister")."""
_ARTICLE = re.compile(r"^(?:an?|the)\s+", re.IGNORECASE)
_PET = re.compile(rf"(?:(?:new|little|baby|young|cute|sweet)\s+)?(?:{PETS})", re.IGNORECASE)
_OWN_CUT = re.compile(
    r"\s(?:at|from|for|with|on|off|during|while|to|after|before)\s.*$", re.IGNORECASE
)
_NEWLY = re.compile(r"^(?:(?:brand[- ])?new|another)\s+", re.IGNORECASE)


@RULES.add(
    rf"(?:{PAST}|{IVE})(?:bought(?!\s+into\b)|purchased|treated\s+(?:myself|ourselves)\s+to|splurged\s+on"
    rf"|picked\s+up(?=\s+(?:an?|some)\s))\s+(?P<det>an?|some|my|our|two|three|a\s+pair\s+of)?\s*{NP}"
)
def _bought(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "I picked up a second-hand telescope", "we bought a sailboat in August" (owns)."""
    value = _value(s, m, 6, until=_OWN_CUT)
    if value and re.match(r"(?:[\w'-]+\s+){1,2}(?:an?|some)\s", value):
        return  # "bought my mom a scarf": for someone else
    if value and not m["det"] and " " not in value and not value.endswith("s"):
        return  # "bought lunch": a bare singular word is an errand, not a thing kept
    raw = s.text[m.start("obj") : m.end("obj")]
    after = raw[raw.find(value) + len(value) :] if value and value in raw else ""
    yield from _owned(_NEWLY.sub("", value) if value else value, s, m, after)


@RULES.add(
    r"^(?:these|this|the|those|that)\s+(?P<obj>(?:(?!(?:is|are|was|were|where|when|which|how"
    r"|why|what)\b)[\w-]+\s+){0,3}?(?!(?:is|are|was|were|where|when|which)\b)[\w-]+)\s+"
    r"(?:that\s+)?(?:I|we)\s+(?:just\s+|finally\s+)?(?:bought|picked\s+up|ordered)\b",
    "free",
)
def _bought_before(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "These little clay birds I bought yesterday remind me of my mom" (owns)."""
    value = tidy(m["obj"], 4)
    if value and not value.lower().startswith(("one", "thing", "stuff")):
        yield from _owned(value, s, m)


@RULES.add(
    rf"{PAST}got\s+(?:myself\s+|ourselves\s+)?(?:an?|my\s+first)\s+(?P<obj>(?:(?:brand[- ])?new"
    rf"\s+)?(?:[\w-]+\s+){{0,2}}?(?:{_KEPT}))\b"
)
def _got(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "I finally got a new bike", "I got a kayak for my birthday" (owns bike, kayak)."""
    value = tidy(m["obj"], 4)
    yield from _owned(_NEWLY.sub("", value) if value else None, s, m, s.text[m.end() :])


# --- tried, took, finished -----------------------------------------------------------------

_NOT_TRIED = re.compile(
    r"^(?:to|(?:my|our|their)\s+best|best|hard|harder|everything|anything|something|again|so|really|not"
    r"|(?:talking|explaining|calling|reaching|asking|telling|looking|finding|getting|making"
    r"|being|doing|staying|keeping|thinking|focusing|working|helping|using|changing|fixing"
    r"|convincing|texting|waiting|sleeping|apologi[sz]ing|reasoning|arguing)\b)",
    re.IGNORECASE,
)


@RULES.add(rf"{PAST}(?:tried(?:\s+out)?|checked\s+out)\s+(?:my\s+hand\s+at\s+)?{NP}")
def _tried(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "last weekend I tried that new ramen place" (tried new ramen place)."""
    raw = s.text[m.start("obj") : m.end("obj")]
    if _NOT_TRIED.search(raw):
        return
    value = _value(s, m, 6)
    if value and not re.match(r"(?:on|in|it|for|with)\b", value, re.IGNORECASE):
        yield event(f"tried {value}", s, m)


_TOOK_EVENTS = (
    r"class|classes|course|workshop|lesson|lessons|seminar|masterclass|bootcamp|boot\s+camp"
    r"|road\s+trip|day\s+trip|trip|tour|cruise|vacation|holiday|hike|retreat|getaway"
)


_NOT_SOMEONE = re.compile(
    r"\b(?:time|photo|photos|pic|pics|picture|pictures|advice|word|chance|break"
    r"|breath|turn|step|steps|lead|car|bus|train|look)\b",
    re.IGNORECASE,
)
"""What "took ..." takes that is no person or group ("took a photo", "took the bus")."""


@RULES.add(
    rf"{PAST}took\s+(?P<who>(?:my|our|the)\s+(?:[\w-]+\s+){{0,2}}?[\w-]+)\s+"
    rf"(?:to\s+{NP}|(?P<ing>(?!(?:out|home|back)\b)[a-z]+ing\b[^,.;:!?]*))"
)
def _took_someone(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "I took the kids to the lake on Sunday" (an event at the lake), "I took my family
    camping by the river last week" (an event: camping by the river)."""
    if _NOT_SOMEONE.search(m["who"]):
        return
    group = "ing" if m["ing"] else "obj"
    value = tidy(cut(s, m.start(group), m.end(group), purpose=True, company=True), 7)
    if not value or value.lower() in TRIVIAL_PLACES or value.split()[0].lower() in TRIVIAL_PLACES:
        return
    if re.match(r"(?:walk|pee|potty|bathroom|toilet|vet\b)", value, re.IGNORECASE) and not m["ing"]:
        return
    yield event(value, s, m)


@RULES.add(
    rf"{PAST}(?:took|did)\s+(?:an?|my\s+first|our\s+first)\s+(?P<obj>(?:[\w'-]+\s+){{0,4}}?"
    rf"(?:{_TOOK_EVENTS}))\b(?P<to>\s+(?:[\w']+\s+){{0,3}}?to\s+(?-i:[A-Z]))?"
)
def _took_class(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "I took a bouldering class", "I took a screenwriting class recently"."""
    value = tidy(m["obj"], 6)
    if value and not m["to"]:  # a trip to a named place is a visit (rules.trips)
        yield event(value, s, m)


@RULES.add(
    rf"{PAST}(?:finished|completed)(?:\s+up)?\s+(?:(?:my|our|an?|the|another|this)\s+"
    rf"(?!race|marathon|one\b|week|morning|year|month)|(?=(?:reading|rereading|watching"
    rf"|writing|knitting|painting|building|sewing|restoring)\s))(?P<obj>[^,.;:!?()\n]+)"
)
def _finished(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "I finally finished my first full novel draft last Friday" (an event)."""
    value = _value(s, m, 6, article=True)
    if not value or re.match(r"(?:work|dinner|lunch|breakfast|school|the\s+day|my\s+shift"
                             r"|(?:the\s+)?(?:dishes|laundry|chores|cleaning|shopping|homework))\b",
                             value, re.IGNORECASE):  # fmt: skip
        return
    if re.search(rf"\b(?:{RACES})\b", value, re.IGNORECASE):
        return  # a race run is rules.events' "ran"/"completed"
    verb = "finished" if "finish" in m[0].lower() else "completed"
    yield event(f"{verb} {without_praise(_ARTICLE.sub('', value))}", s, m)


# --- people met, groups signed up for -------------------------------------------------------

_WHO_MET = r"(?:woman|man|guy|girl|lady|person|kid|boy|couple|teacher|artist|friend)"


@RULES.add(
    rf"{PAST}met\s+(?:up\s+with\s+)?(?:(?:an?|this|that|the)\s+(?:[\w-]+\s+){{0,3}}?{_WHO_MET},\s+)?"
    rf"{NAME}(?!'s|\s+(?:and|or)\s+(?-i:[A-Z]))"
)
def _met(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "I met Ines at the climbing gym yesterday" (knows Ines, from then on)."""
    if end_ok(s, m.end()) or re.match(r"\s+(?:at|in|on|from|through|during|while|last|this|"
                                      r"yesterday|today|when|,)", s.text[m.end():]):  # fmt: skip
        who = EntityRef(name=m["name"], kind="person")
        w = window(s, m)
        dated = w is not None and w.kind == "period" and not w.is_future(s.at)
        yield Found("knows", None, "event", f"met {m['name']}", 0.85, obj=who,
                    window=w if dated else None, dated=dated)  # fmt: skip


_ONE_OFF = (
    rf"workshop|{RACES}|tournament|competition|contest|conference|festival|retreat|trip|tour"
    r"|camp|event|show|gig|concert|trek|hike|expedition|audition|exam|trial|fundraiser|walk"
)


@RULES.add(
    rf"(?:{PAST}|{IVE})(?:signed\s+up|enrolled|registered|got\s+(?:accepted\s+)?into"
    rf"|was\s+accepted\s+(?:into|to)|got\s+accepted\s+(?:to|for))\s+(?:for\s+|in\s+|on\s+|to\s+join\s+)?"
    rf"(?P<det>an?|the|our)\s+{NP}"
)
@RULES.add(
    rf"{PAST}(?:started|began)\s+(?P<det>an?)\s+(?P<obj>(?:[\w'-]+\s+){{0,4}}?"
    r"(?:class|classes|course|lessons|program|programme|training|bootcamp)\b[^,.;:!?]*)"
)
def _signed_up(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "I signed up for a pottery class yesterday" (member_of, from the sign-up); "I've
    signed up for a sourdough workshop next month" (an event, next month)."""
    value = tidy(cut(s, m.start("obj"), m.end("obj"), purpose=True, company=True), 6)
    if not value:
        return
    head = re.split(r"\s(?:in|at|for|on|with|near|about|of)\s", value)[0]
    if re.search(rf"\b(?:{_ONE_OFF})s?$", head, re.IGNORECASE):
        w = window(s, m, "future")
        if w is not None and w.kind == "period" and w.is_future(s.at) and "start" not in m[0]:
            yield Found("participated_in", value, "event", f"takes part in {value}", 0.8,
                        window=w, event=True)  # fmt: skip
    elif re.search(rf"\b(?:{GROUPS})(?:es|s)?$", head, re.IGNORECASE):
        yield state("member_of", value, "membership", f"joined {value}", 0.8, s, m, change=True)


# --- life events -----------------------------------------------------------------------------


@RULES.add(
    rf"\bmy\s+{REL_MOD}(?:late\s+)?(?P<rel>{RELS})(?:\s+{NAME})?\s+(?:just\s+|sadly\s+)?"
    r"(?P<verb>passed\s+away|passed\s+on|died|was\s+killed)\b",
    "free",
)
def _death(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "my grandmother passed away three days ago" (a life event that day)."""
    rel = " ".join(m["rel"].lower().split())
    who = f"{rel} {m['name']}" if m["name"] else rel
    yield event(f"{who} {' '.join(m['verb'].lower().split())}", s, m, attribute="life_event",
                reason="lived through")  # fmt: skip


@RULES.add(
    rf"{PAST}(?:had|welcomed)\s+(?:a|our\s+first|our\s+second)\s+"
    r"(?P<obj>baby(?:\s+(?:girl|boy))?|son|daughter|twins)\b"
    r"(?!\s+(?:shower|sitter|monitor|bump|steps|food|photos?|pics?|clothes|gear))"
)
def _birth(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "we had a baby girl two weeks ago" (a life event)."""
    yield event(f"had a {m['obj'].lower()}", s, m, attribute="life_event", reason="lived through")


@RULES.add(
    rf"\b(?:our|my)\s+(?P<obj>(?:(?:first|second|third|fourth|new|baby)\s+)?(?:baby|child|son"
    rf"|daughter|grandchild|grandson|granddaughter|niece|nephew)(?:\s+{NAME})?)\s+was\s+born\b",
    "free",
)
def _born(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "our second child was born on Tuesday" (a life event)."""
    yield event(f"{m['obj']} was born", s, m, attribute="life_event", reason="lived through")


@RULES.add(r"\b(?:where|when|the\s+day)\s+(?:we|I)\s+got\s+married\b", "free")
def _married_where(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "that's the church where we got married" (relationship_status married)."""
    yield Found("relationship_status", "married", "family", "is married", 0.8)
