"""Statements about the person in untrusted content: assistant and tool messages,
documents, and text pasted into a user message (CONTRACT §3).

Nothing from here is `user_stated`: every proposal has source `untrusted`, so the risk
policy holds it for the person's yes (and drops secrets outright). The rules are narrow
on purpose: "the user's favourite colour is blue", "the user lives in Porto", "you work
at Acme" (an assistant addressing the person).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime
from typing import Any

from committer.proposals import EntityRef, Proposal, Provenance
from curator.extract import split_sentences
from graph.attributes import attribute_name

UNTRUSTED_ROLES = frozenset({"assistant", "tool", "document", "system"})

_VALUE = r"(?P<value>[A-Za-z0-9][\w'&.\- ]{0,60}?)"
_NAME = r"(?P<value>[A-Z][\w'&.\-]*(?:\s+(?:of\s+|de\s+)?[A-Z][\w'&.\-]*){0,4})"
_END = r"\s*(?:[.!,;?]|\band\b|\bbut\b|$)"
_USER = r"(?:the\s+user|the\s+person|you)"

_RULES: tuple[tuple[re.Pattern[str], str | None, str], ...] = (
    (
        re.compile(
            rf"\b(?:the\s+user|the\s+person)'s\s+(?P<attr>[a-z][a-z ]{{1,30}}?)\s+is\s+"
            rf"{_VALUE}{_END}",
            re.IGNORECASE,
        ),
        None,
        "the user's {attr} is {value}",
    ),
    (
        re.compile(rf"\b(?i:{_USER}\s+(?:live|lives)\s+in)\s+{_NAME}\b"),
        "location",
        "lives in {value}",
    ),
    (
        re.compile(rf"\b(?i:{_USER}\s+(?:work|works)\s+(?:at|for))\s+{_NAME}\b"),
        "employer",
        "works at {value}",
    ),
    (
        re.compile(rf"\b{_USER}\s+(?:like|likes|love|loves)\s+{_VALUE}{_END}", re.IGNORECASE),
        "likes",
        "likes {value}",
    ),
)

_FENCED = re.compile(r"^[ \t]*(```|~~~).*?(?:^[ \t]*\1[ \t]*$|\Z)", re.DOTALL | re.MULTILINE)
_QUOTED = re.compile(r"^[ \t]*>.*$", re.MULTILINE)
_INDENTED = re.compile(r"(?:(?<=\n\n)|\A)(?:(?: {4}|\t).*(?:\n|\Z))+")


def split_pasted(text: str) -> tuple[str, str]:
    """Split a user message into (the person's own words, pasted content).

    Pasted content is a fenced block (``` or ~~~, closed or running to the end), quoted
    lines ("> ...") or an indented block (four spaces or a tab, after a blank line);
    it is not the person speaking, so it is mined only as untrusted content. Each
    pasted piece is replaced by a line break, so the person's sentences around it stay
    whole.
    """
    pasted: list[str] = []
    own = text
    for pattern in (_FENCED, _QUOTED, _INDENTED):
        pasted.extend(m.group() for m in pattern.finditer(own))
        own = pattern.sub("\n", own)
    cleaned = "\n".join(
        re.sub(r"^[ \t]*(?:```|~~~|>)\s?", "", line, flags=re.MULTILINE) for line in pasted
    )
    return own, cleaned


def extract_untrusted(messages: Iterable[Mapping[str, Any]], run_id: str) -> Iterator[Proposal]:
    """Propose what untrusted content says about the person; source `untrusted` (§3).

    Args:
        messages: run messages (role, text, at as aware datetime, optional id).
        run_id: the run being curated.

    Yields:
        Proposals about the owner (`EntityRef()`), confidence 0.5, deterministic ids.
    """
    for index, m in enumerate(messages):
        role, text = m.get("role"), m.get("text") or ""
        if role == "user":
            text = split_pasted(text)[1]
        elif role not in UNTRUSTED_ROLES:
            continue
        at: datetime = m["at"]
        for begin, end in split_sentences(text):
            sentence = text[begin:end]
            for pattern, attribute, reason in _RULES:
                for found in pattern.finditer(sentence):
                    attr = attribute or attribute_name(found["attr"])
                    value = found["value"].strip()
                    key = f"{run_id}|{index}|{attr}|{value.casefold()}"
                    yield Proposal(
                        id="u" + hashlib.sha256(key.encode()).hexdigest()[:23],
                        subject=EntityRef(),
                        attribute=attr,
                        value=value,
                        valid_from=at,
                        type="untrusted_statement",
                        provenance=Provenance(
                            source="untrusted",
                            evidence=sentence,
                            reason=f"{role} content says: "
                            + reason.format(attr=attr.replace("_", " "), value=value),
                            confidence=0.5,
                            run_id=run_id,
                            message_id=m.get("id"),
                        ),
                    )
