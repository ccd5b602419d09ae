"""What every statement rule works with: the sentence, the finding, the registry, the speaker.

A rule is a regular expression plus a builder: the driver (`curator.extract`) searches a
`Sentence` with the pattern, checks with `speaks_for_self` that the match is the
speaker's own plain statement, and calls the builder, which yields what it found as
`Found`s. Each area module (`curator.rules.identity`, `.work`, ...) registers its rules
in a `Rules` list, in the order that breaks ties between matches at one position.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from committer.proposals import EntityRef
from curator.lexicon import CONNECTORS, NUMBERS
from curator.timeparse import Window
from graph.fields import Scalar


@dataclass(frozen=True, slots=True)
class Sentence:
    """One sentence: `text` with typographic quotes made plain (same length as `evidence`).

    Attributes:
        text: the sentence with plain quotes, searched by the rules.
        evidence: the sentence as written, quoted in provenance.
        at: the message time, aware, in the speaker's own offset.
        past: time expressions in `text`, ambiguous ones resolved towards the past.
        future: the same, resolved towards the future.
    """

    text: str
    evidence: str
    at: datetime
    past: list[Window]
    future: list[Window]


@dataclass(frozen=True, slots=True)
class Found:
    """One statement found in a sentence, before it becomes a `Proposal`.

    `dated`: the statement's time expression dates a state's start ("I moved to Porto
    last month"); otherwise a state starts at the message time unless the expression is
    "since ..." or "for N years". `event`: the value happened within the window.
    `subject`: another person the statement is about ("my sister Ana lives in Porto"),
    None for the speaker. `mention`: the finding is a passing mention ("my sister" in
    "my sister lives in Madrid"), not what the clause states (see `curator.rules.memory`).
    """

    attribute: str
    value: Scalar | None
    type: str
    reason: str
    confidence: float
    op: Literal["assert", "end"] = "assert"
    obj: EntityRef | None = None
    window: Window | None = None
    dated: bool = False
    event: bool = False
    subject: EntityRef | None = None
    mention: bool = False


Mode = Literal["anchored", "free", "request"]
"""How a rule's match must sit in its sentence (see `speaks_for_self`)."""

Builder = Callable[[re.Match[str], Sentence], Iterable[Found]]
"""Turns one match of a rule's pattern into what it states (possibly nothing)."""


@dataclass(frozen=True, slots=True)
class Rule:
    """A compiled pattern (case-insensitive), where it may sit, and its builder."""

    pattern: re.Pattern[str]
    mode: Mode
    builder: Builder


class Rules:
    """An ordered list of rules, filled by decorating builders with `add`."""

    def __init__(self) -> None:
        self._rules: list[Rule] = []

    def add(self, pattern: str, mode: Mode = "anchored") -> Callable[[Builder], Builder]:
        """Register a builder for `pattern` (case-insensitive; names and places are cased).

        Stacked decorators register bottom-up, like calls from the inside out.
        """

        def register(builder: Builder) -> Builder:
            self._rules.append(Rule(re.compile(pattern, re.IGNORECASE), mode, builder))
            return builder

        return register

    def __iter__(self) -> Iterator[Rule]:
        return iter(self._rules)


# --- who says it, and how --------------------------------------------------------------

_HYPOTHETICAL = re.compile(
    r"\b(?:if|unless|would|wish|imagine|suppose|supposing|pretend|whether|hopefully|maybe"
    r"|perhaps|might|could|should|wonder|(?<!living\smy\s)(?<!living\sthe\s)dream|dreaming|think|thought|guess(?!\s+what)|said|says|told"
    r"|tells|heard|someday|someone|somebody|when|whenever|once|will|thinking|can't\s+wait)\b"
    r"|\b\w+'(?:d|ll)\b",
    re.IGNORECASE,
)
_REPORTED_OR_NEGATED = re.compile(
    r"\b(?:said|says|told|tells|heard|asked|don't|do\s+not|never|stop|no\s+need)\b", re.IGNORECASE
)
_POLITE_QUESTION = re.compile(
    r"^(?:[\w']+[,!]\s+)?(?:please\s+)?(?:can|could|would|will)\s+you\b|\bplease\b", re.IGNORECASE
)


_NEWS = re.compile(
    r"\b(?:let\s+you\s+know|tell\s+you|to\s+say|to\s+share|to\s+mention|update\s+you"
    r"|fill\s+you\s+in|guess\s+what|news\s+is|is\s+that|turns\s+out)(?:\s+that)?$",
    re.IGNORECASE,
)
"""A lead-in to the speaker's own news: "I wanted to let you know (that) I joined ..."."""


def speaks_for_self(s: Sentence, pos: int, mode: Mode) -> bool:  # noqa: PLR0911  # one return per reason a statement is not the speaker's own
    """True when the statement starting at `pos` is the speaker's own, plainly asserted.

    "anchored" statements ("I ...") must open a clause: nothing before them in the
    sentence, or a comma, a dash, a connector ("and", "so", "yeah") or a time expression;
    "free" ones ("my sister Ana") may sit anywhere. Neither may follow a conditional, a
    wish or reported speech. A "request" to the assistant ("could you answer in Spanish?")
    is polite, so only reported speech or a negation before it rules it out; as a question
    it must be a polite one ("can you ...", "... please?"), not "why do you answer in French?".
    """
    prefix = s.text[:pos]
    if prefix.count('"') % 2:
        return False
    if mode == "request":
        if s.text.rstrip().endswith("?") and not _POLITE_QUESTION.search(s.text):
            return False
        return not _REPORTED_OR_NEGATED.search(prefix)
    if _HYPOTHETICAL.search(prefix):
        return False
    if mode == "free":
        return True
    for w in reversed(s.past):
        if w.span[1] <= pos:
            prefix = prefix[: w.span[0]] + " " * (w.span[1] - w.span[0]) + prefix[w.span[1] :]
    prefix = prefix.rstrip()
    if not prefix or prefix[-1] in ",;:!(-–—…" or _NEWS.search(prefix):
        return True
    words = re.findall(r"[\w']+", prefix)
    return bool(words) and words[-1].lower() in CONNECTORS


# --- when ------------------------------------------------------------------------------

_CLAUSE_AFTER = re.compile(r"[;:]|,\s+(?:and|but|so)\b|\b(?:and|but|so|because)\s+(?:I|we)\b")
_CLAUSE_BEFORE = re.compile(r"[;:]|\b(?:and|but|so|because)\b", re.IGNORECASE)


def window(s: Sentence, m: re.Match[str], prefer: str = "past") -> Window | None:
    """The time expression of the clause holding match `m`: after it first, else before."""
    windows = s.past if prefer == "past" else s.future
    tail = _CLAUSE_AFTER.search(s.text, m.end())
    stop = tail.start() if tail else len(s.text)
    after = [w for w in windows if m.start() <= w.span[0] < stop]
    if after:
        return after[0]
    head = [b.end() for b in _CLAUSE_BEFORE.finditer(s.text, 0, m.start())]
    start = head[-1] if head else 0
    before = [w for w in windows if start <= w.span[0] and w.span[1] <= m.start()]
    return before[-1] if before else None


_PRAISE = re.compile(
    r"^(?:(?:great|amazing|awesome|fun|nice|lovely|beautiful|wonderful|fantastic|cool|wild"
    r"|crazy|epic|incredible|fabulous|brilliant|super|really|very|long|quick|little|big)\s+)+",
    re.IGNORECASE,
)


def without_praise(value: str) -> str:
    """The value without leading praise or size ("a great big hike" is "hike")."""
    return _PRAISE.sub("", value) or value


def event(
    value: str,
    s: Sentence,
    m: re.Match[str],
    conf: float = 0.85,
    attribute: str = "participated_in",
    reason: str = "took part in",
) -> Found:
    """An event within the past period its clause names, else on the message's day with a
    confidence below the usual threshold (the person confirms it); praise is no part of its
    name ("a great hike" is "hike")."""
    w = window(s, m, "past")
    if w is not None and (w.kind != "period" or w.is_future(s.at)):
        w = None
    value = without_praise(value)
    return Found(attribute, value, "event", f"{reason} {value}", conf if w else 0.7,
                 window=w, event=True)  # fmt: skip


def state(
    attribute: str, value: Scalar, type_: str, reason: str, confidence: float,
    s: Sentence, m: re.Match[str], *, change: bool = False, prefer: str = "past",
) -> Found:  # fmt: skip
    """A state: dated by its time expression if it is a change ("moved") or "since ..."."""
    w = window(s, m, prefer)
    dated = w is not None and (change or w.kind in ("since", "duration"))
    if (
        w is not None
        and w.kind == "duration"
        and not re.search(r"\b(?:I've|I\s+have|been)\b", s.text, re.IGNORECASE)
    ):
        dated = False
    return Found(attribute, value, type_, reason, confidence, window=w if dated else None,
                 dated=dated)  # fmt: skip


# --- small helpers ---------------------------------------------------------------------


def g(m: re.Match[str], group: str) -> str | None:
    """The text of `group`, or None when it did not match or the pattern has no such group."""
    return m.groupdict().get(group)


def count(word: str) -> int:
    """A count written in digits or as a word ("3", "three", "a")."""
    return int(word) if word.isdigit() else NUMBERS[word.lower()]


def end_ok(s: Sentence, end: int) -> bool:
    """The clause ends at `end` (punctuation, a connector, a time expression or the end)."""
    rest = s.text[end:]
    for w in s.past + s.future:
        if w.span[0] >= end and not s.text[end : w.span[0]].strip():
            return True
    return bool(
        re.match(r"\s*(?:$|[,.;:!?)\-–—]|(?:and|but|so|because|now|too)\b)", rest, re.IGNORECASE)
    )
