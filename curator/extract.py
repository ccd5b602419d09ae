"""The default extractor: first-person statements to proposals, deterministic and offline.

CONTRACT §4: the default extractor needs no model. It reads what a person wrote about
themselves ("I live in Berlin", "my sister Ana", "I went to a support group yesterday")
and proposes facts about the speaker (CONTRACT §3). Precision comes first — a wrong
memory is worse than a missing one — so a statement is mined only when

* its subject is the speaker ("I"; "we" / "Mel and I" for shared events and moves) at the
  start of a clause ("I love hiking", "Yesterday I went ...", "..., and I moved ..."),
  or it is a "my <relative>" mention, or a request to the assistant;
* the sentence is not a question (a tag like ", huh?" does not count; a polite request
  to the assistant may be one), and nothing before the statement in its sentence makes
  it hypothetical or reported ("if", "would", "wish", "maybe", "she said", "I think");
* the value is a short phrase, not a pronoun or a reaction ("I love it", "I love the
  colors you used" are skipped).

Relative times resolve against the message timestamp (`curator.timeparse`). Each rule
is a regular expression plus a builder, registered with `@_rule`; `extract_message`
applies them sentence by sentence and turns what they find into `Proposal`s.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

from committer.proposals import EntityRef, Proposal, Provenance, Scalar
from curator.timeparse import Window, day_window, find_all
from graph.time import to_utc

__all__ = ["extract_message", "extract_run", "split_sentences"]


def _words(text: str) -> frozenset[str]:
    """A word set written as one string: "big huge good" -> {"big", "huge", "good"}."""
    return frozenset(text.split())


# --- sentences -------------------------------------------------------------------------

_ABBREVIATION = re.compile(
    r"\b(?:Mr|Mrs|Ms|Dr|St|Jr|Sr|Prof|vs|etc|e\.g|i\.e|approx)\.$", re.IGNORECASE
)
_SENTENCE_END = re.compile(r"[.!?…]+[\"')\]]*(?=\s|$)|\n+")


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Split `text` into sentences.

    Returns:
        `(begin, end)` offsets of each sentence, trimmed of white space; its end
        punctuation stays with it. A period after "Dr", "St", "e.g." ... ends nothing.
    """
    spans: list[tuple[int, int]] = []
    begin = 0
    for m in _SENTENCE_END.finditer(text):
        if m.group().startswith(".") and _ABBREVIATION.search(text, begin, m.start() + 1):
            continue
        spans.append((begin, m.end()))
        begin = m.end()
    spans.append((begin, len(text)))
    out = []
    for b, e in spans:
        chunk = text[b:e]
        lead = len(chunk) - len(chunk.lstrip())
        if chunk.strip():
            out.append((b + lead, b + lead + len(chunk.strip())))
    return out


@dataclass(frozen=True, slots=True)
class _Sentence:
    """One sentence: `text` with typographic quotes made plain (same length as `evidence`)."""

    text: str
    evidence: str
    at: datetime
    past: list[Window]
    future: list[Window]


@dataclass(frozen=True, slots=True)
class _Found:
    """One statement found in a sentence, before it becomes a `Proposal`.

    `dated`: the statement's time expression dates a state's start ("I moved to Porto
    last month"); otherwise a state starts at the message time unless the expression is
    "since ..." or "for N years". `event`: the value happened within the window.
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


# --- phrases ---------------------------------------------------------------------------

_CUT = re.compile(
    r"\s*(?:[,;:!?()\"…]|\.(?:\s|$)|\s[-–—]+\s|[-–—]{2}"
    r"|\sand\s+(?:then\s+)?(?:[a-z]+ed|met|got|had|made|took|saw|went|came|found|felt|did|ran"
    r"|won|spent|left|bought|brought|gave|kept|began|ate|sang|wrote|read|learnt)\b"
    r"|\s(?:not\s+(?:so\s+)?long\s+ago|a\s+while\s+(?:ago|back)|some\s+time\s+ago)"
    r"|\s'?(?:but|because|cause|since|so|which|who|whom|whose|where|when|whenever|while"
    r"|as|if|though|although|until|unless|before|after|cuz|coz|or|lol|haha+|lmao|tbh|btw"
    r"|and\s+(?:i|i'm|i've|it|it's|its|we|we're|she|he|they|you|that|this|then|now|my|so"
    r"|also|just|really|have|had|am|was|is|are|will|can|got|get|the\s+\w+\s+(?:was|is)))\b)",
    re.IGNORECASE,
)
_FILLER = re.compile(
    r"(?:\s+(?:so\s+much|a\s+lot|too|as\s+well|anymore|right\s+now|now|these\s+days|nowadays"
    r"|lately|recently|again|already|very\s+much|the\s+most|myself|though|together|here"
    r"|ever|yet|at\s+all|and|with|for|of|to|in|at|on|by))+$",
    re.IGNORECASE,
)
_LEADING = re.compile(r"^(?:a|an|the|some)\s+", re.IGNORECASE)
_DEICTIC = re.compile(
    r"\b(?:it|its|this|that|these|those|them|they|you|your|yours|u|ur|him|her|he|she|us"
    r"|something|anything|everything|nothing|stuff|one|ones|what|how|why|who|here|there|his"
    r"|their|theirs|our)\b",
    re.IGNORECASE,
)


_PURPOSE = re.compile(
    r"\sto\s+(?!(?:the|a|an|my|our|his|her|their|this|that|some)\b)(?-i:[a-z])"
    r"|\s(?:in\s+order\s+)?to\s+(?:see|get|buy|make|help|give|show|raise|celebrate)\b",
    re.IGNORECASE,
)


def _cut(s: _Sentence, begin: int, end: int, *, purpose: bool = False) -> str:
    """The phrase at `[begin, end)` of the sentence, cut at a time expression or clause end.

    With `purpose`, also cut at "to <verb>" ("went to a fair to show off my studio").
    """
    for w in s.past + s.future:
        if begin < w.span[0] < end:
            end = w.span[0]
    phrase = s.text[begin:end]
    cut = _CUT.search(phrase)
    phrase = phrase[: cut.start()] if cut else phrase
    cut = _PURPOSE.search(phrase) if purpose else None
    return phrase[: cut.start()] if cut else phrase


def _tidy(phrase: str, max_words: int, *, keep_article: bool = False) -> str | None:
    """Trim fillers, trailing punctuation and a leading article; None if not a clean phrase."""
    phrase = " ".join(phrase.split()).strip(" '\"-–—.,!?~*")
    for _ in range(3):
        phrase = _FILLER.sub("", phrase).strip(" '\"-–—.,!?~*")
    if not keep_article:
        phrase = _LEADING.sub("", phrase)
    words = phrase.split()
    if not words or len(words) > max_words or _DEICTIC.search(phrase):
        return None
    if len(words) == 1 and words[0].lower() in _FUNCTION_WORDS:
        return None
    return phrase


_FUNCTION_WORDS = _words("to and or of for in on at with so too do not all own more")


def _phrase(
    s: _Sentence, m: re.Match[str], group: str = "obj", max_words: int = 6, purpose: bool = False
) -> str | None:
    return _tidy(_cut(s, m.start(group), m.end(group), purpose=purpose), max_words)


def _window(s: _Sentence, m: re.Match[str], prefer: str = "past") -> Window | None:
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


_CLAUSE_AFTER = re.compile(r"[;:]|,\s+(?:and|but|so)\b|\b(?:and|but|so|because)\s+(?:I|we)\b")
_CLAUSE_BEFORE = re.compile(r"[;:]|\b(?:and|but|so|because)\b", re.IGNORECASE)


# --- who says it, and how --------------------------------------------------------------

_CONNECTORS = _words(
    "and but so because cause now also plus yeah yes yep yup well oh actually honestly"
    " then though hey hi hello wow lol haha anyway anyways luckily fortunately"
    " unfortunately sadly recently lately finally ok okay sure um uh ah aw aww btw omg ya"
    " guess mean anyhow besides meanwhile first second again currently personally"
    " thankfully"
)
_HYPOTHETICAL = re.compile(
    r"\b(?:if|unless|would|wish|imagine|suppose|supposing|pretend|whether|hopefully|maybe"
    r"|perhaps|might|could|should|wonder|dream|dreaming|think|thought|guess(?!\s+what)|said|says|told"
    r"|tells|heard|someday|someone|somebody|when|whenever|once|will|thinking|can't\s+wait)\b"
    r"|\b\w+'(?:d|ll)\b",
    re.IGNORECASE,
)


_REPORTED_OR_NEGATED = re.compile(
    r"\b(?:said|says|told|tells|heard|asked|don't|do\s+not|never|stop|no\s+need)\b", re.IGNORECASE
)

Mode = Literal["anchored", "free", "request"]
"""How a rule's match must sit in its sentence (see `_speaks_for_self`)."""


