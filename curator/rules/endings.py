"""What stopped holding: negations and endings that END an earlier fact (CONTRACT §2.1, §4).

"I stopped drinking green tea", "I no longer work at Acme", "I don't live in Munich
anymore", "we broke up", "I left the book club", "I sold my car". Each is an `end` of the
earlier fact (`op="end"`, with its value, or any value of a relationship such as
`partner_of`), valid from when it ended: the statement's time expression ("last month",
"since May") or else the message time. A plain negation is not an ending ("I'm not a
nurse" says nothing about before): the present-tense forms need "anymore" or "no longer".
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from curator.lexicon import (
    ADV,
    ANYMORE,
    GIVE_UP,
    GROUPS,
    HABIT_VERBS,
    I_,
    IM,
    IVE,
    LIST,
    NAME,
    NP,
    OCCUPATIONS,
    PETS,
    POSSESSIONS,
    PROPER,
    WE,
)
from curator.rules.base import Found, Rules, Sentence, end_ok, window
from curator.rules.phrases import cut, phrase, tidy
from curator.rules.tastes import list_items
from graph.fields import Scalar

RULES = Rules()

_NOT = r"(?:don't|dont|do\s+not)"
_HAVE = rf"(?:{I_}|{IVE})"
_CLAUSE_END = re.compile(r"[;.!?]|,\s+(?:and|but|so|I|it|it's|they|he|she|we)\b", re.IGNORECASE)
_ORG = rf"(?:{PROPER}|(?P<common>(?:a|an|the)\s+[a-z'-]+(?:\s+[a-z'-]+){{0,2}}))"
_PARTNER = r"(?:boyfriend|girlfriend|partner|fianc[eé]e?|husband|wife)"


def _anymore(s: Sentence, m: re.Match[str]) -> bool:
    """The clause of match `m` says "anymore" ("I don't live in Oslo anymore")."""
    stop = _CLAUSE_END.search(s.text, m.end())
    clause = s.text[m.start() : stop.start() if stop else len(s.text)]
    return re.search(rf"\b{ANYMORE}\b", clause, re.IGNORECASE) is not None


def _negated(m: re.Match[str]) -> bool:
    """The match is a plain present negation ("don't", "not"), which needs "anymore"."""
    return re.search(rf"\b(?:{_NOT}|not)\b", m[0], re.IGNORECASE) is not None


def _end(attribute: str, value: Scalar | None, reason: str, s: Sentence, m: re.Match[str],
         confidence: float = 0.85) -> Found:  # fmt: skip
    """An end of `attribute` (= `value`, or any value when None), dated by its clause."""
    return Found(attribute, value, "ending", reason, confidence, op="end", window=window(s, m),
                 dated=True)  # fmt: skip


@RULES.add(
    rf"(?:{I_}(?:{_NOT}\s+(?:really\s+)?|no\s+longer\s+)(?:like|love|enjoy)"
    rf"|{IM}(?:not|no\s+longer)\s+(?:really\s+)?(?:into|a\s+(?:big\s+)?fan\s+of)"
    rf"|{_HAVE}(?:stopped|quit)\s+(?:liking|enjoying))\s+{LIST}"
)
def _likes_end(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "I don't like horror movies anymore", "I'm not into podcasts anymore"."""
    if _negated(m) and not _anymore(s, m):
        return
    for item in list_items(s, m):
        yield _end("likes", item, f"no longer likes {item}", s, m)


