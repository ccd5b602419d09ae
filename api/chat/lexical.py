"""The lexical evidence of recall (api/chat/search.py): a query's content words, a text's
stems, and the weighed share of the one the other holds.

Words are folded as the full-text lists fold them (`graph.read.search.words`: accents
and case) and reduced to their English Snowball stem ("researched" -> "research"). Pure
functions of their arguments, cached where texts repeat (a candidate's text is immutable);
no store, no other owner's texts.
"""

from __future__ import annotations

import functools
import math
import re
import threading
from collections.abc import Mapping, Set

import Stemmer  # A C extension without stubs.

from graph.read.search import words

_QUESTIONS = """what when where who whom whose which why how does do did done am is are was were be
    been being has have had i me my mine myself you your yours we us our ours he him his
    she her hers they them their theirs can could would should shall will may might must
    tell know remember about any some please"""


QUESTION_WORDS = frozenset(_QUESTIONS.split())
"""Words a question carries whatever it asks about: left out of the lexical evidence and
of what the full-text lists are asked (`asked`)."""


_TOKEN = re.compile(r"\w+")


_stemmers = threading.local()


@functools.lru_cache(maxsize=100_000)
def stem(word: str) -> str:
    """The English (Snowball) stem of a folded word ("researched" -> "research"), cached:
    candidates' texts repeat their words. One stemmer per thread: a stemmer is not
    thread-safe."""
    stemmer = getattr(_stemmers, "english", None)
    if stemmer is None:
        stemmer = _stemmers.english = Stemmer.Stemmer("english")
    return str(stemmer.stemWord(word))


def stems(found: list[str]) -> list[str]:
    """`stem` of each of `found` (folded words), in order, each once."""
    return list(dict.fromkeys(stem(w) for w in found))


def content_words(q: str) -> list[str]:
    """The stems the lexical evidence counts: those of `words(q)` less `QUESTION_WORDS`
    (of all of `words(q)` when nothing else is left)."""
    found = words(q)
    return stems([w for w in found if w not in QUESTION_WORDS] or found)


def asked(q: str) -> str:
    """What the full-text lists are asked for: the words of `q` as written (the episode
    index asks accented words in both forms) less stop words and `QUESTION_WORDS`, or `q`
    itself when nothing else is left ("Who are you?"). BM25 weighs a question's "what
    did" down but still counts it, so a message holding them and not the question's
    subject could take a candidate's place."""
    kept = [w for w in _TOKEN.findall(q) if any(f not in QUESTION_WORDS for f in words(w))]
    return " ".join(kept) or q


def lexical(terms: list[str], text: str | None, weights: dict[str, float] | None = None) -> float:
    """The share of `terms` (`content_words` of a query) that `text` holds, every word of
    `text` however long, as its stem; each term counted by its weight in `weights` (1 for
    all when None, or for a term it does not name)."""
    return held(terms, stem_set(text), weights)


def held(
    terms: list[str],
    have: Set[str],
    weights: dict[str, float] | None = None,
    around: Mapping[str, float] | None = None,
) -> float:
    """The weighed share of `terms` in the stems `have` (see `lexical`); a term only the
    context holds (the messages near it, `context`: stem -> what it counts for) counts for
    its value in `around`."""
    around = around or {}
    if not terms or not (have or around):
        return 0.0
    total = found = 0.0
    for t in terms:  # one pass, no dict per call: a search asks this of every candidate
        weight = 1.0 if weights is None else weights.get(t, 1.0)
        total += weight
        found += weight * (1.0 if t in have else around.get(t, 0.0))
    return found / total if total > 0 else 0.0


def pool_weights(terms: list[str], pool: list[Set[str]]) -> dict[str, float]:
    """How rare each term is among the candidates' stems `pool`: BM25's inverse document
    frequency, ln(1 + (N - n + 0.5) / (n + 0.5)) for a term n of N candidates hold. Only
    the caller's own candidates count, so no other owner's texts move it."""
    size = len(pool)
    out = {}
    for t in terms:
        n = sum(t in have for have in pool)
        out[t] = math.log(1 + (size - n + 0.5) / (n + 0.5))
    return out


def stem_set(text: str | None) -> frozenset[str]:
    """`text_stems` of `text`, empty for none."""
    return text_stems(text) if text else frozenset()


@functools.lru_cache(maxsize=20_000)
def text_stems(text: str) -> frozenset[str]:
    """The stems of every word of `text` (`stem` of `words(text, limit=None)`), cached by
    text: a candidate's text is immutable (a fact row's search text, an episode's), and
    the same candidates come back search after search."""
    return frozenset(stem(w) for w in words(text, limit=None))


@functools.lru_cache(maxsize=10_000)
def speaker_stems(name: str | None) -> frozenset[str]:
    """The stems of a speaker's name, as `content_words` gives a query's ("Caroline" ->
    {"carolin"}); empty for none. Cached: a search asks it of every candidate, and their
    speakers are few."""
    return frozenset(stems(words(name))) if name else frozenset()
