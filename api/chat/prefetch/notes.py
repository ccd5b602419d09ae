"""Notes in the prefetch block (CONTRACT §6, §13): the decisions, conventions, playbooks ...
the message's words find, and a one-line count of what is due for a second look.

Read in prefetch's own snapshot by a query of its own (graph/read/notes.py
`prefetch_notes`: the full-text index on note titles and bodies, then the scope, so a chat
whose memory access leaves out area `notes` gets none; a turn's `project` sees that
project's note of a key instead of the general one, a turn without one general notes
only), and ranked with the rest: right
after the preferences and the titles of the entities the message names, before their
facts, so a budget keeps a note that fits the message before the fourth fact about
someone. Pure once read; deterministic (Lucene's scores for the same index and input,
ties by note id).

A note shows when the message shares enough of its words: two of its title's words (or
all of them, for a title of one word), or three of its title's and extract's; one
common word is not enough.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Any

from graph.fields import z
from graph.read.notes import PrefetchNote
from graph.read.reader import Reader
from graph.scope import Scope

SECTION = "Notes"
"""The block's section for notes (api/chat/prefetch/block.py SECTIONS)."""
MAX_NOTES = 3
"""Notes one block shows at most."""
BODY_CHARS = 200
"""Characters of a note's body read to match and to show."""
EXTRACT_CHARS = 80
"""Characters of the body shown after a title."""
TITLE_WORDS = 2
"""Words of a note's title (or all, for a shorter title) the message must share."""
NOTE_WORDS = 3
"""Or words of its title and extract together."""
STEM = 5
"""Words are compared by their first five letters (a crude stem: "pricing" meets "price")."""
_WORD = re.compile(r"[^\W_]+")
_COMMON = frozenset(
    re.findall(
        r"\w+",
        """a an and are as at be been but by can could did do does for from had has have he her
        his how i if in into is it its let me my no not of on or our she should so that the
        their them then there these they this to up us was we were what when where which who
        why will with would you your about just also get got make made want need like""",
    )
)


@dataclass(frozen=True, slots=True)
class NotesView:
    """What prefetch read of notes: the matching notes (best first) and how many are due."""

    notes: tuple[PrefetchNote, ...] = ()
    due: int = 0


def read(
    reader: Reader, scope: Scope, message: str, at: datetime, project: str | None = None
) -> NotesView:
    """The notes part of a prefetch, in the caller's snapshot (`reader` bound to it): the
    notes that stand for their key under `project` (general notes only without one)."""
    found, due = reader.prefetch_notes(
        scope, message, at, max_notes=MAX_NOTES * 3, body_chars=BODY_CHARS, project=project
    )
    return NotesView(tuple(found), due)


def _stems(text: str) -> set[str]:
    folded = unicodedata.normalize("NFKD", text)
    folded = "".join(c for c in folded if not unicodedata.combining(c)).casefold()
    return {w[:STEM] for w in _WORD.findall(folded) if w not in _COMMON and len(w) > 1}


def fits(note: PrefetchNote, message: str) -> bool:
    """Whether the message shares enough of the note's words (see the module docstring)."""
    said = _stems(message)
    title = _stems(note.title + " " + (note.key or ""))
    shared = len(said & title)
    in_title = shared >= min(TITLE_WORDS, len(title)) > 0
    return in_title or len(said & (title | _stems(note.extract))) >= NOTE_WORDS


def _clip(text: str, size: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= size else flat[: size - 1].rstrip() + "…"


def _item(n: PrefetchNote, tag: str) -> dict[str, Any]:
    return {
        "kind": "note",
        "note_id": n.note_id,
        "note_kind": n.kind,
        "title": n.title,
        "key": n.key,
        "status": n.status,
        "valid_from": z(n.valid_from),
        "source": n.source,
        "tag": tag,
    }


def rank_in(
    lines: Sequence[Any],
    view: NotesView,
    message: str,
    *,
    make: Callable[..., Any],
    section: int,
    tag: Callable[[str], str],
) -> list[Any]:
    """The block's ranked lines with the notes' lines ranked in (after the preferences and
    the titles of mentioned entities) and the due count after them.

    Args:
        lines: the block's lines in rank order (api/chat/prefetch/block.py `Line`s).
        view: what `read` found.
        message: the message (its words choose the notes).
        make: builds a line: `make(section, place, text, fact_id, item)`.
        section: the index of the Notes section.
        tag: the provenance tag of a source ("told by you", ...).
    """
    chosen = [n for n in view.notes if fits(n, message)][:MAX_NOTES]
    extra = []
    for i, n in enumerate(chosen):
        shown = _clip(n.extract, EXTRACT_CHARS)
        detail = f" — {shown}" if shown and shown.casefold() != n.title.casefold() else ""
        status = "" if n.status in ("active", "open") else f"{n.status}; "
        text = (
            f"- {n.kind}: {_clip(n.title, 120)}{detail} "
            f"({status}since {n.valid_from.date().isoformat()}; {tag(n.source)})"
        )
        extra.append(make(section, (i,), text, None, partial(_item, n, tag(n.source))))
    if view.due:
        text = f"- {view.due} note{'s' if view.due != 1 else ''} due for a second look"
        item: Callable[[], dict[str, Any]] = partial(dict, kind="notes_due", count=view.due)
        due = [make(section, (MAX_NOTES,), text, None, item)]
    else:
        due = []
    head = 0
    while head < len(lines) and (
        lines[head].section == 0 or (lines[head].section == 1 and lines[head].fact_id is None)
    ):
        head += 1
    return [*lines[:head], *extra, *lines[head:], *due]
