"""The speaker's work: occupation and employer, and the end of a job.

"I'm a nurse", "I work as a sous chef", "I work at Acme", "I'm starting a new job at
Acme next week" and "I lost my job at Door Dash this month" (an `end` of the employer).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable

from curator.lexicon import DIETS, EVALUATIVE, I_, IM, IVE, NP, OCCUPATIONS, PROPER
from curator.rules.base import Found, Rules, Sentence, end_ok, g, state, window
from curator.rules.phrases import cut, phrase, tidy

RULES = Rules()


@RULES.add(
    rf"(?:{IM}|{IVE}been\s+)(?:an?\s+)(?P<obj>(?:[a-z-]+\s+){{0,2}}?(?:{OCCUPATIONS}))\b"
    r"(?!'s|-\w|\s+(?:fan|at\s+heart|of\s+life|in\s+spirit|by\s+nature|in\s+training)\b)"
)
def _occupation(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "I'm a nurse", "I'm now a full-time nurse at St. Luke's" (and the employer)."""
    if not EVALUATIVE.intersection(m["obj"].lower().split()):
        yield state("occupation", m["obj"], "work", f"works as {m['obj']}", 0.85, s, m)
        at = re.match(rf"\s+(?:at|for|with)\s+{PROPER}", s.text[m.end() :])
        if at and end_ok(s, m.end() + at.end()):
            yield state("employer", at["obj"], "work", f"works at {at['obj']}", 0.85, s, m)


@RULES.add(
    rf"(?:(?:{I_}work|{IM}working|{IVE}(?:been\s+)?work(?:ed|ing))\s+as"
    rf"|(?P<chg>{I_}(?:became(?=\s+an?\s)|got\s+(?:a|my\s+first)\s+job\s+as"
    rf"|started\s+working\s+as)))"
    rf"\s+(?:an?\s+)?{NP}"
)
def _works_as(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    value = phrase(s, m, "obj", 4)
    if value and re.fullmatch(rf"(?:{DIETS})", value, re.IGNORECASE):  # a diet (rules.changes)
        return
    if value and not EVALUATIVE.intersection(value.lower().split()):
        yield state("occupation", value, "work", f"works as {value}", 0.85, s, m,
                    change=bool(m["chg"]))  # fmt: skip


_NOT_WORKPLACES = frozenset(
    {"moment", "living", "home", "bed", "night", "weekend", "time", "fun", "same time", "end"}
)
_ORG = rf"(?:{PROPER}|(?P<common>(?:a|an|the)\s+[a-z'-]+(?:\s+[a-z'-]+){{0,2}}))"


@RULES.add(
    rf"(?:(?:{I_}work|{IM}(?:working|employed)|{IVE}(?:been\s+)?work(?:ed|ing))\s+(?:at|for|by)"
    rf"|(?P<chg>{I_}(?:got|landed|started|began)\s+(?:a\s+|my\s+)?(?:new\s+|first\s+|dream\s+)?"
    rf"(?:job|position|role|working|internship|gig)\s+(?:at|with|for)"
    rf"|{I_}(?:got\s+|was\s+)?hired\s+(?:at|by)))\s+{_ORG}"
)
@RULES.add(
    rf"(?P<chg>(?P<soon>{I_}accepted\s+(?:an?\s+|the\s+)?(?:job\s+)?offer)\s+(?:from|at|with))"
    rf"\s+{_ORG}"
)
@RULES.add(
    rf"(?P<chg>\bmy\s+first\s+(?:day|week|shift)\s+(?:of\s+work\s+)?(?:at|with))\s+{_ORG}",
    "free",
)
@RULES.add(rf"(?P<chg>(?P<soon>{IM}starting)\s+(?:a\s+)?(?:new\s+)?(?:job|position|role)\s+"
           rf"(?:at|with))\s+{_ORG}")  # fmt: skip
def _employer(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    if m["common"]:
        value = phrase(s, m, "common", 3)
        if not value or value.lower() in _NOT_WORKPLACES:
            return
        confidence = 0.7
    else:
        value, confidence = m["obj"], 0.85
    found = state("employer", value, "work", f"works at {value}", confidence, s, m,
                  change=bool(m["chg"]), prefer="future" if g(m, "soon") else "past")  # fmt: skip
    if g(m, "soon") and "offer" in m[0].lower() and not found.dated:
        found = dataclasses.replace(found, confidence=0.7)  # accepted, start unknown: ask
    yield found


@RULES.add(
    rf"(?P<chg>{I_}(?:got\s+|was\s+)?hired\s+as\s+(?:an?\s+)?)(?P<occ>[a-z][a-z-]*(?:\s+[a-z-]+)"
    rf"{{0,2}}?)\s+(?:at|by|for)\s+{PROPER}"
)
@RULES.add(
    rf"(?P<chg>{I_}(?:joined|(?:got\s+|was\s+)?hired\s+(?:at|by)))\s+{PROPER}\s+as\s+(?:an?\s+)?"
    rf"(?P<occ>[a-z][a-z-]*(?:\s+[a-z-]+){{0,2}}?)(?=\s*(?:[,.;:!?]|$)|\s+(?:in|at|on|last|this"
    rf"|two|three|a|and|but|so|since|yesterday|today|recently|back)\b)"
)
def _joined_as(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "I joined Brightwave as a junior developer two weeks ago" (employer and occupation)."""
    occ = tidy(m["occ"], 3)
    if occ and not EVALUATIVE.intersection(occ.lower().split()):
        yield state("employer", m["obj"], "work", f"works at {m['obj']}", 0.85, s, m, change=True)
        yield state("occupation", occ, "work", f"works as {occ}", 0.85, s, m, change=True)


@RULES.add(rf"{I_}(?:quit|resigned\s+from|retired\s+from)\s+(?P<occ>){PROPER}")
@RULES.add(rf"{I_}got\s+(?:fired|laid\s+off|let\s+go)(?P<occ>)(?:\s+from\s+{_ORG})?")
@RULES.add(
    rf"(?:{I_}|^(?:just\s+)?)(?:lost|quit|left)\s+my\s+(?:old\s+|last\s+|day\s+)?job\b"
    rf"(?:\s+as\s+(?:an?\s+)?(?P<occ>[a-z]+(?:\s+[a-z]+)?)|\s+(?:at|with)\s+{_ORG})?"
)
def _job_end(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    w = window(s, m)
    if m["occ"]:
        occ = tidy(cut(s, m.start("occ"), m.end("occ")), 3)
        if occ:
            yield Found("occupation", occ, "work_end", f"no longer works as {occ}", 0.85,
                        op="end", window=w, dated=True)  # fmt: skip
        return
    org = g(m, "obj") or (g(m, "common") and phrase(s, m, "common", 3))
    reason = f"no longer works at {org}" if org else "lost their job"
    yield Found("employer", org or None, "work_end", reason, 0.85 if org else 0.75, op="end",
                window=w, dated=True)  # fmt: skip