def _speaks_for_self(s: _Sentence, pos: int, mode: Mode) -> bool:
    """True when the statement starting at `pos` is the speaker's own, plainly asserted.

    "anchored" statements ("I ...") must open a clause: nothing before them in the
    sentence, or a comma, a dash, a connector ("and", "so", "yeah") or a time expression;
    "free" ones ("my sister Ana") may sit anywhere. Neither may follow a conditional, a
    wish or reported speech. A "request" to the assistant ("could you answer in Spanish?")
    is polite, so only reported speech or a negation before it rules it out.
    """
    prefix = s.text[:pos]
    if prefix.count('"') % 2:
        return False
    if mode == "request":
        return not _REPORTED_OR_NEGATED.search(prefix)
    if _HYPOTHETICAL.search(prefix):
        return False
    if mode == "free":
        return True
    for w in reversed(s.past):
        if w.span[1] <= pos:
            prefix = prefix[: w.span[0]] + " " * (w.span[1] - w.span[0]) + prefix[w.span[1] :]
    prefix = prefix.rstrip()
    if not prefix or prefix[-1] in ",;:!(-–—…":
        return True
    words = re.findall(r"[\w']+", prefix)
    return bool(words) and words[-1].lower() in _CONNECTORS


# --- vocabulary ------------------------------------------------------------------------


