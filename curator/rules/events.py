"""What the speaker did: events they took part in, and groups they joined.

"I went to a support group yesterday", "we went camping last weekend", "I ran a
marathon in May", "I joined a choir". An event covers the day or period its time
expression names (the message's day when there is none); joining a group is a state.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from curator.lexicon import GROUPS, NP, PAST, RACES, TRIVIAL_PLACES
from curator.rules.base import Found, Rules, Sentence, state, window
from curator.rules.phrases import cut, phrase, tidy

RULES = Rules()


def _event(value: str, s: Sentence, m: re.Match[str], conf: float = 0.85) -> Found:
    w = window(s, m, "past")
    if w is not None and w.kind != "period":
        w = None
    return Found("participated_in", value, "event", f"took part in {value}",
                 conf if w else 0.7, window=w, event=True)  # fmt: skip


def _trivial(value: str) -> bool:
    head = re.sub(r"^(?:the|my|a|an)\s+", "", value.lower())
    return head in TRIVIAL_PLACES or head.split()[0] in ("see", "get", "grab", "pick", "bed")


@RULES.add(
    rf"{PAST}(?:went\s+to|attended|participated\s+in|took\s+part\s+in|competed\s+in"
    rf"|went\s+on|just\s+got\s+back\s+from|got\s+back\s+from)\s+{NP}"
)
def _went_to(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    value = phrase(s, m, "obj", 7, purpose=True)
    if value and not _trivial(value):
        yield _event(value, s, m)


@RULES.add(
    rf"{PAST}went\s+(?P<obj>(?!going\b|through\b|nothing\b|something\b)[a-z]+ing\b[^,.;!?]*)"
)
def _went_doing(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    value = phrase(s, m, "obj", 6, purpose=True)
    if value:
        yield _event(value, s, m)


@RULES.add(
    rf"{PAST}(?P<verb>visited|volunteered\s+(?:at|for|with)|performed\s+(?:at|in)|spoke\s+at"
    rf"|gave\s+a\s+(?:talk|speech|presentation)\s+(?:at|on|about)|hosted|organi[sz]ed"
    rf"|celebrated|graduated\s+from|won|ran|completed|finished)\s+{NP}"
)
def _did(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    verb = " ".join(m["verb"].lower().split())
    value = tidy(cut(s, m.start("obj"), m.end("obj"), purpose=True), 7, keep_article=True)
    if not value or value.lower().startswith(("my ", "them", "it ")):
        return
    if verb in ("ran", "completed", "finished") and not re.search(rf"\b(?:{RACES})\b", value,
                                                                  re.IGNORECASE):  # fmt: skip
        return
    yield _event(f"{verb} {value}", s, m)


@RULES.add(rf"{PAST}joined\s+(?P<det>a|an|the|our)\s+{NP}")
def _joined(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    value = phrase(s, m, "obj", 5)
    if value and re.search(rf"\b(?:{GROUPS})s?$", value, re.IGNORECASE):
        yield state("member_of", value, "membership", f"joined {value}", 0.8, s, m,
                    change=True)  # fmt: skip