@RULES.add(
    rf"(?:{I_}(?:no\s+longer|{_NOT})\s+work(?:ing)?|{IM}(?:not|no\s+longer)\s+(?:working|employed)"
    rf"|{IM}no\s+longer)\s+(?:at|for)\s+{_ORG}"
)
def _employer_end(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "I no longer work at Globex", "I don't work at the bakery anymore"."""
    if _negated(m) and not _anymore(s, m):
        return
    org = phrase(s, m, "common", 3) if m["common"] else m["obj"]
    if org:
        yield _end("employer", org, f"no longer works at {org}", s, m)


@RULES.add(
    rf"(?:{I_}(?:no\s+longer|{_NOT})\s+live|{IM}(?:not|no\s+longer)\s+living"
    rf"|\bwe\s+{ADV}(?:no\s+longer|{_NOT})\s+live)\s+in\s+{PROPER}"
)
@RULES.add(rf"(?:{WE}|^(?:just\s+)?)moved\s+(?:away\s+from|out\s+of)\s+{PROPER}")
def _location_end(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "I don't live in Munich anymore", "we moved away from Leeds"."""
    if _negated(m) and not _anymore(s, m):
        return
    yield _end("location", m["obj"], f"no longer lives in {m['obj']}", s, m)


@RULES.add(
    rf"{IM}(?:no\s+longer|not)\s+(?:an?\s+)(?P<obj>(?:[a-z-]+\s+){{0,2}}?(?:{OCCUPATIONS}))\b"
    r"(?!'s|-\w)"
)
@RULES.add(rf"{_HAVE}(?:stopped|quit)\s+working\s+as\s+(?:an?\s+)?{NP}")
def _occupation_end(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "I'm not a teacher anymore", "I'm no longer a nurse", "I stopped working as a chef"."""
    if _negated(m) and not _anymore(s, m):
        return
    value = tidy(cut(s, m.start("obj"), m.end("obj")), 4)
    if value:
        yield _end("occupation", value, f"no longer works as {value}", s, m)


_NOT_HABITS = (
    r"working|being|trying|caring|worrying|feeling|thinking|talking|liking|enjoying|seeing"
    r"|dating|crying|laughing|looking|waiting|wondering|listening\s+to\s+(?:you|him|her|them)"
)


@RULES.add(rf"{_HAVE}(?:stopped|quit|gave\s+up|kicked)\s+(?P<obj>(?!(?:{_NOT_HABITS})\b)"
           rf"[a-z]+ing\b[^,.;:!?]*)")  # fmt: skip
@RULES.add(rf"{_HAVE}(?:gave\s+up|quit|cut\s+out|kicked)\s+(?P<obj>(?:{GIVE_UP}))\b")
def _habit_end(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "I stopped drinking green tea", "I quit smoking", "I gave up coffee"."""
    value = phrase(s, m, "obj", 5)
    if value:
        yield _end("habit", value, f"stopped {value}", s, m)


_HABIT_VERB = "|".join(sorted(HABIT_VERBS, key=len, reverse=True)).replace(" ", r"\s+")


@RULES.add(rf"(?:{I_}|\bwe\s+{ADV})(?:{_NOT}|no\s+longer)\s+(?P<verb>{_HABIT_VERB})\b"
           r"(?P<obj>[^,.;:!?]*)")  # fmt: skip
def _habit_not(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "I don't drink coffee anymore" (habit "drinking coffee"), "I no longer smoke"."""
    if _negated(m) and not _anymore(s, m):
        return
    verb = HABIT_VERBS[" ".join(m["verb"].lower().split())]
    rest = cut(s, m.start("obj"), m.end("obj"))
    if not rest.strip() or re.fullmatch(rf"\s*{ANYMORE}\s*", rest, re.IGNORECASE):
        yield _end("habit", verb, f"stopped {verb}", s, m)
        return
    obj = tidy(rest, 4, keep_article=True)
    if obj:
        yield _end("habit", f"{verb} {obj}", f"stopped {verb} {obj}", s, m)


@RULES.add(rf"{_HAVE}(?:left|quit|dropped\s+out\s+of)\s+(?P<det>the|my|our)\s+{NP}")
@RULES.add(rf"{IM}no\s+longer\s+(?:a\s+member\s+of|part\s+of|in|with)\s+(?P<det>the|my|our)\s+{NP}")
def _member_end(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "I left the book club in December", "I'm no longer part of the choir"."""
    value = phrase(s, m, "obj", 4)
    if value and re.search(rf"\b(?:{GROUPS})s?$", value, re.IGNORECASE):
        yield _end("member_of", value, f"left {value}", s, m)


@RULES.add(
    rf"(?:\bwe\s+{ADV}|(?-i:\b[A-Z][a-z]+)\s+and\s+I\s+{ADV}|\bmy\s+(?:ex-?)?{_PARTNER}\s+and\s+I"
    rf"\s+{ADV}|(?P<i>{I_}))(?:broke\s+up|split\s+up|separated|called\s+it\s+quits)"
    rf"(?P<with>\s+with\s+(?:{NAME}|(?:my|her|his)\s+{_PARTNER}))?"
)
def _breakup(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "we broke up", "Tom and I split up last week", "I broke up with my boyfriend"."""
    if (m["i"] and not m["with"]) or not end_ok(s, m.end()):
        return
    yield _end("partner_of", None, "broke up with their partner", s, m)


@RULES.add(rf"(?:\bwe\s+{ADV}|{I_})(?:got\s+)?divorced\b")
def _divorce(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "We got divorced last year" ends the marriage (the status is `relationship_status`)."""
    yield _end("married_to", None, "divorced", s, m)


@RULES.add(rf"(?:{WE}|^(?:just\s+)?)(?:sold|got\s+rid\s+of|gave\s+away)\s+(?:my|our)\s+"
           rf"(?:old\s+)?(?P<obj>{POSSESSIONS})\b")  # fmt: skip
def _owns_end(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "I sold my motorbike last weekend"."""
    if end_ok(s, m.end()):
        value = m["obj"].lower()
        yield _end("owns", value, f"no longer owns a {value}", s, m)


@RULES.add(rf"{_HAVE}(?:stopped|quit)\s+working\s+on\s+(?P<det>the|my|our|a|an)\s+{NP}")
@RULES.add(rf"{_HAVE}gave\s+up\s+on\s+(?P<det>the|my|our)\s+{NP}")
def _project_end(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "I stopped working on the novel", "I gave up on my podcast"."""
    value = phrase(s, m, "obj", 5)
    if not value or re.search(r"\b(?:dreams?|goals?|hope|life|myself)$", value, re.IGNORECASE):
        return
    yield _end("works_on", value, f"stopped working on {value}", s, m)


@RULES.add(
    rf"\b(?:my|our)\s+(?:old\s+|sweet\s+|beloved\s+|little\s+)?(?P<pet>{PETS})\s+{NAME}\s+"
    r"(?:passed\s+away|died|passed|was\s+put\s+down|had\s+to\s+be\s+put\s+down)",
    "free",
)
def _pet_end(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "my dog Biscuit passed away on Saturday" ends pet "Biscuit (dog)"."""
    value = f"{m['name']} ({m['pet'].lower()})"
    yield _end("pet", value, f"pet {value} died", s, m)