_ADV = (
    r"(?:(?:just|also|recently|finally|actually|really|even|still|already|totally|absolutely"
    r"|definitely|truly|so|do|kinda|currently|now|always|especially|genuinely|seriously"
    r"|officially|literally|basically|honestly|mostly|simply|happily|proudly|newly|originally"
    r"|both|all|then)\s+)*"
)
_I = rf"\bI\s+{_ADV}"
_IM = rf"\bI(?:'m|\s+am)\s+{_ADV}"
_IVE = rf"\bI(?:'ve|\s+have)\s+{_ADV}"
_WE = rf"(?:\b(?:I|we)\s+|\b(?:my\s+\w+|(?-i:[A-Z][a-z]+))\s+and\s+I\s+){_ADV}"
_NOT_NAMES = (
    r"I|And|But|So|The|A|An|My|Is|Was|He|She|They|We|You|It|This|That|Who|Or|Too|Also|Just"
    r"|Oh|Yeah|Yes|No|Not|Mom|Dad|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday"
    r"|Christmas|Easter|Thanksgiving|Halloween|God|Hey|Hi|Thanks|Thank|Wow|Lol|Haha|Today"
)
_NAME_WORD = rf"(?!(?:{_NOT_NAMES})\b)[A-Z][a-z]+(?:-[A-Z][a-z]+)?"
_NAME = rf"(?-i:(?P<name>{_NAME_WORD}(?:\s+{_NAME_WORD})?))"
_PROPER_WORD = r"(?!(?:I|My|And|But|So|The)\b)[A-Z][\w'&.\-]*[\w]"
_PROPER = (
    rf"(?-i:(?P<obj>(?:the\s+)?{_PROPER_WORD}(?:\s+(?:(?:of|de|da|do|del|la|le|upon|am|&)\s+)?"
    rf"{_PROPER_WORD}){{0,3}}))"
)
_NP = r"(?P<obj>[^,.;:!?()\"\n]+)"
_LIST = r"(?P<obj>[^.;:!?()\"\n]+)"  # a phrase that may be a list: "hiking, camping and pottery"
_REL_ATTR = {
    "sister": "sibling_of", "brother": "sibling_of", "sibling": "sibling_of",
    "twin": "sibling_of", "husband": "married_to", "wife": "married_to",
    "spouse": "married_to", "son": "parent_of", "daughter": "parent_of", "kid": "parent_of",
    "child": "parent_of", "mom": "child_of", "mother": "child_of", "dad": "child_of",
    "father": "child_of", "partner": "partner_of", "boyfriend": "partner_of",
    "girlfriend": "partner_of", "fiance": "partner_of", "fiancé": "partner_of",
    "fiancee": "partner_of", "fiancée": "partner_of", "friend": "knows",
    "best friend": "knows", "grandma": "family", "grandmother": "family",
    "grandpa": "family", "grandfather": "family", "aunt": "family", "uncle": "family",
    "cousin": "family", "niece": "family", "nephew": "family", "grandson": "family",
    "granddaughter": "family", "mother-in-law": "family", "father-in-law": "family",
    "sister-in-law": "family", "brother-in-law": "family", "stepdaughter": "parent_of",
    "stepson": "parent_of", "stepmom": "child_of", "stepdad": "child_of",
    "parents": "family", "kids": "family", "children": "family", "sons": "family",
    "daughters": "family", "sisters": "family", "brothers": "family", "siblings": "family",
    "grandkids": "family", "grandchildren": "family",
}  # fmt: skip
_PETS = (
    "dog|dogs|cat|cats|puppy|puppies|pup|kitten|kittens|hamster|bunny|rabbit|parrot|horse"
    "|turtle|guinea pig|snake|lizard|bird|birds"
)
_RELS = "|".join(sorted(_REL_ATTR, key=len, reverse=True))
_REL_MOD = r"(?:(?:little|big|baby|older|younger|elder|twin|oldest|youngest|eldest|best)\s+)?"
_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10,
}  # fmt: skip
_NUM = r"(?P<n>\d{1,2}|an?|one|two|three|four|five|six|seven|eight|nine|ten)"
_OCCUPATIONS = (
    "nurse|teacher|doctor|physician|surgeon|dentist|pharmacist|engineer|developer|programmer"
    "|designer|architect|lawyer|attorney|accountant|banker|chef|baker|barista|waiter|waitress"
    "|bartender|cashier|electrician|plumber|carpenter|mechanic|pilot|firefighter"
    "|police officer|paramedic|therapist|counselor|counsellor|psychologist|psychiatrist"
    "|social worker|scientist|researcher|professor|lecturer|librarian|journalist|reporter"
    "|editor|novelist|photographer|illustrator|animator|musician|singer|actor|actress"
    "|dancer|choreographer|manager|consultant|analyst|entrepreneur|freelancer|farmer"
    "|veterinarian|vet|student|intern|realtor|secretary|receptionist|tutor|coach|instructor"
    "|nanny|caregiver|technician|biologist|chemist|physicist|economist|filmmaker|producer"
    "|composer|hairdresser|barber|tattoo artist|personal trainer|principal|janitor"
    "|lifeguard|soldier|marine|midwife|optometrist|paralegal|translator|interpreter"
    "|copywriter|web developer|data scientist|software engineer|artist|painter|writer"
    "|author|streamer|youtuber|blogger|trainer|clerk|contractor|surveyor|miner|fisherman"
)
_EVALUATIVE = _words(
    "big huge good great bad terrible awful better worse total real true proud lucky"
    " happy busy tired decent amazing horrible born natural aspiring wannabe former ex"
    " retired future would-be failed struggling hopeless lousy fantastic awesome fan"
)
_IDENTITY_ADJ = (
    "trans|transgender|cis|cisgender|gay|lesbian|bisexual|bi|queer|non-binary|nonbinary"
    "|genderqueer|genderfluid|intersex|asexual|aromantic|pansexual|straight|vegan|vegetarian"
    "|introverted|extroverted|introvert|extrovert"
)
_IDENTITY_NOUN = "woman|man|girl|guy|person|lesbian|vegan|vegetarian|introvert|extrovert"
_IDENTITY = rf"(?P<obj>(?:(?:{_IDENTITY_ADJ})\s+){{1,2}}(?:{_IDENTITY_NOUN})|(?:{_IDENTITY_ADJ}))"
_LANGUAGES = (
    "English|Spanish|French|German|Portuguese|Italian|Dutch|Japanese|Chinese|Mandarin"
    "|Cantonese|Korean|Russian|Arabic|Hindi|Polish|Swedish|Norwegian|Danish|Finnish|Turkish"
    "|Greek|Hebrew|Ukrainian|Czech|Romanian|Hungarian|Vietnamese|Thai|Indonesian|Catalan"
)
_TRIVIAL_PLACES = _words(
    "bed sleep work school store bathroom doctor home office lunch dinner breakfast"
    " kitchen room church class gym mall grocery bank toilet shower market supermarket"
)
_GROUPS = (
    r"club|group|team|community|band|choir|gym|league|society|organization|organisation"
    r"|program|programme|network|circle|church|union|crew|squad|chapter|association"
    r"|class|course|workshop|collective|guild|troupe|orchestra"
)
_RACES = r"race|marathon|half-marathon|5k|10k|triathlon|relay|fun run|ultra|charity run"
_SKIP_GOALS = _words(
    "be say tell admit have need let go get take make do check look see try keep miss bed"
    " sleep school work church class town the a an my your this that it you give stay"
    " start continue stick hold hang"
)


def _g(m: re.Match[str], group: str) -> str | None:
    """The text of `group`, or None when it did not match or the pattern has no such group."""
    return m.groupdict().get(group)


def _count(word: str) -> int:
    return int(word) if word.isdigit() else _NUMBERS[word.lower()]


def _end_ok(s: _Sentence, end: int) -> bool:
    """The clause ends at `end` (punctuation, a connector, a time expression or the end)."""
    rest = s.text[end:]
    for w in s.past + s.future:
        if w.span[0] >= end and not s.text[end : w.span[0]].strip():
            return True
    return bool(
        re.match(r"\s*(?:$|[,.;:!?)\-–—]|(?:and|but|so|because|now|too)\b)", rest, re.IGNORECASE)
    )


# --- rules -----------------------------------------------------------------------------

_Builder = Callable[[re.Match[str], _Sentence], Iterable[_Found]]
_RULES: list[tuple[re.Pattern[str], Mode, _Builder]] = []


def _rule(pattern: str, mode: Mode = "anchored") -> Callable[[_Builder], _Builder]:
    """Register a builder for `pattern` (case-insensitive; names and places are cased)."""

    def register(builder: _Builder) -> _Builder:
        _RULES.append((re.compile(pattern, re.IGNORECASE), mode, builder))
        return builder

    return register


