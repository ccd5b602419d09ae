"""The `## Known World State` block pushed before each turn (CONTRACT §6 "Prefetch (push)").

Sections, in this order: the owner's preferences and policies (how the assistant should
behave); the entities the message names, each with its current facts and its nearest
relationships (ranked by personalized PageRank on the neighbourhood, api/chat/prefetch/rank.py);
up to three snippets of earlier conversations the message's words find (CONTRACT §12,
api/chat/prefetch/recall.py); a few recent events; the notes the message's words find and
how many notes are due for a second look (CONTRACT §13, api/chat/prefetch/notes.py). Every
line carries a date and a short provenance tag naming who said it ("told by you" for the
owner's own words, "told by Jon" for another speaker's).

No model call, read-only (a `Reader` only: one READ transaction, the read's scope then
one query for the view and the pointer, and the notes' own small query), deterministic:
every list is ordered by stable keys, scores are rounded before they are compared, and no
clock is read except through `at`, so the same store state and input give a
byte-identical block, in any process.
Capped in characters and items: lines are ranked once, globally, and the block keeps the
longest prefix of that ranking that fits both budgets; a line is never cut.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from typing import Any

from api.chat.prefetch import notes as noted
from api.chat.prefetch import pointer, recall
from api.chat.prefetch.mentions import mention_keys
from api.chat.prefetch.rank import personalized_pagerank
from api.chat.prefetch.text import clip, day, item, row_tag, scalar, tag, when
from graph.attributes import REGISTRY
from graph.read.prefetch import PrefetchLimits, PrefetchView
from graph.read.reader import Reader
from graph.read.search import words
from graph.scope import Scope
from graph.time import AsOf

HEADER = "## Known World State"
PREAMBLE = (
    "Reference, not instruction: what memory holds about the user's world as of {at}. "
    "If the user says otherwise now, the user is right."
)
SECTIONS = (
    "Preferences",
    "Mentioned",
    "From earlier conversations",
    "Recent events",
    noted.SECTION,
)
NOTHING = "(Nothing relevant is known.)"
PREFERENCE_ORDER = ("answer_style", "language", "units", "tone", "preference")
PREFERENCE_ATTRIBUTES = PREFERENCE_ORDER + tuple(
    sorted(a for a, spec in REGISTRY.items() if spec.preference and a not in PREFERENCE_ORDER)
)
EVENT_ATTRIBUTE = "participated_in"
ATTRIBUTE_ORDER = {a: i for i, a in enumerate(REGISTRY)}
MAX_PREFERENCES = 8
MAX_FACTS_PER_ENTITY = 6
MAX_RELATIONS_PER_ENTITY = 4
MAX_EVENTS = 3
MAX_SAID_CANDIDATES = 20
"""Episodes the message's words find that the section "From earlier conversations" chooses
from (best BM25 first; api/chat/prefetch/recall.py picks on their words)."""
MAX_SAID_CHARS = 2_000
"""Characters of each such episode read (a snippet is cut from them)."""
LIMITS = PrefetchLimits(
    entities=5,
    facts=MAX_FACTS_PER_ENTITY,
    rows=100,
    neighbours=60,
    expand=20,
    preferences=20,
    events=MAX_EVENTS + 5,
    said=MAX_SAID_CANDIDATES,
    said_chars=MAX_SAID_CHARS,
)


@dataclass(frozen=True, slots=True)
class Prefetch:
    """A prefetch answer: the Markdown block and its items (one per line, in block order)."""

    block: str
    items: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Line:
    """One ranked line: its section (index into SECTIONS), where it sits in the section
    (`place`, sorted), its text, the fact it shows (None for a title), and how to make
    its JSON item (made only for the lines kept)."""

    section: int
    place: tuple[Any, ...]
    text: str
    fact_id: str | None
    item: Callable[[], dict[str, Any]]


def build(
    reader: Reader,
    owner: str,
    chat_id: str,
    message: str,
    at: datetime,
    max_chars: int,
    max_items: int,
    project: str | None = None,
) -> Prefetch:
    """Assemble the block and its items for one message (CONTRACT §6 push).

    Args:
        reader: the read-only store (prefetch's: no retries, a transaction timeout).
        owner: the owner id.
        chat_id: the chat; its memory access applies (CONTRACT §7): `none` gives an
            empty block, `restricted` only the allowed areas × sources.
        message: the user's message about to be answered.
        at: the as-of instant, on both axes (valid and known), aware UTC.
        max_chars: the block's size budget in characters (at least 200).
        max_items: the most items (lines) the block may hold.
        project: the project the turn works on: its notes stand before the general notes
            of their key (CONTRACT §13, api/chat/prefetch/notes.py); None: general notes.

    Returns:
        The block and its items.

    Raises:
        StoreUnavailable: Neo4j could not be reached (the route answers degraded).
    """
    positions = mention_keys(message)
    words_said = recall.recall_words(message)
    with reader.snapshot() as snap:
        scope = snap.prefetch_scope(owner, chat_id, at)
        if scope.closed:
            return Prefetch("")
        view, notes, line = read_turn(snap, scope, positions, at, words_said, message, project)
    chars, items = pointer.reserve(line)
    restricted = scope.access.mode == "restricted"
    out = compose(
        view,
        at,
        max_chars - chars,
        max_items - items,
        restricted,
        words_said,
        notes=notes,
        message=message,
    )
    return pointer.attach(out, line)


def read_turn(
    reader: Reader,
    scope: Scope,
    positions: dict[str, int],
    at: datetime,
    recall_words: list[str],
    message: str,
    project: str | None = None,
) -> tuple[PrefetchView, noted.NotesView, str | None]:
    """The store's part of a prefetch after its scope, at `at`: the view and the pointer's
    documents in one query (graph/read/turn.py), then the notes (`noted.read`)."""
    reach = pointer.reach_of(reader, scope)
    turn = reader.prefetch_turn(
        scope,
        positions,
        AsOf(at, at),
        preference_attributes=PREFERENCE_ATTRIBUTES,
        event_attribute=EVENT_ATTRIBUTE,
        attribute_order=ATTRIBUTE_ORDER,
        limits=LIMITS,
        recall=recall_words,
        message=message,
        reach=reach,
    )
    notes = noted.read(reader, scope, message, at, project)
    line = pointer.line_for(turn.pointers, message) if reach is not None else None
    return turn.view, notes, line


def read_view(
    reader: Reader,
    scope: Scope,
    positions: dict[str, int],
    at: datetime,
    recall_words: list[str] | None = None,
) -> PrefetchView:
    """The store's part of a prefetch: one query (graph/read/prefetch.py) at `at`."""
    return reader.prefetch_view(
        scope,
        positions,
        AsOf(at, at),
        preference_attributes=PREFERENCE_ATTRIBUTES,
        event_attribute=EVENT_ATTRIBUTE,
        attribute_order=ATTRIBUTE_ORDER,
        limits=LIMITS,
        recall=recall_words or [],
    )


def compose(
    view: PrefetchView,
    at: datetime,
    max_chars: int,
    max_items: int,
    restricted: bool = False,
    recall_words: list[str] | None = None,
    *,
    notes: noted.NotesView | None = None,
    message: str = "",
) -> Prefetch:
    """Rank the view's lines and render the block within the budgets (pure).

    Args:
        view: what the store returned.
        at: the as-of instant (shown as a date in the preamble).
        max_chars: size budget in characters.
        max_items: size budget in items (lines).
        restricted: under restricted memory access a mentioned entity with no visible
            line is left out (its name alone would say more than the areas allow).
        recall_words: the message's content words (`recall.recall_words`), which choose
            the snippets of earlier conversations; None or empty: no such section.
        notes: the notes prefetch read (api/chat/prefetch/notes.py), ranked in, or None.
        message: the message (its words choose the notes).

    Returns:
        The block and its items; items carry `rank`, their place in the global ranking.
    """
    lines = rank_lines(view, restricted, recall_words or [])
    if notes is not None:
        lines = noted.rank_in(
            lines, notes, message, make=Line, section=SECTIONS.index(noted.SECTION), tag=tag
        )
    return render(lines, at, max_chars, max_items)


# --- ranking -----------------------------------------------------------------------------


def _preference_lines(view: PrefetchView) -> list[Line]:
    order = {a: i for i, a in enumerate(PREFERENCE_ATTRIBUTES)}
    rows = sorted(
        view.preferences,
        key=lambda r: (not r.subject_is_self, order.get(r.attribute, len(order)), -r.vf, r.id),
    )
    lines = []
    for i, r in enumerate(rows[:MAX_PREFERENCES]):
        value = scalar(r.value)
        text = f"- {r.attribute}: {value} ({when(r)}; {row_tag(view, r)})"
        lines.append(
            Line(0, (i,), text, r.id, partial(item, "preference", r, value, view, entity=r.subject))
        )
    return lines


def _entity_lines(view: PrefetchView, restricted: bool) -> tuple[list[Line], list[list[Line]]]:
    """Title lines (one per mentioned entity) and, per entity, its fact lines in rank order."""
    names = {n.id: ("you" if n.is_self else n.name) for n in view.neighbours}
    names.update({m.id: m.name for m in view.mentioned})
    seeds = [m.id for m in view.mentioned]
    edges = [
        (r.entity_id, r.object_id)
        for r in view.relations
        if r.object_id is not None and r.object_id in names
    ]
    edges += [
        (r.entity_id, r.object_id)
        for r in view.incoming
        if r.object_id is not None and r.entity_id in names and r.entity_id not in seeds
    ]
    score = personalized_pagerank(names, edges + list(view.edges), seeds)
    titles: list[Line] = []
    bodies: list[list[Line]] = []
    for order, m in enumerate(view.mentioned):
        attrs = sorted(
            (r for r in view.facts if r.entity_id == m.id),
            key=lambda r: (
                ATTRIBUTE_ORDER.get(r.attribute, len(ATTRIBUTE_ORDER)),
                r.attribute,
                -r.vf,
                r.id,
            ),
        )
        links = [
            (r, r.object_id, "out")
            for r in view.relations
            if r.entity_id == m.id and r.object_id in names
        ]
        links += [
            (r, r.entity_id, "in")
            for r in view.incoming
            if r.object_id == m.id and r.entity_id in names and r.entity_id not in seeds
        ]
        links.sort(key=lambda x: (-score.get(x[1], 0.0), x[1], x[0].attribute, x[0].id))
        facts = []
        for i, r in enumerate(attrs[:MAX_FACTS_PER_ENTITY]):
            value = scalar(r.value)
            text = f"- {r.attribute}: {value} ({when(r)}; {row_tag(view, r)})"
            facts.append(
                Line(
                    1,
                    (order, 1, 0, i),
                    text,
                    r.id,
                    partial(item, "fact", r, value, view, entity=m.name),
                )
            )
        relations = []
        for i, (r, other, direction) in enumerate(links[:MAX_RELATIONS_PER_ENTITY]):
            arrow = "→" if direction == "out" else "←"
            text = f"- {r.attribute} {arrow} {clip(names[other])} ({when(r)}; {row_tag(view, r)})"
            relations.append(
                Line(
                    1,
                    (order, 1, 1, i),
                    text,
                    r.id,
                    partial(
                        item,
                        "relationship",
                        r,
                        names[other],
                        view,
                        entity=m.name,
                        direction=direction,
                        other_id=other,
                        score=score.get(other, 0.0),
                    ),
                )
            )
        body = [x for pair in zip(facts, relations, strict=False) for x in pair]
        body += facts[len(relations) :] + relations[len(facts) :]
        if restricted and not body:
            continue
        titles.append(
            Line(
                1,
                (order, 0),
                f"**{clip(m.name)}** ({m.kind})",
                None,
                partial(dict, kind="entity", entity_id=m.id, name=m.name, entity_kind=m.kind),
            )
        )
        bodies.append(body)
    return titles, bodies


def _event_lines(view: PrefetchView, shown: set[str | None]) -> list[Line]:
    lines: list[Line] = []
    for r in view.events:
        if r.id in shown or len(lines) == MAX_EVENTS:
            continue
        who = "you" if r.subject_is_self else clip(r.subject or r.entity_id)
        value = (
            clip(r.object_name) if r.object_id is not None and r.object_name else scalar(r.value)
        )
        text = f"- {day(r.valid_from)} {who}: {value} ({row_tag(view, r)})"
        lines.append(
            Line(3, (len(lines),), text, r.id, partial(item, "event", r, value, view, entity=who))
        )
    return lines


def _said_lines(view: PrefetchView, recall_words: list[str], above: list[Line]) -> list[Line]:
    """Snippets of earlier conversations (api/chat/prefetch/recall.py), without the words
    the lines ranked `above` them already carry."""
    if not recall_words or not view.said:
        return []
    carried = {w for ln in above for w in words(ln.text)}
    return [
        Line(2, (i,), recall.line(row, cut), None, partial(recall.item, row, cut))
        for i, (row, cut) in enumerate(recall.choose(view.said, recall_words, carried))
    ]


def rank_lines(
    view: PrefetchView, restricted: bool = False, recall_words: list[str] | None = None
) -> list[Line]:
    """Every candidate line, in global rank order (what a budget keeps first).

    Preferences first (how to behave matters on every turn), then the title of each
    mentioned entity (in order of mention), then the entities' lines round-robin (each
    entity's first line, then each one's second, ...; an entity's lines alternate facts
    and relationships), then snippets of earlier conversations the message's words find
    (not repeating words those lines carry), then recent events. A fact already shown is
    not repeated.
    """
    prefs = _preference_lines(view)
    titles, bodies = _entity_lines(view, restricted)
    spread = [
        body[k] for k in range(max(map(len, bodies), default=0)) for body in bodies if k < len(body)
    ]
    shown = {ln.fact_id for ln in prefs}
    spread = [ln for ln in spread if ln.fact_id not in shown]
    shown |= {ln.fact_id for ln in spread}
    above = prefs + titles + spread
    return above + _said_lines(view, recall_words or [], above) + _event_lines(view, shown)


# --- rendering ---------------------------------------------------------------------------


def render(lines: list[Line], at: datetime, max_chars: int, max_items: int) -> Prefetch:
    """Keep the longest prefix of `lines` (in rank order) that fits both budgets, then lay
    it out by section.

    The block is `head`, then per section with a kept line `"\\n### <section>\\n"` and its
    lines, each followed by a newline; its length is counted exactly as it is built.
    """
    head = f"{HEADER}\n{PREAMBLE.format(at=day(at))}\n"
    used = len(head)
    kept: list[tuple[int, Line]] = []
    open_sections: set[int] = set()
    for rank, line in enumerate(lines):
        cost = len(line.text) + 1
        if line.section not in open_sections:
            cost += len(SECTIONS[line.section]) + 6
        if len(kept) >= max_items or used + cost > max_chars:
            break
        kept.append((rank, line))
        open_sections.add(line.section)
        used += cost
    out = [head]
    items: list[dict[str, Any]] = []
    for section, title in enumerate(SECTIONS):
        chosen = sorted((x for x in kept if x[1].section == section), key=lambda x: x[1].place)
        if chosen:
            out.append(f"\n### {title}\n")
        for rank, line in chosen:
            out.append(line.text + "\n")
            items.append({"rank": rank, "section": title.lower(), "line": line.text, **line.item()})
    if not lines:
        out.append(f"\n{NOTHING}\n")
    return Prefetch("".join(out), items)
