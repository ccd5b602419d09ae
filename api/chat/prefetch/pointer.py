"""Prefetch's pointer to knowledge documents (CONTRACT §14): one line, "see knowledge:
billing/edge-cases", naming up to three documents whose name or description the message
matches. Never a body: the assistant reads one with `read_knowledge`.

Read in the prefetch's snapshot transaction (the caller's groups with its scope, then a
full-text lookup of the message's words with the view, graph/read/turn.py; alone,
graph/read/knowledge.py `pointers`), then a pure choice:

* a document matches when every word of its name is in the message (`billing/edge-cases`:
  billing, edge, cases), or when at least two content words of its description are;
* name matches first, then more words matched, then by name; each name once.

It names documents as they read now, whatever the prefetch's `at`: the line tells the
assistant to read one now (`read_knowledge`), which reads the current version; and only
current versions are in the full-text index, so a document's history (every edit is a
version) never slows prefetch.

The line is appended after the block's sections, within the block's budgets: `build`
reserves its characters and one item before composing the rest (api/chat/prefetch/block.py).
A chat whose memory access keeps knowledge out (`none`, or `restricted` without the area
`knowledge`) gets no pointer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graph.held import doc_words
from graph.read.reader import Reader
from graph.read.search import words
from graph.scope import Reach, Scope, knowledge_allowed

if TYPE_CHECKING:
    from api.chat.prefetch.block import Prefetch

PREFIX = "see knowledge: "
MAX_NAMES = 3
MIN_DESCRIPTION_WORDS = 2


def choose(candidates: list[tuple[str, str, str, str]], message: str) -> list[str]:
    """The names to point at, best first (pure; see the module for the rule)."""
    said = set(doc_words(message))
    ranked: list[tuple[int, int, str]] = []
    for name, description, _holder, _text in candidates:
        name_words = doc_words(name)
        by_name = bool(name_words) and all(w in said for w in name_words)
        described = [w for w in words(description) if w in said]
        if by_name or len(described) >= MIN_DESCRIPTION_WORDS:
            ranked.append((0 if by_name else 1, -len(described), name))
    names: list[str] = []
    for _, _, name in sorted(ranked):
        if name not in names:
            names.append(name)
    return names[:MAX_NAMES]


def read_pointer(snap: Reader, scope: Scope, message: str) -> str | None:
    """The pointer line for `message`, or None (no match, or knowledge kept out)."""
    reach = reach_of(snap, scope)
    if reach is None:
        return None
    return line_for(snap.pointers(reach, message), message)


def reach_of(snap: Reader, scope: Scope) -> Reach | None:
    """The holders the pointer may name, or None when the chat's memory access keeps
    knowledge out (no read then; in prefetch's snapshot the groups were read with its
    scope, graph/read/prefetch.py `prefetch_scope`)."""
    if not knowledge_allowed(scope.access):
        return None
    return snap.reach(scope.owner, scope.access)


def line_for(candidates: list[tuple[str, str, str, str]], message: str) -> str | None:
    """The pointer line naming the `choose`n documents of `candidates`, or None."""
    names = choose(candidates, message)
    return PREFIX + ", ".join(names) if names else None


def reserve(line: str | None) -> tuple[int, int]:
    """(characters, items) the pointer takes from the block's budgets."""
    return (0, 0) if line is None else (len(line) + 2, 1)


def attach(prefetch: Prefetch, line: str | None) -> Prefetch:
    """The block with the pointer line after its sections, and its item last."""
    if line is None:
        return prefetch
    item: dict[str, Any] = {
        "rank": len(prefetch.items),
        "section": "knowledge",
        "line": line,
        "kind": "knowledge",
        "names": line.removeprefix(PREFIX).split(", "),
    }
    return type(prefetch)(prefetch.block + f"\n{line}\n", [*prefetch.items, item])