def _state(
    attribute: str, value: Scalar, type_: str, reason: str, confidence: float,
    s: _Sentence, m: re.Match[str], *, change: bool = False, prefer: str = "past",
) -> _Found:  # fmt: skip
    """A state: dated by its time expression if it is a change ("moved") or "since ..."."""
    w = _window(s, m, prefer)
    dated = w is not None and (change or w.kind in ("since", "duration"))
    if (
        w is not None
        and w.kind == "duration"
        and not re.search(r"\b(?:I've|I\s+have|been)\b", s.text, re.IGNORECASE)
    ):
        dated = False
    return _Found(attribute, value, type_, reason, confidence, window=w if dated else None,
                  dated=dated)  # fmt: skip


@_rule(rf"(?:\bmy\s+name(?:'s|\s+is)|\bcall\s+me|\bI\s+go\s+by)\s+{_NAME}", "free")
def _name(m: re.Match[str], s: _Sentence) -> Iterable[_Found]:
    yield _Found("name", m["name"], "identity", f"is called {m['name']}", 0.9)


@_rule(rf"^(?:(?:hi|hello|hey)\b[\s,!]*)?I(?:'m|\s+am)\s+{_NAME}(?=\s*(?:[,.!]|$|\s+and\b))")
def _intro(m: re.Match[str], s: _Sentence) -> Iterable[_Found]:
    if not re.search(r"(?:ish|ese|ian|an|ic|i)$", m["name"]):  # "I'm Swedish", "Catholic"
        yield _Found("name", m["name"], "identity", f"is called {m['name']}", 0.8)


@_rule(rf"{_IM}(?P<n>\d{{1,3}})(?:\s+(?:years?|yrs?)(?:\s+old)?)?|{_I}turned\s+(?P<t>\d{{1,3}})")
def _age(m: re.Match[str], s: _Sentence) -> Iterable[_Found]:
    n = int(m["n"] or m["t"])
    if 0 < n < 120 and _end_ok(s, m.end()):
        yield _state("age", n, "identity", f"is {n} years old", 0.85, s, m, change=bool(m["t"]))


@_rule(rf"(?:{_IM}(?:an?\s+)?(?:proud\s+)?|(?P<as>\bas\s+an?\s+)){_IDENTITY}(?P<comma>\s*,)?")
@_rule(
    rf"(?P<my>\bmy\s+(?:own\s+)?(?:journey|path|experience|life|story|identity)\s+as\s+an?\s+)"
    rf"{_IDENTITY}",
    "free",
)
def _identity(m: re.Match[str], s: _Sentence) -> Iterable[_Found]:
    """ "I'm a trans woman", "As a trans woman, I ...", "my journey as a trans woman"."""
    if _g(m, "my") or (_g(m, "comma") if _g(m, "as") else _end_ok(s, m.end("obj"))):
        value = " ".join(m["obj"].split())
        yield _Found("identity", value, "identity", f"identifies as {value}", 0.85)


@_rule(
    rf"(?:{_IM}|{_IVE}been\s+)(?:an?\s+)(?P<obj>(?:[a-z-]+\s+){{0,2}}?(?:{_OCCUPATIONS}))\b"
    r"(?!'s|-\w|\s+(?:fan|at\s+heart|of\s+life|in\s+spirit|by\s+nature|in\s+training)\b)"
)
def _occupation(m: re.Match[str], s: _Sentence) -> Iterable[_Found]:
    if not _EVALUATIVE.intersection(m["obj"].lower().split()):
        yield _state("occupation", m["obj"], "work", f"works as {m['obj']}", 0.85, s, m)


@_rule(
    rf"(?:(?:{_I}work|{_IM}working|{_IVE}(?:been\s+)?work(?:ed|ing))\s+as"
    rf"|(?P<chg>{_I}(?:became|got\s+(?:a|my\s+first)\s+job\s+as|started\s+working\s+as)))"
    rf"\s+(?:an?\s+)?{_NP}"
)
def _works_as(m: re.Match[str], s: _Sentence) -> Iterable[_Found]:
    value = _phrase(s, m, "obj", 4)
    if value and not _EVALUATIVE.intersection(value.lower().split()):
        yield _state("occupation", value, "work", f"works as {value}", 0.85, s, m,
                     change=bool(m["chg"]))  # fmt: skip


_NOT_WORKPLACES = frozenset(
    {"moment", "living", "home", "bed", "night", "weekend", "time", "fun", "same time", "end"}
)
_ORG = rf"(?:{_PROPER}|(?P<common>(?:a|an|the)\s+[a-z'-]+(?:\s+[a-z'-]+){{0,2}}))"


@_rule(
    rf"(?:(?:{_I}work|{_IM}(?:working|employed)|{_IVE}(?:been\s+)?work(?:ed|ing))\s+(?:at|for|by)"
    rf"|(?P<chg>{_I}(?:got|landed|started)\s+(?:a\s+)?(?:new\s+)?(?:job|position|role|working)"
    rf"\s+(?:at|with|for)|{_I}(?:got\s+)?hired\s+(?:at|by)))\s+{_ORG}"
)
@_rule(rf"(?P<chg>(?P<soon>{_IM}starting)\s+(?:a\s+)?(?:new\s+)?(?:job|position|role)\s+(?:at|with))"
       rf"\s+{_ORG}")  # fmt: skip
def _employer(m: re.Match[str], s: _Sentence) -> Iterable[_Found]:
    if m["common"]:
        value = _phrase(s, m, "common", 3)
        if not value or value.lower() in _NOT_WORKPLACES:
            return
        confidence = 0.7
    else:
        value, confidence = m["obj"], 0.85
    yield _state("employer", value, "work", f"works at {value}", confidence, s, m,
                 change=bool(m["chg"]), prefer="future" if _g(m, "soon") else "past")  # fmt: skip


@_rule(rf"{_I}(?:quit|resigned\s+from|retired\s+from)\s+(?P<occ>){_PROPER}")
@_rule(rf"{_I}got\s+(?:fired|laid\s+off|let\s+go)(?P<occ>)(?:\s+from\s+{_ORG})?")
@_rule(
    rf"(?:{_I}|^(?:just\s+)?)(?:lost|quit|left)\s+my\s+(?:old\s+|last\s+|day\s+)?job\b"
    rf"(?:\s+as\s+(?:an?\s+)?(?P<occ>[a-z]+(?:\s+[a-z]+)?)|\s+(?:at|with)\s+{_ORG})?"
)
def _job_end(m: re.Match[str], s: _Sentence) -> Iterable[_Found]:
    w = _window(s, m)
    if m["occ"]:
        occ = _tidy(_cut(s, m.start("occ"), m.end("occ")), 3)
        if occ:
            yield _Found("occupation", occ, "work_end", f"no longer works as {occ}", 0.85,
                         op="end", window=w, dated=True)  # fmt: skip
        return
    org = _g(m, "obj") or (_g(m, "common") and _phrase(s, m, "common", 3))
    reason = f"no longer works at {org}" if org else "lost their job"
    yield _Found("employer", org or None, "work_end", reason, 0.85 if org else 0.75, op="end",
                 window=w, dated=True)  # fmt: skip


