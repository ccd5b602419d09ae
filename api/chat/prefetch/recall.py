"""The block's section "From earlier conversations" (CONTRACT §6 push, §12 episodes).

The store looks the message's content words up among the owner's episodes of people's own
words (`user_stated`: what an assistant, a tool or a pasted document said is never pushed
into a turn, as the curator holds such content for the person's yes, CONTRACT §3; search, a
pull, finds it labelled) in prefetch's one query (graph/cypher/prefetch.py: a full-text
lookup, narrowed to the owner, scoped by the chat's memory access, at the as-of instant) and
returns the best BM25 candidates.
Here they are chosen and cut, deterministically, from their own words alone (BM25 depends
on every owner's texts in the shared index, so it only picks the candidates):

* each candidate counts the message's content words it holds (`matched`); those a fact
  line ranked above already carries do not count, and a candidate left with none is
  dropped (the block never says the same words twice);
* the rest are ordered by matched words (most first), then newest said, then id, and
  the first `MAX_SAID` are kept;
* each shows one snippet: its sentence holding the most matched words (the first of
  equals), cut to `MAX_SNIPPET_CHARS` around the first of them, with its date, speaker
  and chat.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from api.chat.lexical import QUESTION_WORDS
from api.chat.prefetch.text import tag
from graph.read.prefetch import SaidRow
from graph.read.search import words
from graph.time import from_micros

MAX_SAID = 3
"""Snippets the section holds at most."""
MAX_SNIPPET_CHARS = 160
"""A snippet longer than this is cut (on both sides of its first matched word)."""
MAX_RECALL_WORDS = 16
"""Content words of a message looked up at most (the first ones)."""
MIN_WORD_CHARS = 3
"""Shorter words are not looked up ("ok", "hi", "it")."""

_SENTENCE = re.compile(r"(?<=[.!?…])\s+|\n+")


def recall_words(message: str) -> list[str]:
    """The message's content words to look up among episodes: its words (folded, stop
    words out) less question words and words under `MIN_WORD_CHARS` characters, in order,
    at most `MAX_RECALL_WORDS`."""
    found = [w for w in words(message) if w not in QUESTION_WORDS and len(w) >= MIN_WORD_CHARS]
    return found[:MAX_RECALL_WORDS]


def choose(
    said: Iterable[SaidRow], recall: list[str], carried: set[str]
) -> list[tuple[SaidRow, str]]:
    """Pick and cut the snippets of the section (module docstring).

    Args:
        said: the store's candidates.
        recall: the message's content words (`recall_words`).
        carried: words the fact lines ranked above already show.

    Returns:
        Up to `MAX_SAID` (episode, snippet), best first.
    """
    wanted = set(recall) - carried
    scored = []
    for row in said:
        matched = wanted.intersection(words(row.text))
        if matched:
            scored.append((-len(matched), -row.said, row.id, row, matched))
    scored.sort(key=lambda x: x[:3])
    return [(row, snippet(row.text, matched)) for *_, row, matched in scored[:MAX_SAID]]


def snippet(text: str, matched: set[str]) -> str:
    """The sentence of `text` holding the most `matched` words (the first of equals), white
    space collapsed, cut to `MAX_SNIPPET_CHARS` around its first matched word."""
    best, best_count = "", -1
    for sentence in _SENTENCE.split(text):
        flat = " ".join(sentence.split())
        count = len(matched.intersection(words(flat)))
        if flat and count > best_count:
            best, best_count = flat, count
    if len(best) <= MAX_SNIPPET_CHARS:
        return best
    folded = best.casefold()
    first = min((folded.find(w) for w in matched if folded.find(w) >= 0), default=0)
    start = max(0, min(first - MAX_SNIPPET_CHARS // 3, len(best) - MAX_SNIPPET_CHARS + 2))
    cut = best[start : start + MAX_SNIPPET_CHARS - 2]
    return ("…" if start > 0 else "") + cut + ("…" if start + len(cut) < len(best) else "")


def who(row: SaidRow) -> str:
    """How the block names the speaker: "you" for the owner, the person's name, else the
    message's role ("assistant")."""
    if row.by_owner:
        return "you"
    return row.speaker or row.role


def line(row: SaidRow, cut: str, chat_chars: int = 40) -> str:
    """The block's line for one snippet: date, speaker, chat, and the words in quotes."""
    chat = row.chat_id if len(row.chat_id) <= chat_chars else row.chat_id[: chat_chars - 1] + "…"
    day = from_micros(row.said).date().isoformat()
    return f'- {day} {who(row)} in chat {chat}: "{cut}"'


def item(row: SaidRow, cut: str) -> dict[str, Any]:
    """The JSON item of a snippet's line (`kind: "episode"`), with the provenance tag every
    item carries ("told by you", "told by Jon": CONTRACT §12)."""
    return {
        "kind": "episode",
        "episode_id": row.id,
        "text": cut,
        "speaker": who(row),
        "speaker_id": row.speaker_id,
        "said_at": row.said_at.isoformat().replace("+00:00", "Z"),
        "chat_id": row.chat_id,
        "run_id": row.run_id,
        "message_id": row.message_id,
        "source": row.source,
        "tag": tag(row.source, None if row.by_owner else who(row)),
    }
