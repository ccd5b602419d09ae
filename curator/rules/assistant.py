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
