"""The speaker's tastes: likes, dislikes, favourites and hobbies.

"I love hiking, camping and pottery" (three likes), "I can't stand jazz", "my favorite
dance style is contemporary" (favorite "dance style: contemporary"), "Dune is my favorite
novel" (favorite "novel: Dune"), "I love all dances, but contemporary is my top pick"
(favorite "dance: contemporary"), "my hobbies are ...". A reaction to something at hand
("I love the colors you used") is not a taste.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from curator.lexicon import ANYMORE, CONNECTORS, FAV, I_, IM, LIST, NP, words
from curator.rules.base import Found, Rules, Sentence
from curator.rules.phrases import cut, phrase, tidy
from graph.attributes import favorite_attribute

RULES = Rules()

_MAX_LISTED = 4
"""A longer list of likes is a story, not a list of tastes."""

_NEW_CLAUSE = re.compile(
    r",\s*(?='?(?:it|it's|they|they're|he|she|i|i'm|we|you|that|this|which|so|but|because|cause"
    r"|especially|lol|haha|honestly|though|really|actually|anyway|tbh|right|ok|okay|too|also"
    r"|basically|literally|seriously|for\s+sure|of\s+course|you\s+know|sadly|unfortunately"
    r"|luckily|thankfully|apparently|obviously)\b"
    r"|[^,]*\b(?:is|are|was|were|has|have|had)\b)"
    r"|\s+and\s+(?:i|i'm|we|it|it's|they|he|she|you|my|then)\b",
    re.IGNORECASE,
)
_REACTION = re.compile(
    r"^(?:the\s+)?(?:idea|way|fact|thought|feeling|vibes?|colou?rs?|pics?|photos?|pictures?"
    r"|painting|sound|look|energy|support|advice|story|stories|name|view|sight|smell|thought"
    r"|reminder|message|quote|pic|shot|detail|details|seeing|hearing|knowing|having|being"
    r"|getting|connecting|sharing|making\s+(?:people|others)|helping|watching\s+(?:them|my))\b"
    r"|^(?:the|all\s+the|all\s+those|not)\b"
    r"|^(?:to\s+)?(?:think|say|believe|imagine|call|hear|see|know|help|share|chat|talk|keep)\b"
    r"|^my\b",
    re.IGNORECASE,
)


_ANSWERS = re.compile(
    r"^\s*(?:(?:short|shorter|brief|concise|long|longer|detailed|simple)\s+)+(?:answers|replies"
    r"|responses|explanations)\b",
    re.IGNORECASE,
)


def list_items(s: Sentence, m: re.Match[str], max_words: int = 4) -> list[str]:
    """The liked things: one phrase, or the items of a short list ("hiking, camping and pottery").

    Returns nothing when any item is a reaction to something at hand ("I love the colors",
    "the idea") or a bare name, or when a comma continues the phrase ("a safe, inviting
    place"): the statement is then not clearly a standing taste.
    """
    raw = s.text[m.start("obj") : m.end("obj")]
    if re.match(r"\s*(?:when|how|that|if|what|why|where|because|whenever)\b", raw, re.IGNORECASE):
        return []  # "I hate when people ...": a clause, not a thing
    for w in s.past + s.future:
        if m.start("obj") < w.span[0] < m.end("obj"):
            raw = s.text[m.start("obj") : w.span[0]]
    stop = re.search(r"[;:!?()\"…]|\.(?:\s|$)|\s[-–—]+\s|\s'?(?:but|because|cause|since|so|which"
                     r"|that|when|while|if|though|as|or)\b", raw, re.IGNORECASE)  # fmt: skip
    raw = raw[: stop.start()] if stop else raw
    clause = _NEW_CLAUSE.search(raw)
    raw = raw[: clause.start()] if clause else raw
    parts = [p for p in re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+|\s*&\s*", raw) if p.strip()]
    tidied = [tidy(p, max_words) for p in parts]
    if 1 < len(parts) <= _MAX_LISTED and all(tidied):
        items = [t for t in tidied if t]
    else:
        first = tidy(cut(s, m.start("obj"), m.end("obj")), 6)
        after = raw[raw.find(parts[0]) + len(parts[0]) :] if parts else ""
        continued = re.match(r"\s*,\s*(?!(?:it|it's|i|i'm|we|they|she|he|so|but|and"
                             r"|because|cause|lol|haha|you|especially)\b)\w", after,
                             re.IGNORECASE)  # fmt: skip
        items = [first] if first and not continued else []
    if any(_REACTION.search(p.strip()) for p in parts) or any(
        re.fullmatch(r"(?-i:[A-Z][a-z]+)", item) for item in items
    ):
        return []
    return items


@RULES.add(
    rf"(?:{I_}(?P<like>love|like|enjoy|adore)|{IM}(?:(?:a\s+)?(?:big|huge|great|massive)\s+"
    rf"fan\s+of|(?:really\s+|so\s+|super\s+)?into|passionate\s+about|obsessed\s+with"
    rf"|keen\s+on))\s+{LIST}"
)
def _likes(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    conf = 0.85 if m["like"] else 0.75
    if _ANSWERS.search(m["obj"]):  # "I like short answers": an assistant preference
        return
    for item in list_items(s, m):
        yield Found("likes", item, "likes", f"likes {item}", conf)


@RULES.add(
    rf"(?:{I_}(?:hate|dislike|detest|can't\s+stand|cannot\s+stand|don't\s+(?:really\s+)?like"
    rf"|do\s+not\s+like|don't\s+enjoy)|{IM}not\s+(?:really\s+)?(?:a\s+(?:big\s+)?fan\s+of|into))"
    rf"\s+{LIST}"
)
def _dislikes(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    if re.search(rf"\b{ANYMORE}\b", m["obj"], re.IGNORECASE):  # an ending (rules.endings)
        return
    for item in list_items(s, m):
        yield Found("dislikes", item, "likes", f"dislikes {item}", 0.8)


_NOT_FAV_TOPICS = re.compile(
    r"^(?:part|parts|moment|moments|memory|memories|bit|one|ones|day|days|time|times|thing"
    r"|things|way|ways|place|quote|line|scene|pic|photo|picture|song\s+right\s+now)\b",
    re.IGNORECASE,
)
_FAV_MOD = r"(?:all[- ]time\s+|absolute\s+|personal\s+|current\s+|new\s+)?"
_LIKED_KINDS = ("thing to do", "things to do", "activity", "hobby", "pastime")
_ALL_OF_A_KIND = re.compile(
    r"\ball\s+(?:(?:kinds?|types?|sorts?|styles?)\s+of\s+(?P<any>[a-z]+)"
    r"|(?:the\s+)?(?P<plural>[a-z]+s))"
    r"(?=\s*(?:[,;:]|\s[-–—]+\s|$)|\s+(?:but|though|yet)\b)",
    re.IGNORECASE,
)
_IE_PLURALS = words("movies cookies pies ties zombies series species selfies brownies smoothies")


def _singular(word: str) -> str:
    """ "dances" -> "dance", "stories" -> "story", "dishes" -> "dish"; naive, English only."""
    if word.endswith("ies") and word not in _IE_PLURALS:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "sses", "xes")):
        return word[:-2]
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


def _kind_before(s: Sentence, end: int) -> str:
    """The kind a favourite is picked from, named earlier in its sentence; "" if none.

    "I love all dances, but ..." -> "dance"; "all kinds of music, but ..." -> "music".
    The "all ..." phrase must end its clause, and a plain "all <word>" must be a plural.
    """
    found = list(_ALL_OF_A_KIND.finditer(s.text, 0, end))
    kind = _singular((found[-1]["any"] or found[-1]["plural"]).lower()) if found else ""
    return kind if tidy(kind, 1) and not _NOT_FAV_TOPICS.search(kind) else ""


def _favorite_of(value: str, what: str, s: Sentence, end: int, conf: float) -> Iterable[Found]:
    """A favourite `value` of the kind `what` (or one named earlier, before `end`).

    A favourite activity or hobby is a like; a favourite part, moment, day ... names no
    standing taste and yields nothing.
    """
    if what in _LIKED_KINDS:
        yield Found("likes", value, "likes", f"likes {value}", 0.8)
    elif not _NOT_FAV_TOPICS.search(what):
        what = what or _kind_before(s, end)
        attribute = favorite_attribute(what)
        yield Found(attribute, value, "likes", f"{attribute.replace('_', ' ')} {value}", conf)


@RULES.add(
    rf"\bmy\s+{_FAV_MOD}{FAV}"
    rf"(?:\s+(?P<what>[a-z][a-z-]*(?:\s+[a-z][a-z-]*){{0,2}}?))?\s+(?:is|are|has\s+to\s+be)\s+"
    rf"(?:definitely\s+|probably\s+|still\s+|gotta\s+be\s+)?{NP}",
    "free",
)
def _favorite(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "my favorite dance style is contemporary" -> favorite_dance_style "contemporary"."""
    value, what = phrase(s, m, "obj", 5), (m["what"] or "").lower()
    if value and not _REACTION.search(value):
        yield from _favorite_of(value, what, s, m.start(), 0.85)


_SUBJECT_START = re.compile(
    r"[,;:!?()\"…]|\.(?:\s|$)|\s[-–—]+\s"
    r"|\b(?:but|so|because|cause|cuz|though|although|while|whereas|since)\b",
    re.IGNORECASE,
)
_NOT_A_SUBJECT = re.compile(
    r"\b(?:i|i'm|i've|me|we|which|whichever|whatever|know|knows|knew|is|are|was|were|am|be"
    r"|been)\b",
    re.IGNORECASE,
)


def _subject_before(s: Sentence, end: int) -> tuple[int, str] | None:
    """The noun phrase that opens the clause ending at `end`, with its start; None if unclean.

    "I love all dances, but contemporary| is my top pick" -> "contemporary": the clause
    starts after the last punctuation or conjunction, leading connectors ("and", "yeah",
    "honestly") and articles are dropped, and a pronoun or a verb ("I think jazz") rules
    the phrase out.
    """
    starts = [b.end() for b in _SUBJECT_START.finditer(s.text, 0, end)]
    begin = starts[-1] if starts else 0
    for w in s.past + s.future:
        if begin <= w.span[0] and w.span[1] <= end:
            begin = w.span[1]
    while head := re.match(r"\s*([\w']+)\s+", s.text[begin:end]):
        if head[1].lower() not in CONNECTORS:
            break
        begin += head.end()
    value = tidy(s.text[begin:end], 5)
    mine = re.match(r"\s*(?:my|our)\b", s.text[begin:end], re.IGNORECASE)  # "My garden is ..."
    if not value or mine or _NOT_A_SUBJECT.search(value) or _REACTION.search(value):
        return None
    return begin, value


@RULES.add(
    rf"\s(?:is|are|has\s+(?:always\s+)?been|have\s+(?:always\s+)?been)\s+"
    rf"(?:definitely\s+|probably\s+|still\s+|easily\s+|officially\s+|always\s+)?"
    rf"my\s+{_FAV_MOD}{FAV}s?(?:\s+(?P<what>[a-z][a-z-]*(?:\s+[a-z][a-z-]*){{0,2}}?))?"
    rf"(?=\s*(?:$|[,.;:!?)…]|\s[-–—]+\s|(?:and|but|so|because|ever|too|though|lol|haha"
    rf"|by\s+far|hands\s+down|of\s+all\s+time)\b))",
    "free",
)
def _favorite_named_first(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "contemporary is my top pick", "Harry Potter is my favorite book" (favorite)."""
    subject = _subject_before(s, m.start())
    if subject is not None:
        begin, value = subject
        yield from _favorite_of(value, (m["what"] or "").lower(), s, begin, 0.8)


@RULES.add(
    rf"\bmy\s+(?:main\s+|favou?rite\s+)?hobb(?:y\s+is|ies\s+are|ies\s+include)\s+{LIST}", "free"
)
def _hobby(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    for item in list_items(s, m):
        yield Found("hobby", item, "likes", f"hobby {item}", 0.85)
