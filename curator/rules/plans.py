"""What the speaker is working towards: projects under way and stated goals.

"I'm working on a novel" (works_on "novel"), "I just launched my podcast" (dated by its
time expression), "I'm planning to run a marathon" (goal "run a marathon").
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from curator.lexicon import I_, IM, IVE, NP, SKIP_GOALS
from curator.rules.base import Found, Rules, Sentence, state
from curator.rules.phrases import cut, phrase, tidy

RULES = Rules()

_PROJECT_SKIP = re.compile(
    r"\b(?:job|diet|conversation|day|week|fire|family|life|chat|class|course|lessons?|car|engine"
    r"|truck|laptop|computer|process|timer|meeting|call|shift|semester|term)$"
    r"|^(?:new\s+|big\s+|little\s+|few\s+)?(?:projects?|things?|ideas?|stuff)$",
    re.IGNORECASE,
)


@RULES.add(
    rf"(?:{IM}(?:working\s+on|writing|building|developing|launching|opening|starting"
    rf"|setting\s+up|putting\s+together|creating|designing)"
    rf"|(?P<chg>(?:{I_}|^(?:just\s+)?)(?:started|launched|opened|founded|set\s+up|built)))"
    rf"\s+(?P<det>a|an|my|our|the)\s+{NP}"
)
def _project(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    value = phrase(s, m, "obj", 5, purpose=True)
    if (
        not value
        or _PROJECT_SKIP.search(value)
        or re.match(r"(?:new\s+)?job\b", value, re.IGNORECASE)
    ):
        return
    yield state("works_on", value, "project", f"works on {value}", 0.8, s, m,
                change=bool(m["chg"]))  # fmt: skip


_BUSINESS = (
    r"(?:store|shop|boutique|business|company|studio|bakery|cafe|café|restaurant|salon|brand"
    r"|label|agency|practice|clinic|gym|startup|start-up|firm|food\s+truck|podcast|channel"
    r"|blog|band|line)"
)


@RULES.add(
    rf"(?:(?P<chg>{I_}(?:opened|launched|started|founded|set\s+up|built))|{I_}(?:run|own|have|manage)"
    rf"|{IM}(?:running|managing)|\b(?:by|with|from)(?:\s+running)?)"
    rf"\s+my\s+(?:very\s+)?own\s+(?P<obj>(?:[\w'-]+\s+){{0,3}}?{_BUSINESS})\b",
    "free",
)
def _own_business(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "I'm living my dream by running my own bike repair shop" (works_on "bike repair shop")."""
    value = tidy(m["obj"], 5)
    if value and not _PROJECT_SKIP.search(value):
        yield state("works_on", value, "project", f"works on {value}", 0.8, s, m,
                    change=bool(m["chg"]))  # fmt: skip


@RULES.add(
    rf"(?:(?:{IM}|^)(?:planning\s+(?:on|to)|determined\s+to|aiming\s+to)"
    rf"|{I_}(?:plan|intend|aim)\s+to|{IVE}decided\s+to|\bmy\s+(?:goal|plan)\s+is\s+to)"
    rf"\s+{NP}"
)
def _goal(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    value = tidy(cut(s, m.start("obj"), m.end("obj")), 8, keep_article=True)
    if value and value.split()[0].lower() not in SKIP_GOALS and value[0].islower():
        yield Found("goal", value, "goal", f"plans to {value}", 0.7)
