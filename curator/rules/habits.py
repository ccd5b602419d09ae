"""Habits and hobbies: what the speaker does regularly, took up, or replaced.

"I go swimming every morning" (habit "swimming"), "I call my mom every Sunday evening"
(habit "calling mom"), "I just started learning the cello" and "I took up knitting last
winter" (practices, from when it started), "I switched from coffee to green tea last
month" (an end of habit "drinking coffee" and a habit "drinking green tea", both from last
month). A habit's value is what is done, without how often: "I stopped swimming" then
ends it (`curator.rules.endings`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from curator.lexicon import ADV, I_, IM, IVE, NP, words
from curator.rules.base import Found, Rules, Sentence, state, window
from curator.rules.phrases import cut, tidy

RULES = Rules()

_MIN_VERB_CHARS = 2
"""A one-letter word is no habit's verb."""
_MAX_HABIT_WORDS = 3
"""A habit is named in at most three words ("drinking green tea")."""

_DOUBLED = words(
    "run swim jog shop stop sit get hit plan skip chat dig drum grab hop jam knit map nap pat"
    " rap rub sip spin step strum tap trek trim win wrap bet cut put set"
)


def gerund(verb: str) -> str:
    """The -ing form of an English verb ("run" -> "running", "bike" -> "biking")."""
    v = verb.lower()
    if v.endswith("ie"):
        return v[:-2] + "ying"
    if v.endswith("e") and not v.endswith(("ee", "ye", "oe")) and v != "be":
        return v[:-1] + "ing"
    return v + v[-1] + "ing" if v in _DOUBLED else v + "ing"


_WEEKDAYS = r"monday|tuesday|wednesday|thursday|friday|saturday|sunday"
FREQUENCY = (
    r"(?:(?:at\s+least\s+|about\s+|roughly\s+|almost\s+)?(?:(?:once|twice|\w+\s+times)\s+)?"
    rf"(?:every|each)\s+(?:single\s+)?(?:other\s+)?(?:day|morning|night|evening|afternoon|week"
    rf"|weekend|month|(?:{_WEEKDAYS})(?:\s+(?:morning|afternoon|evening|night))?)"
    r"|(?:once|twice|(?:a\s+)?(?:few|couple\s+of|\w+)\s+times)\s+a\s+(?:day|week|month)|daily"
    r"|nightly"
    rf"|on\s+(?:weekends|(?:{_WEEKDAYS})s)|most\s+(?:days|mornings|evenings|nights|weekends))"
)
"""How often ("every morning", "twice a week", "on Sundays"), as a regex fragment."""

_NOT_HABIT_VERBS = words(
    "am was were have had has don't dont can can't cannot could will would should must"
    " might may wish hope think feel wonder know love like hate need want miss see guess mean"
    " say tell remember forget look make used try am gotta gonna wanna thank pray dream"
    " worry cry laugh smile believe realize notice find keep let"
)
"""Verbs that state no habit ("I wonder every morning ..."), or that need more context."""

_HABIT = (
    r"\b(?:I|we)\s+(?:(?:also|still|always|usually|normally|often|really|now|generally"
    r"|typically|regularly|religiously|just)\s+)*"
    r"(?:try\s+to\s+|make\s+(?:it\s+)?a\s+point\s+to\s+)?"
    r"(?P<verb>(?!(?:my|our|the|an?|his|her|their|your|it|this|that|so|really|just)\b)[a-z]+)\b"
    r"(?P<obj>(?:\s+[\w'-]+){0,7}?)"
)


