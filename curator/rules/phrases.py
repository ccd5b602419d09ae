"""Values out of matches: cut a phrase at its clause's end, then tidy it or reject it.

Precision first (CONTRACT §4): a value is a short phrase, not a pronoun or a pointer to
something at hand ("it", "this", "your painting"); when in doubt a rule proposes nothing.
"""

from __future__ import annotations

import re

from curator.lexicon import FUNCTION_WORDS
from curator.rules.base import Sentence

_CUT = re.compile(
    r"\s*(?:[,;:!?()\"…]|\.(?:\s|$)|\s[-–—]+\s|[-–—]{2}"
    r"|\sand\s+(?:then\s+)?(?:[a-z]+ed|met|got|had|made|took|saw|went|came|found|felt|did|ran"
    r"|won|spent|left|bought|brought|gave|kept|began|ate|sang|wrote|read|learnt|caught|taught"
    r"|thought|fought|sent|built|lost|held|told|sold|fell|drove|rode|flew|swam|wore|sat|stood"
    r"|slept|heard|paid|led|hit|put|set|cut|let|shut|knew|grew|threw|drew|broke|chose|forgot"
    r"|my|our|their|his|her|your)\b"
    r"|\s(?:not\s+(?:so\s+)?long\s+ago|a\s+while\s+(?:ago|back)|some\s+time\s+ago"
    r"|for\s+the\s+(?:first|second|third|last|\w+th)\s+time)"
    r"|\s'?(?:but|because|cause|since|so|which|who|whom|whose|where|when|whenever|while"
    r"|as|if|though|although|until|unless|before|after|during|cuz|coz|or|lol|haha+|lmao|tbh|btw"
    r"|and\s+(?:i|i'm|i've|it|it's|its|we|we're|she|he|they|you|that|this|then|now|my|so"
    r"|also|just|really|have|had|am|was|is|are|will|can|got|get|the\s+\w+\s+(?:was|is)))\b)",
    re.IGNORECASE,
)
_FILLER = re.compile(
    r"(?:\s+(?:so\s+much|a\s+lot|too|as\s+well|anymore|right\s+now|now|these\s+days|nowadays"
    r"|lately|recently|again|already|very\s+much|the\s+most|myself|though|together|here"
    r"|ever|yet|at\s+all|any\s+more|no\s+more|back|and|with|for|of|to|in|at|on|by|about"
    r"|around|roughly|nearly|almost|over|some))+$",
    re.IGNORECASE,
)
_LEADING = re.compile(r"^(?:a|an|the|some)\s+", re.IGNORECASE)
_POSSESSIVE = re.compile(r"^(?:(?:my|our)\s+(?:very\s+)?)?own\s+|^(?:my|our)\s+", re.IGNORECASE)
"""A leading possessive determiner and "own": "my own online store" is "online store"."""
_DEICTIC = re.compile(
    r"(?<![\w-])(?:it|its|this|that|these|those|them|they|you|your|yours|u|ur|him|her|he|she|us"
    r"|something|anything|everything|nothing|stuff|one|ones|what|how|why|who|here|there|his"
    r"|their|theirs|our)(?![\w-])",
    re.IGNORECASE,
)
_PURPOSE = re.compile(
    r"\sto\s+(?!(?:the|a|an|my|our|his|her|their|this|that|some)\b)(?-i:[a-z])"
    r"|\s(?:in\s+order\s+)?to\s+(?:see|get|buy|make|help|give|show|raise|celebrate)\b",
    re.IGNORECASE,
)


_TITLE = re.compile(r'"((?-i:[A-Z0-9])[^"\n]{0,60})"')
"""A quoted title ("Dune"): its quotes end no phrase ("finished rereading "Dune"")."""
_COMPANY = re.compile(
    r"\s(?:with|alongside)\s+(?:my|our|a\s+few|a\s+couple|some|the|his|her|their|a\s+(?:friend"
    r"|colleague|coworker|co-worker|neighbou?r)|friends|family|(?-i:[A-Z]))\b.*$",
    re.IGNORECASE,
)


def cut(s: Sentence, begin: int, end: int, *, purpose: bool = False, company: bool = False) -> str:
    """The phrase at `[begin, end)` of the sentence, cut at a time expression or clause end.

    With `purpose`, also cut at "to <verb>" ("went to a fair to show off my studio"); with
    `company`, at who came along ("a bouldering class with some friends").
    """
    for w in s.past + s.future:
        if begin < w.span[0] < end:
            end = w.span[0]
    phrase = _TITLE.sub(r"\1", s.text[begin:end])
    found = _CUT.search(phrase)
    phrase = phrase[: found.start()] if found else phrase
    found = _PURPOSE.search(phrase) if purpose else None
    phrase = phrase[: found.start()] if found else phrase
    return _COMPANY.sub("", phrase) if company else phrase


def tidy(phrase: str, max_words: int, *, keep_article: bool = False) -> str | None:
    """Trim fillers, trailing punctuation, a leading possessive ("my own", "our") and a
    leading article (unless `keep_article`); None if not a clean phrase.

    The speaker's own things are named without "my": "my own online clothing store" is
    "online clothing store", so two mentions of it read as one value (CONTRACT §2.1 rule 1).
    """
    phrase = " ".join(phrase.split()).strip(" '\"-–—.,!?~*")
    for _ in range(3):
        phrase = _FILLER.sub("", phrase).strip(" '\"-–—.,!?~*")
    phrase = _POSSESSIVE.sub("", phrase)
    if not keep_article:
        phrase = _LEADING.sub("", phrase)
        phrase = _POSSESSIVE.sub("", phrase)
    words = phrase.split()
    if not words or len(words) > max_words or _DEICTIC.search(phrase):
        return None
    if len(words) == 1 and words[0].lower() in FUNCTION_WORDS:
        return None
    return phrase


def phrase(
    s: Sentence,
    m: re.Match[str],
    group: str = "obj",
    max_words: int = 6,
    purpose: bool = False,
    company: bool = False,
) -> str | None:
    """The tidy phrase of `group` in match `m`, cut at its clause's end; None if unclean."""
    return tidy(cut(s, m.start(group), m.end(group), purpose=purpose, company=company), max_words)