@_rule(
    rf"(?:{_I}live|{_IM}(?:living|based)|{_IVE}(?:been\s+living|lived)|\bwe\s+{_ADV}live)"
    rf"\s+in\s+{_PROPER}"
)
def _lives(m: re.Match[str], s: _Sentence) -> Iterable[_Found]:
    conf = 0.8 if m[0].lower().startswith("we") else 0.9
    yield _state("location", m["obj"], "location", f"lives in {m['obj']}", conf, s, m)


@_rule(
    rf"(?:{_WE}|^(?:just\s+|recently\s+)?)(?:moved|relocated)\s+(?:back\s+)?(?:here\s+)?to\s+{_PROPER}"
)
def _moved(m: re.Match[str], s: _Sentence) -> Iterable[_Found]:
    yield _state("location", m["obj"], "location", f"moved to {m['obj']}", 0.85, s, m,
                 change=True)  # fmt: skip


@_rule(rf"(?:{_IM}|\bwe(?:'re|\s+are)\s+{_ADV})(?:moving|relocating)\s+(?:back\s+)?to\s+{_PROPER}")
def _moving(m: re.Match[str], s: _Sentence) -> Iterable[_Found]:
    w = _window(s, m, "future")
    if w is not None and w.is_future(s.at):
        yield _Found("location", m["obj"], "location", f"moves to {m['obj']}", 0.75, window=w,
                     dated=True)  # fmt: skip


@_rule(
    rf"(?:{_IM}(?:originally\s+)?from|{_I}(?:originally\s+)?come\s+from|{_I}grew\s+up\s+in"
    rf"|\bI\s+was\s+(?:born|raised)(?:\s+and\s+(?:raised|bred))?\s+in)\s+{_PROPER}"
)
def _hometown(m: re.Match[str], s: _Sentence) -> Iterable[_Found]:
    yield _Found("hometown", m["obj"], "location", f"is from {m['obj']}", 0.85)


_APPOSITION = re.compile(
    rf"(?:^|(?<=\s))(?-i:(?P<name>{_NAME_WORD})),\s+$",
    re.IGNORECASE,
)


def _name_before(s: _Sentence, m: re.Match[str]) -> str | None:
    """The name in an apposition that ends its clause: "meet Toby, my puppy." (not a vocative).

    The name must not follow a greeting ("Hey Mel, my sister ...") and the relative or pet
    must end the clause, so "Caroline, my husband and I went" names nobody.
    """
    if not re.match(r"\s*(?:[.!,;]|$)", s.text[m.end() :]):
        return None
    found = _APPOSITION.search(s.text, 0, m.start())
    if found is None or not _speaks_for_self(s, found.start(), "free"):
        return None
    head = s.text[: found.start()].rstrip().lower()
    greeting = re.search(r"(?:^|\b)(?:hey|hi|hello|thanks|thank you|oh|yeah|wow|sorry|aw+)$|,$",
                         head)  # fmt: skip
    return None if greeting or not head and m.end() < len(s.text.rstrip(" .!")) else found["name"]


@_rule(rf"\bmy\s+{_REL_MOD}(?P<rel>{_RELS})\b(?!-|'s\s+(?:friend|boyfriend|girlfriend))"
       rf"(?:\s+{_NAME}(?!'s\s+(?:friend|house)))?", "free")  # fmt: skip
def _relative(m: re.Match[str], s: _Sentence) -> Iterable[_Found]:
    rel, name = " ".join(m["rel"].lower().split()), m["name"] or _name_before(s, m)
    attr = _REL_ATTR[rel]
    if name and not rel.endswith(("s", "ren")):
        obj = EntityRef(name=name, kind="person")
        yield _Found(attr, None, "family", f"{rel} {name}", 0.85, obj=obj)
    elif attr != "knows":
        yield _Found("family", rel, "family", f"has {rel}", 0.8)


@_rule(
    rf"\bmy\s+(?:(?:new|little|old|sweet)\s+)?(?P<pet>{_PETS})\b(?!'s\s+\w+ing\b)"
    rf"(?!\s+(?:painting|drawing|picture|photo|pic|sculpture|toy|toys|figurine|costume|print"
    rf"|bowl|food|bed|leash|collar|mug|shirt|poster|sketch)\b)(?:\s+{_NAME})?",
    "free",
)
def _pet(m: re.Match[str], s: _Sentence) -> Iterable[_Found]:
    kind, name = " ".join(m["pet"].lower().split()), m["name"] or _name_before(s, m)
    value = f"{name} ({kind})" if name else kind
    yield _Found("pet", value, "family", f"has a pet {value}", 0.8)


@_rule(
    rf"(?:{_WE}|^{_ADV})(?:got|adopted|rescued)\s+(?:a|an|another)\s+(?:new\s+)?(?P<pet>{_PETS})\b"
    rf"(?:\s+(?:named|called)\s+{_NAME})?"
)
def _got_pet(m: re.Match[str], s: _Sentence) -> Iterable[_Found]:
    kind = m["pet"].lower()
    value = f"{m['name']} ({kind})" if m["name"] else kind
    yield _state("pet", value, "family", f"has a pet {value}", 0.8, s, m, change=True)


@_rule(
    rf"(?:{_I}|\bwe\s+{_ADV})(?:have|have\s+got|'ve\s+got)\s+{_NUM}\s+{_REL_MOD}"
    rf"(?:(?P<rel>{_RELS})|(?P<pet>{_PETS}))\b(?:\s+(?:named|called)\s+{_NAME})?"
)
def _have_family(m: re.Match[str], s: _Sentence) -> Iterable[_Found]:
    n, noun = _count(m["n"]), (m["rel"] or m["pet"]).lower()
    if noun in ("friend", "best friend", "partner"):
        return
    if m["name"] and n == 1 and m["rel"] and _REL_ATTR[noun] != "knows":
        obj = EntityRef(name=m["name"], kind="person")
        yield _Found(_REL_ATTR[noun], None, "family", f"{noun} {m['name']}", 0.85, obj=obj)
        return
    value = noun if n == 1 else f"{n} {noun}"
    yield _Found("pet" if m["pet"] else "family", value, "family", f"has {value}", 0.8)


