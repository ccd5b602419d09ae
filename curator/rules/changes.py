"""Moves and changes: a new value of a `one` attribute from the change on (CONTRACT §2.1).

"I switched to the night shift last week" (shift "night"), "I went vegan last month"
(diet "vegan"), "we moved to a new flat in Leeds" and "we moved from Austin to Denver"
(location), "I got promoted to senior engineer" and "I started a new job as a paramedic"
(occupation), "I changed my name to Alex" and "I switched my major to biology". Each is
asserted from the change's time expression (or the message time), so the committer's
supersede rule retires the earlier value at that point: nothing needs ending here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from curator.lexicon import ADV, DIETS, I_, IM, IVE, NAME, NP, PROPER, SHIFT, SHIFTS, WE
from curator.rules.base import Found, Rules, Sentence, end_ok, state
from curator.rules.phrases import cut, phrase, tidy

RULES = Rules()

_CHANGED = r"(?:switched|moved|changed|transferred|went|got\s+(?:moved|put))\s+(?:over\s+)?"


@RULES.add(
    rf"(?:(?P<chg>{I_}{_CHANGED}to|{IVE}{_CHANGED}to|{I_}(?:started|was\s+put\s+on|got\s+put\s+on))"
    rf"|{IM}(?:now\s+)?on|{IVE}been\s+(?:working\s+)?on|{I_}work)"
    rf"\s+(?:the\s+|a\s+)?(?P<shift>{SHIFT})\s+shifts?\b"
)
@RULES.add(rf"(?:{I_}(?P<chg>started\s+)?work(?:ing)?|{IM}working)\s+(?P<shift>nights|evenings"
           r"|weekends|mornings)\b")  # fmt: skip
def _shift(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "I switched to the night shift", "I'm on the day shift now", "I work nights"."""
    value = SHIFTS[m["shift"].lower()]
    yield state("shift", value, "move", f"works the {value} shift", 0.85, s, m,
                change=bool(m["chg"]))  # fmt: skip


@RULES.add(
    rf"(?:{I_}|{IVE}|\bwe\s+{ADV})(?:went|turned|became|have\s+gone|'ve\s+gone|gone"
    rf"|switched\s+to\s+(?:being\s+)?|decided\s+to\s+go)\s+(?:an?\s+)?(?P<diet>{DIETS})\b"
    r"(?!\s+(?:food|restaurant|place|recipe|cake|option|friend|festival|market|cookbook))"
)
@RULES.add(
    rf"(?:{I_}|{IVE})(?:switched\s+to|started|went\s+on|moved\s+to|been\s+on)\s+(?:an?\s+|the\s+)?"
    rf"(?P<diet>{DIETS})\s+diet\b"
)
def _diet(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "I went vegan last month", "I switched to a vegetarian diet two weeks ago"."""
    value = m["diet"].lower()
    yield state("diet", value, "move", f"eats {value}", 0.85, s, m, change=True)


@RULES.add(rf"(?:{I_}|{IVE})(?:legally\s+)?changed\s+my\s+name\s+to\s+{NAME}")
def _name_change(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "I changed my name to Alex last year"."""
    yield state("name", m["name"], "move", f"is called {m['name']}", 0.85, s, m, change=True)


@RULES.add(rf"(?:{I_}(?:got|was)|{IVE}been)\s+promoted\s+to\s+(?:an?\s+|the\s+)?{NP}")
@RULES.add(
    rf"(?:{I_}|{IVE}|{IM}|^(?:just\s+)?)(?:started|starting|got|landed|took|accepted)\s+(?:a\s+)?"
    rf"(?:new\s+)?(?:job|position|role)\s+as\s+(?:an?\s+|the\s+)?{NP}"
)
def _new_occupation(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "I got promoted to senior engineer", "I started a new job as a financial analyst"."""
    raw = cut(s, m.start("obj"), m.end("obj"))
    at = re.search(rf"\s+(?:at|with|for)\s+{PROPER}\s*$", raw)
    value = tidy(raw[: at.start()] if at else raw, 4)
    value = value.lower() if value and value.istitle() else value  # "a Financial Analyst"
    if value and value[0].islower():
        yield state("occupation", value, "move", f"works as {value}", 0.85, s, m, change=True)
        if at:  # "a job as a sous chef at Marrow"
            yield state("employer", at["obj"], "move", f"works at {at['obj']}", 0.85, s, m,
                        change=True)  # fmt: skip


@RULES.add(rf"(?:{I_}|{IVE})(?:switched|changed)\s+my\s+major\s+to\s+{NP}")
def _major(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "I switched my major to biology"."""
    value = phrase(s, m, "obj", 3)
    if value:
        yield state("studies", value, "move", f"studies {value}", 0.85, s, m, change=True)


_HOME = r"(?:apartment|flat|house|home|place|condo|studio|loft|townhouse)"


@RULES.add(
    rf"(?:{WE}|{IVE}|\bwe(?:'ve|\s+have)\s+{ADV}|^(?:just\s+|finally\s+)?)(?:moved|relocated)\s+"
    rf"(?:in)?to\s+(?:a|an|our|my|the)\s+(?:(?:new|bigger|smaller|little|tiny|nice|cute)\s+)*"
    rf"{_HOME}\s+in\s+{PROPER}"
)
@RULES.add(
    rf"(?:{WE}|{IVE}|\bwe(?:'ve|\s+have)\s+{ADV}|^(?:just\s+|finally\s+)?)(?:moved|relocated)\s+"
    rf"from\s+(?-i:[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*){{0,2}})\s+to\s+{PROPER}"
)
def _moved_to(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "We've moved to a new apartment in Leeds", "we moved from Austin to Denver"."""
    if end_ok(s, m.end()) or re.match(r"\s+(?:for|with|last|this|in|on|at)\b", s.text[m.end() :]):
        yield state("location", m["obj"], "move", f"moved to {m['obj']}", 0.85, s, m,
                    change=True)  # fmt: skip
