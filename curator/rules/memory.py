"""Explicit memory requests: "remember that ...", "note that ...", "forget that ..." (CONTRACT §3).

The request's inner clause is mined with the normal rules as if stated plainly (the driver,
`curator.extract`, does that); this module finds the request and its clause, and says what
to propose when no rule states anything in it: a `note` with the clause's own words
("remember that I'm allergic to peanuts" -> note "I'm allergic to peanuts"), or the end
of that note for "forget that ...".

A request must open its sentence ("Remember that ...", "Please note that ...", "Can you
remember that ...?", "Don't forget that ..."), so "I'll remember that" and "do you
remember that ...?" are not requests. The clause must read as a statement: it starts with
a subject ("I", "my", "we", "the", a name ...), not "that time we ...", or follows a colon
("Remember: deploys need the lock"); a clause addressed to the listener ("... that you
should never give up") is advice, not a memory.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

__all__ = ["MemoryRequest", "find_request", "note_value"]

_REQUEST = re.compile(
    r"^(?:(?:ok|okay|oh|hey|also|and|btw|so|just|quick\s+thing)[,!]?\s+)*"
    r"(?:(?P<ask>(?:can|could|would|will)\s+you\s+(?:please\s+)?|I\s+(?:want|need)\s+you\s+to\s+"
    r"|please\s+))?"
    r"(?:(?P<forget>forget)|(?P<keep>remember|note|make\s+a\s+note|keep\s+in\s+mind"
    r"|(?:don't|do\s+not)\s+forget|take\s+note))"
    r"(?:\s+(?:that|this)\b\s*:?|\s*(?P<colon>:))\s*(?:I\s+(?:said|told\s+you|mentioned)\s+(?:that\s+)?)?"
    r"(?P<inner>\S.*)$",
    re.IGNORECASE | re.DOTALL,
)
_MIN_STATEMENT_WORDS = 3
"""A remembered clause of fewer words is no statement ("remember that one")."""
_STATEMENT_START = re.compile(
    r"^(?:I|I'm|I've|I'd|I'll|my|we|we're|we've|our|me|the|his|her|their|he|she|they"
    r"|(?-i:[A-Z][a-z]+))\b",
    re.IGNORECASE,
)
_NOT_A_STATEMENT = re.compile(
    r"^(?:the\s+)?(?:time|times|day|days|night|moment|one|place|trip|song|movie|show|book)\b"
    r"|\b(?:you|your|yours|u|ur)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class MemoryRequest:
    """A request found in a sentence.

    Attributes:
        op: "assert" to remember, "end" to forget.
        begin: where the inner clause starts in the sentence.
        end: where it ends (trailing punctuation and "please" left out).
        plain: True when the clause reads as a statement of its own (a note may hold it).
    """

    op: Literal["assert", "end"]
    begin: int
    end: int
    plain: bool


def find_request(text: str) -> MemoryRequest | None:
    """The memory request opening `text` (one sentence), or None.

    Args:
        text: a sentence with plain quotes.

    Returns:
        The request with its inner clause's span, or None when the sentence is no request.
    """
    m = _REQUEST.match(text)
    if m is None:
        return None
    begin, end = m.start("inner"), m.end("inner")
    tail = re.search(r"(?:[\s,]+please)?[\s.!?…]*$", text[begin:end], re.IGNORECASE)
    if tail:
        end = begin + tail.start()
    inner = text[begin:end]
    if not inner.strip():
        return None
    # "Remember: deploys need the lock": after a colon the clause is the note itself,
    # whatever word it opens with (CONTRACT §13); after "that" it must read as a statement.
    plain = (
        len(inner.split()) >= _MIN_STATEMENT_WORDS
        and (m["colon"] is not None or _STATEMENT_START.match(inner) is not None)
        and _NOT_A_STATEMENT.search(inner) is None
    )
    return MemoryRequest("end" if m["forget"] else "assert", begin, end, plain)


def note_value(clause: str) -> str:
    """The note's value: the clause as said, trimmed, first person kept."""
    return " ".join(clause.split()).strip(" ,;:-")