@_rule(
    rf"(?:{_IM}(?:happily\s+)?|(?P<chg>{_I}got\s+))"
    rf"(?P<st>married|single|divorced|engaged|widowed|separated)\b(?:\s+to\s+{_NAME})?"
)
def _status(m: re.Match[str], s: _Sentence) -> Iterable[_Found]:
    status = m["st"].lower()
    if m["chg"] and status not in ("married", "engaged", "divorced"):
        return
    if not m["name"] and not _end_ok(s, m.end()):
        return
    yield _state("relationship_status", status, "family", f"is {status}", 0.85, s, m,
                 change=bool(m["chg"]))  # fmt: skip
    if m["name"] and status == "married":
        yield _Found("married_to", None, "family", f"married to {m['name']}", 0.85,
                     obj=EntityRef(name=m["name"], kind="person"))  # fmt: skip


_NEW_CLAUSE = re.compile(
    r",\s*(?='?(?:it|it's|they|they're|he|she|i|i'm|we|you|that|this|which|so|but|because|cause"
    r"|especially|lol|haha|honestly|though|really|actually|anyway|tbh|right|ok|okay|too|also"
    r"|basically|literally|seriously|for\s+sure|of\s+course|you\s+know)\b"
    r"|[^,]*\b(?:is|are|was|were|has|have|had)\b)"
    r"|\s+and\s+(?:i|i'm|we|it|it's|they|he|she|you|my|then)\b",
    re.IGNORECASE,
)


