"""Who the speaker is: name, age and identity ("I'm Ana", "I'm 32", "I'm a trans woman")."""

from __future__ import annotations

import re
from collections.abc import Iterable

from curator.lexicon import I_, IDENTITY, IM, MAX_AGE, NAME
from curator.rules.base import Found, Rules, Sentence, end_ok, g, state

RULES = Rules()


@RULES.add(rf"(?:\bmy\s+name(?:'s|\s+is)|\bcall\s+me|\bI\s+go\s+by)\s+{NAME}", "free")
def _name(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    yield Found("name", m["name"], "identity", f"is called {m['name']}", 0.9)


@RULES.add(rf"^(?:(?:hi|hello|hey)\b[\s,!]*)?I(?:'m|\s+am)\s+{NAME}(?=\s*(?:[,.!]|$|\s+and\b))")
def _intro(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    if not re.search(r"(?:ish|ese|ian|an|ic|i)$", m["name"]):  # "I'm Swedish", "Catholic"
        yield Found("name", m["name"], "identity", f"is called {m['name']}", 0.8)


@RULES.add(rf"{IM}(?P<n>\d{{1,3}})(?:\s+(?:years?|yrs?)(?:\s+old)?)?|{I_}turned\s+(?P<t>\d{{1,3}})")
def _age(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    n = int(m["n"] or m["t"])
    if 0 < n < MAX_AGE and end_ok(s, m.end()):
        yield state("age", n, "identity", f"is {n} years old", 0.85, s, m, change=bool(m["t"]))


@RULES.add(rf"(?:{IM}(?:an?\s+)?(?:proud\s+)?|(?P<as>\bas\s+an?\s+)){IDENTITY}(?P<comma>\s*,)?")
@RULES.add(
    rf"(?P<my>\bmy\s+(?:own\s+)?(?:journey|path|experience|life|story|identity)\s+as\s+an?\s+)"
    rf"{IDENTITY}",
    "free",
)
def _identity(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "I'm a trans woman", "As a trans woman, I ...", "my journey as a trans woman"."""
    if g(m, "my") or (g(m, "comma") if g(m, "as") else end_ok(s, m.end("obj"))):
        value = " ".join(m["obj"].split())
        yield Found("identity", value, "identity", f"identifies as {value}", 0.85)
