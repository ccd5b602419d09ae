"""Reading a person's short reply to the proposals last surfaced in a chat (CONTRACT §3).

Deterministic and conservative: a reply is understood only when every clause of it
reads as a plain yes or no, for all the proposals or for ones named by position
("keep the first one", "yes to the second, no to the third", "forget the last").
Anything else ("maybe", "what do you mean?", "yes and no") is not understood, and
every proposal stays pending.

| reply                                   | reads as                                  |
|-----------------------------------------|-------------------------------------------|
| yes / yeah / sure / ok / remember that  | keep all                                  |
| / keep it / keep them / correct / right |                                           |
| no / nope / don't / forget it / discard | discard all                               |
| / drop it / never mind / wrong          |                                           |
| keep the first (one) / yes to the 2nd   | keep that one; the others stay pending    |
| forget the last one / no to the second  | discard that one; the others stay pending |
| only the first                          | keep the first, discard the others        |
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

ORDINALS = {
    "first": 0,
    "1st": 0,
    "one": 0,
    "1": 0,
    "second": 1,
    "2nd": 1,
    "two": 1,
    "2": 1,
    "third": 2,
    "3rd": 2,
    "three": 2,
    "3": 2,
    "fourth": 3,
    "4th": 3,
    "four": 3,
    "4": 3,
    "fifth": 4,
    "5th": 4,
    "five": 4,
    "5": 4,
    "last": -1,
}
_ORD = r"(" + "|".join(sorted((re.escape(k) for k in ORDINALS), key=len, reverse=True)) + r")"

_YES = (
    r"yes|yeah|yep|yup|sure|ok|okay|correct|right|that's right|that is right|true"
    r"|please do|go ahead|do it|remember (?:that|it|this|them)|keep (?:it|that|this|them|all"
    r"|both|all of them)|save (?:it|that|them)|yes please|absolutely|definitely|of course"
)
_NO = (
    r"no|nope|nah|don't|do not|dont|never mind|nevermind|wrong|not true|that's wrong"
    r"|forget (?:it|that|this|them|about it)|discard (?:it|that|this|them|all|both)"
    r"|drop (?:it|that|them)|don't remember (?:that|it|this)|don't save (?:it|that)"
    r"|no thanks|no thank you|please don't|scrap that"
)
_FILLER = r"(?:please|thanks|thank you|remember that|keep that|just|oh|well|and|but)"

_ALL_YES = re.compile(rf"^(?:{_YES})(?:\s*[, ]\s*(?:{_YES}|{_FILLER}))*$")
_ALL_NO = re.compile(rf"^(?:{_NO})(?:\s*[, ]\s*(?:{_NO}|{_FILLER}))*$")
_KEEP_ONE = re.compile(
    rf"^(?:(?:yes|keep|remember|save)\s+(?:to\s+)?(?:only\s+)?(?:the\s+)?{_ORD}(?:\s+one)?"
    rf"|(?:the\s+)?{_ORD}(?:\s+one)?\s+(?:is\s+)?(?:right|correct|yes))$"
)
_ONLY = re.compile(rf"^(?:only|just)\s+(?:keep\s+)?(?:the\s+)?{_ORD}(?:\s+one)?$")
_DROP_ONE = re.compile(
    rf"^(?:(?:no|forget|discard|drop|not)\s+(?:to\s+)?(?:the\s+)?{_ORD}(?:\s+one)?"
    rf"|(?:the\s+)?{_ORD}(?:\s+one)?\s+(?:is\s+)?(?:wrong|no))$"
)
_CLAUSES = re.compile(r"\s*(?:[;,.!]|\bbut\b|\band\b|\bthen\b)\s*")


@dataclass(slots=True)
class Reading:
    """What a reply says about N surfaced proposals (indexes into them).

    Attributes:
        understood: every clause was read; False leaves everything pending.
        keep: indexes to keep.
        discard: indexes to discard.
    """

    understood: bool
    keep: list[int] = field(default_factory=list)
    discard: list[int] = field(default_factory=list)


def _normalize(text: str) -> str:
    plain = unicodedata.normalize("NFKC", text).casefold().replace("\u2019", "'")
    plain = re.sub(r"[!?.]+$", "", plain.strip())
    return " ".join(plain.split())


def _position(m: re.Match[str]) -> str:
    return next(g for g in m.groups() if g)


def _index(word: str, n: int) -> int | None:
    i = ORDINALS[word]
    i = n - 1 if i < 0 else i
    return i if 0 <= i < n else None


def read_reply(text: str, n: int) -> Reading:  # noqa: PLR0911  # one return per row of the module's reply table
    """Read `text` as decisions about `n` surfaced proposals (see the module table).

    Returns:
        A `Reading`; `understood=False` with empty lists when any part is unclear, a
        position is out of range, one proposal gets both answers, or `n` is 0.
    """
    unclear = Reading(False)
    whole = _normalize(text)
    if n == 0 or not whole:
        return unclear
    if _ALL_YES.match(whole):
        return Reading(True, keep=list(range(n)))
    if _ALL_NO.match(whole):
        return Reading(True, discard=list(range(n)))
    keep: list[int] = []
    discard: list[int] = []
    for clause in (c for c in _CLAUSES.split(whole) if c and not re.fullmatch(_FILLER, c)):
        for pattern, target in ((_KEEP_ONE, keep), (_DROP_ONE, discard)):
            m = pattern.match(clause)
            if m:
                i = _index(_position(m), n)
                if i is None:
                    return unclear
                target.append(i)
                break
        else:
            m = _ONLY.match(clause)
            if not m or (i := _index(_position(m), n)) is None:
                return unclear
            keep.append(i)
            discard.extend(j for j in range(n) if j != i)
    if (not keep and not discard) or set(keep) & set(discard):
        return unclear
    return Reading(True, sorted(set(keep)), sorted(set(discard)))
