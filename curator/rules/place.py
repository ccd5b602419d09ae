"""Where the speaker lives and comes from.

"I live in Berlin", "we moved to Porto last month" (dated by its time expression),
"I'm moving to Lisbon next year" (only with a future date) and "I grew up in Ohio".
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from curator.lexicon import ADV, I_, IM, IVE, PROPER, WE
from curator.rules.base import Found, Rules, Sentence, state, window

RULES = Rules()


@RULES.add(
    rf"(?:{I_}live|{IM}(?:living|based)|{IVE}(?:been\s+living|lived)|\bwe\s+{ADV}live)"
    rf"\s+in\s+{PROPER}"
)
def _lives(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    conf = 0.8 if m[0].lower().startswith("we") else 0.9
    yield state("location", m["obj"], "location", f"lives in {m['obj']}", conf, s, m)


@RULES.add(
    rf"(?:{WE}|{IVE}|\bwe(?:'ve|\s+have)\s+{ADV}|^(?:just\s+|recently\s+)?)(?:moved|relocated)"
    rf"\s+(?:back\s+)?(?:here\s+)?to\s+{PROPER}"
)
def _moved(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    yield state("location", m["obj"], "location", f"moved to {m['obj']}", 0.85, s, m,
                change=True)  # fmt: skip


@RULES.add(rf"(?:{IM}|\bwe(?:'re|\s+are)\s+{ADV})(?:moving|relocating)\s+(?:back\s+)?to\s+{PROPER}")
def _moving(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    w = window(s, m, "future")
    if w is not None and w.is_future(s.at):
        yield Found("location", m["obj"], "location", f"moves to {m['obj']}", 0.75, window=w,
                    dated=True)  # fmt: skip


@RULES.add(
    rf"(?:{IM}(?:originally\s+)?from|{I_}(?:originally\s+)?come\s+from|{I_}grew\s+up\s+in"
    rf"|\bI\s+was\s+(?:born|raised)(?:\s+and\s+(?:raised|bred))?\s+in)\s+{PROPER}"
)
def _hometown(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    yield Found("hometown", m["obj"], "location", f"is from {m['obj']}", 0.85)