def _items(s: _Sentence, m: re.Match[str], max_words: int = 4) -> list[str]:
    """The liked things: one phrase, or the items of a short list ("hiking, camping and pottery").

    Returns nothing when any item is a reaction to something at hand ("I love the colors",
    "the idea") or a bare name, or when a comma continues the phrase ("a safe, inviting
    place"): the statement is then not clearly a standing taste.
    """
    raw = s.text[m.start("obj") : m.end("obj")]
    for w in s.past + s.future:
        if m.start("obj") < w.span[0] < m.end("obj"):
            raw = s.text[m.start("obj") : w.span[0]]
    stop = re.search(r"[;:!?()\"…]|\.(?:\s|$)|\s[-–—]+\s|\s'?(?:but|because|cause|since|so|which"
                     r"|that|when|while|if|though|as|or)\b", raw, re.IGNORECASE)  # fmt: skip
    raw = raw[: stop.start()] if stop else raw
    clause = _NEW_CLAUSE.search(raw)
    raw = raw[: clause.start()] if clause else raw
    parts = [p for p in re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+|\s*&\s*", raw) if p.strip()]
    tidy = [_tidy(p, max_words) for p in parts]
    if len(parts) > 1 and all(tidy) and len(parts) <= 4:
        items = [t for t in tidy if t]
    else:
        first = _tidy(_cut(s, m.start("obj"), m.end("obj")), 6)
        after = raw[raw.find(parts[0]) + len(parts[0]) :] if parts else ""
        continued = re.match(r"\s*,\s*(?!(?:it|it's|i|i'm|we|they|she|he|so|but|and|because"
                             r"|cause|lol|haha|you|especially)\b)\w", after, re.IGNORECASE)  # fmt: skip
        items = [first] if first and not continued else []
    if any(_REACTION.search(p.strip()) for p in parts) or any(
        re.fullmatch(r"(?-i:[A-Z][a-z]+)", item) for item in items
    ):
        return []
    return items


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


@_rule(
    rf"(?:{_I}(?P<like>love|like|enjoy|adore)|{_IM}(?:(?:a\s+)?(?:big|huge|great|massive)\s+"
    rf"fan\s+of|(?:really\s+|so\s+|super\s+)?into|passionate\s+about|obsessed\s+with"
    rf"|keen\s+on))\s+{_LIST}"
)
def _likes(m: re.Match[str], s: _Sentence) -> Iterable[_Found]:
    conf = 0.85 if m["like"] else 0.75
    for item in _items(s, m):
        yield _Found("likes", item, "likes", f"likes {item}", conf)


@_rule(
    rf"(?:{_I}(?:hate|dislike|detest|can't\s+stand|cannot\s+stand|don't\s+(?:really\s+)?like"
    rf"|do\s+not\s+like|don't\s+enjoy)|{_IM}not\s+(?:really\s+)?(?:a\s+(?:big\s+)?fan\s+of|into))"
    rf"\s+{_LIST}"
)
def _dislikes(m: re.Match[str], s: _Sentence) -> Iterable[_Found]:
    for item in _items(s, m):
        yield _Found("dislikes", item, "likes", f"dislikes {item}", 0.8)


_FAV = r"(?:favou?rite|fave|fav|top\s+pick)"
_NOT_FAV_TOPICS = re.compile(
    r"^(?:part|parts|moment|moments|memory|memories|bit|one|ones|day|days|time|times|thing"
    r"|things|way|ways|place|quote|line|scene|pic|photo|picture|song\s+right\s+now)\b",
    re.IGNORECASE,
)


@_rule(
    rf"\bmy\s+(?:all[- ]time\s+|absolute\s+|personal\s+|current\s+|new\s+)?{_FAV}"
    rf"(?:\s+(?P<what>[a-z][a-z-]*(?:\s+[a-z][a-z-]*){{0,2}}?))?\s+(?:is|are|has\s+to\s+be)\s+"
    rf"(?:definitely\s+|probably\s+|still\s+|gotta\s+be\s+)?{_NP}",
    "free",
)
def _favorite(m: re.Match[str], s: _Sentence) -> Iterable[_Found]:
    value, what = _phrase(s, m, "obj", 5), (m["what"] or "").lower()
    if not value or _REACTION.search(value):
        return
    if what in ("thing to do", "things to do", "activity", "hobby", "pastime"):
        yield _Found("likes", value, "likes", f"likes {value}", 0.8)
    elif not _NOT_FAV_TOPICS.search(what):
        full = f"{what}: {value}" if what else value
        yield _Found("favorite", full, "likes", f"favorite {full}", 0.85)


@_rule(
    rf"\bmy\s+(?:main\s+|favou?rite\s+)?hobb(?:y\s+is|ies\s+are|ies\s+include)\s+{_LIST}", "free"
)
def _hobby(m: re.Match[str], s: _Sentence) -> Iterable[_Found]:
    for item in _items(s, m):
        yield _Found("hobby", item, "likes", f"hobby {item}", 0.85)


@_rule(
    r"\b(?:please\s+)?(?:keep|make)\s+(?:your\s+|the\s+)?(?:answers?|repl(?:y|ies)|responses?)"
    r"\s+(?:(?:short|brief)\s+and\s+)?(?P<style>short|brief|concise|detailed|simple|casual"
    r"|formal)|\bI\s+prefer\s+(?P<style2>short|brief|concise|detailed|longer|shorter|simple)"
    r"\s+(?:answers|replies|responses)",
    "request",
)
def _answer_style(m: re.Match[str], s: _Sentence) -> Iterable[_Found]:
    style = (m["style"] or m["style2"]).lower()
    yield _Found("answer_style", style, "preference", f"wants {style} answers", 0.9)


@_rule(
    rf"\b(?:please\s+)?(?:always\s+)?(?:answer|reply|respond|write|speak|talk)\s+(?:to\s+me\s+)?"
    rf"in\s+(?-i:(?P<lang>{_LANGUAGES}))\b|\bI\s+prefer\s+(?-i:(?P<lang2>{_LANGUAGES}))\b",
    "request",
)
def _language(m: re.Match[str], s: _Sentence) -> Iterable[_Found]:
    lang = m["lang"] or m["lang2"]
    yield _Found("language", lang, "preference", f"wants answers in {lang}", 0.9)


@_rule(r"\b(?:please\s+)?(?:use|I\s+prefer)\s+(?:the\s+)?(?P<u>metric|imperial)\b", "request")
def _units(m: re.Match[str], s: _Sentence) -> Iterable[_Found]:
    yield _Found("units", m["u"].lower(), "preference", f"uses {m['u'].lower()} units", 0.85)


_PROJECT_SKIP = re.compile(
    r"\b(?:job|diet|conversation|day|week|fire|family|life|chat|class|course|lessons?)$"
    r"|^(?:new\s+|big\s+|little\s+|few\s+)?(?:projects?|things?|ideas?|stuff)$",
    re.IGNORECASE,
)


@_rule(
    rf"(?:{_IM}(?:working\s+on|writing|building|developing|launching|opening|starting"
    rf"|setting\s+up|putting\s+together|creating|designing)"
    rf"|(?P<chg>(?:{_I}|^(?:just\s+)?)(?:started|launched|opened|founded|set\s+up|built)))"
    rf"\s+(?P<det>a|an|my|our|the)\s+{_NP}"
)
def _project(m: re.Match[str], s: _Sentence) -> Iterable[_Found]:
    value = _phrase(s, m, "obj", 5, purpose=True)
    if (
        not value
        or _PROJECT_SKIP.search(value)
        or re.match(r"(?:new\s+)?job\b", value, re.IGNORECASE)
    ):
        return
    if m["det"].lower() in ("my", "our"):
        value = f"{m['det'].lower()} {value}"
    yield _state("works_on", value, "project", f"works on {value}", 0.8, s, m,
                 change=bool(m["chg"]))  # fmt: skip


@_rule(
    rf"(?:(?:{_IM}|^)(?:planning\s+(?:on|to)|determined\s+to|aiming\s+to)"
    rf"|{_I}(?:plan|intend|aim)\s+to|{_IVE}decided\s+to|\bmy\s+(?:goal|plan)\s+is\s+to)"
    rf"\s+{_NP}"
)
def _goal(m: re.Match[str], s: _Sentence) -> Iterable[_Found]:
    value = _tidy(_cut(s, m.start("obj"), m.end("obj")), 8, keep_article=True)
    if value and value.split()[0].lower() not in _SKIP_GOALS and value[0].islower():
        yield _Found("goal", value, "goal", f"plans to {value}", 0.7)


def _event(value: str, s: _Sentence, m: re.Match[str], conf: float = 0.85) -> _Found:
    w = _window(s, m, "past")
    if w is not None and w.kind != "period":
        w = None
    return _Found("participated_in", value, "event", f"took part in {value}",
                  conf if w else 0.7, window=w, event=True)  # fmt: skip


def _trivial(value: str) -> bool:
    head = re.sub(r"^(?:the|my|a|an)\s+", "", value.lower())
    return head in _TRIVIAL_PLACES or head.split()[0] in ("see", "get", "grab", "pick", "bed")


_PAST = rf"(?:{_WE}|^{_ADV})"


@_rule(
    rf"{_PAST}(?:went\s+to|attended|participated\s+in|took\s+part\s+in|competed\s+in"
    rf"|went\s+on|just\s+got\s+back\s+from|got\s+back\s+from)\s+{_NP}"
)
def _went_to(m: re.Match[str], s: _Sentence) -> Iterable[_Found]:
    value = _phrase(s, m, "obj", 7, purpose=True)
    if value and not _trivial(value):
        yield _event(value, s, m)


@_rule(rf"{_PAST}went\s+(?P<obj>(?!going\b|through\b|nothing\b|something\b)[a-z]+ing\b[^,.;!?]*)")
def _went_doing(m: re.Match[str], s: _Sentence) -> Iterable[_Found]:
    value = _phrase(s, m, "obj", 6, purpose=True)
    if value:
        yield _event(value, s, m)


@_rule(
    rf"{_PAST}(?P<verb>visited|volunteered\s+(?:at|for|with)|performed\s+(?:at|in)|spoke\s+at"
    rf"|gave\s+a\s+(?:talk|speech|presentation)\s+(?:at|on|about)|hosted|organi[sz]ed"
    rf"|celebrated|graduated\s+from|won|ran|completed|finished)\s+{_NP}"
)
def _did(m: re.Match[str], s: _Sentence) -> Iterable[_Found]:
    verb = " ".join(m["verb"].lower().split())
    value = _tidy(_cut(s, m.start("obj"), m.end("obj"), purpose=True), 7, keep_article=True)
    if not value or value.lower().startswith(("my ", "them", "it ")):
        return
    if verb in ("ran", "completed", "finished") and not re.search(rf"\b(?:{_RACES})\b", value,
                                                                  re.IGNORECASE):  # fmt: skip
        return
    yield _event(f"{verb} {value}", s, m)


@_rule(rf"{_PAST}joined\s+(?P<det>a|an|the|our)\s+{_NP}")
def _joined(m: re.Match[str], s: _Sentence) -> Iterable[_Found]:
    value = _phrase(s, m, "obj", 5)
    if value and re.search(rf"\b(?:{_GROUPS})s?$", value, re.IGNORECASE):
        yield _state("member_of", value, "membership", f"joined {value}", 0.8, s, m,
                     change=True)  # fmt: skip


_TAG_QUESTION = re.compile(
    r"[,\-–—]\s*(?:huh|right|you\s+know|ya\s+know|eh|no|yeah|isn't\s+it|wasn't\s+it"
    r"|aren't\s+they|don't\s+you\s+think)\s*\?+\s*$",
    re.IGNORECASE,
)


def _apply(s: _Sentence) -> Iterator[_Found]:
    """Every statement the rules find in one sentence; a question holds only requests."""
    question = s.text.rstrip().endswith("?") and not _TAG_QUESTION.search(s.text)
    found: list[tuple[int, int, _Found]] = []
    for order, (pattern, mode, builder) in enumerate(_RULES):
        pos = 0
        while not (question and mode != "request") and (m := pattern.search(s.text, pos)):
            if _speaks_for_self(s, m.start(), mode):
                found.extend((m.start(), order, f) for f in builder(m, s))
            pos = m.start() + 1
    for _, _, f in sorted(found, key=lambda item: item[:2]):
        yield f


# --- proposals -------------------------------------------------------------------------

_PLAIN = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})


