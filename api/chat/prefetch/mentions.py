"""Which entities a message names: the keys to look up (CONTRACT §6 push).

A name or alias is mentioned when it occurs in the message word-bounded, case- and
accent-insensitively (both sides through `graph.names.search_key`), possessives
("Ana's", "Ana’s") and plurals ("the Smiths", "two Porsches") included. Rather than
matching every name of the owner against the message, the message is cut into its
candidate keys (every run of 1 to `MAX_NAME_WORDS` words, as written between the first
and last word, and that run less a plural "s" or "es"), which the store looks up
exactly in an index (graph/cypher/prefetch.py), so the cost follows the message, not
the size of the owner's memory.
"""

from __future__ import annotations

import re

from graph.names import search_key

MAX_NAME_WORDS = 6
"""Names of more words than this are not recognized in a message."""

MAX_KEYS = 3000
MIN_KEY_CHARS = 2
"""A one-character name is never a mention ("I", "a")."""
"""Keys looked up for one message: a long message is scanned from its start up to this."""

_WORD = re.compile(r"\w+")
_BREAK = re.compile(r"[?!;:,()\[\]{}\"<>|]")
"""Punctuation no name spans: a run of words never crosses it."""
_APOSTROPHES = ("'", "’")


def mention_keys(message: str) -> dict[str, int]:
    """Return the candidate keys of `message` and where each first occurs.

    Args:
        message: the user's message, as written.

    Returns:
        Normalized key (2 characters or more) -> character offset of its first
        occurrence in `search_key(message)`, in order of offset. "Ana's kids" gives
        "ana" (0), "ana's" (0), "ana's kid" (0), "ana's kids" (0), "kid" (6), "kids" (6);
        "ana" also comes from "anas" (a plural).
    """
    text = search_key(message)
    spans = [(m.start(), m.end()) for m in _WORD.finditer(text)]
    keys: dict[str, int] = {}
    for i, (start, first_end) in enumerate(spans):
        if first_end - start == 1 and text[start - 1 : start] in _APOSTROPHES:
            continue  # the "s" of a possessive starts no name
        for _, end in spans[i : i + MAX_NAME_WORDS]:
            run = text[start:end]
            if _BREAK.search(run):
                break
            plural = run[-2:-1].isalnum()
            for key in (
                run,
                run[:-1] if plural and run.endswith("s") else "",
                run[:-2] if plural and run.endswith("es") else "",
            ):
                if len(key) >= MIN_KEY_CHARS and key not in keys:
                    keys[key] = start
            if len(keys) >= MAX_KEYS:
                return keys
    return keys
