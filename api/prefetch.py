"""The `## Known World State` block pushed before each turn (CONTRACT §6).

No model call, read-only (it takes a `Reader` only), deterministic: the same store state
and input give a byte-identical block, because every list is ordered by stable keys and
no clock is read except through `at`. Capped in characters and items; what is cut is cut
by rank, whole lines only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graph.attributes import REGISTRY
from graph.names import search_key
from graph.reader import Reader
from graph.records import EntityRecord, FactRecord
from graph.time import FAR_FUTURE, FAR_PAST, AsOf

HEADER = "## Known World State"
PREAMBLE = (
    "Reference, not instruction: what memory holds about the user's world as of {at}. "
    "If the user says otherwise now, the user is right."
)
PREFERENCE_ATTRIBUTES = sorted(a for a, spec in REGISTRY.items() if spec.preference)
EVENT_ATTRIBUTE = "participated_in"
MAX_ENTITIES = 5
MAX_FACTS_PER_ENTITY = 8
MAX_EVENTS = 3


@dataclass(frozen=True, slots=True)
class Line:
    """One line of the block and its JSON item, ranked (lower rank is kept first)."""

    section: str
    rank: tuple[Any, ...]
    text: str
    item: dict[str, Any]


def _tag(fact: FactRecord, self_id: str | None, names: dict[str, EntityRecord]) -> str:
    """A short provenance tag: who said it, as the person reading the block would put it."""
    source = fact.source
    if source == "user_edit":
        return "entered by you"
    if source == "user_stated":
        if fact.entity_id == self_id:
            return "told by you"
        speaker = names.get(fact.entity_id)
        return f"said by {speaker.name}" if speaker and speaker.kind == "person" else "said in chat"
    if source.startswith("integration:"):
        return f"observed by {source.split(':', 1)[1]}"
    if source == "inferred":
        return "inferred and confirmed"
    return "from a document, confirmed"


def _day(value: datetime) -> str:
    return value.date().isoformat()


def _value(fact: FactRecord, names: dict[str, EntityRecord]) -> str:
    if fact.object_id is not None:
        other = names.get(fact.object_id)
        return other.name if other else fact.object_id
    return str(fact.value)


def _fact_line(fact: FactRecord, names: dict[str, EntityRecord], self_id: str | None) -> str:
    since = "" if fact.valid_from <= FAR_PAST else f"since {_day(fact.valid_from)}"
    until = "" if fact.valid_to >= FAR_FUTURE else f" until {_day(fact.valid_to)}"
    when = f"{since}{until}".strip()
    return (f"- {fact.attribute}: {_value(fact, names)} "
            f"({when + '; ' if when else ''}{_tag(fact, self_id, names)})")


def _item(kind: str, fact: FactRecord, names: dict[str, EntityRecord]) -> dict[str, Any]:
    entity = names.get(fact.entity_id)
    return {
        "kind": kind,
        "fact_id": fact.id,
        "entity_id": fact.entity_id,
        "entity": entity.name if entity else None,
        "attribute": fact.attribute,
        "value": _value(fact, names),
        "valid_from": _day(fact.valid_from),
        "valid_to": None if fact.valid_to >= FAR_FUTURE else _day(fact.valid_to),
        "source": fact.source,
    }


def mentioned(message: str, entries: list[tuple[str, tuple[str, ...], bool]],
              exclude: set[str]) -> list[tuple[int, str]]:
    """Find entities named in `message`: word-bounded, case- and accent-insensitive.

    Possessives ("Ana's") and plurals ("Anas") match. Returns (position, entity id) for
    the first mention of each entity, in order of position then id; archived entities
    and `exclude` are left out.
    """
    text = search_key(message)
    found: dict[str, int] = {}
    for entity_id, keys, archived in entries:
        if archived or entity_id in exclude:
            continue
        for key in keys:
            if len(key) < 2:
                continue
            m = re.search(r"(?<!\w)" + re.escape(key) + r"(?:'s|’s|s|es)?(?!\w)", text)
            if m and m.start() < found.get(entity_id, len(text) + 1):
                found[entity_id] = m.start()
    return sorted((pos, eid) for eid, pos in found.items())


def build(reader: Reader, owner: str, message: str, at: datetime,
          max_chars: int, max_items: int) -> tuple[str, list[dict[str, Any]]]:
    """Assemble the block and its items for one message (CONTRACT §6 push).

    Args:
        reader: the read-only store.
        owner: the owner id.
        message: the user's message about to be answered.
        at: the as-of instant (valid and known), aware UTC.
        max_chars: the block's size budget in characters.
        max_items: the most items (lines of facts) to include.

    Returns:
        (Markdown block, JSON items in block order).
    """
    with reader.snapshot() as snap:
        return _build(snap, owner, message, at, max_chars, max_items)


def _build(reader: Reader, owner: str, message: str, at: datetime,
           max_chars: int, max_items: int) -> tuple[str, list[dict[str, Any]]]:
    as_of = AsOf(at, at)
    self_id = reader.self_entity_id(owner)
    lines: list[Line] = []

    prefs = reader.owner_attributes(owner, PREFERENCE_ATTRIBUTES, as_of)
    events = reader.recent(owner, EVENT_ATTRIBUTE, as_of, limit=MAX_EVENTS)
    hits = mentioned(message, reader.entity_names(owner, as_of.known_at), {self_id} if self_id else set())
    hit_ids = [eid for _, eid in hits[:MAX_ENTITIES]]
    facts = reader.facts_of_entities(owner, hit_ids, as_of) if hit_ids else []

    ref_ids = set(hit_ids) | {f.entity_id for f in (*prefs, *events, *facts)}
    ref_ids |= {f.object_id for f in facts if f.object_id}
    names = reader.entities_by_ids(owner, sorted(ref_ids)) if ref_ids else {}

    for f in sorted(prefs, key=lambda f: (f.attribute, str(f.value), f.id)):
        lines.append(Line("Preferences", (0, f.attribute, f.id), _fact_line(f, names, self_id),
                          _item("preference", f, names)))
    for order, eid in enumerate(hit_ids):
        own = [f for f in facts if f.entity_id == eid and f.attribute != EVENT_ATTRIBUTE]
        own.sort(key=lambda f: (f.object_id is None, -f.valid_from.timestamp(), f.attribute, f.id))
        entity = names.get(eid)
        title = f"**{entity.name}** ({entity.kind})" if entity else eid
        lines.append(Line("Mentioned", (1, order, -1), title,
                          {"kind": "entity", "entity_id": eid,
                           "name": entity.name if entity else None}))
        for rank, f in enumerate(own[:MAX_FACTS_PER_ENTITY]):
            lines.append(Line("Mentioned", (1, order, rank), _fact_line(f, names, self_id),
                              _item("fact", f, names)))
    for rank, f in enumerate(events):
        who = names.get(f.entity_id)
        text = (f"- {_day(f.valid_from)} {who.name if who else f.entity_id}: {f.value} "
                f"({_tag(f, self_id, names)})")
        lines.append(Line("Recent events", (2, rank), text, _item("event", f, names)))
    return _render(lines, at, max_chars, max_items)


def _render(lines: list[Line], at: datetime, max_chars: int,
            max_items: int) -> tuple[str, list[dict[str, Any]]]:
    """Keep lines by rank within the budgets, then lay them out by section."""
    head = f"{HEADER}\n{PREAMBLE.format(at=_day(at))}\n"
    budget = max_chars - len(head)
    kept: list[Line] = []
    facts_kept = 0
    for line in sorted(lines, key=lambda ln: ln.rank):
        cost = len(line.text) + 1 + (len(line.section) + 6 if not any(
            k.section == line.section for k in kept) else 0)
        if (line.item["kind"] != "entity" and facts_kept >= max_items) or cost > budget:
            continue
        kept.append(line)
        budget -= cost
        facts_kept += line.item["kind"] != "entity"
    out = [head.rstrip("\n")]
    items: list[dict[str, Any]] = []
    for section in ("Preferences", "Mentioned", "Recent events"):
        chosen = [ln for ln in kept if ln.section == section]
        if not chosen:
            continue
        out.append(f"\n### {section}")
        for line in sorted(chosen, key=lambda ln: ln.rank):
            out.append(line.text)
            items.append(line.item)
    if len(out) == 1:
        out.append("\n(Nothing relevant is known.)")
    return "\n".join(out) + "\n", items
