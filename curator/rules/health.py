"""The speaker's health: conditions and allergies (CONTRACT §3: privileged, held for a yes).

"I was diagnosed with celiac disease last year" (condition, from then on), "I'm allergic
to peanuts" (allergy), "I have asthma", "I suffer from migraines", "I'm lactose
intolerant", "I broke my wrist skiing last week" (condition "broken wrist"). The
attributes `condition` and `allergy` are in the registry's `health` area, so the risk
policy's privileged rule (`curator.policy`) holds every such proposal for the person.
A figure of speech ("I'm allergic to drama") is not a health fact.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from curator.lexicon import I_, IM, IVE, LIST, NP, words
from curator.rules.base import Found, Rules, Sentence, end_ok, state
from curator.rules.phrases import phrase, tidy
from curator.rules.tastes import list_items

RULES = Rules()

CONDITIONS = (
    r"asthma|(?:type\s+(?:1|2|one|two)\s+)?diabetes|celiac(?:\s+disease)?|coeliac(?:\s+disease)?"
    r"|adhd|add|autism|depression|anxiety|an\s+anxiety\s+disorder|ptsd|ocd|bipolar(?:\s+disorder)?"
    r"|epilepsy|migraines?|arthritis|eczema|psoriasis|ibs|crohn's(?:\s+disease)?|lupus"
    r"|multiple\s+sclerosis|fibromyalgia|insomnia|sleep\s+apnea|high\s+blood\s+pressure"
    r"|hypertension|cancer|chronic\s+(?:pain|fatigue)|back\s+pain|tinnitus|scoliosis|dyslexia"
    r"|long\s+covid|a\s+heart\s+condition|anemia|anaemia|endometriosis|pcos|hypothyroidism"
    r"|a\s+(?:bad|bum|weak)\s+(?:knee|back|hip|shoulder)|vertigo|hay\s+fever|allergies"
)
"""Conditions "I have ..." names without doubt (a closed list: "I have a cold" is not one)."""

_ADJECTIVES = {
    "lactose intolerant": "lactose intolerance", "gluten intolerant": "gluten intolerance",
    "diabetic": "diabetes", "asthmatic": "asthma", "epileptic": "epilepsy",
    "anemic": "anemia", "anaemic": "anaemia", "dyslexic": "dyslexia", "celiac": "celiac disease",
    "coeliac": "coeliac disease", "pre-diabetic": "prediabetes", "prediabetic": "prediabetes",
}  # fmt: skip
_ADJECTIVE = "|".join(sorted(_ADJECTIVES, key=len, reverse=True))

_FIGURATIVE = words(
    "drama mornings monday mondays work people nonsense stupidity effort commitment exercise"
    " responsibility chores homework math maths cardio adulting change mornings small talk"
    " meetings deadlines running bs mess"
)
"""What one is "allergic to" as a joke."""

_FOUND_OUT = (
    r"(?:\b(?:found\s+out|learned|learnt|realized|realised|discovered)\s+(?:recently\s+|today\s+"
    r"|last\s+\w+\s+)?(?:that\s+)?)"
)
_INJURY = {
    "broke": "broken", "fractured": "fractured", "sprained": "sprained", "twisted": "twisted",
    "tore": "torn", "dislocated": "dislocated", "injured": "injured", "hurt": "hurt",
    "pulled": "pulled", "strained": "strained",
}  # fmt: skip
_BODY = (
    r"wrist|ankle|arm|leg|foot|toe|finger|hand|knee|hip|shoulder|back|neck|collarbone|rib|ribs"
    r"|nose|jaw|elbow|hamstring|calf|acl|meniscus|achilles|thumb|pinky"
)


def _condition(value: str, s: Sentence, m: re.Match[str], *, change: bool = False) -> Found:
    return state("condition", value, "health", f"has {value}", 0.85, s, m, change=change)


@RULES.add(
    rf"(?:{I_}(?:was|got)|{IVE}been|{IM})\s+(?:officially\s+|finally\s+)?diagnosed\s+with\s+{NP}"
)
def _diagnosed(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "I was diagnosed with celiac disease last year" (condition, from then on)."""
    value = phrase(s, m, "obj", 5)
    if value:
        yield _condition(value, s, m, change=True)


@RULES.add(
    rf"(?:(?:{I_}{_FOUND_OUT})?{IM}|{I_}(?P<chg>became|got|have\s+become|'ve\s+become)\s+)"
    rf"(?:severely\s+|very\s+|really\s+|super\s+|deathly\s+|mildly\s+|a\s+bit\s+|also\s+)?"
    rf"allergic\s+to\s+{LIST}"
)
def _allergic(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "I'm allergic to cats and most furry animals" (two allergies)."""
    for listed in list_items(s, m, 5):
        item = re.sub(r"^to\s+", "", listed, flags=re.IGNORECASE)  # "to pollen and to dust"
        if re.match(r"[a-z]+ed\b|(?:found|got|made|went|had|was|is|it's)\b", item, re.IGNORECASE):
            continue  # ", found out the hard way": a new clause, not an allergen
        if item.lower() not in _FIGURATIVE and item.split()[-1].lower() not in _FIGURATIVE:
            yield state("allergy", item, "health", f"is allergic to {item}", 0.85, s, m,
                        change=bool(m["chg"]))  # fmt: skip


@RULES.add(
    rf"{I_}(?:have|'ve\s+got|have\s+got)\s+(?:an?\s+)?(?:severe\s+|mild\s+|bad\s+|serious\s+"
    r"|terrible\s+)?(?P<obj>[a-z-]+(?:\s+[a-z-]+)?)\s+allerg(?:y|ies)\b"
)
def _allergy_noun(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "I have a severe shellfish allergy" (allergy "shellfish")."""
    value = tidy(m["obj"], 2)
    if value and value.lower() not in ("food", "seasonal", "bad", "an", "some", "no"):
        yield state("allergy", value, "health", f"is allergic to {value}", 0.85, s, m)


@RULES.add(
    rf"(?:{I_}(?:have|'ve\s+got|have\s+got|suffer\s+from|live\s+with|struggle\s+with"
    rf"|was\s+born\s+with|deal\s+with)|{IVE}(?:had|been\s+(?:dealing|living|struggling)\s+with"
    rf"|suffered\s+from))\s+(?P<obj>{CONDITIONS})\b"
    r"(?!\s+(?:about|over|around|before|for\s+the|when|of\s+the|attack\s+last))"
)
def _has_condition(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "I have asthma", "I've had type 1 diabetes since I was a kid", "I suffer from migraines"."""
    value = re.sub(r"^an?\s+", "", " ".join(m["obj"].split()), flags=re.IGNORECASE)
    if value.lower() == "allergies":
        return
    if re.fullmatch(r"adhd|add|ocd|ptsd|ibs|pcos", value, re.IGNORECASE):
        value = value.upper()
    yield _condition(value, s, m)


@RULES.add(rf"{IM}(?:also\s+|severely\s+|mildly\s+)?(?P<adj>{_ADJECTIVE})\b")
def _adjective(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "I'm lactose intolerant" (condition "lactose intolerance")."""
    if end_ok(s, m.end()):
        yield _condition(_ADJECTIVES[" ".join(m["adj"].lower().split())], s, m)


@RULES.add(rf"{I_}(?P<verb>{'|'.join(_INJURY)})\s+my\s+(?:left\s+|right\s+)?(?P<part>{_BODY})\b")
def _injury(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "I broke my wrist skiing last week" (condition "broken wrist", from then on)."""
    value = f"{_INJURY[m['verb'].lower()]} {m['part'].lower()}"
    yield _condition(value, s, m, change=True)
