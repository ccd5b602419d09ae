"""How the speaker wants the assistant to answer: length, language and units.

These are requests ("please keep answers short", "could you reply in Spanish?", "use
metric"), so a polite question counts; reported speech or a negation before one does not
(see `curator.rules.base.speaks_for_self`, mode "request").
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from curator.lexicon import LANGUAGES
from curator.rules.base import Found, Rules, Sentence

RULES = Rules()


@RULES.add(
    r"\b(?:please\s+)?(?:keep|make)\s+(?:your\s+|the\s+)?(?:answers?|repl(?:y|ies)|responses?)"
    r"\s+(?:(?:short|brief)\s+and\s+)?(?P<style>short|brief|concise|detailed|simple|casual"
    r"|formal)|\bI\s+prefer\s+(?P<style2>short|brief|concise|detailed|longer|shorter|simple)"
    r"\s+(?:answers|replies|responses)",
    "request",
)
def _answer_style(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    style = (m["style"] or m["style2"]).lower()
    yield Found("answer_style", style, "preference", f"wants {style} answers", 0.9)


@RULES.add(
    rf"\b(?:please\s+)?(?:always\s+)?(?:answer|reply|respond|write|speak|talk)\s+(?:to\s+me\s+)?"
    rf"in\s+(?-i:(?P<lang>{LANGUAGES}))\b|\bI\s+prefer\s+(?-i:(?P<lang2>{LANGUAGES}))\b",
    "request",
)
def _language(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    lang = m["lang"] or m["lang2"]
    yield Found("language", lang, "preference", f"wants answers in {lang}", 0.9)


@RULES.add(r"\b(?:please\s+)?(?:use|I\s+prefer)\s+(?:the\s+)?(?P<u>metric|imperial)\b", "request")
def _units(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    yield Found("units", m["u"].lower(), "preference", f"uses {m['u'].lower()} units", 0.85)


# --- more ways to say it: length, tone, things to avoid or to use ----------------------

_STYLE = {
    "short": "short", "shorter": "short", "brief": "brief", "briefer": "brief",
    "concise": "concise", "succinct": "concise", "detailed": "detailed", "longer": "detailed",
    "thorough": "detailed", "simple": "simple", "simpler": "simple",
}  # fmt: skip
_STYLE_WORD = "|".join(_STYLE)
_OUTPUT = r"(?:answers?|repl(?:y|ies)|responses?|explanations?|messages?)"
_IMPERATIVE_LEAD = re.compile(
    r"^(?:(?:please|pls|just|and|also|oh|ok|okay|so|hey|from\s+now\s+on|going\s+forward"
    r"|in\s+future|(?:can|could|would|will)\s+you|always)[\s,!]*)*$",
    re.IGNORECASE,
)


def _imperative(s: Sentence, pos: int) -> bool:
    """The request at `pos` opens its clause ("Please don't use emojis", "..., avoid jargon")."""
    head = re.split(r"[,;:!.\-–—]\s", s.text[:pos])[-1]
    return bool(_IMPERATIVE_LEAD.match(head.strip()))


@RULES.add(
    rf"\b(?:keep|make)\s+(?:it|things|(?:your\s+|the\s+)?{_OUTPUT})\s+(?P<a>{_STYLE_WORD})\b"
    rf"|\bbe\s+(?:more\s+|a\s+bit\s+more\s+)?(?P<b>concise|brief|succinct|detailed|thorough)\b"
    rf"|\bI\s+(?:prefer|like|want|need)\s+(?P<c>{_STYLE_WORD})(?:\s+and\s+\w+)?\s+{_OUTPUT}"
    rf"|\bgive\s+me\s+(?:(?:more|longer|shorter|much)[\s,]+)*(?P<d>{_STYLE_WORD})\s+{_OUTPUT}",
    "request",
)
def _answer_style_more(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "Could you keep it brief?", "be more concise", "I like short answers"."""
    word = next(w for w in (m["a"], m["b"], m["c"], m["d"]) if w)
    if m["c"] or _imperative(s, m.start()):
        style = _STYLE[word.lower()]
        yield Found("answer_style", style, "preference", f"wants {style} answers", 0.9)


_TONES = "casual|formal|friendly|playful|professional|direct|blunt|gentle|warm|relaxed"


@RULES.add(
    rf"\bbe\s+(?:more\s+|a\s+bit\s+more\s+)?(?P<t>{_TONES})\b(?!\s+about\b)"
    rf"|\buse\s+an?\s+(?:more\s+)?(?P<u>{_TONES})\s+tone\b",
    "request",
)
def _tone(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "Be more casual with me", "please use a friendly tone"."""
    if _imperative(s, m.start()):
        tone = (m["t"] or m["u"]).lower()
        yield Found("tone", tone, "preference", f"wants a {tone} tone", 0.85)


_AVOID = {
    "emojis": "emojis", "emoji": "emojis", "emoticons": "emoticons",
    "exclamation marks": "exclamation marks", "exclamation points": "exclamation marks",
    "jargon": "jargon", "markdown tables": "markdown tables", "markdown": "markdown",
    "tables": "tables", "bullet points": "bullet points", "headers": "headings",
    "headings": "headings", "slang": "slang", "profanity": "profanity", "swearing": "swearing",
    "apologizing": "apologies", "apologising": "apologies", "apologies": "apologies",
    "disclaimers": "disclaimers", "small talk": "small talk", "filler": "filler",
    "code blocks": "code blocks",
}  # fmt: skip
_AVOID_WORD = "|".join(sorted(_AVOID, key=len, reverse=True)).replace(" ", r"\s+")


@RULES.add(
    r"\b(?:(?:don't|do\s+not|never|stop|quit|avoid|no\s+more|no)\s+"
    r"(?:(?:use|using|add|adding|include|including|put|putting|send|sending)\s+)?"
    rf"(?:any\s+|so\s+many\s+|the\s+|those\s+)?)(?P<x>{_AVOID_WORD})\b",
    "request",
)
def _avoid(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "Don't use emojis", "No emojis please", "stop apologizing", "avoid jargon"."""
    if _imperative(s, m.start()):
        thing = _AVOID[" ".join(m["x"].lower().split())]
        yield Found("preference", f"no {thing}", "preference", f"wants no {thing}", 0.9)


_WANT = {
    "bullet points": "use bullet points", "numbered lists": "use numbered lists",
    "headings": "use headings", "tables": "use tables", "plain language": "use plain language",
    "simple words": "use simple words", "examples": "include examples",
    "code examples": "include code examples", "sources": "cite sources",
    "citations": "cite sources", "references": "cite sources", "links": "include links",
}  # fmt: skip
_WANT_WORD = "|".join(sorted(_WANT, key=len, reverse=True)).replace(" ", r"\s+")


@RULES.add(
    r"\b(?:use|include|cite|add|give\s+me|show\s+me)\s+(?:your\s+|the\s+|some\s+|more\s+)?"
    rf"(?P<x>{_WANT_WORD})\b",
    "request",
)
def _use(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "Please use bullet points", "always cite your sources"."""
    if _imperative(s, m.start()):
        want = _WANT[" ".join(m["x"].lower().split())]
        yield Found("preference", want, "preference", f"wants answers to {want}", 0.85)