def _valid_time(found: _Found, at: datetime) -> tuple[datetime, datetime | None]:
    """The valid window of a statement (CONTRACT §4).

    An event covers its resolved window (a day, a week ...), else the message's day (UTC).
    A dated state or an end starts at its window's start; anything else at `at`.
    """
    w = found.window
    if found.event:
        return (w.start, w.end or w.start + timedelta(days=1)) if w else day_window(at)
    if w is not None and found.dated:
        return w.start, None
    return at, None


def _proposal_id(run_id: str, message_id: str | None, index: int, found: _Found) -> str:
    value = found.value if found.obj is None else f"@{found.obj.name}"
    key = f"{run_id}|{message_id or ''}|{index}|{found.op}|{found.attribute}|{value}"
    return hashlib.sha256(key.encode()).hexdigest()[:24]


def extract_message(
    text: str,
    *,
    at: datetime,
    speaker: str | None,
    message_id: str | None,
    run_id: str,
) -> list[Proposal]:
    """Propose facts from one message in which the speaker talks about themselves.

    Args:
        text: the message text.
        at: when it was written, aware (converted to UTC): relative times resolve
            against it, and it is the default `valid_from`.
        speaker: the person speaking (subject `EntityRef(name=speaker)`), or None for
            the owner (`EntityRef()`, the owner's own person entity).
        message_id: the message's id, kept in provenance and in the proposal ids.
        run_id: the run being curated.

    Returns:
        Proposals in text order with deterministic ids (same input, same ids), source
        `user_stated`, the quoted sentence as evidence. A statement repeated within the
        message is proposed once.

    Raises:
        graph.errors.NaiveTimestamp: `at` has no offset.
    """
    at = to_utc(at, "at")
    subject = EntityRef(name=speaker, kind="person") if speaker else EntityRef()
    plain = text.translate(_PLAIN)
    out: list[Proposal] = []
    seen: set[tuple[Any, ...]] = set()
    for begin, end in split_sentences(plain):
        chunk = plain[begin:end]
        sentence = _Sentence(
            text=chunk,
            evidence=text[begin:end],
            at=at,
            past=find_all(chunk, at, prefer="past"),
            future=find_all(chunk, at, prefer="future"),
        )
        for found in _apply(sentence):
            value = found.value.casefold() if isinstance(found.value, str) else found.value
            key = (found.op, found.attribute, value, found.obj)
            if key in seen:
                continue
            seen.add(key)
            valid_from, valid_to = _valid_time(found, at)
            provenance = Provenance(
                source="user_stated",
                evidence=sentence.evidence,
                reason=f"stated: {found.reason}",
                confidence=found.confidence,
                run_id=run_id,
                message_id=message_id,
            )
            out.append(
                Proposal(
                    id=_proposal_id(run_id, message_id, len(out), found),
                    op=found.op,
                    subject=subject,
                    attribute=found.attribute,
                    value=found.value,
                    object=found.obj,
                    valid_from=valid_from,
                    valid_to=valid_to,
                    type=found.type,
                    provenance=provenance,
                )
            )
    return out


def _field(raw: Mapping[str, Any] | Any, name: str) -> Any:
    return raw.get(name) if isinstance(raw, Mapping) else getattr(raw, name, None)


def _fact_key(p: Proposal) -> tuple[Any, ...]:
    value = p.value.casefold() if isinstance(p.value, str) else p.value
    key: tuple[Any, ...] = (p.subject, p.op, p.attribute, value, p.object)
    # An event (closed window) is its own fact; an open-ended state said twice is one.
    return key + ((p.valid_from, p.valid_to) if p.valid_to is not None or p.op == "end" else ())


def extract_run(messages: Iterable[Mapping[str, Any] | Any], run_id: str) -> list[Proposal]:
    """Propose facts from a finished run (CONTRACT §4).

    Only `role == "user"` messages are mined: a user speaks for themselves, while
    assistant and tool text is untrusted and never becomes a `user_stated` fact (§3).

    Args:
        messages: mappings or objects with `role`, `text`, `at` (an aware datetime or an
            RFC 3339 string with an offset) and optional `speaker` and `id`, in run order.
        run_id: the run's id, kept in every proposal's provenance and id.

    Returns:
        The proposals of every user message in order; an open-ended state stated again
        later in the run (same subject, attribute and value) is proposed once, first time.

    Raises:
        graph.errors.NaiveTimestamp: a message's `at` has no offset.
    """
    out: list[Proposal] = []
    seen: set[tuple[Any, ...]] = set()
    for raw in messages:
        text = _field(raw, "text") or ""
        if _field(raw, "role") != "user" or not text.strip():
            continue
        at = _field(raw, "at")
        if isinstance(at, str):
            at = datetime.fromisoformat(at)
        found = extract_message(
            text,
            at=at,
            speaker=_field(raw, "speaker"),
            message_id=_field(raw, "id"),
            run_id=run_id,
        )
        for proposal in found:
            key = _fact_key(proposal)
            if key not in seen:
                seen.add(key)
                out.append(proposal)
    return out
