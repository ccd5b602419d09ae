"""What the speaker says about other named people (CONTRACT §3, §4).

"my sister Ana lives in Porto", "my friend Priya works at Google", "my son Theo is 12",
"Ana, my sister, lives in Porto". The statement is about the named person: its findings
carry `subject=EntityRef(name="Ana", kind="person")`, which the committer resolves to
Ana's entity or creates. The speaker's relationship to her ("sibling_of -> Ana") comes
from the relative's mention (`curator.rules.family`), or from here for the apposition,
where the name comes first. Only named people: "my sister lives in Porto" has no one to
attach the location to, so it is left alone (precision first).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator

from committer.proposals import EntityRef
from curator.lexicon import (
    ADV,
    EVALUATIVE,
    LIST,
    MAX_AGE,
    NAME,
    NAMED_FROM,
    OCCUPATIONS,
    PEOPLE_RELS,
    PROPER,
    REL_ATTR,
    REL_MOD,
)
from curator.rules.base import Found, Rules, Sentence, end_ok, state, window
from curator.rules.phrases import phrase, tidy
from curator.rules.tastes import list_items
from graph.fields import Scalar

RULES = Rules()

_WHO = rf"\bmy\s+{REL_MOD}(?P<rel>{PEOPLE_RELS})\s+{NAME}{NAMED_FROM}\s+{ADV}"
_APPOSITION = rf"^{NAME},\s+my\s+{REL_MOD}(?P<rel>{PEOPLE_RELS}),\s+{ADV}"
_ORG = rf"(?:{PROPER}|(?P<common>(?:a|an|the)\s+[a-z'-]+(?:\s+[a-z'-]+){{0,2}}))"

Statement = Callable[[re.Match[str], Sentence], Iterator[tuple[str, Scalar, Found | None]]]


def _about(predicate: str) -> Callable[[Statement], Statement]:
    """Register `predicate` after "my <relative> <Name>" and after "<Name>, my <relative>,".

    The decorated function yields `(attribute, value, found)` for the named person: `found`
    when it built the finding itself (to date it), else None for an undated state.
    """

    def register(statement: Statement) -> Statement:
        def builder(m: re.Match[str], s: Sentence) -> Iterable[Found]:
            who = EntityRef(name=m["name"], kind="person")
            for attribute, value, found in statement(m, s):
                base = found or state(attribute, value, "other_person", "", 0.8, s, m)
                yield Found(attribute, value, "other_person",
                            f"{m['name']}: {attribute} {value}", 0.8, window=base.window,
                            dated=base.dated, subject=who)  # fmt: skip
            if m[0].startswith(m["name"]):  # the apposition: no relative mention made it
                rel = " ".join(m["rel"].lower().split())
                yield Found(REL_ATTR[rel], None, "family", f"{rel} {m['name']}", 0.85,
                            obj=who, mention=True)  # fmt: skip

        RULES.add(_WHO + predicate, "free")(builder)
        RULES.add(_APPOSITION + predicate, "free")(builder)
        return statement

    return register


def _dated(attribute: str, value: Scalar, s: Sentence, m: re.Match[str], change: bool) -> Found:
    return state(attribute, value, "other_person", "", 0.8, s, m, change=change)


@_about(r"(?:lives|is\s+living|is\s+based|has\s+(?:been\s+living|lived))\s+in\s+" + PROPER)
def _lives(m: re.Match[str], s: Sentence) -> Iterator[tuple[str, Scalar, Found | None]]:
    """ "my sister Ana lives in Porto"."""
    yield "location", m["obj"], None


@_about(r"(?:moved|relocated)\s+(?:back\s+)?to\s+" + PROPER)
def _moved(m: re.Match[str], s: Sentence) -> Iterator[tuple[str, Scalar, Found | None]]:
    """ "my best friend Sam moved to London last month" (dated by its time expression)."""
    yield "location", m["obj"], _dated("location", m["obj"], s, m, True)


@_about(r"is\s+(?:moving|relocating)\s+(?:back\s+)?to\s+" + PROPER)
def _moving(m: re.Match[str], s: Sentence) -> Iterator[tuple[str, Scalar, Found | None]]:
    """ "my colleague Raj is moving to Singapore next month" (only with a future date)."""
    w = window(s, m, "future")
    if w is not None and w.is_future(s.at):
        yield "location", m["obj"], Found("location", m["obj"], "", "", 0.8, window=w, dated=True)


@_about(r"(?:is\s+(?:originally\s+)?from|comes\s+from|grew\s+up\s+in|was\s+born\s+in)\s+" + PROPER)
def _from(m: re.Match[str], s: Sentence) -> Iterator[tuple[str, Scalar, Found | None]]:
    """ "my cousin Leila is from Tehran"."""
    yield "hometown", m["obj"], None


@_about(r"(?:works|is\s+working|has\s+been\s+working)\s+(?:at|for)\s+" + _ORG)
@_about(r"(?P<chg>(?:started|got|landed)\s+(?:a\s+)?(?:new\s+)?job\s+(?:at|with))\s+" + _ORG)
def _employer(m: re.Match[str], s: Sentence) -> Iterator[tuple[str, Scalar, Found | None]]:
    """ "my friend Priya works at Google", "my girlfriend Lena works for the city council"."""
    org = phrase(s, m, "common", 3) if m["common"] else m["obj"]
    if org and org.lower() not in ("moment", "home", "night", "weekend"):
        yield "employer", org, _dated("employer", org, s, m, bool(m.groupdict().get("chg")))


@_about(
    r"works\s+as\s+(?:an?\s+)?(?P<occ>[a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,2}?)"
    rf"(?:\s+(?:at|for)\s+{_ORG})?(?=\s*(?:[,.;:!?]|$)|\s+(?:and|but|so|in|since|now)\b)"
)
def _works_as(m: re.Match[str], s: Sentence) -> Iterator[tuple[str, Scalar, Found | None]]:
    """ "my husband Jonas works as a nurse at St. Mary's" (occupation and employer)."""
    occ = tidy(m["occ"], 4)
    if occ and not EVALUATIVE.intersection(occ.lower().split()):
        yield "occupation", occ, None
    org = phrase(s, m, "common", 3) if m["common"] else m["obj"]
    if org:
        yield "employer", org, None


@_about(rf"is\s+(?:an?\s+)(?P<job>(?:[a-z-]+\s+){{0,2}}?(?:{OCCUPATIONS}))\b(?!'s|-\w)")
def _is_a(m: re.Match[str], s: Sentence) -> Iterator[tuple[str, Scalar, Found | None]]:
    """ "my dad Roberto is a carpenter", "my roommate Kim is a medical student"."""
    if not EVALUATIVE.intersection(m["job"].lower().split()) and end_ok(s, m.end()):
        yield "occupation", m["job"], None


@_about(r"(?:is|(?P<chg>just\s+turned|turned))\s+(?P<n>\d{1,3})(?:\s+(?:years?|yrs?)(?:\s+old)?)?")
def _age(m: re.Match[str], s: Sentence) -> Iterator[tuple[str, Scalar, Found | None]]:
    """ "my son Theo is 12", "my daughter Mia turned 7 yesterday"."""
    n = int(m["n"])
    if 0 < n < MAX_AGE and end_ok(s, m.end()):
        yield "age", n, _dated("age", n, s, m, bool(m["chg"]))


@_about(r"(?P<like>loves|likes|enjoys|adores|is\s+(?:really\s+|so\s+)?into|is\s+obsessed\s+with"
        r"|is\s+passionate\s+about|(?P<dis>hates|dislikes|can't\s+stand|doesn't\s+like))\s+"
        + LIST)  # fmt: skip
def _tastes(m: re.Match[str], s: Sentence) -> Iterator[tuple[str, Scalar, Found | None]]:
    """ "my mom Carmen loves gardening", "my brother Diego hates flying"."""
    for item in list_items(s, m):
        yield ("dislikes" if m["dis"] else "likes"), item, None


@_about(r"(?:(?P<chg>just\s+got|got)\s+|is\s+(?:now\s+)?)(?P<st>married|engaged|divorced|single)\b")
def _status(m: re.Match[str], s: Sentence) -> Iterator[tuple[str, Scalar, Found | None]]:
    """ "my sister Ines got engaged last weekend"."""
    if end_ok(s, m.end()):
        status = m["st"].lower()
        yield "relationship_status", status, _dated("relationship_status", status, s, m,
                                                    bool(m["chg"]))  # fmt: skip