def _habit_value(verb: str, obj: str) -> str | None:
    """ "go" + "swimming" -> "swimming"; "call" + "my mom" -> "calling mom"."""
    v = verb.lower()
    if v in _NOT_HABIT_VERBS or v.endswith(("ed", "ing", "n't")) or len(v) < _MIN_VERB_CHARS:
        return None
    rest = tidy(obj, 7, keep_article=True) if obj.strip() else ""
    if rest is None or re.match(r"(?:and|or|but)\b", rest, re.IGNORECASE):
        return None  # "I practice and train every day": two verbs, no one habit
    if rest.split()[-1:] and rest.split()[-1].lower() in ("a", "an", "the", "some"):
        return None
    if v == "go" and not rest:
        return None
    if v == "go" and re.match(r"[a-z]+ing\b", rest):
        return rest
    return f"{gerund(v)} {rest}".strip()


@RULES.add(rf"{_HABIT}\s*,?\s+{FREQUENCY}\b")
def _habit(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "I go swimming every morning before work" (habit "swimming")."""
    value = _habit_value(m["verb"], m["obj"])
    if value:
        yield Found("habit", value, "habit", f"habitually {value}", 0.8)


@RULES.add(rf"^{FREQUENCY}\s*,?\s+{_HABIT}(?=\s*(?:[,.;:!?]|$)|\s+(?:before|after|with|at)\b)")
def _habit_first(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "Every morning I walk the dog" (habit "walking the dog")."""
    value = _habit_value(m["verb"], m["obj"])
    if value:
        yield Found("habit", value, "habit", f"habitually {value}", 0.8)


# --- hobbies taken up -----------------------------------------------------------------------

_NOT_HOBBIES = (
    r"feeling|thinking|crying|laughing|wondering|worrying|getting|being|looking|seeing|noticing"
    r"|realizing|realising|questioning|doubting|panicking|freaking|sweating|shaking|talking"
    r"|texting|dating|working(?!\s+out)|building|planning|preparing|packing|cleaning|saving"
    r"|searching|applying|selling|using|having|asking|losing|gaining|struggling|hurting"
    r"|missing|coughing|sneezing|bleeding|living|heading|putting|trying|helping"
)
_LEARNING = r"(?:learning|playing|practicing|practising|doing|taking)"
_TAKE_UP = (
    r"(?:(?:took|taken)\s+up|picked\s+up|got\s+(?:really\s+)?into|started|began|have\s+started)"
)
PASTIMES = (
    r"guitar|piano|violin|cello|viola|drums|ukulele|bass|flute|clarinet|saxophone|sax|trumpet"
    r"|trombone|harp|banjo|mandolin|harmonica|accordion|golf|tennis|squash|badminton|yoga"
    r"|pilates|chess|pottery|ceramics|photography|crochet|embroidery|calligraphy|archery"
    r"|fencing|boxing|karate|judo|jiu-jitsu|taekwondo|kickboxing|ballet|salsa|tango|origami"
    r"|sculpture|meditation|tai\s+chi|kung\s+fu|rock\s+climbing|bouldering|volleyball"
    r"|basketball|football|soccer|baseball|hockey|rugby|cricket|netball|darts|poker|improv"
    r"|zumba|crossfit|weightlifting|woodwork|parkour|aikido|capoeira|lacrosse|quilting"
)
"""Pastimes taken up by their noun ("I took up golf", "I picked up the guitar again")."""
_HOBBY_CUT = re.compile(
    rf"\s(?:with|for\s+(?:fun|my|the|a)|since|as\s+a\s+(?:hobby|way)|because)\b.*$|\s{FREQUENCY}.*$",
    re.IGNORECASE,
)


@RULES.add(
    rf"(?:{I_}|{IVE}|^(?:just\s+)?){_TAKE_UP}\s+(?:the\s+|a\s+|some\s+)?"
    rf"(?P<obj>(?:{PASTIMES})(?:\s+[a-z]+ing\b)?(?=\s+(?:lessons|classes)\b|(?!\s+(?:lessons|classes)\b))"
    rf"|(?!(?:new|the|my|some|a|an|more|any)\s)[a-z-]+\s+training)\b"
)
def _took_up_pastime(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "I picked up the guitar again", "I just started agility training" (practices)."""
    yield from _hobby(" ".join(m["obj"].lower().split()), s, m)


def _hobby(value: str | None, s: Sentence, m: re.Match[str]) -> Iterable[Found]:
    if value:
        yield state("practices", value, "hobby", f"practices {value}", 0.8, s, m, change=True)


@RULES.add(
    rf"(?:{I_}|{IVE}|^(?:just\s+)?){_TAKE_UP}\s+(?:(?P<learn>{_LEARNING})\s+"
    rf"(?:how\s+to\s+(?:play\s+)?|to\s+(?:play\s+)?)?)?{NP}"
)
@RULES.add(
    rf"(?:{IVE}been|{IM})\s+(?P<learn>learning|practicing|practising|taking)\s+"
    rf"(?:how\s+to\s+(?:play\s+)?|to\s+(?:play\s+)?)?{NP}"
)
def _took_up(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "I just started learning the cello", "I took up knitting last winter", "I started
    skateboarding six years ago", "I've been learning to play the drums since January"."""
    going = s.text.startswith("going ", m.start("obj"))  # "going to spin classes": no purpose
    raw = cut(s, m.start("obj"), m.end("obj"), purpose=not going)
    raw = _HOBBY_CUT.sub("", raw)
    if m["learn"]:
        if m["learn"].lower() == "taking" and not re.search(r"\b(?:lessons|classes)\b", raw):
            return
        yield from _hobby(tidy(re.sub(r"\s+(?:lessons|classes)$", "", raw), 4), s, m)
        return
    first = raw.split()[0].lower() if raw.split() else ""
    if not first.endswith("ing") or re.match(rf"(?:{_NOT_HOBBIES})\b", raw, re.IGNORECASE):
        return
    if re.match(r"[a-z]+ing\s+(?:an?|the|this|that|my|our|another|it)\b", raw, re.IGNORECASE):
        return  # "started writing a novel": a task under way, not a pastime
    yield from _hobby(tidy(raw, 6), s, m)


# --- replacements ---------------------------------------------------------------------------

_DRINKS = words(
    "coffee tea soda beer wine water juice milk matcha kombucha smoothie smoothies espresso"
    " latte lattes cola coke alcohol booze cocktails drinks"
)
_FOODS = words("meat sugar bread dairy carbs sweets snacks chocolate chips candy cereal pasta")


def _as_habit(phrase: str) -> str | None:
    words_ = phrase.lower().split()
    if not words_ or len(words_) > _MAX_HABIT_WORDS:
        return None
    if words_[0].endswith("ing") and len(words_) == 1:
        return phrase.lower()
    if words_[-1] in _DRINKS:
        return f"drinking {phrase.lower()}"
    if words_[-1] in _FOODS:
        return f"eating {phrase.lower()}"
    return None


@RULES.add(
    rf"(?:{I_}|{IVE}|\bwe\s+{ADV})(?:switched|swapped|traded|replaced|changed)\s+(?:from\s+)?"
    r"(?P<old>[a-z][a-z-]*(?:\s+[a-z-]+){0,2}?)\s+(?:to|for|with)\s+"
    r"(?P<new>[a-z][a-z-]*(?:\s+[a-z-]+){0,2}?)(?=\s*(?:[,.;:!?]|$)|\s+(?:last|this|two|three"
    r"|a|in|on|because|since|after|and|but|so|every|at|when|yesterday|recently)\b)"
)
def _replaced(m: re.Match[str], s: Sentence) -> Iterable[Found]:
    """ "I switched from coffee to green tea last month" (end one habit, begin the other)."""
    old, new = _as_habit(m["old"]), _as_habit(m["new"])
    if not old or not new or old == new:
        return
    w = window(s, m)
    w = w if w is not None and not w.is_future(s.at) else None
    yield Found("habit", old, "ending", f"stopped {old}", 0.85, op="end", window=w, dated=True)
    yield state("habit", new, "habit", f"habitually {new}", 0.85, s, m, change=True)
